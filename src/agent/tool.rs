//! The seam between the agent and its tools: the `Tool` trait, its error type and the context a
//! tool may use while it runs (for example to ask the model to rewrite its input, as the
//! calculator does with prose questions). Concrete tools live in `crate::tools`.

use serde_json::Value;
use std::fmt;

use super::model::{ChatModel, ChatRequest, ChatResponse, LlmError};
use super::LocalBoxFuture;

/// Why a tool call failed. Tool errors are usually shown to the model as the observation (it can
/// try another input), unless the settings say a failing tool ends the run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub message: String,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        ToolError { message: message.into() }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// Records a model call a tool made: the request, its outcome and its latency in ms.
pub(crate) type ModelCallRecorder<'a> = dyn Fn(&ChatRequest, &Result<ChatResponse, LlmError>, f64) + 'a;

/// What a tool may use while it runs.
pub struct ToolContext<'a> {
    pub(crate) model: &'a dyn ChatModel,
    /// Records a model call the tool makes, so the trace shows it (the caller fills step/tool).
    pub(crate) on_model_call: &'a ModelCallRecorder<'a>,
    pub(crate) now_ms: &'a dyn Fn() -> f64,
    /// Told of the tool's progress (see `progress`).
    pub(crate) on_progress: &'a dyn Fn(&str),
    /// Told when the tool starts (`true`) and stops waiting on the person (see `asking`).
    pub(crate) on_asking: &'a dyn Fn(bool),
    /// Told what the person was asked and answered (see `asked`).
    pub(crate) on_asked: &'a dyn Fn(AskedYou),
    /// Told of a view the call's result comes with (see `show_view`).
    pub(crate) on_view: &'a dyn Fn(Value),
}

/// A question a tool's service asked the person while the tool ran (an MCP server's
/// elicitation), and their answer, as the trace keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct AskedYou {
    /// Who asked: the server's address.
    pub server: String,
    pub question: String,
    /// What was sent back, secrets already left out.
    pub answer: String,
    /// Whether they accepted (else they declined or cancelled).
    pub accepted: bool,
}

impl<'a> ToolContext<'a> {
    /// The tool is still at work: `text` says how far (shown live on its step), and its
    /// silence limit (`Tool::timeout_ms`) starts again. The run's own time limit still holds.
    pub fn progress(&self, text: &str) {
        (self.on_progress)(text);
    }

    /// The tool waits on the person (`true`: a server asked them something) or no longer does:
    /// its silence limit pauses meanwhile and starts again whole from the answer. Stop and the
    /// run's own time limit still hold.
    pub fn asking(&self, on: bool) {
        (self.on_asking)(on);
    }

    /// The person answered a question the tool's service asked them: a step of the trace.
    pub fn asked(&self, exchange: AskedYou) {
        (self.on_asked)(exchange);
    }

    /// The call's result comes with a view of its own (an MCP App): what the page needs to
    /// show it beside the run's answer. Live only: the record keeps the text result.
    pub fn show_view(&self, view: Value) {
        (self.on_view)(view);
    }

    /// The run's model, by name.
    pub fn model_name(&self) -> super::model::ModelName {
        self.model.name()
    }

    /// Asks the run's model for a completion on the tool's behalf. The call appears in the trace.
    pub async fn ask_model(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = (self.now_ms)();
        let result = self.model.complete(&request, &|_| {}).await;
        (self.on_model_call)(&request, &result, (self.now_ms)() - started);
        result
    }
}

/// Runs one tool call outside a run (tests, a tool playground): the tool's own model calls go
/// to `model` and are not recorded anywhere.
pub async fn call_with_model(tool: &dyn Tool, input: &Value, model: &dyn ChatModel) -> Result<String, ToolError> {
    let now = || 0.0;
    let cx = ToolContext { model, on_model_call: &|_, _, _| {}, now_ms: &now, on_progress: &|_| {}, on_asking: &|_| {}, on_asked: &|_| {}, on_view: &|_| {} };
    tool.call(input, &cx).await
}

/// Something the agent can do. `name` is what the model writes in `"action"`; `description`
/// is what the prompt tells the model about when and how to use it.
pub trait Tool {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// A JSON schema of the input, for native tool calling. `None` means "one string".
    fn input_schema(&self) -> Option<Value> {
        None
    }
    /// A compact statement of the input for the text strategies' tool list (ReAct,
    /// Plan-ReAct), for tools whose description does not already say what to send.
    fn input_hint(&self) -> Option<&str> {
        None
    }
    /// Where the tool runs when that is not this page (an MCP server's address), for the trace.
    fn origin(&self) -> Option<&str> {
        None
    }
    /// What the tool's source asks of whoever uses it (an MCP server's `instructions`): the
    /// system prompt quotes it once per `origin`, marked as that source's.
    fn instructions(&self) -> Option<&str> {
        None
    }
    /// When true, each call waits for the person's approval first (`RunObserver::approve`).
    fn needs_approval(&self) -> bool {
        false
    }
    /// When true, the tool's observation is the run's final answer.
    fn return_direct(&self) -> bool {
        false
    }
    /// This tool's own time limit; `None` uses the run's default (`AgentSettings::tool_timeout_ms`).
    /// A limit of silence: each `ToolContext::progress` starts it again.
    fn timeout_ms(&self) -> Option<f64> {
        None
    }
    fn call<'a>(&'a self, input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>>;
}

/// The text a tool receives when the model gave `action_input` as a JSON value: strings are
/// used as they are, an object with a single string field is unwrapped (models often write
/// `{"query": "…"}`), anything else is passed as compact JSON.
pub fn input_as_text(input: &Value) -> String {
    match input {
        Value::String(s) => s.clone(),
        Value::Object(map) if map.len() == 1 => match map.values().next() {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        },
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The tool that runs code the model writes (`crate::tools::python`). The trace shows its input
/// as code and its result as the code's output, so it is named here, below both.
pub const CODE_TOOL: &str = "python";

/// The code in a call of the code tool, however the model gave it: `{"code": "…"}` (native tool
/// calling, or a JSON blob), a plain string, or either with the code inside a fenced block
/// (```` ```python … ``` ````), which models often write inside `action_input`.
pub fn code_input(input: &Value) -> String {
    let text = match input {
        Value::Object(map) => match map.get("code").or_else(|| map.get("source")).or_else(|| if map.len() == 1 { map.values().next() } else { None }) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        },
        other => input_as_text(other),
    };
    unfenced(&text).to_string()
}

/// The inside of the first fenced block of `text` when it has one (any language tag), else
/// `text` without surrounding blank lines.
fn unfenced(text: &str) -> &str {
    let Some(open) = text.find("```") else { return text.trim_matches(|c| c == '\n' || c == '\r') };
    let after = &text[open + 3..];
    // The language tag runs to the end of the opening line.
    let body = match after.find('\n') {
        Some(nl) if after[..nl].trim().chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '+') => &after[nl + 1..],
        _ => after,
    };
    let body = match body.find("```") {
        Some(close) => &body[..close],
        None => body,
    };
    body.trim_end_matches([' ', '\t']).trim_matches(|c| c == '\n' || c == '\r')
}
