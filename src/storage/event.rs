//! A run's events as stored and exported: the core's `Event` written under the JSON tags every
//! release has read, borrowed from the event (nothing is copied to be written). The tags are
//! the stored format's, not the core's names: kinds renamed since keep their first tag
//! (`Decided` is `parsed`, `AskedPerson` is `clarify`, `PersonAnswered` is `person_replied`
//! with `reply`, `StopReason::AskedPerson` is `needs_input`), so a tab still on the previous
//! release reads what this one writes; new tags would need a new stored version.
//!
//! Read back by hand in `trace_read.rs`, beside this file: a tag or field changed here must
//! change there too (the round-trip tests in `trace_read/tests.rs` fail otherwise).

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;

use crate::agent::fork::{Change, ForkSettings};
use crate::agent::model::{LlmError, ToolCall, Usage};
use crate::agent::trace::{AnswerSource, ApprovalChoice, Decision, LlmPurpose, RequestRecord, ScopeVerdict};
use crate::agent::{Event, EventKind, StopReason, Strategy, Trace};

/// One event as written. Externally tagged (`{"tool_call": {...}}`): serde's internally tagged
/// and flattened forms cost tens of KB of WASM.
#[derive(Serialize)]
pub struct StoredEvent<'a> {
    index: u32,
    step: u32,
    started_ms: f64,
    ended_ms: f64,
    kind: StoredKind<'a>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum StoredKind<'a> {
    RunStarted {
        question: &'a str,
        tools: &'a [String],
        history_turns: usize,
        started_unix_ms: f64,
        strategy: Strategy,
        #[serde(skip_serializing_if = "is_false")]
        continues: bool,
        #[serde(skip_serializing_if = "str::is_empty")]
        provider: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        model: &'a str,
    },
    #[serde(rename = "person_replied")]
    PersonAnswered { reply: &'a str },
    LlmRequest { purpose: &'a LlmPurpose, request: &'a RequestRecord },
    LlmResponse {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        discarded: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a Usage>,
        latency_ms: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        first_token_ms: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        finish_reason: Option<&'a str>,
        incomplete: bool,
        #[serde(skip_serializing_if = "<[ToolCall]>::is_empty")]
        tool_calls: &'a [ToolCall],
    },
    LlmFailed { error: &'a LlmError },
    LlmRetry { attempt: u32, wait_ms: f64, reason: &'a str },
    #[serde(rename = "parsed")]
    Decided {
        #[serde(skip_serializing_if = "Option::is_none")]
        thought: Option<&'a str>,
        decision: &'a Decision,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        notes: &'a [String],
    },
    Plan {
        items: &'a [String],
        version: u32,
        replan: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        observation: Option<&'a str>,
    },
    #[serde(rename = "clarify")]
    AskedPerson { question: &'a str },
    StrategyFallback { from: Strategy, to: Strategy, reason: &'a str },
    ParseFailed { message: &'a str, excerpt: &'a str, count: u32, fed_back: bool, observation: &'a str },
    ToolCall {
        tool: &'a str,
        input: &'a Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        via: Option<&'a str>,
    },
    ToolResult { tool: &'a str, observation: &'a str },
    ToolFailed { tool: &'a str, message: &'a str, timed_out: bool, fed_back: bool },
    ApprovalAsked {
        tool: &'a str,
        input: &'a Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        via: Option<&'a str>,
    },
    ApprovalGiven { tool: &'a str, choice: ApprovalChoice },
    ServerAsked { server: &'a str, question: &'a str, answer: &'a str, accepted: bool },
    UnknownTool { requested: &'a str, valid: &'a [String] },
    RepeatedAction { tool: &'a str, input: &'a Value, times: u32 },
    FinalAnswer { answer: &'a str, source: AnswerSource },
    RunStopped { reason: StoredStop<'a>, message: &'a str },
    ScopeChecked { verdict: ScopeVerdict, reason: &'a str },
    /// New in chat version 4: only a branch holds one.
    Forked {
        branch: u32,
        from: u32,
        change: StoredChange<'a>,
        settings: StoredForkSettings,
        #[serde(skip_serializing_if = "str::is_empty")]
        provider: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        model: &'a str,
        strategy: Strategy,
    },
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum StoredChange<'a> {
    Question { text: &'a str },
    Reply { text: &'a str },
    ToolInput { tool: &'a str, input: &'a Value },
    Observation { tool: &'a str, text: &'a str },
    AskAgain,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum StoredForkSettings {
    Run,
    Now,
}

impl<'a> From<&'a Change> for StoredChange<'a> {
    fn from(change: &'a Change) -> Self {
        match change {
            Change::Question { text } => StoredChange::Question { text },
            Change::Reply { text } => StoredChange::Reply { text },
            Change::ToolInput { tool, input } => StoredChange::ToolInput { tool, input },
            Change::Observation { tool, text } => StoredChange::Observation { tool, text },
            Change::AskAgain => StoredChange::AskAgain,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum StoredStop<'a> {
    Answered,
    MaxIterations { limit: u32 },
    MaxTime { limit_ms: f64 },
    Cancelled,
    Interrupted,
    ModelFailed,
    ToolFailed { tool: &'a str },
    ParseFailed,
    #[serde(rename = "needs_input")]
    AskedPerson,
}

impl<'a> From<&'a StopReason> for StoredStop<'a> {
    fn from(reason: &'a StopReason) -> Self {
        match reason {
            StopReason::Answered => StoredStop::Answered,
            StopReason::MaxIterations { limit } => StoredStop::MaxIterations { limit: *limit },
            StopReason::MaxTime { limit_ms } => StoredStop::MaxTime { limit_ms: *limit_ms },
            StopReason::Cancelled => StoredStop::Cancelled,
            StopReason::Interrupted => StoredStop::Interrupted,
            StopReason::ModelFailed => StoredStop::ModelFailed,
            StopReason::ToolFailed { tool } => StoredStop::ToolFailed { tool },
            StopReason::ParseFailed => StoredStop::ParseFailed,
            StopReason::AskedPerson => StoredStop::AskedPerson,
        }
    }
}

impl<'a> From<&'a EventKind> for StoredKind<'a> {
    fn from(kind: &'a EventKind) -> Self {
        use EventKind as K;
        use StoredKind as S;
        match kind {
            K::RunStarted { question, tools, history_turns, started_unix_ms, strategy, continues, model } => S::RunStarted {
                question,
                tools,
                history_turns: *history_turns,
                started_unix_ms: *started_unix_ms,
                strategy: *strategy,
                continues: *continues,
                provider: &model.provider,
                model: &model.model,
            },
            K::PersonAnswered { answer } => S::PersonAnswered { reply: answer },
            K::LlmRequest { purpose, request } => S::LlmRequest { purpose, request },
            K::LlmResponse { text, discarded, usage, latency_ms, first_token_ms, finish_reason, incomplete, tool_calls } => S::LlmResponse {
                text,
                discarded: discarded.as_deref(),
                usage: usage.as_ref(),
                latency_ms: *latency_ms,
                first_token_ms: *first_token_ms,
                finish_reason: finish_reason.as_deref(),
                incomplete: *incomplete,
                tool_calls,
            },
            K::LlmFailed { error } => S::LlmFailed { error },
            K::LlmRetry { attempt, wait_ms, reason } => S::LlmRetry { attempt: *attempt, wait_ms: *wait_ms, reason },
            K::Decided { thought, decision, notes } => S::Decided { thought: thought.as_deref(), decision, notes },
            K::Plan { items, version, replan, observation } => S::Plan { items, version: *version, replan: *replan, observation: observation.as_deref() },
            K::AskedPerson { question } => S::AskedPerson { question },
            K::StrategyFallback { from, to, reason } => S::StrategyFallback { from: *from, to: *to, reason },
            K::ParseFailed { message, excerpt, count, fed_back, observation } => {
                S::ParseFailed { message, excerpt, count: *count, fed_back: *fed_back, observation }
            }
            K::ToolCall { tool, input, via } => S::ToolCall { tool, input, via: via.as_deref() },
            K::ToolResult { tool, observation } => S::ToolResult { tool, observation },
            K::ApprovalAsked { tool, input, via } => S::ApprovalAsked { tool, input, via: via.as_deref() },
            K::ApprovalGiven { tool, choice } => S::ApprovalGiven { tool, choice: *choice },
            K::ServerAsked { server, question, answer, accepted } => S::ServerAsked { server, question, answer, accepted: *accepted },
            K::ToolFailed { tool, message, timed_out, fed_back } => S::ToolFailed { tool, message, timed_out: *timed_out, fed_back: *fed_back },
            K::UnknownTool { requested, valid } => S::UnknownTool { requested, valid },
            K::RepeatedAction { tool, input, times } => S::RepeatedAction { tool, input, times: *times },
            K::FinalAnswer { answer, source } => S::FinalAnswer { answer, source: *source },
            K::RunStopped { reason, message } => S::RunStopped { reason: reason.into(), message },
            K::ScopeChecked { verdict, reason } => S::ScopeChecked { verdict: *verdict, reason },
            K::Forked(fork) => S::Forked {
                branch: fork.branch,
                from: fork.from,
                change: (&fork.change).into(),
                settings: match fork.settings {
                    ForkSettings::Run => StoredForkSettings::Run,
                    ForkSettings::Now => StoredForkSettings::Now,
                },
                provider: &fork.model.provider,
                model: &fork.model.model,
                strategy: fork.strategy,
            },
        }
    }
}

impl<'a> From<&'a Event> for StoredEvent<'a> {
    fn from(e: &'a Event) -> Self {
        StoredEvent { index: e.index, step: e.step, started_ms: e.started_ms, ended_ms: e.ended_ms, kind: (&e.kind).into() }
    }
}

/// A list of events, written as stored.
pub struct StoredEvents<'a>(pub &'a [Event]);

impl Serialize for StoredEvents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for event in self.0 {
            seq.serialize_element(&StoredEvent::from(event))?;
        }
        seq.end()
    }
}

/// For `#[serde(serialize_with)]` on a field holding events.
pub fn events_as_stored<S: Serializer>(events: &[Event], serializer: S) -> Result<S::Ok, S::Error> {
    StoredEvents(events).serialize(serializer)
}

/// For `#[serde(serialize_with)]` on a field holding a trace: `{"events": [...]}`.
pub fn trace_as_stored<S: Serializer>(trace: &Trace, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct StoredTrace<'a> {
        events: StoredEvents<'a>,
    }
    StoredTrace { events: StoredEvents(&trace.events) }.serialize(serializer)
}

/// The text of `events` as stored.
pub fn events_json(events: &[Event]) -> String {
    // Cannot fail for these types (every map key is a string); should it, the events are
    // written as `[]`, and reading names what is missing.
    serde_json::to_string(&StoredEvents(events)).unwrap_or_else(|_| "[]".into())
}

/// The text of one event as stored.
pub fn event_json(event: &Event) -> String {
    serde_json::to_string(&StoredEvent::from(event)).unwrap_or_default()
}

/// The text of a trace as exported (`{"events": [...]}`).
pub fn trace_json(trace: &Trace) -> String {
    #[derive(Serialize)]
    struct Whole<'a>(#[serde(serialize_with = "trace_as_stored")] &'a Trace);
    serde_json::to_string(&Whole(trace)).unwrap_or_default()
}
