//! Parser for one reply of a model that follows the "Plan-ReAct" format
//! (in the style of Google ADK's `PlanReActPlanner`).
//!
//! A reply is divided into tagged sections: PLANNING, REPLANNING, REASONING,
//! ACTION and FINAL_ANSWER. Models write the tags in many ways, so several
//! forms are recognised (all case-insensitive unless noted):
//!
//! * ADK form, anywhere in a line: `/*PLANNING*/` or `/* PLANNING */`.
//! * XML-like form, anywhere in a line: `<PLANNING>` with an optional
//!   closing `</PLANNING>`.
//! * Markdown header, the whole line: `## PLANNING` or `### Final Answer:`.
//! * Bold, at the start of a line: `**PLANNING**` or `**Planning:**`, and the
//!   section's text may go on after it on the same line.
//! * Label, at the start of a line: `PLANNING:` or `Reasoning:`; the text may
//!   go on after it on the same line. The two-word final answer label must be
//!   upper case or exactly `Final Answer:`.
//!
//! A section ends where the next opening tag starts, at a closing tag, or at
//! the end of the reply. The parser never panics, never recurses, and runs in
//! time roughly linear in the length of the reply.

use std::fmt;

/// Most plan items kept by [`plan_items`].
const MAX_PLAN_ITEMS: usize = 20;

/// One kind of tagged section in a Plan-ReAct reply.
#[derive(Debug, Clone, PartialEq, Eq, Copy)]
pub enum Section {
    /// `/*PLANNING*/`: the numbered plan written at the start of a task.
    Planning,
    /// `/*REPLANNING*/`: a revised plan written when the first one failed.
    Replanning,
    /// `/*REASONING*/`: the model's thinking for the current step.
    Reasoning,
    /// `/*ACTION*/`: one tool call, written as JSON.
    Action,
    /// `/*FINAL_ANSWER*/`: the answer for the user; it ends the task.
    FinalAnswer,
}

impl Section {
    /// The canonical tag name, as written in the ADK form.
    fn name(self) -> &'static str {
        match self {
            Section::Planning => "PLANNING",
            Section::Replanning => "REPLANNING",
            Section::Reasoning => "REASONING",
            Section::Action => "ACTION",
            Section::FinalAnswer => "FINAL_ANSWER",
        }
    }
}

/// The sections found in one reply, after cleaning and repairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sections {
    /// Items of the numbered plan under PLANNING (empty when absent).
    pub plan: Vec<String>,
    /// Items of the revised plan under REPLANNING (empty when absent).
    pub replan: Vec<String>,
    /// Text of the REASONING section(s), joined with "\n" when several; None when absent.
    pub reasoning: Option<String>,
    /// Raw text of the first ACTION section (trimmed), to be read by the project's JSON action parser; None when absent.
    pub action: Option<String>,
    /// Text of the FINAL_ANSWER section (trimmed); None when absent.
    pub final_answer: Option<String>,
    /// Which of action / final_answer came first when both are present (the caller uses the first one).
    /// When only one of them is present it names that one; None when neither is present.
    pub first: Option<Section>,
    /// Plain-English notes about every repair/guess made (e.g. "the PLANNING section had no closing tag"), for the trace.
    pub notes: Vec<String>,
}

/// A reply that could not be used. The message is written to the model,
/// because it is fed back as the next observation: it says what to write instead.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanParseError {
    /// What went wrong and what the model should write instead.
    pub message: String,
}

impl fmt::Display for PlanParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PlanParseError {}

fn error(message: &str) -> PlanParseError {
    PlanParseError {
        message: message.to_string(),
    }
}

const MSG_EMPTY: &str = "Your reply was empty. Write /*REASONING*/ with your thinking, then either \
/*ACTION*/ with one JSON tool call or /*FINAL_ANSWER*/ with the answer.";

const MSG_NO_TAGS: &str = "Your reply had none of the section tags. Start with /*PLANNING*/ and a \
numbered plan (first reply) or /*REASONING*/, then either /*ACTION*/ with one JSON tool call or \
/*FINAL_ANSWER*/ with the answer.";

const MSG_NO_ACTION: &str = "Your reply had no /*ACTION*/ or /*FINAL_ANSWER*/ section. It must end \
with /*ACTION*/ followed by one JSON tool call, or with /*FINAL_ANSWER*/ followed by the answer.";

const MSG_EMPTY_ACTION: &str = "Your /*ACTION*/ section was empty. Write exactly one JSON tool call \
right after /*ACTION*/, or write /*FINAL_ANSWER*/ followed by the answer if you are done.";

const MSG_EMPTY_FINAL: &str = "Your /*FINAL_ANSWER*/ section was empty. Write the answer itself right \
after /*FINAL_ANSWER*/, or write /*ACTION*/ with one JSON tool call if you are not done yet.";

const MSG_EMPTY_PLAN: &str = "Your plan section had no steps. Write /*PLANNING*/ followed by a \
numbered plan, one step per line (like \"1. Open the search page\"), then /*REASONING*/ and \
/*ACTION*/ with one JSON tool call.";

// ---------------------------------------------------------------------------
// Finding tags
// ---------------------------------------------------------------------------

/// How a tag was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
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
struct Tag {
    start: usize,
    end: usize,
    section: Section,
    closing: bool,
    form: Form,
}

/// Tag names, longest variants of a family first.
const NAMES: &[(&[u8], Section)] = &[
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
fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c >= 0x80
}

fn is_blank_byte(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// The byte at `i` if it lies before `limit`.
fn byte_at(b: &[u8], i: usize, limit: usize) -> Option<u8> {
    if i < limit {
        b.get(i).copied()
    } else {
        None
    }
}

/// Whether `pat` occurs at `i` and ends no later than `limit`.
fn starts_at(b: &[u8], i: usize, limit: usize, pat: &[u8]) -> bool {
    match i.checked_add(pat.len()) {
        Some(end) if end <= limit => b.get(i..end) == Some(pat),
        _ => false,
    }
}

/// Skips at most `max` spaces or tabs from `i`, not going past `limit`.
fn skip_blank(b: &[u8], mut i: usize, limit: usize, max: usize) -> usize {
    let mut n = 0;
    while n < max && byte_at(b, i, limit).is_some_and(is_blank_byte) {
        i += 1;
        n += 1;
    }
    i
}

/// Matches a tag name at `i` (case-insensitive); returns the section and
/// the offset just after the name.
fn match_name(b: &[u8], i: usize, limit: usize) -> Option<(Section, usize)> {
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
fn after_colon(b: &[u8], i: usize, limit: usize) -> usize {
    let j = skip_blank(b, i, limit, 4);
    if byte_at(b, j, limit) == Some(b':') {
        j + 1
    } else {
        i
    }
}

/// `/*NAME*/` starting at `start` (which holds "/*").
fn adk_tag(b: &[u8], start: usize, limit: usize) -> Option<Tag> {
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
fn xml_tag(b: &[u8], start: usize, limit: usize) -> Option<Tag> {
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
fn line_tag(b: &[u8], ls: usize, le: usize) -> Option<Tag> {
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
fn scan_inline(b: &[u8], from: usize, limit: usize, tags: &mut Vec<Tag>, in_fence: &mut bool) {
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
fn find_tags(text: &str) -> Vec<Tag> {
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

// ---------------------------------------------------------------------------
// Cleaning section text
// ---------------------------------------------------------------------------

fn slice(text: &str, start: usize, end: usize) -> &str {
    text.get(start..end).unwrap_or("")
}

/// Lines that carry nothing at the edges of a section.
fn is_junk_line(line: &str) -> bool {
    matches!(
        line.trim(),
        "" | "*/" | "/*" | "---" | "***" | "___" | "**" | "*"
    )
}

/// Removes blank and junk lines (such as a lone `*/`) at both ends.
fn strip_junk_lines(mut s: &str) -> &str {
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
fn unmatched_trailing_close(t: &str) -> Option<usize> {
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
fn strip_leading_label(s: &str, section: Section) -> Option<&str> {
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
fn clean_section(raw: &str, section: Section, notes: &mut Vec<String>) -> String {
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

// ---------------------------------------------------------------------------
// Splitting the reply into sections
// ---------------------------------------------------------------------------

/// A stretch of the reply that belongs to one section.
struct Piece<'a> {
    section: Section,
    /// Where the piece starts in the reply, for ordering.
    pos: usize,
    raw: &'a str,
    /// True for untagged text read as reasoning.
    free: bool,
}

enum State {
    /// Outside any section: before the first tag or after a closing tag.
    Free { start: usize, after: Option<Section> },
    /// Inside a section opened by a tag at `pos`, whose content starts at `content`.
    Open {
        section: Section,
        form: Form,
        pos: usize,
        content: usize,
    },
}

fn push_free<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    after: Option<Section>,
    pieces: &mut Vec<Piece<'a>>,
    notes: &mut Vec<String>,
) {
    let raw = slice(text, start, end);
    if strip_junk_lines(raw).trim().is_empty() {
        return;
    }
    notes.push(match after {
        None => "text before the first tag was read as reasoning".to_string(),
        Some(s) => format!(
            "text after the closing tag </{}> was read as reasoning",
            s.name()
        ),
    });
    pieces.push(Piece {
        section: Section::Reasoning,
        pos: start,
        raw,
        free: true,
    });
}

fn note_opening(tag: &Tag, notes: &mut Vec<String>) {
    if tag.form == Form::AdkUnclosed {
        notes.push(format!(
            "the /*{} tag had no closing */",
            tag.section.name()
        ));
    }
}

fn note_unclosed(section: Section, form: Form, at_end: bool, notes: &mut Vec<String>) {
    if form == Form::Xml {
        let place = if at_end {
            "at the end of the reply"
        } else {
            "at the next tag"
        };
        notes.push(format!(
            "the {0} section had no closing tag </{0}>; it was ended {1}",
            section.name(),
            place
        ));
    }
}

/// Chooses the first non-empty plan among several plan sections.
fn pick_plan(lists: Vec<Vec<String>>, section: Section, notes: &mut Vec<String>) -> Vec<String> {
    let count = lists.len();
    let mut non_empty = lists.into_iter().filter(|l| !l.is_empty());
    let first = non_empty.next().unwrap_or_default();
    let extra = non_empty.count();
    if extra > 0 {
        notes.push(format!(
            "{} extra {} section(s) were ignored; only the first plan was kept",
            extra,
            section.name()
        ));
    }
    if count > 0 && first.is_empty() {
        notes.push(format!("the {} section had no steps", section.name()));
    }
    first
}

/// Splits one model reply into its Plan-ReAct sections.
///
/// Returns an error, addressed to the model, when the reply cannot be used:
/// it is empty, has no section tags at all, has neither an ACTION nor a
/// FINAL_ANSWER (nor a plan), or its ACTION / FINAL_ANSWER section is empty.
/// A reply with only a PLANNING or REPLANNING section is accepted; the
/// caller decides what to do with it.
pub fn parse_sections(text: &str) -> Result<Sections, PlanParseError> {
    if text.trim().is_empty() {
        return Err(error(MSG_EMPTY));
    }
    let tags = find_tags(text);
    if !tags.iter().any(|t| !t.closing) {
        return Err(error(MSG_NO_TAGS));
    }

    let mut notes: Vec<String> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut state = State::Free {
        start: 0,
        after: None,
    };

    for tag in &tags {
        state = match state {
            State::Free { start, after } => {
                push_free(text, start, tag.start, after, &mut pieces, &mut notes);
                if tag.closing {
                    notes.push(format!(
                        "the closing tag </{}> had no matching opening tag",
                        tag.section.name()
                    ));
                    State::Free {
                        start: tag.end,
                        after: Some(tag.section),
                    }
                } else {
                    note_opening(tag, &mut notes);
                    State::Open {
                        section: tag.section,
                        form: tag.form,
                        pos: tag.start,
                        content: tag.end,
                    }
                }
            }
            State::Open {
                section,
                form,
                pos,
                content,
            } => {
                let raw = slice(text, content, tag.start);
                if tag.closing {
                    if tag.section != section {
                        notes.push(format!(
                            "the {} section was closed with </{}>",
                            section.name(),
                            tag.section.name()
                        ));
                    }
                    pieces.push(Piece {
                        section,
                        pos,
                        raw,
                        free: false,
                    });
                    State::Free {
                        start: tag.end,
                        after: Some(tag.section),
                    }
                } else if tag.section == section && strip_junk_lines(raw).trim().is_empty() {
                    notes.push(format!(
                        "the {} tag was written twice in a row; read as one section",
                        section.name()
                    ));
                    note_opening(tag, &mut notes);
                    State::Open {
                        section,
                        form,
                        pos,
                        content: tag.end,
                    }
                } else {
                    note_unclosed(section, form, false, &mut notes);
                    pieces.push(Piece {
                        section,
                        pos,
                        raw,
                        free: false,
                    });
                    note_opening(tag, &mut notes);
                    State::Open {
                        section: tag.section,
                        form: tag.form,
                        pos: tag.start,
                        content: tag.end,
                    }
                }
            }
        };
    }
    match state {
        State::Free { start, after } => {
            push_free(text, start, text.len(), after, &mut pieces, &mut notes);
        }
        State::Open {
            section,
            form,
            pos,
            content,
        } => {
            note_unclosed(section, form, true, &mut notes);
            pieces.push(Piece {
                section,
                pos,
                raw: slice(text, content, text.len()),
                free: false,
            });
        }
    }

    let mut reasoning_parts: Vec<String> = Vec::new();
    let mut tagged_reasoning = 0usize;
    let mut plans: Vec<Vec<String>> = Vec::new();
    let mut replans: Vec<Vec<String>> = Vec::new();
    let mut actions: Vec<(usize, String)> = Vec::new();
    let mut finals: Vec<(usize, String)> = Vec::new();
    for piece in &pieces {
        let body = clean_section(piece.raw, piece.section, &mut notes);
        match piece.section {
            Section::Reasoning => {
                if !body.is_empty() {
                    if !piece.free {
                        tagged_reasoning += 1;
                    }
                    reasoning_parts.push(body);
                }
            }
            Section::Planning => plans.push(plan_items(&body)),
            Section::Replanning => replans.push(plan_items(&body)),
            Section::Action => actions.push((piece.pos, body)),
            Section::FinalAnswer => finals.push((piece.pos, body)),
        }
    }
    if tagged_reasoning > 1 {
        notes.push(format!(
            "{} REASONING sections were joined into one",
            tagged_reasoning
        ));
    }
    let had_plan_section = !plans.is_empty() || !replans.is_empty();
    let plan = pick_plan(plans, Section::Planning, &mut notes);
    let replan = pick_plan(replans, Section::Replanning, &mut notes);

    if actions.len() > 1 {
        notes.push(format!(
            "only one action per reply is run: {} extra ACTION section(s) were ignored",
            actions.len() - 1
        ));
    }
    if finals.len() > 1 {
        notes.push(format!(
            "{} extra FINAL_ANSWER section(s) were ignored; the first one was kept",
            finals.len() - 1
        ));
    }
    let mut action = actions.into_iter().next();
    let mut final_answer = finals.into_iter().next();

    let action_empty = action.as_ref().is_some_and(|a| a.1.is_empty());
    let final_empty = final_answer.as_ref().is_some_and(|f| f.1.is_empty());
    if action_empty {
        if final_answer.is_some() && !final_empty {
            notes.push(
                "the ACTION section was empty and was ignored because a FINAL_ANSWER was given"
                    .to_string(),
            );
            action = None;
        } else {
            return Err(error(MSG_EMPTY_ACTION));
        }
    }
    if final_empty {
        if action.is_some() {
            notes.push(
                "the FINAL_ANSWER section was empty and was ignored because an ACTION was given"
                    .to_string(),
            );
            final_answer = None;
        } else {
            return Err(error(MSG_EMPTY_FINAL));
        }
    }

    let first = match (&action, &final_answer) {
        (Some(a), Some(f)) => {
            let s = if a.0 <= f.0 {
                Section::Action
            } else {
                Section::FinalAnswer
            };
            notes.push(format!(
                "the reply had both an ACTION and a FINAL_ANSWER; the {} came first",
                s.name()
            ));
            Some(s)
        }
        (Some(_), None) => Some(Section::Action),
        (None, Some(_)) => Some(Section::FinalAnswer),
        (None, None) => None,
    };

    if first.is_none() && plan.is_empty() && replan.is_empty() {
        return Err(error(if had_plan_section {
            MSG_EMPTY_PLAN
        } else {
            MSG_NO_ACTION
        }));
    }

    Ok(Sections {
        plan,
        replan,
        reasoning: if reasoning_parts.is_empty() {
            None
        } else {
            Some(reasoning_parts.join("\n"))
        },
        action: action.map(|a| a.1),
        final_answer: final_answer.map(|f| f.1),
        first,
        notes,
    })
}

// ---------------------------------------------------------------------------
// Plan items
// ---------------------------------------------------------------------------

/// Removes a markdown checkbox (`[ ]`, `[x]`) at the start.
fn strip_checkbox(s: &str) -> &str {
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
fn list_marker(line: &str) -> Option<&str> {
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
fn clean_item(s: &str) -> String {
    let t = strip_checkbox(s.trim()).trim();
    let inner = t
        .strip_prefix("**")
        .and_then(|rest| rest.strip_suffix("**"))
        .filter(|inner| !inner.contains("**"));
    inner.unwrap_or(t).trim().to_string()
}

fn append_to(item: &mut String, text: &str, sep: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Sections {
        match parse_sections(text) {
            Ok(s) => s,
            Err(e) => panic!("expected Ok for {text:?}, got Err({})", e.message),
        }
    }

    fn err(text: &str) -> String {
        match parse_sections(text) {
            Ok(s) => panic!("expected Err for {text:?}, got {s:?}"),
            Err(e) => e.message,
        }
    }

    fn has_note(s: &Sections, part: &str) -> bool {
        s.notes.iter().any(|n| n.contains(part))
    }

    // ---- ADK form ----

    #[test]
    fn adk_basic_sections() {
        let s = ok("/*PLANNING*/\n1. Open the site\n2. Search\n/*REASONING*/\nStart with step 1.\n/*ACTION*/\n{\"action\": \"open\"}\n");
        assert_eq!(s.plan, vec!["Open the site", "Search"]);
        assert_eq!(s.reasoning.as_deref(), Some("Start with step 1."));
        assert_eq!(s.action.as_deref(), Some("{\"action\": \"open\"}"));
        assert_eq!(s.final_answer, None);
        assert_eq!(s.first, Some(Section::Action));
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn adk_spaces_and_lower_case() {
        let s = ok("/* planning */\n1. a\n/*  Reasoning */ think\n/* action */ {\"x\":1}");
        assert_eq!(s.plan, vec!["a"]);
        assert_eq!(s.reasoning.as_deref(), Some("think"));
        assert_eq!(s.action.as_deref(), Some("{\"x\":1}"));
    }

    #[test]
    fn adk_all_on_one_line() {
        let s = ok("/*REASONING*/ I need x /*ACTION*/ {\"action\": \"click\", \"id\": 3}");
        assert_eq!(s.reasoning.as_deref(), Some("I need x"));
        assert_eq!(s.action.as_deref(), Some("{\"action\": \"click\", \"id\": 3}"));
        assert_eq!(s.first, Some(Section::Action));
    }

    #[test]
    fn adk_realistic_reply_keeps_json_fence() {
        let text = "/*PLANNING*/\n\
1. Open the weather site.\n\
2. Search for Paris.\n\
3. Read today's temperature.\n\
\n\
/*REASONING*/\n\
The page is blank, so step 1 comes first.\n\
\n\
/*ACTION*/\n\
```json\n\
{\"action\": \"navigate\", \"url\": \"https://example.com/a/*b\"}\n\
```\n";
        let s = ok(text);
        assert_eq!(s.plan.len(), 3);
        assert_eq!(s.plan[2], "Read today's temperature.");
        assert_eq!(
            s.action.as_deref(),
            Some("```json\n{\"action\": \"navigate\", \"url\": \"https://example.com/a/*b\"}\n```")
        );
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn adk_final_answer_variants() {
        for tag in ["/*FINAL_ANSWER*/", "/*FINAL ANSWER*/", "/*final-answer*/", "/* Final_Answer */"] {
            let s = ok(&format!("/*REASONING*/ done\n{tag}\nParis"));
            assert_eq!(s.final_answer.as_deref(), Some("Paris"), "{tag}");
            assert_eq!(s.first, Some(Section::FinalAnswer));
        }
    }

    #[test]
    fn adk_unclosed_tag_is_repaired() {
        let s = ok("/*REASONING\nthinking\n/*ACTION\n{\"a\":1}\n*/");
        assert_eq!(s.reasoning.as_deref(), Some("thinking"));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        assert!(has_note(&s, "had no closing */"));
    }

    #[test]
    fn adk_tag_needs_real_name() {
        // "/* REASONING about x */" is a comment, not a tag; no tags at all.
        let e = err("/* REASONING about x */ hello");
        assert!(e.contains("none of the section tags"));
    }

    // ---- XML form ----

    #[test]
    fn xml_tags_with_closing() {
        let s = ok("<PLANNING>\n1. a\n2. b\n</PLANNING>\n<REASONING>why</REASONING>\n<ACTION>{\"a\":1}</ACTION>");
        assert_eq!(s.plan, vec!["a", "b"]);
        assert_eq!(s.reasoning.as_deref(), Some("why"));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn xml_missing_closing_tags() {
        let s = ok("<planning>\n1. a\n<reasoning>\nwhy\n<final_answer>\n42");
        assert_eq!(s.plan, vec!["a"]);
        assert_eq!(s.reasoning.as_deref(), Some("why"));
        assert_eq!(s.final_answer.as_deref(), Some("42"));
        assert!(has_note(&s, "the PLANNING section had no closing tag"));
        assert!(has_note(&s, "the FINAL_ANSWER section had no closing tag"));
    }

    #[test]
    fn xml_stray_text_after_closing_tag() {
        let s = ok("<ACTION>{\"a\":1}</ACTION>\nI will wait for the result.");
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        assert_eq!(s.reasoning.as_deref(), Some("I will wait for the result."));
        assert!(has_note(&s, "after the closing tag </ACTION>"));
        // Blank stray text is ignored silently.
        let s = ok("<ACTION>{\"a\":1}</ACTION>\n\n   \n");
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        assert_eq!(s.reasoning, None);
    }

    #[test]
    fn xml_mismatched_and_orphan_closing_tags() {
        let s = ok("<REASONING>why</ACTION>\n/*ACTION*/ {\"a\":1}");
        assert_eq!(s.reasoning.as_deref(), Some("why"));
        assert!(has_note(&s, "was closed with </ACTION>"));
        let s = ok("</REASONING>\n/*FINAL_ANSWER*/ yes");
        assert!(has_note(&s, "had no matching opening tag"));
        assert_eq!(s.final_answer.as_deref(), Some("yes"));
    }

    #[test]
    fn only_closing_tags_count_as_no_tags() {
        let e = err("some text </ACTION>");
        assert!(e.contains("none of the section tags"));
    }

    // ---- Markdown headers ----

    #[test]
    fn markdown_headers() {
        let s = ok("## Planning\n1. a\n2. b\n\n## Reasoning\nwhy\n\n### Final Answer\nThe answer is 4.\n");
        assert_eq!(s.plan, vec!["a", "b"]);
        assert_eq!(s.reasoning.as_deref(), Some("why"));
        assert_eq!(s.final_answer.as_deref(), Some("The answer is 4."));
    }

    #[test]
    fn markdown_header_with_colon_and_bold() {
        let s = ok("# REASONING:\nx\n###### **Action:**\n{\"a\":1}\n---\n");
        assert_eq!(s.reasoning.as_deref(), Some("x"));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    }

    #[test]
    fn markdown_header_with_more_words_is_not_a_tag() {
        let s = ok("## Planning the trip\nsome text\n/*FINAL_ANSWER*/ done");
        assert_eq!(s.reasoning.as_deref(), Some("## Planning the trip\nsome text"));
        assert!(has_note(&s, "text before the first tag"));
        // Seven hashes is not a header.
        let e = err("####### ACTION\n{}");
        assert!(e.contains("none of the section tags"));
    }

    // ---- Bold and label forms ----

    #[test]
    fn bold_form_with_content_on_same_line() {
        let s = ok("**Reasoning:** the button is visible\n**Action**: {\"action\": \"click\"}");
        assert_eq!(s.reasoning.as_deref(), Some("the button is visible"));
        assert_eq!(s.action.as_deref(), Some("{\"action\": \"click\"}"));
    }

    #[test]
    fn bold_final_answer() {
        let s = ok("**REASONING**\nok\n**Final Answer:** Paris is the capital.");
        assert_eq!(s.final_answer.as_deref(), Some("Paris is the capital."));
    }

    #[test]
    fn label_form_upper_case() {
        let s = ok("PLANNING: 1. a\n2. b\nREASONING: why\nACTION: {\"a\":1}");
        assert_eq!(s.plan, vec!["a", "b"]);
        assert_eq!(s.reasoning.as_deref(), Some("why"));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    }

    #[test]
    fn label_form_mixed_case_single_words() {
        let s = ok("Reasoning: look first\n  Action: {\"a\": 2}");
        assert_eq!(s.reasoning.as_deref(), Some("look first"));
        assert_eq!(s.action.as_deref(), Some("{\"a\": 2}"));
    }

    #[test]
    fn label_with_list_dash() {
        let s = ok("- Reasoning: because\n- Final Answer: 7");
        assert_eq!(s.reasoning.as_deref(), Some("because"));
        assert_eq!(s.final_answer.as_deref(), Some("7"));
    }

    #[test]
    fn bare_upper_case_name_on_its_own_line() {
        let s = ok("REASONING\nx\nACTION\n{\"a\":1}");
        assert_eq!(s.reasoning.as_deref(), Some("x"));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        // But a bare lower-case word is just text.
        let e = err("action\nsomething");
        assert!(e.contains("none of the section tags"));
    }

    #[test]
    fn final_answer_label_case_rules() {
        assert_eq!(ok("FINAL ANSWER: 3").final_answer.as_deref(), Some("3"));
        assert_eq!(ok("Final Answer: 3").final_answer.as_deref(), Some("3"));
        assert!(err("final answer: 3").contains("none of the section tags"));
        assert!(err("Final answer: 3").contains("none of the section tags"));
    }

    #[test]
    fn action_input_is_not_an_action_label() {
        let s = ok("Action: {\"a\":1}\nAction Input: more");
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}\nAction Input: more"));
    }

    #[test]
    fn react_style_final_answer_only() {
        let s = ok("Thought: I know this.\nFinal Answer: Paris");
        assert_eq!(s.final_answer.as_deref(), Some("Paris"));
        assert_eq!(s.reasoning.as_deref(), Some("Thought: I know this."));
        assert!(has_note(&s, "text before the first tag was read as reasoning"));
        assert_eq!(s.first, Some(Section::FinalAnswer));
    }

    #[test]
    fn planning_mentioned_mid_sentence_is_not_a_tag() {
        let e = err("I did some planning: first I search, then I act. The action: click.");
        assert!(e.contains("none of the section tags"), "{e}");
        let s = ok("/*REASONING*/\nMy planning: went fine, and the action: was clear.\n/*FINAL_ANSWER*/ ok");
        assert_eq!(
            s.reasoning.as_deref(),
            Some("My planning: went fine, and the action: was clear.")
        );
        assert!(s.plan.is_empty());
    }

    // ---- FINAL_ANSWER label inside the section ----

    #[test]
    fn final_answer_label_inside_section_is_stripped() {
        let s = ok("/*FINAL_ANSWER*/\nFinal Answer: Paris");
        assert_eq!(s.final_answer.as_deref(), Some("Paris"));
        let s = ok("/*FINAL_ANSWER*/ Final answer: Paris");
        assert_eq!(s.final_answer.as_deref(), Some("Paris"));
        let s = ok("<FINAL_ANSWER>**Final Answer:** Paris</FINAL_ANSWER>");
        assert_eq!(s.final_answer.as_deref(), Some("Paris"));
    }

    // ---- REPLANNING ----

    #[test]
    fn replanning_reply() {
        let s = ok("/*REPLANNING*/\n1. Go back\n2. Try the other link\n/*REASONING*/\nThe first link failed.\n/*ACTION*/\n{\"action\": \"back\"}");
        assert_eq!(s.replan, vec!["Go back", "Try the other link"]);
        assert!(s.plan.is_empty());
        assert_eq!(s.action.as_deref(), Some("{\"action\": \"back\"}"));
    }

    #[test]
    fn replanning_variants() {
        assert_eq!(ok("/*RE-PLANNING*/\n1. x").replan, vec!["x"]);
        assert_eq!(ok("<REPLAN>\n- y\n</REPLAN>").replan, vec!["y"]);
        assert_eq!(ok("## Re-planning\n1. z").replan, vec!["z"]);
    }

    #[test]
    fn plan_only_reply_is_ok() {
        let s = ok("/*PLANNING*/\n1. a\n2. b");
        assert_eq!(s.plan, vec!["a", "b"]);
        assert_eq!(s.first, None);
        assert_eq!(s.action, None);
    }

    #[test]
    fn empty_plan_without_action_is_error() {
        let e = err("/*PLANNING*/\n\n/*REASONING*/ hmm");
        assert!(e.contains("no steps"), "{e}");
    }

    // ---- ACTION and FINAL_ANSWER together ----

    #[test]
    fn action_then_final_answer() {
        let s = ok("/*ACTION*/ {\"a\":1}\n/*FINAL_ANSWER*/ done");
        assert_eq!(s.first, Some(Section::Action));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        assert_eq!(s.final_answer.as_deref(), Some("done"));
        assert!(has_note(&s, "the ACTION came first"));
    }

    #[test]
    fn final_answer_then_action() {
        let s = ok("/*FINAL_ANSWER*/ done\n/*ACTION*/ {\"a\":1}");
        assert_eq!(s.first, Some(Section::FinalAnswer));
        assert!(has_note(&s, "the FINAL_ANSWER came first"));
    }

    #[test]
    fn several_actions_keep_first() {
        let s = ok("/*ACTION*/ {\"a\":1}\n/*REASONING*/ then\n/*ACTION*/ {\"a\":2}");
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        assert!(has_note(&s, "only one action per reply is run"));
        let s = ok("/*FINAL_ANSWER*/ one\n/*FINAL_ANSWER*/ two");
        assert_eq!(s.final_answer.as_deref(), Some("one"));
        assert!(has_note(&s, "extra FINAL_ANSWER"));
    }

    #[test]
    fn several_reasoning_sections_are_joined() {
        let s = ok("/*REASONING*/ a\n/*REASONING*/ b\n/*ACTION*/ {}\n/*REASONING*/ c");
        assert_eq!(s.reasoning.as_deref(), Some("a\nb\nc"));
        assert!(has_note(&s, "REASONING sections were joined"));
    }

    #[test]
    fn repeated_tag_in_a_row_is_one_section() {
        let s = ok("## Action\n**Action:**\n{\"a\":1}");
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        assert!(!has_note(&s, "only one action"));
        assert!(has_note(&s, "written twice in a row"));
    }

    // ---- Errors ----

    #[test]
    fn no_tags_is_error() {
        let e = err("I will click the button now.");
        assert!(e.contains("/*PLANNING*/"));
        assert!(e.contains("/*ACTION*/"));
        assert!(e.contains("/*FINAL_ANSWER*/"));
    }

    #[test]
    fn empty_input_is_error() {
        assert!(err("").contains("empty"));
        assert!(err(" \n\t\r\n").contains("empty"));
    }

    #[test]
    fn reasoning_only_is_error() {
        let e = err("/*REASONING*/ I am thinking.");
        assert!(e.contains("/*ACTION*/") && e.contains("/*FINAL_ANSWER*/"), "{e}");
        assert!(e.contains("no /*ACTION*/ or /*FINAL_ANSWER*/"));
    }

    #[test]
    fn empty_action_is_error() {
        let e = err("/*REASONING*/ x\n/*ACTION*/\n\n");
        assert!(e.contains("/*ACTION*/ section was empty"), "{e}");
        let e = err("/*REASONING*/ x\n/*ACTION*/\n*/\n");
        assert!(e.contains("/*ACTION*/ section was empty"), "{e}");
        let e = err("<FINAL_ANSWER>  </FINAL_ANSWER>");
        assert!(e.contains("/*FINAL_ANSWER*/ section was empty"), "{e}");
        let e = err("/*FINAL_ANSWER*/ Final Answer:");
        assert!(e.contains("/*FINAL_ANSWER*/ section was empty"), "{e}");
    }

    #[test]
    fn empty_action_with_final_answer_is_repaired() {
        let s = ok("/*ACTION*/\n/*FINAL_ANSWER*/ 12");
        assert_eq!(s.action, None);
        assert_eq!(s.final_answer.as_deref(), Some("12"));
        assert_eq!(s.first, Some(Section::FinalAnswer));
        assert!(has_note(&s, "ACTION section was empty"));
    }

    #[test]
    fn error_type_traits() {
        let e = parse_sections("no tags here").unwrap_err();
        assert_eq!(e.to_string(), e.message);
        let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
        assert_eq!(boxed.to_string(), e.message);
    }

    // ---- Cleaning ----

    #[test]
    fn junk_and_stray_closing_tags_are_removed() {
        let s = ok("/*ACTION*/\n{\"a\":1}\n*/\n");
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
        let s = ok("/*FINAL_ANSWER*/ Paris */");
        assert_eq!(s.final_answer.as_deref(), Some("Paris"));
        let s = ok("/*FINAL_ANSWER*/\nParis\n</answer>");
        assert_eq!(s.final_answer.as_deref(), Some("Paris"));
        assert!(has_note(&s, "stray closing tag </answer>"));
        // A closing tag that matches an opening one in the text stays.
        let s = ok("/*FINAL_ANSWER*/ It is <b>bold</b>");
        assert_eq!(s.final_answer.as_deref(), Some("It is <b>bold</b>"));
    }

    #[test]
    fn weak_tags_inside_code_fence_are_ignored() {
        let text = "/*FINAL_ANSWER*/\nHere is the log:\n```\nAction: click\n## Reasoning\n```\nDone.";
        let s = ok(text);
        assert_eq!(
            s.final_answer.as_deref(),
            Some("Here is the log:\n```\nAction: click\n## Reasoning\n```\nDone.")
        );
        assert_eq!(s.action, None);
    }

    #[test]
    fn crlf_line_endings() {
        let s = ok("## Reasoning\r\nwhy\r\nAction:\r\n{\"a\":1}\r\n");
        assert_eq!(s.reasoning.as_deref(), Some("why"));
        assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    }

    #[test]
    fn unicode_text() {
        let s = ok("/*PLANNING*/\n1. Öffne die Seite 日本\n• Suche «Zürich» 🚀\n/*REASONING*/ Ça va — oui\n/*FINAL_ANSWER*/ Zürich ist schön 🌄");
        assert_eq!(s.plan, vec!["Öffne die Seite 日本", "Suche «Zürich» 🚀"]);
        assert_eq!(s.reasoning.as_deref(), Some("Ça va — oui"));
        assert_eq!(s.final_answer.as_deref(), Some("Zürich ist schön 🌄"));
        // A tag name followed by a non-ASCII letter is not a tag.
        assert!(err("/*ACTIONé*/ x").contains("none of the section tags"));
    }

    // ---- plan_items ----

    #[test]
    fn plan_items_numbered_forms() {
        assert_eq!(
            plan_items("1. a\n2) b\nStep 3: c\nstep 4 - d\n**Step 5:** e\n**6.** f"),
            vec!["a", "b", "c", "d", "e", "f"]
        );
    }

    #[test]
    fn plan_items_bullets_checkboxes_and_bold() {
        assert_eq!(
            plan_items("- [ ] open\n* [x] search\n• **read**\n+ [X] done"),
            vec!["open", "search", "read", "done"]
        );
        // Bold only around part of an item stays.
        assert_eq!(plan_items("1. **Open** the page"), vec!["**Open** the page"]);
    }

    #[test]
    fn plan_items_continuations_and_nesting() {
        let text = "Here is my plan:\n1. Open the page\n   and wait for it\n2. Search\n   - use the box\n   - press enter\n3.\nRead the result\n\nI will start now.";
        assert_eq!(
            plan_items(text),
            vec![
                "Open the page and wait for it",
                "Search; use the box; press enter",
                "Read the result"
            ]
        );
    }

    #[test]
    fn plan_items_without_markers() {
        assert_eq!(
            plan_items("Open the page\n\n  Search for it  \nRead"),
            vec!["Open the page", "Search for it", "Read"]
        );
        assert!(plan_items("").is_empty());
        assert!(plan_items("\n  \n").is_empty());
    }

    #[test]
    fn plan_items_not_markers() {
        // "3.5 km" and a year are not list numbers.
        assert_eq!(plan_items("3.5 km walk\n2024. was fine"), vec!["3.5 km walk", "2024. was fine"]);
        assert_eq!(plan_items("Steps are easy"), vec!["Steps are easy"]);
    }

    #[test]
    fn plan_items_at_most_twenty() {
        let text: String = (1..=30).map(|i| format!("{i}. step {i}\n")).collect();
        let items = plan_items(&text);
        assert_eq!(items.len(), 20);
        assert_eq!(items[19], "step 20");
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        assert_eq!(plan_items(&text).len(), 20);
    }

    #[test]
    fn plan_items_drop_empty() {
        assert_eq!(plan_items("1.\n2. a\n- \n- [ ]\n3. b"), vec!["a", "b"]);
    }

    // ---- Robustness ----

    #[test]
    fn huge_adversarial_input_completes() {
        let mut text = String::new();
        while text.len() < 1_000_000 {
            text.push_str("/*<</*PLANNING <ACTION </ /* FINAL_ANSWER ** ``` # ");
        }
        let _ = parse_sections(&text);
        let _ = plan_items(&text);
        let text: String = "/*".repeat(500_000);
        let _ = parse_sections(&text);
        let text: String = "<".repeat(1_000_000);
        let _ = parse_sections(&text);
        let text: String = "/*ACTION*/</a>".repeat(70_000);
        let _ = parse_sections(&text);
        let text: String = "Action:\n".repeat(120_000);
        let _ = parse_sections(&text);
        let mut text = String::from("/*FINAL_ANSWER*/ x");
        text.push_str(&"</a>".repeat(250_000));
        let _ = parse_sections(&text);
    }

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn random_inputs_never_panic() {
        const FRAGMENTS: &[&str] = &[
            "/*", "*/", "<", "</", ">", "PLANNING", "planning", "REPLAN", "RE-PLANNING",
            "REASONING", "Reasoning:", "ACTION", "Action:", "FINAL_ANSWER", "Final Answer:",
            "final answer", "FINAL-ANSWER", "**", "#", "## ", "\n", "\r\n", " ", "\t", ":",
            "```", "~~~", "1. ", "2) ", "Step 3:", "- ", "* ", "•", "[x]", "[ ]", "{\"a\":1}",
            "é", "日本", "🚀", "-", "_",
        ];
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for round in 0..10_000 {
            let len = rng.below(40);
            let text = if round % 10 == 0 {
                let bytes: Vec<u8> = (0..len * 3).map(|_| rng.next() as u8).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                let mut s = String::new();
                for _ in 0..len {
                    if rng.below(4) == 0 {
                        let c = (rng.below(95) as u8 + 32) as char;
                        s.push(c);
                    } else {
                        s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
                    }
                }
                s
            };
            match parse_sections(&text) {
                Ok(s) => {
                    assert!(s.plan.len() <= 20 && s.replan.len() <= 20);
                    if let Some(a) = &s.action {
                        assert!(!a.is_empty(), "{text:?}");
                    }
                    if let Some(f) = &s.final_answer {
                        assert!(!f.is_empty(), "{text:?}");
                    }
                    match s.first {
                        Some(Section::Action) => assert!(s.action.is_some()),
                        Some(Section::FinalAnswer) => assert!(s.final_answer.is_some()),
                        Some(_) => panic!("bad first"),
                        None => assert!(
                            s.action.is_none()
                                && s.final_answer.is_none()
                                && (!s.plan.is_empty() || !s.replan.is_empty())
                        ),
                    }
                }
                Err(e) => assert!(!e.message.is_empty()),
            }
            let _ = plan_items(&text);
        }
    }
}
