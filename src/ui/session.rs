//! One conversation's runs: takes a question from the chat, runs the agent with the current
//! settings, and feeds events and streamed text into the signals the panes render. Stop trips
//! the run's `CancelToken`, which drops the in-flight request (aborting its fetch).

use leptos::prelude::*;

use crate::agent::{CancelToken, Event, RunObserver, Turn};
use crate::secrets::{mask, mask_event, Secrets};
use crate::storage::Settings;

use super::chat::{ChatMessage, Who};

#[derive(Clone, Copy)]
pub struct Session {
    settings: ReadSignal<Settings>,
    messages: RwSignal<Vec<ChatMessage>>,
    trace: RwSignal<Vec<Event>>,
    streaming: RwSignal<String>,
    running: RwSignal<bool>,
    cancel: StoredValue<Option<CancelToken>, LocalStorage>,
}

/// Pushes events into the trace signal as they happen. A run that continues one which asked
/// the person a question is appended after that run's events, renumbered, so the pane shows
/// one story.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(super) struct UiObserver {
    pub trace: RwSignal<Vec<Event>>,
    pub streaming: RwSignal<String>,
    /// Added to each event's index: the number of events already shown.
    pub offset: u32,
    /// Every secret the settings hold. Events are masked on their way into the trace signal,
    /// the one source of the page, the stored chats, exports and the Markdown copy.
    pub secrets: Secrets,
}

impl RunObserver for UiObserver {
    fn on_event(&self, event: &Event) {
        if matches!(event.kind, crate::agent::EventKind::LlmRequest { .. }) {
            self.streaming.set(String::new());
        }
        let mut event = event.clone();
        event.index += self.offset;
        mask_event(&mut event, &self.secrets);
        self.trace.update(|t| t.push(event));
    }
    // Live text is masked piece by piece (a key split across two pieces shows until the reply
    // ends, when the masked reply event replaces the live box).
    fn on_delta(&self, _step: u32, delta: &str) {
        self.streaming.update(|s| s.push_str(&mask(delta, &self.secrets)));
    }
    fn on_reasoning(&self, _step: u32, delta: &str) {
        // Shown in the live box, set apart from the reply; never parsed.
        self.streaming.update(|s| {
            if s.is_empty() {
                s.push_str("(thinking) ");
            }
            s.push_str(&mask(delta, &self.secrets))
        });
    }
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

impl Session {
    pub fn new(
        settings: ReadSignal<Settings>,
        messages: RwSignal<Vec<ChatMessage>>,
        trace: RwSignal<Vec<Event>>,
        streaming: RwSignal<String>,
        running: RwSignal<bool>,
    ) -> Self {
        Session { settings, messages, trace, streaming, running, cancel: StoredValue::new_local(None) }
    }

    pub fn ask(self, text: String) {
        // The agent's question is the last message and the shown run ended waiting for it:
        // this message answers it, and the run goes on.
        let waiting = self.messages.with_untracked(|m| m.last().is_some_and(|m| m.who == Who::AskedPerson))
            && self.trace.with_untracked(|events| crate::agent::trace::open_question(events).is_some());
        let history = self.messages.with_untracked(|m| {
            // While a question is open, the question it clarifies is not memory yet.
            let end = if waiting { m.iter().rposition(|m| m.who == Who::User).unwrap_or(m.len()) } else { m.len() };
            turns(&m[..end])
        });
        let settings = self.settings.get_untracked();
        let secrets = crate::secrets::collect(&settings);
        // A key pasted into the question is sent to the model, but never shown or stored.
        self.messages.update(|m| m.push(ChatMessage { who: Who::User, text: mask(&text, &secrets) }));
        if let Some(problem) = missing_setting(&settings) {
            self.messages.update(|m| m.push(ChatMessage { who: Who::Problem, text: problem }));
            return;
        }
        let answered = if waiting { Some((self.trace.get_untracked(), text.clone())) } else { None };
        if answered.is_none() {
            self.trace.set(Vec::new());
        }
        self.streaming.set(String::new());
        self.running.set(true);
        let token = CancelToken::new();
        self.cancel.set_value(Some(token.clone()));
        self.spawn_run(text, history, answered, settings, token);
    }

    pub fn stop(self) {
        if let Some(token) = self.cancel.get_value() {
            token.cancel();
        }
    }

    /// Ends a run with a chat message read from the run's own trace, masked like the events.
    fn finish(self, trace: &crate::agent::Trace, secrets: &Secrets) {
        let mut message = match (trace.final_answer(), trace.stop_reason()) {
            (Some(answer), _) => ChatMessage { who: Who::Assistant, text: answer.to_string() },
            (None, Some(crate::agent::StopReason::AskedPerson)) => {
                ChatMessage { who: Who::AskedPerson, text: trace.open_question().unwrap_or_default().to_string() }
            }
            (None, Some(reason)) => {
                // The most useful explanation is the last red event's own message.
                let detail = trace.events.iter().rev().find_map(|e| match &e.kind {
                    crate::agent::EventKind::LlmFailed { error } => Some(error.message.clone()),
                    _ => None,
                });
                ChatMessage { who: Who::Problem, text: detail.unwrap_or_else(|| reason.describe()) }
            }
            (None, None) => ChatMessage { who: Who::Problem, text: "The run ended without an answer.".into() },
        };
        message.text = mask(&message.text, secrets);
        self.messages.update(|m| m.push(message));
        self.running.set(false);
        self.cancel.set_value(None);
    }

    /// `answered`: the events shown so far and the person's answer to the question they ended with.
    #[cfg(target_arch = "wasm32")]
    fn spawn_run(self, text: String, history: Vec<Turn>, answered: Option<(Vec<Event>, String)>, settings: Settings, token: CancelToken) {
        leptos::task::spawn_local(async move {
            let offset = answered.as_ref().map_or(0, |(events, _)| events.len() as u32);
            let secrets = crate::secrets::collect(&settings);
            let observer = UiObserver { trace: self.trace, streaming: self.streaming, offset, secrets };
            let trace = match &answered {
                Some((earlier, answer)) => {
                    let question = crate::agent::trace::question(earlier).unwrap_or_default();
                    let answered = crate::agent::AnsweredQuestion { earlier, answer };
                    run_with(&settings, question, &history, Some(answered), &observer, &token).await
                }
                None => run_with(&settings, &text, &history, None, &observer, &token).await,
            };
            self.finish(&trace, &observer.secrets);
        });
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn spawn_run(self, _text: String, _history: Vec<Turn>, _answered: Option<(Vec<Event>, String)>, _settings: Settings, _token: CancelToken) {
        // Native builds have no fetch; the page is the only place runs happen.
        self.finish(&crate::agent::Trace::default(), &Secrets::default());
    }
}

/// Runs the agent once in the page with these settings: the provider and tools are built
/// here, events go to `observer`. Shared by the chat and by Compare.
#[cfg(target_arch = "wasm32")]
pub(super) async fn run_with(
    settings: &Settings,
    question: &str,
    history: &[Turn],
    answered: Option<crate::agent::AnsweredQuestion<'_>>,
    observer: &UiObserver,
    token: &CancelToken,
) -> crate::agent::Trace {
    use std::rc::Rc;

    use crate::agent::{run_agent, RunInput, Tool};
    use crate::browser::BrowserClock;
    use crate::llm::Provider;
    use crate::net::browser::BrowserFetch;
    let model = Provider::new(settings.provider.clone(), settings.connection.clone(), Rc::new(BrowserFetch), Rc::new(BrowserClock)).masking(&observer.secrets);
    let mut owned = crate::tools::build_tools(&settings.tools, Rc::new(BrowserFetch), Rc::new(BrowserClock));
    owned.extend(crate::tools::mcp::build_tools(&settings.tools.mcp, &super::mcp_settings::hub()));
    let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).collect();
    let mut agent = settings.agent.clone();
    // Settings say so beside the box; a request the API cannot take is never sent.
    agent.structured_output = settings.structured_output();
    let input = RunInput {
        question,
        history,
        model: &model,
        tools: &tools,
        settings: &agent,
        clock: &BrowserClock,
        cancel: token,
        answered,
    };
    run_agent(input, observer).await
}

#[cfg(test)]
mod tests;
