//! Finding section tags in a reply: the ADK, XML-like, Markdown header, bold
//! and label forms, outside code fences.

use super::*;

/// How a tag was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `/*NAME*/`
    Adk,
    /// `/*NAME` at the end of a line, without the closing `*/`.
    AdkUnclosed,
    /// `<NAME>` or `</NAME>`
    Xml,
    /// `## NAME`
    Header,
    /// `**NAME**`
    Bold,
    /// `NAME:`
    Label,
}

/// One tag found in the reply. `start..end` are byte offsets of the text the
/// tag takes up; both always lie on ASCII bytes, so on char boundaries.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tag {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) section: Section,
    pub(super) closing: bool,
    pub(super) form: Form,
}

/// Tag names, longest variants of a family first.
pub(super) const NAMES: &[(&[u8], Section)] = &[
    (b"RE-PLANNING", Section::Replanning),
    (b"RE_PLANNING", Section::Replanning),
    (b"RE PLANNING", Section::Replanning),
    (b"REPLANNING", Section::Replanning),
    (b"REPLAN", Section::Replanning),
    (b"PLANNING", Section::Planning),
    (b"REASONING", Section::Reasoning),
    (b"ACTION", Section::Action),
    (b"FINAL_ANSWER", Section::FinalAnswer),
    (b"FINAL ANSWER", Section::FinalAnswer),
    (b"FINAL-ANSWER", Section::FinalAnswer),
];

/// Bytes that may not follow a tag name (so "ACTIONS" is not "ACTION").
pub(super) fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c >= 0x80
}

pub(super) fn is_blank_byte(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// The byte at `i` if it lies before `limit`.
pub(super) fn byte_at(b: &[u8], i: usize, limit: usize) -> Option<u8> {
    if i < limit {
        b.get(i).copied()
    } else {
        None
    }
}

/// Whether `pat` occurs at `i` and ends no later than `limit`.
pub(super) fn starts_at(b: &[u8], i: usize, limit: usize, pat: &[u8]) -> bool {
    match i.checked_add(pat.len()) {
        Some(end) if end <= limit => b.get(i..end) == Some(pat),
        _ => false,
    }
}

/// Skips at most `max` spaces or tabs from `i`, not going past `limit`.
pub(super) fn skip_blank(b: &[u8], mut i: usize, limit: usize, max: usize) -> usize {
    let mut n = 0;
    while n < max && byte_at(b, i, limit).is_some_and(is_blank_byte) {
        i += 1;
        n += 1;
    }
    i
}

/// Matches a tag name at `i` (case-insensitive); returns the section and
/// the offset just after the name.
pub(super) fn match_name(b: &[u8], i: usize, limit: usize) -> Option<(Section, usize)> {
    for &(name, section) in NAMES {
        let end = match i.checked_add(name.len()) {
            Some(end) if end <= limit => end,
            _ => continue,
        };
        let Some(slice) = b.get(i..end) else { continue };
        if slice.eq_ignore_ascii_case(name) && !b.get(end).is_some_and(|&c| is_word_byte(c)) {
            return Some((section, end));
        }
    }
    None
}

/// After an opening tag, also swallows a colon such as in `/*ACTION*/:`.
pub(super) fn after_colon(b: &[u8], i: usize, limit: usize) -> usize {
    let j = skip_blank(b, i, limit, 4);
    if byte_at(b, j, limit) == Some(b':') {
        j + 1
    } else {
        i
    }
}

/// `/*NAME*/` starting at `start` (which holds "/*").
pub(super) fn adk_tag(b: &[u8], start: usize, limit: usize) -> Option<Tag> {
    let mut j = skip_blank(b, start + 2, limit, 4);
    let (section, k) = match_name(b, j, limit)?;
    j = skip_blank(b, k, limit, 4);
    if byte_at(b, j, limit) == Some(b':') {
        j = skip_blank(b, j + 1, limit, 4);
    }
    if starts_at(b, j, limit, b"*/") {
        Some(Tag {
            start,
            end: after_colon(b, j + 2, limit),
            section,
            closing: false,
            form: Form::Adk,
        })
    } else if skip_blank(b, j, limit, usize::MAX) >= limit {
        Some(Tag {
            start,
            end: limit,
            section,
            closing: false,
            form: Form::AdkUnclosed,
        })
    } else {
        None
    }
}

/// `<NAME>` or `</NAME>` starting at `start` (which holds "<").
pub(super) fn xml_tag(b: &[u8], start: usize, limit: usize) -> Option<Tag> {
    let mut j = start + 1;
    let closing = byte_at(b, j, limit) == Some(b'/');
    if closing {
        j += 1;
    }
    j = skip_blank(b, j, limit, 2);
    let (section, k) = match_name(b, j, limit)?;
    j = skip_blank(b, k, limit, 2);
    if byte_at(b, j, limit) != Some(b'>') {
        return None;
    }
    let end = if closing {
        j + 1
    } else {
        after_colon(b, j + 1, limit)
    };
    Some(Tag {
        start,
        end,
        section,
        closing,
        form: Form::Xml,
    })
}

/// Header, bold and label forms, which only count at the start of a line.
/// `ls..le` is the line without its line break.
pub(super) fn line_tag(b: &[u8], ls: usize, le: usize) -> Option<Tag> {
    let mut i = skip_blank(b, ls, le, usize::MAX);
    let first = byte_at(b, i, le)?;
    let make = |section, end, form| Tag {
        start: ls,
        end,
        section,
        closing: false,
        form,
    };

    if first == b'#' {
        let mut hashes = 0;
        while byte_at(b, i + hashes, le) == Some(b'#') {
            hashes += 1;
        }
        if hashes > 6 {
            return None;
        }
        let mut j = skip_blank(b, i + hashes, le, usize::MAX);
        if starts_at(b, j, le, b"**") {
            j += 2;
        }
        let (section, k) = match_name(b, j, le)?;
        j = skip_blank(b, k, le, usize::MAX);
        if byte_at(b, j, le) == Some(b':') {
            j += 1;
        }
        if starts_at(b, j, le, b"**") {
            j += 2;
        }
        if byte_at(b, j, le) == Some(b':') {
            j += 1;
        }
        j = skip_blank(b, j, le, usize::MAX);
        return if j >= le {
            Some(make(section, le, Form::Header))
        } else {
            None
        };
    }

    // An optional list dash: "- Reasoning: ...".
    if first == b'-' && byte_at(b, i + 1, le).is_some_and(is_blank_byte) {
        i = skip_blank(b, i + 1, le, usize::MAX);
    }

    if starts_at(b, i, le, b"**") {
        let mut j = skip_blank(b, i + 2, le, 2);
        let (section, k) = match_name(b, j, le)?;
        j = skip_blank(b, k, le, 2);
        if byte_at(b, j, le) == Some(b':') {
            j = skip_blank(b, j + 1, le, 2);
        }
        if !starts_at(b, j, le, b"**") {
            return None;
        }
        j += 2;
        let p = skip_blank(b, j, le, 4);
        if byte_at(b, p, le) == Some(b':') {
            j = p + 1;
        }
        return Some(make(section, j, Form::Bold));
    }

    let (section, k) = match_name(b, i, le)?;
    let word = b.get(i..k)?;
    let has_lower = word.iter().any(|c| c.is_ascii_lowercase());
    if section == Section::FinalAnswer && has_lower && word != b"Final Answer" {
        return None;
    }
    let j = skip_blank(b, k, le, usize::MAX);
    if byte_at(b, j, le) == Some(b':') {
        return Some(make(section, j + 1, Form::Label));
    }
    if j >= le && !has_lower {
        // A bare upper-case tag name alone on its line, e.g. "ACTION".
        return Some(make(section, le, Form::Label));
    }
    None
}

/// Scans `from..limit` for ADK and XML tags, and tracks code fences.
pub(super) fn scan_inline(b: &[u8], from: usize, limit: usize, tags: &mut Vec<Tag>, in_fence: &mut bool) {
    let mut i = from;
    while let Some(c) = byte_at(b, i, limit) {
        match c {
            b'`' => {
                let mut run = 0;
                while byte_at(b, i + run, limit) == Some(b'`') {
                    run += 1;
                }
                if run >= 3 {
                    *in_fence = !*in_fence;
                }
                i += run;
                continue;
            }
            b'/' if byte_at(b, i + 1, limit) == Some(b'*') => {
                if let Some(tag) = adk_tag(b, i, limit) {
                    *in_fence = false;
                    tags.push(tag);
                    i = tag.end.max(i + 1);
                    continue;
                }
            }
            b'<' => {
                if let Some(tag) = xml_tag(b, i, limit) {
                    if !tag.closing {
                        *in_fence = false;
                    }
                    tags.push(tag);
                    i = tag.end.max(i + 1);
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// All tags of the reply, in order.
pub(super) fn find_tags(text: &str) -> Vec<Tag> {
    let b = text.as_bytes();
    let mut tags = Vec::new();
    let mut in_fence = false;
    let mut ls = 0;
    loop {
        let newline = b.get(ls..).and_then(|rest| rest.iter().position(|&c| c == b'\n'));
        let full_end = newline.map_or(b.len(), |p| ls + p);
        let mut le = full_end;
        if le > ls && b.get(le - 1) == Some(&b'\r') {
            le -= 1;
        }
        let mut from = ls;
        let line_form = if in_fence { None } else { line_tag(b, ls, le) };
        if let Some(tag) = line_form {
            from = tag.end;
            tags.push(tag);
        }
        let first = skip_blank(b, ls, le, usize::MAX);
        if starts_at(b, first, le, b"~~~") {
            in_fence = !in_fence;
        } else {
            scan_inline(b, from, le, &mut tags, &mut in_fence);
        }
        if newline.is_none() {
            break;
        }
        ls = full_end + 1;
    }
    tags
}

/// Whether the reply has an opening tag in a form only the section format uses: `/*ACTION*/`
/// or `<ACTION>`. Labels such as `Action:` or `## Final Answer` are shared with ReAct, so
/// they do not count. The ReAct parser reads a reply with such tags through
/// [`parse_sections`].
pub fn has_tags(text: &str) -> bool {
    find_tags(text)
        .iter()
        .any(|t| !t.closing && matches!(t.form, Form::Adk | Form::AdkUnclosed | Form::Xml))
}
