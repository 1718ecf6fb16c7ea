//! Tool-name resolution: which known tool a name the model wrote means, if exactly one.
//!
//! In order: the exact name; the name ignoring case; ignoring case, spaces, `_` and `-`;
//! then a *decorated* name, one known tool followed by punctuation (`search(query)`,
//! `list_tables, ''`, `add (adds two numbers)`), whose tail may carry the input. Never by
//! keyword: "wiki" or "search wikipedia" do not resolve to "Wikipedia". A name that is a
//! sentence far from every tool, or that has "Final Answer:" inside, is refused outright.

use serde_json::Value;

use super::json::read_json_text;
use super::labels::contains_final_label;

/// Tool-name resolution used by parse_reply and by the executor:
/// exact match, then case-insensitive, then a UNIQUE match after normalising (lowercase, drop spaces, '_' and '-').
/// Returns Err(candidates) when the normalised match is ambiguous (2+), Ok(None) when nothing matches.
/// Never guesses by keyword: "wiki" or "search wikipedia" must NOT resolve to "Wikipedia".
///
/// `name` is trimmed first. Two tools that differ only in case are reported as
/// ambiguous for a name that matches neither exactly.
pub fn resolve_tool<'a>(name: &str, tools: &[&'a str]) -> Result<Option<&'a str>, Vec<&'a str>> {
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    if let Some(t) = tools.iter().find(|t| **t == name) {
        return Ok(Some(t));
    }
    let hits = unique_matches(tools, |t| same_ignoring_case(t, name));
    if !hits.is_empty() {
        return one_or_ambiguous(hits);
    }
    if normalised(name).next().is_none() {
        return Ok(None);
    }
    let hits = unique_matches(tools, |t| same_normalised(t, name));
    if hits.is_empty() {
        return Ok(None);
    }
    one_or_ambiguous(hits)
}

fn unique_matches<'a>(tools: &[&'a str], pred: impl Fn(&str) -> bool) -> Vec<&'a str> {
    let mut hits: Vec<&'a str> = Vec::new();
    for t in tools {
        // A tool listed twice is still one tool, not an ambiguity.
        if pred(t) && !hits.contains(t) {
            hits.push(t);
        }
    }
    hits
}

fn one_or_ambiguous(hits: Vec<&str>) -> Result<Option<&str>, Vec<&str>> {
    if hits.len() == 1 {
        Ok(Some(hits[0]))
    } else {
        Err(hits)
    }
}

// Names are compared without allocating a lowered copy of every tool name each time; ASCII
// names, nearly all of them, take the byte path.

fn same_ignoring_case(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        a.to_lowercase() == b.to_lowercase()
    }
}

/// The name lowercased, without spaces, `_` and `-`: "Web-Search" and "web search" are
/// both `websearch`.
fn normalised(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().filter(|c| !c.is_whitespace() && *c != '_' && *c != '-').flat_map(char::to_lowercase)
}

fn ascii_key(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'_' && *c != b'-').map(|c| c.to_ascii_lowercase())
}

fn same_normalised(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        ascii_key(a).eq(ascii_key(b))
    } else {
        normalised(a).eq(normalised(b))
    }
}

/// "Final Answer", "final_answer", "FINAL-ANSWER", "FinalAnswer:" ... used as a tool name
/// (also the structured-output step's action for an answer).
pub fn is_final_name(name: &str) -> bool {
    // Compared as it is lowered, so most names stop at their first letter.
    name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).eq("finalanswer".chars())
}

/// Placeholders models write when they mean "no tool this turn".
pub(super) fn is_no_action(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "none" | "n/a" | "na" | "null" | "nothing" | "no action" | "no_action" | "no tool" | "no tool needed"
    )
}

/// Strips the Markdown a model wraps a name in on an MRKL `Action:` line
/// (`**Search**`, `` `Search` ``, `"Search"`, `Search.`) and undoes `\_` escapes.
pub(super) fn clean_tool_name(s: &str) -> String {
    let mut t = s.trim();
    loop {
        let before = t.len();
        for w in ["**", "__", "`", "\"", "'", "*"] {
            if t.len() >= 2 * w.len() && t.starts_with(w) && t.ends_with(w) {
                t = t[w.len()..t.len() - w.len()].trim();
            }
        }
        if let Some(x) = t.strip_suffix('.') {
            t = x.trim_end();
        }
        if t.len() == before {
            break;
        }
    }
    t.replace("\\_", "_")
}

/// MRKL's compact form `Wikipedia[Albert Einstein]`. Only accepted when the
/// brackets close the line and something precedes them, so prose like
/// `[1] Search` or `Search [beta]` followed by an input line is never split.
pub(super) fn bracket_form(name: &str) -> Option<(String, String)> {
    let open = name.find('[')?;
    let inner = name.strip_suffix(']')?.get(open + 1..)?;
    let tool = name[..open].trim();
    if tool.is_empty() {
        return None;
    }
    Some((tool.to_string(), inner.trim().to_string()))
}

/// A known tool followed by decoration: `search(query)`, `list_tables, ''`,
/// `add (adds two numbers)`, `lookup (`. The part before the first `(`, `[`, `{`, `,` or
/// `:` must resolve to exactly one tool. Returns the tool and the input the decoration
/// carries, if any (used only when the reply gave none elsewhere).
pub(super) fn decorated<'a>(name: &str, tools: &[&'a str]) -> Option<(&'a str, Option<Value>)> {
    let cut = name.find(['(', '[', '{', ',', ':'])?;
    let Ok(Some(tool)) = resolve_tool(&name[..cut], tools) else {
        return None;
    };
    Some((tool, decoration_input(name[cut..].trim())))
}

/// What a decoration says as an input: the inside of `(...)` or `[...]`, or what follows
/// `,` or `:`; JSON when it is an object or array, the text without its quotes otherwise.
fn decoration_input(rest: &str) -> Option<Value> {
    let inner = match rest.as_bytes().first()? {
        b'(' => rest[1..].strip_suffix(')').unwrap_or(&rest[1..]),
        b'[' => rest[1..].strip_suffix(']').unwrap_or(&rest[1..]),
        b',' | b':' => &rest[1..],
        _ => rest,
    }
    .trim();
    if inner.starts_with(['{', '[']) {
        return read_json_text(inner).map(|(v, _)| v);
    }
    for q in ['"', '\''] {
        if let Some(s) = inner.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return Some(Value::String(s.to_string()));
        }
    }
    (!inner.is_empty()).then(|| Value::String(inner.to_string()))
}

/// Whether an unknown tool name is refused instead of passed on to the executor: it has
/// "Final Answer:" inside, or it is a sentence (three words or more, or very long) that is
/// not close to any tool name. A short unknown name ("wiki") may be a typo of a tool the
/// person can enable, so it goes on and is answered with the list of tools.
pub(super) fn refused(name: &str, tools: &[&str]) -> bool {
    if contains_final_label(name) {
        return true;
    }
    let sentence = name.split_whitespace().nth(2).is_some() || name.len() > 60;
    sentence && !tools.iter().any(|t| close(name, t))
}

/// Within a few edits of a tool's name, ignoring case, spaces, `_` and `-`
/// ("get the current weather" for `get_current_weather`).
fn close(name: &str, tool: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (normalised(name).collect(), normalised(tool).collect());
    let limit = (b.len() / 4).max(2);
    if a.len().abs_diff(b.len()) > limit {
        return false;
    }
    edit_distance(&a, &b) <= limit
}

/// Levenshtein distance; only called on two short names (their lengths differ by a few).
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests;
