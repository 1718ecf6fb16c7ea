//! The seam between the agent and a language model: the `ChatModel` trait and the plain data
//! that crosses it. Providers (OpenAI-compatible, Anthropic, …) live in `crate::llm` and
//! implement this trait; the agent never knows which one it talks to.
//!
//! Nothing here holds an API key: keys live inside provider values and never enter a
//! `ChatRequest`, so they cannot leak into the trace, which records requests verbatim.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::LocalBoxFuture;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into() }
    }
}

/// Everything a provider needs for one completion. It is recorded in the trace as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    /// Stop sequences. The agent also enforces `Observation:` itself, since some servers ignore stop.
    pub stop: Vec<String>,
    pub temperature: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// Token counts, when the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

impl Usage {
    pub fn total(&self) -> u32 {
        self.prompt_tokens + self.completion_tokens
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatResponse {
    pub text: String,
    pub usage: Option<Usage>,
    /// True when the stream was cut off before the provider said it was done: `text` is what arrived.
    pub incomplete: bool,
}

/// Why a model call failed. Every variant is the environment's fault, not the model's, so the
/// executor ends the run with it (after the provider's own retries) and shows it to the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The caller asked to stop.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}
