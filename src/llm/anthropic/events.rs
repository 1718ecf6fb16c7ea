//! The streamed reply: typed events accumulated into text, tool calls and usage.

use super::*;

#[derive(Debug, Default)]
pub(super) struct ToolUse {
    pub(super) index: u64,
    pub(super) id: String,
    pub(super) name: String,
    /// `input` from `content_block_start`: normally `{}`, with the real input streamed after.
    pub(super) start_input: String,
    pub(super) partial_json: String,
}

/// Accumulates one streamed Messages reply. Feed every SSE event to `on_event`, then `finish`.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    pub(super) text: String,
    pub(super) reasoning: String,
    pub(super) input_tokens: Option<u32>,
    pub(super) output_tokens: Option<u32>,
    pub(super) stop_reason: Option<String>,
    pub(super) saw_stop: bool,
    pub(super) tools: Vec<ToolUse>,
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
                        self.tools.push(ToolUse {
                            index,
                            id: block["id"].as_str().unwrap_or("").to_string(),
                            name,
                            start_input: block.get("input").filter(|i| !i.is_null()).map(Value::to_string).unwrap_or_default(),
                            partial_json: String::new(),
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
                        match self.tools.iter_mut().find(|t| t.index == index) {
                            Some(tool) => {
                                tool.partial_json.push_str(piece);
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

    /// `(id, name, input JSON text)` per `tool_use` block, in block order.
    pub fn tool_calls(&self) -> Vec<(String, String, String)> {
        let mut tools: Vec<&ToolUse> = self.tools.iter().collect();
        crate::sort::sort_by_key(&mut tools, |t| t.index);
        tools
            .into_iter()
            .map(|t| {
                let input = if !t.partial_json.trim().is_empty() {
                    t.partial_json.clone()
                } else if !t.start_input.is_empty() {
                    t.start_input.clone()
                } else {
                    "{}".to_string()
                };
                (t.id.clone(), t.name.clone(), input)
            })
            .collect()
    }

    /// `saw_stop`: the caller saw `message_stop` (also remembered here). Without it or a stop
    /// reason, the stream was cut short and `text` is what arrived.
    pub fn finish(self, saw_stop: bool) -> ChatResponse {
        let usage = if self.input_tokens.is_some() || self.output_tokens.is_some() {
            Some(Usage { prompt_tokens: self.input_tokens.unwrap_or(0), completion_tokens: self.output_tokens.unwrap_or(0), estimated: false })
        } else {
            None
        };
        let complete = saw_stop || self.saw_stop || self.stop_reason.is_some();
        let tool_calls = self.tool_calls().into_iter().map(|(id, name, arguments)| ToolCall { id, name, arguments }).collect();
        ChatResponse { text: self.text, usage, incomplete: !complete, tool_calls }
    }
}
