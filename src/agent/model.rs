//! The seam between the agent and a language model: the `ChatModel` trait and the plain data
//! that crosses it. Providers (OpenAI-compatible, Anthropic, …) live in `crate::llm` and
//! implement this trait; the agent never knows which one it talks to.
//!
//! Nothing here holds an API key: keys live inside provider values and never enter a
//! `ChatRequest`, so they cannot leak into the trace, which records requests verbatim.

use serde::Serialize;
use serde_json::Value;
use std::fmt;

use super::LocalBoxFuture;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    /// The result of a native tool call, answering the assistant's call with `tool_call_id`.
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Native tool calls the assistant made in this turn (tool-calling strategy only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: which call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// One native function call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them: JSON text, not always valid.
    pub arguments: String,
}

/// A tool offered to the model as a function (OpenAI `tools`, Anthropic `tools`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

/// Constrains the reply to JSON matching `schema` (OpenAI `response_format: json_schema`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonFormat {
    pub name: String,
    pub schema: Value,
}

impl Message {
    fn new(role: Role, content: String) -> Self {
        Message { role, content, tool_calls: Vec::new(), tool_call_id: None }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Message::new(Role::System, content.into())
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message::new(Role::User, content.into())
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::new(Role::Assistant, content.into())
    }
    /// An assistant turn that called tools natively.
    pub fn assistant_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Message { tool_calls: calls, ..Message::new(Role::Assistant, content.into()) }
    }
    /// The result of the native tool call `id`.
    pub fn tool_result(id: impl Into<String>, content: impl Into<String>) -> Self {
        Message { tool_call_id: Some(id.into()), ..Message::new(Role::Tool, content.into()) }
    }
}

/// Everything a provider needs for one completion. The trace records it as a `RequestRecord`
/// (what it adds to the run's previous request), from which `trace::request_at` rebuilds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    /// Stop sequences. The agent also enforces `Observation:` itself, since some servers ignore stop.
    pub stop: Vec<String>,
    pub temperature: f32,
    pub max_tokens: Option<u32>,
    /// Functions the model may call natively (tool-calling strategy); empty otherwise.
    pub tools: Vec<ToolSpec>,
    /// Structured output: the reply must be JSON matching this schema.
    pub json_format: Option<JsonFormat>,
}

impl ChatRequest {
    /// A plain request: messages and sampling, no stop sequences, tools or output format.
    pub fn new(messages: Vec<Message>, temperature: f32, max_tokens: Option<u32>) -> Self {
        ChatRequest { messages, stop: Vec::new(), temperature, max_tokens, tools: Vec::new(), json_format: None }
    }
}

/// Token counts as the provider reported them; never estimated. A reply without them has no
/// `Usage` at all, and the page shows "—".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// The whole prompt, the part served from a cache included.
    pub prompt_tokens: u32,
    /// The whole reply, reasoning included.
    pub completion_tokens: u32,
    /// Of the prompt, the tokens the provider read from its cache, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u32>,
    /// Of the reply, the tokens spent reasoning, when the provider says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u32>,
}

impl Usage {
    /// Prompt and reply counts, with nothing said of cache or reasoning.
    pub fn new(prompt_tokens: u32, completion_tokens: u32) -> Self {
        Usage { prompt_tokens, completion_tokens, cached_tokens: None, reasoning_tokens: None }
    }

    /// Adds `other`'s counts, saturating (an imported file may claim any counts). A cache or
    /// reasoning count stays unknown until one of the added replies reports it.
    pub fn add(&mut self, other: &Usage) {
        fn sum(a: Option<u32>, b: Option<u32>) -> Option<u32> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                (a, b) => a.or(b),
            }
        }
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.cached_tokens = sum(self.cached_tokens, other.cached_tokens);
        self.reasoning_tokens = sum(self.reasoning_tokens, other.reasoning_tokens);
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatResponse {
    pub text: String,
    pub usage: Option<Usage>,
    /// True when the stream was cut off before the provider said it was done: `text` is what arrived.
    pub incomplete: bool,
    /// Native tool calls, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped, in the provider's words (`stop`, `length`, `end_turn`, …), when it said.
    pub finish_reason: Option<String>,
}

/// Which model answers: the provider's name and the model's, as the settings name them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelName {
    /// The provider preset's id (`openai`, `anthropic`, `llamacpp`, `in-page`, …).
    pub provider: String,
    pub model: String,
}

/// Why a model call failed. Every variant is the environment's fault, not the model's, so the
/// executor ends the run with it (after the provider's own retries) and shows it to the person.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LlmErrorKind {
    /// 401/403: the key is missing, wrong, or not allowed to use this model.
    Auth,
    /// 404: the base URL or the model name is wrong.
    NotFound,
    /// 429 after the allowed retries.
    RateLimited,
    /// 5xx or overloaded after the allowed retries.
    Server { status: u16 },
    /// 400 because the prompt is longer than the model's context window.
    ContextLength,
    /// Any other 4xx the provider rejected the request with.
    BadRequest { status: u16 },
    /// fetch failed before a response: offline, DNS, or the browser blocked it (CORS).
    Network,
    /// No answer (or no new bytes) within the configured time.
    Timeout,
    /// The body was not in the provider's format.
    BadResponse,
    /// The model answered with nothing at all.
    Empty,
    /// The reply passed the size limit in Settings ("Largest model reply") and was cut off.
    TooLarge { limit_kb: u32 },
    /// The provider answered with a redirect, which is not followed with the key attached;
    /// `to` is where it pointed, when the browser could find out.
    Redirected { to: Option<String> },
    /// The provider or model does not accept native tool calls (`tools`).
    ToolsUnsupported,
    /// The caller asked to stop.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmError {
    pub kind: LlmErrorKind,
    /// A sentence a person can act on, e.g. "The provider rejected the API key: check it in Settings."
    pub message: String,
}

impl LlmError {
    pub fn new(kind: LlmErrorKind, message: impl Into<String>) -> Self {
        LlmError { kind, message: message.into() }
    }
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LlmError {}

/// What a provider reports while a call is in flight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress<'a> {
    /// Visible text of the reply as it streams (a non-streaming provider sends it once).
    Text(&'a str),
    /// Reasoning some models stream before their reply: shown, never parsed.
    Reasoning(&'a str),
    /// The call failed in a way worth retrying; it will be tried again after `wait_ms`.
    Retry { attempt: u32, wait_ms: f64, reason: &'a str },
}

/// A language model the agent can ask for a completion.
///
/// `progress` receives streamed text and retry notices as they happen. Dropping the returned
/// future must abandon the request: in the browser that aborts the fetch, which is how Stop and
/// time limits cancel a call.
pub trait ChatModel {
    fn complete<'a>(
        &'a self,
        request: &'a ChatRequest,
        progress: &'a dyn Fn(Progress<'_>),
    ) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>>;

    /// Which provider and model this is, for the trace and its exports; empty when unknown.
    fn name(&self) -> ModelName {
        ModelName::default()
    }
}
