//! The ReAct loop, once, async only. It reads top to bottom: build the request from the trace,
//! call the model, parse the reply, run a tool or finish, record every step as an event, and
//! check for Stop and the limits. Everything it learns goes into the trace; nothing else is kept.
//!
//! Whose fault is it? Model mistakes (unparseable reply, unknown tool, repeated action, a tool
//! error when the settings allow) become observations the model sees next step. Environment
//! faults (the model call failed, Stop) end the run.
//!
//! This file is the loop and its state; each job it does sits beside it: `model.rs` (asking
//! the model), `read.rs` (reading a reply), `act.rs` (a tool call and its approval),
//! `guard.rs` (waiting with Stop and the time limits).

use std::cell::{Cell, RefCell};

use serde_json::Value;

use super::model::{ChatModel, ChatRequest, ChatResponse, LlmError, LlmErrorKind, Progress};
use super::parse::{cut_at_observation, is_final_name, parse_reply, resolve_tool, ParseError, Parsed, Reply};
use super::plan::{parse_sections, Section};
use super::prompt::{tool_names, Prompt, PromptInput, Turn, ASK_PERSON};
use super::request_record::RequestRecord;
use super::settings::{AgentSettings, EarlyStopping, Strategy};
use super::time::{race, CancelToken, Clock, Either};
use super::tool::{input_as_text, Tool, ToolContext};
use super::scope::{read_verdict, scope_request, SCOPE_TIMEOUT_MS};
use super::settings::DEFAULT_DECLINE;
use super::trace::{AnswerSource, ApprovalChoice, Decision, Event, EventKind, LlmPurpose, ScopeVerdict, StopReason, Trace};
use super::fork::Change;
use super::LocalBoxFuture;

mod act;
mod guard;
mod model;
mod read;

use guard::{guarded, guarded_quiet, Guarded};
use model::{call_model, cut_reply, response_event, to_micros};

/// Receives events as they happen, for a live view. Every method has a no-op default.
pub trait RunObserver {
    fn on_event(&self, _event: &Event) {}
    /// Streamed text of the model call in progress in `step`.
    fn on_delta(&self, _step: u32, _delta: &str) {}
    /// Streamed reasoning (some models think aloud before replying) of the call in `step`.
    fn on_reasoning(&self, _step: u32, _delta: &str) {}
    /// The tool call in progress in `step` said how far it is (`ToolContext::progress`).
    fn on_tool_progress(&self, _step: u32, _tool: &str, _text: &str) {}
    /// A tool call's result comes with a view (an MCP App's), to show beside the run's answer.
    fn on_tool_view(&self, _step: u32, _tool: &str, _view: &Value) {}
    /// Asks the person whether `tool` (which `needs_approval`) may be called with `input`.
    /// Whoever cannot ask anyone denies: a call that needs approval is never made unasked.
    /// The run drops the future when it is stopped.
    fn approve<'a>(&'a self, _tool: &'a dyn Tool, _input: &'a Value) -> LocalBoxFuture<'a, ApprovalChoice> {
        Box::pin(async { ApprovalChoice::Denied })
    }
}

impl RunObserver for () {}

/// What one run needs. Borrowed so the caller keeps ownership of model, tools and settings.
pub struct RunInput<'a> {
    pub question: &'a str,
    pub history: &'a [Turn],
    pub model: &'a dyn ChatModel,
    pub tools: &'a [&'a dyn Tool],
    pub settings: &'a AgentSettings,
    pub clock: &'a dyn Clock,
    pub cancel: &'a CancelToken,
    /// Set when this run continues one that ended with a question to the person.
    pub answered: Option<AnsweredQuestion<'a>>,
    /// Set for a branch of a run (`agent::fork`): its events so far, the steps it shares with
    /// the run it came from, then its `Forked` event. The loop goes on from that event: reads
    /// a changed reply as the model's, makes a changed tool call, asks the step again, or
    /// asks for the next step after a changed observation. Limits count from there.
    pub fork: Option<&'a [Event]>,
}

/// Where a branch goes on (`RunInput::fork`).
enum Resume {
    /// Read this reply as the model's answer to the step's request.
    Reply(String),
    /// Make this tool call (asking for approval where the tool says so).
    Call { tool: String, input: Value },
}

/// The step a branch goes on in (its first step is that one again, or the next), and what it
/// does first.
fn resume_of(fork: &[Event]) -> (u32, Option<Resume>) {
    let Some(Event { step, kind: EventKind::Forked(fork), .. }) = fork.last() else { return (fork.iter().map(|e| e.step).max().unwrap_or(0), None) };
    let again = step.saturating_sub(1);
    match &fork.change {
        Change::Reply { text } => (again, Some(Resume::Reply(text.clone()))),
        Change::ToolInput { tool, input } => (again, Some(Resume::Call { tool: tool.clone(), input: input.clone() })),
        Change::AskAgain => (again, None),
        Change::Observation { .. } | Change::Question { .. } => (*step, None),
    }
}

/// The person's answer to the question an earlier run ended with. That run's events stay part
/// of what the model sees; `RunInput::question` is still the original question.
pub struct AnsweredQuestion<'a> {
    pub earlier: &'a [Event],
    pub answer: &'a str,
}

/// Appends events with timestamps and tells the observer. Interior mutability lets tool
/// contexts record their own model calls while the loop holds a shared borrow.
struct Recorder<'a> {
    trace: RefCell<Trace>,
    observer: &'a dyn RunObserver,
    clock: &'a dyn Clock,
    t0: f64,
}

impl Recorder<'_> {
    /// Milliseconds since the run started, to the microsecond: finer is noise, and short
    /// decimals survive a JSON round trip exactly.
    fn now(&self) -> f64 {
        to_micros(self.clock.now_ms() - self.t0)
    }

    /// Records an event that started at `started` (ms since the run began) and ends now.
    fn record(&self, step: u32, started: f64, kind: EventKind) {
        let ended_ms = self.now();
        {
            let mut trace = self.trace.borrow_mut();
            let index = trace.events.len() as u32;
            trace.events.push(Event { index, step, started_ms: started, ended_ms, kind });
        }
        // The observer gets a reference to the stored event: no copy on the hot path.
        if let Some(event) = self.trace.borrow().events.last() {
            self.observer.on_event(event);
        }
    }

    /// Where the next event will be in the trace.
    fn position(&self) -> usize {
        self.trace.borrow().events.len()
    }

    fn stop(&self, step: u32, reason: StopReason) {
        let message = reason.describe();
        self.record(step, self.now(), EventKind::RunStopped { reason, message });
    }
}

/// What the loop does after a step.
enum Flow {
    /// Go on with the next step.
    Next,
    /// The run has ended and its last event is recorded.
    Done,
    /// A limit was reached without an answer (early stopping applies).
    Limit(StopReason),
    /// The step did not count (the strategy fell back); ask again.
    Again,
}

/// The state of one run. Counters sit in cells so tool contexts can borrow the run while a
/// step is in progress.
struct Run<'a, 'r> {
    rec: Recorder<'r>,
    input: &'r RunInput<'a>,
    names: Vec<&'r str>,
    strategy: Cell<Strategy>,
    /// The request of the last step, extended by the next one (`None` before the first).
    prompt: RefCell<Option<Prompt>>,
    step: Cell<u32>,
    parse_failures: Cell<u32>,
    /// The last action that ran and how many times in a row it was asked for.
    last_action: RefCell<Option<(String, Value)>>,
    repeats: Cell<u32>,
    /// Tools the person allowed for the rest of this run ("Always allow").
    allowed: RefCell<Vec<String>>,
}

/// Runs the agent on one question and returns the complete trace.
pub async fn run_agent(input: RunInput<'_>, observer: &dyn RunObserver) -> Trace {
    let settings = input.settings;
    let rec = Recorder { trace: RefCell::new(Trace::default()), observer, clock: input.clock, t0: input.clock.now_ms() };
    // A continued run numbers its steps after the run it continues: one story, one count. The
    // step limit applies to this run's own steps.
    // Bounded: the earlier events may come from an imported file claiming any step number, and
    // counting on from there must neither overflow nor pin the count so the limit never hits.
    let (first_step, mut resume) = match (&input.answered, input.fork) {
        (Some(r), _) => (r.earlier.iter().map(|e| e.step).max().unwrap_or(0), None),
        (None, Some(fork)) => resume_of(fork),
        (None, None) => (0, None),
    };
    let first_step = first_step.min(u32::MAX / 2);
    let run = Run {
        rec,
        input: &input,
        names: tool_names(input.tools, settings),
        strategy: Cell::new(settings.strategy),
        prompt: RefCell::new(None),
        step: Cell::new(first_step),
        parse_failures: Cell::new(0),
        last_action: RefCell::new(None),
        repeats: Cell::new(0),
        allowed: RefCell::new(Vec::new()),
    };
    run.rec.record(
        0,
        0.0,
        EventKind::RunStarted {
            question: input.question.to_string(),
            tools: input.tools.iter().map(|t| t.name().to_string()).collect(),
            history_turns: input.history.len(),
            started_unix_ms: input.clock.unix_ms().round(),
            strategy: settings.strategy,
            continues: input.answered.is_some() || input.fork.is_some(),
            model: input.model.name(),
        },
    );
    if let Some(answered) = &input.answered {
        run.rec.record(first_step, 0.0, EventKind::PersonAnswered { answer: answered.answer.to_string() });
    }
    // A new question goes through the scope gate first, when the settings give a scope; the
    // person's reply to the agent's question continues a run that already passed it.
    if input.answered.is_none() && input.fork.is_none() && !settings.scope.trim().is_empty() && run.check_scope().await {
        return run.rec.trace.into_inner();
    }

    let limit_hit = loop {
        if input.cancel.is_cancelled() {
            run.rec.stop(run.step.get(), StopReason::Cancelled);
            return run.rec.trace.into_inner();
        }
        if run.step.get().saturating_sub(first_step) >= settings.max_iterations {
            break StopReason::MaxIterations { limit: settings.max_iterations };
        }
        if run.run_left() == Some(0.0) {
            break StopReason::MaxTime { limit_ms: settings.max_time_ms.unwrap_or(0.0) };
        }
        run.step.set(run.step.get().saturating_add(1));
        let flow = match resume.take() {
            None => run.think().await,
            Some(Resume::Reply(text)) => run.understand(run.step.get(), ChatResponse { text, ..ChatResponse::default() }).await,
            Some(Resume::Call { tool, input }) => run.act(run.step.get(), tool, input).await,
        };
        match flow {
            Flow::Next => {}
            Flow::Again => run.step.set(run.step.get().saturating_sub(1)),
            Flow::Done => return run.rec.trace.into_inner(),
            Flow::Limit(reason) => break reason,
        }
    };
    run.finish_at_limit(limit_hit).await;
    run.rec.trace.into_inner()
}

impl<'a, 'r> Run<'a, 'r> {
    fn run_left(&self) -> Option<f64> {
        self.input.settings.max_time_ms.map(|limit| (limit - self.rec.now()).max(0.0))
    }

    fn out_of_time(&self) -> StopReason {
        StopReason::MaxTime { limit_ms: self.input.settings.max_time_ms.unwrap_or(0.0) }
    }

    /// Asks the model for a step: the last step's request, extended by the events since (or
    /// built anew for the first step and after a change of strategy), recorded as what changed.
    async fn ask(&self, step: u32, purpose: LlmPurpose, run_left: Option<f64>) -> Guarded<Result<ChatResponse, LlmError>> {
        let input = self.input;
        let prompt = {
            let trace = self.rec.trace.borrow();
            let p = PromptInput {
                settings: input.settings,
                strategy: self.strategy.get(),
                tools: input.tools,
                question: input.question,
                history: input.history,
                earlier: self.earlier(),
                events: &trace.events,
                last_answer: purpose == LlmPurpose::LastAnswer,
            };
            match self.prompt.take() {
                Some(mut prompt) if prompt.strategy() == p.strategy => {
                    prompt.update(&p);
                    prompt
                }
                _ => Prompt::new(&p),
            }
        };
        let mut prompt = prompt;
        let record = prompt.record(self.rec.position());
        let outcome = call_model(&self.rec, input, step, purpose, record, prompt.request(), run_left, None).await;
        *self.prompt.borrow_mut() = Some(prompt);
        outcome
    }

    /// The scope gate (`scope.rs`): one short model call with a time limit of its own. Returns
    /// whether it ended the run (declined, or stopped while it waited).
    async fn check_scope(&self) -> bool {
        let input = self.input;
        let request = scope_request(input.question, input.settings);
        let call = call_model(&self.rec, input, 0, LlmPurpose::ScopeCheck, RequestRecord::whole(&request), &request, self.run_left(), Some(SCOPE_TIMEOUT_MS));
        let (verdict, reason) = match call.await {
            Guarded::Done(Ok(response)) => read_verdict(&response.text),
            Guarded::Done(Err(error)) => {
                (ScopeVerdict::Unreadable, format!("The scope check failed ({}), so the question is answered.", error.message))
            }
            Guarded::TimedOut => (
                ScopeVerdict::Unreadable,
                format!("The scope check gave no verdict within {:.0} s, so the question is answered.", SCOPE_TIMEOUT_MS / 1000.0),
            ),
            Guarded::Cancelled => {
                self.rec.stop(0, StopReason::Cancelled);
                return true;
            }
            Guarded::OutOfTime => {
                self.rec.stop(0, self.out_of_time());
                return true;
            }
        };
        self.rec.record(0, self.rec.now(), EventKind::ScopeChecked { verdict, reason: reason.clone() });
        if verdict != ScopeVerdict::OutOfScope {
            return false;
        }
        let decline = match input.settings.decline_message.trim() {
            "" => DEFAULT_DECLINE,
            text => text,
        };
        let answer = if reason.is_empty() { decline.to_string() } else { format!("{decline}\n\nWhy: {reason}") };
        self.rec.record(0, self.rec.now(), EventKind::FinalAnswer { answer, source: AnswerSource::Declined });
        self.rec.stop(0, StopReason::Answered);
        true
    }

    /// Events of the run this one continues (or the branch's so far); empty for a new question.
    fn earlier(&self) -> &'r [Event] {
        match (&self.input.answered, self.input.fork) {
            (Some(r), _) => r.earlier,
            (None, Some(fork)) => fork,
            (None, None) => &[],
        }
    }

    /// Events so far, in this run and the one it continues, that match `kind`.
    fn count_so_far(&self, kind: impl Fn(&EventKind) -> bool) -> usize {
        let trace = self.rec.trace.borrow();
        self.earlier().iter().chain(&trace.events).filter(|e| kind(&e.kind)).count()
    }

    /// One step: ask the model, understand the reply, act or finish.
    async fn think(&self) -> Flow {
        let step = self.step.get();
        let strategy = self.strategy.get();
        let response = match self.ask(step, LlmPurpose::Step, self.run_left()).await {
            Guarded::Done(Ok(response)) => response,
            Guarded::Done(Err(error)) if error.kind == LlmErrorKind::ToolsUnsupported && strategy == Strategy::ToolCalling => {
                let reason = format!("{} Went on with the ReAct text format instead.", error.message);
                self.rec.record(step, self.rec.now(), EventKind::StrategyFallback { from: strategy, to: Strategy::React, reason });
                self.strategy.set(Strategy::React);
                return Flow::Again;
            }
            Guarded::Done(Err(_)) => {
                self.rec.stop(step, StopReason::ModelFailed);
                return Flow::Done;
            }
            Guarded::Cancelled => {
                self.rec.stop(step, StopReason::Cancelled);
                return Flow::Done;
            }
            Guarded::OutOfTime | Guarded::TimedOut => return Flow::Limit(self.out_of_time()),
        };
        self.understand(step, response).await
    }

    /// A limit was reached without an answer: early stopping "generate" asks once more.
    async fn finish_at_limit(&self, limit_hit: StopReason) {
        let input = self.input;
        let mut step = self.step.get();
        if input.settings.early_stopping == EarlyStopping::Generate && !input.cancel.is_cancelled() {
            step = step.saturating_add(1);
            // The last call gets no deadline of its own beyond Stop: the limit has already passed.
            if let Guarded::Done(Ok(response)) = self.ask(step, LlmPurpose::LastAnswer, None).await {
                let text = response.text.trim();
                let answer = match self.strategy.get() {
                    Strategy::ToolCalling => text.to_string(),
                    Strategy::PlanReact => parse_sections(text).ok().and_then(|s| s.final_answer).unwrap_or_else(|| text.to_string()),
                    Strategy::React => match parse_reply(text, &[]) {
                        Ok(Parsed { reply: Reply::Final { answer }, .. }) => answer,
                        _ => text.to_string(),
                    },
                };
                if !answer.is_empty() {
                    self.rec.record(step, self.rec.now(), EventKind::FinalAnswer { answer, source: AnswerSource::LastAnswer });
                }
            }
        }
        let reason = if input.cancel.is_cancelled() { StopReason::Cancelled } else { limit_hit };
        self.rec.stop(step, reason);
    }
}

/// Said back to the model when its /*ACTION*/ section held prose instead of a tool call.
const PROSE_ACTION: &str = "Your /*ACTION*/ section held no tool call. Write one JSON tool call like {\"action\": \"<tool name>\", \"action_input\": \"<input>\"} right after /*ACTION*/, or write /*FINAL_ANSWER*/ followed by the answer.";

/// Said back to the model when its reply held a plan but no action yet.
const PLAN_NOTED: &str = "Plan noted. Now carry out its first step: write /*REASONING*/, then /*ACTION*/ with one JSON tool call.";
