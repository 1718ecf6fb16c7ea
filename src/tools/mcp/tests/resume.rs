//! A stream the server closes before its answer (SEP-1699): resumed with a GET carrying
//! `Last-Event-ID`, after the wait its `retry` asked for; a stream without an ID, a client
//! without a clock, or a server that never answers ends in a lost answer. The server's own
//! stream is listened to again from where it left off.

use super::*;
use crate::base::clock::Impatient;

fn timed(server: &Rc<Server>) -> (McpClient, Rc<Impatient>) {
    let c = client(server, "");
    let clock = Rc::new(Impatient::default());
    c.set_clock(clock.clone());
    (c, clock)
}

#[test]
fn a_stream_closed_before_its_answer_is_resumed_after_the_wait_it_asked_for() {
    let closed = Reply::sse_text("id: event-2\nretry: 500\ndata: \n\n");
    let resumed = Reply::sse(&[answer(2, text_result("resumed"))]);
    let server = Server::new([handshake(), vec![closed, resumed]].concat());
    let (c, clock) = timed(&server);
    let result = run(c.call_tool("slow", json!({}), None)).unwrap();
    assert_eq!(result::observation(&result).unwrap(), "resumed");
    let seen = server.seen();
    assert_eq!((seen[3].method.as_str(), seen[3].header("Last-Event-ID")), ("GET", Some("event-2")));
    assert_eq!(seen[3].header("Accept"), Some("text/event-stream"));
    assert_eq!(seen[3].header("Mcp-Session-Id"), Some("s1"));
    assert_eq!(*clock.0.borrow(), vec![500.0]);
}

#[test]
fn a_resumed_stream_closed_again_is_resumed_from_its_own_last_event_and_waits_a_second_when_it_names_no_wait() {
    let closed = Reply::sse_text("id: a\ndata: \n\n");
    let again = Reply::sse_text("id: b\ndata: \n\n");
    let answered = Reply::sse(&[answer(2, text_result("at last"))]);
    let server = Server::new([handshake(), vec![closed, again, answered]].concat());
    let (c, clock) = timed(&server);
    assert_eq!(result::observation(&run(c.call_tool("slow", json!({}), None)).unwrap()).unwrap(), "at last");
    let seen = server.seen();
    assert_eq!((seen[3].header("Last-Event-ID"), seen[4].header("Last-Event-ID")), (Some("a"), Some("b")));
    assert_eq!(*clock.0.borrow(), vec![1000.0, 1000.0]);
}

#[test]
fn an_answer_that_cannot_be_resumed_is_lost_and_says_so() {
    // No event ID: nothing to resume from.
    let server = Server::new([handshake(), vec![Reply::sse_text("data: \n\n")]].concat());
    let (c, _) = timed(&server);
    let err = run(c.call_tool("slow", json!({}), None)).unwrap_err();
    assert_eq!(err.kind, McpErrorKind::Lost);
    assert_eq!(server.seen().len(), 3, "no GET");

    // No clock: the close is a lost answer, as before resumption.
    let server = Server::new([handshake(), vec![Reply::sse_text("id: a\nretry: 10\ndata: \n\n")]].concat());
    let err = run(client(&server, "").call_tool("slow", json!({}), None)).unwrap_err();
    assert!(err.message.contains("closed the stream before it answered"), "{}", err.message);

    // A server that closes every resumed stream too: given up on after a few.
    let closing = || Reply::sse_text("id: a\nretry: 10\ndata: \n\n");
    let mut replies = handshake();
    replies.extend((0..=crate::tools::mcp::client::RESUME_LIMIT_FOR_TESTS).map(|_| closing()));
    let server = Server::new(replies);
    let (c, clock) = timed(&server);
    assert_eq!(run(c.call_tool("slow", json!({}), None)).unwrap_err().kind, McpErrorKind::Lost);
    assert_eq!(clock.0.borrow().len() as u32, crate::tools::mcp::client::RESUME_LIMIT_FOR_TESTS);

    // A server that refuses the resumption: the call says so.
    let server = Server::new([handshake(), vec![Reply::sse_text("id: a\ndata: \n\n"), Reply::status(405, "text/plain", "no")]].concat());
    let (c, _) = timed(&server);
    let err = run(c.call_tool("slow", json!({}), None)).unwrap_err();
    assert!(err.message.contains("did not resume it"), "{}", err.message);
}

#[test]
fn the_servers_own_stream_is_listened_to_again_from_where_it_left_off() {
    let server = Server::new([handshake(), vec![Reply::sse_text("id: seen-7\nretry: 300\ndata: \n\n"), Reply::sse(&[])]].concat());
    let c = client(&server, "");
    run(c.connect()).unwrap();
    assert!(matches!(run(c.listen()), ListenEnd::Ended));
    assert!(matches!(run(c.listen()), ListenEnd::Ended));
    let seen = server.seen();
    assert_eq!((seen[2].header("Last-Event-ID"), seen[3].header("Last-Event-ID")), (None, Some("seen-7")));
}
