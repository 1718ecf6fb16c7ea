//! A run as OpenTelemetry spans, following the GenAI semantic conventions: one trace per run,
//! an `invoke_agent` root, a `chat {model}` span per model call (a tool's own calls under that
//! tool's span), an `execute_tool {tool}` span per tool call, a `plan` span per Plan-ReAct plan.
//! Failures are span statuses; retries, approvals and recovered mistakes are span events.
//! `otlp.rs` writes the spans as OTLP/HTTP JSON, the file Jaeger opens and collectors accept.
//!
//! Pure: events in, spans out. It reads the trace the page shows (masked where it came in) and
//! masks again with the secrets it is given, since the file leaves the page. Tested with
//! scripted runs of every strategy in `agent/tests/otel.rs`.

use serde_json::{json, Value};

use crate::agent::model::{Message, Role, Usage};
use crate::agent::trace::{ApprovalChoice, EventKind, LlmPurpose, Rebuilder, StopReason};
use crate::agent::{Event, ModelName};
use crate::secrets::{mask, Secrets};

pub mod evaluation;
mod otlp;
pub mod send;

pub use otlp::{otlp_json, otlp_json_of};
pub use send::Collector;

/// The agent's name on its spans.
pub const AGENT_NAME: &str = "Thoughtline";

/// Messages of a model call's input kept whole on its span; earlier ones are counted, not
/// copied (a long run's prompts repeat each other, and a file of them all would grow with the
/// square of its length).
pub const INPUT_BYTES: usize = 32 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    Internal = 1,
    Client = 3,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Strs(Vec<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SpanEvent {
    pub name: &'static str,
    pub unix_ns: u64,
    pub attributes: Vec<(&'static str, Attr)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    pub name: String,
    pub kind: SpanKind,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attributes: Vec<(&'static str, Attr)>,
    pub events: Vec<SpanEvent>,
    /// An error, with its message; `None` is OTLP's "unset".
    pub error: Option<String>,
    /// Spans of other traces this one follows from (a branch's root: the step it forked from).
    pub links: Vec<SpanLink>,
}

/// A span of another trace, and what it is to this one.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanLink {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub attributes: Vec<(&'static str, Attr)>,
}

/// One run's spans: the root first, then in the order they started.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTrace {
    pub trace_id: [u8; 16],
    pub spans: Vec<Span>,
}

/// Where a run came from: its conversation (for `gen_ai.conversation.id`, and with the run's
/// start, the seed of its ids, so the same run always has the same trace id).
pub struct RunSource<'a> {
    pub conversation_id: &'a str,
    /// The events of the run, or of a branch from its `Forked` event on.
    pub events: &'a [Event],
    /// For a branch: the events its parent's trace is made of (the run's, or the parent
    /// branch's own), which its root links to at the step it forked from.
    pub parent: Option<&'a [Event]>,
}

/// The trace id a run's (or a branch's) events are exported under.
fn trace_id_of(conversation_id: &str, events: &[Event]) -> Option<[u8; 16]> {
    let first = events.first()?;
    let started_unix_ms = events.iter().find_map(|e| match &e.kind {
        EventKind::RunStarted { started_unix_ms, .. } => Some(*started_unix_ms - e.started_ms),
        _ => None,
    });
    Some(trace_id(conversation_id, started_unix_ms.unwrap_or(0.0), first))
}

/// The link from a branch's root to the span of its parent's trace that holds the step it
/// forked from: that step's model call or tool call, or the parent's root.
fn fork_link(conversation_id: &str, parent: &[Event], from: u32) -> Option<SpanLink> {
    let trace_id = trace_id_of(conversation_id, parent)?;
    let at = parent.iter().position(|e| e.index == from)?;
    let step = parent[at].step;
    let opener = parent[..=at].iter().rev().take_while(|e| e.step == step && step > 0).find(|e| {
        matches!(e.kind, EventKind::LlmRequest { purpose: LlmPurpose::Step, .. } | EventKind::ToolCall { .. } | EventKind::Plan { .. })
    });
    let span_id = span_id(&trace_id, opener.map_or(u32::MAX, |e| e.index));
    Some(SpanLink { trace_id, span_id, attributes: vec![("thoughtline.link", Attr::Str("forked_from".into())), ("thoughtline.forked_from.event", Attr::Int(from as i64))] })
}

/// The spans of one run. `None` for a run without events (nothing happened to trace).
pub fn run_trace(source: &RunSource<'_>, secrets: &Secrets) -> Option<RunTrace> {
    let events = source.events;
    let started_unix_ms = events.iter().find_map(|e| match &e.kind {
        EventKind::RunStarted { started_unix_ms, .. } => Some(*started_unix_ms - e.started_ms),
        _ => None,
    });
    let trace_id = trace_id_of(source.conversation_id, events)?;
    let mut b = Builder { trace_id, secrets, spans: Vec::new(), base_ms: started_unix_ms.unwrap_or(0.0), model: ModelName::default(), requests: Rebuilder::default() };
    b.walk(source);
    Some(RunTrace { trace_id, spans: b.spans })
}

struct Builder<'a> {
    trace_id: [u8; 16],
    secrets: &'a Secrets,
    spans: Vec<Span>,
    /// Unix ms of the run's time 0; a continued run (after the person's answer) has its own.
    base_ms: f64,
    model: ModelName,
    /// Rebuilds each model call's request from the one before it.
    requests: Rebuilder,
}

impl Builder<'_> {
    /// Unix nanoseconds of `ms` after the run's time 0: whole milliseconds and the rest added
    /// as integers, since an f64 of Unix nanoseconds would round to hundreds of them.
    fn ns(&self, ms: f64) -> u64 {
        let whole = self.base_ms.floor();
        let rest = (self.base_ms - whole + ms) * 1_000_000.0;
        if !whole.is_finite() || !rest.is_finite() || whole <= 0.0 {
            return 0;
        }
        (whole as u64).saturating_mul(1_000_000).saturating_add_signed(rest.round() as i64)
    }

    fn text(&self, s: &str) -> Attr {
        Attr::Str(mask(s, self.secrets))
    }

    fn span(&mut self, index: u32, parent: Option<[u8; 8]>, name: String, kind: SpanKind, start_ms: f64) -> usize {
        let start = self.ns(start_ms);
        self.spans.push(Span { id: span_id(&self.trace_id, index), parent, name, kind, start_ns: start, end_ns: start, attributes: Vec::new(), events: Vec::new(), error: None, links: Vec::new() });
        self.spans.len() - 1
    }

    fn end(&mut self, at: usize, ended_ms: f64) {
        let end = self.ns(ended_ms);
        let span = &mut self.spans[at];
        span.end_ns = end.max(span.start_ns);
    }

    fn event(&mut self, at: usize, name: &'static str, ms: f64, attributes: Vec<(&'static str, Attr)>) {
        let unix_ns = self.ns(ms);
        self.spans[at].events.push(SpanEvent { name, unix_ns, attributes });
    }

    fn walk(&mut self, source: &RunSource<'_>) {
        let events = source.events;
        let root = self.span(u32::MAX, None, format!("invoke_agent {AGENT_NAME}"), SpanKind::Internal, events[0].started_ms);
        let mut question = None;
        let mut model_call: Option<usize> = None;
        let mut tool_call: Option<usize> = None;
        // Native call ids of the last reply, matched to its tool calls in order.
        let mut native_ids: Vec<(String, String)> = Vec::new();
        let mut end_ms = 0.0f64;
        let mut totals = Usage::default();
        let mut counted = false;
        let mut answer = None;
        for (position, e) in events.iter().enumerate() {
            end_ms = end_ms.max(e.ended_ms);
            match &e.kind {
                EventKind::RunStarted { question: q, started_unix_ms, strategy, model, .. } => {
                    self.base_ms = started_unix_ms - e.started_ms;
                    if question.is_none() {
                        question = Some(q.clone());
                        self.spans[root].start_ns = self.ns(e.started_ms);
                        self.model = model.clone();
                        self.spans[root].attributes.push(("thoughtline.strategy", Attr::Str(strategy.id().to_string())));
                    } else {
                        self.event(root, "thoughtline.run_continued", e.started_ms, vec![]);
                    }
                }
                EventKind::PersonAnswered { answer } => {
                    let text = self.text(answer);
                    self.event(root, "thoughtline.person_answered", e.started_ms, vec![("thoughtline.answer", text)]);
                }
                EventKind::LlmRequest { purpose, .. } => {
                    let parent = match (purpose, tool_call) {
                        (LlmPurpose::Tool { .. }, Some(tool)) => self.spans[tool].id,
                        _ => self.spans[root].id,
                    };
                    let name = if self.model.model.is_empty() { "chat".to_string() } else { format!("chat {}", self.model.model) };
                    let at = self.span(e.index, Some(parent), name, SpanKind::Client, e.started_ms);
                    self.chat_request(at, events, position, purpose);
                    model_call = Some(at);
                }
                EventKind::LlmRetry { attempt, wait_ms, reason } => {
                    if let Some(at) = model_call {
                        let reason = self.text(reason);
                        self.event(at, "thoughtline.retry", e.started_ms, vec![
                            ("thoughtline.retry.attempt", Attr::Int(*attempt as i64)),
                            ("thoughtline.retry.wait_s", Attr::Float(wait_ms / 1000.0)),
                            ("thoughtline.retry.reason", reason),
                        ]);
                    }
                }
                EventKind::LlmResponse { text, usage, first_token_ms, finish_reason, tool_calls, .. } => {
                    if let Some(at) = model_call.take() {
                        if let Some(u) = usage {
                            usage_attributes(&mut self.spans[at].attributes, u);
                            totals.add(u);
                            counted = true;
                        }
                        if let Some(ms) = first_token_ms {
                            self.spans[at].attributes.push(("gen_ai.response.time_to_first_chunk", Attr::Float(ms / 1000.0)));
                        }
                        if let Some(reason) = finish_reason {
                            self.spans[at].attributes.push(("gen_ai.response.finish_reasons", Attr::Strs(vec![reason.clone()])));
                        }
                        let mut parts: Vec<Value> = Vec::new();
                        if !text.is_empty() {
                            parts.push(json!({"type": "text", "content": mask(text, self.secrets)}));
                        }
                        for call in tool_calls {
                            let arguments: Value = serde_json::from_str(&mask(&call.arguments, self.secrets)).unwrap_or_else(|_| Value::String(mask(&call.arguments, self.secrets)));
                            parts.push(json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": arguments}));
                        }
                        let mut message = json!({"role": "assistant", "parts": parts});
                        if let Some(reason) = finish_reason {
                            message["finish_reason"] = json!(reason);
                        }
                        self.spans[at].attributes.push(("gen_ai.output.messages", Attr::Str(json!([message]).to_string())));
                        native_ids = tool_calls.iter().map(|c| (c.name.clone(), c.id.clone())).collect();
                        self.end(at, e.ended_ms);
                    }
                }
                EventKind::LlmFailed { error } => {
                    if let Some(at) = model_call.take() {
                        self.spans[at].attributes.push(("error.type", Attr::Str(error_type(&error.kind))));
                        self.spans[at].error = Some(mask(&error.message, self.secrets));
                        self.end(at, e.ended_ms);
                    }
                }
                EventKind::Plan { items, version, replan, .. } => {
                    let at = self.span(e.index, Some(self.spans[root].id), "plan".to_string(), SpanKind::Internal, e.started_ms);
                    let items: Vec<String> = items.iter().map(|i| mask(i, self.secrets)).collect();
                    let span = &mut self.spans[at];
                    span.attributes.push(("gen_ai.operation.name", Attr::Str("plan".into())));
                    span.attributes.push(("thoughtline.plan.items", Attr::Strs(items)));
                    span.attributes.push(("thoughtline.plan.version", Attr::Int(*version as i64)));
                    span.attributes.push(("thoughtline.plan.revised", Attr::Bool(*replan)));
                    self.end(at, e.ended_ms);
                }
                EventKind::ApprovalAsked { tool, .. } => {
                    let tool = self.text(tool);
                    self.event(root, "thoughtline.approval_asked", e.started_ms, vec![("gen_ai.tool.name", tool)]);
                }
                EventKind::ApprovalGiven { tool, choice } => {
                    let tool = self.text(tool);
                    let choice = match choice {
                        ApprovalChoice::Once => "once",
                        ApprovalChoice::Always => "always",
                        ApprovalChoice::Denied => "denied",
                    };
                    self.event(root, "thoughtline.approval_given", e.started_ms, vec![("gen_ai.tool.name", tool), ("thoughtline.approval.choice", Attr::Str(choice.into()))]);
                }
                // Under the call it happened in, when that call's span is open.
                EventKind::ServerAsked { server, accepted, .. } => {
                    let server = self.text(server);
                    let parent = tool_call.unwrap_or(root);
                    self.event(parent, "thoughtline.server_asked", e.started_ms, vec![("server.address", server), ("thoughtline.asked.accepted", Attr::Bool(*accepted))]);
                }
                EventKind::ToolCall { tool, input, via } => {
                    let at = self.span(e.index, Some(self.spans[root].id), format!("execute_tool {tool}"), SpanKind::Internal, e.started_ms);
                    let id = match native_ids.iter().position(|(name, _)| name == tool) {
                        Some(i) => native_ids.remove(i).1,
                        None => format!("step{}-{}", e.step, e.index),
                    };
                    let arguments = self.text(&input.to_string());
                    let span = &mut self.spans[at];
                    span.attributes.push(("gen_ai.operation.name", Attr::Str("execute_tool".into())));
                    span.attributes.push(("gen_ai.tool.name", Attr::Str(tool.clone())));
                    span.attributes.push(("gen_ai.tool.call.id", Attr::Str(id)));
                    span.attributes.push(("gen_ai.tool.type", Attr::Str(if via.is_some() { "extension" } else { "function" }.into())));
                    span.attributes.push(("gen_ai.tool.call.arguments", arguments));
                    if let Some(via) = via {
                        let via = mask(via, self.secrets);
                        span.attributes.push(("server.address", Attr::Str(via)));
                    }
                    tool_call = Some(at);
                }
                EventKind::ToolResult { observation, .. } => {
                    if let Some(at) = tool_call.take() {
                        let result = self.text(observation);
                        self.spans[at].attributes.push(("gen_ai.tool.call.result", result));
                        self.end(at, e.ended_ms);
                    }
                }
                EventKind::ToolFailed { message, timed_out, .. } => {
                    if let Some(at) = tool_call.take() {
                        let span = &mut self.spans[at];
                        span.attributes.push(("error.type", Attr::Str(if *timed_out { "timeout" } else { "tool_error" }.into())));
                        span.error = Some(mask(message, self.secrets));
                        self.end(at, e.ended_ms);
                    }
                }
                EventKind::ParseFailed { message, count, fed_back, .. } => {
                    let message = self.text(message);
                    self.event(root, "thoughtline.format_error", e.started_ms, vec![
                        ("thoughtline.message", message),
                        ("thoughtline.count", Attr::Int(*count as i64)),
                        ("thoughtline.sent_back", Attr::Bool(*fed_back)),
                    ]);
                }
                EventKind::UnknownTool { requested, .. } => {
                    let requested = self.text(requested);
                    self.event(root, "thoughtline.unknown_tool", e.started_ms, vec![("gen_ai.tool.name", requested)]);
                }
                EventKind::RepeatedAction { tool, times, .. } => {
                    let tool = self.text(tool);
                    self.event(root, "thoughtline.repeated_action", e.started_ms, vec![("gen_ai.tool.name", tool), ("thoughtline.times", Attr::Int(*times as i64))]);
                }
                EventKind::StrategyFallback { from, to, reason } => {
                    let reason = self.text(reason);
                    self.event(root, "thoughtline.strategy_fallback", e.started_ms, vec![
                        ("thoughtline.from", Attr::Str(from.id().into())),
                        ("thoughtline.to", Attr::Str(to.id().into())),
                        ("thoughtline.reason", reason),
                    ]);
                }
                EventKind::AskedPerson { question } => {
                    let question = self.text(question);
                    self.event(root, "thoughtline.asked_person", e.started_ms, vec![("thoughtline.question", question)]);
                }
                EventKind::ScopeChecked { verdict, reason } => {
                    let reason = self.text(reason);
                    self.event(root, "thoughtline.scope_checked", e.started_ms, vec![("thoughtline.verdict", Attr::Str(format!("{verdict:?}").to_lowercase())), ("thoughtline.reason", reason)]);
                }
                EventKind::FinalAnswer { answer: a, .. } => answer = Some(a.clone()),
                EventKind::RunStopped { reason, message } => {
                    let failed = !matches!(reason, StopReason::Answered | StopReason::AskedPerson | StopReason::Cancelled);
                    if failed {
                        self.spans[root].error = Some(mask(message, self.secrets));
                        self.spans[root].attributes.push(("error.type", Attr::Str(stop_type(reason).into())));
                    }
                }
                EventKind::Decided { .. } => {}
                EventKind::Forked(fork) => {
                    let text = self.text(&fork.change.text());
                    self.event(root, "thoughtline.forked", e.started_ms, vec![
                        ("thoughtline.change", Attr::Str(fork.change.name().into())),
                        ("thoughtline.edited_text", text),
                        ("thoughtline.settings", Attr::Str(fork.settings.name().into())),
                    ]);
                    let span = &mut self.spans[root];
                    span.attributes.push(("thoughtline.branch.from", Attr::Int(fork.branch as i64)));
                    span.attributes.push(("thoughtline.edited", Attr::Bool(fork.change != crate::agent::fork::Change::AskAgain)));
                    if let Some(link) = source.parent.and_then(|parent| fork_link(source.conversation_id, parent, fork.from)) {
                        span.links.push(link);
                    }
                }
            }
        }
        // A call still open when the events end (a run cut off): it ends with the run.
        for at in [model_call, tool_call].into_iter().flatten() {
            self.end(at, end_ms);
        }
        self.end(root, end_ms);
        let model = self.model.clone();
        let conversation = mask(source.conversation_id, self.secrets);
        let question = question.map(|q| mask(&q, self.secrets));
        let answer = answer.map(|a| mask(&a, self.secrets));
        let span = &mut self.spans[root];
        let mut attributes = vec![
            ("gen_ai.operation.name", Attr::Str("invoke_agent".into())),
            ("gen_ai.agent.name", Attr::Str(AGENT_NAME.into())),
        ];
        attributes.extend(model_attributes(&model));
        if !conversation.is_empty() {
            attributes.push(("gen_ai.conversation.id", Attr::Str(conversation)));
        }
        if let Some(q) = question {
            attributes.push(("gen_ai.input.messages", Attr::Str(json!([{"role": "user", "parts": [{"type": "text", "content": q}]}]).to_string())));
        }
        if let Some(a) = answer {
            attributes.push(("gen_ai.output.messages", Attr::Str(json!([{"role": "assistant", "parts": [{"type": "text", "content": a}]}]).to_string())));
        }
        if counted {
            usage_attributes(&mut attributes, &totals);
        }
        attributes.append(&mut span.attributes);
        span.attributes = attributes;
    }

    /// A model call's request attributes, read from the request as it was sent.
    fn chat_request(&mut self, at: usize, events: &[Event], position: usize, purpose: &LlmPurpose) {
        let (model, secrets) = (self.model.clone(), self.secrets);
        let mut attributes = vec![("gen_ai.operation.name", Attr::Str("chat".into()))];
        attributes.extend(model_attributes(&model));
        attributes.push(("thoughtline.purpose", Attr::Str(purpose_name(purpose).into())));
        if let Ok(request) = self.requests.request_at(events, position) {
            attributes.push(("gen_ai.request.temperature", Attr::Float(request.temperature as f64)));
            if let Some(max) = request.max_tokens {
                attributes.push(("gen_ai.request.max_tokens", Attr::Int(max as i64)));
            }
            if !request.stop.is_empty() {
                attributes.push(("gen_ai.request.stop_sequences", Attr::Strs(request.stop.clone())));
            }
            if request.json_format.is_some() {
                attributes.push(("gen_ai.output.type", Attr::Str("json".into())));
            }
            let (kept, left_out) = input_messages(&request.messages, secrets);
            attributes.push(("gen_ai.input.messages", Attr::Str(kept)));
            if left_out > 0 {
                attributes.push(("thoughtline.input.messages_left_out", Attr::Int(left_out as i64)));
            }
        }
        self.spans[at].attributes.extend(attributes);
    }
}

fn model_attributes(model: &ModelName) -> Vec<(&'static str, Attr)> {
    let mut out = Vec::new();
    if !model.provider.is_empty() {
        out.push(("gen_ai.provider.name", Attr::Str(provider_name(&model.provider).into())));
    }
    if !model.model.is_empty() {
        out.push(("gen_ai.request.model", Attr::Str(model.model.clone())));
    }
    out
}

/// The conventions' well-known provider names where one applies; our preset's id otherwise.
pub fn provider_name(preset: &str) -> &str {
    match preset {
        "openai" => "openai",
        "anthropic" => "anthropic",
        "deepseek" => "deepseek",
        "groq" => "groq",
        "openrouter" => "openrouter",
        "dashscope" => "alibaba.dashscope",
        "llamacpp" => "llama.cpp",
        "in-page" => "llama.cpp.in_page",
        other => other,
    }
}

fn purpose_name(purpose: &LlmPurpose) -> &'static str {
    match purpose {
        LlmPurpose::Step => "step",
        LlmPurpose::LastAnswer => "last_answer",
        LlmPurpose::Tool { .. } => "tool",
        LlmPurpose::ScopeCheck => "scope_check",
    }
}

fn usage_attributes(attributes: &mut Vec<(&'static str, Attr)>, u: &Usage) {
    attributes.push(("gen_ai.usage.input_tokens", Attr::Int(u.prompt_tokens as i64)));
    attributes.push(("gen_ai.usage.output_tokens", Attr::Int(u.completion_tokens as i64)));
    if let Some(n) = u.cached_tokens {
        attributes.push(("gen_ai.usage.cache_read.input_tokens", Attr::Int(n as i64)));
    }
    if let Some(n) = u.reasoning_tokens {
        attributes.push(("gen_ai.usage.reasoning.output_tokens", Attr::Int(n as i64)));
    }
}

/// A model call's input as the conventions' message list (JSON text), within `INPUT_BYTES`:
/// the newest messages that fit, and how many earlier ones were left out. A newest message
/// too big alone (a ReAct scratchpad holds the whole run) keeps its end, its start replaced by
/// a note of how much was left out.
fn input_messages(messages: &[Message], secrets: &Secrets) -> (String, usize) {
    // Each message is written once, as text, and the kept ones joined into the array.
    let mut kept: Vec<String> = Vec::new();
    let mut size = 0;
    for m in messages.iter().rev() {
        let content = mask(&m.content, secrets);
        let mut message = message_json(m, &content, secrets).to_string();
        if size + message.len() > INPUT_BYTES {
            if !kept.is_empty() {
                break;
            }
            message = end_of(m, &content, secrets, INPUT_BYTES);
        }
        size += message.len();
        kept.push(message);
    }
    let left_out = messages.len() - kept.len();
    kept.reverse();
    (format!("[{}]", kept.join(",")), left_out)
}

/// `m` written with only the end of its (masked) `content`, in at most `room` bytes of JSON
/// where the rest of the message leaves room for any of it.
fn end_of(m: &Message, content: &str, secrets: &Secrets, room: usize) -> String {
    let mut keep = content.len().min(room);
    loop {
        let mut start = content.len() - keep;
        while !content.is_char_boundary(start) {
            start += 1;
        }
        let cut = format!("[{} characters left out]\n{}", content[..start].chars().count(), &content[start..]);
        let json = message_json(m, &cut, secrets).to_string();
        // JSON escapes make the text longer than its bytes: take off what is over, again.
        if json.len() <= room || keep == 0 {
            return json;
        }
        keep = keep.saturating_sub(json.len() - room);
    }
}

/// `m` in the conventions' form, with `content` (already masked) for its text.
fn message_json(m: &Message, content: &str, secrets: &Secrets) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut parts = Vec::new();
    if let (Role::Tool, Some(id)) = (m.role, &m.tool_call_id) {
        parts.push(json!({"type": "tool_call_response", "id": id, "result": content}));
    } else if !content.is_empty() {
        parts.push(json!({"type": "text", "content": content}));
    }
    for call in &m.tool_calls {
        parts.push(json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": mask(&call.arguments, secrets)}));
    }
    json!({"role": role, "parts": parts})
}

fn error_type(kind: &crate::agent::LlmErrorKind) -> String {
    use crate::agent::LlmErrorKind as K;
    match kind {
        K::Auth => "auth".into(),
        K::NotFound => "not_found".into(),
        K::RateLimited => "rate_limited".into(),
        K::Server { status } | K::BadRequest { status } => status.to_string(),
        K::ContextLength => "context_length".into(),
        K::Network => "network".into(),
        K::Timeout => "timeout".into(),
        K::BadResponse => "bad_response".into(),
        K::Empty => "empty_reply".into(),
        K::TooLarge { .. } => "too_large".into(),
        K::Redirected { .. } => "redirected".into(),
        K::ToolsUnsupported => "tools_unsupported".into(),
        K::Cancelled => "cancelled".into(),
    }
}

fn stop_type(reason: &StopReason) -> &'static str {
    match reason {
        StopReason::MaxIterations { .. } => "max_iterations",
        StopReason::MaxTime { .. } => "max_time",
        StopReason::Interrupted => "interrupted",
        StopReason::ModelFailed => "model_failed",
        StopReason::ToolFailed { .. } => "tool_failed",
        StopReason::ParseFailed => "parse_failed",
        _ => "_OTHER",
    }
}

/// FNV-1a, 64 bits: ids only need to be spread and repeatable, not secret.
fn fnv(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = seed;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The run's trace id: from its conversation, its start and its first event, so exporting or
/// sending the same run twice gives the same id (a collector sees one trace). Never all zeros,
/// which OTLP reserves for "no id".
fn trace_id(conversation: &str, started_unix_ms: f64, first: &Event) -> [u8; 16] {
    let mut seed = conversation.as_bytes().to_vec();
    seed.extend_from_slice(&started_unix_ms.to_bits().to_le_bytes());
    seed.extend_from_slice(&first.started_ms.to_bits().to_le_bytes());
    let a = fnv(0xcbf2_9ce4_8422_2325, &seed);
    let b = fnv(0x8422_2325_cbf2_9ce4, &seed).max(1);
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&a.to_be_bytes());
    id[8..].copy_from_slice(&b.to_be_bytes());
    id
}

/// A span's id: from the trace and the event that opened it (`u32::MAX` for the root).
fn span_id(trace: &[u8; 16], index: u32) -> [u8; 8] {
    let mut seed = trace.to_vec();
    seed.extend_from_slice(&index.to_le_bytes());
    fnv(0xcbf2_9ce4_8422_2325, &seed).max(1).to_be_bytes()
}
