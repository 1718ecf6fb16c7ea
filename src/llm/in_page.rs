//! The model that runs in the page: llama.cpp compiled to WebAssembly, loaded from a GGUF file
//! and driven through one seam, `Engine` (in the browser `in_page::browser`, which calls the
//! JS module `www/in-page/engine.js`). This file is the `ChatModel` over it: the request in
//! the engine's terms (the GGUF's own chat template does the formatting), the reply and its
//! counts back, and every engine failure as a sentence a person can act on. Pure, so it is
//! tested natively with a scripted engine.

use serde_json::Value;

use crate::agent::model::{ChatModel, ChatRequest, ChatResponse, LlmError, LlmErrorKind, ModelName, Progress, Role, Usage};
use crate::agent::LocalBoxFuture;
use crate::llm::presets::Preset;
pub use crate::llm::in_page_models::{Recommended, RECOMMENDED};

/// What the engine is asked for: a chat, formatted by the model's own template.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineRequest {
    /// `(role, content)` with roles `system`, `user`, `assistant`.
    pub messages: Vec<(&'static str, String)>,
    pub max_tokens: u32,
    pub temperature: f32,
    pub stop: Vec<String>,
    /// The reply must be JSON matching this schema (a grammar in the engine).
    pub json_schema: Option<Value>,
}

/// How a reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    Stop,
    /// The token limit of the request was reached: the reply is cut.
    Length,
    Aborted,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EngineReply {
    pub text: String,
    pub finish: Finish,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// What went wrong in the engine, by kind (the JS module's `error.kind`), with its own sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineError {
    pub kind: String,
    pub message: String,
}

/// The engine seam: a loaded model that answers chats, streaming text through `on_text`.
/// Dropping the future stops the generation.
pub trait Engine {
    fn chat<'a>(&'a self, request: EngineRequest, on_text: &'a dyn Fn(&str)) -> LocalBoxFuture<'a, Result<EngineReply, EngineError>>;
}

/// Replies are capped like a provider's: a small model can loop until the context is full.
pub const DEFAULT_MAX_TOKENS: u32 = 512;

/// The in-page model as the agent sees it.
pub struct InPage<E> {
    engine: E,
    /// The model's name for the trace: the GGUF's file name.
    model: String,
}

impl<E: Engine> InPage<E> {
    pub fn new(engine: E) -> Self {
        InPage { engine, model: String::new() }
    }

    /// Names the model for the trace from where it came from (a URL or a file name): its last
    /// path segment, without a query.
    pub fn named(mut self, source: &str) -> Self {
        let path = source.split(['?', '#']).next().unwrap_or_default();
        self.model = path.rsplit('/').next().unwrap_or_default().to_string();
        self
    }
}

/// The request in the engine's terms. Native tool calls are refused (the engine has none);
/// tool results and calls a text strategy never sends.
pub fn engine_request(request: &ChatRequest) -> Result<EngineRequest, LlmError> {
    if !request.tools.is_empty() {
        return Err(LlmError::new(
            LlmErrorKind::ToolsUnsupported,
            "The model in this page does not make native tool calls: use ReAct or Plan-ReAct (with structured output if you like).",
        ));
    }
    let messages = request
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User | Role::Tool => "user",
                Role::Assistant => "assistant",
            };
            (role, m.content.clone())
        })
        .collect();
    Ok(EngineRequest {
        messages,
        max_tokens: request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        temperature: request.temperature,
        stop: request.stop.clone(),
        json_schema: request.json_format.as_ref().map(|f| f.schema.clone()),
    })
}

/// An engine failure as the agent reports it.
pub fn llm_error(e: EngineError) -> LlmError {
    let kind = match e.kind.as_str() {
        "context_full" => LlmErrorKind::ContextLength,
        "aborted" => LlmErrorKind::Cancelled,
        "timeout" => LlmErrorKind::Timeout,
        "network" | "blocked" => LlmErrorKind::Network,
        "not_loaded" | "not_gguf" | "truncated" | "unknown_arch" => LlmErrorKind::NotFound,
        _ => LlmErrorKind::BadResponse,
    };
    let message = if e.message.trim().is_empty() { format!("The model in this page failed ({}).", e.kind) } else { e.message };
    LlmError::new(kind, message)
}

impl<E: Engine> ChatModel for InPage<E> {
    fn complete<'a>(&'a self, request: &'a ChatRequest, progress: &'a dyn Fn(Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let asked = engine_request(request)?;
            let on_text = |delta: &str| progress(Progress::Text(delta));
            let reply = self.engine.chat(asked, &on_text).await.map_err(llm_error)?;
            if reply.finish == Finish::Aborted {
                return Err(LlmError::new(LlmErrorKind::Cancelled, "Stopped."));
            }
            if reply.text.trim().is_empty() {
                return Err(LlmError::new(LlmErrorKind::Empty, "The model in this page wrote nothing. A larger model, or a lower temperature, may do better."));
            }
            Ok(ChatResponse {
                text: reply.text,
                usage: Some(Usage::new(reply.prompt_tokens, reply.completion_tokens)),
                incomplete: reply.finish == Finish::Length,
                finish_reason: Some(if reply.finish == Finish::Length { "length" } else { "stop" }.to_string()),
                ..ChatResponse::default()
            })
        })
    }

    fn name(&self) -> ModelName {
        ModelName { provider: Preset::InPage.id().to_string(), model: self.model.clone() }
    }
}

#[cfg(test)]
#[path = "in_page_tests.rs"]
mod tests;
