//! The ReAct loop, once, async only. It reads top to bottom: build the request from the trace,
//! call the model, parse the reply, run a tool or finish, record every step as an event, and
//! check for Stop and the limits. Everything it learns goes into the trace; nothing else is kept.
//!
//! Whose fault is it? Model mistakes (unparseable reply, unknown tool, repeated action, a tool
//! error when the settings allow) become observations the model sees next step. Environment
//! faults (the model call failed, Stop) end the run.

use std::cell::RefCell;

use serde_json::Value;

use super::model::{ChatModel, ChatRequest, ChatResponse, LlmError, LlmErrorKind, Progress};
use super::parse::{cut_at_observation, parse_reply, resolve_tool, Reply};
use super::prompt::{build_request, Turn};
use super::settings::{AgentSettings, EarlyStopping};
use super::time::{race, CancelToken, Clock, Either};
use super::tool::{Tool, ToolContext};
use super::trace::{AnswerSource, Decision, Event, EventKind, LlmPurpose, StopReason, Trace};

/// Receives events as they happen, for a live view. Every method has a no-op default.
pub trait RunObserver {
    fn on_event(&self, _event: &Event) {}
    /// Streamed text of the model call in progress in `step`.
    fn on_delta(&self, _step: u32, _delta: &str) {}
    /// Streamed reasoning (some models think aloud before replying) of the call in `step`.
    fn on_reasoning(&self, _step: u32, _delta: &str) {}
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
    let clock = input.clock;
    let sleep_or_never = |ms: Option<f64>| async move {
        match ms {
            Some(ms) => clock.sleep(ms).await,
            None => std::future::pending::<()>().await,
        }
    };
    let limits = race(sleep_or_never(run_left_ms), sleep_or_never(limit_ms));
    match race(input.cancel.cancelled(), race(work, limits)).await {
        Either::Left(()) => Guarded::Cancelled,
        Either::Right(Either::Left(out)) => Guarded::Done(out),
        Either::Right(Either::Right(Either::Left(()))) => Guarded::OutOfTime,
        Either::Right(Either::Right(Either::Right(()))) => Guarded::TimedOut,
    }
}

/// Runs the agent on one question and returns the complete trace.
pub async fn run_agent(input: RunInput<'_>, observer: &dyn RunObserver) -> Trace {
    let settings = input.settings;
    let rec = Recorder { trace: RefCell::new(Trace::default()), observer, clock: input.clock, t0: input.clock.now_ms() };
    let tool_names: Vec<&str> = input.tools.iter().map(|t| t.name()).collect();
    rec.record(
        0,
        0.0,
        EventKind::RunStarted {
            question: input.question.to_string(),
            tools: tool_names.iter().map(|s| s.to_string()).collect(),
            history_turns: input.history.len(),
            started_unix_ms: input.clock.unix_ms().round(),
        },
    );
    let run_left = || settings.max_time_ms.map(|limit| (limit - rec.now()).max(0.0));

    let mut step = 0u32;
    let mut parse_failures = 0u32;
    // The last action that ran and how many times in a row it was asked for.
    let mut last_action: Option<(String, Value)> = None;
    let mut repeats = 0u32;

    let limit_hit = loop {
        if input.cancel.is_cancelled() {
            rec.stop(step, StopReason::Cancelled);
            return rec.trace.into_inner();
        }
        if step >= settings.max_iterations {
            break StopReason::MaxIterations { limit: settings.max_iterations };
        }
        if run_left() == Some(0.0) {
            break StopReason::MaxTime { limit_ms: settings.max_time_ms.unwrap_or(0.0) };
        }
        step += 1;

        // Think: ask the model for the next step.
        let request = build_request(settings, input.tools, input.question, input.history, &rec.trace.borrow(), false);
        let reply = match call_model(&rec, &input, step, request, LlmPurpose::Step, run_left()).await {
            Guarded::Done(Ok(text)) => text,
            Guarded::Done(Err(_)) => {
                rec.stop(step, StopReason::ModelFailed);
                return rec.trace.into_inner();
            }
            Guarded::Cancelled => {
                rec.stop(step, StopReason::Cancelled);
                return rec.trace.into_inner();
            }
            Guarded::OutOfTime | Guarded::TimedOut => {
                break StopReason::MaxTime { limit_ms: settings.max_time_ms.unwrap_or(0.0) };
            }
        };

        // Understand the reply.
        let started = rec.now();
        let parsed = match parse_reply(&reply, &tool_names) {
            Ok(parsed) => parsed,
            Err(error) => {
                parse_failures += 1;
                let message = error.to_string();
                let observation = settings.parse_error_message.clone().unwrap_or_else(|| message.clone());
                let fed_back = settings.feed_back_parse_errors;
                rec.record(
                    step,
                    started,
                    EventKind::ParseFailed { message, excerpt: error.excerpt, count: parse_failures, fed_back, observation },
                );
                if !fed_back {
                    rec.stop(step, StopReason::ParseFailed);
                    return rec.trace.into_inner();
                }
                continue;
            }
        };
        let decision = match &parsed.reply {
            Reply::Action { tool, input } => Decision::Action { tool: tool.clone(), input: input.clone() },
            Reply::Final { answer } => Decision::Final { answer: answer.clone() },
        };
        rec.record(step, started, EventKind::Parsed { thought: parsed.thought, decision, notes: parsed.notes });

        let (requested, tool_input) = match parsed.reply {
            Reply::Final { answer } => {
                rec.record(step, rec.now(), EventKind::FinalAnswer { answer, source: AnswerSource::Model });
                rec.stop(step, StopReason::Answered);
                return rec.trace.into_inner();
            }
            Reply::Action { tool, input } => (tool, input),
        };

        // Act: find the tool, refuse loops, run it.
        let tool = match resolve_tool(&requested, &tool_names) {
            Ok(Some(name)) => input.tools.iter().find(|t| t.name() == name).copied(),
            _ => None,
        };
        let Some(tool) = tool else {
            let valid = tool_names.iter().map(|s| s.to_string()).collect();
            rec.record(step, rec.now(), EventKind::UnknownTool { requested, valid });
            continue;
        };
        let this_action = (tool.name().to_string(), tool_input.clone());
        repeats = if last_action.as_ref() == Some(&this_action) { repeats + 1 } else { 1 };
        if repeats >= settings.repeat_limit.max(2) {
            rec.record(
                step,
                rec.now(),
                EventKind::RepeatedAction { tool: this_action.0, input: this_action.1, times: repeats },
            );
            continue;
        }
        last_action = Some(this_action);

        let started = rec.now();
        rec.record(step, started, EventKind::ToolCall { tool: tool.name().to_string(), input: tool_input.clone() });
        let on_model_call = |request: &ChatRequest, result: &Result<ChatResponse, LlmError>, latency: f64| {
            let latency = to_micros(latency);
            let begun = to_micros((rec.now() - latency).max(0.0));
            let purpose = LlmPurpose::Tool { tool: tool.name().to_string() };
            rec.record(step, begun, EventKind::LlmRequest { purpose, request: request.clone() });
            rec.record(step, begun, response_event(result, latency));
        };
        let now_ms = || rec.now();
        let cx = ToolContext { model: input.model, on_model_call: &on_model_call, now_ms: &now_ms };
        let timeout_ms = tool.timeout_ms().unwrap_or(settings.tool_timeout_ms);
        let outcome = guarded(tool.call(&tool_input, &cx), &input, run_left(), Some(timeout_ms)).await;
        let name = tool.name().to_string();
        match outcome {
            Guarded::Done(Ok(observation)) => {
                let direct = tool.return_direct();
                rec.record(step, started, EventKind::ToolResult { tool: name, observation: observation.clone() });
                if direct {
                    rec.record(step, rec.now(), EventKind::FinalAnswer { answer: observation, source: AnswerSource::ReturnDirect });
                    rec.stop(step, StopReason::Answered);
                    return rec.trace.into_inner();
                }
            }
            Guarded::Done(Err(error)) => {
                let fed_back = settings.feed_back_tool_errors;
                rec.record(step, started, EventKind::ToolFailed { tool: name.clone(), message: error.message, timed_out: false, fed_back });
                if !fed_back {
                    rec.stop(step, StopReason::ToolFailed { tool: name });
                    return rec.trace.into_inner();
                }
            }
            Guarded::TimedOut => {
                let fed_back = settings.feed_back_tool_errors;
                let message = format!(
                    "no answer within {:.0} s. The service may be slow or unreachable; try again or use another tool.",
                    timeout_ms / 1000.0
                );
                rec.record(step, started, EventKind::ToolFailed { tool: name.clone(), message, timed_out: true, fed_back });
                if !fed_back {
                    rec.stop(step, StopReason::ToolFailed { tool: name });
                    return rec.trace.into_inner();
                }
            }
            Guarded::Cancelled => {
                rec.stop(step, StopReason::Cancelled);
                return rec.trace.into_inner();
            }
            Guarded::OutOfTime => break StopReason::MaxTime { limit_ms: settings.max_time_ms.unwrap_or(0.0) },
        }
    };

    // A limit was reached without an answer.
    if settings.early_stopping == EarlyStopping::Generate && !input.cancel.is_cancelled() {
        step += 1;
        let request = build_request(settings, input.tools, input.question, input.history, &rec.trace.borrow(), true);
        // The last call gets no deadline of its own beyond Stop: the limit has already passed.
        if let Guarded::Done(Ok(text)) = call_model(&rec, &input, step, request, LlmPurpose::LastAnswer, None).await {
            let answer = match parse_reply(&text, &[]) {
                Ok(parsed) => match parsed.reply {
                    Reply::Final { answer } => answer,
                    Reply::Action { .. } => text.trim().to_string(),
                },
                Err(_) => text.trim().to_string(),
            };
            if !answer.is_empty() {
                rec.record(step, rec.now(), EventKind::FinalAnswer { answer, source: AnswerSource::LastAnswer });
            }
        }
    }
    if input.cancel.is_cancelled() {
        rec.stop(step, StopReason::Cancelled);
    } else {
        rec.stop(step, limit_hit);
    }
    rec.trace.into_inner()
}

fn to_micros(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

fn response_event(result: &Result<ChatResponse, LlmError>, latency_ms: f64) -> EventKind {
    match result {
        Ok(resp) => {
            let (kept, discarded) = cut_at_observation(&resp.text);
            EventKind::LlmResponse {
                text: kept.to_string(),
                discarded: discarded.map(str::to_string),
                usage: resp.usage,
                latency_ms,
                incomplete: resp.incomplete,
            }
        }
        Err(error) => EventKind::LlmFailed { error: error.clone() },
    }
}

/// One model call of the loop: records request and response, streams deltas to the observer,
/// and returns the reply cut at any invented "Observation:".
async fn call_model(
    rec: &Recorder<'_>,
    input: &RunInput<'_>,
    step: u32,
    request: ChatRequest,
    purpose: LlmPurpose,
    run_left: Option<f64>,
) -> Guarded<Result<String, LlmError>> {
    let started = rec.now();
    rec.record(step, started, EventKind::LlmRequest { purpose, request: request.clone() });
    let progress = |p: Progress<'_>| match p {
        Progress::Text(delta) => rec.observer.on_delta(step, delta),
        Progress::Reasoning(delta) => rec.observer.on_reasoning(step, delta),
        Progress::Retry { attempt, wait_ms, reason } => {
            rec.record(step, rec.now(), EventKind::LlmRetry { attempt, wait_ms, reason: reason.to_string() })
        }
    };
    let outcome = guarded(input.model.complete(&request, &progress), input, run_left, None).await;
    let latency = to_micros(rec.now() - started);
    match outcome {
        Guarded::Done(result) => {
            let result = result.and_then(|resp| {
                if resp.text.trim().is_empty() {
                    Err(LlmError::new(
                        LlmErrorKind::Empty,
                        "The model sent an empty reply. Try again, or pick a larger model in Settings.",
                    ))
                } else {
                    Ok(resp)
                }
            });
            rec.record(step, started, response_event(&result, latency));
            Guarded::Done(result.map(|resp| cut_at_observation(&resp.text).0.to_string()))
        }
        Guarded::Cancelled => Guarded::Cancelled,
        Guarded::OutOfTime => Guarded::OutOfTime,
        Guarded::TimedOut => Guarded::TimedOut,
    }
}
