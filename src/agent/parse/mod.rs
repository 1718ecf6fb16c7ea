//! Reading one model reply of Thoughtline's ReAct loop: text in, [`Reply::Action`] (call a
//! tool) or [`Reply::Final`] (show an answer) out, or a [`ParseError`] whose message tells
//! the model what to fix. Real models drift from the format in many small ways, so the
//! parser recovers what they meant whenever the text allows only one reading, records each
//! repair in [`Parsed::notes`] for the trace, and refuses (never guesses) otherwise.
//!
//! How a reply moves through it ([`parse_reply`]):
//! 1. `formats`: section tags (`/*ACTION*/`) go through the Plan-ReAct reader first.
//! 2. `scan` finds brace regions and fences; `blobs` reads them as JSON (`json` repairs
//!    near-JSON and closes a value cut off at the end) and as tool calls.
//! 3. `labels` finds `Thought:`/`Action:`/`Action Input:`/`Final Answer:` lines; `mrkl`
//!    reads `Action:` lines (with `input` reading the text of `Action Input:`).
//! 4. `choose` takes the reading that starts first, resolves the tool name (`tools`:
//!    exact, case, spelling, decorated `tool(...)`; a sentence is refused), and cleans the
//!    input (`input`). Nothing readable and no format word at all: `formats` reads the
//!    reply as a direct answer. `error` holds the messages.
//!
//! Constraints that shape the code: it runs in the browser (wasm32), so there are no
//! threads, clocks, regexes or `unsafe`; replies can be huge or hostile (a runaway model
//! can emit a megabyte of `{`), so every pass is a linear byte scan with explicit stacks
//! instead of recursion, every fallback runs a bounded number of times, and nothing here
//! panics.

#![forbid(unsafe_code)]

use serde_json::Value;

mod blobs;
mod choose;
mod error;
mod formats;
mod input;
mod json;
mod labels;
mod mrkl;
mod scan;
mod tools;

pub use error::{ParseError, ParseErrorKind};

/// The first JSON object in `text` (inside a fence, after prose, or with the small mistakes
/// the ReAct reader repairs), read as a value; `None` when there is none that reads.
pub fn first_json_object(text: &str) -> Option<Value> {
    let b = text.as_bytes();
    scan::scan(b, 0, b.len()).regions.iter().find_map(|region| match region.kind {
        scan::RegionKind::Complete => json::read_object(&text[region.start..region.end]).ok().map(|(value, _)| value),
        scan::RegionKind::Unclosed { .. } => None,
    })
}
pub use labels::cut_at_observation;
pub use tools::{is_final_name, resolve_tool};

use blobs::{find_blobs, inside_json};
use choose::{blob_constructs, choose, Construct, ConstructKind};
use error::error_at;
use labels::{find_labels, Label, LabelKind};

/// What the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Call a tool. `tool` is the canonical tool name when it matched one of `tools`
    /// (see [`resolve_tool`]), otherwise the name exactly as the model wrote it (trimmed).
    /// A JSON `null` input is passed on as the empty string `""`, the same thing an
    /// empty MRKL `Action Input:` line gives, so tools that take no input see one shape.
    Action { tool: String, input: Value },
    /// The model is done; `answer` is shown to the user.
    Final { answer: String },
}

/// A successfully read reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub reply: Reply,
    /// Text before the action / final answer, with a leading "Thought:" label removed, trimmed; None when empty.
    pub thought: Option<String>,
    /// Human-readable notes on what was repaired or ignored, for the trace.
    pub notes: Vec<String>,
    /// The reply was plain prose, without any word of the format, and was read as a direct
    /// answer to the person (the trace labels such an answer "Direct answer").
    pub direct: bool,
}

/// Parses one model reply. `tools` are the valid tool names (canonical spelling).
/// Never panics and always terminates in time roughly linear in text length (no quadratic blow-up on 1 MB inputs).
pub fn parse_reply(text: &str, tools: &[&str]) -> Result<Parsed, ParseError> {
    if text.trim().is_empty() {
        return Err(error_at(ParseErrorKind::Empty, ""));
    }
    let tagged = formats::tagged(text);
    if tagged {
        if let Some(parsed) = formats::read_sections(text, tools) {
            return Ok(parsed);
        }
    }
    // Tags are format words: a tagged reply that did not read is no direct answer.
    read_react(text, tools, !tagged)
}

/// The ReAct reading: collect every construct the reply could mean (JSON tool calls, MRKL
/// `Action:` lines, `Final Answer:` labels, and broken attempts at those), then let
/// [`choose`] take the one that starts first. With `prose_answers`, a reply with none of
/// them and no format word is a direct answer.
fn read_react(text: &str, tools: &[&str], prose_answers: bool) -> Result<Parsed, ParseError> {
    let mut blobs = find_blobs(text);
    // Labels that sit inside a JSON object are string content, not structure.
    let labels: Vec<Label> = find_labels(text.as_bytes()).into_iter().filter(|l| !inside_json(&blobs, l.start)).collect();

    let mut cons = Vec::new();
    let mut extra_notes = Vec::new();
    mrkl::mrkl_constructs(text, &labels, &mut blobs, tools, &mut cons, &mut extra_notes);
    blob_constructs(text, &blobs, tools, &mut cons);
    for l in labels.iter().filter(|l| l.kind == LabelKind::Final) {
        cons.push(Construct {
            pos: l.start,
            cover_end: l.end,
            kind: ConstructKind::FinalLabel { from: l.end },
            definite: true,
            loose: false,
            notes: Vec::new(),
        });
    }
    let nothing_found = cons.is_empty();
    match choose(text, cons, &labels, tools, extra_notes) {
        Err(e) if nothing_found && prose_answers => formats::read_direct(text, &blobs).ok_or(e),
        read => read,
    }
}

#[cfg(test)]
mod tests;
