//! Tests of the OpenAI-compatible stream reader: deltas, usage, tool calls, odd chunks.

use super::*;
use crate::test_support::fixture;
use crate::net::sse::SseDecoder;


struct Run {
    stream: ChatStream,
    steps: Vec<StreamStep>,
    saw_done: bool,
}

fn run_events(events: &[SseEvent]) -> Result<Run, LlmError> {
    let mut stream = ChatStream::new();
    let mut steps = Vec::new();
    let mut saw_done = false;
    for ev in events {
        let step = stream.on_event(ev)?;
        saw_done |= step == StreamStep::Done;
        steps.push(step);
    }
    Ok(Run { stream, steps, saw_done })
}

fn run_sse(text: &str) -> Result<Run, LlmError> {
    let mut d = SseDecoder::new();
    let mut events = d.push(text.as_bytes());
    events.extend(d.finish());
    run_events(&events)
}

fn data(s: &str) -> SseEvent {
    SseEvent { data: s.to_string(), ..Default::default() }
}

fn deltas(steps: &[StreamStep]) -> String {
    steps.iter().filter_map(|s| if let StreamStep::Delta(t) = s { Some(t.as_str()) } else { None }).collect()
}

#[test]
fn openai_text_stream() {
    let run = run_sse(&fixture("openai/chat_completion_stream_text_include_usage.sse")).unwrap();
    assert_eq!(deltas(&run.steps), "The capital of the UK is London.");
    assert_eq!(run.steps.last(), Some(&StreamStep::Done));
    assert_eq!(run.stream.finish_reason(), Some("stop"));
    assert!(run.stream.tool_calls().is_empty());
    let r = run.stream.finish(run.saw_done);
    assert_eq!(r.text, "The capital of the UK is London.");
    assert_eq!(r.usage, Some(Usage { cached_tokens: Some(0), reasoning_tokens: Some(0), ..Usage::new(78, 9) }));
    assert!(!r.incomplete);
}

#[test]
fn openai_tool_call_stream() {
    let run = run_sse(&fixture("openai/chat_completion_stream_tool_calls_include_usage.sse")).unwrap();
    assert_eq!(run.stream.finish_reason(), Some("tool_calls"));
    assert_eq!(
        run.stream.tool_calls(),
        vec![call("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", r#"{"country":"UK"}"#)]
    );
    // The call is shown live as it streams: its name, then the argument fragments.
    let live: String = run.steps.iter().filter_map(|s| if let StreamStep::ToolCall(t) = s { Some(t.as_str()) } else { None }).collect();
    assert_eq!(live, "\n→ get_capital {\"country\":\"UK\"}");
    assert!(run.steps.iter().all(|s| matches!(s, StreamStep::Nothing | StreamStep::Done | StreamStep::ToolCall(_))));
    let r = run.stream.finish(run.saw_done);
    assert_eq!(r.text, "");
    assert_eq!(r.usage, Some(Usage { cached_tokens: Some(0), reasoning_tokens: Some(0), ..Usage::new(53, 15) }));
    assert!(!r.incomplete);
    // The finished reply carries the call for the agent to run.
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!((r.tool_calls[0].name.as_str(), r.tool_calls[0].arguments.as_str()), ("get_capital", r#"{"country":"UK"}"#));
}

#[test]
fn ollama_pre_v0_32_6_stream() {
    let run = run_sse(&fixture("ollama/openai_chat_completion_stream_include_usage_pre_v0.32.6.sse")).unwrap();
    assert_eq!(run.stream.finish_reason(), Some("length"));
    let r = run.stream.finish(run.saw_done);
    assert_eq!(r.text, "Hello");
    assert_eq!(r.usage, Some(Usage::new(17, 40)));
    assert!(!r.incomplete);
}

#[test]
fn dashscope_stream() {
    let run = run_sse(&fixture("dashscope/openai_compat_stream_include_usage_docs.sse")).unwrap();
    let r = run.stream.finish(run.saw_done);
    assert_eq!(r.text, "I am a large-scale language model from Alibaba Cloud, and my name is Qwen.");
    assert_eq!(r.usage, Some(Usage::new(22, 17)));
    assert!(!r.incomplete);
}

#[test]
fn dashscope_reasoning_excerpt_is_incomplete() {
    let run = run_sse(&fixture("dashscope/openai_compat_stream_reasoning_qwq-32b_docs_EXCERPT.sse")).unwrap();
    let shown: Vec<_> = run.steps.iter().filter(|s| **s != StreamStep::Nothing).cloned().collect();
    assert_eq!(
        shown,
        vec![StreamStep::Reasoning("嗯".into()), StreamStep::Reasoning(",".into()), StreamStep::Reasoning("用户".into())]
    );
    assert_eq!(run.stream.reasoning(), "嗯,用户");
    let r = run.stream.finish(run.saw_done);
    assert_eq!(r.text, "");
    // No usage from the server: none is made up.
    assert_eq!(r.usage, None);
    assert!(r.incomplete, "the excerpt has neither a finish reason nor [DONE]");
}

#[test]
fn llamacpp_chunk_payloads() {
    let events: Vec<SseEvent> = fixture("llamacpp/stream_chunk_payloads_b6510_EXCERPT.jsonl").lines().map(data).collect();
    let run = run_events(&events).unwrap();
    assert_eq!(run.steps, vec![StreamStep::Reasoning("Okay".into()), StreamStep::Delta(".".into()), StreamStep::Nothing]);
    assert_eq!(run.stream.reasoning(), "Okay");
    assert_eq!(run.stream.finish_reason(), Some("stop"));
    let r = run.stream.finish(false);
    assert_eq!(r.text, ".");
    // No usage object, but llama.cpp's own timings: 1 prompt token evaluated and 13 reused
    // from its cache, 394 written.
    assert_eq!(r.usage, Some(Usage { prompt_tokens: 14, completion_tokens: 394, cached_tokens: Some(13), reasoning_tokens: None }));
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    assert!(!r.incomplete, "a finish reason without [DONE] is still complete");
}

#[test]
fn ollama_reasoning_field_and_padding_and_null_content() {
    let events = [
        data(r#"  {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning":"hmm"}}], "usage": null}   "#),
        data(r#"{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}"#),
        data(r#"{"choices":[{"index":1,"delta":{"content":"other choice"}}]}"#),
        data(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
        data(" [DONE] "),
    ];
    let run = run_events(&events).unwrap();
    assert_eq!(run.steps[0], StreamStep::Reasoning("hmm".into()));
    assert_eq!(run.steps[1], StreamStep::Delta("Hi".into()));
    assert_eq!(run.steps[2], StreamStep::Nothing);
    assert_eq!(run.steps[4], StreamStep::Done);
    let r = run.stream.finish(true);
    assert_eq!(r.text, "Hi");
    // No usage from the server: none is made up.
    assert_eq!(r.usage, None);
}

#[test]
fn cut_off_stream_is_incomplete_with_the_text_so_far() {
    let run = run_events(&[data(r#"{"choices":[{"index":0,"delta":{"content":"Thought: I"}}]}"#)]).unwrap();
    let r = run.stream.finish(false);
    assert_eq!(r.text, "Thought: I");
    assert!(r.incomplete);
}

#[test]
fn tool_calls_by_index_and_whole() {
    let events = [
        data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"second","arguments":"{\"x\""}}]}}]}"#),
        data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"first","arguments":"{}"}}]}}]}"#),
        data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"second","arguments":":1}"}}]}}]}"#),
    ];
    let run = run_events(&events).unwrap();
    let calls = run.stream.tool_calls();
    assert_eq!(calls, vec![call("call_0", "first", "{}"), call("b", "second", "{\"x\":1}")]);

    // Whole calls without `index`, one per chunk or several in one; arguments as an object.
    let events = [
        data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c","function":{"name":"third","arguments":{"q":"rust"}}}]}}]}"#),
        data(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"d","function":{"name":"fourth","arguments":"{}"}},{"id":"e","function":{"name":"fifth","arguments":"[]"}}]}}]}"#),
    ];
    let run = run_events(&events).unwrap();
    let calls = run.stream.tool_calls();
    assert_eq!(
        calls,
        vec![
            call("c", "third", "{\"q\":\"rust\"}"),
            call("d", "fourth", "{}"),
            call("e", "fifth", "[]"),
        ]
    );
}

#[test]
fn mid_stream_error_event_is_an_error() {
    let text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n\
                    data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n";
    let e = run_sse(text).err().unwrap();
    assert_eq!(e.kind, LlmErrorKind::Server { status: 500 });
    assert!(e.message.contains("\"The server had an error while processing your request.\""), "{}", e.message);
    assert!(e.message.contains("Try again"));
}

#[test]
fn llamacpp_errors_current_and_legacy() {
    let body = fixture("llamacpp/error_400_exceed_context_size.json");
    let e = run_sse(&format!("data: {body}\n\n")).err().unwrap();
    assert_eq!(e.kind, LlmErrorKind::ContextLength);
    assert!(e.message.contains("History budget"));
    // Older builds: an `error:` line, which the decoder turns into an `error` event.
    let e = run_sse("error: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n").err().unwrap();
    assert_eq!(e.kind, LlmErrorKind::Server { status: 500 });
    assert!(e.message.contains("\"slot unavailable\""));
    let e = run_sse("error: plain words\n\n").err().unwrap();
    assert!(e.message.contains("\"plain words\""), "{}", e.message);
    let e = run_sse("data: {\"object\":\"error\",\"message\":\"Too many\",\"code\":429}\n\n").err().unwrap();
    assert_eq!(e.kind, LlmErrorKind::RateLimited);
    let e = run_sse("data: {\"error\":\"context canceled\"}\n\n").err().unwrap();
    assert_eq!(e.kind, LlmErrorKind::Server { status: 500 });
    assert!(e.message.contains("\"context canceled\""), "{}", e.message);
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let e = run_events(&[data("{not json")]).err().unwrap();
    assert_eq!(e.kind, LlmErrorKind::BadResponse);
    for odd in ["[]", "3", "\"s\"", "null", "{}", r#"{"choices":7}"#, r#"{"choices":[null,{"delta":5}]}"#, r#"{"usage":{"prompt_tokens":-1,"completion_tokens":99999999999}}"#] {
        let mut s = ChatStream::new();
        let _ = s.on_event(&data(odd));
        let r = s.finish(false);
        assert!(r.usage.map_or(0, |u| u.prompt_tokens.saturating_add(u.completion_tokens)) < u32::MAX, "{odd}");
    }
}

#[test]
fn mutated_fixtures_never_panic_either_reader() {
    let paths = [
        "openai/chat_completion_stream_tool_calls_include_usage.sse",
        "dashscope/openai_compat_stream_reasoning_qwq-32b_docs_EXCERPT.sse",
        "anthropic/messages_stream_tool_use_input_json_delta.sse",
    ];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for path in paths {
        let original = fixture(path).into_bytes();
        for _ in 0..200 {
            let mut bytes = original.clone();
            for _ in 0..8 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = b"{}[]\":,0-9\n \xC3"[(next() % 13) as usize];
            }
            let mut d = SseDecoder::new();
            let mut events = d.push(&bytes);
            events.extend(d.finish());
            let (mut openai, mut anthropic) = (ChatStream::new(), crate::llm::anthropic::AnthropicStream::new());
            for ev in &events {
                let _ = openai.on_event(ev);
                let _ = anthropic.on_event(ev);
            }
            let _ = (openai.tool_calls(), anthropic.tool_calls(), openai.finish(false), anthropic.finish(false));
        }
    }
}

#[test]
fn keys_are_masked_in_quoted_messages() {
    let quoted = said("Incorrect API key provided: sk-proj-abcdefghijklmnop1234. You can find your API key at https://x.");
    assert!(!quoted.contains("abcdefghijklmnop"), "{quoted}");
    assert!(quoted.contains("sk-*************************."), "{quoted}");
    // Masked before clipping: a key cut at the clip would be too short to look like one.
    let long = format!("{} sk-abcdefghijklmnopqrstuvwxyz", "x".repeat(290));
    assert!(!said(&long).contains("sk-abcdefgh"), "{}", said(&long));
    assert_eq!(said(""), "");
    assert_eq!(clip("héllo", 2), "hé");
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() }
}
