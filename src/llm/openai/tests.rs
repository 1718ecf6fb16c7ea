//! Tests of the OpenAI-compatible wire format against recorded bodies.

use super::*;
use crate::test_support::fixture;
use crate::agent::{Message, Usage};


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

#[test]
fn usage_is_read_from_every_recorded_whole_reply() {
    let cases = [
        ("openai/chat_completion_gpt-4o.json", Usage { cached_tokens: Some(0), reasoning_tokens: Some(0), ..Usage::new(14, 7) }, "stop"),
        ("openai/chat_completion_stop_sequence_o3-mini.json", Usage { cached_tokens: Some(0), reasoning_tokens: Some(448), ..Usage::new(31, 467) }, "stop"),
        ("openai/docs_example_chat_completion_tool_calls.json", Usage { reasoning_tokens: Some(0), ..Usage::new(82, 17) }, "tool_calls"),
        // Both a usage object and llama.cpp's timings: the usage object is the provider's word.
        ("llamacpp/chat_completion_nonstream_finish_length_b7634.json", Usage::new(106, 16), "length"),
        ("ollama/openai_chat_completion_nonstream_reasoning.json", Usage::new(136, 15), "stop"),
        ("ollama/openai_chat_completion_nonstream_tool_calls_ollama_cloud.json", Usage::new(206, 194), "tool_calls"),
        ("dashscope/openai_compat_chat_completion_nonstream_docs.json", Usage::new(22, 37), "stop"),
    ];
    for (file, usage, finish) in cases {
        let reply = read_completion(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(reply.usage, Some(usage), "{file}");
        assert_eq!(reply.finish_reason.as_deref(), Some(finish), "{file}");
    }
}

#[test]
fn llama_cpp_timings_stand_in_for_a_missing_usage_object() {
    let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
        "timings":{"cache_n":40,"prompt_n":8,"prompt_ms":3.1,"predicted_n":12,"predicted_ms":90.5}}"#;
    let reply = read_completion(body).expect("a reply");
    assert_eq!(reply.usage, Some(Usage { cached_tokens: Some(40), ..Usage::new(48, 12) }));
    let without = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}"#;
    assert_eq!(read_completion(without).expect("a reply").usage, None, "nothing reported, nothing invented");
}
