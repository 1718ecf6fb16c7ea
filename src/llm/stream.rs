//! Assembles an OpenAI-compatible streamed chat completion (`stream: true`) from its SSE events:
//! visible text, reasoning text, token usage, finish reason and tool-call fragments. It owns the
//! tolerance for how OpenAI, Ollama, llama.cpp, DashScope and friends each bend the chunk format
//! (see tests/fixtures/README.md). It does no I/O: the caller decodes bytes with
//! `net::sse::SseDecoder` and hands each event here.
//!
//! `StreamStep` is also what `anthropic::AnthropicStream` yields, so the fetch loop that shows
//! text as it arrives is the same for every provider.

use serde_json::Value;

use crate::agent::model::ToolCall;
use crate::agent::{ChatResponse, LlmError, LlmErrorKind, Usage};

use crate::net::sse::SseEvent;
use super::tool_calls::StreamedCalls;

/// What one event meant for the person watching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamStep {
    /// New answer text. Callers should still skip an empty string.
    Delta(String),
    /// New reasoning ("thinking") text: worth showing, but not part of the answer.
    Reasoning(String),
    /// A native tool call as it streams (`→ name` when it starts, then argument fragments):
    /// shown live, while the call itself is assembled for `ChatResponse::tool_calls`.
    ToolCall(String),
    /// The provider's explicit end of stream (`[DONE]`, Anthropic's `message_stop`).
    Done,
    /// Bookkeeping only (role, usage, finish reason, pings, tool-call fragments).
    Nothing,
}

/// Accumulates one streamed reply. Feed every event to `on_event`, then call `finish`.
#[derive(Debug, Default)]
pub struct ChatStream {
    text: String,
    reasoning: String,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    saw_done: bool,
    calls: StreamedCalls,
}

impl ChatStream {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn on_event(&mut self, ev: &SseEvent) -> Result<StreamStep, LlmError> {
        let data = ev.data.trim();
        if ev.event.as_deref() == Some("error") {
            let value = serde_json::from_str(data).unwrap_or(Value::Null);
            return Err(stream_error(&value, data));
        }
        if data.is_empty() {
            return Ok(StreamStep::Nothing);
        }
        if data == "[DONE]" {
            self.saw_done = true;
            return Ok(StreamStep::Done);
        }
        let value: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(
                LlmErrorKind::BadResponse,
                format!(
                    "The provider's stream contained something that is not JSON ({e}). Check that the base URL points at an OpenAI-compatible API.{}",
                    said(data)
                ),
            )
        })?;
        if is_error_chunk(&value) {
            return Err(stream_error(&value, data));
        }
        if let Some(usage) = read_usage(&value) {
            self.usage = Some(usage);
        }
        let mut content = String::new();
        let mut reasoning = String::new();
        let mut tool_text = String::new();
        // `choices` is `[]` on the usage chunk; with `n > 1` only the first choice is the answer.
        for choice in value["choices"].as_array().map(Vec::as_slice).unwrap_or_default() {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            if let Some(reason) = choice["finish_reason"].as_str().filter(|r| !r.is_empty()) {
                self.finish_reason = Some(reason.to_string());
            }
            let delta = &choice["delta"];
            content.push_str(&text_of(&delta["content"]));
            // llama.cpp and DashScope say `reasoning_content`, Ollama and OpenRouter `reasoning`.
            for key in ["reasoning_content", "reasoning"] {
                if let Some(piece) = delta[key].as_str() {
                    reasoning.push_str(piece);
                }
            }
            if let Some(calls) = delta["tool_calls"].as_array() {
                for (position, call) in calls.iter().enumerate() {
                    tool_text.push_str(&self.add_tool_call_part(position as u64, call));
                }
            }
        }
        self.text.push_str(&content);
        self.reasoning.push_str(&reasoning);
        // One step per event: on the rare chunk that carries both, the answer wins; the
        // reasoning is still kept in `reasoning()`.
        Ok(if !content.is_empty() {
            StreamStep::Delta(content)
        } else if !reasoning.is_empty() {
            StreamStep::Reasoning(reasoning)
        } else if !tool_text.is_empty() {
            StreamStep::ToolCall(tool_text)
        } else {
            StreamStep::Nothing
        })
    }

    /// Adds one fragment of a tool call; returns what to show live for it.
    fn add_tool_call_part(&mut self, position: u64, call: &Value) -> String {
        // OpenAI numbers the calls with `index`; a server that sends whole calls without it
        // (older Ollama) is numbered by position in the array.
        let mut index = call.get("index").and_then(Value::as_u64).unwrap_or(position);
        let id = call["id"].as_str().unwrap_or("");
        // A different id under the same index is a new call, from a server that sends each
        // whole call in its own chunk without numbering them.
        if let Some(known) = self.calls.get_mut(index) {
            if !id.is_empty() && !known.id.is_empty() && known.id != id {
                index = self.calls.unused_index();
            }
        }
        let parts = self.calls.entry(index);
        if !id.is_empty() {
            parts.id = id.to_string();
        }
        let mut shown = String::new();
        let function = &call["function"];
        // The name arrives whole on the first fragment; some servers repeat it later.
        if let Some(name) = function["name"].as_str().filter(|s| !s.is_empty()) {
            if parts.name.is_empty() {
                parts.name = name.to_string();
                shown = format!("\n→ {name} ");
            }
        }
        let before = parts.arguments.len();
        match &function["arguments"] {
            Value::String(s) => parts.arguments.push_str(s),
            Value::Null => {}
            // A server that sends the arguments as a JSON object rather than JSON text.
            other => parts.arguments.push_str(&other.to_string()),
        }
        shown.push_str(&parts.arguments[before..]);
        shown
    }

    /// Answer text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Reasoning text so far (never part of the answer).
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// `stop`, `length`, `tool_calls`, … once the provider has said it.
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    /// The tool calls so far, in index order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.calls.to_calls()
    }

    /// `saw_done`: the caller saw `[DONE]` (also remembered here if it passed through
    /// `on_event`). Without it or a finish reason, the stream was cut short.
    pub fn finish(self, saw_done: bool) -> ChatResponse {
        let complete = saw_done || self.saw_done || self.finish_reason.is_some();
        let tool_calls = self.calls.to_calls();
        ChatResponse { text: self.text, usage: self.usage, incomplete: !complete, tool_calls, finish_reason: self.finish_reason }
    }
}

/// Content is a string almost everywhere, `null` on role-only and reasoning chunks, and an
/// array of `{type: "text", text}` parts on a few servers.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// The token counts of a reply or chunk (`body`): its `usage` object, or where there is none
/// llama.cpp's `timings` (the counts it measured itself: `prompt_n` evaluated plus `cache_n`
/// reused, `predicted_n` written). Cached and reasoning counts are kept only where reported.
pub fn read_usage(body: &Value) -> Option<Usage> {
    let u = &body["usage"];
    if u.is_object() {
        let detail = |group: &str, key: &str| u[group][key].as_u64().map(|_| count(&u[group][key]));
        return Some(Usage {
            prompt_tokens: count(&u["prompt_tokens"]),
            completion_tokens: count(&u["completion_tokens"]),
            cached_tokens: detail("prompt_tokens_details", "cached_tokens"),
            reasoning_tokens: detail("completion_tokens_details", "reasoning_tokens"),
        });
    }
    let t = &body["timings"];
    if t["prompt_n"].as_u64().is_none() && t["predicted_n"].as_u64().is_none() {
        return None;
    }
    let cached = t["cache_n"].as_u64().map(|_| count(&t["cache_n"]));
    Some(Usage {
        prompt_tokens: count(&t["prompt_n"]).saturating_add(cached.unwrap_or(0)),
        completion_tokens: count(&t["predicted_n"]),
        cached_tokens: cached,
        reasoning_tokens: None,
    })
}

/// Clamped so that `Usage::total` cannot overflow whatever a server claims.
pub(crate) fn count(v: &Value) -> u32 {
    v.as_u64().unwrap_or(0).min(i32::MAX as u64) as u32
}

fn is_error_chunk(value: &Value) -> bool {
    value.get("error").is_some_and(|e| !e.is_null()) || value["object"] == "error"
}

/// A failure the server reported after it had already answered 200 and started streaming.
fn stream_error(value: &Value, raw: &str) -> LlmError {
    let err = if value["error"].is_object() { &value["error"] } else { value };
    let detail = err["message"]
        .as_str()
        .or_else(|| value["error"].as_str())
        .or_else(|| value["message"].as_str())
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .unwrap_or(raw.trim());
    let code = err["code"].as_u64().or_else(|| err["code"].as_str().and_then(|c| c.parse().ok()));
    let label = format!("{} {}", err["type"].as_str().unwrap_or(""), err["code"].as_str().unwrap_or("")).to_lowercase();
    let lower = detail.to_lowercase();
    // Not just "context": Go servers (Ollama) report an aborted request as "context canceled".
    let too_long = ["context length", "context size", "context window", "context limit", "maximum context"].iter().any(|w| lower.contains(w));
    let (kind, advice) = if label.contains("context") || too_long {
        (
            LlmErrorKind::ContextLength,
            "The prompt is longer than the model's context window. Lower \"History budget\" or \"Observation length\" in Settings, or start a new chat.".to_string(),
        )
    } else if code == Some(429) || label.contains("rate_limit") {
        (LlmErrorKind::RateLimited, "The provider is rate-limiting requests. Wait a moment and try again, or check your plan's quota.".to_string())
    } else {
        let kind = match code {
            Some(401) | Some(403) => LlmErrorKind::Auth,
            Some(c @ 400..=499) => LlmErrorKind::BadRequest { status: c as u16 },
            Some(c @ 500..=599) => LlmErrorKind::Server { status: c as u16 },
            // The HTTP status was 200; 500 says "the server failed" to the retry policy.
            _ => LlmErrorKind::Server { status: 500 },
        };
        (kind, "The provider reported an error partway through its reply. Try again in a moment; if it keeps happening, check the model and server in Settings.".to_string())
    };
    LlmError::new(kind, format!("{advice}{}", said(detail)))
}

/// ` The provider said: "…"`, clipped, with anything shaped like a key masked: some providers
/// echo (part of) the key back, and this text is shown and recorded in the trace. The provider
/// masks its own configured secrets on top (`Provider::complete`).
pub(crate) fn said(detail: &str) -> String {
    let detail = detail.trim();
    if detail.is_empty() {
        return String::new();
    }
    let masked = crate::secrets::mask(detail, &crate::secrets::Secrets::default());
    format!(" The provider said: \"{}\"", clip(&masked, 300))
}

pub(crate) fn clip(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests;
