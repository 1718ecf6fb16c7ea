//! The run controller: runs of the agent into a conversation (`crate::conversation`), for the
//! chat and for Compare alike. It holds the live text of the model call in progress, whether a
//! run is going on and its `CancelToken`; it starts a run with the given settings and question
//! (memory from the conversation's earlier runs) or continues the run waiting for the person's
//! reply, records each event into that run, stops it, and ends it with an `Outcome` read from
//! the run's own trace. Every change is reported with what it asks of storage (`Save`): saving
//! is called, never inferred.
//!
//! The page keeps one copy of a run: its run in the conversation, masked on the way in. The
//! agent's own trace (unmasked, which the next prompt is built from) lives only while the run
//! does.
//!
//! Everything that needs a browser (spawning, the `Provider`, the tools' `fetch`, the clock) is
//! in `page` at the bottom of this file; the rest runs natively in the tests with a scripted
//! model.

// A native build (outside the tests) has no browser to run in, so it never drives a run.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use leptos::prelude::*;

use crate::agent::trace::question;
use crate::app::run::{Attachment, RunSession, Sent};
use crate::agent::{run_agent, AnsweredQuestion, ApprovalChoice, CancelToken, ChatModel, Clock, Event, EventKind, RunInput, RunObserver, Tool, Turn};
use crate::conversation::Outcome;
use crate::conversation::{outcome, Conversation, Save};
use crate::conversation::mask_event;
use crate::secrets::{mask, Secrets};
use crate::app::settings::Settings;

#[derive(Clone, Copy)]
pub struct RunControl {
    /// The conversation its runs belong to: a run's events are recorded into its run there,
    /// masked, as they happen (the one copy of them the page holds).
    pub chat: RwSignal<Conversation>,
    /// The text of the model call in progress, as it streams in (masked).
    pub streaming: RwSignal<String>,
    /// Whether this page runs a run now: mirrors `session` (`app::run`), the one answer.
    pub running: RwSignal<bool>,
    /// The run this page drives, what goes with the next question, what reached the collector.
    session: StoredValue<RunSession>,
    cancel: StoredValue<Option<CancelToken>, LocalStorage>,
    /// Told of every change a run makes to `chat` and what it asks of storage (the chat's
    /// saving; Compare stores nothing).
    on_change: Option<Callback<Save>>,
    /// The page's MCP servers, whose tools a run may use.
    mcp: crate::ui::services::mcp::Mcp,
    /// The model in the page, loaded by a run that uses it.
    in_page: super::in_page::InPage,
    /// A tool call of the run waiting for the person's approval (`approval::ApprovalPanel`).
    pub approval: crate::ui::services::approval::Pending,
    /// What the tool call in progress last said of how far it is (masked), until it ends.
    pub progress: RwSignal<String>,
    /// MCP resources attached to the next question (`chat::compose`): taken by the run it starts.
    /// Mirrors `session`; changed through `attach`.
    pub attached: RwSignal<Vec<Attachment>>,
    /// Finished runs sent to the OpenTelemetry collector, and how that went (mirrors `session`).
    pub sent: RwSignal<Vec<Sent>>,
}

/// What to run.
pub struct Start {
    pub settings: Settings,
    pub ask: Ask,
}

pub enum Ask {
    /// A new question: a new run of the conversation.
    Question(String),
    /// The person's answer to the question the latest run ended with: that run goes on, with
    /// its original question, after the events it holds.
    Answer(String),
    /// The branch just made in run `run` (`Conversation::fork`, its shown line): the agent
    /// goes on from its `Forked` event, with only the `tools` named when they are given.
    Branch { run: usize, tools: Option<Vec<String>> },
}

/// A run that has been set up (its run in the conversation made, the token made) and is about
/// to be driven.
pub struct Job {
    settings: Settings,
    /// The question as typed (unmasked: the model gets what the person wrote).
    question: String,
    /// For an answer to the agent's question: the person's reply.
    answer: Option<String>,
    /// The run of the conversation this is.
    run: usize,
    /// The events of the run this one continues (empty for a new question).
    earlier: Vec<Event>,
    /// `earlier` ends with a branch's `Forked` event, which the agent goes on from.
    fork: bool,
    /// The tools the run may use, by name; `None` for all the settings enable.
    pub only_tools: Option<Vec<String>>,
    /// Earlier turns of the conversation, as memory.
    history: Vec<Turn>,
    /// Every secret the settings hold: masked out of what reaches the conversation.
    secrets: Secrets,
    token: CancelToken,
    /// Resources the person attached to the question, read before the run starts.
    attachments: Vec<Attachment>,
    /// The documents the question is about, by name (an evaluation's case); empty: all.
    documents: Vec<String>,
}

/// The agent's settings as a run uses them: structured output only where the provider takes a
/// schema (Settings say so beside the box; a request the API cannot take is never sent).
fn agent_settings(settings: &Settings) -> crate::agent::AgentSettings {
    let mut agent = settings.agent.clone();
    agent.structured_output = settings.structured_output();
    agent
}

/// What a run talks to: in the page the provider, the enabled tools and the browser clock
/// (`page::launch`); in the tests a scripted model.
pub struct Env<'a> {
    pub model: &'a dyn ChatModel,
    pub tools: &'a [&'a dyn Tool],
    pub clock: &'a dyn Clock,
}

impl RunControl {
    pub fn new(chat: RwSignal<Conversation>, on_change: Option<Callback<Save>>, mcp: crate::ui::services::mcp::Mcp) -> Self {
        let in_page = super::in_page::InPage::from_context();
        RunControl {
            chat,
            streaming: RwSignal::new(String::new()),
            running: RwSignal::new(false),
            session: StoredValue::new(RunSession::default()),
            cancel: StoredValue::new_local(None),
            on_change,
            mcp,
            in_page,
            approval: RwSignal::new_local(None),
            progress: RwSignal::new(String::new()),
            attached: RwSignal::new(Vec::new()),
            sent: RwSignal::new(Vec::new()),
        }
    }

    /// A finished run goes to the collector named in Settings, once; how it went is shown on
    /// the run. Nothing waits for it: the chat goes on.
    fn send_finished(self, run: usize, collector: crate::otel::Collector, secrets: Secrets) {
        if !collector.is_on() {
            return;
        }
        let finished = |r: &crate::conversation::Run| r.shown_line().outcome.is_some_and(RunSession::finished_for_sending);
        // A branch goes as its own trace, linked to the step it was made from.
        let Some((chat, events, parent)) = self.chat.with_untracked(|c| {
            c.runs.get(run).filter(|r| finished(r)).map(|r| {
                let line = r.shown_line();
                let (events, parent) = crate::ui::services::otel::trace_of(r, line.number);
                (c.id.clone(), events, parent)
            })
        }) else { return };
        leptos::task::spawn_local(async move {
            let result = crate::ui::services::otel::send(chat.clone(), events, parent, secrets, collector).await;
            self.session.update_value(|s| s.sent(Sent { chat, run, result }));
            self.sent.set(self.session.with_value(|s| s.sent_list().to_vec()));
        });
    }

    /// Attaches a resource to the next question, or takes it off.
    pub fn attach(self, attachment: Attachment, on: bool) {
        self.session.update_value(|s| s.attach(attachment, on));
        self.attached.set(self.session.with_value(|s| s.attached().to_vec()));
    }

    fn changed(self, save: Save) {
        if let Some(on_change) = self.on_change {
            on_change.run(save);
        }
    }

    /// Starts a run: a new run of the conversation for a question, or the waiting run going on
    /// for an answer.
    pub fn start(self, start: Start) {
        self.start_about(start, Vec::new());
    }

    /// Starts a run whose `documents` tool searches only the documents named (none: all).
    pub fn start_about(self, start: Start, documents: Vec<String>) {
        if self.session.with_value(RunSession::running) {
            return;
        }
        let mut job = self.begin(start);
        job.documents = documents;
        page::launch(self, job);
    }

    /// Trips the run's token: the loop stops, and the request in flight is dropped (aborting
    /// its fetch).
    pub fn stop(self) {
        if let Some(token) = self.cancel.get_value() {
            token.cancel();
        }
    }

    /// The resources attached to the next question, as its run's record keeps them.
    fn attached_now(self) -> Vec<crate::conversation::Attached> {
        self.session.with_value(|s| s.attached().iter().map(|a| crate::conversation::Attached { name: a.name.clone(), uri: a.uri.clone(), server: a.server.clone() }).collect())
    }

    fn begin(self, start: Start) -> Job {
        let Start { settings, ask } = start;
        let secrets = crate::ui::services::secrets::collect(&settings);
        // A question becomes memory only with its answer, so one the agent is still asking
        // about is not part of it.
        let mut history = self.chat.with_untracked(Conversation::turns);
        let (mut fork, mut only_tools, mut branch) = (false, None, false);
        // What the person typed is sent to the model, but a key pasted into it is never shown
        // or stored.
        let (question, answer, run, earlier) = match ask {
            Ask::Branch { run, tools } => {
                // Remembered: the runs before this one only.
                history = self.chat.with_untracked(|c| c.turns_before(run));
                only_tools = tools;
                let (question, earlier) = self.chat.with_untracked(|c| {
                    c.runs.get(run).map(|r| {
                        let line = r.shown_line();
                        (line.question.to_string(), line.events.to_vec())
                    })
                }).unwrap_or_default();
                // A changed question is a new run of it, after its `Forked` event; any other
                // change goes on from that event.
                fork = !matches!(earlier.last().map(|e| &e.kind), Some(EventKind::Forked(f)) if matches!(f.change, crate::agent::fork::Change::Question { .. }));
                branch = true;
                let earlier = if fork { earlier } else { Vec::new() };
                (question, None, run, earlier)
            }
            Ask::Answer(answer) => {
                let mut run = None;
                let mut earlier = Vec::new();
                self.chat.update(|c| {
                    run = c.reply(mask(&answer, &secrets));
                    // Copied once: the agent reads these while new events are recorded.
                    earlier = run.map(|r| c.runs[r].shown_line().events.to_vec()).unwrap_or_default();
                });
                match run {
                    Some(run) => {
                        history = self.chat.with_untracked(|c| c.turns_before(run));
                        (question(&earlier).unwrap_or_default().to_string(), Some(answer), run, earlier)
                    }
                    // Nothing waits for an answer: it is a question of its own.
                    None => {
                        let attached = self.attached_now();
                        let run = self.chat.try_update(|c| c.ask_with(mask(&answer, &secrets), attached)).unwrap_or_default();
                        (answer, None, run, Vec::new())
                    }
                }
            }
            Ask::Question(text) => {
                // The resources attached to it are part of its run's record.
                let attached = self.attached_now();
                let run = self.chat.try_update(|c| c.ask_with(mask(&text, &secrets), attached)).unwrap_or_default();
                (text, None, run, Vec::new())
            }
        };
        // Its start as a step, for a run that ends before the agent records one.
        let started = EventKind::RunStarted {
            question: mask(&question, &secrets),
            tools: Vec::new(),
            history_turns: history.len(),
            started_unix_ms: page::unix_ms().round(),
            strategy: settings.agent.strategy,
            // A branch goes on within its run: it takes none of the resources attached to the
            // next question.
            continues: answer.is_some() || branch,
            model: crate::agent::ModelName { provider: settings.provider.preset.id().to_string(), model: mask(&settings.provider.model, &secrets) },
        };
        // Attachments go with a new question; a reply to the agent's question leaves them for
        // the next one (the run it continues keeps its question as it was).
        let holds = self.chat.with_untracked(|c| c.runs.get(run).map_or(0, |r| r.shown_line().events.len()));
        let attachments = self.session.try_update_value(|s| s.begin(run, holds, started).unwrap_or_default()).unwrap_or_default();
        self.attached.set(self.session.with_value(|s| s.attached().to_vec()));
        self.streaming.set(String::new());
        self.running.set(true);
        self.changed(Save::Now);
        let token = CancelToken::new();
        self.cancel.set_value(Some(token.clone()));
        Job { settings, question, answer, run, earlier, fork, only_tools, history, secrets, token, attachments, documents: Vec::new() }
    }

    async fn drive(self, job: Job, env: Env<'_>) -> Outcome {
        let Job { settings, question, answer, run, earlier, fork, history, secrets, token, .. } = job;
        let agent = agent_settings(&settings);
        let answered = answer.as_deref().map(|answer| AnsweredQuestion { earlier: &earlier, answer });
        let observer = Observer { control: self, run, secrets: &secrets, mcp: &settings.tools.mcp };
        let fork = fork.then_some(earlier.as_slice());
        let input = RunInput { question: &question, history: &history, model: env.model, tools: env.tools, settings: &agent, clock: env.clock, cancel: &token, answered, fork };
        run_agent(input, &observer).await;
        // Read from the run as the conversation holds it: masked on the way in, once.
        self.chat.with_untracked(|c| c.runs.get(run).map(|r| outcome(r.shown_line().events))).unwrap_or_else(|| outcome(&[]))
    }

    /// The run is over: its outcome goes into the conversation, which is saved at once. A run
    /// that ended before the agent recorded a step gets its start and its end as steps.
    fn end(self, run: usize, outcome: Outcome) {
        let events = self.chat.with_untracked(|c| c.runs.get(run).map_or(0, |r| r.shown_line().events.len()));
        let steps = self.session.try_update_value(|s| s.end(events, &outcome)).flatten().map(|(_, steps)| steps).unwrap_or_default();
        if !steps.is_empty() {
            self.chat.update(|c| {
                for kind in steps {
                    c.record(run, Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind });
                }
            });
        }
        let save = self.chat.try_update(|c| c.end(run, outcome)).unwrap_or(Save::No);
        self.running.set(false);
        self.cancel.set_value(None);
        self.changed(save);
    }
}

/// Records events into the conversation's run as they happen, masked; numbered there, after
/// the events the run already holds.
struct Observer<'a> {
    control: RunControl,
    run: usize,
    secrets: &'a Secrets,
    /// The MCP servers as this run's tools were built from them ("Always allow" finds its
    /// tool there).
    mcp: &'a crate::tools::mcp::McpSettings,
}

impl RunObserver for Observer<'_> {
    fn on_event(&self, event: &Event) {
        let clears = RunSession::clears(&event.kind);
        if clears.streaming {
            self.control.streaming.set(String::new());
        }
        if clears.progress {
            self.control.progress.set(String::new());
        }
        let mut event = event.clone();
        mask_event(&mut event, self.secrets);
        let save = self.control.chat.try_update(|c| c.record(self.run, event)).unwrap_or(Save::No);
        self.control.changed(save);
    }
    // Live text is masked piece by piece (a key split across two pieces shows until the reply
    // ends, when the masked reply event replaces the live box).
    fn on_delta(&self, _step: u32, delta: &str) {
        self.control.streaming.update(|s| s.push_str(&mask(delta, self.secrets)));
    }
    /// Shows the call in the approval panel and waits for the person's choice; "Always
    /// allow" also stops the tool asking in the settings. Stop drops this future, which closes
    /// the panel.
    fn approve<'a>(&'a self, tool: &'a dyn Tool, input: &'a serde_json::Value) -> crate::agent::LocalBoxFuture<'a, ApprovalChoice> {
        let reply = crate::ui::services::approval::Reply::default();
        // `{:#}`: serde_json's own indented form of a `Value`.
        let shown = format!("{input:#}");
        let asked = crate::ui::services::approval::Asked {
            tool: tool.name().to_string(),
            via: tool.origin().map(str::to_string),
            input: mask(&shown, self.secrets),
            reply: reply.clone(),
        };
        let pending = self.control.approval;
        pending.set(Some(asked));
        Box::pin(async move {
            struct Close(crate::ui::services::approval::Pending);
            impl Drop for Close {
                fn drop(&mut self) {
                    self.0.try_set(None);
                }
            }
            let _close = Close(pending);
            let choice = reply.await;
            if choice == ApprovalChoice::Always {
                self.control.mcp.allow_always(self.mcp, tool.name());
            }
            choice
        })
    }
    fn on_tool_view(&self, step: u32, _tool: &str, view: &serde_json::Value) {
        let chat = self.control.chat.with_untracked(|c| c.id.clone());
        crate::ui::services::views::shown(self.control.mcp, chat, self.run, step, view);
    }
    fn on_tool_progress(&self, _step: u32, tool: &str, text: &str) {
        self.control.progress.set(mask(&format!("{tool}: {text}"), self.secrets));
    }
    fn on_reasoning(&self, _step: u32, delta: &str) {
        // Shown in the live box, set apart from the reply; never parsed.
        self.control.streaming.update(|s| {
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

    use super::{Env, Job, Outcome, RunControl};
    use crate::agent::time::{race, Either};
    use crate::agent::{StopReason, Tool};
    use crate::browser::BrowserClock;
    use crate::llm::Provider;
    use crate::net::browser::BrowserFetch;
    use crate::secrets::Secrets;
    use crate::app::settings::Settings;

    pub fn unix_ms() -> f64 {
        crate::ui::services::page::now_ms()
    }

    /// The model client for these settings, masking every secret they hold out of its errors.
    /// The one place the page makes a `Provider` (runs and Test connection).
    pub fn provider(settings: &Settings, secrets: &Secrets) -> Provider {
        thread_local! {
            /// The endpoints that refused the usage field since the page opened.
            static REFUSALS: crate::llm::client::UsageRefusals = Default::default();
        }
        REFUSALS.with(|refusals| Provider::new(settings.provider.clone(), settings.connection.clone(), Rc::new(BrowserFetch), Rc::new(BrowserClock)).masking(secrets).remembering(refusals))
    }

    /// Starts the run. The engine (provider, tools, agent loop) is a part of its own
    /// (`parts`), fetched ahead of the first question (`preload_engine`); if it cannot be
    /// fetched the run ends saying so, and the next question tries again. Stop works while it
    /// is being fetched, too.
    pub fn launch(control: RunControl, job: Job) {
        leptos::task::spawn_local(async move {
            let token = job.token.clone();
            let run = job.run;
            let ended = match race(engine(control, job), token.cancelled()).await {
                // The agent's part ends the run itself, and sends it to the collector.
                Either::Left(Ok(running)) => return running.await,
                Either::Left(Err(missing)) => Outcome::Ended(missing.message("The agent")),
                Either::Right(()) => Outcome::Ended(StopReason::Cancelled.describe()),
            };
            control.end(run, ended);
        });
    }

    /// The question with the resources the person attached, each read now (bounded by its
    /// server's time limit) and given as context, marked as such; one that cannot be read is
    /// said in its place.
    async fn attach(question: &str, attachments: &[crate::app::run::Attachment], mcp: crate::ui::services::mcp::Mcp) -> String {
        use leptos::prelude::WithUntracked;
        let mut text = question.to_string();
        for a in attachments {
            let server = mcp.settings().with_untracked(|s| s.tools.mcp.servers.iter().find(|s| s.url.trim() == a.server).cloned());
            let Some(server) = server else { continue };
            let read = crate::ui::services::hub::within(&server, crate::ui::services::hub::hub(mcp).client(&server).read_resource(&a.uri)).await;
            text.push_str(&crate::tools::mcp::attached_context(&a.name, &a.uri, &server.display_url(), read));
        }
        text
    }

    /// The tools the settings enable, the page's MCP servers' included.
    pub fn tools(settings: &Settings, mcp: crate::ui::services::mcp::Mcp) -> Vec<Box<dyn Tool>> {
        let mut owned = crate::tools::build_tools(&settings.tools, Rc::new(BrowserFetch), Rc::new(BrowserClock));
        owned.extend(crate::tools::mcp::build_tools(&settings.tools.mcp, &crate::ui::services::hub::hub(mcp)));
        owned
    }

    crate::ui::services::parts::part!(run, preload = preload_engine, pub fn engine(control: RunControl, job: Job) -> Pin<Box<dyn Future<Output = ()>>> {
        Box::pin(async move {
            let (run, collector, secrets) = (job.run, job.settings.collector.clone(), job.secrets.clone());
            let outcome = run_agent_here(control, job).await;
            control.end(run, outcome);
            control.send_finished(run, collector, secrets);
        })
    });

    /// The run itself: the model (the one in the page loaded first), the tools, the attached
    /// resources read, then the agent's loop.
    async fn run_agent_here(control: RunControl, job: Job) -> Outcome {
        {
            let settings = &job.settings;
            // The model in the page is loaded (or found loaded) first; the live row says so.
            let in_page = settings.provider.preset.in_page();
            if in_page {
                if let Err(why) = crate::ui::services::in_page::prepare(control.in_page, settings).await {
                    return Outcome::Ended(why);
                }
            }
            let (http, local);
            let model: &dyn crate::agent::ChatModel = if in_page {
                local = crate::llm::in_page::InPage::new(crate::in_page::browser::BrowserEngine).named(&settings.provider.model);
                &local
            } else {
                http = provider(settings, &job.secrets);
                &http
            };
            let mut owned = tools(settings, control.mcp);
            // Python, with an interpreter of this run's own (ended when the tools are dropped).
            if settings.tools.python.common.enabled {
                let session = crate::ui::services::python::session(settings.tools.python.common.timeout_s, settings.tools.python.install());
                owned.push(Box::new(crate::tools::python::Python::new(session, settings.tools.python.clone())));
            }
            // The person's documents, when this browser has any.
            match crate::ui::services::documents::shelf_for_run().await {
                Some(shelf) => {
                    let embedder = crate::ui::services::documents::embedder(settings);
                    match crate::tools::documents::Documents::new(shelf, settings.connection.context_tokens) {
                        Some(tool) => match tool.by_meaning(embedder).about(&job.documents) {
                            Ok(tool) => owned.push(Box::new(tool)),
                            Err(why) => return Outcome::Ended(why),
                        },
                        None if !job.documents.is_empty() => {
                            return Outcome::Ended(format!("This question is about {}, but none of your documents is ready to search: add them under ▤ Documents.", job.documents.join(", ")));
                        }
                        None => {}
                    }
                }
                None if !job.documents.is_empty() => {
                    return Outcome::Ended(format!("This question is about {}, but this browser has no documents: add them under ▤ Documents.", job.documents.join(", ")));
                }
                None => {}
            }
            // A branch run with the run's own settings uses the tools that run had.
            let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).filter(|t| job.only_tools.as_ref().is_none_or(|names| names.iter().any(|n| n == t.name()))).collect();
            let mut job = job;
            if !job.attachments.is_empty() {
                job.question = attach(&job.question, &job.attachments, control.mcp).await;
            }
            // What the chat's tool views last told the model (MCP Apps' context updates).
            let chat = leptos::prelude::WithUntracked::with_untracked(&control.chat, |c| c.id.clone());
            for (tool, told) in leptos::prelude::WithUntracked::with_untracked(&crate::ui::services::views::views(), |v| v.context(&chat)) {
                job.question.push_str(&format!("\n\n(The view of {tool} says: {told})"));
            }
            control.drive(job, Env { model, tools: &tools, clock: &BrowserClock }).await
        }
    }
}

// Readies the model in the page ahead of the first question: loads it if this browser keeps it
// (`only_if_kept`: never a download nobody asked for) or always (Settings → Load), then has it
// read the agent's system prompt, so a question starts from that prefix. A part of its own,
// fetched only by someone who uses the model in the page.
#[cfg(target_arch = "wasm32")]
crate::ui::services::parts::part!(in_page_warm, preload = preload_in_page_warm, pub fn warm_in_page(handle: super::in_page::InPage, settings: Settings, mcp: crate::ui::services::mcp::Mcp, only_if_kept: bool) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
    Box::pin(async move {
        use crate::in_page::browser;
        let url = settings.provider.model.trim().to_string();
        if only_if_kept {
            let kept = browser::cached_models().await.unwrap_or_default();
            if !kept.iter().any(|(kept_url, _, _)| *kept_url == url) {
                return;
            }
        }
        if super::in_page::prepare(handle, &settings).await.is_err() {
            return;
        }
        let mut owned = page::tools(&settings, mcp);
        // Python and the documents tool as a run will offer them, so the prompt read ahead is
        // the run's (a session starts no interpreter until code is run).
        if settings.tools.python.common.enabled {
            owned.push(Box::new(crate::tools::python::Python::new(crate::ui::services::python::session(settings.tools.python.common.timeout_s, settings.tools.python.install()), settings.tools.python.clone())));
        }
        if let Some(shelf) = crate::ui::services::documents::shelf_for_run().await {
            owned.extend(crate::tools::documents::Documents::new(shelf, settings.connection.context_tokens).map(|t| Box::new(t) as Box<dyn Tool>));
        }
        let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).collect();
        let agent = agent_settings(&settings);
        let system = crate::agent::prompt::system_prompt(&agent, agent.strategy, settings.uses_structured_output(), &tools);
        let _ = browser::warm(&[("system", system)]).await;
    })
});

/// Native builds (tests) have no fetch: a run started there ends at once, saying so.
#[cfg(not(target_arch = "wasm32"))]
mod page {
    use super::{Job, Outcome, RunControl};

    pub fn unix_ms() -> f64 {
        0.0
    }

    /// Without the split there is no engine part to fetch.
    pub async fn preload_engine() -> Result<(), crate::ui::services::parts::PartMissing> {
        Ok(())
    }

    pub fn launch(control: RunControl, job: Job) {
        control.end(job.run, Outcome::Ended("Running the agent needs a browser.".into()));
    }
}

#[cfg(target_arch = "wasm32")]
pub use page::provider;
pub use page::preload_engine;

/// Fetches the part that readies the model in the page (`warm_in_page`) without calling it.
pub async fn preload_warm() -> Result<(), super::parts::PartMissing> {
    #[cfg(target_arch = "wasm32")]
    return preload_in_page_warm().await;
    #[cfg(not(target_arch = "wasm32"))]
    Ok(())
}

#[cfg(test)]
mod tests;
