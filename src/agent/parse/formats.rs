//! The two other shapes a ReAct reply comes in besides the ReAct format itself.
//!
//! * **Section tags** (`/*ACTION*/`, `<FINAL_ANSWER>`): a model that knows the Plan-ReAct
//!   format writes them in a ReAct reply too. They are read by the one tag reader there is,
//!   [`plan::parse_sections`](super::super::plan::parse_sections), as what they say.
//! * **Plain prose** with no format word and no JSON at all: read as a direct answer to the
//!   person, as conversational agents do. A reply that does use the format (a `Thought:`,
//!   say) but has no action or answer is not prose, and stays a format error.

use super::super::plan::{has_tags, parse_sections, Section};
use super::blobs::Blob;
use super::input::trim_stop_fragment;
use super::labels::{has_format_words, strip_thought};
use super::scan::skip_ws;
use super::{read_react, Parsed, Reply};

/// Whether the reply should go through the section reader first.
pub(super) fn tagged(text: &str) -> bool {
    // Both tag forms need `/*` or `<`; most replies have neither, so the tag reader's full
    // pass is skipped for them.
    (text.as_bytes().contains(&b'<') || text.contains("/*")) && has_tags(text)
}

/// A reply with section tags, read through the Plan-ReAct reader. `None` when the tags do
/// not give an answer or a readable tool call; the caller then reads the reply as ReAct.
pub(super) fn read_sections(text: &str, tools: &[&str]) -> Option<Parsed> {
    let sections = parse_sections(text).ok()?;
    let mut notes = vec!["read the Plan-ReAct section tags in the reply as what they say".to_string()];
    notes.extend(sections.notes);
    let reasoning = sections.reasoning.as_deref().map(strip_thought).filter(|t| !t.is_empty()).map(str::to_string);
    let (reply, thought) = match sections.first? {
        Section::FinalAnswer => (Reply::Final { answer: sections.final_answer? }, reasoning),
        Section::Action => {
            let inner = read_react(&sections.action?, tools, false).ok()?;
            notes.extend(inner.notes);
            (inner.reply, reasoning.or(inner.thought))
        }
        _ => return None,
    };
    Some(Parsed { reply, thought, notes, direct: false })
}

/// The whole reply as a direct answer, if it is plain prose: some letters or digits, no
/// format word (see [`has_format_words`]), and no JSON: nothing that could be a call or its
/// input, and no object that opens like JSON (`{"`) even if it does not read.
pub(super) fn read_direct(text: &str, blobs: &[Blob]) -> Option<Parsed> {
    let b = text.as_bytes();
    let json_like = |blob: &Blob| blob.could_be_call() || matches!(b.get(skip_ws(b, blob.start + 1)), Some(b'"' | b'\''));
    if !text.chars().any(char::is_alphanumeric) || has_format_words(b) || blobs.iter().any(json_like) {
        return None;
    }
    let mut notes = vec![
        "the reply had no Thought:, Action, JSON or Final Answer, so it was read as a direct answer to the person".to_string(),
    ];
    let mut answer = text.trim();
    if let Some(kept) = trim_stop_fragment(answer) {
        answer = kept.trim();
        notes.push("dropped the start of an \"Observation:\" label cut short at the end".to_string());
    }
    (!answer.is_empty()).then(|| Parsed { reply: Reply::Final { answer: answer.to_string() }, thought: None, notes, direct: true })
}
