//! A run as the ReAct transcript a person would paste into an issue or a chat: Question,
//! Thought, Action, Observation, Final Answer in words, each event as its trace row reads
//! (`EventKind::row`), whole rather than cut to a preview, with counts and timings in italics.

use std::fmt::Write;

use super::row::Part;
use super::{value_as_text, Decision, Event, EventKind, Trace};

impl Trace {
    /// The run as Markdown (see `transcript`).
    pub fn to_markdown(&self) -> String {
        transcript(&self.events)
    }
}

/// The events as a Markdown transcript. Requests are left out (their reply's line counts
/// them), as is a tool call the decision before it already named, and a reply's own text when
/// the decision after it says what it meant.
pub fn transcript(events: &[Event]) -> String {
    let mut out = String::new();
    let mut last_action: Option<(&str, String)> = None;
    for (at, e) in events.iter().enumerate() {
        let row = e.kind.row();
        let mut parts: &[Part] = &row.parts;
        match &e.kind {
            EventKind::LlmRequest { .. } => continue,
            EventKind::Decided { decision: Decision::Action { tool, input }, .. } => last_action = Some((tool, value_as_text(input))),
            EventKind::ToolCall { tool, input, .. } => {
                if last_action.take().is_some_and(|(t, i)| t == tool && i == value_as_text(input)) {
                    parts = &[];
                }
            }
            EventKind::LlmResponse { .. } => {
                let read = events.get(at + 1).is_some_and(|n| matches!(n.kind, EventKind::Decided { .. } | EventKind::ParseFailed { .. }));
                if read {
                    parts = &row.parts[row.parts.iter().take_while(|p| matches!(p, Part::Text(_))).count()..];
                }
            }
            _ => {}
        }
        let label = e.kind.label();
        if !row.summary.is_empty() {
            let _ = write!(out, "**{label}:** {}\n\n", row.summary);
        }
        for (i, part) in parts.iter().enumerate() {
            // The first part is introduced by the event's own name when no summary did it.
            let named = i == 0 && row.summary.is_empty();
            write_part(&mut out, part, if named { label } else { "" });
        }
        let mut meta = Vec::new();
        if !parts.is_empty() || !row.summary.is_empty() || matches!(e.kind, EventKind::LlmResponse { .. }) {
            if matches!(e.kind, EventKind::LlmResponse { .. }) {
                meta.push(label.to_string());
            }
            if e.step > 0 {
                meta.push(format!("step {}", e.step));
            }
            let ms = e.ended_ms - e.started_ms;
            if ms >= 1.0 {
                meta.push(format!("{ms:.0} ms"));
            }
            if !row.meta.is_empty() {
                meta.push(row.meta.clone());
            }
        }
        if !meta.is_empty() {
            let _ = write!(out, "_{}_\n\n", meta.join(" · "));
        }
    }
    out
}

fn write_part(out: &mut String, part: &Part, label: &str) {
    let named = |fallback: &'static str| if label.is_empty() { fallback.to_string() } else { label.to_string() };
    match part {
        Part::Thought(t) => {
            let _ = write!(out, "**Thought:** {}\n\n", t.trim());
        }
        Part::Action { tool, input } => {
            let _ = write!(out, "**Action:** `{tool}`");
            write_value(out, input);
        }
        Part::Call { name, arguments } => {
            let _ = write!(out, "**Call:** `{name}`");
            write_value(out, arguments);
        }
        Part::Text(t) => {
            let _ = write!(out, "**{}:**\n\n{}\n\n", named("Text"), fenced(t));
        }
        Part::Code(code) => {
            let _ = write!(out, "{}\n\n", fenced(code).replacen("text\n", "python\n", 1));
        }
        Part::Output(t) => {
            let _ = write!(out, "**{}:**\n\n{}\n\n", named("Output"), fenced(t));
        }
        Part::Answer(a) => {
            let _ = write!(out, "**{}:**\n\n{}\n\n", named("Answer"), a.trim());
        }
        Part::Items(items) => {
            let _ = writeln!(out, "**{}:**\n", named("Plan"));
            for (i, item) in items.iter().enumerate() {
                let _ = writeln!(out, "{}. {item}", i + 1);
            }
            out.push('\n');
        }
        Part::Note(n) => {
            let _ = write!(out, "> {}\n\n", n.trim().replace('\n', "\n> "));
        }
    }
}

/// An input after its tool's name: inline when it is one short line, fenced otherwise.
fn write_value(out: &mut String, value: &str) {
    if value.is_empty() {
        out.push_str("\n\n");
    } else if value.len() <= 120 && !value.contains('\n') && !value.contains('`') {
        let _ = write!(out, " ← `{value}`\n\n");
    } else {
        let _ = write!(out, " ←\n\n{}\n\n", fenced(value));
    }
}

/// A text fenced so that nothing in it is read as Markdown: the fence is longer than any run
/// of backticks inside.
pub(super) fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{text}\n{fence}")
}
