//! The pure parts of Anthropic's Messages API client (`POST {base}/v1/messages`): endpoint and
//! headers, request body, the non-streaming reply, the streamed events and the error bodies.
//! Anthropic is not OpenAI-compatible: the system prompt is a top-level field, roles must
//! alternate, `max_tokens` is required, and the stream is a sequence of typed events rather
//! than chunk deltas. Everything here is a pure function or accumulator with no I/O, tested
//! natively against the recorded bodies in ../shared/fixtures/anthropic.

use serde_json::{json, Value};

use crate::agent::model::ToolCall;
use crate::agent::{ChatRequest, ChatResponse, LlmError, LlmErrorKind, Role, Usage};

use super::sse::SseEvent;
use super::stream::{count, said, StreamStep};

pub const API_VERSION: &str = "2023-06-01";

/// Anthropic requires `max_tokens`; this is used when the settings leave it unset.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// Stands in for the first user turn when a conversation would otherwise open with the
/// assistant (or be empty): the API rejects both.
const OPENING_USER_TURN: &str = "(continue)";

/// Accepts the base URL with or without `/v1`, or already the full endpoint.
pub fn endpoint(base_url: &str) -> String {
    let base = base_url.trim().trim_end_matches('/');
    if base.ends_with("/v1/messages") {
        base.to_string()
    } else if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

/// The request headers. `anthropic-dangerous-direct-browser-access` is Anthropic's opt-in for
/// calls made from a web page: without it every browser (CORS) request is refused with 401.
/// The key header is left out when empty, for a proxy that adds the key itself.
pub fn headers(api_key: &str) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("content-type", "application/json".to_string()),
        ("anthropic-version", API_VERSION.to_string()),
        ("anthropic-dangerous-direct-browser-access", "true".to_string()),
    ];
    if !api_key.trim().is_empty() {
        headers.push(("x-api-key", api_key.trim().to_string()));
    }
    headers
}

pub fn request_body(model: &str, request: &ChatRequest, stream: bool) -> Value {
    let system: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.trim().is_empty())
        .map(|m| m.content.as_str())
        .collect();

    // The API wants user/assistant strictly alternating and refuses empty turns, while the
    // agent's history may hold two user messages in a row (e.g. a note after an observation).
    // Tool results travel as `tool_result` blocks of a user turn, tool calls as `tool_use`
    // blocks of an assistant turn.
    let mut turns: Vec<(Role, Vec<Block>)> = Vec::new();
    for m in request.messages.iter().filter(|m| m.role != Role::System) {
        let mut blocks = Vec::new();
        if m.role == Role::Tool {
            blocks.push(Block::Result(m.tool_call_id.clone().unwrap_or_default(), m.content.clone()));
        } else if !m.content.trim().is_empty() {
            blocks.push(Block::Text(m.content.clone()));
        }
        for call in &m.tool_calls {
            // Anthropic wants the input as an object; a call with broken arguments is sent
            // with an empty one (its parse error already went back as the result).
            let input = serde_json::from_str::<Value>(&call.arguments).ok().filter(Value::is_object).unwrap_or_else(|| json!({}));
            blocks.push(Block::Use(call.id.clone(), call.name.clone(), input));
        }
        if blocks.is_empty() {
            continue;
        }
        let role = if m.role == Role::Assistant { Role::Assistant } else { Role::User };
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    if turns.first().map(|t| t.0) != Some(Role::User) {
        turns.insert(0, (Role::User, vec![Block::Text(OPENING_USER_TURN.to_string())]));
    }
    let last = turns.len() - 1;
    let messages: Vec<Value> = turns
        .into_iter()
        .enumerate()
        .map(|(i, (role, blocks))| {
            let role_name = if role == Role::Assistant { "assistant" } else { "user" };
            json!({ "role": role_name, "content": content_json(blocks, role == Role::Assistant && i == last) })
        })
        .collect();

    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(1),
        "messages": messages,
        "stream": stream,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    let stops: Vec<&String> = request.stop.iter().filter(|s| !s.trim().is_empty()).collect();
    if !stops.is_empty() {
        body["stop_sequences"] = json!(stops);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> =
            request.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})).collect();
        body["tools"] = json!(tools);
    }
    if request.temperature.is_finite() {
        // Anthropic accepts 0..=1 where OpenAI accepts 0..=2, and a setting carried over from
        // another provider should not turn into a 400. Rounded so 0.7f32 is sent as 0.7.
        let t = f64::from(request.temperature.clamp(0.0, 1.0));
        body["temperature"] = json!((t * 1000.0).round() / 1000.0);
    }
    body
}

/// A piece of a turn's content.
enum Block {
    Text(String),
    /// `tool_use`: id, name, input.
    Use(String, String, Value),
    /// `tool_result`: the id of the call it answers, its text.
    Result(String, String),
}

/// A turn of plain text stays a string (the common case); a turn with tool blocks becomes a
/// list, tool results first as the API requires. A final assistant turn is a prefill the model
/// continues, and Anthropic rejects one that ends in whitespace.
fn content_json(blocks: Vec<Block>, prefill: bool) -> Value {
    if blocks.iter().all(|b| matches!(b, Block::Text(_))) {
        let mut text = blocks.into_iter().map(|b| if let Block::Text(t) = b { t } else { String::new() }).collect::<Vec<_>>().join("\n\n");
        if prefill {
            text.truncate(text.trim_end().len());
        }
        return json!(text);
    }
    let (results, others): (Vec<Block>, Vec<Block>) = blocks.into_iter().partition(|b| matches!(b, Block::Result(..)));
    results
        .into_iter()
        .chain(others)
        .map(|b| match b {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::Use(id, name, input) => json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            Block::Result(id, text) => json!({"type": "tool_result", "tool_use_id": id, "content": text}),
        })
        .collect()
}

/// Reads a successful (2xx) non-streaming body.
pub fn read_message(body: &str) -> Result<ChatResponse, LlmError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        LlmError::new(
            LlmErrorKind::BadResponse,
            format!("Anthropic's reply is not valid JSON ({e}). Check that the base URL points at the Anthropic API (https://api.anthropic.com)."),
        )
    })?;
    if value["type"] == "error" {
        return Err(describe(None, &value, body));
    }
    let Some(content) = value["content"].as_array() else {
        return Err(LlmError::new(
            LlmErrorKind::BadResponse,
            "Anthropic's reply has no content list. Check that the base URL points at the Anthropic API (https://api.anthropic.com).",
        ));
    };
    let text = content.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
    let tool_calls = content
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| ToolCall {
            id: b["id"].as_str().unwrap_or_default().to_string(),
            name: b["name"].as_str().unwrap_or_default().to_string(),
            arguments: b.get("input").filter(|i| !i.is_null()).map_or_else(|| "{}".to_string(), Value::to_string),
        })
        .collect();
    let usage = value.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        prompt_tokens: input_tokens(u).unwrap_or(0),
        completion_tokens: count(&u["output_tokens"]),
        estimated: false,
    });
    Ok(ChatResponse { text, usage, incomplete: false, tool_calls })
}

/// The whole prompt: Anthropic counts cached prompt tokens separately from `input_tokens`,
/// while `Usage::prompt_tokens` (like OpenAI's) means all of them. `None` if none is given.
fn input_tokens(u: &Value) -> Option<u32> {
    let keys = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"];
    if keys.iter().all(|k| u[k].as_u64().is_none()) {
        return None;
    }
    Some(keys.iter().map(|k| count(&u[k])).fold(0u32, u32::saturating_add).min(i32::MAX as u32))
}

#[derive(Debug, Default)]
struct ToolUse {
    index: u64,
    id: String,
    name: String,
    /// `input` from `content_block_start`: normally `{}`, with the real input streamed after.
    start_input: String,
    partial_json: String,
}

/// Accumulates one streamed Messages reply. Feed every SSE event to `on_event`, then `finish`.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    text: String,
    reasoning: String,
    input_tokens: Option<u32>,
    output_tokens: Option<u32>,
    stop_reason: Option<String>,
    saw_stop: bool,
    tools: Vec<ToolUse>,
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

    fn add_text(&mut self, piece: &str) -> StreamStep {
        if piece.is_empty() {
            return StreamStep::Nothing;
        }
        self.text.push_str(piece);
        StreamStep::Delta(piece.to_string())
    }

    fn add_reasoning(&mut self, piece: &str) -> StreamStep {
        if piece.is_empty() {
            return StreamStep::Nothing;
        }
        self.reasoning.push_str(piece);
        StreamStep::Reasoning(piece.to_string())
    }

    /// Usage in `message_delta` is cumulative and can revise the input count given in
    /// `message_start` (server tools add input), so later numbers replace earlier ones.
    fn take_usage(&mut self, u: &Value) {
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
        tools.sort_by_key(|t| t.index);
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

/// Turns an HTTP error status and its body into a message that says what to do.
pub fn read_error(status: u16, body: &str) -> LlmError {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    describe(Some(status), &value, body)
}

/// The HTTP status Anthropic documents for each error type, for errors that arrive as a
/// stream event after the 200.
fn status_for_type(error_type: &str) -> u16 {
    match error_type {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}

/// `http` is `None` for an `event: error` in a stream.
fn describe(http: Option<u16>, value: &Value, raw: &str) -> LlmError {
    let error_type = value["error"]["type"].as_str().unwrap_or("");
    let detail = value["error"]["message"]
        .as_str()
        .or_else(|| value["message"].as_str())
        .or_else(|| value["error"].as_str())
        .map(str::to_string)
        // A body that is not JSON: quote it only if it is short text, not a proxy's HTML page.
        .or_else(|| (value.is_null() && !raw.trim_start().starts_with('<')).then(|| raw.to_string()))
        .unwrap_or_default();
    let status = http.unwrap_or_else(|| status_for_type(error_type));
    let when = match http {
        Some(s) => format!("(HTTP {s})"),
        None => "(in the middle of its reply)".to_string(),
    };
    let lower = detail.to_lowercase();
    let is = |t: &str, code: u16| error_type == t || status == code;
    let (kind, advice) = if status == 529 || error_type == "overloaded_error" {
        (LlmErrorKind::Server { status: 529 }, format!("Anthropic is overloaded {when}; try again shortly."))
    } else if is("authentication_error", 401) {
        if lower.contains("anthropic-dangerous-direct-browser-access") || lower.contains("cors") {
            (
                LlmErrorKind::Auth,
                format!(
                    "Anthropic refused the request from this page {when} because it arrived without the \"anthropic-dangerous-direct-browser-access: true\" header, Anthropic's opt-in for calls made directly from a browser. Thoughtline sends that header, so something in between removed it: if the base URL is a proxy, make it forward the header, or set the base URL back to https://api.anthropic.com."
                ),
            )
        } else {
            (LlmErrorKind::Auth, format!("Anthropic refused the API key {when}. Check the key in Settings (Anthropic keys start with \"sk-ant-\")."))
        }
    } else if is("permission_error", 403) {
        (
            LlmErrorKind::Auth,
            format!("Anthropic says this API key may not do that {when}. Check the key's workspace and model access in the Anthropic Console, or choose another model in Settings."),
        )
    } else if is("not_found_error", 404) {
        (
            LlmErrorKind::NotFound,
            format!("Anthropic answered Not Found {when}. Check the model name in Settings (for example claude-sonnet-4-5) and that the base URL is https://api.anthropic.com."),
        )
    } else if is("rate_limit_error", 429) {
        (
            LlmErrorKind::RateLimited,
            format!("Anthropic is rate-limiting requests {when}. Wait a minute and try again, or check your plan's limits in the Anthropic Console."),
        )
    } else if is("request_too_large", 413)
        || (status == 400 && ["prompt is too long", "context limit", "context window", "context length", "too many tokens"].iter().any(|w| lower.contains(w)))
    {
        (
            LlmErrorKind::ContextLength,
            format!("The prompt is longer than the model accepts {when}. Lower \"History budget\" or \"Observation length\" in Settings, or start a new chat."),
        )
    } else if is("billing_error", 402) {
        (
            LlmErrorKind::BadRequest { status },
            format!("Anthropic refused the request for a billing reason {when}. Check your plan and credit balance in the Anthropic Console."),
        )
    } else if (500..=599).contains(&status) || error_type == "api_error" {
        let status = if (500..=599).contains(&status) { status } else { 500 };
        (LlmErrorKind::Server { status }, format!("Anthropic had a server error {when}. Try again in a moment."))
    } else {
        (
            LlmErrorKind::BadRequest { status },
            format!("Anthropic rejected the request {when}. Check the model name and the generation settings (temperature, max tokens, stop sequences) in Settings."),
        )
    };
    LlmError::new(kind, format!("{advice}{}", said(&detail)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::fixture;
    use crate::agent::Message;
    use crate::llm::sse::SseDecoder;


    fn request(messages: Vec<Message>) -> ChatRequest {
        ChatRequest { stop: vec!["Observation:".into()], ..ChatRequest::new(messages, 0.7, None) }
    }

    #[test]
    fn endpoint_with_or_without_v1() {
        for base in ["https://api.anthropic.com", "https://api.anthropic.com/", "https://api.anthropic.com/v1", "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages"] {
            assert_eq!(endpoint(base), "https://api.anthropic.com/v1/messages", "{base}");
        }
        assert_eq!(endpoint("http://localhost:8080/proxy"), "http://localhost:8080/proxy/v1/messages");
    }

    #[test]
    fn headers_include_the_browser_opt_in() {
        let h = headers("sk-ant-test");
        let get = |name: &str| h.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str());
        assert_eq!(get("x-api-key"), Some("sk-ant-test"));
        assert_eq!(get("anthropic-version"), Some("2023-06-01"));
        assert_eq!(get("anthropic-dangerous-direct-browser-access"), Some("true"));
        assert_eq!(get("content-type"), Some("application/json"));
        assert_eq!(headers("").iter().filter(|(k, _)| *k == "x-api-key").count(), 0);
    }

    #[test]
    fn body_moves_system_out_and_alternates_roles() {
        let req = request(vec![
            Message::system("You are Thoughtline."),
            Message::user("Question?"),
            Message::system("Tools: search."),
            Message::user("More context."),
            Message::assistant("Thought: search.\nAction: search"),
            Message::user(""),
            Message::user("Observation: found"),
            Message::assistant("Thought: done  \n"),
        ]);
        let body = request_body("claude-sonnet-4-5", &req, true);
        assert_eq!(body["model"], "claude-sonnet-4-5");
        assert_eq!(body["system"], "You are Thoughtline.\n\nTools: search.");
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": "Question?\n\nMore context."},
                {"role": "assistant", "content": "Thought: search.\nAction: search"},
                {"role": "user", "content": "Observation: found"},
                {"role": "assistant", "content": "Thought: done"},
            ])
        );
        assert_eq!(body["max_tokens"], 1024);
        assert_eq!(body["stop_sequences"], json!(["Observation:"]));
        assert_eq!(body["temperature"], 0.7);
        assert_eq!(body["stream"], true);
    }

    #[test]
    fn tool_use_and_tool_result_blocks() {
        use crate::agent::model::{ToolCall, ToolSpec};
        let calls = vec![
            ToolCall { id: "toolu_a".into(), name: "calculator".into(), arguments: r#"{"input":"2+2"}"#.into() },
            ToolCall { id: "toolu_b".into(), name: "wikipedia".into(), arguments: "{broken".into() },
        ];
        let mut req = request(vec![
            Message::system("rules"),
            Message::user("q"),
            Message::assistant_calls("Let me check.", calls),
            Message::tool_result("toolu_a", "2+2 = 4"),
            Message::tool_result("toolu_b", "not valid JSON"),
            Message::user("You have no steps left."),
        ]);
        req.tools = vec![ToolSpec { name: "calculator".into(), description: "math".into(), parameters: json!({"type": "object"}) }];
        let body = request_body("m", &req, true);
        assert_eq!(body["tools"], json!([{"name": "calculator", "description": "math", "input_schema": {"type": "object"}}]));
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_a", "name": "calculator", "input": {"input": "2+2"}},
                {"type": "tool_use", "id": "toolu_b", "name": "wikipedia", "input": {}},
            ]})
        );
        // All results in the one user turn that follows, before any text.
        assert_eq!(
            body["messages"][2],
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "2+2 = 4"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "content": "not valid JSON"},
                {"type": "text", "text": "You have no steps left."},
            ]})
        );
        assert_eq!(body["messages"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn body_edge_cases() {
        let mut req = request(vec![Message::assistant("Hello"), Message::user("hi")]);
        req.stop = vec![" ".into()];
        req.temperature = 1.5;
        req.max_tokens = Some(0);
        let body = request_body("m", &req, false);
        assert_eq!(body["messages"][0], json!({"role": "user", "content": "(continue)"}));
        assert_eq!(body["messages"][1]["role"], "assistant");
        assert!(body.get("system").is_none());
        assert!(body.get("stop_sequences").is_none());
        assert_eq!(body["temperature"], 1.0);
        assert_eq!(body["max_tokens"], 1);
        assert_eq!(body["stream"], false);

        let mut req = request(vec![Message::system("only a system prompt")]);
        req.temperature = f32::NAN;
        let body = request_body("m", &req, false);
        assert_eq!(body["messages"], json!([{"role": "user", "content": "(continue)"}]));
        assert!(body.get("temperature").is_none());
        req.max_tokens = Some(4096);
        assert_eq!(request_body("m", &req, false)["max_tokens"], 4096);
    }

    #[test]
    fn reads_the_recorded_message() {
        let r = read_message(&fixture("anthropic/messages_nonstream_claude-3-opus.json")).unwrap();
        assert_eq!(r.text, "The capital of France is Paris.");
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 20, completion_tokens: 10, estimated: false }));
        assert!(!r.incomplete);
        let r = read_message(r#"{"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"n","input":{}},{"type":"text","text":"b"}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":2}}"#).unwrap();
        assert_eq!(r.text, "ab");
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 105, completion_tokens: 2, estimated: false }));
    }

    #[test]
    fn bad_messages_are_errors_not_panics() {
        assert_eq!(read_message("<html>").unwrap_err().kind, LlmErrorKind::BadResponse);
        assert_eq!(read_message("{}").unwrap_err().kind, LlmErrorKind::BadResponse);
        assert_eq!(read_message("[1]").unwrap_err().kind, LlmErrorKind::BadResponse);
        let e = read_message(&fixture("anthropic/error_529_overloaded_error_2026.json")).unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::Server { status: 529 });
    }

    fn run(path: &str) -> (AnthropicStream, Vec<StreamStep>, bool) {
        let mut d = SseDecoder::new();
        let mut events = d.push(fixture(path).as_bytes());
        events.extend(d.finish());
        let mut s = AnthropicStream::new();
        let mut steps = Vec::new();
        let mut saw_stop = false;
        for ev in &events {
            let step = s.on_event(ev).unwrap();
            saw_stop |= step == StreamStep::Done;
            steps.push(step);
        }
        (s, steps, saw_stop)
    }

    fn joined(steps: &[StreamStep], reasoning: bool) -> String {
        steps
            .iter()
            .filter_map(|s| match s {
                StreamStep::Delta(t) if !reasoning => Some(t.as_str()),
                StreamStep::Reasoning(t) if reasoning => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn text_stream() {
        let (s, steps, saw_stop) = run("anthropic/messages_stream_text.sse");
        assert_eq!(steps.iter().filter(|s| **s != StreamStep::Nothing).cloned().collect::<Vec<_>>(), vec![StreamStep::Delta("2".into()), StreamStep::Done]);
        assert_eq!(s.stop_reason(), Some("end_turn"));
        assert!(s.tool_calls().is_empty());
        let r = s.finish(saw_stop);
        assert_eq!(r, ChatResponse { text: "2".into(), usage: Some(Usage { prompt_tokens: 20, completion_tokens: 5, estimated: false }), incomplete: false, tool_calls: vec![] });
    }

    const THINKING_TEXT: &str = "Here are the basic steps for safely crossing the street:\n\n**At intersections with traffic lights:**\n- Wait for the pedestrian \"Walk\" signal\n- Look both ways before stepping into the street\n- Make eye contact with drivers when possible\n- Stay alert for turning vehicles\n\n**At intersections without signals:**\n- Use crosswalks when available\n- Stop at the curb and look left, right, then left again\n- Wait for a clear gap in traffic\n- Walk briskly but don't run\n- Keep looking for traffic as you cross\n\n**General safety tips:**\n- Put away phones and remove headphones\n- Wear bright or reflective clothing in low light\n- Never assume drivers see you\n- Avoid crossing between parked cars\n- Walk facing traffic when there's no sidewalk\n\n**In busy urban areas:**\n- Follow pedestrian signals strictly\n- Be extra cautious of cyclists in bike lanes\n- Watch for buses and large vehicles with blind spots\n\nThe key is to be visible, alert, and predictable in your movements. Always prioritize safety over speed when crossing streets.";

    #[test]
    fn thinking_stream() {
        let (s, steps, saw_stop) = run("anthropic/messages_stream_thinking.sse");
        let thought = "This is a straightforward question about pedestrian safety. I should provide clear, helpful advice about how to safely cross a street. This is basic safety information that could help prevent accidents.";
        assert_eq!(joined(&steps, true), thought);
        assert_eq!(s.reasoning(), thought);
        assert_eq!(joined(&steps, false), THINKING_TEXT);
        // All reasoning arrives before any answer text.
        let first_delta = steps.iter().position(|s| matches!(s, StreamStep::Delta(_))).unwrap();
        assert!(steps[first_delta..].iter().all(|s| !matches!(s, StreamStep::Reasoning(_))));
        let r = s.finish(saw_stop);
        assert_eq!(r.text, THINKING_TEXT);
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 43, completion_tokens: 282, estimated: false }));
        assert!(!r.incomplete);
    }

    #[test]
    fn tool_use_stream() {
        let (s, _, _) = run("anthropic/messages_stream_tool_use_input_json_delta.sse");
        let calls = s.finish(true).tool_calls;
        assert_eq!(calls.len(), 1, "the finished reply carries the client tool call only");
        assert_eq!(calls[0].name, "get_exchange_rate");
        let (s, steps, saw_stop) = run("anthropic/messages_stream_tool_use_input_json_delta.sse");
        assert_eq!(s.stop_reason(), Some("tool_use"));
        // The server tool (`srvtoolu_…`) ran at Anthropic; only the client tool is ours to run.
        assert_eq!(
            s.tool_calls(),
            vec![("toolu_01EFn5wTNBYA8Reni8rbmnHT".to_string(), "get_exchange_rate".to_string(), r#"{"from_currency": "USD", "to_currency": "EUR"}"#.to_string())]
        );
        let r = s.finish(saw_stop);
        assert_eq!(r.text, "Let me search for a tool that can provide current exchange rate information.I found the right tool! Let me fetch the current USD to EUR exchange rate for you.");
        assert_eq!(joined(&steps, false), r.text);
        // message_delta's cumulative input count (after the server tool) replaces message_start's 702.
        assert_eq!(r.usage, Some(Usage { prompt_tokens: 1591, completion_tokens: 175, estimated: false }));
        assert!(!r.incomplete);
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent { event: Some(event.into()), data: data.into(), id: None }
    }

    #[test]
    fn cut_off_stream_is_incomplete() {
        let mut s = AnthropicStream::new();
        s.on_event(&ev("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Thought:"}}"#)).unwrap();
        let r = s.finish(false);
        assert_eq!(r.text, "Thought:");
        assert_eq!(r.usage, None);
        assert!(r.incomplete);
    }

    #[test]
    fn tool_use_without_deltas_keeps_its_start_input() {
        let mut s = AnthropicStream::new();
        s.on_event(&ev("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"a","name":"n","input":{"q":1}}}"#)).unwrap();
        s.on_event(&ev("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"b","name":"m"}}"#)).unwrap();
        assert_eq!(s.tool_calls(), vec![("b".into(), "m".into(), "{}".into()), ("a".into(), "n".into(), r#"{"q":1}"#.into())]);
    }

    #[test]
    fn stream_error_events() {
        let mut s = AnthropicStream::new();
        let e = s.on_event(&ev("error", r#"{"type": "error", "error": {"details": null, "type": "overloaded_error", "message": "Overloaded"}}"#)).unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::Server { status: 529 });
        assert!(e.message.contains("try again shortly") && e.message.contains("\"Overloaded\""), "{}", e.message);
        let e = s.on_event(&ev("error", r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#)).unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::Server { status: 500 });
        let e = s.on_event(&ev("error", "upstream died")).unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::Server { status: 500 });
        assert!(e.message.contains("\"upstream died\""));
        // An error event identified only by its JSON type.
        let e = s.on_event(&SseEvent { data: r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#.into(), ..Default::default() }).unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::RateLimited);
    }

    #[test]
    fn odd_events_do_not_panic() {
        let mut s = AnthropicStream::new();
        for (name, data) in [("ping", ""), ("x", "{}"), ("message_start", "{\"message\":7}"), ("content_block_delta", "[]"), ("content_block_delta", r#"{"type":"content_block_delta","index":9,"delta":{"type":"input_json_delta","partial_json":"{"}}"#), ("message_delta", r#"{"type":"message_delta","usage":{"output_tokens":1e30}}"#), ("future_event", r#"{"type":"future_event"}"#)] {
            assert!(s.on_event(&ev(name, data)).is_ok(), "{name}");
        }
        assert_eq!(s.on_event(&ev("content_block_delta", "{oops")).unwrap_err().kind, LlmErrorKind::BadResponse);
    }

    #[test]
    fn recorded_errors_say_what_to_do() {
        let e = read_error(400, &fixture("anthropic/error_400_invalid_request_error.json"));
        assert_eq!(e.kind, LlmErrorKind::BadRequest { status: 400 });
        assert!(e.message.contains("\"This model does not support effort level 'xhigh'."), "{}", e.message);

        let e = read_error(401, &fixture("anthropic/error_401_cors_header_missing_RECONSTRUCTED.json"));
        assert_eq!(e.kind, LlmErrorKind::Auth);
        assert!(e.message.contains("anthropic-dangerous-direct-browser-access: true"), "{}", e.message);
        assert!(e.message.contains("proxy"));

        let e = read_error(401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#);
        assert_eq!(e.kind, LlmErrorKind::Auth);
        assert!(e.message.contains("Check the key in Settings"), "{}", e.message);

        let e = read_error(403, r#"{"type":"error","error":{"type":"permission_error","message":"nope"}}"#);
        assert_eq!(e.kind, LlmErrorKind::Auth);

        let e = read_error(404, &fixture("anthropic/error_404_not_found_error.json"));
        assert_eq!(e.kind, LlmErrorKind::NotFound);
        assert!(e.message.contains("model name") && e.message.contains("\"model: claude-does-not-exist\""), "{}", e.message);

        let e = read_error(429, &fixture("anthropic/error_429_rate_limit_error_RECONSTRUCTED.json"));
        assert_eq!(e.kind, LlmErrorKind::RateLimited);
        assert!(e.message.contains("This request would exceed the rate limit"));

        let e = read_error(500, r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#);
        assert_eq!(e.kind, LlmErrorKind::Server { status: 500 });

        for f in ["anthropic/error_529_overloaded_error_2024.json", "anthropic/error_529_overloaded_error_2026.json"] {
            let e = read_error(529, &fixture(f));
            assert_eq!(e.kind, LlmErrorKind::Server { status: 529 });
            assert!(e.message.contains("Anthropic is overloaded") && e.message.contains("try again shortly"), "{}", e.message);
        }
    }

    #[test]
    fn context_length_wording() {
        for msg in ["prompt is too long: 208310 tokens > 200000 maximum", "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"] {
            let body = json!({"type": "error", "error": {"type": "invalid_request_error", "message": msg}}).to_string();
            let e = read_error(400, &body);
            assert_eq!(e.kind, LlmErrorKind::ContextLength, "{msg}");
            assert!(e.message.contains("History budget"));
        }
        assert_eq!(read_error(413, r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#).kind, LlmErrorKind::ContextLength);
    }

    #[test]
    fn odd_error_bodies() {
        let e = read_error(502, "<html><body>Bad Gateway</body></html>");
        assert_eq!(e.kind, LlmErrorKind::Server { status: 502 });
        assert!(!e.message.contains("html"), "{}", e.message);
        let e = read_error(418, "short and plain");
        assert_eq!(e.kind, LlmErrorKind::BadRequest { status: 418 });
        assert!(e.message.contains("\"short and plain\""));
        let e = read_error(401, r#"{"type":"error","error":{"type":"authentication_error","message":"invalid key sk-ant-api03-abcdefghijklmnopqrstuvwxyz"}}"#);
        assert!(!e.message.contains("abcdefghij"), "{}", e.message);
        let _ = read_error(0, "");
        let _ = read_error(u16::MAX, "{\"error\":[]}");
    }
}
