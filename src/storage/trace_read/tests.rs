//! The trace reader against the stored format: every kind of event written by serde and read
//! back, the shortest and the most tolerant forms each shape accepts, and errors that name the
//! part that is wrong. (The renamed tags written by older releases are read in
//! `storage/tests.rs`, `chats_and_exports_written_before_the_renames_still_read`.)

use serde_json::{json, Value};
use std::collections::BTreeSet;

use crate::agent::model::{JsonFormat, LlmError, LlmErrorKind, Message, Role, ToolCall, ToolSpec, Usage};
use crate::agent::request_record::RequestRecord;
use crate::agent::settings::Strategy;
use crate::agent::trace::{AnswerSource, ApprovalChoice, Decision, Event, EventKind, LlmPurpose, ScopeVerdict, StopReason, Trace};
use crate::test_support::Rng;

mod generate;

use generate::{event, variants, COUNTS};

fn read<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, String> {
    serde_json::from_str::<T>(json).map_err(|e| e.to_string())
}

#[test]
fn every_kind_of_event_reads_back_as_written() {
    let mut rng = Rng::new(15);
    let mut seen = BTreeSet::new();
    let mut events = Vec::new();
    for index in 0..3000 {
        let e = event(&mut rng, index);
        variants(&e.kind, &mut seen);
        let json = crate::storage::event::event_json(&e);
        assert_eq!(read::<Event>(&json).as_ref(), Ok(&e), "{json}");
        events.push(e);
    }
    // Every variant of every enum inside an event was written and read at least once.
    for (name, count) in COUNTS {
        for n in 0..count {
            assert!(seen.contains(&(name, n)), "{name} variant {n} was never generated");
        }
    }
    let trace = Trace { events };
    let json = crate::storage::event::trace_json(&trace);
    assert_eq!(read::<Trace>(&json), Ok(trace));
}

/// `"kind"` inside an event, so the tests read the event as storage does.
fn event_with(kind: &str) -> String {
    format!(r#"{{"index":0,"step":1,"started_ms":0,"ended_ms":2.5,"kind":{kind}}}"#)
}

fn kind(json: &str) -> Result<EventKind, String> {
    read::<Event>(&event_with(json)).map(|e| e.kind)
}

#[test]
fn each_kind_reads_from_its_required_fields_alone() {
    let request = r#"{"messages":[{"role":"user","content":"q"}],"stop":[],"temperature":0}"#;
    let cases = [
        (
            r#"{"run_started":{"question":"q","tools":[],"history_turns":0,"started_unix_ms":1}}"#,
            EventKind::RunStarted { question: "q".into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0, strategy: Strategy::React, continues: false, model: Default::default() },
        ),
        (r#"{"person_replied":{"reply":"Oslo"}}"#, EventKind::PersonAnswered { answer: "Oslo".into() }),
        (
            &format!(r#"{{"llm_request":{{"purpose":"step","request":{request}}}}}"#),
            EventKind::LlmRequest { purpose: LlmPurpose::Step, request: RequestRecord::whole(&crate::agent::ChatRequest::new(vec![Message::user("q")], 0.0, None)) },
        ),
        (
            r#"{"llm_response":{"text":"t","latency_ms":3}}"#,
            EventKind::LlmResponse { text: "t".into(), discarded: None, usage: None, latency_ms: 3.0, incomplete: false, tool_calls: vec![], first_token_ms: None, finish_reason: None },
        ),
        (r#"{"llm_failed":{"error":{"kind":"auth","message":"m"}}}"#, EventKind::LlmFailed { error: LlmError::new(LlmErrorKind::Auth, "m") }),
        (r#"{"llm_retry":{"attempt":2,"wait_ms":500,"reason":"429"}}"#, EventKind::LlmRetry { attempt: 2, wait_ms: 500.0, reason: "429".into() }),
        (r#"{"parsed":{"decision":{"final":{"answer":"a"}}}}"#, EventKind::Decided { thought: None, decision: Decision::Final { answer: "a".into() }, notes: vec![] }),
        (r#"{"plan":{"items":["x"],"version":1,"replan":false}}"#, EventKind::Plan { items: vec!["x".into()], version: 1, replan: false, observation: None }),
        (r#"{"clarify":{"question":"Which?"}}"#, EventKind::AskedPerson { question: "Which?".into() }),
        (
            r#"{"strategy_fallback":{"from":"tool_calling","to":"react","reason":"r"}}"#,
            EventKind::StrategyFallback { from: Strategy::ToolCalling, to: Strategy::React, reason: "r".into() },
        ),
        (
            r#"{"parse_failed":{"message":"m","excerpt":"e","count":1,"fed_back":true,"observation":"o"}}"#,
            EventKind::ParseFailed { message: "m".into(), excerpt: "e".into(), count: 1, fed_back: true, observation: "o".into() },
        ),
        (r#"{"tool_call":{"tool":"t","input":null}}"#, EventKind::ToolCall { tool: "t".into(), input: Value::Null, via: None }),
        (r#"{"tool_result":{"tool":"t","observation":"o"}}"#, EventKind::ToolResult { tool: "t".into(), observation: "o".into() }),
        (
            r#"{"tool_failed":{"tool":"t","message":"m","timed_out":false,"fed_back":true}}"#,
            EventKind::ToolFailed { tool: "t".into(), message: "m".into(), timed_out: false, fed_back: true },
        ),
        (r#"{"unknown_tool":{"requested":"x","valid":["a"]}}"#, EventKind::UnknownTool { requested: "x".into(), valid: vec!["a".into()] }),
        (r#"{"repeated_action":{"tool":"t","input":{"q":1},"times":3}}"#, EventKind::RepeatedAction { tool: "t".into(), input: json!({"q": 1}), times: 3 }),
        (r#"{"final_answer":{"answer":"a","source":"return_direct"}}"#, EventKind::FinalAnswer { answer: "a".into(), source: AnswerSource::ReturnDirect }),
        (r#"{"run_stopped":{"reason":"needs_input","message":"m"}}"#, EventKind::RunStopped { reason: StopReason::AskedPerson, message: "m".into() }),
        (r#"{"scope_checked":{"verdict":"out_of_scope","reason":"r"}}"#, EventKind::ScopeChecked { verdict: ScopeVerdict::OutOfScope, reason: "r".into() }),
        (r#"{"approval_asked":{"tool":"t","input":{}}}"#, EventKind::ApprovalAsked { tool: "t".into(), input: json!({}), via: None }),
        (r#"{"approval_given":{"tool":"t","choice":"denied"}}"#, EventKind::ApprovalGiven { tool: "t".into(), choice: ApprovalChoice::Denied }),
        (
            r#"{"server_asked":{"server":"s","question":"q","answer":"a","accepted":true}}"#,
            EventKind::ServerAsked { server: "s".into(), question: "q".into(), answer: "a".into(), accepted: true },
        ),
        (
            r#"{"forked":{"branch":0,"from":4,"change":"ask_again","settings":"now"}}"#,
            EventKind::Forked(Box::new(crate::agent::fork::Fork {
                branch: 0,
                from: 4,
                change: crate::agent::fork::Change::AskAgain,
                settings: crate::agent::fork::ForkSettings::Now,
                model: Default::default(),
                strategy: Strategy::React,
            })),
        ),
    ];
    let mut seen = BTreeSet::new();
    for (json, want) in cases {
        assert_eq!(kind(json), Ok(want.clone()), "{json}");
        variants(&want, &mut seen);
    }
    let kinds = seen.iter().filter(|(name, _)| *name == "EventKind").count();
    assert_eq!(kinds, COUNTS[0].1, "one case for every kind of event");
}

#[test]
fn nested_values_read_from_their_shortest_forms() {
    let error = |json: &str| kind(&format!(r#"{{"llm_failed":{{"error":{{"kind":{json},"message":"m"}}}}}}"#));
    let failed = |kind: LlmErrorKind| Ok(EventKind::LlmFailed { error: LlmError::new(kind, "m") });
    assert_eq!(error(r#"{"redirected":{}}"#), failed(LlmErrorKind::Redirected { to: None }), "a missing Option reads as None");
    assert_eq!(error(r#"{"redirected":{"to":null}}"#), failed(LlmErrorKind::Redirected { to: None }));
    assert_eq!(error(r#"{"server":{"status":503}}"#), failed(LlmErrorKind::Server { status: 503 }));
    assert_eq!(error(r#"{"timeout":null}"#), failed(LlmErrorKind::Timeout), "a unit variant as a one-key object");

    let reason = |json: &str| kind(&format!(r#"{{"run_stopped":{{"reason":{json},"message":"m"}}}}"#));
    let stopped = |reason: StopReason| Ok(EventKind::RunStopped { reason, message: "m".into() });
    assert_eq!(reason(r#"{"max_time":{"limit_ms":60000}}"#), stopped(StopReason::MaxTime { limit_ms: 60000.0 }));
    assert_eq!(reason(r#"{"answered":null}"#), stopped(StopReason::Answered));

    let response = kind(r#"{"llm_response":{"text":"t","latency_ms":1,"usage":{"prompt_tokens":1,"completion_tokens":2},"tool_calls":[{"id":"c","name":"n","arguments":"{}"}]}}"#);
    let EventKind::LlmResponse { usage, tool_calls, .. } = response.unwrap() else { panic!("not a response") };
    assert_eq!(usage, Some(Usage::new(1, 2)));
    assert_eq!(tool_calls, vec![ToolCall { id: "c".into(), name: "n".into(), arguments: "{}".into() }]);
    // Counts an earlier release estimated for a server that reported none read as unknown.
    let estimated = kind(r#"{"llm_response":{"text":"t","latency_ms":1,"usage":{"prompt_tokens":9,"completion_tokens":4,"estimated":true}}}"#);
    let EventKind::LlmResponse { usage, first_token_ms, finish_reason, .. } = estimated.unwrap() else { panic!("not a response") };
    assert_eq!((usage, first_token_ms, finish_reason), (None, None, None), "estimates are not shown as counts; new fields default to unknown");

    let request = kind(
        r#"{"llm_request":{"purpose":{"tool":{"tool":"calculator"}},"request":{"messages":[{"role":"tool","content":"4","tool_call_id":"c"}],"quotes":[[0,0,1,1]],"stop":["Observation:"],"temperature":1,"max_tokens":null,"tools":[{"name":"n","description":"d","parameters":{"type":"object"}}],"json_format":{"name":"f","schema":true}}}}"#,
    );
    let EventKind::LlmRequest { purpose, request } = request.unwrap() else { panic!("not a request") };
    assert_eq!(purpose, LlmPurpose::Tool { tool: "calculator".into() });
    assert_eq!(request.messages, vec![Message::tool_result("c", "4")]);
    assert_eq!((request.quotes, request.temperature, request.max_tokens), (vec![[0, 0, 1, 1]], 1.0, None));
    assert_eq!(request.tools, vec![ToolSpec { name: "n".into(), description: "d".into(), parameters: json!({"type": "object"}) }]);
    assert_eq!(request.json_format, Some(JsonFormat { name: "f".into(), schema: json!(true) }));
}

#[test]
fn unknown_fields_are_ignored_and_null_options_are_none() {
    let e = read::<Event>(
        r#"{"future":[1,{"x":2}],"index":7,"step":2,"started_ms":1,"ended_ms":2,"kind":{"tool_call":{"tool":"t","input":"x","via":null,"extra":true}}}"#,
    )
    .unwrap();
    assert_eq!(e, Event { index: 7, step: 2, started_ms: 1.0, ended_ms: 2.0, kind: EventKind::ToolCall { tool: "t".into(), input: json!("x"), via: None } });
    assert_eq!(
        kind(r#"{"parsed":{"thought":null,"decision":{"action":{"tool":"t","input":[1]}},"notes":[],"confidence":0.5}}"#),
        Ok(EventKind::Decided { thought: None, decision: Decision::Action { tool: "t".into(), input: json!([1]) }, notes: vec![] })
    );
    assert_eq!(read::<Trace>(r#"{"events":[],"totals":{}}"#), Ok(Trace { events: vec![] }));
}

#[test]
fn wrong_or_missing_parts_are_errors_that_name_them() {
    let cases = [
        (event_with(r#"{"llm_response":{"text":"t"}}"#), "kind.llm_response.latency_ms: missing"),
        (event_with(r#"{"llm_response":{"text":"t","latency_ms":"fast"}}"#), "kind.llm_response.latency_ms: expected a number"),
        (event_with(r#"{"llm_response":{"text":"t","latency_ms":1,"incomplete":null}}"#), "kind.llm_response.incomplete: expected true or false"),
        (event_with(r#"{"plan":{"items":["a",2],"version":1,"replan":false}}"#), "kind.plan.items[1]: expected a string"),
        (event_with(r#"{"llm_retry":{"attempt":4294967296,"wait_ms":1,"reason":"r"}}"#), "kind.llm_retry.attempt: expected a whole number from 0 to 4294967295"),
        (event_with(r#"{"llm_retry":{"attempt":-1,"wait_ms":1,"reason":"r"}}"#), "kind.llm_retry.attempt: expected a whole number"),
        (event_with(r#"{"llm_retry":{"attempt":1.5,"wait_ms":1,"reason":"r"}}"#), "kind.llm_retry.attempt: expected a whole number"),
        (event_with(r#"{"llm_failed":{"error":{"kind":{"server":{"status":65536}},"message":"m"}}}"#), "kind.llm_failed.error.kind.server.status: expected a whole number from 0 to 65535"),
        (event_with(r#"{"llm_failed":{"error":{"kind":"server","message":"m"}}}"#), "kind.llm_failed.error.kind.server: expected an object"),
        (event_with(r#"{"run_stopped":{"reason":{"cancelled":{}},"message":"m"}}"#), "kind.run_stopped.reason.cancelled: expected no fields"),
        (event_with(r#"{"run_stopped":{"reason":"asked_person","message":"m"}}"#), "kind.run_stopped.reason: unknown stop reason \"asked_person\""),
        (event_with(r#"{"teleported":{"to":"Mars"}}"#), "kind: unknown event kind \"teleported\""),
        (event_with(r#"{"tool_call":{"tool":"t"}}"#), "kind.tool_call.input: missing"),
        (event_with(r#"{"tool_result":{"tool":"t","observation":"o"},"tool_call":{"tool":"t","input":1}}"#), "kind: expected a name, or an object with one key"),
        (event_with(r#"["tool_result"]"#), "kind: expected a name"),
        (event_with(r#"{"run_started":{"question":"q","tools":[],"history_turns":0,"started_unix_ms":1,"strategy":null}}"#), "kind.run_started.strategy: expected a name"),
        (
            event_with(r#"{"llm_request":{"purpose":"step","request":{"messages":[],"quotes":[[0,0,1]],"stop":[],"temperature":0}}}"#),
            "kind.llm_request.request.quotes[0]: expected a list of 4 numbers",
        ),
        (
            event_with(r#"{"llm_request":{"purpose":"step","request":{"messages":[{"role":"robot","content":""}],"stop":[],"temperature":0}}}"#),
            "kind.llm_request.request.messages[0].role: unknown role \"robot\"",
        ),
        (r#"{"index":0,"step":1,"started_ms":0,"kind":{"clarify":{"question":"q"}}}"#.to_string(), "ended_ms: missing"),
        ("[0,1,0,2.5,{\"clarify\":{\"question\":\"q\"}}]".to_string(), "expected an object"),
        ("\"run_started\"".to_string(), "expected an object"),
    ];
    for (json, want) in cases {
        let error = read::<Event>(&json).expect_err(&json);
        assert!(error.starts_with(want), "{json}\n  gave {error}\n  want {want}");
    }
    let long_tag = format!("{{\"{}\":{{}}}}", "x".repeat(10_000));
    let error = kind(&long_tag).unwrap_err();
    assert!(error.len() < 200, "an unknown tag is shown cut short: {error}");
}

#[test]
fn a_stored_chat_with_an_unknown_event_keeps_the_others() {
    use crate::storage::chats::{read_chat, ReadChat};
    let events = [
        event_with(r#"{"clarify":{"question":"Which?"}}"#),
        event_with(r#"{"hologram":{"question":"Which?"}}"#),
        event_with(r#"{"person_replied":{"reply":"Oslo"}}"#),
    ];
    let chat = format!(r#"{{"version":2,"id":"c1","title":"T","messages":[],"trace":[{}]}}"#, events.join(","));
    let ReadChat::Chat { chat, note, .. } = read_chat("c1", &chat, &Default::default()) else { panic!("the chat does not read") };
    let kinds: Vec<&str> = chat.runs[0].events.iter().map(|e| e.kind.name()).collect();
    assert_eq!(kinds, ["clarify", "person_replied"]);
    assert!(note.is_some_and(|n| n.contains("trace[1]")));
}
