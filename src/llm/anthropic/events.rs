//! The streamed reply: typed events accumulated into text, tool calls and usage.

use super::*;
use crate::llm::tool_calls::{PartialCall, StreamedCalls};

/// Accumulates one streamed Messages reply. Feed every SSE event to `on_event`, then `finish`.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    pub(super) text: String,
    pub(super) reasoning: String,
    pub(super) input_tokens: Option<u32>,
    pub(super) output_tokens: Option<u32>,
    pub(super) cached_tokens: Option<u32>,
    pub(super) stop_reason: Option<String>,
    pub(super) saw_stop: bool,
    pub(super) tools: StreamedCalls,
}

impl AnthropicStream {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn on_event(&mut self, ev: &SseEvent) -> Result<StreamStep, LlmError> {
        let data = ev.data.trim();
        let is_error_event = ev.event.as_deref() == Some("error");
        let value: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) if is_error_event => return Err(describe(None, &Value::Null, data)),
            Err(_) if data.is_empty() => return Ok(StreamStep::Nothing),
            Err(e) => {
                return Err(LlmError::new(
                    LlmErrorKind::BadResponse,
                    format!("Anthropic's stream contained something that is not JSON ({e}). Check that the base URL points at the Anthropic API.{}", said(data)),
                ))
            }
        };
        // The JSON `type` is authoritative; the SSE event name is the fallback.
        let kind = value["type"].as_str().or(ev.event.as_deref()).unwrap_or("");
        if is_error_event || kind == "error" {
            return Err(describe(None, &value, data));
        }
        let index = value["index"].as_u64().unwrap_or(0);
        Ok(match kind {
            "message_start" => {
                self.take_usage(&value["message"]["usage"]);
                StreamStep::Nothing
            }
            "content_block_start" => {
                let block = &value["content_block"];
                match block["type"].as_str().unwrap_or("") {
                    // Only client tools: `server_tool_use` blocks are run by Anthropic itself.
                    "tool_use" => {
                        let name = block["name"].as_str().unwrap_or("").to_string();
                        let shown = format!("\n→ {name} ");
                        // `input` here is normally `{}`, with the real input streamed after.
                        let start_input = block.get("input").filter(|i| !i.is_null()).map(Value::to_string).unwrap_or_default();
                        self.tools.push(PartialCall {
                            index,
                            id: block["id"].as_str().unwrap_or("").to_string(),
                            name,
                            arguments: String::new(),
                            arguments_if_none: if start_input.is_empty() { "{}".to_string() } else { start_input },
                        });
                        StreamStep::ToolCall(shown)
                    }
                    "text" => self.add_text(block["text"].as_str().unwrap_or("")),
                    "thinking" => self.add_reasoning(block["thinking"].as_str().unwrap_or("")),
                    _ => StreamStep::Nothing,
                }
            }
            "content_block_delta" => {
                let delta = &value["delta"];
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => self.add_text(delta["text"].as_str().unwrap_or("")),
                    "thinking_delta" => self.add_reasoning(delta["thinking"].as_str().unwrap_or("")),
                    "input_json_delta" => {
                        let piece = delta["partial_json"].as_str().unwrap_or("");
                        match self.tools.get_mut(index) {
                            Some(tool) => {
                                tool.arguments.push_str(piece);
                                StreamStep::ToolCall(piece.to_string())
                            }
                            None => StreamStep::Nothing,
                        }
                    }
                    // signature_delta, citations_delta, and whatever comes next.
                    _ => StreamStep::Nothing,
                }
            }
            "message_delta" => {
                if let Some(reason) = value["delta"]["stop_reason"].as_str().filter(|r| !r.is_empty()) {
                    self.stop_reason = Some(reason.to_string());
                }
                self.take_usage(&value["usage"]);
                StreamStep::Nothing
            }
            "message_stop" => {
                self.saw_stop = true;
                StreamStep::Done
            }
            // ping, content_block_stop, and event types added after this was written.
            _ => StreamStep::Nothing,
        })
    }

    pub(super) fn add_text(&mut self, piece: &str) -> StreamStep {
        if piece.is_empty() {
            return StreamStep::Nothing;
        }
        self.text.push_str(piece);
        StreamStep::Delta(piece.to_string())
    }

    pub(super) fn add_reasoning(&mut self, piece: &str) -> StreamStep {
        if piece.is_empty() {
            return StreamStep::Nothing;
        }
        self.reasoning.push_str(piece);
        StreamStep::Reasoning(piece.to_string())
    }

    /// Usage in `message_delta` is cumulative and can revise the input count given in
    /// `message_start` (server tools add input), so later numbers replace earlier ones.
    pub(super) fn take_usage(&mut self, u: &Value) {
        if !u.is_object() {
            return;
        }
        if let Some(input) = input_tokens(u) {
            self.input_tokens = Some(input);
        }
        if let Some(cached) = cached_tokens(u) {
            self.cached_tokens = Some(cached);
        }
        if u["output_tokens"].as_u64().is_some() {
            self.output_tokens = Some(count(&u["output_tokens"]));
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// `end_turn`, `max_tokens`, `stop_sequence`, `tool_use`, … once `message_delta` said it.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    /// The tool calls so far, one per `tool_use` block, in block order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.tools.to_calls()
    }

    /// `saw_stop`: the caller saw `message_stop` (also remembered here). Without it or a stop
    /// reason, the stream was cut short and `text` is what arrived.
    pub fn finish(self, saw_stop: bool) -> ChatResponse {
        let usage = if self.input_tokens.is_some() || self.output_tokens.is_some() {
            Some(Usage { cached_tokens: self.cached_tokens, ..Usage::new(self.input_tokens.unwrap_or(0), self.output_tokens.unwrap_or(0)) })
        } else {
            None
        };
        let complete = saw_stop || self.saw_stop || self.stop_reason.is_some();
        let tool_calls = self.tools.to_calls();
        ChatResponse { text: self.text, usage, incomplete: !complete, tool_calls, finish_reason: self.stop_reason }
    }
}
