//! Tests of the Anthropic wire format against recorded bodies: request, reply, stream, errors.

use super::*;
use crate::test_support::fixture;
use crate::agent::Message;
use crate::net::sse::SseDecoder;


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
    assert_eq!(r.usage, Some(Usage { cached_tokens: Some(0), ..Usage::new(20, 10) }));
    assert!(!r.incomplete);
    let r = read_message(r#"{"content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"},{"type":"tool_use","id":"t","name":"n","input":{}},{"type":"text","text":"b"}],"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":2}}"#).unwrap();
    assert_eq!(r.text, "ab");
    assert_eq!(r.usage, Some(Usage { cached_tokens: Some(100), ..Usage::new(105, 2) }));
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
    assert_eq!(r, ChatResponse { text: "2".into(), usage: Some(Usage { cached_tokens: Some(0), ..Usage::new(20, 5) }), incomplete: false, tool_calls: vec![], finish_reason: Some("end_turn".into()) });
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
    assert_eq!(r.usage, Some(Usage { cached_tokens: Some(0), ..Usage::new(43, 282) }));
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
        vec![call("toolu_01EFn5wTNBYA8Reni8rbmnHT", "get_exchange_rate", r#"{"from_currency": "USD", "to_currency": "EUR"}"#)]
    );
    let r = s.finish(saw_stop);
    assert_eq!(r.text, "Let me search for a tool that can provide current exchange rate information.I found the right tool! Let me fetch the current USD to EUR exchange rate for you.");
    assert_eq!(joined(&steps, false), r.text);
    // message_delta's cumulative input count (after the server tool) replaces message_start's 702.
    assert_eq!(r.usage, Some(Usage { cached_tokens: Some(0), ..Usage::new(1591, 175) }));
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
    assert_eq!(s.tool_calls(), vec![call("b", "m", "{}"), call("a", "n", r#"{"q":1}"#)]);
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

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() }
}
