//! Requests in the trace: each one is recorded as what it adds to the run's previous one, and
//! `trace::request_at` must rebuild exactly what the model received, at every step, for every
//! strategy, after a JSON round trip, and from a trace exported before deltas existed.

use std::cell::Cell;

use super::*;
use crate::agent::trace::{request_at, Rebuilder, RequestRecord};
use crate::test_support::Rng;

/// Time that moves on every reading and timers that never fire: no thread per tool call (the
/// system clock's sleep), and nothing in these runs waits for a limit.
struct Ticking(Cell<f64>);

impl Clock for Ticking {
    fn now_ms(&self) -> f64 {
        self.0.set(self.0.get() + 0.25);
        self.0.get()
    }
    fn unix_ms(&self) -> f64 {
        1_790_000_000_000.0
    }
    fn sleep(&self, _ms: f64) -> LocalBoxFuture<'static, ()> {
        Box::pin(std::future::pending())
    }
}

fn act(tool: &str, input: &str) -> String {
    format!("Thought: step.\nAction:\n```json\n{{\"action\": \"{tool}\", \"action_input\": \"{input}\"}}\n```")
}

/// One reply of a random script in the format of `strategy`: actions on every kind of tool
/// (one that asks the model itself, one that fails, one that does not exist, the question to
/// the person), format errors, invented observations, and answers.
fn random_reply(dice: &mut Rng, strategy: Strategy, structured: bool) -> Say {
    let tool = dice.pick(&["search", "search", "calculator", "broken", "google", "ask_person"]);
    let input = dice.pick(&["Oslo", "naïve café ☕", "  padded  ", "x"]);
    match (strategy, dice.below(10)) {
        (_, 0) => Say::Text("I am not sure what to write."),
        (Strategy::ToolCalling, 1) if dice.below(4) == 0 => Say::Fail(LlmErrorKind::ToolsUnsupported),
        (Strategy::ToolCalling, 1) => Say::Text("Final answer in prose."),
        (Strategy::ToolCalling, 2) => Say::Calls("", vec![("search", "{\"input\": ")]),
        (Strategy::ToolCalling, 3) => Say::Owned(act(tool, input)),
        (Strategy::ToolCalling, n) => {
            let calls: &[(&'static str, &'static str)] = &[
                ("search", r#"{"input": "Paris"}"#),
                ("calculator", r#"{"input": "2+2"}"#),
                ("broken", r#"{"input": "?"}"#),
                ("ask_person", r#"{"question": "Which year?"}"#),
                ("search", r#"{"input": "Bergen  "}"#),
            ];
            let count = 1 + n % 3;
            Say::Calls(if n % 2 == 0 { "Checking." } else { "" }, (0..count).map(|_| dice.pick(calls)).collect())
        }
        (Strategy::PlanReact, 1) => Say::Text("/*PLANNING*/\n1. Look it up.\n2. Answer."),
        (Strategy::PlanReact, 2) => Say::Text("/*REPLANNING*/\n1. Try again.\n/*REASONING*/\nAgain.\n/*ACTION*/\n{\"action\": \"search\", \"action_input\": \"retry\"}"),
        (Strategy::PlanReact, 3) => Say::Text("/*FINAL_ANSWER*/\nDone."),
        (Strategy::PlanReact, _) => Say::Owned(format!("/*PLANNING*/\n1. Search.\n/*REASONING*/\nGo.\n/*ACTION*/\n{{\"action\": \"{tool}\", \"action_input\": \"{input}\"}}")),
        (_, 1) => Say::Text("Thought: known.\nFinal Answer: 42"),
        (_, 2) => Say::Owned(format!("{}\nObservation: invented\nFinal Answer: 7", act("search", input))),
        (_, 3) if structured => Say::Owned(format!(r#"{{"thought": "t", "action": "{tool}", "action_input": "{input}"}}"#)),
        _ => Say::Owned(act(tool, input)),
    }
}

fn tools() -> (FakeTool, FakeTool, FakeTool) {
    // Observations with trailing blanks and characters of several bytes, to cut and trim.
    let search = FakeTool::new("search", |input| Ok(format!("Found for {}: ünïcode text ✓ and more words  \n", tool::input_as_text(input))));
    let mut calculator = FakeTool::echo("calculator");
    calculator.asks_model = true;
    let broken = FakeTool::new("broken", |_| Err(ToolError::new("the service said 500")));
    (search, calculator, broken)
}

/// Events as the page shows a continued run: after the earlier run's, renumbered.
fn shown_after(earlier: &[Event], run: &Trace) -> Vec<Event> {
    let mut shown = earlier.to_vec();
    shown.extend(run.events.iter().cloned().map(|mut e| {
        e.index += earlier.len() as u32;
        e
    }));
    shown
}

/// Every request of `events[from..]` rebuilds to the one the model received, in order.
fn assert_rebuilds(events: &[Event], from: usize, received: &[ChatRequest], case: &str) {
    let positions: Vec<usize> = (from..events.len()).filter(|&i| matches!(events[i].kind, EventKind::LlmRequest { .. })).collect();
    assert_eq!(positions.len(), received.len(), "{case}: one request event per model call");
    // Also in one pass, each from the ones before, as the OpenTelemetry export reads them.
    let mut rebuilder = Rebuilder::default();
    for (position, sent) in positions.into_iter().zip(received) {
        let rebuilt = request_at(events, position).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(&rebuilt, sent, "{case}: the request at event {position}");
        let in_order = rebuilder.request_at(events, position).unwrap_or_else(|e| panic!("{case}, in one pass: {e}"));
        assert_eq!(in_order, sent, "{case}: the request at event {position}, in one pass");
    }
}

/// Runs one random script (and, when it ends with a question to the person, its continuation)
/// and checks every request, from the run's own trace, from the shown list, and after JSON.
fn check_random_run(seed: u64, strategy: Strategy) {
    let mut dice = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let structured = strategy == Strategy::React && dice.below(2) == 0;
    let settings = AgentSettings {
        strategy,
        structured_output: structured,
        max_iterations: 1 + dice.below(7) as u32,
        early_stopping: if dice.below(2) == 0 { EarlyStopping::Generate } else { EarlyStopping::Force },
        observation_limit: dice.pick(&[12, 4000]),
        ..Default::default()
    };
    let (search, calculator, broken) = tools();
    let tools: [&dyn Tool; 3] = [&search, &calculator, &broken];
    let history = [Turn { question: "Earlier?".into(), answer: "Yes.".into() }];
    let clock = Ticking(Cell::new(0.0));
    let cancel = CancelToken::new();
    let mut shown: Vec<Event> = Vec::new();
    let mut continued = None::<Vec<Event>>;
    for round in 0..3 {
        let script = Script::new((0..12).map(|_| random_reply(&mut dice, strategy, structured)).collect());
        let answered = continued.as_deref().map(|earlier| AnsweredQuestion { earlier, answer: "2020, in Oslo" });
        let input = RunInput { question: "What is the answer?", history: &history, model: &script, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered, fork: None };
        let trace = pollster::block_on(run_agent(input, &()));
        let case = format!("seed {seed}, {strategy:?}, round {round}");
        let received = script.requests.borrow();
        assert_rebuilds(&trace.events, 0, &received, &case);
        let from = shown.len();
        shown = shown_after(&shown, &trace);
        assert_rebuilds(&shown, from, &received, &format!("{case}, shown after the earlier run"));
        let back: Trace = serde_json::from_str(&crate::storage::event::trace_json(&trace)).unwrap();
        assert_eq!(back, trace, "{case}: JSON round trip");
        if trace.stop_reason() != Some(&StopReason::AskedPerson) {
            break;
        }
        continued = Some(shown.clone());
    }
    let back: Vec<Event> = serde_json::from_str(&crate::storage::event::events_json(&shown)).unwrap();
    assert_eq!(back, shown);
}

#[test]
fn every_rebuilt_request_is_the_one_sent_in_random_runs_of_every_strategy() {
    for seed in 1..=150 {
        for strategy in Strategy::ALL {
            check_random_run(seed, strategy);
        }
    }
}

/// The request events of a trace and their records.
fn records(trace: &Trace) -> Vec<&RequestRecord> {
    trace
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::LlmRequest { request, .. } => Some(request),
            _ => None,
        })
        .collect()
}

#[test]
fn a_step_records_only_what_it_adds_and_quotes_observations() {
    let big = FakeTool::new("search", |_| Ok("y".repeat(3000)));
    let model = Script::new(vec![Say::Text(ACT_SEARCH), Say::Owned(act("search", "again")), Say::Text("Final Answer: 42")]);
    let trace = run(&model, &[&big]);
    let records = records(&trace);
    assert_eq!(records[0].base_back, 0, "the first request is whole");
    assert!(records[0].messages[0].content.contains("You are Thoughtline"));
    for record in &records[1..] {
        assert!(record.base_back > 0 && record.kept_tools);
        assert_eq!(record.kept, 1, "the system message is kept");
        assert!(record.kept_text > 0, "the scratchpad message is continued");
        assert_eq!(record.messages.len(), 1);
        assert!(!record.messages[0].content.contains("You are Thoughtline"));
        assert!(!record.messages[0].content.contains("yyyy"), "the observation is quoted, not copied");
        assert_eq!(record.quotes.len(), 2, "the reply and the observation");
    }
    assert_rebuilds(&trace.events, 0, &model.requests.borrow(), "three steps");
}

#[test]
fn native_steps_keep_earlier_messages_and_the_tools() {
    let search = FakeTool::echo("search");
    let model = Script::new(vec![
        Say::Calls("Both.", vec![("search", r#"{"input": "a"}"#), ("search", r#"{"input": "b"}"#)]),
        Say::Calls("", vec![("search", r#"{"input": "c"}"#)]),
        Say::Text("Done."),
    ]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    let records = records(&trace);
    assert!(!records[0].tools.is_empty());
    assert!(records[1].kept_tools && records[1].tools.is_empty(), "the tools are not repeated");
    assert_eq!((records[1].kept, records[1].messages.len()), (2, 3), "the question kept; the turn and its two results added");
    assert_eq!((records[2].kept, records[2].messages.len()), (5, 2));
    assert_rebuilds(&trace.events, 0, &model.requests.borrow(), "native");
}

#[test]
fn a_damaged_record_is_reported_not_rebuilt_wrong() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: 42"]);
    let trace = run(&model, &[&search]);
    let second = trace.events.iter().rposition(|e| matches!(e.kind, EventKind::LlmRequest { .. })).unwrap();
    let damage = |change: &dyn Fn(&mut RequestRecord)| {
        let mut events = trace.events.clone();
        if let EventKind::LlmRequest { request, .. } = &mut events[second].kind {
            change(request);
        }
        request_at(&events, second)
    };
    assert!(damage(&|r| r.base_back = 1).unwrap_err().contains("not a model request"));
    assert!(damage(&|r| r.base_back = 999).unwrap_err().contains("before the start"));
    assert!(damage(&|r| r.kept = 9).is_err());
    assert!(damage(&|r| r.kept_text = 1_000_000).is_err());
    assert!(damage(&|r| r.quotes[0][3] = 1_000_000).unwrap_err().contains("longer than the text"));
    assert!(damage(&|r| r.quotes[0][2] = 0).is_err(), "a request cannot quote itself");
    assert!(damage(&|r| r.quotes[1][1] = 0).unwrap_err().contains("out of order"));
    assert!(request_at(&trace.events, 0).unwrap_err().contains("not a model request"));
    assert!(request_at(&trace.events[..second], second).is_err(), "a trace cut short");
}

#[test]
fn stored_size_grows_linearly_with_the_steps() {
    // 30 steps with 4 KB observations: the trace stays within twice the text that is new in
    // the run (system prompt, replies, observations); recorded whole it was about 15 times that.
    let observation = "z".repeat(4096);
    let big = FakeTool::new("search", move |_| Ok(observation.clone()));
    let replies: Vec<Say> = (0..29).map(|i| Say::Owned(act("search", &format!("query {i}")))).chain([Say::Text("Final Answer: 42")]).collect();
    let model = Script::new(replies);
    let settings = AgentSettings { max_iterations: 31, ..Default::default() };
    let (trace, _) = run_with(&model, &[&big], &settings, &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("42"));
    let stored = crate::storage::event::trace_json(&trace).len();
    let system = model.requests.borrow()[0].messages[0].content.len();
    let new_text: usize = system
        + trace
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::LlmResponse { text, .. } => text.len(),
                EventKind::ToolResult { observation, .. } => observation.len(),
                _ => 0,
            })
            .sum::<usize>();
    assert!(stored < 2 * new_text, "stored {stored} bytes for {new_text} bytes of new text");
    assert_rebuilds(&trace.events, 0, &model.requests.borrow(), "30 steps");
}

/// Runs exported by the release before deltas (export version 1), each request whole.
const EXPORT_V1_REACT: &str = include_str!("export-v1-react.json");
const EXPORT_V1_NATIVE: &str = include_str!("export-v1-native.json");

#[test]
fn version_1_exports_with_whole_requests_import_and_rebuild() {
    for (json, messages) in [(EXPORT_V1_REACT, [2, 2, 2]), (EXPORT_V1_NATIVE, [2, 5, 0])] {
        let chat = crate::storage::import_chat(json).unwrap();
        let events = &chat.runs[0].events;
        let positions: Vec<usize> = (0..events.len()).filter(|&i| matches!(events[i].kind, EventKind::LlmRequest { .. })).collect();
        for (n, &position) in positions.iter().enumerate() {
            let request = request_at(events, position).unwrap();
            assert_eq!(request.messages.len(), messages[n]);
            assert!(request.messages[0].content.starts_with("You are Thoughtline"));
        }
        // The last request, rebuilt, is exactly the one in the file.
        let last = *positions.last().unwrap();
        let rebuilt = request_at(events, last).unwrap();
        let EventKind::LlmRequest { request, .. } = &events[last].kind else { unreachable!() };
        assert_eq!(rebuilt.messages, request.messages);
        assert_eq!((rebuilt.stop.as_slice(), rebuilt.tools.as_slice()), (request.stop.as_slice(), request.tools.as_slice()));
    }
    let react = crate::storage::import_chat(EXPORT_V1_REACT).unwrap();
    let events = &react.runs[0].events;
    let last = events.iter().rposition(|e| matches!(e.kind, EventKind::LlmRequest { .. })).unwrap();
    let scratchpad = &request_at(events, last).unwrap().messages[1].content;
    assert!(scratchpad.contains("Observation: Result for Bergen population"), "{scratchpad}");
}
