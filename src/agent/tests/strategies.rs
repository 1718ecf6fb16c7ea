//! Strategies: native tool calling, Plan-ReAct, questions to the person, direct answers, structured
//! output. Same executor, same trace; only the request and the reading of replies differ.

use super::*;

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
        EventKind::Decided { thought, .. } => assert_eq!(thought.as_deref(), Some("Let me check both.")),
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
    match trace.events.iter().find(|e| matches!(e.kind, EventKind::Decided { .. })).map(|e| &e.kind) {
        Some(EventKind::Decided { thought, .. }) => assert_eq!(thought.as_deref(), Some("First the search.")),
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
fn a_question_to_the_person_ends_the_run_and_their_answer_continues_it() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ASK_CITY]);
    let (first, _) = run_with(&model, &[&search], &AgentSettings::default(), &CancelToken::new(), &[]);
    assert_eq!(stop(&first), StopReason::AskedPerson);
    assert_eq!(first.open_question(), Some("Which city do you mean?"));
    assert_eq!(EventKind::AskedPerson { question: String::new() }.label(), "Question for you");
    assert!(search.calls.borrow().is_empty());

    let model = Script::texts(&[ACT_SEARCH, "Final Answer: Oslo it is"]);
    let clock = SystemClock::default();
    // With a scope set: the person's reply continues a run that passed the gate already, so it
    // does not go through it again.
    let settings = AgentSettings { scope: "questions about places".into(), ..AgentSettings::default() };
    let tools: [&dyn Tool; 1] = [&search];
    let input = RunInput {
        question: "What is the answer?",
        history: &[],
        model: &model,
        tools: &tools,
        settings: &settings,
        clock: &clock,
        cancel: &CancelToken::new(),
        answered: Some(AnsweredQuestion { earlier: &first.events, answer: "Oslo" }),
        fork: None,
    };
    let second = pollster::block_on(run_agent(input, &()));
    assert_eq!(kinds(&second)[..2], ["run_started", "person_replied"]);
    assert!(!kinds(&second).contains(&"scope_checked".to_string()), "no gate for a reply");
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
fn asking_the_person_through_a_native_call_is_answered_by_its_id() {
    let model = Script::new(vec![Say::Calls("", vec![("ask_person", r#"{"question": "Which year?"}"#)])]);
    let settings = with_strategy(Strategy::ToolCalling);
    let (first, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert_eq!(first.open_question(), Some("Which year?"));

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
        answered: Some(AnsweredQuestion { earlier: &first.events, answer: "2020" }),
        fork: None,
    };
    let second = pollster::block_on(run_agent(input, &()));
    let messages = &model.requests.borrow()[0].messages;
    let last = messages.last().unwrap();
    assert_eq!((last.role, last.tool_call_id.as_deref()), (Role::Tool, Some("call_1_0")));
    assert!(last.content.contains("2020"));
    assert_eq!(second.final_answer(), Some("In 2020."));
}

#[test]
fn asking_the_person_can_be_turned_off() {
    let settings = AgentSettings { ask_person: false, ..Default::default() };
    let model = Script::texts(&[ASK_CITY, "Final Answer: guessed"]);
    let (trace, _) = run_with(&model, &[], &settings, &CancelToken::new(), &[]);
    assert!(kinds(&trace).contains(&"unknown_tool".to_string()));
    assert!(!model.requests.borrow()[0].messages[0].content.contains("ask_person"));
}

#[test]
fn an_answer_after_a_tool_call_that_failed_is_no_direct_answer() {
    let broken = FakeTool::new("search", |_| Err(ToolError::new("the service is down")));
    let model = Script::texts(&[ACT_SEARCH, "Thought: the tool failed; I know it anyway.\nFinal Answer: 42"]);
    let trace = run(&model, &[&broken]);
    assert!(kinds(&trace).contains(&"tool_failed".to_string()), "{:?}", kinds(&trace));
    let last = trace.events.iter().rev().find(|e| matches!(e.kind, EventKind::FinalAnswer { .. })).unwrap();
    assert!(matches!(last.kind, EventKind::FinalAnswer { source: AnswerSource::Model, .. }));
    assert_eq!(last.kind.label(), "Final Answer");
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
fn plain_prose_is_read_as_the_answer_and_noted() {
    let search = FakeTool::echo("search");
    let model = Script::texts(&[ACT_SEARCH, "It is forty-two."]);
    let trace = run(&model, &[&search]);
    assert_eq!(trace.final_answer(), Some("It is forty-two."));
    let last = trace.events.iter().rev().find(|e| matches!(e.kind, EventKind::FinalAnswer { .. })).unwrap();
    // Not a "Direct answer": a tool ran. That the model did not write "Final Answer" is noted.
    assert!(matches!(last.kind, EventKind::FinalAnswer { source: AnswerSource::Model, .. }));
    assert_eq!(last.kind.label(), "Final Answer");
    // Prose with no tool called is a direct answer.
    let model = Script::texts(&["It is forty-two."]);
    let trace = run(&model, &[&search]);
    let last = trace.events.iter().rev().find(|e| matches!(e.kind, EventKind::FinalAnswer { .. })).unwrap();
    assert_eq!(last.kind.label(), "Direct answer");
    let model = Script::texts(&[ACT_SEARCH, "It is forty-two."]);
    let trace = run(&model, &[&search]);
    let notes: Vec<String> = trace.events.iter().flat_map(|e| match &e.kind {
        EventKind::Decided { notes, .. } => notes.clone(),
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
        EventKind::Decided { notes, .. } => notes.clone(),
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
        EventKind::Decided { notes, .. } => notes.clone(),
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
