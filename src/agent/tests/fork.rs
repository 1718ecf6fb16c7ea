//! Branches of a run (`agent::fork`): what each step offers to change, where a branch starts,
//! and the loop going on from a changed reply, tool input or observation, or the same step
//! asked again. Every assertion is on the branch's trace or on what the model received.

use super::*;
use crate::agent::fork::{can_ask_again, fork_point, forked_event, Change, Editable, Fork, ForkSettings};

const ACT_CALC: &str = "Thought: I should compute it.\nAction:\n```json\n{\"action\": \"calc\", \"action_input\": \"6*7\"}\n```";

/// A finished run: one calculator step, then the answer.
fn original(tools: &[&dyn Tool]) -> Trace {
    run(&Script::texts(&[ACT_CALC, "Thought: done.\nFinal Answer: 42"]), tools)
}

fn index_of(trace: &Trace, name: &str) -> usize {
    trace.events.iter().position(|e| e.kind.name() == name).unwrap_or_else(|| panic!("no {name} in {:?}", kinds(trace)))
}

/// The branch made at event `i` with `change`: the steps it shares, then its `Forked` event.
fn branch(events: &[Event], i: usize, change: Change) -> Vec<Event> {
    let at = fork_point(events, i, &change).expect("the change fits the event");
    let fork = Fork { branch: 0, from: i as u32, change, settings: ForkSettings::Run, model: ModelName::default(), strategy: Strategy::React };
    let mut out = events[..at].to_vec();
    out.push(forked_event(events, at, fork));
    out
}

fn run_branch(model: &Script, tools: &[&dyn Tool], settings: &AgentSettings, fork: &[Event]) -> Trace {
    let clock = SystemClock::default();
    let cancel = CancelToken::new();
    let input = RunInput { question: "What is the answer?", history: &[], model, tools, settings, clock: &clock, cancel: &cancel, answered: None, fork: Some(fork) };
    pollster::block_on(run_agent(input, &()))
}

#[test]
fn each_step_offers_what_a_person_can_change_with_its_own_text() {
    let calc = FakeTool::echo("calc");
    let trace = original(&[&calc]);
    let events = &trace.events;
    assert_eq!(Editable::at(events, 0), Some(Editable::Question("What is the answer?".into())));
    let reply = index_of(&trace, "llm_response");
    assert_eq!(Editable::at(events, reply), Some(Editable::Reply(ACT_CALC.into())));
    // The decision offers the reply it was read from.
    assert_eq!(Editable::at(events, index_of(&trace, "parsed")), Some(Editable::Reply(ACT_CALC.into())));
    assert_eq!(Editable::at(events, index_of(&trace, "tool_call")), Some(Editable::ToolInput { tool: "calc".into(), input: "6*7".into() }));
    assert_eq!(Editable::at(events, index_of(&trace, "tool_result")), Some(Editable::Observation { tool: "calc".into(), text: "calc says: 6*7".into() }));
    assert_eq!(Editable::at(events, index_of(&trace, "llm_request")), None);
    assert_eq!(Editable::at(events, index_of(&trace, "run_stopped")), None);
    assert!(can_ask_again(events, reply) && !can_ask_again(events, 0));
    // Ask again starts at the step's request; a changed reply replaces the reply itself.
    assert_eq!(fork_point(events, reply, &Change::AskAgain), Some(index_of(&trace, "llm_request")));
    assert_eq!(fork_point(events, reply, &Change::Reply { text: "x".into() }), Some(reply));
    assert_eq!(fork_point(events, 0, &Change::Question { text: "x".into() }), Some(0));
    // A change that does not fit the event makes no branch.
    assert_eq!(fork_point(events, reply, &Change::Observation { tool: "calc".into(), text: "x".into() }), None);
    // A tool input that reads as JSON goes to the tool as JSON; any other text as a string.
    let input = Editable::ToolInput { tool: "calc".into(), input: String::new() };
    assert_eq!(input.change("{\"a\": 1}"), Change::ToolInput { tool: "calc".into(), input: json!({"a": 1}) });
    assert_eq!(input.change("7*7"), Change::ToolInput { tool: "calc".into(), input: json!("7*7") });
    // Bounded like any input.
    let long = "x".repeat(crate::agent::fork::MAX_EDIT_CHARS + 10);
    assert!(Editable::Reply(String::new()).change(&long).text().contains("cut: the edit kept its first"));
}

#[test]
fn a_changed_observation_is_what_the_model_reads_next_and_the_run_goes_on_from_there() {
    let calc = FakeTool::echo("calc");
    let trace = original(&[&calc]);
    let result = index_of(&trace, "tool_result");
    let fork = branch(&trace.events, result, Change::Observation { tool: "calc".into(), text: "calc says: 54".into() });
    let model = Script::texts(&["Thought: the tool said 54.\nFinal Answer: 54"]);
    let own = run_branch(&model, &[&calc], &AgentSettings::default(), &fork);
    let prompt = model.last_user_message(0);
    assert!(prompt.contains("Observation: calc says: 54"), "{prompt}");
    assert!(!prompt.contains("calc says: 6*7"), "{prompt}");
    // The model's own reply before the fork is still its own.
    assert!(prompt.contains("I should compute it."), "{prompt}");
    assert_eq!(kinds(&own)[..3], ["run_started", "llm_request", "llm_response"]);
    assert_eq!(own.final_answer(), Some("54"));
    // Steps count on from the fork: the branch's first step is the one after the observation.
    assert_eq!(own.events[1].step, trace.events[result].step + 1);
    assert_eq!(calc.calls.borrow().len(), 1, "the tool is not called again");
}

#[test]
fn a_changed_reply_is_read_as_the_models_and_acted_on() {
    let calc = FakeTool::echo("calc");
    let search = FakeTool::echo("search");
    let trace = original(&[&calc, &search]);
    let reply = index_of(&trace, "llm_response");
    let fork = branch(&trace.events, reply, Change::Reply { text: ACT_SEARCH.into() });
    let model = Script::texts(&["Thought: found.\nFinal Answer: forty-two"]);
    let own = run_branch(&model, &[&calc, &search], &AgentSettings::default(), &fork);
    assert_eq!(kinds(&own)[..4], ["run_started", "parsed", "tool_call", "tool_result"]);
    assert_eq!(search.calls.borrow().clone(), [json!("forty-two")]);
    let prompt = model.last_user_message(0);
    assert!(prompt.contains("I should look it up.") && prompt.contains("Observation: search says: forty-two"), "{prompt}");
    assert!(!prompt.contains("I should compute it."), "{prompt}");
    assert_eq!(own.final_answer(), Some("forty-two"));
}

#[test]
fn a_changed_tool_input_is_the_call_made_and_approval_is_asked_again() {
    let calc = FakeTool { ask_first: true, ..FakeTool::echo("calc") };
    // The original was allowed; `()` denies, so the branch shows approval asked again.
    let free = FakeTool::echo("calc");
    let trace = original(&[&free]);
    let call = index_of(&trace, "tool_call");
    let fork = branch(&trace.events, call, Change::ToolInput { tool: "calc".into(), input: json!("7*7") });
    let model = Script::texts(&["Final Answer: not allowed"]);
    let own = run_branch(&model, &[&calc], &AgentSettings::default(), &fork);
    assert_eq!(kinds(&own)[..3], ["run_started", "approval_asked", "approval_given"]);
    match &own.events[1].kind {
        EventKind::ApprovalAsked { input, .. } => assert_eq!(input, &json!("7*7")),
        other => panic!("{other:?}"),
    }
    assert!(calc.calls.borrow().is_empty());
    // Allowed, the call is made with the changed input.
    let model = Script::texts(&["Final Answer: 49"]);
    let own = run_branch(&model, &[&free], &AgentSettings::default(), &fork);
    assert_eq!(kinds(&own)[..3], ["run_started", "tool_call", "tool_result"]);
    assert_eq!(free.calls.borrow().last(), Some(&json!("7*7")));
    assert!(model.last_user_message(0).contains("Observation: calc says: 7*7"));
}

#[test]
fn asking_again_sends_the_same_request_for_a_new_reply() {
    let calc = FakeTool::echo("calc");
    let first = Script::texts(&[ACT_CALC, "Thought: done.\nFinal Answer: 42"]);
    let trace = run(&first, &[&calc]);
    let replies: Vec<usize> = trace.events.iter().enumerate().filter(|(_, e)| e.kind.name() == "llm_response").map(|(i, _)| i).collect();
    let fork = branch(&trace.events, replies[1], Change::AskAgain);
    let again = Script::texts(&["Thought: let me say it differently.\nFinal Answer: forty-two"]);
    let own = run_branch(&again, &[&calc], &AgentSettings::default(), &fork);
    assert_eq!(again.requests.borrow()[0], first.requests.borrow()[1], "the same request goes again");
    assert_eq!(own.final_answer(), Some("forty-two"));
    assert_eq!(own.events[1].step, trace.events[replies[1]].step, "the same step, asked again");
}

#[test]
fn limits_count_from_the_fork() {
    let calc = FakeTool::echo("calc");
    let trace = run(&Script::texts(&[ACT_CALC, ACT_CALC, "Final Answer: 42"]), &[&calc]);
    let results: Vec<usize> = trace.events.iter().enumerate().filter(|(_, e)| e.kind.name() == "tool_result").map(|(i, _)| i).collect();
    let fork = branch(&trace.events, results[1], Change::Observation { tool: "calc".into(), text: "nothing".into() });
    let settings = AgentSettings { max_iterations: 1, ..AgentSettings::default() };
    let model = Script::texts(&[ACT_CALC, ACT_CALC]);
    let own = run_branch(&model, &[&calc], &settings, &fork);
    assert_eq!(stop(&own), StopReason::MaxIterations { limit: 1 });
    let steps = own.events.iter().filter(|e| matches!(&e.kind, EventKind::LlmRequest { purpose: LlmPurpose::Step, .. })).count();
    assert_eq!(steps, 1, "one step of the branch's own, though the run before it took two");
}

#[test]
fn a_branch_reads_as_edited_in_the_transcript_and_is_its_own_trace_linked_to_the_step_it_came_from() {
    use crate::otel::{run_trace, RunSource};
    let calc = FakeTool::echo("calc");
    let trace = original(&[&calc]);
    let result = index_of(&trace, "tool_result");
    let mut whole = branch(&trace.events, result, Change::Observation { tool: "calc".into(), text: "calc says: 54".into() });
    let own = run_branch(&Script::texts(&["Final Answer: 54"]), &[&calc], &AgentSettings::default(), &whole);
    for mut e in own.events {
        e.index = whole.len() as u32;
        whole.push(e);
    }
    let markdown = Trace { events: whole.clone() }.to_markdown();
    assert!(markdown.contains("Edited by you") && markdown.contains("You changed what calc answered"), "{markdown}");
    // The branch's own events are its trace; its root links to the tool call's span of the run.
    let parent = run_trace(&RunSource { conversation_id: "c", events: &trace.events, parent: None }, &Default::default()).unwrap();
    let mine = run_trace(&RunSource { conversation_id: "c", events: &whole[result..], parent: Some(&trace.events) }, &Default::default()).unwrap();
    assert_ne!(mine.trace_id, parent.trace_id);
    let link = &mine.spans[0].links[0];
    let call = parent.spans.iter().find(|s| s.name == "execute_tool calc").unwrap();
    assert_eq!((link.trace_id, link.span_id), (parent.trace_id, call.id));
    assert!(mine.spans[0].attributes.iter().any(|(k, v)| *k == "thoughtline.edited" && *v == crate::otel::Attr::Bool(true)));
}
