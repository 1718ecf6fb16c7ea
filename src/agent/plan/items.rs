//! Turning the text of a plan section into a list of steps.

use super::*;

/// Removes a markdown checkbox (`[ ]`, `[x]`) at the start.
pub(super) fn strip_checkbox(s: &str) -> &str {
    let t = s.trim_start();
    for prefix in ["[ ]", "[x]", "[X]", "[]"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return rest.trim_start();
        }
    }
    t
}

/// If the line starts with a list marker (`1.`, `1)`, `Step 1:`, `- `, `* `,
/// `+ `, `•`), returns the text after it.
pub(super) fn list_marker(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('•') {
        return Some(strip_checkbox(rest));
    }
    let b = t.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'-' | b'*' | b'+') && b[1].is_ascii_whitespace() {
        return Some(strip_checkbox(t.get(2..)?));
    }
    if b.len() == 1 && matches!(b[0], b'-' | b'*' | b'+') {
        return Some("");
    }
    let bold = t.starts_with("**");
    let start = if bold { 2 } else { 0 };
    let mut j = start;
    let is_step = b
        .get(j..j + 4)
        .is_some_and(|w| w.eq_ignore_ascii_case(b"step"));
    if is_step {
        j = skip_blank(b, j + 4, b.len(), 4);
    }
    let digits = b
        .get(j..)?
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 || digits > 3 {
        return None;
    }
    j += digits;
    if is_step {
        // "Step 1:", "Step 1.", "Step 1)", "Step 1 -" or just "Step 1".
        let p = skip_blank(b, j, b.len(), 4);
        if matches!(b.get(p), Some(b':') | Some(b'.') | Some(b')') | Some(b'-')) {
            j = p + 1;
        }
    } else if matches!(b.get(j), Some(b'.') | Some(b')')) {
        j += 1;
    } else {
        return None;
    }
    let mut closed = !bold;
    if bold && starts_at(b, j, b.len(), b"**") {
        j += 2;
        closed = true;
    }
    if !(j >= b.len() || b[j].is_ascii_whitespace()) {
        return None;
    }
    let mut rest = t.get(j..)?;
    if !closed {
        let trimmed = rest.trim_end();
        rest = trimmed.strip_suffix("**").unwrap_or(trimmed);
    }
    Some(strip_checkbox(rest))
}

/// Final tidy-up of one plan item.
pub(super) fn clean_item(s: &str) -> String {
    let t = strip_checkbox(s.trim()).trim();
    let inner = t
        .strip_prefix("**")
        .and_then(|rest| rest.strip_suffix("**"))
        .filter(|inner| !inner.contains("**"));
    inner.unwrap_or(t).trim().to_string()
}

pub(super) fn append_to(item: &mut String, text: &str, sep: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !item.is_empty() {
        item.push_str(sep);
    }
    item.push_str(text);
}

/// Turns the text of a plan section into its items.
///
/// Lines starting with `1.`, `1)`, `Step 1:`, `- `, `* ` or `•` begin new
/// items; other lines continue the item before them. Lines indented deeper
/// than the item they follow are sub-steps and are folded into it. When no
/// line has a marker, each non-blank line is one item. Items are trimmed,
/// checkboxes and surrounding bold are removed, empty items are dropped, and
/// at most 20 items are returned.
pub fn plan_items(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let has_marker = lines.iter().any(|l| list_marker(l).is_some());
    let raw: Vec<String> = if !has_marker {
        lines.iter().map(|l| l.trim().to_string()).collect()
    } else {
        let mut items: Vec<String> = Vec::new();
        let mut item_indent = 0usize;
        let mut after_blank = false;
        let mut ended = false;
        for line in &lines {
            let body = line.trim_start();
            if body.trim().is_empty() {
                after_blank = true;
                continue;
            }
            let indent = line.len() - body.len();
            match list_marker(line) {
                Some(rest) => {
                    let nested = !ended && indent > item_indent;
                    match items.last_mut() {
                        Some(last) if nested => append_to(last, rest, "; "),
                        _ => {
                            items.push(rest.trim().to_string());
                            item_indent = indent;
                            ended = false;
                        }
                    }
                }
                None => {
                    if ended {
                        // Prose after the list; ignored.
                    } else if after_blank && indent <= item_indent {
                        ended = true;
                    } else if let Some(last) = items.last_mut() {
                        append_to(last, body, " ");
                    }
                }
            }
            after_blank = false;
        }
        items
    };
    raw.iter()
        .map(|s| clean_item(s))
        .filter(|s| !s.is_empty())
        .take(MAX_PLAN_ITEMS)
        .collect()
}
