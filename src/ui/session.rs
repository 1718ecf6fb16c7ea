//! The chat's side of a run: a message from the composer becomes a question (or the reply to
//! the agent's question) with the conversation so far as memory, run by the `RunControl`; its
//! outcome becomes the next chat message. Also the rules a chat is read by: memory turns, the
//! chat of an imported run, and what must be set before anything is sent.

use leptos::prelude::*;

use crate::agent::Turn;
use crate::secrets::mask;
use crate::storage::Settings;

use super::chat::{ChatMessage, Who};
use super::run::{Ask, Outcome, RunControl, Start};

#[derive(Clone, Copy)]
pub struct Session {
    settings: ReadSignal<Settings>,
    messages: RwSignal<Vec<ChatMessage>>,
    run: RunControl,
}

/// Earlier question/answer pairs of the conversation, for memory. A question the agent asked
/// back and the person's answer are folded into the question they asked.
pub fn turns(messages: &[ChatMessage]) -> Vec<Turn> {
    let mut turns = Vec::new();
    let mut question: Option<String> = None;
    let mut asked: Option<&str> = None;
    for m in messages {
        match m.who {
            Who::User => match (question.as_mut(), asked.take()) {
                (Some(q), Some(asked)) => q.push_str(&format!("\n(Asked \"{asked}\", the person replied: {})", m.text)),
                _ => question = Some(m.text.clone()),
            },
            Who::AskedPerson => asked = Some(&m.text),
            Who::Assistant => {
                if let Some(question) = question.take() {
                    turns.push(Turn { question, answer: m.text.clone() });
                }
            }
            Who::Problem => question = None,
        }
    }
    turns
}

/// The chat of an exported run: its question, then its answer or why it ended without one.
pub fn imported_messages(run: &crate::storage::ExportedRun) -> Vec<ChatMessage> {
    let last = match &run.answer {
        Some(answer) => ChatMessage { who: Who::Assistant, text: answer.clone() },
        None => ChatMessage {
            who: Who::Problem,
            text: run.trace.stop_reason().map(|r| r.describe()).unwrap_or_else(|| "This run ended without an answer.".into()),
        },
    };
    vec![ChatMessage { who: Who::User, text: run.question.clone() }, last]
}

/// What must be set (or agreed to) before a request can be sent, as a sentence naming the
/// setting. Every request to the model (a run, Compare, Test connection) checks this first.
pub fn missing_setting(settings: &Settings) -> Option<String> {
    let p = &settings.provider;
    if p.base_url.trim().is_empty() {
        Some("Set the provider's base URL in Settings (⚙) first.".into())
    } else if p.model.trim().is_empty() {
        Some("Set the model name in Settings (⚙) first.".into())
    } else if p.preset.needs_key() && p.api_key.trim().is_empty() {
        Some("Add your API key in Settings (⚙) first. It stays in this browser and is sent only to the provider.".into())
    } else {
        crate::secrets::plain_http_warning(settings)
    }
}

impl From<Outcome> for ChatMessage {
    fn from(outcome: Outcome) -> Self {
        match outcome {
            Outcome::Answer(text) => ChatMessage { who: Who::Assistant, text },
            Outcome::Asks(text) => ChatMessage { who: Who::AskedPerson, text },
            Outcome::Ended(text) => ChatMessage { who: Who::Problem, text },
        }
    }
}

impl Session {
    pub fn new(settings: ReadSignal<Settings>, messages: RwSignal<Vec<ChatMessage>>, run: RunControl) -> Self {
        Session { settings, messages, run }
    }

    pub fn ask(self, text: String) {
        // The agent's question is the last message and the shown run ended waiting for it:
        // this message answers it, and the run goes on.
        let waiting = self.messages.with_untracked(|m| m.last().is_some_and(|m| m.who == Who::AskedPerson))
            && self.run.trace.with_untracked(|events| crate::agent::trace::open_question(events).is_some());
        // A question becomes memory only with its answer, so one the agent is still asking
        // about is not part of it.
        let history = self.messages.with_untracked(|m| turns(m));
        let settings = self.settings.get_untracked();
        let secrets = crate::secrets::collect(&settings);
        // A key pasted into the question is sent to the model, but never shown or stored.
        self.messages.update(|m| m.push(ChatMessage { who: Who::User, text: mask(&text, &secrets) }));
        if let Some(problem) = missing_setting(&settings) {
            self.messages.update(|m| m.push(ChatMessage { who: Who::Problem, text: problem }));
            return;
        }
        let ask = if waiting { Ask::Answer(text) } else { Ask::Question(text) };
        let messages = self.messages;
        self.run.start(Start { settings, ask, history }, move |outcome| messages.update(|m| m.push(outcome.into())));
    }
}

#[cfg(test)]
mod tests;
