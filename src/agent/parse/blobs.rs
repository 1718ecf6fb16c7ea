//! Pass 2: turns the regions found by [`scan`](super::scan) into blobs: JSON values read
//! (with repairs) and interpreted as a tool call `{"action", "action_input"}` or one of its
//! synonyms, or a record of why not. A region that does not read may hide a good object
//! (`{{...}}` template leakage, a stray prose `{`), so it is looked inside once.

use serde_json::Value;

use super::error::excerpt;
use super::json::{close_cut, read_object};
use super::scan::{looks_like_action, scan, FenceInfo, Region, RegionKind, ScanOut};

pub(super) enum Outcome {
    /// An object carrying a tool name. `input` is None when no input key exists.
    Action { name: String, input: Option<Value> },
    /// The tool-name key holds something other than a non-empty string.
    BadName(String),
    /// Valid JSON without a tool name; may still be the input of an MRKL line.
    NotAction(Value),
    Invalid { reason: String, action_like: bool },
}

pub(super) struct Blob {
    pub start: usize,
    pub end: usize,
    pub fence: Option<FenceInfo>,
    pub outcome: Outcome,
    pub notes: Vec<String>,
    /// Start of the `Action:` label that introduces this blob.
    pub label: Option<usize>,
    pub consumed: bool,
}

impl Blob {
    fn new(start: usize, end: usize, fence: Option<FenceInfo>, outcome: Outcome, notes: Vec<String>) -> Blob {
        Blob { start, end, fence, outcome, notes, label: None, consumed: false }
    }

    fn from_value(start: usize, end: usize, fence: Option<FenceInfo>, v: Value, mut notes: Vec<String>) -> Blob {
        let outcome = interpret(&v, 0, &mut notes);
        Blob::new(start, end, fence, outcome, notes)
    }

    /// Everything except prose braces that merely failed to parse.
    pub fn could_be_call(&self) -> bool {
        !matches!(self.outcome, Outcome::Invalid { action_like: false, .. }) || self.fence.is_some_and(|f| f.jsonish)
    }

    fn names_a_tool(&self) -> bool {
        matches!(self.outcome, Outcome::Action { .. } | Outcome::BadName(_))
    }

    /// Whether text inside this blob should be read as JSON content rather
    /// than as reply structure. Prose braces that failed to parse do not hide
    /// the labels inside them.
    pub fn hides_labels(&self) -> bool {
        match &self.outcome {
            Outcome::Invalid { action_like, .. } => *action_like,
            _ => true,
        }
    }
}

/// All blobs of the reply, sorted by where they start.
pub(super) fn find_blobs(text: &str) -> Vec<Blob> {
    let scanned = scan(text.as_bytes(), 0, text.len());
    let mut blobs = Vec::new();
    collect_blobs(text, &scanned, None, true, &mut blobs);
    crate::sort::sort_by_key(&mut blobs, |x| x.start);
    blobs
}

pub(super) fn blob_at(blobs: &[Blob], pos: usize) -> Option<usize> {
    blobs.binary_search_by_key(&pos, |x| x.start).ok()
}

pub(super) fn inside_json(blobs: &[Blob], pos: usize) -> bool {
    let idx = blobs.partition_point(|x| x.start <= pos);
    idx > 0 && pos < blobs[idx - 1].end && blobs[idx - 1].hides_labels()
}

fn collect_blobs(text: &str, sc: &ScanOut, inherited: Option<Option<FenceInfo>>, allow_rescan: bool, out: &mut Vec<Blob>) {
    for r in &sc.regions {
        let fence = match inherited {
            Some(f) => f,
            None => r.fence.and_then(|i| sc.fences.get(i).copied()),
        };
        match &r.kind {
            RegionKind::Complete => complete_region(text, r.start, r.end, fence, allow_rescan, out),
            RegionKind::Unclosed { attempts, inner } => unclosed_region(text, r, attempts, inner, fence, allow_rescan, out),
        }
    }
}

fn complete_region(text: &str, start: usize, end: usize, fence: Option<FenceInfo>, allow_rescan: bool, out: &mut Vec<Blob>) {
    let span = &text[start..end];
    match read_object(span) {
        Ok((v, notes)) => out.push(Blob::from_value(start, end, fence, v, notes)),
        Err(reason) => {
            // An unreadable outer object may still hold a good one: `{{...}}`
            // template leakage, or a stray prose `{` that captured the real blob.
            // Look inside once, unless the outer part itself names an action (then
            // the inner object is just its input and reporting the error is right).
            let head_end = span[1..].find('{').map_or(span.len(), |p| p + 1);
            if allow_rescan && !looks_like_action(&span.as_bytes()[..head_end]) {
                let before = out.len();
                collect_blobs(text, &scan(text.as_bytes(), start + 1, end), Some(fence), false, out);
                if out[before..].iter().any(Blob::names_a_tool) {
                    let note = if span.starts_with("{{") && span.ends_with("}}") {
                        "JSON repaired: doubled braces {{ }}"
                    } else {
                        "used the JSON object found inside a larger unreadable one"
                    };
                    for blob in &mut out[before..] {
                        blob.notes.push(note.to_string());
                    }
                    return;
                }
                out.truncate(before);
            }
            let action_like = looks_like_action(span.as_bytes());
            out.push(Blob::new(start, end, fence, Outcome::Invalid { reason, action_like }, Vec::new()));
        }
    }
}

/// Braces still open where the region ends. At the end of the reply the value was cut off
/// (a stop sequence, a length limit): when only its end is missing it is closed and read.
fn unclosed_region(
    text: &str,
    r: &Region,
    attempts: &[usize],
    inner: &[(usize, usize)],
    fence: Option<FenceInfo>,
    allow_rescan: bool,
    out: &mut Vec<Blob>,
) {
    let end = r.end;
    for &s in attempts {
        let span = text[s..end].trim_end();
        if let Some((v, notes)) = close_cut(span) {
            out.push(Blob::from_value(s, s + span.len(), fence, v, notes));
            for &(is, ie) in inner.iter().filter(|(is, _)| *is < s) {
                complete_region(text, is, ie, fence, allow_rescan, out);
            }
            return;
        }
    }
    let before = out.len();
    if allow_rescan {
        // Rescanning from just inside the first open brace also finds what a
        // mis-read string (an opening quote never closed) had hidden.
        collect_blobs(text, &scan(text.as_bytes(), r.start + 1, end), Some(fence), false, out);
    } else {
        for &(is, ie) in inner {
            complete_region(text, is, ie, fence, false, out);
        }
    }
    if out[before..].iter().any(Blob::names_a_tool) {
        return;
    }
    out.truncate(before);
    let s = attempts.first().copied().unwrap_or(r.start);
    let span = &text[s..end];
    let reason = "its braces are never closed, and closing them at the end did not make it readable".to_string();
    let action_like = looks_like_action(span.as_bytes());
    out.push(Blob::new(s, end, fence, Outcome::Invalid { reason, action_like }, Vec::new()));
}

/// Keys that name the tool. Normalised: lowercase, no ' ', '_', '-', '\'.
const NAME_KEYS: &[&str] = &["action", "tool", "toolname", "actionname"];
/// Weaker names, only trusted next to an input key (`{"name": "Bob"}` is data).
const WEAK_NAME_KEYS: &[&str] = &["name", "functionname", "function"];
/// Keys that hold the tool input, most specific first.
const INPUT_KEYS: &[&str] = &[
    "actioninput",
    "toolinput",
    "input",
    "arguments",
    "args",
    "parameters",
    "params",
    "toolparameters",
    "actionparameters",
];
/// Wrappers some chat-tuned models put the whole call under.
const WRAPPER_KEYS: &[&str] = &["function", "functioncall", "toolcall", "action"];

fn norm_key(k: &str) -> String {
    if k.is_ascii() {
        return k.bytes().filter(|c| !matches!(c, b' ' | b'_' | b'-' | b'\\')).map(|c| char::from(c.to_ascii_lowercase())).collect();
    }
    k.chars().filter(|c| !matches!(c, ' ' | '_' | '-' | '\\')).flat_map(char::to_lowercase).collect()
}

/// Reads a JSON value as a tool call. `depth` is 1 inside a wrapper key.
fn interpret(v: &Value, depth: u8, notes: &mut Vec<String>) -> Outcome {
    let Value::Object(map) = v else {
        return Outcome::NotAction(v.clone());
    };
    let keys: Vec<(String, &String, &Value)> = map.iter().map(|(k, v)| (norm_key(k), k, v)).collect();
    let find = |wanted: &[&str]| {
        wanted
            .iter()
            .find_map(|w| keys.iter().find(|(n, _, _)| n == w))
            .map(|(n, k, v)| (n.as_str(), k.as_str(), *v))
    };
    let input = find(INPUT_KEYS);
    let name = find(NAME_KEYS).or_else(|| input.and_then(|_| find(WEAK_NAME_KEYS)));

    // {"function": {"name": ..., "arguments": ...}} and {"action": {"tool": ...}}:
    // look one level down when the top level has no usable name.
    let usable = matches!(name, Some((_, _, Value::String(s))) if !s.trim().is_empty());
    if !usable && depth == 0 {
        if let Some((_, k, inner @ Value::Object(_))) = find(WRAPPER_KEYS) {
            let mut inner_notes = Vec::new();
            if let Outcome::Action { name, input } = interpret(inner, 1, &mut inner_notes) {
                notes.append(&mut inner_notes);
                notes.push(format!("the tool call was nested under \"{k}\""));
                return Outcome::Action { name, input };
            }
        }
    }
    let Some((name_norm, name_key, name_val)) = name else {
        return Outcome::NotAction(v.clone());
    };
    let name = match name_val {
        Value::String(s) if !s.trim().is_empty() => s.clone(),
        other => return Outcome::BadName(excerpt(&other.to_string())),
    };
    let mut renamed = Vec::new();
    if name_norm != "action" {
        renamed.push(format!("\"{name_key}\" as \"action\""));
    }
    let input = input.map(|(n, k, val)| {
        if n != "actioninput" {
            renamed.push(format!("\"{k}\" as \"action_input\""));
        }
        // OpenAI-style arguments arrive as a JSON document inside a string.
        if matches!(n, "arguments" | "args" | "parameters" | "params") {
            if let Value::String(s) = val {
                if let Ok(obj @ Value::Object(_)) = serde_json::from_str::<Value>(s.trim()) {
                    notes.push(format!("the \"{k}\" string was decoded as JSON"));
                    return obj;
                }
            }
        }
        val.clone()
    });
    if !renamed.is_empty() {
        notes.push(format!("accepted {}", renamed.join(" and ")));
    }
    Outcome::Action { name, input }
}
