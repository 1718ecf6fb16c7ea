//! Loop tests: a scripted model and fake tools drive `run_agent`, and every assertion is on the
//! resulting trace (or on the requests the model received, which the trace also records).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use super::prompt::{LAST_ANSWER_REQUEST, OBSERVATION};
use super::time::SystemClock;
use super::trace::{AnswerSource, Decision, LlmPurpose};
use super::*;

mod approval;
mod fork;
mod otel;
mod requests;
mod strategies;

/// What the scripted model does on one call.
enum Say {
    Text(&'static str),
    Owned(String),
    Fail(LlmErrorKind),
    /// Trips the token, then never answers (a call in flight when Stop is pressed).
    CancelAndHang(CancelToken, Rc<Cell<bool>>),
    /// Never answers.
    Hang,
    /// Reports a retry through `progress`, then answers with the text.
    RetryThen(&'static str),
    /// Native tool calls `(name, arguments)`, with some text beside them.
    Calls(&'static str, Vec<(&'static str, &'static str)>),
}

struct Script {
    replies: RefCell<Vec<Say>>,
    requests: RefCell<Vec<ChatRequest>>,
}

impl Script {
    fn new(replies: Vec<Say>) -> Self {
        Script { replies: RefCell::new(replies.into_iter().rev().collect()), requests: RefCell::default() }
    }
    fn texts(replies: &[&'static str]) -> Self {
        Self::new(replies.iter().map(|r| Say::Text(r)).collect())
    }
    fn last_user_message(&self, call: usize) -> String {
        self.requests.borrow()[call].messages.last().unwrap().content.clone()
    }
}

/// Sets a flag when dropped: proves an abandoned call's future was dropped (fetch aborted).
struct DropFlag(Rc<Cell<bool>>);
impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

impl ChatModel for Script {
    fn complete<'a>(&'a self, request: &'a ChatRequest, progress: &'a dyn Fn(Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        self.requests.borrow_mut().push(request.clone());
        let next = self.replies.borrow_mut().pop().unwrap_or(Say::Text("Final Answer: (script ran out)"));
        Box::pin(async move {
            let mut tool_calls = Vec::new();
            let text = match next {
                Say::Text(t) => t.to_string(),
                Say::Calls(t, calls) => {
                    let n = self.requests.borrow().len();
                    tool_calls = calls
                        .into_iter()
                        .enumerate()
                        .map(|(i, (name, args))| model::ToolCall { id: format!("call_{n}_{i}"), name: name.into(), arguments: args.into() })
                        .collect();
                    t.to_string()
                }
                Say::Owned(t) => t,
                Say::Fail(kind) => return Err(LlmError::new(kind, "scripted failure")),
                Say::CancelAndHang(token, dropped) => {
                    let _flag = DropFlag(dropped);
                    token.cancel();
                    std::future::pending::<()>().await;
                    unreachable!()
                }
                Say::Hang => std::future::pending().await,
                Say::RetryThen(t) => {
                    progress(Progress::Retry { attempt: 1, wait_ms: 1000.0, reason: "HTTP 429" });
                    t.to_string()
                }
            };
            // Stream in two pieces, as a provider would.
            let mid = text.char_indices().nth(text.chars().count() / 2).map(|(i, _)| i).unwrap_or(0);
            progress(Progress::Text(&text[..mid]));
            progress(Progress::Text(&text[mid..]));
            Ok(ChatResponse { text, usage: Some(Usage::new(10, 5)), tool_calls, finish_reason: Some("stop".into()), ..Default::default() })
        })
    }

    fn name(&self) -> ModelName {
        ModelName { provider: "openai".into(), model: "scripted-1".into() }
    }
}

type Behaviour = Box<dyn Fn(&Value) -> Result<String, ToolError>>;

struct FakeTool {
    name: &'static str,
    direct: bool,
    behaviour: Behaviour,
    calls: RefCell<Vec<Value>>,
    /// Never answers (to test timeouts, time limits and Stop).
    hang: bool,
    cancel_on_call: Option<CancelToken>,
    /// Asks the model for help with this prompt before answering.
    asks_model: bool,
    /// Each call waits for the person's approval.
    ask_first: bool,
}

impl FakeTool {
    fn new(name: &'static str, behaviour: impl Fn(&Value) -> Result<String, ToolError> + 'static) -> Self {
        FakeTool { name, direct: false, behaviour: Box::new(behaviour), calls: RefCell::default(), hang: false, cancel_on_call: None, asks_model: false, ask_first: false }
    }
    fn echo(name: &'static str) -> Self {
        Self::new(name, move |input| Ok(format!("{name} says: {}", tool::input_as_text(input))))
    }
}

impl Tool for FakeTool {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "a fake tool for tests"
    }
    fn return_direct(&self) -> bool {
        self.direct
    }
    fn needs_approval(&self) -> bool {
        self.ask_first
    }
    fn call<'a>(&'a self, input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        self.calls.borrow_mut().push(input.clone());
        Box::pin(async move {
            if let Some(token) = &self.cancel_on_call {
                token.cancel();
            }
            if self.hang {
                std::future::pending::<()>().await;
            }
            if self.asks_model {
                let reply = cx
                    .ask_model(ChatRequest::new(vec![Message::user("2 plus 2?")], 0.0, None))
                    .await
                    .map_err(|e| ToolError::new(e.message))?;
                return Ok(format!("helper said {}", reply.text));
            }
            (self.behaviour)(input)
        })
    }
}

#[derive(Default)]
struct Recorded {
    events: RefCell<Vec<Event>>,
    deltas: RefCell<String>,
}

impl RunObserver for Recorded {
    fn on_event(&self, event: &Event) {
        self.events.borrow_mut().push(event.clone());
    }
    fn on_delta(&self, _step: u32, delta: &str) {
        self.deltas.borrow_mut().push_str(delta);
    }
}

fn run_with(model: &Script, tools: &[&dyn Tool], settings: &AgentSettings, cancel: &CancelToken, history: &[Turn]) -> (Trace, Recorded) {
    let clock = SystemClock::default();
    let observer = Recorded::default();
    let input = RunInput { question: "What is the answer?", history, model, tools, settings, clock: &clock, cancel, answered: None, fork: None };
    let trace = pollster::block_on(run_agent(input, &observer));
    (trace, observer)
}

fn run(model: &Script, tools: &[&dyn Tool]) -> Trace {
    run_with(model, tools, &AgentSettings::default(), &CancelToken::new(), &[]).0
}

/// The event types in order, as their serialised tag: short and readable in assertions.
fn kinds(trace: &Trace) -> Vec<String> {
    trace
        .events
        .iter()
        .map(|e| e.kind.name().to_string())
        .collect()
}

fn stop(trace: &Trace) -> StopReason {
    trace.stop_reason().cloned().expect("every run ends with run_stopped")
}

fn with_strategy(strategy: Strategy) -> AgentSettings {
    AgentSettings { strategy, ..Default::default() }
}

const ACT_SEARCH: &str = "Thought: I should look it up.\nAction:\n```json\n{\"action\": \"search\", \"action_input\": \"forty-two\"}\n```";

#[test]
fn direct_final_answer() {
    let model = Script::texts(&["Thought: I know this.\nFinal Answer: 42"]);
    let trace = run(&model, &[]);
    assert_eq!(kinds(&trace), ["run_started", "llm_request", "llm_response", "parsed", "final_answer", "run_stopped"]);
    assert_eq!(trace.final_answer(), Some("42"));
    assert_eq!(stop(&trace), StopReason::Answered);
    let req = &model.requests.borrow()[0];
    assert_eq!(req.stop, vec![OBSERVATION.to_string()]);
    assert_eq!(req.messages[0].role, Role::System);
    assert_eq!(req.messages.last().unwrap().content, "What is the answer?");
}

#[test]
fn action_then_answer_builds_scratchpad() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Thought: done.\nFinal Answer: forty-two"]);
    let trace = run(&model, &[&search]);
    assert_eq!(
        kinds(&trace),
        ["run_started", "llm_request", "llm_response", "parsed", "tool_call", "tool_result", "llm_request", "llm_response", "parsed", "final_answer", "run_stopped"]
    );
    assert_eq!(*search.calls.borrow(), vec![json!("forty-two")]);
    let second = model.last_user_message(1);
    assert!(second.starts_with("What is the answer?\n\nYour work so far"), "{second}");
    assert!(second.contains("Thought: I should look it up.\nAction:"), "{second}");
    assert!(second.ends_with("Observation: search says: forty-two\nThought:"), "{second}");
    // Steps are numbered from 1 and the system prompt names the tool.
    assert_eq!(trace.events[4].step, 1);
    assert_eq!(trace.events[7].step, 2);
    assert!(model.requests.borrow()[0].messages[0].content.contains("- search: a fake tool for tests"));
}

#[test]
fn invented_observation_is_discarded_and_recorded() {
    let search = FakeTool::echo("search");
    let reply = format!("{ACT_SEARCH}\nObservation: the answer is 7\nThought: so\nFinal Answer: 7");
    let model = Script::new(vec![Say::Owned(reply), Say::Text("Final Answer: 42")]);
    let trace = run(&model, &[&search]);
    match &trace.events[2].kind {
        EventKind::LlmResponse { text, discarded, .. } => {
            assert!(!text.contains("Observation"));
            assert!(discarded.as_deref().unwrap().starts_with("Observation: the answer is 7"));
        }
        other => panic!("expected llm_response, got {other:?}"),
    }
    assert_eq!(search.calls.borrow().len(), 1, "the action ran; the invented answer did not count");
    assert_eq!(trace.final_answer(), Some("42"));
}

#[test]
fn parse_error_is_fed_back_and_counted() {
    // A Thought with no action or answer is a format error (plain prose would be an answer).
    let model = Script::texts(&["Thought: I am not sure what to do.", "Thought: Hmm.", "Final Answer: ok"]);
    let trace = run(&model, &[]);
    let failures: Vec<_> = trace
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ParseFailed { count, fed_back, observation, .. } => Some((*count, *fed_back, observation.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(failures.len(), 2);
    assert_eq!((failures[0].0, failures[1].0), (1, 2));
    assert!(failures[0].1);
    let third = model.last_user_message(2);
    assert!(third.contains(&format!("Observation: {}", failures[1].2.trim_end())), "{third}");
    assert_eq!(trace.final_answer(), Some("ok"));
    assert_eq!(trace.events.iter().filter(|e| e.kind.tone() == Tone::Error).count(), 2);
}

#[test]
fn parse_error_can_end_the_run() {
    let settings = AgentSettings { feed_back_parse_errors: false, ..Default::default() };
    let model = Script::texts(&["Thought: no action at all"]);
    let (trace, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert_eq!(stop(&trace), StopReason::ParseFailed);
    assert_eq!(model.requests.borrow().len(), 1);
}

#[test]
fn custom_parse_error_message_is_what_the_model_sees() {
    let settings = AgentSettings { parse_error_message: Some("Use the JSON format, please.".into()), ..Default::default() };
    let model = Script::texts(&["Thought: rambling", "Final Answer: fine"]);
    let (trace, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert!(model.last_user_message(1).contains("Observation: Use the JSON format, please.\nThought:"));
    assert_eq!(trace.final_answer(), Some("fine"));
}

#[test]
fn unknown_tool_lists_the_valid_names() {
    let search = FakeTool::echo("search");
    let calc = FakeTool::echo("calculator");
    let model = Script::texts(&[
        "Action:\n```json\n{\"action\": \"google\", \"action_input\": \"x\"}\n```",
        "Final Answer: gave up",
    ]);
    let trace = run(&model, &[&search, &calc]);
    assert!(kinds(&trace).contains(&"unknown_tool".to_string()));
    let second = model.last_user_message(1);
    assert!(second.contains("\"google\" is not a tool you can use. Use one of: search, calculator, ask_person."), "{second}");
    assert!(search.calls.borrow().is_empty() && calc.calls.borrow().is_empty());
}

#[test]
fn tool_names_match_case_insensitively() {
    let search = FakeTool::echo("Search");
    let model = Script::texts(&["Action:\n```json\n{\"action\": \"SEARCH\", \"action_input\": \"q\"}\n```", "Final Answer: a"]);
    let trace = run(&model, &[&search]);
    assert_eq!(search.calls.borrow().len(), 1);
    assert!(trace.events.iter().any(|e| matches!(&e.kind, EventKind::ToolCall { tool, .. } if tool == "Search")));
}

#[test]
fn tool_error_is_fed_back_or_ends_the_run() {
    let broken = FakeTool::new("search", |_| Err(ToolError::new("the service said 500")));
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: without it"]);
    let trace = run(&model, &[&broken]);
    assert!(model.last_user_message(1).contains("Observation: The tool \"search\" failed: the service said 500"));
    assert_eq!(stop(&trace), StopReason::Answered);

    let settings = AgentSettings { feed_back_tool_errors: false, ..Default::default() };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: unreachable"]);
    let (trace, _) = run_with(&model, &[&broken], &settings, &CancelToken::new(), &[]);
    assert_eq!(stop(&trace), StopReason::ToolFailed { tool: "search".into() });
    assert_eq!(model.requests.borrow().len(), 1);
}

/// Works `reports` × `every_ms`, saying how far it is after each stretch.
struct Reporting {
    every_ms: f64,
    reports: u32,
}

impl Tool for Reporting {
    fn name(&self) -> &str {
        "search"
    }
    fn description(&self) -> &str {
        "a slow tool that says how far it is"
    }
    fn call<'a>(&'a self, _input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            for n in 1..=self.reports {
                SystemClock::default().sleep(self.every_ms).await;
                cx.progress(&format!("{n} of {}", self.reports));
            }
            Ok("done at last".into())
        })
    }
}

#[derive(Default)]
struct Heard(RefCell<Vec<(u32, String, String)>>);
impl RunObserver for Heard {
    fn on_tool_progress(&self, step: u32, tool: &str, text: &str) {
        self.0.borrow_mut().push((step, tool.to_string(), text.to_string()));
    }
}

#[test]
fn progress_starts_the_silence_limit_again_and_is_heard_live() {
    // 6 × 40 ms = 240 ms of work against a 200 ms limit of silence: it finishes (the margin
    // is wide, for a busy machine).
    let tool = Reporting { every_ms: 40.0, reports: 6 };
    let settings = AgentSettings { tool_timeout_ms: 200.0, ..Default::default() };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: fine"]);
    let clock = SystemClock::default();
    let heard = Heard::default();
    let cancel = CancelToken::new();
    let input = RunInput { question: "q", history: &[], model: &model, tools: &[&tool], settings: &settings, clock: &clock, cancel: &cancel, answered: None, fork: None };
    let trace = pollster::block_on(run_agent(input, &heard));
    assert!(trace.events.iter().any(|e| matches!(&e.kind, EventKind::ToolResult { observation, .. } if observation == "done at last")), "{:?}", kinds(&trace));
    assert_eq!(heard.0.borrow().iter().map(|(s, t, x)| (*s, t.as_str(), x.as_str())).collect::<Vec<_>>()[..2], [(1, "search", "1 of 6"), (1, "search", "2 of 6")]);
    assert_eq!(heard.0.borrow().len(), 6);

    // Silent for longer than the limit between two reports: it times out.
    let tool = Reporting { every_ms: 400.0, reports: 2 };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: later"]);
    let (trace, _) = run_with(&model, &[&tool], &settings, &CancelToken::new(), &[]);
    assert!(trace.events.iter().any(|e| matches!(e.kind, EventKind::ToolFailed { timed_out: true, .. })), "{:?}", kinds(&trace));
    // And progress never outlasts the run's own time limit.
    let tool = Reporting { every_ms: 30.0, reports: 100 };
    let limited = AgentSettings { tool_timeout_ms: 200.0, max_time_ms: Some(300.0), ..Default::default() };
    let model = Script::texts(&[ACT_SEARCH]);
    let (trace, _) = run_with(&model, &[&tool], &limited, &CancelToken::new(), &[]);
    assert!(matches!(stop(&trace), StopReason::MaxTime { .. }), "{:?}", stop(&trace));
}

/// Waits `asked_ms` on the person (saying so with `asking`, unless `says` is false), then works
/// `then_ms` more.
struct Asks {
    asked_ms: f64,
    then_ms: f64,
    says: bool,
}

impl Tool for Asks {
    fn name(&self) -> &str {
        "search"
    }
    fn description(&self) -> &str {
        "a tool whose server asks the person something"
    }
    fn call<'a>(&'a self, _input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            if self.says {
                cx.asking(true);
            }
            SystemClock::default().sleep(self.asked_ms).await;
            if self.says {
                cx.asked(crate::agent::AskedYou { server: "https://s.example/mcp".into(), question: "Sure?".into(), answer: "Sent {\"sure\":true}".into(), accepted: true });
                cx.asking(false);
            }
            SystemClock::default().sleep(self.then_ms).await;
            Ok("answered".into())
        })
    }
}

#[test]
fn the_silence_limit_waits_while_the_person_is_asked_and_runs_whole_again_after() {
    let settings = AgentSettings { tool_timeout_ms: 100.0, ..Default::default() };
    let answered = |trace: &Trace| trace.events.iter().any(|e| matches!(&e.kind, EventKind::ToolResult { observation, .. } if observation == "answered"));
    // 250 ms with the person, then 40 ms of work, against a 100 ms limit: it finishes.
    let tool = Asks { asked_ms: 250.0, then_ms: 40.0, says: true };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: fine"]);
    let (trace, _) = run_with(&model, &[&tool], &settings, &CancelToken::new(), &[]);
    assert!(answered(&trace), "{:?}", kinds(&trace));
    // The question and the answer are a step of the call's, between the call and its result.
    let at = |kind: &str| trace.events.iter().position(|e| e.kind.name() == kind);
    assert!(at("tool_call") < at("server_asked") && at("server_asked") < at("tool_result"), "{:?}", kinds(&trace));
    let asked = trace.events.iter().find(|e| e.kind.name() == "server_asked").unwrap();
    assert_eq!(asked.step, trace.events.iter().find(|e| e.kind.name() == "tool_call").unwrap().step);
    assert_eq!(asked.kind.tone(), Tone::Success);
    // The same wait unsaid is silence, and times out.
    let tool = Asks { asked_ms: 250.0, then_ms: 40.0, says: false };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: later"]);
    let (trace, _) = run_with(&model, &[&tool], &settings, &CancelToken::new(), &[]);
    assert!(trace.events.iter().any(|e| matches!(e.kind, EventKind::ToolFailed { timed_out: true, .. })), "{:?}", kinds(&trace));
    // After the answer the limit holds again.
    let tool = Asks { asked_ms: 50.0, then_ms: 250.0, says: true };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: later"]);
    let (trace, _) = run_with(&model, &[&tool], &settings, &CancelToken::new(), &[]);
    assert!(!answered(&trace) && trace.events.iter().any(|e| matches!(e.kind, EventKind::ToolFailed { timed_out: true, .. })), "{:?}", kinds(&trace));
}

#[test]
fn tool_timeout_becomes_an_observation() {
    let mut slow = FakeTool::echo("search");
    slow.hang = true;
    let settings = AgentSettings { tool_timeout_ms: 20.0, ..Default::default() };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: later"]);
    let (trace, _) = run_with(&model, &[&slow], &settings, &CancelToken::new(), &[]);
    let timed_out = trace.events.iter().any(|e| matches!(e.kind, EventKind::ToolFailed { timed_out: true, .. }));
    assert!(timed_out, "{:?}", kinds(&trace));
    assert!(model.last_user_message(1).contains("no answer within 0 s, and no word of progress"));
    assert_eq!(trace.final_answer(), Some("later"));
}

#[test]
fn the_same_action_three_times_is_refused() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, ACT_SEARCH, ACT_SEARCH, "Final Answer: 42"]);
    let trace = run(&model, &[&search]);
    assert_eq!(search.calls.borrow().len(), 2, "the third identical call is not run");
    let repeated = trace.events.iter().find_map(|e| match &e.kind {
        EventKind::RepeatedAction { times, .. } => Some(*times),
        _ => None,
    });
    assert_eq!(repeated, Some(3));
    assert!(model.last_user_message(3).contains("3 times in a row; the result will not change"));
}

#[test]
fn a_different_input_resets_the_repeat_count() {
    let search = FakeTool::echo("search");
    let other = "Action:\n```json\n{\"action\": \"search\", \"action_input\": \"other\"}\n```";
    let model = Script::texts(&[ACT_SEARCH, ACT_SEARCH, other, ACT_SEARCH, "Final Answer: 42"]);
    run(&model, &[&search]);
    assert_eq!(search.calls.borrow().len(), 4);
}

#[test]
fn max_iterations_force_stops_without_an_answer() {
    let search = FakeTool::new("search", |input| Ok(format!("result {}", input)));
    let replies: Vec<Say> = (0..5)
        .map(|i| Say::Owned(format!("Action:\n```json\n{{\"action\": \"search\", \"action_input\": \"q{i}\"}}\n```")))
        .collect();
    let model = Script::new(replies);
    let settings = AgentSettings { max_iterations: 3, ..Default::default() };
    let (trace, _) = run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert_eq!(stop(&trace), StopReason::MaxIterations { limit: 3 });
    assert_eq!(model.requests.borrow().len(), 3);
    assert_eq!(trace.final_answer(), None);
    assert_eq!(trace.events.last().unwrap().kind.tone(), Tone::Error);
}

#[test]
fn max_iterations_generate_asks_for_a_last_answer() {
    let search = FakeTool::echo("search");
    let other = "Action:\n```json\n{\"action\": \"search\", \"action_input\": \"more\"}\n```";
    let model = Script::texts(&[ACT_SEARCH, other, "Final Answer: best guess: 42"]);
    let settings = AgentSettings { max_iterations: 2, early_stopping: EarlyStopping::Generate, ..Default::default() };
    let (trace, _) = run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert_eq!(model.requests.borrow().len(), 3);
    assert!(model.last_user_message(2).ends_with(LAST_ANSWER_REQUEST));
    assert!(trace.events.iter().any(|e| matches!(&e.kind, EventKind::LlmRequest { purpose: LlmPurpose::LastAnswer, .. })));
    assert!(trace.events.iter().any(|e| matches!(&e.kind, EventKind::FinalAnswer { source: AnswerSource::LastAnswer, answer } if answer == "best guess: 42")));
    assert_eq!(stop(&trace), StopReason::MaxIterations { limit: 2 });
}

#[test]
fn generate_uses_plain_text_when_the_last_reply_has_no_label() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "It is probably 42."]);
    let settings = AgentSettings { max_iterations: 1, early_stopping: EarlyStopping::Generate, ..Default::default() };
    let (trace, _) = run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("It is probably 42."));
}

#[test]
fn max_time_stops_a_slow_tool() {
    let mut slow = FakeTool::echo("search");
    slow.hang = true;
    let settings = AgentSettings { max_time_ms: Some(30.0), ..Default::default() };
    let model = Script::texts(&[ACT_SEARCH]);
    let (trace, _) = run_with(&model, &[&slow], &settings, &CancelToken::new(), &[]);
    assert_eq!(stop(&trace), StopReason::MaxTime { limit_ms: 30.0 });
    assert!(trace.events.last().unwrap().ended_ms >= 30.0);
}

#[test]
fn max_time_stops_a_slow_model() {
    let settings = AgentSettings { max_time_ms: Some(30.0), ..Default::default() };
    let model = Script::new(vec![Say::Hang]);
    let (trace, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert_eq!(stop(&trace), StopReason::MaxTime { limit_ms: 30.0 });
}

#[test]
fn stop_during_a_model_call_drops_the_request() {
    let cancel = CancelToken::new();
    let dropped = Rc::new(Cell::new(false));
    let model = Script::new(vec![Say::CancelAndHang(cancel.clone(), dropped.clone())]);
    let (trace, _) = run_with(&model, &[], &AgentSettings::default(), &cancel, &[]);
    assert_eq!(stop(&trace), StopReason::Cancelled);
    assert!(dropped.get(), "the in-flight call was dropped (its fetch aborted)");
    assert_eq!(kinds(&trace), ["run_started", "llm_request", "run_stopped"]);
}

#[test]
fn stop_during_a_tool_call() {
    let cancel = CancelToken::new();
    let mut tool = FakeTool::echo("search");
    tool.hang = true;
    tool.cancel_on_call = Some(cancel.clone());
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: never"]);
    let (trace, _) = run_with(&model, &[&tool], &AgentSettings::default(), &cancel, &[]);
    assert_eq!(stop(&trace), StopReason::Cancelled);
    assert_eq!(model.requests.borrow().len(), 1);
}

#[test]
fn stop_before_start() {
    let cancel = CancelToken::new();
    cancel.cancel();
    let model = Script::texts(&["Final Answer: no"]);
    let (trace, _) = run_with(&model, &[], &AgentSettings::default(), &cancel, &[]);
    assert_eq!(stop(&trace), StopReason::Cancelled);
    assert!(model.requests.borrow().is_empty());
}

#[test]
fn return_direct_tool_answers() {
    let mut calc = FakeTool::new("calculator", |_| Ok("75".into()));
    calc.direct = true;
    let model = Script::texts(&["Action:\n```json\n{\"action\": \"calculator\", \"action_input\": \"25% of 300\"}\n```"]);
    let trace = run(&model, &[&calc]);
    assert!(matches!(&trace.events[trace.events.len() - 2].kind, EventKind::FinalAnswer { source: AnswerSource::ReturnDirect, answer } if answer == "75"));
    assert_eq!(stop(&trace), StopReason::Answered);
    assert_eq!(model.requests.borrow().len(), 1);
}

#[test]
fn model_failure_ends_the_run() {
    let model = Script::new(vec![Say::Fail(LlmErrorKind::Auth)]);
    let trace = run(&model, &[]);
    assert_eq!(kinds(&trace), ["run_started", "llm_request", "llm_failed", "run_stopped"]);
    assert_eq!(stop(&trace), StopReason::ModelFailed);
}

#[test]
fn an_empty_reply_is_an_error() {
    let model = Script::texts(&["   "]);
    let trace = run(&model, &[]);
    assert!(matches!(&trace.events[2].kind, EventKind::LlmFailed { error } if error.kind == LlmErrorKind::Empty));
}

#[test]
fn long_observations_are_cut_in_the_prompt_only() {
    let big = FakeTool::new("search", |_| Ok("x".repeat(5000)));
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: ok"]);
    let trace = run(&model, &[&big]);
    let second = model.last_user_message(1);
    assert!(second.contains(&format!("{}\n[… cut: showing 4000 of 5000 characters]", "x".repeat(4000))));
    assert!(!second.contains(&"x".repeat(4001)));
    let full = trace.events.iter().find_map(|e| match &e.kind {
        EventKind::ToolResult { observation, .. } => Some(observation.len()),
        _ => None,
    });
    assert_eq!(full, Some(5000), "the trace keeps the whole observation");
}

#[test]
fn memory_keeps_the_newest_turns_within_budget() {
    let history = vec![
        Turn { question: "old question".into(), answer: "old answer".repeat(10) },
        Turn { question: "recent question".into(), answer: "recent answer".into() },
    ];
    let settings = AgentSettings { history_budget: 40, ..Default::default() };
    let model = Script::texts(&["Final Answer: ok"]);
    let (trace, _) = run_with(&model, &[], &settings, &CancelToken::new(), &history);
    let msgs = &model.requests.borrow()[0].messages;
    let contents: Vec<_> = msgs.iter().map(|m| (m.role, m.content.as_str())).collect();
    assert_eq!(
        &contents[1..],
        [(Role::User, "recent question"), (Role::Assistant, "recent answer"), (Role::User, "What is the answer?")]
    );
    assert!(matches!(trace.events[0].kind, EventKind::RunStarted { history_turns: 2, .. }));
}

#[test]
fn a_tools_own_model_call_is_traced_but_not_a_step() {
    let mut helper = FakeTool::echo("calculator");
    helper.asks_model = true;
    let model = Script::texts(&[ACT_SEARCH.replace("search", "calculator").leak(), "4", "Final Answer: 4"]);
    let trace = run(&model, &[&helper]);
    let purposes: Vec<_> = trace
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::LlmRequest { purpose, .. } => Some(purpose.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(purposes, [LlmPurpose::Step, LlmPurpose::Tool { tool: "calculator".into() }, LlmPurpose::Step]);
    let third = model.last_user_message(2);
    assert!(third.contains("Observation: helper said 4\nThought:"), "{third}");
    assert_eq!(third.matches("Action:").count(), 1, "the helper's reply is not part of the scratchpad: {third}");
}

#[test]
fn observer_sees_every_event_in_order_and_the_stream() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: 42"]);
    let (trace, observer) = run_with(&model, &[&search], &AgentSettings::default(), &CancelToken::new(), &[]);
    assert_eq!(*observer.events.borrow(), trace.events);
    assert!(trace.events.iter().enumerate().all(|(i, e)| e.index as usize == i));
    assert!(trace.events.iter().all(|e| e.ended_ms >= e.started_ms));
    assert_eq!(*observer.deltas.borrow(), format!("{ACT_SEARCH}Final Answer: 42"));
}

#[test]
fn totals_count_calls_and_tokens() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: 42"]);
    let totals = run(&model, &[&search]).totals();
    assert_eq!((totals.steps, totals.llm_calls, totals.tool_calls, totals.errors), (2, 2, 1, 0));
    assert_eq!((totals.usage.prompt_tokens, totals.usage.completion_tokens), (20, 10));
}

#[test]
fn trace_round_trips_through_json() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&["Thought: garbage", ACT_SEARCH, "Final Answer: 42"]);
    let trace = run(&model, &[&search]);
    let json = crate::storage::event::trace_json(&trace);
    let back: Trace = serde_json::from_str(&json).unwrap();
    assert_eq!(back, trace);
    let md = trace.to_markdown();
    assert!(md.contains("**Format error:**") && md.contains("**Final Answer:**"), "{md}");
}

#[test]
fn parsed_event_records_thought_and_decision() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: 42"]);
    let trace = run(&model, &[&search]);
    match &trace.events[3].kind {
        EventKind::Decided { thought, decision, .. } => {
            assert_eq!(thought.as_deref(), Some("I should look it up."));
            assert_eq!(*decision, Decision::Action { tool: "search".into(), input: json!("forty-two") });
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn custom_system_template_fills_placeholders() {
    let search = FakeTool::echo("search");
    let settings = AgentSettings { system_template: Some("Tools: {tool_names}\n{tools}".into()), ask_person: false, ..Default::default() };
    let model = Script::texts(&["Final Answer: ok"]);
    run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert_eq!(model.requests.borrow()[0].messages[0].content, "Tools: search\n- search: a fake tool for tests");
    assert_eq!(prompt::template_problems("Tools: {tool_names}").len(), 3);
    assert!(prompt::template_problems(prompt::DEFAULT_SYSTEM_TEMPLATE).is_empty());
}

#[test]
fn provider_retries_are_recorded_as_red_events_before_the_reply() {
    let model = Script::new(vec![Say::RetryThen("Final Answer: after a wait")]);
    let trace = run(&model, &[]);
    assert_eq!(kinds(&trace), ["run_started", "llm_request", "llm_retry", "llm_response", "parsed", "final_answer", "run_stopped"]);
    assert!(matches!(&trace.events[2].kind, EventKind::LlmRetry { attempt: 1, wait_ms, reason } if *wait_ms == 1000.0 && reason == "HTTP 429"));
    assert_eq!(trace.events[2].kind.tone(), Tone::Error);
    assert_eq!(trace.final_answer(), Some("after a wait"));
}

fn scoped(scope: &str) -> AgentSettings {
    AgentSettings { scope: scope.into(), decline_message: "I only do arithmetic.".into(), ..Default::default() }
}

#[test]
fn an_out_of_scope_question_is_declined_with_one_model_call_and_no_tool() {
    let tool = FakeTool::echo("search");
    let model = Script::texts(&["OUT: a question about history, not arithmetic", ACT_SEARCH]);
    let (trace, _) = run_with(&model, &[&tool], &scoped("arithmetic homework"), &CancelToken::new(), &[]);
    assert_eq!(kinds(&trace), ["run_started", "llm_request", "llm_response", "scope_checked", "final_answer", "run_stopped"]);
    assert_eq!(model.requests.borrow().len(), 1, "one model call, the gate's");
    assert!(tool.calls.borrow().is_empty());
    assert!(matches!(&trace.events[1].kind, EventKind::LlmRequest { purpose: LlmPurpose::ScopeCheck, .. }));
    assert_eq!(trace.events[3].kind, EventKind::ScopeChecked { verdict: ScopeVerdict::OutOfScope, reason: "a question about history, not arithmetic".into() });
    let answer = trace.final_answer().unwrap();
    assert!(answer.starts_with("I only do arithmetic.") && answer.contains("Why: a question about history"), "{answer}");
    assert!(matches!(trace.events[4].kind, EventKind::FinalAnswer { source: AnswerSource::Declined, .. }));
    assert_eq!(stop(&trace), StopReason::Answered);
}

#[test]
fn an_in_scope_question_goes_on_and_the_gate_is_not_part_of_the_prompt() {
    let model = Script::texts(&["IN: arithmetic", "Thought: easy.\nFinal Answer: 4"]);
    let (trace, _) = run_with(&model, &[], &scoped("arithmetic homework"), &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("4"));
    assert!(trace.events.iter().any(|e| e.kind == EventKind::ScopeChecked { verdict: ScopeVerdict::InScope, reason: "arithmetic".into() }));
    let step = &model.requests.borrow()[1];
    assert!(!step.messages.iter().any(|m| m.content.contains("IN: arithmetic")), "the verdict is not in the step's prompt");
    assert!(step.messages[0].content.contains("Final Answer"), "the step's own system prompt");
}

#[test]
fn an_unreadable_verdict_proceeds_and_the_trace_says_so() {
    let model = Script::texts(&["Hmm, hard to say.", "Final Answer: 4"]);
    let (trace, _) = run_with(&model, &[], &scoped("arithmetic"), &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("4"));
    let checked = trace.events.iter().find_map(|e| match &e.kind {
        EventKind::ScopeChecked { verdict, reason } => Some((*verdict, reason.clone())),
        _ => None,
    });
    let (verdict, reason) = checked.expect("the gate's step");
    assert_eq!(verdict, ScopeVerdict::Unreadable);
    assert!(reason.contains("no verdict"), "{reason}");
    // A failed gate call proceeds too; the step after it says what failed.
    let model = Script::new(vec![Say::Fail(LlmErrorKind::Server { status: 500 }), Say::Text("Final Answer: 4")]);
    let (trace, _) = run_with(&model, &[], &scoped("arithmetic"), &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("4"));
}

#[test]
fn an_empty_scope_makes_no_gate_call_and_stop_works_during_the_gate() {
    let model = Script::texts(&["Final Answer: 4"]);
    let (trace, _) = run_with(&model, &[], &scoped("  "), &CancelToken::new(), &[]);
    assert!(!kinds(&trace).contains(&"scope_checked".to_string()));
    assert_eq!(model.requests.borrow().len(), 1);
    let cancel = CancelToken::new();
    let dropped = Rc::new(Cell::new(false));
    let model = Script::new(vec![Say::CancelAndHang(cancel.clone(), dropped.clone())]);
    let (trace, _) = run_with(&model, &[], &scoped("arithmetic"), &cancel, &[]);
    assert_eq!(stop(&trace), StopReason::Cancelled);
    assert!(dropped.get(), "the gate's call was dropped");
}
