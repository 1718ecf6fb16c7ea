//! Cleaning the text of one section: stray closing tags, repeated labels and
//! lines that are only punctuation.

use super::*;

pub(super) fn slice(text: &str, start: usize, end: usize) -> &str {
    text.get(start..end).unwrap_or("")
}

/// Lines that carry nothing at the edges of a section.
pub(super) fn is_junk_line(line: &str) -> bool {
    matches!(
        line.trim(),
        "" | "*/" | "/*" | "---" | "***" | "___" | "**" | "*"
    )
}

/// Removes blank and junk lines (such as a lone `*/`) at both ends.
pub(super) fn strip_junk_lines(mut s: &str) -> &str {
    while !s.is_empty() {
        let (first, rest) = match s.find('\n') {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => (s, ""),
        };
        if !is_junk_line(first) {
            break;
        }
        s = rest;
    }
    while !s.is_empty() {
        let (init, last) = match s.rfind('\n') {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => ("", s),
        };
        if !is_junk_line(last) {
            break;
        }
        s = init;
    }
    s
}

/// If `t` ends with a closing tag `</name>` whose opening `<name` does not
/// appear before it, returns the offset where that closing tag starts.
pub(super) fn unmatched_trailing_close(t: &str) -> Option<usize> {
    if !t.ends_with('>') {
        return None;
    }
    let cut = t.rfind("</")?;
    let name = t.get(cut + 2..t.len() - 1)?.trim();
    if name.is_empty()
        || name.len() > 40
        || !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    {
        return None;
    }
    let before = t.get(..cut)?.to_ascii_lowercase();
    let pattern = format!("<{}", name.to_ascii_lowercase());
    let mut from = 0;
    while let Some(p) = before.get(from..).and_then(|rest| rest.find(&pattern)) {
        let after = from + p + pattern.len();
        match before.as_bytes().get(after) {
            None => return None,
            Some(&c) if c == b'>' || c == b'/' || c.is_ascii_whitespace() => return None,
            _ => {}
        }
        from = after;
    }
    Some(cut)
}

/// If `s` starts with a label naming `section` (like "Final Answer:" inside
/// a FINAL_ANSWER section), returns the text after it.
pub(super) fn strip_leading_label(s: &str, section: Section) -> Option<&str> {
    let b = s.as_bytes();
    let bold = s.starts_with("**");
    let i = if bold { 2 } else { 0 };
    let (found, k) = match_name(b, i, b.len())?;
    if found != section {
        return None;
    }
    let mut j = skip_blank(b, k, b.len(), 4);
    let mut colon = false;
    if byte_at(b, j, b.len()) == Some(b':') {
        colon = true;
        j += 1;
    }
    if bold {
        if !starts_at(b, j, b.len(), b"**") {
            return None;
        }
        j += 2;
        if !colon && byte_at(b, j, b.len()) == Some(b':') {
            colon = true;
            j += 1;
        }
    }
    if !colon {
        return None;
    }
    Some(s.get(j..)?.trim_start())
}

/// Turns the raw text of a section into its cleaned, trimmed content.
pub(super) fn clean_section(raw: &str, section: Section, notes: &mut Vec<String>) -> String {
    let mut s = strip_junk_lines(raw).trim();
    for _ in 0..3 {
        let Some(cut) = unmatched_trailing_close(s) else { break };
        notes.push(format!(
            "a stray closing tag {} at the end of the {} section was removed",
            s.get(cut..).unwrap_or(""),
            section.name()
        ));
        s = strip_junk_lines(s.get(..cut).unwrap_or("")).trim();
    }
    if s.ends_with("*/") && !s.contains("/*") {
        s = strip_junk_lines(s.get(..s.len() - 2).unwrap_or("")).trim();
    }
    if let Some(rest) = strip_leading_label(s, section) {
        notes.push(format!(
            "a repeated {} label at the start of the section was removed",
            section.name()
        ));
        s = rest;
    }
    s.trim().to_string()
}
