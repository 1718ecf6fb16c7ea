//! Masking a run's events: every text an event holds goes through the one masking function
//! (`secrets::mask`). The page's run observer masks each event here as it is recorded, and an
//! imported conversation is masked here before it is shown or stored.

use crate::agent::fork::Change;
use crate::agent::trace::{Decision, RequestRecord};
use crate::agent::{Event, EventKind};
use crate::secrets::{mask_field, mask_value, Secrets};

fn mask_request(request: &mut RequestRecord, secrets: &Secrets) {
    for m in &mut request.messages {
        mask_field(&mut m.content, secrets);
        m.tool_calls.iter_mut().for_each(|c| mask_field(&mut c.arguments, secrets));
    }
}

/// Masks every text an event holds. The match is exhaustive on purpose: a new kind of event
/// does not compile until someone has said here which of its fields can carry a secret.
pub fn mask_event(event: &mut Event, secrets: &Secrets) {
    let m = |s: &mut String| mask_field(s, secrets);
    match &mut event.kind {
        EventKind::RunStarted { question, .. } => m(question),
        EventKind::PersonAnswered { answer } => m(answer),
        EventKind::LlmRequest { request, .. } => mask_request(request, secrets),
        EventKind::LlmResponse { text, discarded, tool_calls, .. } => {
            m(text);
            discarded.iter_mut().for_each(m);
            tool_calls.iter_mut().for_each(|c| m(&mut c.arguments));
        }
        EventKind::LlmFailed { error } => m(&mut error.message),
        EventKind::LlmRetry { reason, .. } => m(reason),
        EventKind::Decided { thought, decision, notes } => {
            thought.iter_mut().for_each(m);
            notes.iter_mut().for_each(m);
            match decision {
                Decision::Action { input, .. } => mask_value(input, secrets),
                Decision::Final { answer } => m(answer),
            }
        }
        EventKind::Plan { items, observation, .. } => {
            items.iter_mut().for_each(m);
            observation.iter_mut().for_each(m);
        }
        EventKind::AskedPerson { question } => m(question),
        EventKind::StrategyFallback { reason, .. } => m(reason),
        EventKind::ParseFailed { message, excerpt, observation, .. } => {
            m(message);
            m(excerpt);
            m(observation);
        }
        EventKind::ToolCall { input, .. } | EventKind::RepeatedAction { input, .. } | EventKind::ApprovalAsked { input, .. } => mask_value(input, secrets),
        EventKind::ApprovalGiven { .. } => {}
        EventKind::ServerAsked { question, answer, .. } => {
            m(question);
            m(answer);
        }
        EventKind::ToolResult { observation, .. } => m(observation),
        EventKind::ToolFailed { message, .. } => m(message),
        EventKind::UnknownTool { requested, .. } => m(requested),
        EventKind::FinalAnswer { answer, .. } => m(answer),
        EventKind::RunStopped { message, .. } => m(message),
        EventKind::ScopeChecked { reason, .. } => m(reason),
        EventKind::Forked(fork) => match &mut fork.change {
            Change::Question { text } | Change::Reply { text } | Change::Observation { text, .. } => m(text),
            Change::ToolInput { input, .. } => mask_value(input, secrets),
            Change::AskAgain => {}
        },
    }
}

pub fn mask_events(events: &mut [Event], secrets: &Secrets) {
    events.iter_mut().for_each(|e| mask_event(e, secrets));
}

#[cfg(test)]
mod tests;
