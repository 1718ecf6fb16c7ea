//! The scope gate: before a new question reaches the tool loop, one short model call decides
//! whether it is a question this agent is for (`AgentSettings::scope`). Pure: the request, and
//! reading the verdict; the loop makes the call (`run.rs`).
//!
//! The verdict is asked for as JSON matching a small schema where structured output is on,
//! and as one strict line (`IN: reason` / `OUT: reason`) otherwise; both forms are read either
//! way, leniently (labels, Markdown emphasis, a fence or prose around the JSON). Anything else
//! is `Unreadable`, which counts as in scope: the gate never blocks by accident.

use serde_json::{json, Value};

use super::model::{ChatRequest, JsonFormat, Message};
use super::parse::first_json_object;
use super::settings::AgentSettings;
use super::trace::ScopeVerdict;

/// How long the gate waits for its verdict before the question goes on as in scope.
pub const SCOPE_TIMEOUT_MS: f64 = 30_000.0;

/// Replies longer than this are cut in the trace's reason.
const MAX_REASON_CHARS: usize = 300;

/// The gate's request for `question`.
pub fn scope_request(question: &str, settings: &AgentSettings) -> ChatRequest {
    let system = format!(
        "You check whether a question is one this assistant is meant to answer. The assistant is for:\n{}\n\n\
         Decide only about the question's topic, not whether you know the answer. Reply with exactly one line: \
         `IN: <short reason>` when the question is within that purpose, or `OUT: <short reason>` when it is not.",
        settings.scope.trim()
    );
    let mut request = ChatRequest::new(vec![Message::system(system), Message::user(question)], 0.0, Some(80));
    if settings.structured_output {
        request.json_format = Some(JsonFormat {
            name: "scope_verdict".into(),
            schema: json!({
                "type": "object",
                "properties": { "in_scope": { "type": "boolean" }, "reason": { "type": "string" } },
                "required": ["in_scope", "reason"],
                "additionalProperties": false
            }),
        });
    }
    request
}

/// The verdict a reply gives, and its reason (or, when unreadable, what was wrong).
pub fn read_verdict(reply: &str) -> (ScopeVerdict, String) {
    if let Some(found) = from_json(reply) {
        return found;
    }
    for line in reply.lines() {
        if let Some(found) = from_line(line) {
            return found;
        }
    }
    let shown: String = reply.trim().chars().take(MAX_REASON_CHARS).collect();
    (ScopeVerdict::Unreadable, format!("The scope check's reply gave no verdict, so the question is answered: \"{shown}\""))
}

fn short(reason: &str) -> String {
    reason.trim().chars().take(MAX_REASON_CHARS).collect()
}

/// `{"in_scope": true, "reason": "…"}`, anywhere in the reply.
fn from_json(reply: &str) -> Option<(ScopeVerdict, String)> {
    let object = first_json_object(reply)?;
    let in_scope = object.get("in_scope")?.as_bool()?;
    let reason = object.get("reason").and_then(Value::as_str).unwrap_or("");
    Some((if in_scope { ScopeVerdict::InScope } else { ScopeVerdict::OutOfScope }, short(reason)))
}

/// `IN: reason` or `OUT: reason`, with any label, emphasis or quote around the word.
fn from_line(line: &str) -> Option<(ScopeVerdict, String)> {
    let mut rest = line.trim().trim_start_matches(['*', '_', '`', '>', '-', ' ', '"']);
    let lower = rest.to_ascii_lowercase();
    if let Some(label) = ["verdict:", "answer:", "decision:"].iter().find(|l| lower.starts_with(*l)) {
        rest = rest[label.len()..].trim_start().trim_start_matches(['*', '_', '`', ' ', '"']);
    }
    let lower = rest.to_ascii_lowercase();
    let (verdict, word) = if lower.starts_with("out") {
        (ScopeVerdict::OutOfScope, 3)
    } else if lower.starts_with("in") {
        (ScopeVerdict::InScope, 2)
    } else {
        return None;
    };
    let after = &rest[word..];
    // A whole word ("IN", "OUT", "in scope", "out of scope"), not "information" or "outline".
    if after.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let after = after.trim_start_matches(['*', '_', '`', '"', ' ']);
    let after = ["of scope", "scope"].iter().find_map(|w| after.strip_prefix(w)).unwrap_or(after);
    let reason = after.trim_start_matches([':', '-', '—', '–', '.', ',', ' ', '*', '_', '`']);
    Some((verdict, short(reason)))
}

#[cfg(test)]
mod tests;
