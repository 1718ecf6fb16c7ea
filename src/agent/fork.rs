//! Forking a run: a person changes one step (the question, a model reply, a tool call's input,
//! an observation) or asks the model the same step again, and the agent runs on from there in a
//! branch of its own. The branch keeps the steps before the fork as they were, then an
//! `EventKind::Forked` event that says what the person changed (so nobody takes their words
//! for the model's or a tool's), then what the agent did next.
//!
//! Pure: which step can be changed and how (`Editable::at`), where the branch starts
//! (`fork_point`), and the text a person edits and what it becomes (`Change`). The loop reads
//! the `Forked` event to know where to go on (`run.rs`), the prompt writes the changed text
//! where the original stood (`prompt.rs`). Tested with scripted runs in `agent/tests/fork.rs`.

use serde_json::Value;

pub use super::change::{Change, Fork, ForkSettings};
use super::trace::{Event, EventKind, LlmPurpose};

/// The longest text a person can put in place of a step, in characters; a longer one is cut
/// with a note, like any outside text.
pub const MAX_EDIT_CHARS: usize = 64 * 1024;

/// What a step offers to change, with the text the editor starts from.
#[derive(Debug, Clone, PartialEq)]
pub enum Editable {
    Question(String),
    Reply(String),
    ToolInput { tool: String, input: String },
    Observation { tool: String, text: String },
}

impl Editable {
    /// What event `i` of a run's events lets a person change, if anything: the question (the
    /// run's first start), a step's reply (on its reply or its decision), a tool call's input,
    /// or what a tool answered; in a branch, the change it was made with, again.
    pub fn at(events: &[Event], i: usize) -> Option<Editable> {
        match &events.get(i)?.kind {
            EventKind::RunStarted { question, continues: false, .. } if first_start(events) == Some(i) => Some(Editable::Question(question.clone())),
            EventKind::LlmResponse { .. } | EventKind::Decided { .. } => {
                let reply = step_reply(events, i)?;
                match &events[reply].kind {
                    EventKind::LlmResponse { text, tool_calls, .. } if tool_calls.is_empty() => Some(Editable::Reply(text.clone())),
                    EventKind::Forked(fork) => match &fork.change {
                        Change::Reply { text } => Some(Editable::Reply(text.clone())),
                        _ => None,
                    },
                    _ => None,
                }
            }
            EventKind::Forked(fork) => match &fork.change {
                Change::Question { text } => Some(Editable::Question(text.clone())),
                Change::Reply { text } => Some(Editable::Reply(text.clone())),
                Change::ToolInput { tool, input } => Some(Editable::ToolInput { tool: tool.clone(), input: input_text(input) }),
                Change::Observation { tool, text } => Some(Editable::Observation { tool: tool.clone(), text: text.clone() }),
                Change::AskAgain => None,
            },
            EventKind::ToolCall { tool, input, .. } => Some(Editable::ToolInput { tool: tool.clone(), input: input_text(input) }),
            EventKind::ToolResult { tool, observation } => Some(Editable::Observation { tool: tool.clone(), text: observation.clone() }),
            EventKind::ToolFailed { tool, message, .. } => Some(Editable::Observation { tool: tool.clone(), text: message.clone() }),
            _ => None,
        }
    }

    /// The text the editor starts from.
    pub fn text(&self) -> &str {
        match self {
            Editable::Question(t) | Editable::Reply(t) => t,
            Editable::ToolInput { input, .. } => input,
            Editable::Observation { text, .. } => text,
        }
    }

    /// The change the edited `text` makes (cut to `MAX_EDIT_CHARS`). A tool input that reads
    /// as JSON is given to the tool as that JSON, any other as a string.
    pub fn change(&self, text: &str) -> Change {
        let text = bounded(text);
        match self {
            Editable::Question(_) => Change::Question { text },
            Editable::Reply(_) => Change::Reply { text },
            Editable::ToolInput { tool, .. } => {
                let input = match serde_json::from_str::<Value>(text.trim()) {
                    Ok(value @ (Value::Object(_) | Value::Array(_))) => value,
                    _ => Value::String(text),
                };
                Change::ToolInput { tool: tool.clone(), input }
            }
            Editable::Observation { tool, .. } => Change::Observation { tool: tool.clone(), text },
        }
    }
}

/// Whether event `i` offers "ask this step again": a step's reply (or its decision) that came
/// from a model call of the agent's own.
pub fn can_ask_again(events: &[Event], i: usize) -> bool {
    let reply = match events.get(i).map(|e| &e.kind) {
        Some(EventKind::LlmResponse { .. } | EventKind::Decided { .. }) => true,
        Some(EventKind::Forked(fork)) => matches!(fork.change, Change::Reply { .. }),
        _ => false,
    };
    reply && step_request(events, i).is_some()
}

/// Where a branch made at event `i` with `change` starts: the index of its `Forked` event; the
/// events before it are the ones it shares. `None` when the change does not fit that event.
pub fn fork_point(events: &[Event], i: usize, change: &Change) -> Option<usize> {
    let fits = match change {
        Change::AskAgain => return step_request(events, i),
        Change::Question { .. } => matches!(Editable::at(events, i), Some(Editable::Question(_))),
        Change::Reply { .. } => return step_reply(events, i).filter(|_| matches!(Editable::at(events, i), Some(Editable::Reply(_)))),
        Change::ToolInput { .. } => matches!(Editable::at(events, i), Some(Editable::ToolInput { .. })),
        Change::Observation { .. } => matches!(Editable::at(events, i), Some(Editable::Observation { .. })),
    };
    if !fits {
        return None;
    }
    Some(match change {
        Change::Question { .. } => 0,
        // The approval a call waited for is asked again for the changed call.
        Change::ToolInput { .. } => {
            let step = events[i].step;
            let mut at = i;
            while at > 0 && events[at - 1].step == step && matches!(events[at - 1].kind, EventKind::ApprovalAsked { .. } | EventKind::ApprovalGiven { .. }) {
                at -= 1;
            }
            at
        }
        _ => i,
    })
}

/// The `Forked` event a branch starts with: numbered `at`, in the step of the event it replaces,
/// at that event's time.
pub fn forked_event(events: &[Event], at: usize, fork: Fork) -> Event {
    let (step, time) = events.get(at).map_or((0, 0.0), |e| (e.step, e.started_ms));
    Event { index: at as u32, step, started_ms: time, ended_ms: time, kind: EventKind::Forked(Box::new(fork)) }
}

/// The index of the first `RunStarted`, which holds the question as asked (a branch made
/// with another question offers it on its `Forked` event instead).
fn first_start(events: &[Event]) -> Option<usize> {
    match events.first().map(|e| &e.kind) {
        Some(EventKind::Forked(_)) => None,
        _ => events.iter().position(|e| matches!(e.kind, EventKind::RunStarted { .. })),
    }
}

/// The agent's own model reply of the step event `i` belongs to (the reply itself, or the one a
/// decision read).
fn step_reply(events: &[Event], i: usize) -> Option<usize> {
    let step = events.get(i)?.step;
    let request = step_request(events, i)?;
    (request..=i).rev().find(|&j| {
        events[j].step == step
            && match &events[j].kind {
                EventKind::LlmResponse { .. } => true,
                EventKind::Forked(fork) => matches!(fork.change, Change::Reply { .. }),
                _ => false,
            }
    })
}

/// The request of the agent's own model call that event `i` (a reply or a decision) answers.
fn step_request(events: &[Event], i: usize) -> Option<usize> {
    let step = events.get(i)?.step;
    if step == 0 {
        return None;
    }
    for j in (0..=i).rev() {
        if events[j].step != step {
            return None;
        }
        if let EventKind::LlmRequest { purpose, .. } = &events[j].kind {
            return (*purpose == LlmPurpose::Step).then_some(j);
        }
    }
    None
}

/// A tool's input as a person edits it: a string as it is, anything else as indented JSON.
fn input_text(input: &Value) -> String {
    match input {
        Value::String(s) => s.clone(),
        other => format!("{other:#}"),
    }
}

fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_EDIT_CHARS) {
        None => text.to_string(),
        Some((end, _)) => format!("{}\n[… cut: the edit kept its first {MAX_EDIT_CHARS} characters]", &text[..end]),
    }
}
