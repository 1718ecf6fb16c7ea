use serde_json::json;

use super::*;
use crate::agent::model::Usage;
use crate::agent::trace::RequestRecord;
use crate::agent::{ChatRequest, Strategy};

fn at(index: u32, step: u32, started_ms: f64, ended_ms: f64, kind: EventKind) -> Event {
    Event { index, step, started_ms, ended_ms, kind }
}

fn started(index: u32) -> Event {
    at(index, 0, 0.0, 0.0, EventKind::RunStarted { question: "q".into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0, strategy: Strategy::React, continues: index > 0, model: Default::default() })
}

fn request(index: u32, step: u32, ms: f64) -> Event {
    at(index, step, ms, ms, EventKind::LlmRequest { purpose: LlmPurpose::Step, request: RequestRecord::whole(&ChatRequest::new(vec![], 0.0, None)) })
}

fn response(index: u32, step: u32, from: f64, to: f64, first: Option<f64>, usage: Option<Usage>) -> Event {
    at(index, step, from, to, EventKind::LlmResponse { text: "x".into(), discarded: None, usage, latency_ms: to - from, first_token_ms: first, finish_reason: None, incomplete: false, tool_calls: vec![] })
}

/// A model call that waited on a retry, a tool call, and a second model call.
fn run() -> Vec<Event> {
    vec![
        started(0),
        request(1, 1, 0.0),
        at(2, 1, 10.0, 10.0, EventKind::LlmRetry { attempt: 1, wait_ms: 100.0, reason: "HTTP 429".into() }),
        response(3, 1, 0.0, 500.0, Some(300.0), Some(Usage::new(812, 64))),
        at(4, 1, 520.0, 520.0, EventKind::ToolCall { tool: "search".into(), input: json!("x"), via: None }),
        at(5, 1, 520.0, 700.0, EventKind::ToolResult { tool: "search".into(), observation: "found".into() }),
        request(6, 2, 750.0),
        response(7, 2, 750.0, 1000.0, None, None),
    ]
}

#[test]
fn each_call_and_wait_is_a_bar_in_the_order_it_started() {
    let t = timeline(&run());
    let kinds: Vec<BarKind> = t.bars.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BarKind::Model, BarKind::Retry, BarKind::Tool, BarKind::Model]);
    let model = &t.bars[0];
    assert_eq!((model.start_ms, model.end_ms, model.first_token_ms), (0.0, 500.0, Some(300.0)));
    assert_eq!(model.event, 3, "a model bar opens its reply's row");
    assert_eq!(model.figures, "500 ms · first token 0.30 s · 812 in · 64 out tokens");
    assert_eq!((t.bars[1].start_ms, t.bars[1].end_ms), (10.0, 110.0), "the retry's wait");
    assert_eq!((t.bars[2].start_ms, t.bars[2].end_ms, t.bars[2].event), (520.0, 700.0, 4));
    assert_eq!(t.bars[3].figures, "250 ms · first token — · tokens —", "unknown stays a dash");
    assert_eq!(t.span_ms, 1000.0);
    // Not covered: 500..520 and 700..750.
    assert_eq!(t.agent_ms, 70.0);
    assert!(t.bars[2].describe().starts_with("Tool: search, step 1, from 0.52 s: 180 ms"), "{}", t.bars[2].describe());
}

#[test]
fn a_continued_run_goes_on_where_the_earlier_part_ended_and_open_calls_run_to_the_end() {
    let mut events = run();
    events.push(started(8));
    events.push(request(9, 3, 0.0));
    events.push(at(10, 3, 40.0, 40.0, EventKind::ToolCall { tool: "calculator".into(), input: json!("1"), via: None }));
    let t = timeline(&events);
    let model = t.bars.iter().find(|b| b.step == 3 && b.kind == BarKind::Model).expect("the continued run's call");
    assert_eq!((model.start_ms, model.end_ms), (1000.0, 1040.0), "after the first part, not over it; open to the end");
    let tool = t.bars.iter().find(|b| b.label == "Tool: calculator").expect("the open tool call");
    assert_eq!((tool.start_ms, tool.end_ms), (1040.0, 1040.0));
    assert!(tool.figures.ends_with("so far"), "{}", tool.figures);
}

#[test]
fn a_long_run_has_a_bar_per_call() {
    let mut events = vec![started(0)];
    for step in 1..=600u32 {
        let t0 = step as f64 * 10.0;
        let i = events.len() as u32;
        events.push(request(i, step, t0));
        events.push(response(i + 1, step, t0, t0 + 4.0, Some(1.0), Some(Usage::new(10, 2))));
        events.push(at(i + 2, step, t0 + 5.0, t0 + 5.0, EventKind::ToolCall { tool: "t".into(), input: json!(1), via: None }));
        events.push(at(i + 3, step, t0 + 5.0, t0 + 9.0, EventKind::ToolResult { tool: "t".into(), observation: "o".into() }));
    }
    let t = timeline(&events);
    assert_eq!(t.bars.len(), 1200);
    assert!(t.bars.windows(2).all(|w| w[0].start_ms <= w[1].start_ms));
}
