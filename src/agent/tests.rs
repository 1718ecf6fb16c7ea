//! Loop tests: a scripted model and fake tools drive `run_agent`, and every assertion is on the
//! resulting trace (or on the requests the model received, which the trace also records).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use super::prompt::{LAST_ANSWER_REQUEST, OBSERVATION};
use super::time::SystemClock;
use super::trace::{AnswerSource, Decision, LlmPurpose};
use super::*;

mod requests;

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
            Ok(ChatResponse { text, usage: Some(Usage { prompt_tokens: 10, completion_tokens: 5, estimated: false }), tool_calls, ..Default::default() })
        })
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
}

impl FakeTool {
    fn new(name: &'static str, behaviour: impl Fn(&Value) -> Result<String, ToolError> + 'static) -> Self {
        FakeTool { name, direct: false, behaviour: Box::new(behaviour), calls: RefCell::default(), hang: false, cancel_on_call: None, asks_model: false }
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
    let input = RunInput { question: "What is the answer?", history, model, tools, settings, clock: &clock, cancel, resume: None };
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

#[test]
fn tool_timeout_becomes_an_observation() {
    let mut slow = FakeTool::echo("search");
    slow.hang = true;
    let settings = AgentSettings { tool_timeout_ms: 20.0, ..Default::default() };
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: later"]);
    let (trace, _) = run_with(&model, &[&slow], &settings, &CancelToken::new(), &[]);
    let timed_out = trace.events.iter().any(|e| matches!(e.kind, EventKind::ToolFailed { timed_out: true, .. }));
    assert!(timed_out, "{:?}", kinds(&trace));
    assert!(model.last_user_message(1).contains("no answer within 0 s"));
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
    assert_eq!((totals.prompt_tokens, totals.completion_tokens), (20, 10));
}

#[test]
fn trace_round_trips_through_json() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&["Thought: garbage", ACT_SEARCH, "Final Answer: 42"]);
    let trace = run(&model, &[&search]);
    let json = serde_json::to_string(&trace).unwrap();
    let back: Trace = serde_json::from_str(&json).unwrap();
    assert_eq!(back, trace);
    let md = trace.to_markdown();
    assert!(md.contains("**Format error**") && md.contains("**Final Answer**"));
}

#[test]
fn parsed_event_records_thought_and_decision() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: 42"]);
    let trace = run(&model, &[&search]);
    match &trace.events[3].kind {
        EventKind::Parsed { thought, decision, .. } => {
            assert_eq!(thought.as_deref(), Some("I should look it up."));
            assert_eq!(*decision, Decision::Action { tool: "search".into(), input: json!("forty-two") });
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn custom_system_template_fills_placeholders() {
    let search = FakeTool::echo("search");
    let settings = AgentSettings { system_template: Some("Tools: {tool_names}\n{tools}".into()), ask_clarifying: false, ..Default::default() };
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

// ---------------------------------------------------------------------------------------------
// Strategies: native tool calling, Plan-ReAct, clarifying questions, direct answers, structured
// output. Same executor, same trace; only the request and the reading of replies differ.
// ---------------------------------------------------------------------------------------------

fn with_strategy(strategy: Strategy) -> AgentSettings {
    AgentSettings { strategy, ..Default::default() }
}

#[test]
fn native_calls_in_one_turn_run_in_order_and_are_answered_by_id() {
    let search = FakeTool::echo("search");
    let calc = FakeTool::echo("calculator");
    let model = Script::new(vec![
        Say::Calls("Let me check both.", vec![("search", r#"{"input": "Paris"}"#), ("calculator", r#"{"input": "2+2"}"#)]),
        Say::Text("Paris has 2.1 million people; 2+2 is 4."),
    ]);
    let (trace, _) = run_with(&model, &[&search, &calc], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    assert_eq!(
        kinds(&trace),
        ["run_started", "llm_request", "llm_response", "parsed", "tool_call", "tool_result", "parsed", "tool_call", "tool_result", "llm_request", "llm_response", "parsed", "final_answer", "run_stopped"]
    );
    assert_eq!(search.calls.borrow()[0], json!({"input": "Paris"}));
    assert_eq!(calc.calls.borrow()[0], json!({"input": "2+2"}));
    let requests = model.requests.borrow();
    // The functions travel as tools, not in the prompt; no ReAct stop sequence.
    let names: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search", "calculator", "ask_person"]);
    assert!(requests[0].stop.is_empty());
    // The second request replays the turn: the assistant's calls, then one result per call.
    let tail = &requests[1].messages[requests[1].messages.len() - 3..];
    assert_eq!(tail[0].role, Role::Assistant);
    assert_eq!(tail[0].tool_calls.len(), 2);
    assert_eq!((tail[1].role, tail[1].tool_call_id.as_deref()), (Role::Tool, Some("call_1_0")));
    assert_eq!(tail[1].content, "search says: Paris");
    assert_eq!((tail[2].role, tail[2].tool_call_id.as_deref()), (Role::Tool, Some("call_1_1")));
    assert_eq!(trace.final_answer(), Some("Paris has 2.1 million people; 2+2 is 4."));
    match &trace.events[3].kind {
        EventKind::Parsed { thought, .. } => assert_eq!(thought.as_deref(), Some("Let me check both.")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn native_call_with_broken_arguments_is_answered_with_the_error() {
    let search = FakeTool::echo("search");
    let model = Script::new(vec![Say::Calls("", vec![("search", "{\"input\": ")]), Say::Calls("", vec![("search", r#"{"input": "x"}"#)]), Say::Text("done")]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    assert!(kinds(&trace).contains(&"parse_failed".to_string()));
    let second = &model.requests.borrow()[1];
    let answer = second.messages.last().unwrap();
    assert_eq!(answer.role, Role::Tool);
    assert!(answer.content.contains("not valid JSON"), "{}", answer.content);
    assert_eq!(search.calls.borrow().len(), 1);
    assert_eq!(stop(&trace), StopReason::Answered);
}

#[test]
fn tools_unsupported_falls_back_to_react_with_a_visible_event() {
    let search = FakeTool::echo("search");
    let model = Script::new(vec![Say::Fail(LlmErrorKind::ToolsUnsupported), Say::Text(ACT_SEARCH), Say::Text("Final Answer: 42")]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    let fallback = trace.events.iter().find_map(|e| match &e.kind {
        EventKind::StrategyFallback { from, to, reason } => Some((*from, *to, reason.clone())),
        _ => None,
    });
    let (from, to, reason) = fallback.expect("a strategy_fallback event");
    assert_eq!((from, to), (Strategy::ToolCalling, Strategy::React));
    assert!(reason.contains("ReAct"), "{reason}");
    assert_eq!(EventKind::StrategyFallback { from, to, reason }.tone(), Tone::Error);
    let requests = model.requests.borrow();
    assert!(!requests[0].tools.is_empty());
    assert!(requests[1].tools.is_empty() && requests[1].stop == [OBSERVATION]);
    assert_eq!(search.calls.borrow().len(), 1);
    assert_eq!(trace.final_answer(), Some("42"));
    // The failed attempt did not use up a step.
    assert_eq!(trace.totals().steps, 2);
}

#[test]
fn other_model_errors_do_not_fall_back() {
    let model = Script::new(vec![Say::Fail(LlmErrorKind::Auth)]);
    let (trace, _) = run_with(&model, &[], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    assert_eq!(stop(&trace), StopReason::ModelFailed);
    assert!(!kinds(&trace).contains(&"strategy_fallback".to_string()));
}

const PLAN_FIRST: &str = "/*PLANNING*/\n1. Search for the city.\n2. Compute the answer.\n/*REASONING*/\nFirst the search.\n/*ACTION*/\n```json\n{\"action\": \"search\", \"action_input\": \"Paris\"}\n```";

#[test]
fn plan_react_records_the_plan_replans_after_a_failure_and_ticks_items() {
    let search = FakeTool::echo("search");
    let broken = FakeTool::new("calculator", |_| Err(ToolError::new("division by zero")));
    let model = Script::texts(&[
        PLAN_FIRST,
        // Tags in Markdown headers, no closing tags.
        "## REASONING\nNow compute.\n## ACTION\n{\"action\": \"calculator\", \"action_input\": \"1/0\"}",
        "<REPLANNING>\n1. Answer from the search result.\n</REPLANNING>\n<REASONING>The calculator failed.\n<FINAL_ANSWER>\nParis.",
    ]);
    let (trace, _) = run_with(&model, &[&search, &broken], &with_strategy(Strategy::PlanReact), &CancelToken::new(), &[]);
    let plans: Vec<(u32, bool, usize)> = trace
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Plan { items, version, replan, .. } => Some((*version, *replan, items.len())),
            _ => None,
        })
        .collect();
    assert_eq!(plans, [(1, false, 2), (2, true, 1)]);
    assert_eq!(trace.final_answer(), Some("Paris."));
    // The first plan: one tool call succeeded before the replan.
    let first = trace.events.iter().position(|e| matches!(e.kind, EventKind::Plan { version: 1, .. })).unwrap();
    assert_eq!(trace::plan_ticks(&trace.events, first), 1);
    let second = trace.events.iter().position(|e| matches!(e.kind, EventKind::Plan { version: 2, .. })).unwrap();
    assert_eq!(trace::plan_ticks(&trace.events, second), 1, "the final answer ticks the rest");
    let system = &model.requests.borrow()[0].messages[0].content;
    assert!(system.contains("/*PLANNING*/") && system.contains("/*REPLANNING*/"), "{system}");
    // The reasoning is the thought of the parsed step.
    match trace.events.iter().find(|e| matches!(e.kind, EventKind::Parsed { .. })).map(|e| &e.kind) {
        Some(EventKind::Parsed { thought, .. }) => assert_eq!(thought.as_deref(), Some("First the search.")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn plan_only_reply_asks_for_the_first_action() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&["/*PLANNING*/\n1. Search.\n2. Answer.", PLAN_FIRST.split("/*REASONING*/").nth(1).map(|_| "/*REASONING*/ go\n/*ACTION*/ {\"action\": \"search\", \"action_input\": \"q\"}").unwrap(), "/*FINAL_ANSWER*/ done"]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::PlanReact), &CancelToken::new(), &[]);
    assert!(!kinds(&trace).contains(&"parse_failed".to_string()), "{:?}", kinds(&trace));
    let second = model.last_user_message(1);
    assert!(second.contains("Observation: Plan noted."), "{second}");
    assert_eq!(search.calls.borrow().len(), 1);
    assert_eq!(trace.final_answer(), Some("done"));
}

#[test]
fn plan_react_malformed_replies_are_fed_back() {
    let model = Script::texts(&["I think the answer is Paris.", "/*REASONING*/ I know it.\n/*ACTION*/\n", "/*FINAL_ANSWER*/ Paris"]);
    let (trace, _) = run_with(&model, &[], &with_strategy(Strategy::PlanReact), &CancelToken::new(), &[]);
    let failures: Vec<String> = trace
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ParseFailed { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(failures[0].contains("/*PLANNING*/"), "{}", failures[0]);
    assert!(failures[1].contains("ACTION"), "{}", failures[1]);
    assert_eq!(trace.final_answer(), Some("Paris"));
}

const ASK_CITY: &str = "Thought: I need the city.\nAction:\n```json\n{\"action\": \"ask_person\", \"action_input\": \"Which city do you mean?\"}\n```";

#[test]
fn clarifying_question_ends_the_run_and_the_reply_continues_it() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ASK_CITY]);
    let (first, _) = run_with(&model, &[&search], &AgentSettings::default(), &CancelToken::new(), &[]);
    assert_eq!(stop(&first), StopReason::NeedsInput);
    assert_eq!(first.pending_question(), Some("Which city do you mean?"));
    assert_eq!(EventKind::Clarify { question: String::new() }.label(), "Question for you");
    assert!(search.calls.borrow().is_empty());

    let model = Script::texts(&[ACT_SEARCH, "Final Answer: Oslo it is"]);
    let clock = SystemClock::default();
    let settings = AgentSettings::default();
    let tools: [&dyn Tool; 1] = [&search];
    let input = RunInput {
        question: "What is the answer?",
        history: &[],
        model: &model,
        tools: &tools,
        settings: &settings,
        clock: &clock,
        cancel: &CancelToken::new(),
        resume: Some(Resume { earlier: &first.events, reply: "Oslo" }),
    };
    let second = pollster::block_on(run_agent(input, &()));
    assert_eq!(kinds(&second)[..2], ["run_started", "person_replied"]);
    // Steps go on counting from the run that asked.
    assert_eq!(second.events[1].step, 1);
    assert_eq!(second.events.iter().map(|e| e.step).max(), Some(3));
    assert!(matches!(second.events[0].kind, EventKind::RunStarted { continues: true, .. }));
    let prompt = model.last_user_message(0);
    assert!(prompt.contains("Which city do you mean?"), "the earlier step is in the scratchpad: {prompt}");
    assert!(prompt.contains("Observation: The person answered your question: Oslo"), "{prompt}");
    assert_eq!(second.final_answer(), Some("Oslo it is"));
}

#[test]
fn clarifying_through_a_native_call_is_answered_by_its_id() {
    let model = Script::new(vec![Say::Calls("", vec![("ask_person", r#"{"question": "Which year?"}"#)])]);
    let settings = with_strategy(Strategy::ToolCalling);
    let (first, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert_eq!(first.pending_question(), Some("Which year?"));

    let model = Script::texts(&["In 2020."]);
    let clock = SystemClock::default();
    let input = RunInput {
        question: "q",
        history: &[],
        model: &model,
        tools: &[],
        settings: &settings,
        clock: &clock,
        cancel: &CancelToken::new(),
        resume: Some(Resume { earlier: &first.events, reply: "2020" }),
    };
    let second = pollster::block_on(run_agent(input, &()));
    let messages = &model.requests.borrow()[0].messages;
    let last = messages.last().unwrap();
    assert_eq!((last.role, last.tool_call_id.as_deref()), (Role::Tool, Some("call_1_0")));
    assert!(last.content.contains("2020"));
    assert_eq!(second.final_answer(), Some("In 2020."));
}

#[test]
fn clarifying_can_be_turned_off() {
    let settings = AgentSettings { ask_clarifying: false, ..Default::default() };
    let model = Script::texts(&[ASK_CITY, "Final Answer: guessed"]);
    let (trace, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert!(kinds(&trace).contains(&"unknown_tool".to_string()));
    assert!(!model.requests.borrow()[0].messages[0].content.contains("ask_person"));
}

#[test]
fn an_answer_without_tools_is_a_direct_answer() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&["Thought: no tool fits a greeting.\nFinal Answer: Hello!"]);
    let trace = run(&model, &[&search]);
    let last = trace.events.iter().rev().find(|e| matches!(e.kind, EventKind::FinalAnswer { .. })).unwrap();
    assert!(matches!(last.kind, EventKind::FinalAnswer { source: AnswerSource::Direct, .. }));
    assert_eq!(last.kind.label(), "Direct answer");
    assert!(model.requests.borrow()[0].messages[0].content.contains("answer it directly from your own knowledge"));

    // Turned off, the model is told not to answer from memory.
    let settings = AgentSettings { direct_answers: false, ..Default::default() };
    let model = Script::texts(&["Final Answer: My tools cannot answer that."]);
    run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert!(model.requests.borrow()[0].messages[0].content.contains("do not answer from memory"));
}

#[test]
fn plain_prose_is_a_direct_answer_labelled_so() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "It is forty-two."]);
    let trace = run(&model, &[&search]);
    assert_eq!(trace.final_answer(), Some("It is forty-two."));
    let last = trace.events.iter().rev().find(|e| matches!(e.kind, EventKind::FinalAnswer { .. })).unwrap();
    // Labelled a direct answer even after a tool ran: the model did not write "Final Answer".
    assert!(matches!(last.kind, EventKind::FinalAnswer { source: AnswerSource::Direct, .. }));
    assert_eq!(last.kind.label(), "Direct answer");
    let notes: Vec<String> = trace.events.iter().flat_map(|e| match &e.kind {
        EventKind::Parsed { notes, .. } => notes.clone(),
        _ => vec![],
    }).collect();
    assert!(notes.iter().any(|n| n.contains("read as a direct answer")), "{notes:?}");
    assert!(!kinds(&trace).contains(&"parse_failed".to_string()));

    // Under /*ACTION*/ prose is no answer: Plan-ReAct sends it back.
    let model = Script::texts(&["/*REASONING*/ x\n/*ACTION*/ I will search the web.", "/*FINAL_ANSWER*/ done"]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::PlanReact), &CancelToken::new(), &[]);
    assert!(model.last_user_message(1).contains("held no tool call"), "{}", model.last_user_message(1));
    assert_eq!(trace.final_answer(), Some("done"));
}

#[test]
fn structured_output_sends_a_schema_and_reads_json_steps() {
    let search = FakeTool::echo("search");
    let settings = AgentSettings { structured_output: true, ..Default::default() };
    let model = Script::texts(&[
        r#"{"thought": "look it up", "action": "search", "action_input": "Oslo"}"#,
        "Thought: plain text anyway\nFinal Answer: not JSON",
    ]);
    let (trace, _) = run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    let requests = model.requests.borrow();
    let format = requests[0].json_format.as_ref().expect("a JSON schema");
    assert_eq!(format.schema["properties"]["action"]["enum"], json!(["search", "ask_person", "Final Answer"]));
    assert!(requests[0].messages[0].content.contains("one JSON object"));
    assert_eq!(search.calls.borrow()[0], json!("Oslo"));
    // A server that ignores the schema still gets the lenient reader, with a note.
    let notes: Vec<String> = trace.events.iter().flat_map(|e| match &e.kind {
        EventKind::Parsed { notes, .. } => notes.clone(),
        _ => vec![],
    }).collect();
    assert!(notes.iter().any(|n| n.contains("structured output")), "{notes:?}");
    assert_eq!(trace.final_answer(), Some("not JSON"));

    let model = Script::texts(&[
        r#"{"thought": "known", "action": "Final Answer", "action_input": ""}"#,
        r#"{"thought": "known", "action": "Final Answer", "action_input": "Oslo is in Norway."}"#,
    ]);
    let (trace, _) = run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert!(model.last_user_message(1).contains("empty \"action_input\""), "an empty answer is sent back");
    assert_eq!(trace.final_answer(), Some("Oslo is in Norway."));
    // Structured output is a ReAct option: other strategies send no schema.
    let model = Script::texts(&["/*FINAL_ANSWER*/ x"]);
    run_with(&model, &[], &AgentSettings { strategy: Strategy::PlanReact, ..settings.clone() }, &CancelToken::new(), &[]);
    assert!(model.requests.borrow()[0].json_format.is_none());
}

#[test]
fn native_early_stopping_generate_asks_without_a_label() {
    let search = FakeTool::echo("search");
    let settings = AgentSettings { strategy: Strategy::ToolCalling, max_iterations: 1, early_stopping: EarlyStopping::Generate, ..Default::default() };
    let model = Script::new(vec![Say::Calls("", vec![("search", r#"{"input": "a"}"#)]), Say::Text("Best guess: 42")]);
    let (trace, _) = run_with(&model, &[&search], &settings, &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("Best guess: 42"));
    assert_eq!(model.last_user_message(1), prompt::LAST_ANSWER_NATIVE);
}

#[test]
fn native_reply_with_a_react_call_in_text_is_run_with_a_note() {
    let search = FakeTool::echo("search");
    let model = Script::new(vec![Say::Text(ACT_SEARCH), Say::Text("Thought: done\nFinal Answer: forty-two")]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    assert_eq!(search.calls.borrow().len(), 1);
    let notes: Vec<String> = trace.events.iter().flat_map(|e| match &e.kind {
        EventKind::Parsed { notes, .. } => notes.clone(),
        _ => vec![],
    }).collect();
    assert!(notes.iter().any(|n| n.contains("as text instead of a native call")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("label")), "{notes:?}");
    assert_eq!(trace.final_answer(), Some("forty-two"));
    // The observation went back as the person's turn: there was no call id to answer.
    let last = model.requests.borrow()[1].messages.last().cloned().unwrap();
    assert_eq!(last.role, Role::User);
    assert!(last.content.contains("search says: forty-two"), "{}", last.content);
    // Plain prose stays the answer, untouched.
    let model = Script::texts(&["Paris is the capital of France."]);
    let (trace, _) = run_with(&model, &[&search], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    assert_eq!(trace.final_answer(), Some("Paris is the capital of France."));
}

#[test]
fn plan_react_reasoning_without_action_after_a_plan_is_fed_back() {
    let model = Script::texts(&["/*PLANNING*/\n1. Think.\n2. Answer.", "/*REASONING*/\nStill thinking.", "/*FINAL_ANSWER*/ done"]);
    let (trace, _) = run_with(&model, &[], &with_strategy(Strategy::PlanReact), &CancelToken::new(), &[]);
    let third = model.last_user_message(2);
    assert!(third.contains("Observation: Plan noted."), "{third}");
    assert_eq!(third.matches("Observation:").count(), 2, "the reasoning-only reply got its own complaint: {third}");
    assert!(kinds(&trace).contains(&"parse_failed".to_string()));
    assert_eq!(trace.final_answer(), Some("done"));
}
