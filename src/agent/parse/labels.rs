//! Pass 3: the ReAct line labels (`Thought:`, `Action:`, `Action Input:`, `Observation:`,
//! `Final Answer:`), written with or without Markdown around them, and the cut at an
//! `Observation:` the model invented.

use super::scan::{eq_ci, is_ws, line_end};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LabelKind {
    Thought,
    Action,
    ActionInput,
    Observation,
    Final,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Label {
    pub kind: LabelKind,
    /// Where the label starts, including Markdown around it (`**Action:**`).
    pub start: usize,
    /// Just after the colon and any closing Markdown.
    pub end: usize,
    pub line_start: bool,
}

fn is_markup(c: u8) -> bool {
    matches!(c, b'*' | b'#' | b'>' | b'-' | b'_')
}

/// Spaces separating the words of a label: "Final Answer", "Final_Answer", "Action\_Input".
fn skip_word_sep(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'_' | b'-' | b'\\') {
        i += 1;
    }
    i
}

fn skip_markup_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'*' | b'_') {
        i += 1;
    }
    i
}

fn skip_closing_markup(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b'*' | b'_') {
        i += 1;
    }
    i
}

/// Finds labels. All kinds count at the start of a line (after spaces and
/// Markdown such as `**`, `#`, `>`, `-`). "Final Answer:" also counts mid-line
/// ("Thought: done. Final Answer: 42") but only capitalised, so a thought like
/// "to find the final answer: search first" is not mistaken for one.
pub(super) fn find_labels(b: &[u8]) -> Vec<Label> {
    let n = b.len();
    let mut out = Vec::new();
    let mut i = 0;
    let mut at_line_start = true;
    let mut markup_from: Option<usize> = None;
    while i < n {
        let c = b[i];
        if c == b'\n' {
            at_line_start = true;
            markup_from = None;
            i += 1;
            continue;
        }
        if at_line_start {
            if c == b' ' || c == b'\t' || c == b'\r' {
                i += 1;
                continue;
            }
            if is_markup(c) {
                markup_from.get_or_insert(i);
                i += 1;
                continue;
            }
            at_line_start = false;
            if let Some((kind, end)) = match_label(b, i, true) {
                out.push(Label { kind, start: markup_from.unwrap_or(i), end, line_start: true });
                i = end.max(i + 1);
                continue;
            }
        }
        if c == b'F' && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            if let Some((LabelKind::Final, end)) = match_label(b, i, false) {
                let mut s = i;
                while s > 0 && matches!(b[s - 1], b'*' | b'_') {
                    s -= 1;
                }
                out.push(Label { kind: LabelKind::Final, start: s, end, line_start: false });
                i = end.max(i + 1);
                continue;
            }
        }
        i += 1;
    }
    out
}

fn match_label(b: &[u8], i: usize, line_start: bool) -> Option<(LabelKind, usize)> {
    if eq_ci(b, i, "final") {
        let j = skip_word_sep(b, i + 5);
        if !eq_ci(b, j, "answer") || (!line_start && b[j] != b'A') {
            return None;
        }
        let k = skip_markup_ws(b, j + 6);
        if k < b.len() && b[k] == b':' {
            return Some((LabelKind::Final, skip_closing_markup(b, k + 1)));
        }
        // A heading such as "**Final Answer**" alone on its line.
        let e = line_end(b, k);
        if line_start && b[k..e].iter().all(|&c| is_ws(c) || is_markup(c)) {
            return Some((LabelKind::Final, e));
        }
        return None;
    }
    if !line_start {
        return None;
    }
    let (kind, after) = if eq_ci(b, i, "thought") {
        (LabelKind::Thought, i + 7)
    } else if eq_ci(b, i, "observation") {
        (LabelKind::Observation, i + 11)
    } else if eq_ci(b, i, "action") {
        let j = skip_word_sep(b, i + 6);
        if eq_ci(b, j, "input") {
            (LabelKind::ActionInput, j + 5)
        } else {
            (LabelKind::Action, i + 6)
        }
    } else {
        return None;
    };
    let k = skip_markup_ws(b, after);
    if k < b.len() && b[k] == b':' {
        Some((kind, skip_closing_markup(b, k + 1)))
    } else {
        None
    }
}

/// The text before the chosen reading, without a leading "Thought:" label, trimmed.
pub(super) fn strip_thought(s: &str) -> &str {
    let t = s.trim();
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() && is_markup(b[i]) {
        i += 1;
    }
    if eq_ci(b, i, "thought") {
        let k = skip_markup_ws(b, i + 7);
        if k < b.len() && b[k] == b':' {
            return t[skip_closing_markup(b, k + 1)..].trim();
        }
    }
    t
}

/// Whether `s` holds a "Final Answer:" label anywhere (any case, `_` or spaces between the
/// words): a tool name with one inside is the model mixing up answer and action.
pub fn contains_final_label(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).any(|i| {
        (i == 0 || !b[i - 1].is_ascii_alphanumeric()) && eq_ci(b, i, "final") && {
            let j = skip_word_sep(b, i + 5);
            eq_ci(b, j, "answer") && b.get(skip_markup_ws(b, j + 6)) == Some(&b':')
        }
    })
}

/// Whether the text uses any word of the ReAct format, anywhere: `Thought:`, `Action:`,
/// `Action Input`, `Observation:` or `Final Answer`. A reply without any of them (and
/// without JSON) is plain prose, read as a direct answer; one with them is an attempt at
/// the format, and a failed attempt is sent back. Linear: each position is compared
/// against a few short words.
pub(super) fn has_format_words(b: &[u8]) -> bool {
    (0..b.len()).any(|i| {
        let c = b[i] | 0x20;
        if !matches!(c, b't' | b'a' | b'o' | b'f') || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            return false;
        }
        let colon_after = |len: usize| b.get(skip_markup_ws(b, i + len)) == Some(&b':');
        match c {
            b't' => eq_ci(b, i, "thought") && colon_after(7),
            b'o' => eq_ci(b, i, "observation") && colon_after(11),
            b'a' => eq_ci(b, i, "action") && (colon_after(6) || eq_ci(b, skip_word_sep(b, i + 6), "input")),
            _ => {
                // "the final answer is 42" is prose; "Final Answer" or "final_answer:" is the format.
                let j = skip_word_sep(b, i + 5);
                eq_ci(b, i, "final")
                    && eq_ci(b, j, "answer")
                    && ((b[i] == b'F' && b[j] == b'A') || b[i + 5] != b' ' || colon_after(j + 6 - i))
            }
        }
    })
}

/// Cuts a reply at the first line-start "Observation:" the model invented (some providers ignore stop sequences).
/// Returns (kept, discarded) where discarded is Some(text from "Observation:" on) when something was cut.
///
/// The label is case-sensitive and may only be preceded on its line by spaces
/// or tabs. The split is lossless: `kept` keeps any trailing newline and the
/// indentation of the cut line, so `kept + discarded == text`.
pub fn cut_at_observation(text: &str) -> (&str, Option<&str>) {
    let b = text.as_bytes();
    let mut line = 0;
    loop {
        let mut i = line;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        if b[i..].starts_with(b"Observation:") {
            return (&text[..i], Some(&text[i..]));
        }
        match b[i..].iter().position(|&c| c == b'\n') {
            Some(p) => line = i + p + 1,
            None => return (text, None),
        }
    }
}

#[cfg(test)]
mod tests;
