//! Tool calls that wait for the person's approval: allowed once, always, denied, Stop while
//! waiting, and nobody to ask.

use super::*;

/// An observer that answers approvals from a script (and records every event and question).
struct Person {
    events: RefCell<Vec<Event>>,
    choices: RefCell<Vec<ApprovalChoice>>,
    asked: RefCell<Vec<(String, Value)>>,
    /// Never answers; trips this token when asked (Stop while the question is open).
    away: Option<CancelToken>,
}

impl Person {
    fn choosing(choices: &[ApprovalChoice]) -> Self {
        Person { events: RefCell::default(), choices: RefCell::new(choices.iter().rev().copied().collect()), asked: RefCell::default(), away: None }
    }
}

impl RunObserver for Person {
    fn on_event(&self, event: &Event) {
        self.events.borrow_mut().push(event.clone());
    }
    fn approve<'a>(&'a self, tool: &'a dyn Tool, input: &'a Value) -> LocalBoxFuture<'a, ApprovalChoice> {
        self.asked.borrow_mut().push((tool.name().to_string(), input.clone()));
        let choice = self.choices.borrow_mut().pop();
        Box::pin(async move {
            if let Some(token) = &self.away {
                token.cancel();
                std::future::pending::<()>().await;
            }
            choice.expect("asked more often than scripted")
        })
    }
}

fn guarded(name: &'static str) -> FakeTool {
    FakeTool { ask_first: true, ..FakeTool::echo(name) }
}

fn run_asking(model: &Script, tools: &[&dyn Tool], person: &Person, settings: &AgentSettings, cancel: &CancelToken) -> Trace {
    let clock = SystemClock::default();
    let input = RunInput { question: "What is the answer?", history: &[], model, tools, settings, clock: &clock, cancel, answered: None, fork: None };
    pollster::block_on(run_agent(input, person))
}

const AGAIN: &str = "Thought: once more.\nAction:\n```json\n{\"action\": \"search\", \"action_input\": \"again\"}\n```";

#[test]
fn allowed_once_runs_the_call_and_the_next_call_asks_again() {
    let search = guarded("search");
    let model = Script::texts(&[ACT_SEARCH, AGAIN, "Final Answer: 42"]);
    let person = Person::choosing(&[ApprovalChoice::Once, ApprovalChoice::Once]);
    let trace = run_asking(&model, &[&search], &person, &AgentSettings::default(), &CancelToken::new());
    assert_eq!(person.asked.borrow().clone(), [("search".to_string(), json!("forty-two")), ("search".to_string(), json!("again"))]);
    let k = kinds(&trace);
    let first = k.iter().position(|n| n == "approval_asked").unwrap();
    assert_eq!(k[first..first + 4], ["approval_asked", "approval_given", "tool_call", "tool_result"]);
    assert_eq!(search.calls.borrow().len(), 2);
    assert_eq!(trace.final_answer(), Some("42"));
    assert!(matches!(trace.events[first].kind, EventKind::ApprovalAsked { ref tool, .. } if tool == "search"));
    assert_eq!(trace.events[first].kind.tone(), Tone::Pending);
    assert_eq!(trace.events[first + 1].kind.label(), "Allowed by you");
}

#[test]
fn always_allowed_is_not_asked_again_in_the_run() {
    let search = guarded("search");
    let model = Script::texts(&[ACT_SEARCH, AGAIN, "Final Answer: 42"]);
    let person = Person::choosing(&[ApprovalChoice::Always]);
    let trace = run_asking(&model, &[&search], &person, &AgentSettings::default(), &CancelToken::new());
    assert_eq!(person.asked.borrow().len(), 1);
    assert_eq!(search.calls.borrow().len(), 2);
    assert_eq!(kinds(&trace).iter().filter(|k| *k == "approval_asked").count(), 1);
    assert!(trace.events.iter().any(|e| matches!(e.kind, EventKind::ApprovalGiven { choice: ApprovalChoice::Always, .. })));
}

#[test]
fn a_denied_call_is_not_made_and_the_model_is_told() {
    let search = guarded("search");
    let model = Script::texts(&[ACT_SEARCH, "Thought: not allowed.\nFinal Answer: I cannot look it up."]);
    let person = Person::choosing(&[ApprovalChoice::Denied]);
    let trace = run_asking(&model, &[&search], &person, &AgentSettings::default(), &CancelToken::new());
    assert!(search.calls.borrow().is_empty(), "the tool never ran");
    let k = kinds(&trace);
    assert!(!k.contains(&"tool_call".to_string()), "{k:?}");
    let denied = trace.events.iter().find(|e| matches!(e.kind, EventKind::ApprovalGiven { .. })).unwrap();
    assert_eq!((denied.kind.label(), denied.kind.tone()), ("Denied by you", Tone::Neutral));
    assert!(model.last_user_message(1).contains("The person did not allow this call of \"search\""), "{}", model.last_user_message(1));
    // No tool ran: the answer is a direct one.
    assert_eq!(trace.events.iter().rev().find(|e| matches!(e.kind, EventKind::FinalAnswer { .. })).unwrap().kind.label(), "Direct answer");

    // Native tool calling: the denial answers the call it refused, by its id.
    let search = guarded("search");
    let model = Script::new(vec![Say::Calls("", vec![("search", r#"{"input":"x"}"#)]), Say::Text("I was not allowed.")]);
    let person = Person::choosing(&[ApprovalChoice::Denied]);
    run_asking(&model, &[&search], &person, &with_strategy(Strategy::ToolCalling), &CancelToken::new());
    let requests = model.requests.borrow();
    let answer = requests[1].messages.iter().find(|m| m.role == Role::Tool).expect("a tool message");
    assert_eq!(answer.tool_call_id.as_deref(), Some("call_1_0"));
    assert!(answer.content.contains("did not allow"), "{}", answer.content);
}

#[test]
fn stop_while_waiting_ends_the_run_without_the_call() {
    let search = guarded("search");
    let model = Script::texts(&[ACT_SEARCH]);
    let cancel = CancelToken::new();
    let person = Person { away: Some(cancel.clone()), ..Person::choosing(&[ApprovalChoice::Once]) };
    let trace = run_asking(&model, &[&search], &person, &AgentSettings::default(), &cancel);
    assert_eq!(stop(&trace), StopReason::Cancelled);
    assert!(search.calls.borrow().is_empty());
    assert_eq!(kinds(&trace).last().map(String::as_str), Some("run_stopped"));
    assert!(!kinds(&trace).contains(&"approval_given".to_string()));
}

#[test]
fn nobody_to_ask_means_denied_and_tools_without_the_need_are_not_asked() {
    // `()` cannot ask anyone: the guarded call is refused, never made unasked.
    let search = guarded("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: fine"]);
    let trace = run(&model, &[&search]);
    assert!(search.calls.borrow().is_empty());
    assert!(trace.events.iter().any(|e| matches!(e.kind, EventKind::ApprovalGiven { choice: ApprovalChoice::Denied, .. })));
    // A tool that does not need approval is never asked about.
    let plain = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "Final Answer: fine"]);
    let person = Person::choosing(&[]);
    run_asking(&model, &[&plain], &person, &AgentSettings::default(), &CancelToken::new());
    assert!(person.asked.borrow().is_empty());
    assert_eq!(plain.calls.borrow().len(), 1);
}
