//! Cleaning the tool input: what the model meant to pass, without the marks around it.
//!
//! [`read_text_input`] reads the free text of an MRKL `Action Input:` line: JSON when it is
//! an object or array (Markdown or stray marks before it and a comment or a few words after
//! it are dropped), plain text otherwise (wrapping quotes, backticks, fences and one
//! unmatched opening quote removed). [`clean_input`] then applies to every input, from any
//! source: a call wrapped around it (`search({"q": "x"})`) is unwrapped, Markdown escapes
//! outside code (`sales\_price`) are undone, and a stop word cut short at the end (`Obs`)
//! is dropped. Each change becomes a note.

use serde_json::Value;

use super::error::excerpt;
use super::json::{read_json_text, read_object};
use super::scan::{count_run, is_jsonish_lang, skip_lang_tag, value_end, ValueEnd};
use super::tools::resolve_tool;

/// The text after `Action Input:` as a tool input.
pub(super) fn read_text_input(raw: &str) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let raw = match trim_stop_fragment(raw) {
        Some(kept) => {
            notes.push(STOP_FRAGMENT_NOTE.to_string());
            kept
        }
        None => raw,
    };
    let s = strip_code_wrapping(raw);
    // `** {"q": "x"}`, `> {...}`: marks before an object are not part of it.
    let json = s.trim_start_matches(|c: char| matches!(c, '*' | '_' | '>' | '`' | ':') || c.is_whitespace());
    if json.starts_with(['{', '[']) {
        if json.len() != s.len() {
            notes.push(format!("ignored \"{}\" before the JSON input", s[..s.len() - json.len()].trim()));
        }
        if let Some((v, n)) = read_json_text(json).or_else(|| json_then_junk(json, &mut notes)) {
            notes.extend(n);
            return (v, notes);
        }
        notes.push("Action Input looked like JSON but could not be read, so it was passed on as plain text".to_string());
        return (Value::String(s.to_string()), notes);
    }
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            if q == '"' {
                if let Ok(v) = serde_json::from_str::<String>(s) {
                    return (Value::String(v), notes);
                }
            }
            return (Value::String(s[1..s.len() - 1].to_string()), notes);
        }
    }
    // `"what is it?`: an opening quote whose closing one never came (no quote of that kind
    // anywhere after it, so it cannot be part of a quotation inside the input).
    let unmatched = |q: char, close: char| s.strip_prefix(q).filter(|r| !r.contains([q, close]) && !r.trim().is_empty());
    if let Some(rest) = unmatched('"', '”').or_else(|| unmatched('“', '”')).or_else(|| unmatched('\'', '’')) {
        notes.push("removed an unmatched opening quote from the input".to_string());
        return (Value::String(rest.trim().to_string()), notes);
    }
    (Value::String(s.to_string()), notes)
}

/// A complete JSON value followed by a comment or a few words (`{...} /* note */, or so`):
/// the value, with a note on what was dropped. Refused when the tail holds another
/// bracket, since then it is not clear which part was meant.
fn json_then_junk(s: &str, notes: &mut Vec<String>) -> Option<(Value, Vec<String>)> {
    let ValueEnd::Closed(end) = value_end(s) else {
        return None;
    };
    let tail = s[end..].trim();
    if tail.contains(['{', '[']) {
        return None;
    }
    let (v, n) = read_object(&s[..end]).ok()?;
    notes.push(format!("ignored the text after the JSON input: {}", excerpt(tail)));
    Some((v, n))
}

fn strip_code_wrapping(raw: &str) -> &str {
    let mut s = raw.trim();
    if s.starts_with("```") {
        let b = s.as_bytes();
        let run = count_run(b, 0, b.len(), b'`');
        let tag_end = skip_lang_tag(b, run, b.len());
        // "```Albert Einstein```" has no language tag, "```json\n{..." has one.
        let is_tag = is_jsonish_lang(&b[run..tag_end]) || matches!(b.get(tag_end), Some(b'\n' | b'\r'));
        s = s[if is_tag { tag_end } else { run }..].trim();
    }
    if s.ends_with("```") {
        s = s.trim_end_matches('`').trim();
    }
    if s.len() >= 2 && s.starts_with('`') && s.ends_with('`') {
        s = s[1..s.len() - 1].trim();
    }
    s
}

const STOP_FRAGMENT_NOTE: &str = "dropped the start of an \"Observation:\" label cut short at the end";

/// A stop sequence cut short at the very end: the last line is the start of
/// "Observation:" ("Obs", "Observ") and the server withheld the rest. Returns the text
/// before that line.
pub(super) fn trim_stop_fragment(s: &str) -> Option<&str> {
    let t = s.trim_end();
    // Only the last few bytes can hold the fragment: a long answer is not searched back.
    let tail = t.len().saturating_sub(16);
    let nl = tail + t.as_bytes()[tail..].iter().rposition(|&c| c == b'\n')?;
    let last = t[nl + 1..].trim();
    (last.len() >= 2 && last.len() < "Observation:".len() && "Observation:".starts_with(last)).then(|| &t[..nl])
}

/// Cleans the input of a call to `tool`, from any source. Returns the input and notes.
pub(super) fn clean_input(input: Value, tool: &str) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let mut input = input;
    if let Value::String(s) = &input {
        if let Some(v) = unwrap_call(s, tool) {
            notes.push(format!("the input was written as a call {tool}(...); its argument was used"));
            input = v;
        }
    }
    if let Value::String(s) = &mut input {
        if let Some(kept) = trim_stop_fragment(s) {
            notes.push(STOP_FRAGMENT_NOTE.to_string());
            *s = kept.trim_end().to_string();
        }
    }
    if unescape_value(&mut input) {
        notes.push("removed Markdown escapes such as \\_ from the input".to_string());
    }
    (input, notes)
}

/// `SomeTool({"a": 1})` or `functions.search("x")` given as the input of that same tool:
/// the call's argument is the input. A call to anything else (`print("hi")` for a Python
/// tool) is the input itself and stays.
fn unwrap_call(s: &str, tool: &str) -> Option<Value> {
    let s = s.trim();
    let open = s.find('(')?;
    let callee = s[..open].trim();
    let callee = callee.rsplit('.').next().unwrap_or(callee);
    if callee.is_empty() || resolve_tool(callee, &[tool]) != Ok(Some(tool)) {
        return None;
    }
    let inner = s[open + 1..].strip_suffix(')')?.trim();
    if inner.starts_with(['{', '[']) {
        return read_json_text(inner).map(|(v, _)| v);
    }
    if inner.starts_with('"') {
        return serde_json::from_str::<String>(inner).ok().map(Value::String);
    }
    let quoted = inner.strip_prefix('\'').and_then(|r| r.strip_suffix('\''))?;
    Some(Value::String(quoted.to_string()))
}

/// Undoes `\_` and `\*` in every string of the value, outside backtick code. Returns
/// whether anything changed.
fn unescape_value(v: &mut Value) -> bool {
    match v {
        Value::String(s) => match unescape_markdown(s) {
            Some(clean) => {
                *s = clean;
                true
            }
            None => false,
        },
        Value::Array(items) => items.iter_mut().fold(false, |changed, x| unescape_value(x) | changed),
        Value::Object(map) => map.values_mut().fold(false, |changed, x| unescape_value(x) | changed),
        _ => false,
    }
}

/// `sales\_price` → `sales_price`, `2 \* 3` → `2 * 3`; inside `` `code` `` or a fence the
/// backslash stays, since there it may mean something. `None` when nothing changed.
fn unescape_markdown(s: &str) -> Option<String> {
    if !s.as_bytes().contains(&b'\\') {
        return None;
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut code_run = 0;
    let mut changed = false;
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'`' => {
                let run = count_run(b, i, b.len(), b'`');
                if code_run == 0 {
                    code_run = run;
                } else if run == code_run {
                    code_run = 0;
                }
                i += run;
            }
            b'\\' if code_run == 0 && matches!(b.get(i + 1), Some(b'_' | b'*')) => {
                out.push_str(&s[last..i]);
                last = i + 1;
                changed = true;
                i += 2;
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    out.push_str(&s[last..]);
    changed.then_some(out)
}

#[cfg(test)]
mod tests;
