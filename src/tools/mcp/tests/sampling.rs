//! A server that asks for the model (sampling): the client declares it when someone reviews
//! requests; an approved request runs on the model of the run whose call waits on the server,
//! as a model call of that call's step, after the review's own step; a denied one, one that
//! offers tools, and one that comes with no call waiting are refused as such.

use super::*;
use crate::agent::trace::{EventKind, LlmPurpose};
use crate::tools::mcp::sample::{Review, Sampler, Sampling};

/// Reviews every request the same way, and keeps what it was shown.
struct Reviewer {
    approve: bool,
    shown: RefCell<Vec<(String, Sampling)>>,
}

impl Sampler for Reviewer {
    fn review(&self, server: &str, asked: Sampling) -> LocalBoxFuture<'static, Review> {
        self.shown.borrow_mut().push((server.to_string(), asked.clone()));
        let review = if self.approve { Review::Approve { asked, edited: false, always: false } } else { Review::Deny };
        Box::pin(async move { review })
    }
}

fn sampling(id: u64, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "sampling/createMessage", "params": params})
}

fn colour_request() -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}], "systemPrompt": "One word.", "maxTokens": 20})
}

/// A ReAct run that calls the server's `paint` once; the server asks for the model during the
/// call, then answers the call. The model's replies: the action, `sampled`, the final answer.
fn run_with(server: &Rc<Server>, reviewer: Rc<Reviewer>, sampled: &str) -> (crate::agent::Trace, Scripted) {
    let hub = hub(server);
    hub.set_sampler(reviewer);
    let act = "Thought: paint.\nAction:\n```json\n{\"action\": \"paint\", \"action_input\": {}}\n```";
    react_run(&hub, "paints", "paint", "Paint it", &[act, sampled, "Thought: done.\nFinal Answer: painted"])
}

#[test]
fn an_approved_request_runs_on_the_runs_model_as_a_step_of_the_call() {
    let stream = Reply::sse(&[sampling(7, colour_request()), answer(2, text_result("Painted it Green."))]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted()]].concat());
    let reviewer = Rc::new(Reviewer { approve: true, shown: RefCell::new(Vec::new()) });
    let (trace, model) = run_with(&server, reviewer.clone(), "Green.");
    assert_eq!(trace.final_answer(), Some("painted"));
    let seen = server.seen();
    assert_eq!(seen[0].body["params"]["capabilities"]["sampling"], json!({}), "declared");
    // The person was shown the request, and the model got it as the server wrote it.
    assert_eq!(reviewer.shown.borrow()[0].1.messages[0].1, "Name a colour.");
    let asked = &model.sent.borrow()[1];
    assert_eq!((asked.messages[0].content.as_str(), asked.messages[1].content.as_str(), asked.max_tokens), ("One word.", "Name a colour.", Some(20)));
    // The server got the model's words.
    let sent = seen.iter().find(|s| s.body["id"] == json!(7)).expect("the answer was posted");
    assert_eq!(sent.body["result"]["content"], json!({"type": "text", "text": "Green."}));
    assert_eq!(sent.body["result"]["stopReason"], "endTurn");
    // The trace: the review, then the model call, both in the call's step, before its result.
    let kinds: Vec<&EventKind> = trace.events.iter().map(|e| &e.kind).collect();
    let at = |f: &dyn Fn(&EventKind) -> bool| kinds.iter().position(|k| f(k)).unwrap();
    let call = at(&|k| matches!(k, EventKind::ToolCall { .. }));
    let review = at(&|k| matches!(k, EventKind::ServerAsked { accepted: true, .. }));
    let writes = at(&|k| matches!(k, EventKind::LlmRequest { purpose: LlmPurpose::Tool { tool }, .. } if tool == "paint"));
    let result = at(&|k| matches!(k, EventKind::ToolResult { .. }));
    assert!(call < review && review < writes && writes < result, "{kinds:?}");
    assert_eq!(trace.events[review].step, trace.events[call].step);
    assert_eq!(trace.events[writes].step, trace.events[call].step);
}

#[test]
fn a_denied_request_is_refused_and_never_reaches_the_model() {
    let stream = Reply::sse(&[sampling(7, colour_request()), answer(2, text_result("Left it white."))]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted()]].concat());
    let (trace, model) = run_with(&server, Rc::new(Reviewer { approve: false, shown: RefCell::new(Vec::new()) }), "Thought: done.\nFinal Answer: painted");
    assert_eq!(trace.final_answer(), Some("painted"));
    assert_eq!(model.sent.borrow().len(), 2, "the action and the final answer only");
    let sent = server.seen().into_iter().find(|s| s.body["id"] == json!(7)).unwrap();
    assert_eq!(sent.body["error"]["code"], json!(crate::tools::mcp::sample::REFUSED));
    assert!(trace.events.iter().any(|e| matches!(&e.kind, EventKind::ServerAsked { accepted: false, answer, .. } if answer.starts_with("Denied"))));
}

#[test]
fn requests_offering_tools_or_with_no_call_waiting_are_refused_without_asking() {
    let mut with_tools = colour_request();
    with_tools["tools"] = json!([{"name": "get_weather", "inputSchema": {"type": "object"}}]);
    let stream = Reply::sse(&[sampling(7, with_tools), answer(2, text_result("ok"))]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted()]].concat());
    let reviewer = Rc::new(Reviewer { approve: true, shown: RefCell::new(Vec::new()) });
    let c = client(&server, "");
    c.set_sampler(reviewer.clone());
    let feed = crate::tools::mcp::client::ProgressFeed::default();
    run(c.call_tool("paint", json!({}), Some(feed.clone()))).unwrap();
    assert!(reviewer.shown.borrow().is_empty(), "not shown to the person");
    assert!(matches!(run(feed.next()), Heard::Answered(a) if !a.accepted && a.answer.contains("tools")));
    let seen = server.seen();
    assert_eq!(seen[3].body["error"]["code"], json!(-32602));

    // On the server's own stream, with no call waiting: no model to run it, so refused before
    // the person is asked.
    let server = Server::new([handshake(), vec![Reply::sse(&[sampling(9, colour_request())]), Reply::accepted()]].concat());
    let c = client(&server, "");
    c.set_sampler(reviewer.clone());
    run(c.connect()).unwrap();
    assert!(matches!(run(c.listen()), ListenEnd::Ended));
    let seen = server.seen();
    assert_eq!(seen[3].body["id"], json!(9));
    assert!(seen[3].body["error"]["message"].as_str().unwrap().contains("No run is using this server"));
    assert!(reviewer.shown.borrow().is_empty(), "not shown to the person");
}
