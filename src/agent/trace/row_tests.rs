//! Rows and the transcript read the content, not counts of it.

use serde_json::json;

use super::*;
use crate::agent::model::{LlmErrorKind, ToolCall, Usage};
use crate::agent::trace::{transcript, AnswerSource, Decision, Event, EventKind, Totals, Trace};
use crate::agent::{LlmError, Strategy};

fn event(index: u32, step: u32, kind: EventKind) -> Event {
    Event { index, step, started_ms: 10.0 * index as f64, ended_ms: 10.0 * index as f64 + 5.0, kind }
}

fn reply(text: &str) -> EventKind {
    EventKind::LlmResponse {
        text: text.into(),
        discarded: None,
        usage: Some(Usage::new(100, 17)),
        latency_ms: 5.0,
        incomplete: false,
        tool_calls: vec![],
            first_token_ms: None, finish_reason: None,
        }
}

fn decided(thought: &str, tool: &str, input: serde_json::Value) -> EventKind {
    EventKind::Decided { thought: Some(thought.into()), decision: Decision::Action { tool: tool.into(), input }, notes: vec![] }
}

#[test]
fn a_decision_shows_its_thought_and_the_action_with_its_input() {
    let row = decided("I should multiply.", "calculator", json!("6*7")).row();
    assert_eq!(row.parts, vec![Part::Thought("I should multiply.".into()), Part::Action { tool: "calculator".into(), input: "6*7".into() }]);
    assert!(row.summary.is_empty(), "the parts say it: {row:?}");
    let json_input = decided("t", "wiki", json!({"q": "x"})).row();
    assert!(json_input.parts.contains(&Part::Action { tool: "wiki".into(), input: r#"{"q":"x"}"#.into() }));
    let finishing = EventKind::Decided { thought: None, decision: Decision::Final { answer: "42".into() }, notes: vec!["repaired a fence".into()] }.row();
    assert_eq!(finishing.parts, vec![Part::Note("Ready to answer.".into()), Part::Note("repaired a fence".into())]);
}

#[test]
fn an_observation_shows_its_text_with_its_size_as_secondary_text() {
    let row = EventKind::ToolResult { tool: "calculator".into(), observation: "42".into() }.row();
    assert_eq!(row.parts, vec![Part::Text("42".into())]);
    assert_eq!(row.meta, "calculator · 2 characters");
    let long = "line\n".repeat(3000);
    assert_eq!(EventKind::ToolResult { tool: "t".into(), observation: long }.row().meta, "t · 15,000 characters");
}

#[test]
fn a_preview_stops_at_its_lines_or_its_characters_on_a_char_boundary() {
    let short = preview("one\ntwo");
    assert_eq!((short.shown, short.hidden_chars), ("one\ntwo", 0));
    let lines = preview("1\n2\n3\n4\n5\n6");
    assert_eq!(lines.shown, "1\n2\n3\n4");
    assert_eq!(lines.hidden_chars, "\n5\n6".chars().count());
    let wide = "é".repeat(PREVIEW_CHARS + 10);
    let cut = preview(&wide);
    assert_eq!(cut.shown.chars().count(), PREVIEW_CHARS);
    assert_eq!(cut.hidden_chars, 10);
    // Trailing blank lines are not "more".
    assert!(!preview("answer\n\n\n\n\n\n").is_cut());
    // A text growing token by token previews the same start all along (the live row).
    let text = "Thought: a\nb\nc\nd\ne\nf";
    let grown: Vec<&str> = (1..=text.len()).map(|n| preview(&text[..n]).shown).collect();
    assert!(grown.windows(2).all(|w| w[1].starts_with(w[0].trim_end())), "{grown:?}");
    assert_eq!(grown.last().copied(), Some(preview(text).shown));
}

#[test]
fn a_reply_shows_what_the_model_wrote_and_its_tokens() {
    let row = reply("Thought: multiply.\nAction: calculator").row();
    assert_eq!(row.parts, vec![Part::Text("Thought: multiply.\nAction: calculator".into())]);
    assert_eq!(row.meta, "37 characters · 100 in · 17 out tokens · first token —");
    let native = EventKind::LlmResponse {
        text: String::new(),
        discarded: Some("Observation: made up".into()),
        usage: Some(Usage { cached_tokens: Some(2), reasoning_tokens: Some(0), ..Usage::new(3, 4) }),
        latency_ms: 1.0,
        incomplete: true,
        tool_calls: vec![ToolCall { id: "c1".into(), name: "search".into(), arguments: r#"{"q":"x"}"#.into() }],
            first_token_ms: None, finish_reason: None,
        }
    .row();
    assert_eq!(native.parts[0], Part::Call { name: "search".into(), arguments: r#"{"q":"x"}"#.into() });
    assert!(matches!(&native.parts[1], Part::Note(n) if n.contains("its own Observation")), "{native:?}");
    assert!(native.meta.contains("3 in · 4 out tokens (2 cached) · first token —"), "cached kept, a zero reasoning count not shown: {}", native.meta);
    let unknown = EventKind::LlmResponse { text: "x".into(), discarded: None, usage: None, latency_ms: 9.0, first_token_ms: Some(420.0), finish_reason: None, incomplete: false, tool_calls: vec![] };
    assert_eq!(unknown.row().meta, "1 character · tokens — · first token 0.42 s", "no counts are made up");
    assert!(native.summary.contains("stopped before"), "{}", native.summary);
}

#[test]
fn every_kind_of_event_reads_as_words() {
    let kinds = vec![
        EventKind::RunStarted { question: "Q?".into(), tools: vec!["calculator".into()], history_turns: 2, started_unix_ms: 0.0, strategy: Strategy::React, continues: true, model: Default::default() },
        EventKind::PersonAnswered { answer: "the blue one".into() },
        EventKind::LlmFailed { error: LlmError::new(LlmErrorKind::Network, "The server did not answer.") },
        EventKind::LlmRetry { attempt: 2, wait_ms: 1500.0, reason: "429".into() },
        EventKind::ParseFailed { message: "No Action found.".into(), excerpt: "blah".into(), count: 1, fed_back: true, observation: "fix it".into() },
        EventKind::ToolCall { tool: "echo".into(), input: json!("hi"), via: Some("http://127.0.0.1:3001/mcp".into()) },
        EventKind::ToolFailed { tool: "echo".into(), message: "refused".into(), timed_out: true, fed_back: false },
        EventKind::UnknownTool { requested: "calc".into(), valid: vec!["calculator".into()] },
        EventKind::RepeatedAction { tool: "echo".into(), input: json!("hi"), times: 3 },
        EventKind::FinalAnswer { answer: "**42**".into(), source: AnswerSource::Direct },
        EventKind::Plan { items: vec!["look it up".into(), "answer".into()], version: 2, replan: true, observation: None },
        EventKind::AskedPerson { question: "Which one?".into() },
        EventKind::StrategyFallback { from: Strategy::ToolCalling, to: Strategy::React, reason: "no tools here".into() },
        EventKind::ScopeChecked { verdict: crate::agent::trace::ScopeVerdict::OutOfScope, reason: "cooking".into() },
    ];
    let words: Vec<String> = kinds.iter().map(|k| k.row().all_text()).collect();
    let expect = [
        "Q?", "the blue one", "did not answer", "trying again in 1.5 s", "blah", "via the MCP server at http://127.0.0.1:3001/mcp", "timed out",
        "\"calc\" is not a tool", "3 times in a row", "**42**", "look it up\nanswer", "Which one?", "no tools here", "cooking",
    ];
    for ((kind, text), want) in kinds.iter().zip(&words).zip(expect) {
        assert!(text.contains(want), "{} should say {want:?}: {text:?}", kind.name());
    }
    assert!(kinds[0].row().meta.contains("remembers 2 earlier turns") && kinds[0].row().meta.contains("continues the run above"));
    assert_eq!(kinds[9].row().parts, vec![Part::Answer("**42**".into())], "an answer is Markdown, drawn sanitised");
    assert_eq!(kinds[10].row().meta, "2 steps · version 2 · revised after a failure");
}

#[test]
fn a_row_offers_more_only_when_a_part_is_cut() {
    assert!(!decided("short", "t", json!("x")).row().has_more());
    assert!(decided(&"long thought ".repeat(40), "t", json!("x")).row().has_more());
    assert!(EventKind::ToolResult { tool: "t".into(), observation: "a\nb\nc\nd\ne".into() }.row().has_more());
    assert!(!EventKind::FinalAnswer { answer: "x\n".repeat(50), source: AnswerSource::Model }.row().has_more(), "an answer is shown whole");
}

#[test]
fn counts_are_grouped_by_thousands() {
    assert_eq!(grouped(0), "0");
    assert_eq!(grouped(999), "999");
    assert_eq!(grouped(1000), "1,000");
    assert_eq!(grouped(1234567), "1,234,567");
    assert_eq!(characters(1), "1 character");
}

fn six_times_seven() -> Trace {
    let request = crate::agent::trace::RequestRecord::whole(&crate::agent::ChatRequest::new(vec![], 0.0, None));
    Trace {
        events: vec![
            event(0, 0, EventKind::RunStarted { question: "What is six times seven?".into(), tools: vec!["calculator".into()], history_turns: 0, started_unix_ms: 0.0, strategy: Strategy::React, continues: false, model: Default::default() }),
            event(1, 1, EventKind::LlmRequest { purpose: crate::agent::trace::LlmPurpose::Step, request }),
            event(2, 1, reply("Thought: I should multiply.\nAction: ```json {...}```")),
            event(3, 1, decided("I should multiply.", "calculator", json!("6*7"))),
            event(4, 1, EventKind::ToolCall { tool: "calculator".into(), input: json!("6*7"), via: None }),
            event(5, 1, EventKind::ToolResult { tool: "calculator".into(), observation: "42 and ```fences```".into() }),
            event(6, 2, EventKind::FinalAnswer { answer: "Six times seven is **42**.".into(), source: AnswerSource::Model }),
        ],
    }
}

#[test]
fn the_transcript_reads_as_question_thought_action_observation_answer() {
    let md = six_times_seven().to_markdown();
    let order = ["**Question:** What is six times seven?", "**Thought:** I should multiply.", "**Action:** `calculator` ← `6*7`", "**Observation:**", "**Final Answer:**\n\nSix times seven is **42**."];
    let mut from = 0;
    for want in order {
        let at = md[from..].find(want).unwrap_or_else(|| panic!("{want:?} after byte {from} of:\n{md}"));
        from += at + want.len();
    }
    assert_eq!(md.matches("**Action:**").count(), 1, "the tool call the decision named is not repeated: {md}");
    assert!(!md.contains("Action: ```json"), "the raw reply is left out when its reading follows: {md}");
    assert!(md.contains("_Model reply · step 1 · 5 ms · 52 characters · 100 in · 17 out tokens · first token —_"), "{md}");
    assert!(md.contains("````text\n42 and ```fences```\n````"), "an observation is fenced past its own backticks: {md}");
    assert!(!md.contains("messages sent"), "requests are counted by their reply, not listed: {md}");
    assert_eq!(transcript(&[]), "");
}

#[test]
fn a_long_input_is_fenced_in_the_transcript() {
    let trace = Trace { events: vec![event(0, 1, decided("t", "shell", json!("ls\npwd")))] };
    let md = trace.to_markdown();
    assert!(md.contains("**Action:** `shell` ←\n\n```text\nls\npwd\n```"), "{md}");
}

#[test]
fn the_code_tool_s_input_reads_as_code_and_its_result_as_output() {
    let trace = Trace {
        events: vec![
            event(0, 1, decided("t", "python", json!({"code": "```python\nprint(1)\nprint(2)\n```"}))),
            event(1, 1, EventKind::ToolResult { tool: "python".into(), observation: "1\n2".into() }),
        ],
    };
    let rows: Vec<Row> = trace.events.iter().map(|e| e.kind.row()).collect();
    assert!(rows[0].parts.contains(&Part::Code("print(1)\nprint(2)".into())), "{:?}", rows[0]);
    assert_eq!(rows[1].parts, vec![Part::Output("1\n2".into())]);
    let md = trace.to_markdown();
    assert!(md.contains("**Action:** `python`\n\n```python\nprint(1)\nprint(2)\n```"), "{md}");
    assert!(md.contains(":**\n\n```text\n1\n2\n```"), "the output is fenced as text: {md}");
}

#[test]
fn totals_say_the_reported_tokens_and_how_many_replies_reported_them() {
    let counted = |prompt, completion, cached: Option<u32>| EventKind::LlmResponse {
        text: "x".into(),
        discarded: None,
        usage: Some(Usage { cached_tokens: cached, ..Usage::new(prompt, completion) }),
        latency_ms: 1.0,
        first_token_ms: None,
        finish_reason: None,
        incomplete: false,
        tool_calls: vec![],
    };
    let uncounted = EventKind::LlmResponse { text: "x".into(), discarded: None, usage: None, latency_ms: 1.0, first_token_ms: None, finish_reason: None, incomplete: false, tool_calls: vec![] };

    assert_eq!(Totals::of(&[event(0, 1, uncounted.clone())]).tokens_text(), "tokens —", "nothing reported, nothing made up");
    let both = [event(0, 1, counted(1_000, 20, Some(512))), event(1, 2, counted(300, 40, None))];
    let totals = Totals::of(&both);
    assert_eq!(totals.usage, Usage { cached_tokens: Some(512), ..Usage::new(1_300, 60) });
    assert_eq!(totals.tokens_text(), "1,300 in · 60 out tokens (512 cached)");
    let partly = [event(0, 1, counted(1_000, 20, None)), event(1, 2, uncounted)];
    assert_eq!(Totals::of(&partly).tokens_text(), "1,000 in · 20 out tokens (1 of 2 replies counted)");

    let runs: [&[Event]; 2] = [&both, &partly];
    let conversation = Totals::tokens_of(runs);
    assert_eq!((conversation.replies, conversation.replies_counted), (4, 3));
    assert_eq!(conversation.tokens_text(), "2,300 in · 80 out tokens (512 cached; 3 of 4 replies counted)");
}
