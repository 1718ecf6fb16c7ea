use serde_json::json;

use super::*;
use crate::agent::model::Role;

fn asked(params: serde_json::Value) -> Sampling {
    read(&params).unwrap()
}

#[test]
fn a_request_is_read_as_the_model_will_get_it() {
    let s = asked(json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Name a colour."}},
            {"role": "assistant", "content": [{"type": "text", "text": "Blue."}]},
            {"role": "user", "content": [{"type": "text", "text": "Another"}, {"type": "text", "text": "please."}]}
        ],
        "systemPrompt": "Answer in one word.",
        "maxTokens": 40,
        "temperature": 0.2,
        "stopSequences": ["\n\n"],
        "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "speedPriority": 0.5}
    }));
    assert_eq!(s.messages, vec![(Speaker::User, "Name a colour.".into()), (Speaker::Assistant, "Blue.".into()), (Speaker::User, "Another\nplease.".into())]);
    let request = s.request();
    assert_eq!(request.messages.iter().map(|m| m.role).collect::<Vec<_>>(), vec![Role::System, Role::User, Role::Assistant, Role::User]);
    assert_eq!(request.messages[0].content, "Answer in one word.");
    assert_eq!((request.max_tokens, request.temperature, request.stop.clone()), (Some(40), 0.2, vec!["\n\n".to_string()]));
    assert_eq!(s.notes(), vec!["It would like claude-3-sonnet; your model in Settings answers.".to_string()]);
    assert!(s.summary().starts_with("Wants your model to write (at most 40 tokens): Another please. — with the instructions: Answer in one word."), "{}", s.summary());
}

#[test]
fn the_page_limits_what_a_server_may_ask_and_says_what_it_left_out() {
    let s = asked(json!({
        "messages": [{"role": "user", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "text", "text": "What is this?"}]}],
        "maxTokens": 1_000_000,
        "tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}]
    }));
    assert_eq!((s.max_tokens, s.asked_tokens), (MAX_TOKENS_LIMIT, 1_000_000));
    assert_eq!(s.tools, vec!["get_weather".to_string()]);
    let notes = s.notes().join(" ");
    assert!(notes.contains("asked for up to 1000000 tokens; this page allows 4096"), "{notes}");
    assert!(notes.contains("image content, which is left out"), "{notes}");
    assert!(notes.contains("tools (get_weather)") && notes.contains("refused"), "{notes}");
    let long = "x".repeat(TEXT_LIMIT + 10);
    let s = asked(json!({"messages": [{"role": "user", "content": {"type": "text", "text": long}}], "maxTokens": 5}));
    assert_eq!(s.messages[0].1.chars().count(), TEXT_LIMIT + 1, "cut, with a mark");
}

#[test]
fn requests_that_cannot_be_run_are_refused_with_a_reason() {
    let text = |t: &str| json!({"role": "user", "content": {"type": "text", "text": t}});
    assert!(read(&json!({"maxTokens": 5})).unwrap_err().contains("no messages"));
    assert!(read(&json!({"messages": [text("hi")]})).unwrap_err().contains("maxTokens"));
    assert!(read(&json!({"messages": [text("hi")], "maxTokens": 0})).unwrap_err().contains("0 tokens"));
    assert!(read(&json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}], "maxTokens": 5})).unwrap_err().contains("role system"));
    let many: Vec<_> = (0..51).map(|_| text("a")).collect();
    assert!(read(&json!({"messages": many, "maxTokens": 5})).unwrap_err().contains("at most 50"));
    let tool_use = json!({"role": "assistant", "content": {"type": "tool_use", "id": "1", "name": "f", "input": {}}});
    assert!(read(&json!({"messages": [tool_use], "maxTokens": 5})).unwrap_err().contains("tool_use"));
}

#[test]
fn the_result_and_the_exchange_are_worded_as_the_specification_and_the_trace_want() {
    let response = ChatResponse { text: "Green.".into(), finish_reason: Some("stop".into()), ..Default::default() };
    assert_eq!(result(&response, "gpt-4o-mini"), json!({"role": "assistant", "content": {"type": "text", "text": "Green."}, "model": "gpt-4o-mini", "stopReason": "endTurn"}));
    let cut_off = ChatResponse { text: "Gre".into(), finish_reason: Some("length".into()), ..Default::default() };
    assert_eq!(result(&cut_off, "")["stopReason"], "maxTokens");
    assert_eq!(result(&cut_off, "")["model"], "unknown");
    let s = asked(json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}], "maxTokens": 9}));
    let approved = exchange("https://tools.example/mcp", &s, &Review::Approve { asked: s.clone(), edited: true, always: false });
    assert!(approved.accepted && approved.answer.contains("after you edited"));
    let denied = exchange("https://tools.example/mcp", &s, &Review::Deny);
    assert!(!denied.accepted && denied.answer.starts_with("Denied"));
    assert!(denied.question.contains("Name a colour."));
}
