//! The OpenAI-compatible Chat Completions client (`POST {base}/chat/completions`), used for
//! OpenAI and every server that copies its API (Ollama, llama.cpp, vLLM, LM Studio, …).
//! Request building and response reading are pure functions, tested natively against the
//! recorded bodies in ../shared/fixtures; only `OpenAiCompatible::complete` does I/O.

use serde_json::{json, Value};

use crate::agent::model::ToolCall;
use crate::agent::{ChatRequest, ChatResponse, LlmError, LlmErrorKind, Message, Role, Usage};

use super::presets::Preset;
use super::stream::{count, said};

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
    let usage = value.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        prompt_tokens: count(&u["prompt_tokens"]),
        completion_tokens: count(&u["completion_tokens"]),
        estimated: false,
    });
    Ok(ChatResponse { text, usage, incomplete: false, tool_calls })
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
mod tests {
    use super::*;
    use crate::test_support::fixture;
    use crate::agent::Message;


    #[test]
    fn body_carries_model_messages_stop_and_temperature() {
        let mut req = ChatRequest::new(vec![Message::system("s"), Message::user("q")], 0.0, Some(256));
        req.stop = vec!["Observation:".into()];
        let body = request_body("gpt-4o-mini", &req, false, Preset::OpenAi);
        assert_eq!(body["model"], "gpt-4o-mini");
        assert_eq!(body["messages"][1], json!({"role": "user", "content": "q"}));
        assert_eq!(body["stop"], json!(["Observation:"]));
        assert_eq!(body["max_completion_tokens"], 256);
        assert_eq!(body["temperature"], 0.0);
    }

    #[test]
    fn every_call_has_a_reply_limit() {
        let req = ChatRequest::new(vec![Message::user("q")], 0.0, None);
        assert_eq!(request_body("m", &req, true, Preset::LlamaCpp)["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(request_body("m", &req, false, Preset::Custom)["max_tokens"], DEFAULT_MAX_TOKENS);
        let openai = request_body("m", &req, false, Preset::OpenAi);
        assert_eq!(openai["max_completion_tokens"], DEFAULT_MAX_TOKENS);
        assert!(openai.get("max_tokens").is_none(), "OpenAI's reasoning models refuse max_tokens");
    }

    #[test]
    fn quoted_error_bodies_are_masked() {
        let body = r#"{"error":{"message":"Invalid API Key: gsk_0123456789abcdefghijKLMN","type":"invalid_request_error"}}"#;
        let e = read_error(401, body, Preset::Groq);
        assert!(!e.message.contains("0123456789abcdef"), "{}", e.message);
        assert!(e.message.contains("gsk_************************"), "{}", e.message);
    }

    #[test]
    fn reads_recorded_completions() {
        let r = read_completion(&fixture("openai/chat_completion_gpt-4o.json")).unwrap();
        assert_eq!(r.text, "The capital of France is Paris.");
        assert!(r.usage.unwrap().prompt_tokens > 0);
        let r = read_completion(&fixture("ollama/openai_chat_completion_nonstream_reasoning.json")).unwrap();
        assert!(!r.text.is_empty());
        let r = read_completion(&fixture("dashscope/openai_compat_chat_completion_nonstream_docs.json")).unwrap();
        assert!(!r.text.is_empty());
        let r = read_completion(&fixture("llamacpp/chat_completion_nonstream_finish_length_b7634.json")).unwrap();
        assert_eq!(r.text, "");
    }

    #[test]
    fn errors_say_what_to_do() {
        let e = read_error(401, &fixture("openai/error_401_invalid_api_key.json"), Preset::OpenAi);
        assert_eq!(e.kind, LlmErrorKind::Auth);
        assert!(e.message.contains("Check the key in Settings"), "{}", e.message);
        let e = read_error(400, &fixture("openai/error_400_context_length_exceeded.json"), Preset::OpenAi);
        assert_eq!(e.kind, LlmErrorKind::ContextLength);
        let e = read_error(404, &fixture("ollama/openai_error_404_model_not_found_RECONSTRUCTED.json"), Preset::Ollama);
        assert_eq!(e.kind, LlmErrorKind::NotFound);
        assert!(e.message.contains("not found, try pulling it first"));
        let e = read_error(429, &fixture("openai/error_429_insufficient_quota.json"), Preset::OpenAi);
        assert_eq!(e.kind, LlmErrorKind::RateLimited);
        let e = read_error(503, "<html>oops</html>", Preset::Custom);
        assert_eq!(e.kind, LlmErrorKind::Server { status: 503 });
    }

    #[test]
    fn tools_tool_calls_and_results_in_the_chat_completions_shape() {
        use crate::agent::model::{JsonFormat, ToolCall, ToolSpec};
        let call = ToolCall { id: "call_1".into(), name: "wikipedia".into(), arguments: r#"{"input":"Oslo"}"#.into() };
        let mut req = ChatRequest::new(
            vec![Message::user("q"), Message::assistant_calls("", vec![call]), Message::tool_result("call_1", "Oslo is the capital of Norway.")],
            0.0,
            None,
        );
        req.tools = vec![ToolSpec { name: "wikipedia".into(), description: "look things up".into(), parameters: json!({"type": "object"}) }];
        let body = request_body("m", &req, true, Preset::OpenAi);
        assert_eq!(body["tools"][0], json!({"type": "function", "function": {"name": "wikipedia", "description": "look things up", "parameters": {"type": "object"}}}));
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "wikipedia", "arguments": "{\"input\":\"Oslo\"}"}}]})
        );
        assert_eq!(body["messages"][2], json!({"role": "tool", "content": "Oslo is the capital of Norway.", "tool_call_id": "call_1"}));
        assert!(body.get("response_format").is_none());

        // Structured output: OpenAI's json_schema form, and llama.cpp's json_object + schema.
        req.tools.clear();
        req.json_format = Some(JsonFormat { name: "react_step".into(), schema: json!({"type": "object"}) });
        let body = request_body("m", &req, false, Preset::OpenAi);
        assert_eq!(body["response_format"], json!({"type": "json_schema", "json_schema": {"name": "react_step", "schema": {"type": "object"}, "strict": true}}));
        assert!(body.get("tools").is_none());
        let body = request_body("m", &req, false, Preset::LlamaCpp);
        assert_eq!(body["response_format"], json!({"type": "json_object", "schema": {"type": "object"}}));
        assert_eq!(request_body("m", &req, false, Preset::DeepSeek)["response_format"], json!({"type": "json_object"}));
    }

    #[test]
    fn reads_recorded_tool_calls() {
        let r = read_completion(&fixture("openai/docs_example_chat_completion_tool_calls.json")).unwrap();
        assert_eq!(r.tool_calls.len(), 1);
        assert!(!r.tool_calls[0].id.is_empty() && !r.tool_calls[0].name.is_empty());
        assert!(serde_json::from_str::<Value>(&r.tool_calls[0].arguments).is_ok(), "{}", r.tool_calls[0].arguments);
        let r = read_completion(&fixture("ollama/openai_chat_completion_nonstream_tool_calls_ollama_cloud.json")).unwrap();
        assert_eq!(r.tool_calls[0].name, "final_result");
        let r = read_completion(&fixture("openai/chat_completion_gpt-4o.json")).unwrap();
        assert!(r.tool_calls.is_empty());
    }

    #[test]
    fn refusing_tools_is_its_own_error() {
        let e = read_error(400, r#"{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error"}}"#, Preset::Ollama);
        assert_eq!(e.kind, LlmErrorKind::ToolsUnsupported);
        assert!(e.message.contains("ReAct strategy"), "{}", e.message);
        let e = read_error(400, r#"{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}}"#, Preset::Vllm);
        assert_eq!(e.kind, LlmErrorKind::ToolsUnsupported);
        // Other 400s stay what they were.
        assert_eq!(read_error(400, &fixture("openai/error_400_unsupported_value.json"), Preset::OpenAi).kind, LlmErrorKind::BadRequest { status: 400 });
        assert_eq!(read_error(400, &fixture("openai/error_400_context_length_exceeded.json"), Preset::OpenAi).kind, LlmErrorKind::ContextLength);
    }

    #[test]
    fn bad_bodies_are_errors_not_panics() {
        assert_eq!(read_completion("not json").unwrap_err().kind, LlmErrorKind::BadResponse);
        assert_eq!(read_completion("{\"choices\": []}").unwrap_err().kind, LlmErrorKind::BadResponse);
    }
}
