//! The OpenTelemetry mapping (`crate::otel`) of scripted runs of every strategy: one trace per
//! run, every span under the root, times inside their parents, the GenAI attributes. Each run's
//! file is also written to `target/otlp-samples/` for the official protobuf reader
//! (`tests/otlp/read.py`, run by scripts/test after these tests).

use crate::otel::{otlp_json_of, run_trace, Attr, RunSource, RunTrace, Span};
use crate::secrets::Secrets;

use super::*;

fn trace_of(trace: &Trace) -> RunTrace {
    run_trace(&RunSource { conversation_id: "chat-1", events: &trace.events, parent: None }, &Secrets::default()).expect("a run with events")
}

fn attr<'a>(span: &'a Span, key: &str) -> Option<&'a Attr> {
    span.attributes.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn named<'a>(run: &'a RunTrace, prefix: &str) -> Vec<&'a Span> {
    run.spans.iter().filter(|s| s.name.starts_with(prefix)).collect()
}

/// The rules every run's spans keep, whatever the strategy.
fn check_shape(run: &RunTrace, trace: &Trace) {
    let root = &run.spans[0];
    assert_eq!(root.name, "invoke_agent Thoughtline");
    assert_eq!(root.parent, None);
    assert_eq!(run.spans.iter().filter(|s| s.parent.is_none()).count(), 1, "one root");
    let count = |name: &str| trace.events.iter().filter(|e| e.kind.name() == name).count();
    assert_eq!(named(run, "chat ").len(), count("llm_request"), "a chat span per model call");
    assert_eq!(named(run, "execute_tool ").len(), count("tool_call"), "an execute_tool span per tool call");
    let mut ids: Vec<[u8; 8]> = run.spans.iter().map(|s| s.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), run.spans.len(), "span ids are unique");
    for span in &run.spans[1..] {
        let parent = run.spans.iter().find(|p| Some(p.id) == span.parent).unwrap_or_else(|| panic!("{} has no parent in the trace", span.name));
        assert!(parent.start_ns <= span.start_ns && span.end_ns <= parent.end_ns, "{} lies inside {}", span.name, parent.name);
        assert!(span.start_ns <= span.end_ns);
    }
    assert!(root.start_ns > 1_600_000_000_000_000_000, "Unix nanoseconds: {}", root.start_ns);
    for chat in named(run, "chat ") {
        assert_eq!(chat.name, "chat scripted-1");
        assert_eq!(attr(chat, "gen_ai.operation.name"), Some(&Attr::Str("chat".into())));
        assert_eq!(attr(chat, "gen_ai.provider.name"), Some(&Attr::Str("openai".into())));
        assert_eq!(attr(chat, "gen_ai.request.model"), Some(&Attr::Str("scripted-1".into())));
        let opens_with = if attr(chat, "thoughtline.purpose") == Some(&Attr::Str("tool".into())) { "user" } else { "system" };
        // The input opens with the first message, unless a long one left it out.
        let whole = attr(chat, "thoughtline.input.messages_left_out").is_none();
        assert!(matches!(attr(chat, "gen_ai.input.messages"), Some(Attr::Str(m)) if !whole || m.contains(&format!(r#""role":"{opens_with}""#))), "{chat:?}");
    }
    // The file as written: ids in hex of 32 and 16 digits, times as strings.
    let file: Value = serde_json::from_str(&otlp_json_of(Some(run))).expect("JSON");
    let spans = file["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().expect("spans");
    assert_eq!(spans.len(), run.spans.len());
    let hex = |v: &Value, n: usize| v.as_str().is_some_and(|s| s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    for s in spans {
        assert!(hex(&s["traceId"], 32) && hex(&s["spanId"], 16), "{s}");
        assert_eq!(s["traceId"], spans[0]["traceId"], "one trace per run");
        assert!(s["startTimeUnixNano"].as_str().is_some_and(|t| t.parse::<u64>().is_ok()), "{s}");
    }
}

fn write_sample(name: &str, run: &RunTrace) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/otlp-samples");
    std::fs::create_dir_all(&dir).expect("target/otlp-samples");
    std::fs::write(dir.join(format!("{name}.json")), otlp_json_of(Some(run))).expect("a sample file");
}

#[test]
fn a_react_run_with_a_retry_and_a_tool_call_maps_to_one_trace() {
    let search = FakeTool::echo("search");
    let model = Script::new(vec![Say::RetryThen(ACT_SEARCH), Say::Text("Thought: done.\nFinal Answer: forty-two")]);
    let trace = run(&model, &[&search]);
    let run = trace_of(&trace);
    check_shape(&run, &trace);
    let root = &run.spans[0];
    assert_eq!(attr(root, "gen_ai.operation.name"), Some(&Attr::Str("invoke_agent".into())));
    assert_eq!(attr(root, "gen_ai.conversation.id"), Some(&Attr::Str("chat-1".into())));
    assert_eq!(attr(root, "gen_ai.usage.input_tokens"), Some(&Attr::Int(20)), "the run's sum");
    assert!(matches!(attr(root, "gen_ai.output.messages"), Some(Attr::Str(m)) if m.contains("forty-two")));
    assert_eq!(root.error, None);
    let chats = named(&run, "chat ");
    assert_eq!(attr(chats[0], "gen_ai.usage.input_tokens"), Some(&Attr::Int(10)));
    assert_eq!(attr(chats[0], "gen_ai.usage.output_tokens"), Some(&Attr::Int(5)));
    assert_eq!(attr(chats[0], "gen_ai.response.finish_reasons"), Some(&Attr::Strs(vec!["stop".into()])));
    assert!(matches!(attr(chats[0], "gen_ai.response.time_to_first_chunk"), Some(Attr::Float(s)) if *s >= 0.0));
    assert_eq!(chats[0].events.iter().map(|e| e.name).collect::<Vec<_>>(), ["thoughtline.retry"], "the retry is an event of its call");
    let tool = named(&run, "execute_tool ")[0];
    assert_eq!(tool.name, "execute_tool search");
    assert_eq!(attr(tool, "gen_ai.tool.name"), Some(&Attr::Str("search".into())));
    assert_eq!(attr(tool, "gen_ai.tool.call.arguments"), Some(&Attr::Str("\"forty-two\"".into())));
    assert_eq!(attr(tool, "gen_ai.tool.call.result"), Some(&Attr::Str("search says: forty-two".into())));
    assert!(matches!(attr(tool, "gen_ai.tool.call.id"), Some(Attr::Str(id)) if !id.is_empty()));
    // The same run gives the same ids: exported twice or sent twice, it is one trace.
    assert_eq!(trace_of(&trace), run);
    write_sample("react", &run);
}

#[test]
fn native_calls_keep_their_ids_and_a_tools_own_model_call_sits_under_it() {
    let search = FakeTool::echo("search");
    let helper = FakeTool { asks_model: true, ..FakeTool::echo("calculator") };
    let model = Script::new(vec![
        Say::Calls("Both.", vec![("search", r#"{"input": "Paris"}"#), ("calculator", r#"{"input": "2+2"}"#)]),
        Say::Text("4"),
        Say::Text("Paris; 4."),
    ]);
    let (trace, _) = run_with(&model, &[&search, &helper], &with_strategy(Strategy::ToolCalling), &CancelToken::new(), &[]);
    let run = trace_of(&trace);
    check_shape(&run, &trace);
    let tools = named(&run, "execute_tool ");
    let ids: Vec<&Attr> = tools.iter().filter_map(|t| attr(t, "gen_ai.tool.call.id")).collect();
    assert_eq!(ids, [&Attr::Str("call_1_0".into()), &Attr::Str("call_1_1".into())], "the model's own call ids");
    let calculator = tools[1];
    let nested: Vec<&Span> = named(&run, "chat ").into_iter().filter(|c| c.parent == Some(calculator.id)).collect();
    assert_eq!(nested.len(), 1, "the calculator's own model call is its child");
    assert_eq!(attr(nested[0], "thoughtline.purpose"), Some(&Attr::Str("tool".into())));
    write_sample("tool_calling", &run);
}

#[test]
fn plan_react_plans_are_spans_and_a_failed_tool_is_an_error_status() {
    let search = FakeTool::echo("search");
    let broken = FakeTool::new("calculator", |_| Err(ToolError::new("division by zero")));
    let model = Script::texts(&[
        "/*PLANNING*/\n1. Search for the city.\n2. Compute the answer.\n/*REASONING*/\nFirst the search.\n/*ACTION*/\n```json\n{\"action\": \"search\", \"action_input\": \"Paris\"}\n```",
        "## REASONING\nNow compute.\n## ACTION\n{\"action\": \"calculator\", \"action_input\": \"1/0\"}",
        "<REPLANNING>\n1. Answer from the search result.\n</REPLANNING>\n<REASONING>The calculator failed.\n<FINAL_ANSWER>\nParis.",
    ]);
    let (trace, _) = run_with(&model, &[&search, &broken], &with_strategy(Strategy::PlanReact), &CancelToken::new(), &[]);
    let run = trace_of(&trace);
    check_shape(&run, &trace);
    let plans = named(&run, "plan");
    assert_eq!(plans.len(), 2, "the plan and its revision");
    assert_eq!(attr(plans[1], "thoughtline.plan.revised"), Some(&Attr::Bool(true)));
    assert_eq!(attr(plans[0], "thoughtline.plan.items"), Some(&Attr::Strs(vec!["Search for the city.".into(), "Compute the answer.".into()])));
    let failed = named(&run, "execute_tool calculator")[0];
    assert!(failed.error.as_deref().is_some_and(|m| m.contains("division by zero")), "{failed:?}");
    let file = otlp_json_of(Some(&run));
    assert!(file.contains(r#""status":{"code":2,"message":"#), "an error status in the file");
    write_sample("plan_react", &run);
}

#[test]
fn a_failed_run_is_an_error_on_its_root_and_secrets_are_masked() {
    let model = Script::new(vec![Say::Fail(LlmErrorKind::RateLimited)]);
    let (trace, _) = run_with(&model, &[], &AgentSettings::default(), &CancelToken::new(), &[]);
    let secrets = Secrets::new(["What is the answer"]);
    let run = run_trace(&RunSource { conversation_id: "chat-1", events: &trace.events, parent: None }, &secrets).expect("spans");
    check_shape(&run, &trace);
    assert_eq!(attr(&run.spans[0], "error.type"), Some(&Attr::Str("model_failed".into())));
    let chat = named(&run, "chat ")[0];
    assert_eq!(attr(chat, "error.type"), Some(&Attr::Str("rate_limited".into())));
    assert_eq!(chat.error.as_deref(), Some("scripted failure"));
    let file = otlp_json_of(Some(&run));
    assert!(!file.contains("What is the answer"), "the question held the secret: {file}");
    write_sample("failed", &run);
}

#[test]
fn a_run_without_events_has_no_spans() {
    assert!(run_trace(&RunSource { conversation_id: "c", events: &[], parent: None }, &Secrets::default()).is_none());
    let empty: Value = serde_json::from_str(&otlp_json_of(None)).expect("JSON");
    assert_eq!(empty["resourceSpans"][0]["scopeSpans"][0]["spans"], json!([]));
}

#[test]
fn a_long_input_keeps_its_newest_messages_and_counts_the_rest() {
    // Each observation is about 4 KB: by the tenth call the prompt is far over the 32 KB kept.
    let search = FakeTool::new("search", |_| Ok("fünd ".repeat(650)));
    let mut replies: Vec<Say> = (0..12).map(|i| Say::Owned(ACT_SEARCH.replace("forty-two", &format!("page {i}")))).collect();
    replies.push(Say::Text("Final Answer: enough"));
    let settings = AgentSettings { max_iterations: 20, ..Default::default() };
    let (trace, _) = run_with(&Script::new(replies), &[&search], &settings, &CancelToken::new(), &[]);
    let run = trace_of(&trace);
    check_shape(&run, &trace);
    let chats = named(&run, "chat ");
    let input = |span: &Span| match attr(span, "gen_ai.input.messages") {
        Some(Attr::Str(m)) => serde_json::from_str::<Vec<Value>>(m).expect("a JSON array of messages"),
        other => panic!("no input messages: {other:?}"),
    };
    assert_eq!(attr(chats[0], "thoughtline.input.messages_left_out"), None, "the first call's input is whole");
    let last = chats.last().expect("model calls");
    let kept = input(last);
    let Some(Attr::Int(left_out)) = attr(last, "thoughtline.input.messages_left_out") else { panic!("the last call counts what it left out: {last:?}") };
    assert!(*left_out > 0);
    let position = trace.events.iter().rposition(|e| e.kind.name() == "llm_request").expect("a request");
    let sent = crate::agent::trace::request_at(&trace.events, position).expect("rebuilt");
    assert_eq!(kept.len() + *left_out as usize, sent.messages.len(), "kept and left out add up to the request");
    let size: usize = kept.iter().map(|m| m.to_string().len()).sum();
    assert!(size <= crate::otel::INPUT_BYTES, "{size} bytes kept");
    // The ReAct scratchpad is one message holding the whole run: its end is kept, and its
    // start is counted.
    let newest = &sent.messages.last().expect("messages").content;
    let written = kept.last().and_then(|m| m["parts"][0]["content"].as_str()).expect("the newest message's text");
    let (note, end) = written.split_once('\n').expect("a note, then the text");
    let cut: usize = note.strip_prefix('[').and_then(|n| n.strip_suffix(" characters left out]")).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{note}"));
    assert!(cut > 0 && newest.ends_with(end), "the end of the scratchpad is kept whole");
    assert_eq!(newest.chars().count(), cut + end.chars().count(), "what is kept and what is counted make the message");
}
