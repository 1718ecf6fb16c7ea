//! The trace: the only record of a run. Every event is a typed value, appended as it happens,
//! that the UI renders live, the person exports as JSON, the prompt builder reads back (the
//! scratchpad is derived from it, never kept as a second string), and tests assert on.
//!
//! **Invariant:** the trace is append-only and holds no secrets: a request is recorded as what
//! it adds to the run's previous one (`RequestRecord`), `request_at` rebuilds the exact
//! `ChatRequest` the provider received, and API keys never enter one.

use serde::Serialize;
use serde_json::Value;

use super::model::{LlmError, ModelName, ToolCall, Usage};
use super::settings::Strategy;

pub use super::change::value_as_text;
pub use super::request_record::{request_at, Rebuilder, RequestRecord};

pub mod align;
pub mod find;
pub mod row;
pub mod timeline;
mod transcript;

pub use transcript::transcript;

/// One thing that happened during a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Position in the trace, from 0.
    pub index: u32,
    /// The ReAct iteration this event belongs to, from 1; 0 for run-level events.
    pub step: u32,
    /// Milliseconds since the run started.
    pub started_ms: f64,
    pub ended_ms: f64,
    pub kind: EventKind,
}

/// Why a model call was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmPurpose {
    /// The regular ReAct step: think, then act or answer.
    Step,
    /// Early stopping "generate": the limit was hit, so the model is asked for a last answer.
    LastAnswer,
    /// A tool asked the model for help (e.g. the calculator turning prose into an expression).
    Tool { tool: String },
    /// The scope gate: is the question one this agent is for (`AgentSettings::scope`)?
    ScopeCheck,
}

/// What the model's reply was understood to ask for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Action { tool: String, input: Value },
    Final { answer: String },
}

/// Where a final answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerSource {
    /// The model wrote "Final Answer".
    Model,
    /// A tool marked "return direct" answered; its observation is the answer.
    ReturnDirect,
    /// A limit was reached and the model was asked for a last answer (early stopping "generate").
    LastAnswer,
    /// The model answered without calling any tool (no tool fitted, or none was needed), in
    /// the format or in plain prose.
    Direct,
    /// The scope gate found the question outside what the agent is for: the settings' decline
    /// text and the model's reason.
    Declined,
}

/// What the person decided about a tool call that needed their approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalChoice {
    /// This call only.
    Once,
    /// This call and every later call of the tool (the settings stop asking).
    Always,
    /// Not this call: the model is told so instead of an observation.
    Denied,
}

/// What the scope gate decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeVerdict {
    /// The question is one the agent is for: the run goes on.
    InScope,
    /// It is not: the run ends with the decline text.
    OutOfScope,
    /// The reply could not be read (or did not come): counted as in scope, so the gate never
    /// blocks by accident.
    Unreadable,
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum StopReason {
    /// A final answer was given.
    Answered,
    /// `max_iterations` steps ran without a final answer.
    MaxIterations { limit: u32 },
    /// The run took longer than `max_time_ms`.
    MaxTime { limit_ms: f64 },
    /// The person pressed Stop.
    Cancelled,
    /// The page was reloaded or closed while the run was going.
    Interrupted,
    /// The model could not be reached or refused the request.
    ModelFailed,
    /// A tool failed and the settings say tool errors end the run.
    ToolFailed { tool: String },
    /// The reply could not be parsed and the settings say parse errors end the run.
    ParseFailed,
    /// The agent asked the person a question (`EventKind::AskedPerson`); their answer
    /// continues the run.
    AskedPerson,
}

impl StopReason {
    /// A sentence for the person, naming the setting to change where one applies.
    pub fn describe(&self) -> String {
        match self {
            StopReason::Answered => "Finished with an answer.".into(),
            StopReason::MaxIterations { limit } => format!(
                "Stopped after {limit} steps without a final answer. Raise \"Max iterations\" in Settings, or ask a narrower question."
            ),
            StopReason::MaxTime { limit_ms } => format!(
                "Stopped after {:.0} s, the time limit. Raise \"Max time\" in Settings if the model or tools are slow.",
                limit_ms / 1000.0
            ),
            StopReason::Cancelled => "Stopped by you.".into(),
            StopReason::Interrupted => "Interrupted: the page was reloaded or closed before the run finished.".into(),
            StopReason::ModelFailed => "Stopped because the model call failed (see the red step above).".into(),
            StopReason::ToolFailed { tool } => format!(
                "Stopped because the tool \"{tool}\" failed. Turn on \"Show tool errors to the model\" in Settings to let the agent try another way."
            ),
            StopReason::AskedPerson => "Waiting for your answer: reply in the chat and the agent continues from here.".into(),
            StopReason::ParseFailed => "Stopped because the model's reply did not follow the format. Turn on \"Send format errors back to the model\" in Settings to let it correct itself.".into(),
        }
    }
}

/// What happened, with exactly the fields each kind needs. How it is stored and exported is
/// `storage::event`'s business (its JSON tags, some of them older names of these kinds).
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    RunStarted {
        question: String,
        /// Names of the tools the agent was given.
        tools: Vec<String>,
        /// Earlier turns included as memory.
        history_turns: usize,
        started_unix_ms: f64,
        strategy: Strategy,
        /// This run continues an earlier one that ended with a question to the person.
        continues: bool,
        /// The provider and model asked (empty in runs recorded before they were kept).
        model: ModelName,
    },
    /// The person answered the agent's question; the run goes on from where it asked.
    PersonAnswered {
        answer: String,
    },
    /// A request to the model: what it adds to the run's previous one (`request_at` rebuilds
    /// it as the provider received it).
    LlmRequest {
        purpose: LlmPurpose,
        request: RequestRecord,
    },
    LlmResponse {
        /// What the model wrote, up to any `Observation:` it invented.
        text: String,
        /// Text after an invented `Observation:`, thrown away.
        discarded: Option<String>,
        usage: Option<Usage>,
        latency_ms: f64,
        /// From the request to the first piece of the reply (text, reasoning or a tool call),
        /// retries included; `None` when nothing came before the whole reply did not either.
        first_token_ms: Option<f64>,
        /// Why the model stopped, in the provider's words, when it said.
        finish_reason: Option<String>,
        /// The stream stopped before the provider said it was done.
        incomplete: bool,
        /// Native tool calls the model made (tool-calling strategy).
        tool_calls: Vec<ToolCall>,
    },
    LlmFailed {
        error: LlmError,
    },
    /// The provider refused for now (rate limit, overload, server error); the call is retried.
    LlmRetry {
        attempt: u32,
        wait_ms: f64,
        reason: String,
    },
    /// The reply was understood as a decision (act or answer); `notes` say what had to be
    /// repaired or was ambiguous.
    Decided {
        thought: Option<String>,
        decision: Decision,
        notes: Vec<String>,
    },
    /// Plan-ReAct: the model's numbered plan (`replan` when it revised it after a failure).
    /// The UI ticks items off as tool calls after it succeed.
    Plan {
        items: Vec<String>,
        /// 1 for the first plan, 2 for the first revision, …
        version: u32,
        replan: bool,
        /// Sent back when the reply held only the plan, asking for its first action.
        observation: Option<String>,
    },
    /// The agent asks the person something instead of guessing (its `ask_person` tool); the
    /// run stops with `StopReason::AskedPerson` and waits for their answer.
    AskedPerson {
        question: String,
    },
    /// The chosen strategy could not be used (e.g. the model does not support native tools),
    /// so the run went on with another.
    StrategyFallback {
        from: Strategy,
        to: Strategy,
        reason: String,
    },
    /// The reply could not be understood.
    ParseFailed {
        /// What is wrong, addressed to the model.
        message: String,
        excerpt: String,
        /// Parse failures so far in this run, this one included.
        count: u32,
        /// Whether `observation` was sent back to the model.
        fed_back: bool,
        observation: String,
    },
    /// A tool call waits for the person's approval (in progress until they choose).
    ApprovalAsked {
        tool: String,
        input: Value,
        /// Where the call would go when not to this page: an MCP server's address.
        via: Option<String>,
    },
    /// The person's choice about the call that waited for it.
    ApprovalGiven {
        tool: String,
        choice: ApprovalChoice,
    },
    /// A service a tool call went to asked the person something (an MCP server's elicitation),
    /// and what they answered.
    ServerAsked {
        /// The server's address.
        server: String,
        question: String,
        /// What went back, with what seemed secret left out.
        answer: String,
        accepted: bool,
    },
    /// A tool call started (in progress until its result or failure arrives).
    ToolCall {
        tool: String,
        input: Value,
        /// Where the call went when not to this page: an MCP server's address.
        via: Option<String>,
    },
    ToolResult {
        tool: String,
        observation: String,
    },
    ToolFailed {
        tool: String,
        message: String,
        timed_out: bool,
        /// Whether the failure was shown to the model as the observation.
        fed_back: bool,
    },
    /// The model named a tool that does not exist.
    UnknownTool {
        requested: String,
        valid: Vec<String>,
    },
    /// The model asked for the same action with the same input too many times in a row.
    RepeatedAction {
        tool: String,
        input: Value,
        times: u32,
    },
    FinalAnswer {
        answer: String,
        source: AnswerSource,
    },
    RunStopped {
        reason: StopReason,
        message: String,
    },
    /// The scope gate's verdict on the question, and why.
    ScopeChecked {
        verdict: ScopeVerdict,
        reason: String,
    },
    /// A branch starts here: the person changed the step this replaces, or asked it again
    /// (`agent::fork`). Boxed: rare, and larger than the common kinds.
    Forked(Box<super::change::Fork>),
}

/// The colour role of an event: blue while something is in progress, green for success, red
/// for errors. Colour is never the only signal: the UI pairs each tone with an icon and label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    Pending,
    Success,
    Error,
    Neutral,
}

impl Tone {
    /// CSS class and `data-tone` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Tone::Pending => "pending",
            Tone::Success => "success",
            Tone::Error => "error",
            Tone::Neutral => "neutral",
        }
    }
}

impl EventKind {
    pub fn tone(&self) -> Tone {
        match self {
            EventKind::RunStarted { .. }
            | EventKind::PersonAnswered { .. }
            | EventKind::Plan { .. }
            | EventKind::AskedPerson { .. }
            | EventKind::Forked(_) => Tone::Neutral,
            EventKind::LlmRequest { .. } | EventKind::ToolCall { .. } | EventKind::ApprovalAsked { .. } => Tone::Pending,
            EventKind::ApprovalGiven { choice: ApprovalChoice::Denied, .. } => Tone::Neutral,
            EventKind::ApprovalGiven { .. } => Tone::Success,
            EventKind::ServerAsked { accepted: true, .. } => Tone::Success,
            EventKind::ServerAsked { .. } => Tone::Neutral,
            EventKind::LlmResponse { incomplete, .. } => {
                if *incomplete {
                    Tone::Error
                } else {
                    Tone::Success
                }
            }
            EventKind::Decided { .. } | EventKind::ToolResult { .. } | EventKind::FinalAnswer { .. } => Tone::Success,
            EventKind::LlmFailed { .. }
            | EventKind::ParseFailed { .. }
            | EventKind::ToolFailed { .. }
            | EventKind::UnknownTool { .. }
            | EventKind::RepeatedAction { .. }
            | EventKind::LlmRetry { .. }
            | EventKind::StrategyFallback { .. } => Tone::Error,
            EventKind::ScopeChecked { verdict, .. } => match verdict {
                ScopeVerdict::InScope => Tone::Success,
                ScopeVerdict::OutOfScope => Tone::Neutral,
                ScopeVerdict::Unreadable => Tone::Error,
            },
            EventKind::RunStopped { reason, .. } => match reason {
                StopReason::Answered => Tone::Success,
                StopReason::Cancelled | StopReason::AskedPerson => Tone::Neutral,
                _ => Tone::Error,
            },
        }
    }

    /// The event's type as a stable snake_case name: its JSON tag (see `EventKind`), the UI's
    /// `data-kind`.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::RunStarted { .. } => "run_started",
            EventKind::LlmRequest { .. } => "llm_request",
            EventKind::LlmResponse { .. } => "llm_response",
            EventKind::LlmFailed { .. } => "llm_failed",
            EventKind::LlmRetry { .. } => "llm_retry",
            EventKind::Decided { .. } => "parsed",
            EventKind::ParseFailed { .. } => "parse_failed",
            EventKind::ApprovalAsked { .. } => "approval_asked",
            EventKind::ApprovalGiven { .. } => "approval_given",
            EventKind::ServerAsked { .. } => "server_asked",
            EventKind::ToolCall { .. } => "tool_call",
            EventKind::ToolResult { .. } => "tool_result",
            EventKind::ToolFailed { .. } => "tool_failed",
            EventKind::UnknownTool { .. } => "unknown_tool",
            EventKind::RepeatedAction { .. } => "repeated_action",
            EventKind::FinalAnswer { .. } => "final_answer",
            EventKind::RunStopped { .. } => "run_stopped",
            EventKind::PersonAnswered { .. } => "person_replied",
            EventKind::Plan { .. } => "plan",
            EventKind::AskedPerson { .. } => "clarify",
            EventKind::StrategyFallback { .. } => "strategy_fallback",
            EventKind::ScopeChecked { .. } => "scope_checked",
            EventKind::Forked(_) => "forked",
        }
    }

    /// A short label naming the kind of event, shown beside its icon.
    pub fn label(&self) -> &'static str {
        match self {
            EventKind::RunStarted { .. } => "Question",
            EventKind::LlmRequest { .. } => "Model request",
            EventKind::LlmResponse { .. } => "Model reply",
            EventKind::LlmFailed { .. } => "Model error",
            EventKind::LlmRetry { .. } => "Retrying",
            EventKind::Decided { .. } => "Decision",
            EventKind::ParseFailed { .. } => "Format error",
            EventKind::ApprovalAsked { .. } => "Approval needed",
            EventKind::ApprovalGiven { choice: ApprovalChoice::Denied, .. } => "Denied by you",
            EventKind::ApprovalGiven { .. } => "Allowed by you",
            EventKind::ServerAsked { .. } => "Asked you",
            EventKind::ToolCall { .. } => "Tool call",
            EventKind::ToolResult { .. } => "Observation",
            EventKind::ToolFailed { .. } => "Tool error",
            EventKind::UnknownTool { .. } => "Unknown tool",
            EventKind::RepeatedAction { .. } => "Repeated action",
            EventKind::FinalAnswer { source: AnswerSource::Direct, .. } => "Direct answer",
            EventKind::FinalAnswer { source: AnswerSource::Declined, .. } => "Declined",
            EventKind::FinalAnswer { .. } => "Final Answer",
            EventKind::RunStopped { .. } => "Stopped",
            EventKind::PersonAnswered { .. } => "Your answer",
            EventKind::Plan { replan: false, .. } => "Plan",
            EventKind::Plan { replan: true, .. } => "Revised plan",
            EventKind::AskedPerson { .. } => "Question for you",
            EventKind::StrategyFallback { .. } => "Strategy fallback",
            EventKind::ScopeChecked { .. } => "Scope check",
            EventKind::Forked(fork) if fork.change == super::change::Change::AskAgain => "Asked again",
            EventKind::Forked(_) => "Edited by you",
        }
    }
}

/// Sums over a run, for the trace footer and comparisons. Token sums add only what providers
/// reported: `replies_counted` of `replies` said their counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Totals {
    pub steps: u32,
    pub llm_calls: u32,
    pub tool_calls: u32,
    pub errors: u32,
    /// The sum of the counts the replies reported.
    pub usage: Usage,
    /// Model replies received, and how many of them came with token counts.
    pub replies: u32,
    pub replies_counted: u32,
    pub duration_ms: f64,
}


impl Totals {
    /// Counts `usage` as one more reply's, or the reply as one without counts.
    fn add_reply(&mut self, usage: Option<&Usage>) {
        self.replies = self.replies.saturating_add(1);
        if let Some(u) = usage {
            self.replies_counted = self.replies_counted.saturating_add(1);
            self.usage.add(u);
        }
    }

    /// The tokens in words, as a reply's row writes them ("1,200 in · 80 out tokens (512
    /// cached)"), "tokens —" when nothing was reported, and how many replies were left out
    /// when some were not.
    pub fn tokens_text(&self) -> String {
        let counted = (self.replies_counted > 0).then_some(&self.usage);
        let mut text = row::usage_text(counted);
        if counted.is_some() && self.replies_counted < self.replies {
            let note = format!("{} of {} replies counted", self.replies_counted, self.replies);
            // One bracket: "(512 cached; 3 of 4 replies counted)".
            match text.strip_suffix(')') {
                Some(open) => text = format!("{open}; {note})"),
                None => text.push_str(&format!(" ({note})")),
            }
        }
        text
    }

    /// The token sums of several runs (a conversation): only the token fields are added.
    pub fn tokens_of<'a>(runs: impl IntoIterator<Item = &'a [Event]>) -> Totals {
        let mut sum = Totals::default();
        for events in runs {
            let t = Totals::of(events);
            sum.replies = sum.replies.saturating_add(t.replies);
            sum.replies_counted = sum.replies_counted.saturating_add(t.replies_counted);
            sum.usage.add(&t.usage);
        }
        sum
    }

    /// Sums over any run of events (a live trace that is still growing, too).
    pub fn of(events: &[Event]) -> Totals {
        let mut t = Totals::default();
        for e in events {
            t.steps = t.steps.max(e.step);
            t.duration_ms = t.duration_ms.max(e.ended_ms);
            // Saturating: an imported file may claim any counts, and an overflow must not
            // panic (debug builds) or wrap to a small number (release builds).
            match &e.kind {
                EventKind::LlmRequest { .. } => t.llm_calls = t.llm_calls.saturating_add(1),
                EventKind::ToolCall { .. } => t.tool_calls = t.tool_calls.saturating_add(1),
                EventKind::LlmResponse { usage, .. } => t.add_reply(usage.as_ref()),
                _ => {}
            }
            if e.kind.tone() == Tone::Error {
                t.errors = t.errors.saturating_add(1);
            }
        }
        t
    }
}

/// How many items of the plan at `events[position]` are done: one per tool call that succeeded
/// after it (before the next plan), and all of them once a final answer follows.
pub fn plan_ticks(events: &[Event], position: usize) -> usize {
    let Some(EventKind::Plan { items, .. }) = events.get(position).map(|e| &e.kind) else {
        return 0;
    };
    let mut done = 0;
    for event in &events[position + 1..] {
        match event.kind {
            EventKind::Plan { .. } => break,
            EventKind::ToolResult { .. } => done += 1,
            EventKind::FinalAnswer { .. } => return items.len(),
            _ => {}
        }
    }
    done.min(items.len())
}

// Readings of a run's events. Free functions over a slice, so the UI, which holds the events it
// shows as a plain list (growing, or several runs continued), reads them without a copy; the
// `Trace` methods of the same names call these.

/// The last final answer given.
pub fn final_answer(events: &[Event]) -> Option<&str> {
    events.iter().rev().find_map(|e| match &e.kind {
        EventKind::FinalAnswer { answer, .. } => Some(answer.as_str()),
        _ => None,
    })
}

/// Why the (last) run ended; `None` while it is going.
pub fn stop_reason(events: &[Event]) -> Option<&StopReason> {
    events.iter().rev().find_map(|e| match &e.kind {
        EventKind::RunStopped { reason, .. } => Some(reason),
        _ => None,
    })
}

/// The question the agent asked the person, when the run ended waiting for their answer.
pub fn open_question(events: &[Event]) -> Option<&str> {
    if stop_reason(events) != Some(&StopReason::AskedPerson) {
        return None;
    }
    events.iter().rev().find_map(|e| match &e.kind {
        EventKind::AskedPerson { question } => Some(question.as_str()),
        _ => None,
    })
}

/// The question the (first) run was asked.
pub fn question(events: &[Event]) -> Option<&str> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::RunStarted { question, .. } => Some(question.as_str()),
        _ => None,
    })
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    pub events: Vec<Event>,
}

impl Trace {
    pub fn final_answer(&self) -> Option<&str> {
        final_answer(&self.events)
    }

    /// The question the agent asked the person, when the run ended waiting for their answer.
    pub fn open_question(&self) -> Option<&str> {
        open_question(&self.events)
    }

    pub fn stop_reason(&self) -> Option<&StopReason> {
        stop_reason(&self.events)
    }

    pub fn totals(&self) -> Totals {
        Totals::of(&self.events)
    }
}


#[cfg(test)]
mod tests;
