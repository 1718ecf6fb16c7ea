//! Tests of the SSE decoder: framing rules, and the same events whatever the chunk boundaries.

use super::*;
use crate::test_support::{fixture, Rng};


const SSE_FIXTURES: &[&str] = &[
    "openai/chat_completion_stream_text_include_usage.sse",
    "openai/chat_completion_stream_tool_calls_include_usage.sse",
    "ollama/openai_chat_completion_stream_include_usage_pre_v0.32.6.sse",
    "dashscope/openai_compat_stream_include_usage_docs.sse",
    "dashscope/openai_compat_stream_reasoning_qwq-32b_docs_EXCERPT.sse",
    "anthropic/messages_stream_text.sse",
    "anthropic/messages_stream_thinking.sse",
    "anthropic/messages_stream_tool_use_input_json_delta.sse",
];

fn whole(bytes: &[u8]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    let mut events = d.push(bytes);
    events.extend(d.finish());
    events
}

fn chunked(bytes: &[u8], seed: u64) -> Vec<SseEvent> {
    let mut rng = Rng::new(seed);
    let mut d = SseDecoder::new();
    let mut events = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = (1 + rng.next() % 7) as usize;
        let (head, tail) = rest.split_at(n.min(rest.len()));
        events.extend(d.push(head));
        rest = tail;
    }
    events.extend(d.finish());
    events
}

#[test]
fn fixtures_decode_the_same_whole_and_in_random_chunks() {
    for path in SSE_FIXTURES {
        let text = fixture(path);
        let expected = whole(text.as_bytes());
        assert!(!expected.is_empty(), "{path}");
        for seed in 1..=20u64 {
            assert_eq!(chunked(text.as_bytes(), seed * 7919), expected, "{path} seed {seed}");
        }
        // The same streams with CRLF and bare CR line ends, so some splits fall between \r and \n.
        for ending in ["\r\n", "\r"] {
            let converted = text.replace('\n', ending);
            assert_eq!(whole(converted.as_bytes()), expected, "{path} {ending:?}");
            for seed in 1..=10u64 {
                assert_eq!(chunked(converted.as_bytes(), seed), expected, "{path} {ending:?} seed {seed}");
            }
        }
    }
}

#[test]
fn fixture_event_counts_and_shapes() {
    let openai = whole(fixture("openai/chat_completion_stream_text_include_usage.sse").as_bytes());
    assert_eq!(openai.len(), 12);
    assert_eq!(openai.last().unwrap().data, "[DONE]");
    assert!(openai.iter().all(|e| e.event.is_none() && e.id.is_none()));

    let anthropic = whole(fixture("anthropic/messages_stream_text.sse").as_bytes());
    let names: Vec<_> = anthropic.iter().map(|e| e.event.as_deref().unwrap_or("")).collect();
    assert_eq!(
        names,
        ["message_start", "content_block_start", "ping", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]
    );
    assert_eq!(anthropic[2].data, r#"{"type": "ping"}"#);
    // The padding spaces Anthropic puts inside the JSON are kept: they are part of the data.
    assert!(anthropic[3].data.ends_with("}      }"));

    let qwq = whole(fixture("dashscope/openai_compat_stream_reasoning_qwq-32b_docs_EXCERPT.sse").as_bytes());
    assert!(qwq[1].data.contains("\"reasoning_content\":\"嗯\""));
}

#[test]
fn multibyte_characters_split_across_chunks() {
    let bytes = "data: 嗯，用户\n\n".as_bytes();
    for cut in 0..bytes.len() {
        let mut d = SseDecoder::new();
        let mut events = d.push(&bytes[..cut]);
        events.extend(d.push(&bytes[cut..]));
        events.extend(d.finish());
        assert_eq!(events.len(), 1, "cut {cut}");
        assert_eq!(events[0].data, "嗯，用户");
    }
}

#[test]
fn whatwg_field_rules() {
    let events = whole(b"data:no space\ndata:  two spaces\n\n: a comment\n\nevent: e\ndata\nid: 7\n\ndata: x\n\n");
    assert_eq!(events.len(), 3);
    assert_eq!(events[0].data, "no space\n two spaces");
    assert_eq!(events[0].event, None);
    // A bare `data` line is a data field with an empty value.
    assert_eq!(events[1], SseEvent { event: Some("e".into()), data: String::new(), id: Some("7".into()) });
    // The event type resets after each dispatch; the last event ID does not.
    assert_eq!(events[2], SseEvent { event: None, data: "x".into(), id: Some("7".into()) });
}

#[test]
fn events_without_data_are_not_dispatched() {
    assert!(whole(b"event: ping\n\nid: 1\n\nretry: 10\n\n\n\n").is_empty());
    assert!(whole(b"").is_empty());
    assert!(whole(b": keep-alive\n\n: keep-alive\r\n\r\n").is_empty());
}

#[test]
fn dashscope_native_framing() {
    let events = whole(b"id:1\nevent:result\n:HTTP_STATUS/200\ndata:{\"output\":{\"finish_reason\":\"null\"}}\n\n");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event.as_deref(), Some("result"));
    assert_eq!(events[0].id.as_deref(), Some("1"));
    assert_eq!(events[0].data, r#"{"output":{"finish_reason":"null"}}"#);
}

#[test]
fn finish_flushes_an_unterminated_last_event() {
    let mut d = SseDecoder::new();
    assert!(d.push(b"data: one\n\ndata: two").len() == 1);
    assert_eq!(d.finish(), vec![SseEvent { data: "two".into(), ..Default::default() }]);
    let mut d = SseDecoder::new();
    assert_eq!(d.push(b"data: three\n").len(), 0);
    assert_eq!(d.finish()[0].data, "three");
    assert!(d.finish().is_empty());
}

#[test]
fn bom_is_dropped_only_at_the_start() {
    let mut d = SseDecoder::new();
    let mut events = d.push(b"\xEF\xBB");
    events.extend(d.push(b"\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n"));
    // Past the start, the BOM is part of a field name that is not `data`, so that line is ignored.
    assert_eq!(events, vec![SseEvent { data: "a".into(), ..Default::default() }]);
}

#[test]
fn llamacpp_legacy_error_line_becomes_an_error_event() {
    let events = whole(b"data: {\"choices\":[]}\n\nerror: {\"code\":500,\"message\":\"boom\"}\n\n");
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].event.as_deref(), Some("error"));
    assert_eq!(events[1].data, r#"{"code":500,"message":"boom"}"#);
}

#[test]
fn invalid_utf8_and_odd_bytes_do_not_panic() {
    let mut d = SseDecoder::new();
    let events = d.push(b"data: \xFF\xFE\x00\n\n\r\r\n\n:\n:\ndata\ndata:\n\n");
    assert_eq!(events[0].data, "\u{FFFD}\u{FFFD}\0");
    let mut rng = Rng::new(42);
    let mut d = SseDecoder::new();
    for _ in 0..2000 {
        let alphabet = b"d:a\r\n \xC3\xA9ta";
        let chunk: Vec<u8> = (0..(rng.next() % 9)).map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize]).collect();
        d.push(&chunk);
    }
    d.finish();
}

#[test]
fn a_priming_event_leaves_its_id_and_the_retry_time_for_a_reader_that_reconnects() {
    let mut d = SseDecoder::new();
    assert_eq!((d.last_id(), d.retry_ms()), (None, None));
    assert!(d.push(b"id: event-2\nretry: 500\ndata: \n\n").iter().all(|e| e.data.is_empty()), "a priming event carries no message");
    assert_eq!((d.last_id(), d.retry_ms()), (Some("event-2"), Some(500)));
    d.push(b"retry: soon\nretry: 12x\n\n");
    assert_eq!(d.retry_ms(), Some(500), "a retry that is not all digits is ignored");
    let events = d.push(b"id: event-3\ndata: {}\n\n");
    assert_eq!(events[0].id.as_deref(), Some("event-3"));
    assert_eq!(d.last_id(), Some("event-3"));
}
