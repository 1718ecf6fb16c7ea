//! JSON repair: turns the near-JSON models write into a `serde_json::Value`, noting each
//! repair. Single quotes, trailing or missing commas, comments, Python literals, unquoted
//! keys, raw line breaks and unescaped quotes inside strings, Markdown escapes, a blob
//! escaped as if it were a string, and a value cut off at the end of the reply.
//!
//! Repairs are one linear pass each and at most two passes run, so the cost stays linear.

use serde_json::Value;

use super::scan::{is_ws, line_end, skip_ws, value_end, ValueEnd};

/// Parses a `{...}` span, repairing it if needed. Errors carry a reason worded for the model.
pub(super) fn read_object(span: &str) -> Result<(Value, Vec<String>), String> {
    let strict_err = match serde_json::from_str::<Value>(span) {
        Ok(v) => return Ok((v, Vec::new())),
        Err(e) => e.to_string(),
    };
    // `{\"action\": \"x\"}`: JSON that was escaped as if inside a string.
    if let Some(unescaped) = unescape_blob(span) {
        if let Ok((v, mut notes)) = repair_and_parse(&unescaped) {
            notes.insert(0, "JSON repaired: the blob was backslash-escaped like a string".to_string());
            return Ok((v, notes));
        }
    }
    repair_and_parse(span).map_err(|_| strict_err)
}

/// A JSON value cut off at the end of the reply (`{"q": "x", "source": "rep`): when only
/// its end is missing, the end is added and the value read, with a note saying so. `None`
/// when it does not read even then (a key cut in half, say: more than the end is missing).
pub(super) fn close_cut(span: &str) -> Option<(Value, Vec<String>)> {
    let ValueEnd::Open { closers: Some(closers) } = value_end(span) else {
        return None;
    };
    let mut body = span.trim_end();
    let in_string = closers.starts_with(['"', '\'']);
    if in_string {
        // A lone backslash at the cut would escape the added quote.
        let slashes = body.bytes().rev().take_while(|&c| c == b'\\').count();
        if slashes % 2 == 1 {
            body = &body[..body.len() - 1];
        }
    }
    let (v, mut notes) = read_object(&format!("{body}{closers}")).ok()?;
    notes.push(if !in_string && closers.bytes().all(|c| c == b'}') {
        let n = closers.len();
        format!("JSON repaired: added {n} missing closing brace{}", if n == 1 { "" } else { "s" })
    } else {
        format!("JSON repaired: the reply ended inside the JSON, so it was closed with {closers} (the last value may be cut short)")
    });
    Some((v, notes))
}

fn repair_and_parse(span: &str) -> Result<(Value, Vec<String>), String> {
    let (fixed, notes) = repair(span);
    serde_json::from_str::<Value>(&fixed).map(|v| (v, notes)).map_err(|e| e.to_string())
}

fn unescape_blob(span: &str) -> Option<String> {
    let rest = span.strip_prefix('{')?.trim_start();
    if !rest.starts_with("\\\"") {
        return None;
    }
    serde_json::from_str::<String>(&format!("\"{span}\"")).ok()
}

/// Which repairs a pass applied; each becomes one note.
#[derive(Default)]
struct Fixes {
    single_quotes: bool,
    trailing_comma: bool,
    extra_comma: bool,
    missing_comma: bool,
    comments: bool,
    python: bool,
    unquoted_keys: bool,
    control_chars: bool,
    inner_quotes: bool,
    markdown: bool,
    bad_escape: bool,
}

impl Fixes {
    fn notes(&self) -> Vec<String> {
        let all = [
            (self.single_quotes, "single quotes"),
            (self.trailing_comma, "trailing comma"),
            (self.extra_comma, "extra comma"),
            (self.missing_comma, "missing comma"),
            (self.comments, "comments removed"),
            (self.python, "Python literals True/False/None"),
            (self.unquoted_keys, "unquoted keys"),
            (self.control_chars, "raw line breaks or tabs inside strings"),
            (self.inner_quotes, "unescaped double quotes inside a string"),
            (self.markdown, "Markdown backslash escapes such as \\_"),
            (self.bad_escape, "unknown backslash escapes kept as literal backslashes"),
        ];
        all.iter().filter(|(on, _)| *on).map(|(_, what)| format!("JSON repaired: {what}")).collect()
    }
}

/// Rewrites near-JSON into JSON in one pass. The first pass closes strings
/// only where a closing quote makes structural sense (see [`closes_here`]),
/// which repairs unescaped inner quotes and apostrophes in single-quoted
/// strings. If that leaves a string open, the heuristic was wrong for this
/// text, so one plain pass (first matching quote closes) is run instead.
fn repair(src: &str) -> (String, Vec<String>) {
    let (out, fx) = match repair_pass(src, true) {
        Some(r) => r,
        None => repair_pass(src, false).unwrap_or_default(),
    };
    let s = String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (s, fx.notes())
}

fn repair_pass(src: &str, heuristic: bool) -> Option<(Vec<u8>, Fixes)> {
    let b = src.as_bytes();
    let n = b.len();
    let mut out = Vec::with_capacity(n + 16);
    let mut fx = Fixes::default();
    // True right after a complete value: a following value means a comma is missing.
    let mut after_value = false;
    let mut i = 0;
    while i < n {
        let c = b[i];
        match c {
            b'"' | b'\'' => {
                if after_value {
                    out.push(b',');
                    fx.missing_comma = true;
                }
                let (next, closed) = copy_string(b, i, heuristic, &mut out, &mut fx);
                if !closed && heuristic {
                    return None;
                }
                i = next;
                after_value = true;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                fx.comments = true;
                i = line_end(b, i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                fx.comments = true;
                i = find_comment_end(b, i + 2);
            }
            b',' => {
                let k = skip_ws_comments(b, i + 1);
                if k >= n || b[k] == b'}' || b[k] == b']' {
                    fx.trailing_comma = true;
                } else if !after_value {
                    fx.extra_comma = true;
                } else {
                    out.push(b',');
                    after_value = false;
                }
                i += 1;
            }
            b':' => {
                out.push(c);
                after_value = false;
                i += 1;
            }
            b'{' | b'[' => {
                if after_value {
                    out.push(b',');
                    fx.missing_comma = true;
                }
                out.push(c);
                after_value = false;
                i += 1;
            }
            b'}' | b']' => {
                out.push(c);
                after_value = true;
                i += 1;
            }
            _ if is_ws(c) => {
                out.push(c);
                i += 1;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let (word, next) = read_word(b, i, &mut fx);
                if after_value {
                    out.push(b',');
                    fx.missing_comma = true;
                }
                let k = skip_ws(b, next);
                if k < n && b[k] == b':' {
                    out.push(b'"');
                    out.extend_from_slice(&word);
                    out.push(b'"');
                    fx.unquoted_keys = true;
                } else {
                    let lit: &[u8] = match word.as_slice() {
                        b"True" => b"true",
                        b"False" => b"false",
                        b"None" | b"undefined" => b"null",
                        other => other,
                    };
                    if lit != word.as_slice() {
                        fx.python = true;
                    }
                    out.extend_from_slice(lit);
                }
                after_value = true;
                i = next;
            }
            _ if c.is_ascii_digit() || c == b'-' || c == b'+' || c == b'.' => {
                if after_value {
                    out.push(b',');
                    fx.missing_comma = true;
                }
                let start = i;
                while i < n && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'-' | b'+' | b'.')) {
                    i += 1;
                }
                let num = &b[start..i];
                out.extend_from_slice(num.strip_prefix(b"+").unwrap_or(num));
                after_value = true;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some((out, fx))
}

/// Copies one quoted string starting at `open` as a JSON string. Returns the
/// index after it and whether it was closed.
fn copy_string(b: &[u8], open: usize, heuristic: bool, out: &mut Vec<u8>, fx: &mut Fixes) -> (usize, bool) {
    let n = b.len();
    let q = b[open];
    if q == b'\'' {
        fx.single_quotes = true;
    }
    out.push(b'"');
    let mut j = open + 1;
    while j < n {
        let c = b[j];
        if c == b'\\' {
            let Some(&d) = b.get(j + 1) else {
                out.extend_from_slice(b"\\\\");
                fx.bad_escape = true;
                j += 1;
                continue;
            };
            match d {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                    out.push(b'\\');
                    out.push(d);
                    j += 2;
                }
                b'\'' => {
                    out.push(b'\'');
                    j += 2;
                }
                b'u' if j + 6 <= n && b[j + 2..j + 6].iter().all(u8::is_ascii_hexdigit) => {
                    out.extend_from_slice(&b[j..j + 6]);
                    j += 6;
                }
                // Markdown renderers make models escape these; they are never
                // meant as backslashes.
                b'_' | b'*' => {
                    out.push(d);
                    fx.markdown = true;
                    j += 2;
                }
                _ => {
                    out.extend_from_slice(b"\\\\");
                    fx.bad_escape = true;
                    j += 1;
                }
            }
            continue;
        }
        if c == q {
            if !heuristic || closes_here(b, j + 1) {
                out.push(b'"');
                return (j + 1, true);
            }
            if q == b'"' {
                out.extend_from_slice(b"\\\"");
                fx.inner_quotes = true;
            } else {
                out.push(b'\'');
            }
            j += 1;
            continue;
        }
        if c == b'"' {
            // Only reachable inside a single-quoted string.
            out.extend_from_slice(b"\\\"");
            j += 1;
            continue;
        }
        if c < 0x20 {
            match c {
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            }
            fx.control_chars = true;
            j += 1;
            continue;
        }
        out.push(c);
        j += 1;
    }
    (n, false)
}

/// Whether a quote followed by `b[k..]` can end a string: in JSON a string is
/// always followed by `,` `:` `}` `]` or the end (or, when a comma was
/// forgotten, a new key on the next line). So for valid JSON this never
/// changes anything, and in `"say "hi" now"` the inner quotes stay content.
fn closes_here(b: &[u8], mut k: usize) -> bool {
    let mut newline = false;
    while k < b.len() && is_ws(b[k]) {
        newline |= b[k] == b'\n';
        k += 1;
    }
    match b.get(k) {
        None => true,
        Some(b',' | b':' | b'}' | b']') => true,
        Some(b'/') => matches!(b.get(k + 1), Some(b'/' | b'*')),
        Some(b'"' | b'\'') => newline,
        Some(_) => false,
    }
}

fn find_comment_end(b: &[u8], from: usize) -> usize {
    b[from.min(b.len())..].windows(2).position(|w| w == b"*/").map_or(b.len(), |p| from + p + 2)
}

fn skip_ws_comments(b: &[u8], mut i: usize) -> usize {
    loop {
        i = skip_ws(b, i);
        match (b.get(i), b.get(i + 1)) {
            (Some(b'/'), Some(b'/')) => i = line_end(b, i),
            (Some(b'/'), Some(b'*')) => i = find_comment_end(b, i + 2),
            _ => return i,
        }
    }
}

/// A bare identifier (unquoted key or literal); `\_` inside it is a Markdown escape.
fn read_word(b: &[u8], mut i: usize, fx: &mut Fixes) -> (Vec<u8>, usize) {
    let mut w = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            w.push(c);
            i += 1;
        } else if c == b'\\' && b.get(i + 1) == Some(&b'_') {
            w.push(b'_');
            fx.markdown = true;
            i += 2;
        } else {
            break;
        }
    }
    (w, i)
}

/// Text that should be one JSON object or array (an `Action Input:` line, a string inside
/// a call): read it with repairs, closing it when only its end is missing. `None` when it
/// does not read.
pub(super) fn read_json_text(s: &str) -> Option<(Value, Vec<String>)> {
    if let Ok(r) = read_object(s) {
        return Some(r);
    }
    match value_end(s) {
        ValueEnd::Open { .. } => close_cut(s),
        ValueEnd::Closed(_) => None,
    }
}

#[cfg(test)]
mod tests;
