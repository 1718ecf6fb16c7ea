//! The OpenAI-compatible Chat Completions client (`POST {base}/chat/completions`), used for
//! OpenAI and every server that copies its API (Ollama, llama.cpp, vLLM, LM Studio, …).
//! Request building and response reading are pure functions, tested natively against the
//! recorded bodies in tests/fixtures; only `OpenAiCompatible::complete` does I/O.

use serde_json::{json, Value};

use crate::agent::model::ToolCall;
use crate::agent::{ChatRequest, ChatResponse, LlmError, LlmErrorKind, Message, Role};

use super::presets::Preset;
use super::stream::said;

/// The reply limit sent when the settings leave it unset: room for a long answer or a few
/// tool calls, while a model that loops ends in seconds rather than at the context's end.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

pub fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

pub fn request_body(model: &str, request: &ChatRequest, stream: bool, preset: Preset) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
    let mut body = json!({
        "model": model,
        "messages": messages,
        "temperature": request.temperature,
        "stream": stream,
    });
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect();
        body["tools"] = json!(tools);
    }
    if let Some(format) = &request.json_format {
        body["response_format"] = if preset == Preset::LlamaCpp {
            // llama.cpp (the C++ server and llama-cpp-python) turns a schema given this way into
            // a grammar; llama-cpp-python knows no `json_schema` type.
            json!({"type": "json_object", "schema": format.schema})
        } else if preset == Preset::DeepSeek {
            // DeepSeek has JSON mode but no schemas: the reply is JSON, its keys are the prompt's.
            json!({"type": "json_object"})
        } else {
            json!({"type": "json_schema", "json_schema": {"name": format.name, "schema": format.schema, "strict": true}})
        };
    }
    if stream {
        // Token counts arrive in a last chunk only when asked for.
        body["stream_options"] = json!({"include_usage": true});
    }
    if !request.stop.is_empty() {
        body["stop"] = json!(request.stop);
    }
    // Always bounded: without a limit a model that never stops writes until the server's own
    // limit (or the context) runs out. OpenAI's own API wants the newer name, which its
    // reasoning models require; the servers that copy the API know `max_tokens`.
    let max = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let field = if preset == Preset::OpenAi { "max_completion_tokens" } else { "max_tokens" };
    body[field] = json!(max);
    body
}

/// One message in the Chat Completions shape: tool calls as `function` objects, results as
/// `tool` messages naming the call they answer.
fn message_json(m: &Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut value = json!({"role": role, "content": m.content});
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        value["tool_calls"] = json!(calls);
        if m.content.is_empty() {
            value["content"] = Value::Null;
        }
    }
    if let Some(id) = &m.tool_call_id {
        value["tool_call_id"] = json!(id);
    }
    value
}

/// Reads a successful (2xx) non-streaming body.
pub fn read_completion(body: &str) -> Result<ChatResponse, LlmError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        LlmError::new(LlmErrorKind::BadResponse, format!("The provider's reply is not valid JSON ({e}). Check that the base URL points at an OpenAI-compatible API."))
    })?;
    let message = &value["choices"][0]["message"];
    if message.is_null() {
        return Err(LlmError::new(
            LlmErrorKind::BadResponse,
            "The provider's reply has no choices[0].message. Check that the base URL points at an OpenAI-compatible /v1 API.",
        ));
    }
    let text = message["content"].as_str().unwrap_or_default().to_string();
    let tool_calls = message["tool_calls"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, call)| ToolCall {
            id: call["id"].as_str().filter(|id| !id.is_empty()).map_or_else(|| format!("call_{i}"), str::to_string),
            name: call["function"]["name"].as_str().unwrap_or_default().to_string(),
            arguments: match &call["function"]["arguments"] {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            },
        })
        .collect();
    let usage = super::stream::read_usage(&value);
    let finish_reason = value["choices"][0]["finish_reason"].as_str().filter(|r| !r.is_empty()).map(str::to_string);
    Ok(ChatResponse { text, usage, incomplete: false, tool_calls, finish_reason })
}

/// Turns an HTTP error status and its body into a message that says what to do.
pub fn read_error(status: u16, body: &str, preset: Preset) -> LlmError {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let detail = value["error"]["message"]
        .as_str()
        .or_else(|| value["error"].as_str())
        .or_else(|| value["message"].as_str())
        .unwrap_or("")
        .trim()
        .to_string();
    let code = value["error"]["code"].as_str().unwrap_or("");
    let (kind, advice) = match status {
        400 | 404 | 422 | 501 if rejects_tools(&detail) => (
            LlmErrorKind::ToolsUnsupported,
            "This model or server does not support native tool calling. Pick the ReAct strategy in Settings, or a model that supports tools.".to_string(),
        ),
        401 | 403 => (LlmErrorKind::Auth, format!("The provider refused the API key (HTTP {status}). Check the key in Settings{}.", if preset.needs_key() { "" } else { ", or clear it" })),
        404 => (LlmErrorKind::NotFound, "The provider answered 404 Not Found. Check the base URL and the model name in Settings.".to_string()),
        429 => (LlmErrorKind::RateLimited, "The provider is rate-limiting requests (HTTP 429). Wait a moment and try again, or check your plan's quota.".to_string()),
        400 if code == "context_length_exceeded" || detail.contains("context") => (
            LlmErrorKind::ContextLength,
            "The prompt is longer than the model's context window. Lower \"History budget\" or \"Observation length\" in Settings, or start a new chat.".to_string(),
        ),
        500..=599 => (LlmErrorKind::Server { status }, format!("The provider had a server error (HTTP {status}). Try again in a moment.")),
        _ => (LlmErrorKind::BadRequest { status }, format!("The provider rejected the request (HTTP {status}).")),
    };
    LlmError::new(kind, format!("{advice}{}", said(&detail)))
}

/// Whether an error text says the `tools` parameter itself was refused (Ollama: "… does not
/// support tools"; vLLM: "auto" tool choice requires --enable-auto-tool-choice; others: "tools
/// is not supported").
pub fn rejects_tools(detail: &str) -> bool {
    let d = detail.to_lowercase();
    let mentions = d.contains("tool") || d.contains("function call");
    mentions && ["not support", "unsupported", "does not support", "requires", "not allowed", "not enabled", "unknown", "unrecognized", "extra inputs"].iter().any(|w| d.contains(w))
}

#[cfg(test)]
mod tests;
