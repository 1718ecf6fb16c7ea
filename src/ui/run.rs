//! The run controller: one run of the agent as the page holds it, for the chat and for Compare
//! alike. It owns the run's signals (the events shown, the live text of the model call in
//! progress, whether it is running) and its `CancelToken`; it starts a run with the given
//! settings, question, memory and (for a reply to the agent's question) the run it continues,
//! stops it, and ends it with an `Outcome` read from the run's own trace.
//!
//! The page keeps one copy of a run: the `trace` signal, masked on the way in. The agent's own
//! trace (unmasked, which the next prompt is built from) lives only while the run does.
//!
//! Everything that needs a browser (spawning, the `Provider`, the tools' `fetch`, the clock) is
//! in `page` at the bottom of this file; the rest runs natively in the tests with a scripted
//! model.

// A native build (outside the tests) has no browser to run in, so it never drives a run.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use leptos::prelude::*;

use crate::agent::trace::{open_question, question};
use crate::agent::{run_agent, CancelToken, ChatModel, Clock, Event, EventKind, AnsweredQuestion, RunInput, RunObserver, StopReason, Tool, Turn};
use crate::secrets::{mask, mask_event, Secrets};
use crate::storage::Settings;

#[derive(Clone, Copy)]
pub struct RunControl {
    /// The run shown: its events, masked. A run that continues one which asked the person a
    /// question is appended after that run's events, renumbered, so the pane shows one story.
    pub trace: RwSignal<Vec<Event>>,
    /// The text of the model call in progress, as it streams in (masked).
    pub streaming: RwSignal<String>,
    pub running: RwSignal<bool>,
    cancel: StoredValue<Option<CancelToken>, LocalStorage>,
}

/// What to run.
pub struct Start {
    pub settings: Settings,
    pub ask: Ask,
    /// Earlier turns of the conversation, as memory.
    pub history: Vec<Turn>,
}

pub enum Ask {
    /// A new question: the shown run is replaced.
    Question(String),
    /// The person's answer to the question the shown run ended with: that run goes on, with its
    /// original question, after the events already shown.
    Answer(String),
}

/// How a run ended, read from its trace.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer(String),
    /// The agent asked the person something; their next message is the reply.
    Asks(String),
    /// The run ended without an answer: why, in words a person can act on.
    Ended(String),
}

impl Outcome {
    fn text_mut(&mut self) -> &mut String {
        match self {
            Outcome::Answer(text) | Outcome::Asks(text) | Outcome::Ended(text) => text,
        }
    }
}

/// The outcome of the run whose events these are.
pub fn outcome(events: &[Event]) -> Outcome {
    match (crate::agent::trace::final_answer(events), crate::agent::trace::stop_reason(events)) {
        (Some(answer), _) => Outcome::Answer(answer.to_string()),
        (None, Some(StopReason::AskedPerson)) => Outcome::Asks(open_question(events).unwrap_or_default().to_string()),
        (None, Some(reason)) => {
            // The most useful explanation is the last failed model call's own message.
            let detail = events.iter().rev().find_map(|e| match &e.kind {
                EventKind::LlmFailed { error } => Some(error.message.clone()),
                _ => None,
            });
            Outcome::Ended(detail.unwrap_or_else(|| reason.describe()))
        }
        (None, None) => Outcome::Ended("The run ended without an answer.".into()),
    }
}

/// What to do with the outcome; called while `running` is still set.
type OnEnd = Box<dyn FnOnce(Outcome)>;

/// A run that has been set up (signals reset, token made) and is about to be driven.
pub(super) struct Job {
    start: Start,
    /// The events of the run this one continues (empty for a new question).
    earlier: Vec<Event>,
    /// Every secret the settings hold: masked out of what reaches the signals.
    secrets: Secrets,
    token: CancelToken,
}

/// What a run talks to: in the page the provider, the enabled tools and the browser clock
/// (`page::launch`); in the tests a scripted model.
pub(super) struct Env<'a> {
    pub model: &'a dyn ChatModel,
    pub tools: &'a [&'a dyn Tool],
    pub clock: &'a dyn Clock,
}

impl RunControl {
    pub fn new() -> Self {
        RunControl {
            trace: RwSignal::new(Vec::new()),
            streaming: RwSignal::new(String::new()),
            running: RwSignal::new(false),
            cancel: StoredValue::new_local(None),
        }
    }

    /// Starts a run; `on_end` gets its outcome (masked) while `running` is still set, so what it
    /// changes is saved together with the end of the run.
    pub fn start(self, start: Start, on_end: impl FnOnce(Outcome) + 'static) {
        let job = self.begin(start);
        // Boxed: one compiled copy of the run for every caller.
        page::launch(self, job, Box::new(on_end));
    }

    /// Trips the run's token: the loop stops, and the request in flight is dropped (aborting
    /// its fetch).
    pub fn stop(self) {
        if let Some(token) = self.cancel.get_value() {
            token.cancel();
        }
    }

    fn begin(self, start: Start) -> Job {
        let earlier = match start.ask {
            // Copied once: the agent reads these while new events are pushed into the signal.
            Ask::Answer(_) => self.trace.get_untracked(),
            Ask::Question(_) => {
                self.trace.set(Vec::new());
                Vec::new()
            }
        };
        self.streaming.set(String::new());
        self.running.set(true);
        let token = CancelToken::new();
        self.cancel.set_value(Some(token.clone()));
        let secrets = crate::secrets::collect(&start.settings);
        Job { start, earlier, secrets, token }
    }

    async fn drive(self, job: Job, env: Env<'_>) -> Outcome {
        let Job { start, earlier, secrets, token } = job;
        let mut agent = start.settings.agent.clone();
        // Settings say so beside the box; a request the API cannot take is never sent.
        agent.structured_output = start.settings.structured_output();
        let (question, answered) = match &start.ask {
            Ask::Question(text) => (text.as_str(), None),
            Ask::Answer(answer) => (question(&earlier).unwrap_or_default(), Some(AnsweredQuestion { earlier: &earlier, answer })),
        };
        let observer = Observer { trace: self.trace, streaming: self.streaming, offset: earlier.len() as u32, secrets: &secrets };
        let input = RunInput {
            question,
            history: &start.history,
            model: env.model,
            tools: env.tools,
            settings: &agent,
            clock: env.clock,
            cancel: &token,
            answered,
        };
        let trace = run_agent(input, &observer).await;
        let mut end = outcome(&trace.events);
        let text = end.text_mut();
        *text = mask(text, &secrets);
        end
    }

    fn end(self, outcome: Outcome, on_end: OnEnd) {
        on_end(outcome);
        self.running.set(false);
        self.cancel.set_value(None);
    }
}

/// Pushes events into the trace signal as they happen, masked and numbered after the events
/// already shown.
struct Observer<'a> {
    trace: RwSignal<Vec<Event>>,
    streaming: RwSignal<String>,
    /// Added to each event's index: the number of events already shown.
    offset: u32,
    secrets: &'a Secrets,
}

impl RunObserver for Observer<'_> {
    fn on_event(&self, event: &Event) {
        if matches!(event.kind, EventKind::LlmRequest { .. }) {
            self.streaming.set(String::new());
        }
        let mut event = event.clone();
        event.index += self.offset;
        mask_event(&mut event, self.secrets);
        self.trace.update(|t| t.push(event));
    }
    // Live text is masked piece by piece (a key split across two pieces shows until the reply
    // ends, when the masked reply event replaces the live box).
    fn on_delta(&self, _step: u32, delta: &str) {
        self.streaming.update(|s| s.push_str(&mask(delta, self.secrets)));
    }
    fn on_reasoning(&self, _step: u32, delta: &str) {
        // Shown in the live box, set apart from the reply; never parsed.
        self.streaming.update(|s| {
            if s.is_empty() {
                s.push_str("(thinking) ");
            }
            s.push_str(&mask(delta, self.secrets))
        });
    }
}

/// The browser side of a run.
#[cfg(target_arch = "wasm32")]
mod page {
    use std::future::Future;
    use std::pin::Pin;
    use std::rc::Rc;

    use super::{Env, Job, OnEnd, Outcome, RunControl};
    use crate::agent::time::{race, Either};
    use crate::agent::{StopReason, Tool};
    use crate::browser::BrowserClock;
    use crate::llm::Provider;
    use crate::net::browser::BrowserFetch;
    use crate::secrets::Secrets;
    use crate::storage::Settings;

    /// The model client for these settings, masking every secret they hold out of its errors.
    /// The one place the page makes a `Provider` (runs and Test connection).
    pub fn provider(settings: &Settings, secrets: &Secrets) -> Provider {
        Provider::new(settings.provider.clone(), settings.connection.clone(), Rc::new(BrowserFetch), Rc::new(BrowserClock)).masking(secrets)
    }

    /// Starts the run. The engine (provider, tools, agent loop) is a part of its own
    /// (`parts`), fetched ahead of the first question (`preload_engine`); if it cannot be
    /// fetched the run ends saying so, and the next question tries again. Stop works while it
    /// is being fetched, too.
    pub fn launch(control: RunControl, job: Job, on_end: OnEnd) {
        leptos::task::spawn_local(async move {
            let token = job.token.clone();
            let outcome = match race(engine(control, job), token.cancelled()).await {
                Either::Left(Ok(run)) => run.await,
                Either::Left(Err(missing)) => Outcome::Ended(missing.message("The agent")),
                Either::Right(()) => Outcome::Ended(StopReason::Cancelled.describe()),
            };
            control.end(outcome, on_end);
        });
    }

    crate::ui::parts::part!(run, preload = preload_engine, pub(in crate::ui) fn engine(control: RunControl, job: Job) -> Pin<Box<dyn Future<Output = Outcome>>> {
        Box::pin(async move {
            let settings = &job.start.settings;
            let model = provider(settings, &job.secrets);
            let mut owned = crate::tools::build_tools(&settings.tools, Rc::new(BrowserFetch), Rc::new(BrowserClock));
            owned.extend(crate::tools::mcp::build_tools(&settings.tools.mcp, &crate::ui::mcp_settings::hub()));
            let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).collect();
            control.drive(job, Env { model: &model, tools: &tools, clock: &BrowserClock }).await
        })
    });
}

/// Native builds (tests) have no fetch: a run started there ends at once, saying so.
#[cfg(not(target_arch = "wasm32"))]
mod page {
    use super::{Job, OnEnd, Outcome, RunControl};

    pub fn launch(control: RunControl, _job: Job, on_end: OnEnd) {
        control.end(Outcome::Ended("Running the agent needs a browser.".into()), on_end);
    }
}

#[cfg(target_arch = "wasm32")]
pub(super) use page::{preload_engine, provider};

#[cfg(test)]
mod tests;
