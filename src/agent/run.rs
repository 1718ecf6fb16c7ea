//! The ReAct loop, once, async only. It reads top to bottom: build the request from the trace,
//! call the model, parse the reply, run a tool or finish, record every step as an event, and
//! check for Stop and the limits. Everything it learns goes into the trace; nothing else is kept.
//!
//! Whose fault is it? Model mistakes (unparseable reply, unknown tool, repeated action, a tool
//! error when the settings allow) become observations the model sees next step. Environment
//! faults (the model call failed, Stop) end the run.

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

/// Receives events as they happen, for a live view. Every method has a no-op default.
pub trait RunObserver {
    fn on_event(&self, _event: &Event) {}
    /// Streamed text of the model call in progress in `step`.
    fn on_delta(&self, _step: u32, _delta: &str) {}
    /// Streamed reasoning (some models think aloud before replying) of the call in `step`.
    fn on_reasoning(&self, _step: u32, _delta: &str) {}
    /// The tool call in progress in `step` said how far it is (`ToolContext::progress`).
    fn on_tool_progress(&self, _step: u32, _tool: &str, _text: &str) {}
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

/// How a guarded wait ended.
enum Guarded<T> {
    Done(T),
    Cancelled,
    /// The run's own time limit passed.
    OutOfTime,
    /// The per-call limit (e.g. a tool's timeout) passed.
    TimedOut,
}

/// Waits for `work`, unless Stop is pressed, the run's deadline passes, or `limit_ms` passes.
async fn guarded<T>(
    work: impl std::future::Future<Output = T>,
    input: &RunInput<'_>,
    run_left_ms: Option<f64>,
    limit_ms: Option<f64>,
) -> Guarded<T> {
    // A limit nothing starts again is a limit of silence heard once, at the start.
    let heard = Cell::new(input.clock.now_ms());
    guarded_quiet(work, input, run_left_ms, limit_ms, &heard).await
}

/// Like `guarded`, with `quiet_ms` a limit of silence: it runs from the last moment `heard`
/// was set (the call's start, then each progress report).
async fn guarded_quiet<T>(work: impl std::future::Future<Output = T>, input: &RunInput<'_>, run_left_ms: Option<f64>, quiet_ms: Option<f64>, heard: &Cell<f64>) -> Guarded<T> {
    let clock = input.clock;
    let silence = async {
        let Some(quiet_ms) = quiet_ms else { return std::future::pending::<()>().await };
        loop {
            let left = heard.get() + quiet_ms - clock.now_ms();
            if left <= 0.0 {
                return;
            }
            clock.sleep(left).await;
        }
    };
    let run_left = async {
        match run_left_ms {
            Some(ms) => clock.sleep(ms).await,
            None => std::future::pending::<()>().await,
        }
    };
    match race(input.cancel.cancelled(), race(work, race(run_left, silence))).await {
        Either::Left(()) => Guarded::Cancelled,
        Either::Right(Either::Left(out)) => Guarded::Done(out),
        Either::Right(Either::Right(Either::Left(()))) => Guarded::OutOfTime,
        Either::Right(Either::Right(Either::Right(()))) => Guarded::TimedOut,
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

/// A reply of a text strategy, understood.
struct Understood {
    thought: Option<String>,
    reply: Reply,
    notes: Vec<String>,
}

/// A reply that could not be understood: what to tell the model, and the text at fault.
struct Misread {
    message: String,
    excerpt: String,
}

impl Misread {
    fn new(message: impl Into<String>, excerpt: &str) -> Self {
        Misread { message: message.into(), excerpt: excerpt.chars().take(200).collect() }
    }
}

impl From<ParseError> for Misread {
    fn from(error: ParseError) -> Self {
        Misread { message: error.to_string(), excerpt: error.excerpt }
    }
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

    /// The rest of a step once the reply is in: understand it, then act or finish.
    async fn understand(&self, step: u32, response: ChatResponse) -> Flow {
        let strategy = self.strategy.get();
        if strategy == Strategy::ToolCalling {
            return self.native_reply(step, response).await;
        }

        let started = self.rec.now();
        let understood = match strategy {
            Strategy::PlanReact => self.read_plan(step, started, &response.text),
            _ if self.input.settings.structured_output_for(strategy) => self.read_structured(&response.text).map(Some),
            _ => self.read_react(&response.text).map(Some),
        };
        let understood = match understood {
            Ok(Some(understood)) => understood,
            // A reply that held only a plan: its event asks for the first action.
            Ok(None) => return Flow::Next,
            Err(error) => return self.parse_failed(step, started, error.message, error.excerpt),
        };
        let decision = match &understood.reply {
            Reply::Action { tool, input } => Decision::Action { tool: tool.clone(), input: input.clone() },
            Reply::Final { answer } => Decision::Final { answer: answer.clone() },
        };
        self.rec.record(step, started, EventKind::Decided { thought: understood.thought, decision, notes: understood.notes });
        match understood.reply {
            Reply::Final { answer } => self.answer(step, answer),
            Reply::Action { tool, input } => self.act(step, tool, input).await,
        }
    }

    fn read_react(&self, text: &str) -> Result<Understood, Misread> {
        let parsed = parse_reply(text, &self.names)?;
        Ok(Understood { thought: parsed.thought, reply: parsed.reply, notes: parsed.notes })
    }

    /// Structured output: the reply should be one JSON object `{thought, action, action_input}`.
    /// A server that ignored the schema gets the lenient text parser instead, with a note.
    fn read_structured(&self, text: &str) -> Result<Understood, Misread> {
        if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text.trim()) {
            if let Some(action) = object.get("action").and_then(Value::as_str) {
                let thought = object.get("thought").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
                let input = object.get("action_input").cloned().unwrap_or(Value::Null);
                let reply = if is_final_name(action) {
                    let answer = input_as_text(&input);
                    if answer.trim().is_empty() {
                        return Err(Misread::new("Your \"Final Answer\" step had an empty \"action_input\". Put the complete answer for the person there.", text));
                    }
                    Reply::Final { answer }
                } else {
                    Reply::Action { tool: action.to_string(), input }
                };
                return Ok(Understood { thought, reply, notes: Vec::new() });
            }
        }
        let mut understood = self.read_react(text)?;
        understood.notes.push("structured output was on, but the reply was not the JSON step object; it was read as text".into());
        Ok(understood)
    }

    /// Plan-ReAct: records the plan (or revised plan) and reads the action or final answer.
    /// `Ok(None)` when the reply held only a plan.
    fn read_plan(&self, step: u32, started: f64, text: &str) -> Result<Option<Understood>, Misread> {
        let sections = parse_sections(text).map_err(|e| Misread::new(e.message, text))?;
        // `parse_sections` accepts a reply without an action or answer only when it holds a plan.
        let plan_only = sections.first.is_none();
        for (items, replan) in [(sections.plan, false), (sections.replan, true)] {
            if items.is_empty() {
                continue;
            }
            // Counted only when there is a plan: most steps have none, and this reads the run.
            let version = self.count_so_far(|kind| matches!(kind, EventKind::Plan { .. })) as u32 + 1;
            let observation = plan_only.then(|| PLAN_NOTED.to_string());
            self.rec.record(step, started, EventKind::Plan { items, version, replan, observation });
        }
        let mut notes = sections.notes;
        let reply = match sections.first {
            // The plan's event carries the request for its first action.
            None => return Ok(None),
            Some(Section::FinalAnswer) => Reply::Final { answer: sections.final_answer.unwrap_or_default() },
            Some(_) => {
                let action = sections.action.unwrap_or_default();
                let parsed = parse_reply(&action, &self.names).map_err(|e| {
                    Misread::new(format!("Your /*ACTION*/ section could not be read: {e}"), &action)
                })?;
                // Prose under /*ACTION*/ is no answer: the section is for one tool call.
                if parsed.direct {
                    return Err(Misread::new(PROSE_ACTION, &action));
                }
                notes.extend(parsed.notes);
                parsed.reply
            }
        };
        Ok(Some(Understood { thought: sections.reasoning, reply, notes }))
    }

    /// Native tool calling: text alone is the answer; each call runs in order.
    async fn native_reply(&self, step: u32, response: ChatResponse) -> Flow {
        let started = self.rec.now();
        let text = response.text.trim();
        if response.tool_calls.is_empty() {
            // Text alone is the answer, unless the model wrote a ReAct call or answer in text
            // instead (small models often do): then it is read as it was meant, with a note.
            let (thought, decision, notes) = match parse_reply(text, &self.names) {
                Ok(Parsed { reply: Reply::Action { tool, input }, thought, mut notes, .. }) if matches!(resolve_tool(&tool, &self.names), Ok(Some(_))) => {
                    notes.push("the model wrote the tool call as text instead of a native call; it was run anyway".into());
                    (thought, Decision::Action { tool, input }, notes)
                }
                Ok(Parsed { reply: Reply::Final { answer }, thought, mut notes, .. }) if text.contains("Final Answer") => {
                    notes.push("the answer carried a ReAct \"Final Answer:\" label, which was removed".into());
                    (thought, Decision::Final { answer }, notes)
                }
                _ => (None, Decision::Final { answer: text.to_string() }, Vec::new()),
            };
            self.rec.record(step, started, EventKind::Decided { thought, decision: decision.clone(), notes });
            return match decision {
                Decision::Action { tool, input } => self.act(step, tool, input).await,
                Decision::Final { answer } => self.answer(step, answer),
            };
        }
        let mut thought = (!text.is_empty()).then(|| text.to_string());
        for call in response.tool_calls {
            let input = if call.arguments.trim().is_empty() {
                Value::Object(Default::default())
            } else {
                match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(input) => input,
                    Err(e) => {
                        let message = format!(
                            "The arguments of your call to \"{}\" are not valid JSON ({e}). Call it again with a JSON object that matches its parameters.",
                            call.name
                        );
                        match self.parse_failed(step, started, message, call.arguments.clone()) {
                            Flow::Next => continue,
                            other => return other,
                        }
                    }
                }
            };
            let decision = Decision::Action { tool: call.name.clone(), input: input.clone() };
            self.rec.record(step, started, EventKind::Decided { thought: thought.take(), decision, notes: Vec::new() });
            match self.act(step, call.name, input).await {
                Flow::Next => {}
                other => return other,
            }
        }
        Flow::Next
    }

    /// Records a reply that could not be understood; ends the run unless errors are fed back.
    fn parse_failed(&self, step: u32, started: f64, message: String, excerpt: String) -> Flow {
        let settings = self.input.settings;
        let count = self.parse_failures.get() + 1;
        self.parse_failures.set(count);
        let observation = settings.parse_error_message.clone().unwrap_or_else(|| message.clone());
        let fed_back = settings.feed_back_parse_errors;
        let excerpt = excerpt.chars().take(200).collect();
        self.rec.record(step, started, EventKind::ParseFailed { message, excerpt, count, fed_back, observation });
        if fed_back {
            Flow::Next
        } else {
            self.rec.stop(step, StopReason::ParseFailed);
            Flow::Done
        }
    }

    /// Records the final answer: a direct answer when the run called no tool at all (a call
    /// that failed was still called), whatever form the reply took; plain prose read as the
    /// answer is noted on its Decision.
    fn answer(&self, step: u32, answer: String) -> Flow {
        let called = self.count_so_far(|kind| matches!(kind, EventKind::ToolCall { .. })) > 0;
        let source = if called { AnswerSource::Model } else { AnswerSource::Direct };
        self.rec.record(step, self.rec.now(), EventKind::FinalAnswer { answer, source });
        self.rec.stop(step, StopReason::Answered);
        Flow::Done
    }

    /// Act: find the tool, refuse loops, run it (or ask the person).
    async fn act(&self, step: u32, requested: String, tool_input: Value) -> Flow {
        let input = self.input;
        let settings = input.settings;
        let resolved = match resolve_tool(&requested, &self.names) {
            Ok(Some(name)) => Some(name),
            _ => None,
        };
        if resolved == Some(ASK_PERSON) {
            let question = input_as_text(&tool_input).trim().to_string();
            if question.is_empty() {
                let message = format!("{ASK_PERSON} needs your question as its input.");
                return self.parse_failed(step, self.rec.now(), message, tool_input.to_string());
            }
            self.rec.record(step, self.rec.now(), EventKind::AskedPerson { question });
            self.rec.stop(step, StopReason::AskedPerson);
            return Flow::Done;
        }
        let Some(tool) = resolved.and_then(|name| input.tools.iter().find(|t| t.name() == name).copied()) else {
            let valid = self.names.iter().map(|s| s.to_string()).collect();
            self.rec.record(step, self.rec.now(), EventKind::UnknownTool { requested, valid });
            return Flow::Next;
        };
        let this_action = (tool.name().to_string(), tool_input.clone());
        let repeats = if self.last_action.borrow().as_ref() == Some(&this_action) { self.repeats.get() + 1 } else { 1 };
        self.repeats.set(repeats);
        if repeats >= settings.repeat_limit.max(2) {
            self.rec.record(
                step,
                self.rec.now(),
                EventKind::RepeatedAction { tool: this_action.0, input: this_action.1, times: repeats },
            );
            return Flow::Next;
        }
        *self.last_action.borrow_mut() = Some(this_action);
        if let Some(flow) = self.approval(step, tool, &tool_input).await {
            return flow;
        }

        let rec = &self.rec;
        let started = rec.now();
        let via = tool.origin().map(str::to_string);
        rec.record(step, started, EventKind::ToolCall { tool: tool.name().to_string(), input: tool_input.clone(), via });
        let on_model_call = |request: &ChatRequest, result: &Result<ChatResponse, LlmError>, latency: f64| {
            let latency = to_micros(latency);
            let begun = to_micros((rec.now() - latency).max(0.0));
            let purpose = LlmPurpose::Tool { tool: tool.name().to_string() };
            rec.record(step, begun, EventKind::LlmRequest { purpose, request: RequestRecord::whole(request) });
            // The tool reads its reply whole; the trace records it cut like every other.
            let (cut, discarded) = cut_reply(result.clone());
            // The tool's call is read whole: its first piece is not seen apart from the rest.
            rec.record(step, begun, response_event(&cut, discarded, latency, None));
        };
        let now_ms = || rec.now();
        // Progress starts the tool's silence limit again and is shown live.
        let heard = Cell::new(input.clock.now_ms());
        let on_progress = |text: &str| {
            heard.set(input.clock.now_ms());
            rec.observer.on_tool_progress(step, tool.name(), text);
        };
        let cx = ToolContext { model: input.model, on_model_call: &on_model_call, now_ms: &now_ms, on_progress: &on_progress };
        let timeout_ms = tool.timeout_ms().unwrap_or(settings.tool_timeout_ms);
        let outcome = guarded_quiet(tool.call(&tool_input, &cx), input, self.run_left(), Some(timeout_ms), &heard).await;
        let name = tool.name().to_string();
        let (message, timed_out) = match outcome {
            Guarded::Done(Ok(observation)) => {
                let direct = tool.return_direct();
                rec.record(step, started, EventKind::ToolResult { tool: name, observation: observation.clone() });
                if direct {
                    rec.record(step, rec.now(), EventKind::FinalAnswer { answer: observation, source: AnswerSource::ReturnDirect });
                    rec.stop(step, StopReason::Answered);
                    return Flow::Done;
                }
                return Flow::Next;
            }
            Guarded::Done(Err(error)) => (error.message, false),
            Guarded::TimedOut => (
                format!(
                    "no answer within {:.0} s, and no word of progress. The service may be slow or unreachable; try again or use another tool.",
                    timeout_ms / 1000.0
                ),
                true,
            ),
            Guarded::Cancelled => {
                rec.stop(step, StopReason::Cancelled);
                return Flow::Done;
            }
            Guarded::OutOfTime => return Flow::Limit(self.out_of_time()),
        };
        let fed_back = settings.feed_back_tool_errors;
        rec.record(step, started, EventKind::ToolFailed { tool: name.clone(), message, timed_out, fed_back });
        if fed_back {
            Flow::Next
        } else {
            rec.stop(step, StopReason::ToolFailed { tool: name });
            Flow::Done
        }
    }

    /// A tool that needs the person's approval waits for it: `None` when the call may go
    /// ahead, else how the step ends (denied: the model is told; Stop: the run ends). The wait
    /// has no time limit but Stop: a person may be away.
    async fn approval(&self, step: u32, tool: &dyn Tool, input: &Value) -> Option<Flow> {
        let name = tool.name().to_string();
        if !tool.needs_approval() || self.allowed.borrow().contains(&name) {
            return None;
        }
        let rec = &self.rec;
        rec.record(step, rec.now(), EventKind::ApprovalAsked { tool: name.clone(), input: input.clone(), via: tool.origin().map(str::to_string) });
        let asked = rec.now();
        let choice = match race(rec.observer.approve(tool, input), self.input.cancel.cancelled()).await {
            Either::Left(choice) => choice,
            Either::Right(()) => {
                rec.stop(step, StopReason::Cancelled);
                return Some(Flow::Done);
            }
        };
        rec.record(step, asked, EventKind::ApprovalGiven { tool: name.clone(), choice });
        match choice {
            ApprovalChoice::Once => None,
            ApprovalChoice::Always => {
                self.allowed.borrow_mut().push(name);
                None
            }
            ApprovalChoice::Denied => Some(Flow::Next),
        }
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

fn to_micros(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// The reply with its text cut at any "Observation:" the model invented, and the text cut off.
fn cut_reply(result: Result<ChatResponse, LlmError>) -> (Result<ChatResponse, LlmError>, Option<String>) {
    match result {
        Ok(mut resp) => {
            let (kept, discarded) = cut_at_observation(&resp.text);
            let (kept, discarded) = (kept.len(), discarded.map(str::to_string));
            resp.text.truncate(kept);
            (Ok(resp), discarded)
        }
        Err(e) => (Err(e), None),
    }
}

/// The event recording a reply already cut by `cut_reply`.
fn response_event(result: &Result<ChatResponse, LlmError>, discarded: Option<String>, latency_ms: f64, first_token_ms: Option<f64>) -> EventKind {
    match result {
        Ok(resp) => EventKind::LlmResponse {
            text: resp.text.clone(),
            discarded,
            usage: resp.usage,
            latency_ms,
            first_token_ms,
            finish_reason: resp.finish_reason.clone(),
            incomplete: resp.incomplete,
            tool_calls: resp.tool_calls.clone(),
        },
        Err(error) => EventKind::LlmFailed { error: error.clone() },
    }
}

/// One model call of the loop: records request and response, streams deltas to the observer,
/// and returns the reply with its text cut at any invented "Observation:".
async fn call_model(
    rec: &Recorder<'_>,
    input: &RunInput<'_>,
    step: u32,
    purpose: LlmPurpose,
    record: RequestRecord,
    request: &ChatRequest,
    run_left: Option<f64>,
    limit_ms: Option<f64>,
) -> Guarded<Result<ChatResponse, LlmError>> {
    let started = rec.now();
    rec.record(step, started, EventKind::LlmRequest { purpose, request: record });
    // When the first piece of the reply arrived (the timeline's time to first token).
    let first = Cell::new(None::<f64>);
    let heard = || {
        if first.get().is_none() {
            first.set(Some(to_micros(rec.now() - started)));
        }
    };
    let progress = |p: Progress<'_>| match p {
        Progress::Text(delta) => {
            heard();
            rec.observer.on_delta(step, delta)
        }
        Progress::Reasoning(delta) => {
            heard();
            rec.observer.on_reasoning(step, delta)
        }
        Progress::Retry { attempt, wait_ms, reason } => {
            rec.record(step, rec.now(), EventKind::LlmRetry { attempt, wait_ms, reason: reason.to_string() })
        }
    };
    let outcome = guarded(input.model.complete(request, &progress), input, run_left, limit_ms).await;
    let latency = to_micros(rec.now() - started);
    match outcome {
        Guarded::Done(result) => {
            let result = result.and_then(|resp| {
                if resp.text.trim().is_empty() && resp.tool_calls.is_empty() {
                    Err(LlmError::new(
                        LlmErrorKind::Empty,
                        "The model sent an empty reply. Try again, or pick a larger model in Settings.",
                    ))
                } else {
                    Ok(resp)
                }
            });
            let (result, discarded) = cut_reply(result);
            rec.record(step, started, response_event(&result, discarded, latency, first.get()));
            Guarded::Done(result)
        }
        Guarded::Cancelled => Guarded::Cancelled,
        Guarded::OutOfTime => Guarded::OutOfTime,
        Guarded::TimedOut => Guarded::TimedOut,
    }
}
