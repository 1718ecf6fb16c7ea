//! One conversation's runs: takes a question from the chat, runs the agent with the current
//! settings, and feeds events and streamed text into the signals the panes render. Stop trips
//! the run's `CancelToken`, which drops the in-flight request (aborting its fetch).

use leptos::prelude::*;

use crate::agent::{CancelToken, Event, RunObserver, Turn};
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

/// Pushes events into the trace signal as they happen.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct UiObserver {
    trace: RwSignal<Vec<Event>>,
    streaming: RwSignal<String>,
}

impl RunObserver for UiObserver {
    fn on_event(&self, event: &Event) {
        if matches!(event.kind, crate::agent::EventKind::LlmRequest { .. }) {
            self.streaming.set(String::new());
        }
        self.trace.update(|t| t.push(event.clone()));
    }
    fn on_delta(&self, _step: u32, delta: &str) {
        self.streaming.update(|s| s.push_str(delta));
    }
    fn on_reasoning(&self, _step: u32, delta: &str) {
        // Shown in the live box, set apart from the reply; never parsed.
        self.streaming.update(|s| {
            if s.is_empty() {
                s.push_str("(thinking) ");
            }
            s.push_str(delta)
        });
    }
}

/// Earlier question/answer pairs of the conversation, for memory.
pub fn turns(messages: &[ChatMessage]) -> Vec<Turn> {
    messages
        .windows(2)
        .filter(|w| w[0].who == Who::User && w[1].who == Who::Assistant)
        .map(|w| Turn { question: w[0].text.clone(), answer: w[1].text.clone() })
        .collect()
}

/// What must be set before a run can start, as a sentence naming the setting.
pub fn missing_setting(settings: &Settings) -> Option<&'static str> {
    let p = &settings.provider;
    if p.base_url.trim().is_empty() {
        Some("Set the provider's base URL in Settings (⚙) first.")
    } else if p.model.trim().is_empty() {
        Some("Set the model name in Settings (⚙) first.")
    } else if p.preset.needs_key() && p.api_key.trim().is_empty() {
        Some("Add your API key in Settings (⚙) first. It stays in this browser and is sent only to the provider.")
    } else {
        None
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

    pub fn ask(self, question: String) {
        let history = self.messages.with_untracked(|m| turns(m));
        self.messages.update(|m| m.push(ChatMessage { who: Who::User, text: question.clone() }));
        let settings = self.settings.get_untracked();
        if let Some(problem) = missing_setting(&settings) {
            self.messages.update(|m| m.push(ChatMessage { who: Who::Problem, text: problem.into() }));
            return;
        }
        self.trace.set(Vec::new());
        self.streaming.set(String::new());
        self.running.set(true);
        let token = CancelToken::new();
        self.cancel.set_value(Some(token.clone()));
        self.spawn_run(question, history, settings, token);
    }

    /// Shows an exported run: its trace, and its question and answer in the chat.
    pub fn show_imported(self, run: crate::storage::ExportedRun) {
        if self.running.get_untracked() {
            return;
        }
        let mut shown = vec![ChatMessage { who: Who::User, text: run.question }];
        shown.push(match run.answer {
            Some(answer) => ChatMessage { who: Who::Assistant, text: answer },
            None => ChatMessage {
                who: Who::Problem,
                text: run.trace.stop_reason().map(|r| r.describe()).unwrap_or_else(|| "This run ended without an answer.".into()),
            },
        });
        self.messages.set(shown);
        self.trace.set(run.trace.events);
    }

    pub fn stop(self) {
        if let Some(token) = self.cancel.get_value() {
            token.cancel();
        }
    }

    fn finish(self, trace: &crate::agent::Trace) {
        let message = match (trace.final_answer(), trace.stop_reason()) {
            (Some(answer), _) => ChatMessage { who: Who::Assistant, text: answer.to_string() },
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
        self.messages.update(|m| m.push(message));
        self.running.set(false);
        self.cancel.set_value(None);
    }

    #[cfg(target_arch = "wasm32")]
    fn spawn_run(self, question: String, history: Vec<Turn>, settings: Settings, token: CancelToken) {
        use std::rc::Rc;

        use crate::agent::{run_agent, RunInput, Tool};
        use crate::browser::BrowserClock;
        use crate::llm::Provider;
        use crate::net::browser::BrowserFetch;
        leptos::task::spawn_local(async move {
            let model = Provider::new(settings.provider.clone(), settings.connection.clone(), Rc::new(BrowserClock));
            let owned = crate::tools::build_tools(&settings.tools, Rc::new(BrowserFetch), Rc::new(BrowserClock));
            let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).collect();
            let observer = UiObserver { trace: self.trace, streaming: self.streaming };
            let input = RunInput {
                question: &question,
                history: &history,
                model: &model,
                tools: &tools,
                settings: &settings.agent,
                clock: &BrowserClock,
                cancel: &token,
            };
            let trace = run_agent(input, &observer).await;
            self.finish(&trace);
        });
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn spawn_run(self, _question: String, _history: Vec<Turn>, _settings: Settings, _token: CancelToken) {
        // Native builds have no fetch; the page is the only place runs happen.
        self.finish(&crate::agent::Trace::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(who: Who, text: &str) -> ChatMessage {
        ChatMessage { who, text: text.into() }
    }

    #[test]
    fn turns_pair_questions_with_answers_and_skip_problems() {
        let m = [msg(Who::User, "q1"), msg(Who::Assistant, "a1"), msg(Who::User, "q2"), msg(Who::Problem, "no key"), msg(Who::User, "q3"), msg(Who::Assistant, "a3")];
        assert_eq!(turns(&m), vec![Turn { question: "q1".into(), answer: "a1".into() }, Turn { question: "q3".into(), answer: "a3".into() }]);
    }

    #[test]
    fn missing_key_is_reported_only_for_hosted_providers() {
        let mut s = Settings::default();
        assert!(missing_setting(&s).unwrap().contains("API key"));
        s.provider.preset = crate::llm::Preset::Ollama;
        assert_eq!(missing_setting(&s), None);
        s.provider.model.clear();
        assert!(missing_setting(&s).unwrap().contains("model"));
    }
}
