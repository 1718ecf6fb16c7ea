//! A server that answers a call with "visit this address first" (-32042): the person is asked
//! as for any URL-mode question; having gone, the call is sent once more and answered; having
//! declined, the call ends saying so and is not sent again. Each exchange is a step of the call.

use super::*;
use crate::agent::trace::EventKind;
use crate::tools::mcp::elicit::Answer;

fn visit_first(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32042, "message": "This needs your sign-in at the shop.", "data": {"elicitations": [
        {"mode": "url", "url": "https://shop.example/connect", "message": "Connect your shop account.", "elicitationId": "e-1"}
    ]}}})
}

/// A ReAct run that calls `order` once, the server answering as `replies` say after the
/// handshake; the person answers `answer`.
fn run_with(replies: Vec<Reply>, answer: Answer) -> (crate::agent::Trace, Rc<Server>, Rc<Person>) {
    let server = Server::new([handshake(), replies].concat());
    let hub = hub(&server);
    let person = Rc::new(Person { answer, asked: RefCell::new(Vec::new()) });
    hub.set_asker(person.clone());
    let act = "Thought: order.\nAction:\n```json\n{\"action\": \"order\", \"action_input\": {}}\n```";
    let (trace, _) = react_run(&hub, "shop", "order", "Order it", &[act, "Thought: done.\nFinal Answer: ordered"]);
    (trace, server, person)
}

fn observation(trace: &crate::agent::Trace) -> String {
    trace.events.iter().find_map(|e| match &e.kind {
        EventKind::ToolResult { observation, .. } => Some(observation.clone()),
        EventKind::ToolFailed { message, .. } => Some(message.clone()),
        _ => None,
    }).unwrap_or_default()
}

#[test]
fn an_address_to_visit_first_is_asked_and_the_call_sent_again_once_the_person_went() {
    let (trace, server, person) = run_with(vec![Reply::json(visit_first(2)), Reply::json(answer(3, text_result("Ordered."))), Reply::accepted()], Answer::Accept(serde_json::Map::new()));
    assert_eq!(observation(&trace), "Ordered.");
    let asked = person.asked.borrow();
    assert!(matches!(&asked[..], [(_, crate::tools::mcp::elicit::Asked::Url { url, .. })] if url == "https://shop.example/connect"), "{asked:?}");
    let calls = server.seen().iter().filter(|s| s.body["method"] == "tools/call").count();
    assert_eq!(calls, 2, "sent once more after the visit");
    assert!(trace.events.iter().any(|e| matches!(&e.kind, EventKind::ServerAsked { .. })), "the exchange is a step of the call");
}

#[test]
fn declined_the_call_ends_saying_so_and_a_second_request_to_visit_is_not_followed() {
    let (trace, server, _) = run_with(vec![Reply::json(visit_first(2))], Answer::Decline);
    let said = observation(&trace);
    assert!(said.contains("asks you to visit an address first") && said.contains("did not go there"), "{said}");
    assert_eq!(server.seen().iter().filter(|s| s.body["method"] == "tools/call").count(), 1);

    // Went, and the server asks again: the second answer is the call's error.
    let (trace, server, person) = run_with(vec![Reply::json(visit_first(2)), Reply::json(visit_first(3))], Answer::Accept(serde_json::Map::new()));
    assert!(observation(&trace).contains("asks you to visit an address first"));
    assert_eq!((person.asked.borrow().len(), server.seen().iter().filter(|s| s.body["method"] == "tools/call").count()), (1, 2));
}
