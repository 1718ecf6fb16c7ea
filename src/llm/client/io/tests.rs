//! The retry loop and the reading of replies, natively: a scripted `Fetch` (replies in order,
//! bodies in chunks, stalls, breaks, bodies that never end) and a clock whose sleeps resolve at
//! once (each one recorded) or never.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};

use serde_json::Value;

use super::*;
use crate::agent::{CancelToken, Message};
use crate::net::{FetchFailed, HttpResponse};
use crate::test_support::fixture;

const KEY: &str = "my-own-key-0042";
/// `Connection::default().timeout_s` in ms: every read of a response races a sleep this long.
const SILENCE_MS: f64 = 120_000.0;

/// One piece of a scripted body.
#[derive(Clone)]
enum Piece {
    Bytes(Vec<u8>),
    /// Nothing more arrives, ever: only the silence limit ends the wait.
    Stall,
    /// The connection breaks.
    Break,
    /// These bytes again and again, a server that never stops. The fake ends the body after
    /// `ENDLESS_STOP` bytes so that a missing limit fails a test instead of hanging it.
    Endless(Vec<u8>),
}

const ENDLESS_STOP: usize = 16 << 20;

#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<Piece>,
    redirect: bool,
    /// The fetch fails without a response (offline, CORS).
    fails: bool,
    /// The response headers never arrive.
    hangs: bool,
}

impl Reply {
    fn pieces(status: u16, body: Vec<Piece>) -> Self {
        Reply { status, headers: vec![], body, redirect: false, fails: false, hangs: false }
    }
    /// `body` cut into pieces of `size` bytes, the way a network hands it over.
    fn chunked(status: u16, body: &str, size: usize) -> Self {
        Reply::pieces(status, body.as_bytes().chunks(size).map(|c| Piece::Bytes(c.to_vec())).collect())
    }
    fn whole(status: u16, body: &str) -> Self {
        Reply::chunked(status, body, body.len().max(1))
    }
    fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
    fn redirect() -> Self {
        Reply { redirect: true, ..Reply::pieces(0, vec![]) }
    }
    fn failing() -> Self {
        Reply { fails: true, ..Reply::pieces(0, vec![]) }
    }
    fn hanging() -> Self {
        Reply { hangs: true, ..Reply::pieces(0, vec![]) }
    }
}

/// A request as the client sent it.
#[derive(Debug)]
struct Sent {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Value,
    redirects: Redirects,
}

#[derive(Default)]
struct Script {
    replies: RefCell<VecDeque<Reply>>,
    sent: RefCell<Vec<Sent>>,
    /// The URLs `redirect_target` was asked about, and what it answers.
    probed: RefCell<Vec<String>>,
    redirect_to: Option<String>,
    /// `redirect_target` never answers.
    probe_hangs: bool,
    /// Body bytes handed out and responses dropped, over all replies.
    bytes_read: Rc<Cell<usize>>,
    dropped: Rc<Cell<usize>>,
}

impl Script {
    fn new(replies: Vec<Reply>) -> Rc<Self> {
        Rc::new(Script { replies: RefCell::new(replies.into()), ..Script::default() })
    }
    fn streams(&self) -> Vec<Value> {
        self.sent.borrow().iter().map(|s| s.body["stream"].clone()).collect()
    }
}

struct Response {
    reply: Reply,
    pieces: VecDeque<Piece>,
    endless_sent: usize,
    bytes_read: Rc<Cell<usize>>,
    dropped: Rc<Cell<usize>>,
}

impl Drop for Response {
    fn drop(&mut self) {
        self.dropped.set(self.dropped.get() + 1);
    }
}

impl Response {
    fn next(&mut self) -> Option<Piece> {
        match self.pieces.front()? {
            Piece::Endless(bytes) if self.endless_sent < ENDLESS_STOP => {
                self.endless_sent += bytes.len();
                Some(Piece::Bytes(bytes.clone()))
            }
            Piece::Endless(_) => None,
            Piece::Stall => Some(Piece::Stall),
            _ => self.pieces.pop_front(),
        }
    }
}

impl Streaming for Response {
    fn status(&self) -> u16 {
        self.reply.status
    }
    fn header(&self, name: &str) -> Option<String> {
        self.reply.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    }
    fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>> {
        match self.next() {
            None => Box::pin(async { Ok(None) }),
            Some(Piece::Bytes(bytes)) => {
                self.bytes_read.set(self.bytes_read.get() + bytes.len());
                Box::pin(async move { Ok(Some(bytes)) })
            }
            Some(Piece::Break) => Box::pin(async { Err(FetchFailed("TypeError: network error".into())) }),
            Some(Piece::Stall | Piece::Endless(_)) => Box::pin(std::future::pending()),
        }
    }
    fn is_redirect(&self) -> bool {
        self.reply.redirect
    }
}

impl Fetch for Script {
    fn get<'a>(&'a self, url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(async move { Err(FetchFailed(format!("the model client never GETs; asked for {url}"))) })
    }
    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        let body = request.body.map(|b| serde_json::from_str(b).expect("the client sends JSON")).unwrap_or(Value::Null);
        self.sent.borrow_mut().push(Sent {
            method: request.method.into(),
            url: request.url.into(),
            headers: request.headers.to_vec(),
            body,
            redirects: request.redirects,
        });
        let reply = self.replies.borrow_mut().pop_front().expect("the script has a reply for every request");
        let response = Response {
            pieces: reply.body.clone().into(),
            reply,
            endless_sent: 0,
            bytes_read: self.bytes_read.clone(),
            dropped: self.dropped.clone(),
        };
        if response.reply.hangs {
            return Box::pin(std::future::pending());
        }
        Box::pin(async move {
            if response.reply.fails {
                return Err(FetchFailed("TypeError: Failed to fetch".into()));
            }
            Ok(Box::new(response) as Box<dyn Streaming>)
        })
    }
    fn redirect_target<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Option<String>> {
        self.probed.borrow_mut().push(url.into());
        if self.probe_hangs {
            return Box::pin(std::future::pending());
        }
        let to = self.redirect_to.clone();
        Box::pin(async move { to })
    }
}

/// Sleeps resolve at once (or, with `never`, not at all); each requested wait is recorded.
#[derive(Default)]
struct TestClock {
    sleeps: RefCell<Vec<f64>>,
    never: bool,
    unix_ms: f64,
}

impl TestClock {
    /// The waits other than the silence timer every read races against: the retry back-off.
    fn retry_waits(&self) -> Vec<f64> {
        self.sleeps.borrow().iter().copied().filter(|&ms| ms != SILENCE_MS).collect()
    }
}

impl Clock for TestClock {
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn unix_ms(&self) -> f64 {
        self.unix_ms
    }
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        self.sleeps.borrow_mut().push(ms);
        if self.never {
            Box::pin(std::future::pending())
        } else {
            Box::pin(async {})
        }
    }
}

fn provider(preset: Preset, connection: Connection, script: &Rc<Script>, clock: &Rc<TestClock>) -> Provider {
    let config = ProviderConfig { preset, base_url: preset.base_url().into(), model: "m".into(), api_key: KEY.into() };
    Provider::new(config, connection, script.clone(), clock.clone())
}

fn openai(connection: Connection, script: &Rc<Script>, clock: &Rc<TestClock>) -> Provider {
    provider(Preset::OpenAi, connection, script, clock)
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![Message::user("What is the capital of the UK?")], 0.0, None)
}

/// Calls the model once; returns the result and what it reported on the way, as
/// `text:…`, `reasoning:…` and `retry:{attempt}:{wait_ms}:{reason}` lines.
fn complete(p: &Provider) -> (Result<ChatResponse, LlmError>, Vec<String>) {
    let log = RefCell::new(Vec::new());
    let progress = |p: Progress<'_>| log.borrow_mut().push(line(p));
    let result = pollster::block_on(p.complete(&request(), &progress));
    (result, log.into_inner())
}

fn line(p: Progress<'_>) -> String {
    match p {
        Progress::Text(t) => format!("text:{t}"),
        Progress::Reasoning(t) => format!("reasoning:{t}"),
        Progress::Retry { attempt, wait_ms, reason } => format!("retry:{attempt}:{wait_ms}:{reason}"),
    }
}

fn retries(log: &[String]) -> Vec<&str> {
    log.iter().map(String::as_str).filter(|l| l.starts_with("retry:")).collect()
}

fn shown(log: &[String]) -> String {
    log.iter().filter_map(|l| l.strip_prefix("text:")).collect()
}

fn streamed_reply() -> String {
    fixture("openai/chat_completion_stream_text_include_usage.sse")
}

const STREAMED_TEXT: &str = "The capital of the UK is London.";

/// The first `n` events of the recorded stream (the first carries no text, then one word each).
fn first_events(n: usize) -> Vec<u8> {
    streamed_reply().split("\n\n").take(n).map(|e| format!("{e}\n\n")).collect::<String>().into_bytes()
}

/// A stream that sends its first `n` events, then nothing ever again.
fn stalls_after(n: usize) -> Rc<Script> {
    Script::new(vec![Reply::pieces(200, vec![Piece::Bytes(first_events(n)), Piece::Stall])])
}

fn whole_reply() -> String {
    fixture("openai/chat_completion_gpt-4o.json")
}

#[test]
fn a_reply_streamed_in_small_chunks_is_assembled_and_shown_as_it_comes() {
    let cases = [
        (Preset::OpenAi, "openai/chat_completion_stream_text_include_usage.sse", STREAMED_TEXT, 8),
        (Preset::Anthropic, "anthropic/messages_stream_text.sse", "2", 1),
    ];
    for (preset, body, text, pieces) in cases {
        // 7-byte pieces split events, lines and UTF-8 sequences at arbitrary places.
        let script = Script::new(vec![Reply::chunked(200, &fixture(body), 7)]);
        let clock = Rc::new(TestClock::default());
        let p = provider(preset, Connection::default(), &script, &clock);
        let (reply, log) = complete(&p);
        let reply = reply.unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!((reply.text.as_str(), reply.incomplete), (text, false), "{body}");
        assert_eq!(log.len(), pieces, "{body}: each piece shown as it came: {log:?}");
        assert_eq!(shown(&log), reply.text, "{body}");
        let sent = script.sent.borrow();
        assert_eq!(sent.len(), 1);
        assert_eq!((sent[0].method.as_str(), sent[0].url.as_str(), sent[0].body["stream"].as_bool()), ("POST", p.http_parts(&request(), true).url.as_str(), Some(true)));
        assert_eq!(sent[0].redirects, Redirects::Refuse, "a request with the key never follows a redirect");
        assert_eq!(script.dropped.get(), 1, "the response is let go once read");
    }
}

#[test]
fn a_rate_limit_waits_as_long_as_retry_after_says_then_succeeds() {
    let script = Script::new(vec![
        Reply::whole(429, &fixture("openai/error_429_rate_limit_exceeded_RECONSTRUCTED.json")).header("retry-after", "3"),
        Reply::chunked(200, &streamed_reply(), 64),
    ]);
    let clock = Rc::new(TestClock::default());
    let (reply, log) = complete(&openai(Connection::default(), &script, &clock));
    assert_eq!(reply.unwrap().text, STREAMED_TEXT);
    assert_eq!(retries(&log), ["retry:1:3000:HTTP 429"]);
    assert_eq!(clock.retry_waits(), [3000.0], "announced and waited for alike");
    let sent = script.sent.borrow();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].body, sent[1].body, "the same request again");
}

#[test]
fn retry_after_as_a_date_is_counted_from_the_clock_and_a_long_one_is_capped() {
    let date = |header: &str, now: &str| {
        let script = Script::new(vec![Reply::whole(503, "{}").header("Retry-After", header), Reply::chunked(200, &streamed_reply(), 64)]);
        let clock = Rc::new(TestClock { unix_ms: crate::llm::retry::parse_imf_fixdate(now).unwrap(), ..TestClock::default() });
        let (reply, log) = complete(&openai(Connection::default(), &script, &clock));
        assert!(reply.is_ok());
        assert_eq!(retries(&log).len(), 1);
        clock.retry_waits()
    };
    assert_eq!(date("Sun, 06 Nov 1994 08:49:42 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"), [5000.0]);
    // Ten minutes asked for; a turn never stalls longer than the policy's 30 s.
    assert_eq!(date("600", "Sun, 06 Nov 1994 08:49:37 GMT"), [30_000.0]);
    assert_eq!(date("Sun, 06 Nov 1994 09:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"), [30_000.0]);
}

#[test]
fn server_errors_use_up_the_attempts_and_end_with_the_providers_message() {
    let body = r#"{"error":{"message":"The server is busy right now.","type":"server_error"}}"#;
    let script = Script::new(vec![Reply::whole(503, body), Reply::whole(503, body), Reply::whole(503, body)]);
    let clock = Rc::new(TestClock::default());
    let p = openai(Connection { max_attempts: 3, ..Connection::default() }, &script, &clock);
    let (reply, log) = complete(&p);
    let err = reply.unwrap_err();
    let expected = p.error_for(503, body);
    assert_eq!((err.kind.clone(), err.message.as_str()), (LlmErrorKind::Server { status: 503 }, expected.message.as_str()));
    assert!(err.message.contains("The server is busy right now."), "{}", err.message);
    // Without Retry-After the wait doubles: 1 s, then 2 s.
    assert_eq!(retries(&log), ["retry:1:1000:HTTP 503", "retry:2:2000:HTTP 503"]);
    assert_eq!(clock.retry_waits(), [1000.0, 2000.0]);
    assert_eq!(script.sent.borrow().len(), 3);

    // Anthropic's 529 "overloaded" the same way, with its own message.
    let overloaded = fixture("anthropic/error_529_overloaded_error_2026.json");
    let script = Script::new(vec![Reply::whole(529, &overloaded), Reply::whole(529, &overloaded)]);
    let p = provider(Preset::Anthropic, Connection { max_attempts: 2, ..Connection::default() }, &script, &clock);
    let (reply, log) = complete(&p);
    assert_eq!(reply.unwrap_err(), p.error_for(529, &overloaded));
    assert_eq!(retries(&log), ["retry:1:1000:HTTP 529"]);
}

#[test]
fn a_client_error_or_an_unreachable_server_is_not_retried() {
    let clock = Rc::new(TestClock::default());
    let script = Script::new(vec![Reply::whole(404, &fixture("openai/error_400_unsupported_value.json"))]);
    let (reply, log) = complete(&openai(Connection::default(), &script, &clock));
    assert_eq!(reply.unwrap_err().kind, LlmErrorKind::NotFound);
    assert!(log.is_empty());

    let script = Script::new(vec![Reply::failing()]);
    let p = openai(Connection::default(), &script, &clock);
    let (reply, log) = complete(&p);
    assert_eq!(reply.unwrap_err(), p.network_error());
    assert!(log.is_empty());
    assert_eq!(script.sent.borrow().len(), 1);
}

#[test]
fn a_provider_that_refuses_to_stream_gets_whole_replies_from_then_on() {
    let refusal = r#"{"error":{"message":"Unsupported value: 'stream' does not support true with this model.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}"#;
    let script = Script::new(vec![Reply::whole(400, refusal), Reply::chunked(200, &whole_reply(), 50), Reply::whole(200, &whole_reply())]);
    let clock = Rc::new(TestClock::default());
    let p = openai(Connection::default(), &script, &clock);
    let (reply, log) = complete(&p);
    assert_eq!(reply.unwrap().text, "The capital of France is Paris.");
    assert_eq!(log, ["text:The capital of France is Paris."], "no retry announced, the whole text shown once");
    assert_eq!(clock.retry_waits(), [] as [f64; 0], "asked again at once");
    let (reply, _) = complete(&p);
    assert!(reply.is_ok());
    assert_eq!(script.streams(), [Value::Bool(true), Value::Bool(false), Value::Bool(false)], "falls back once and remembers");
}

#[test]
fn silence_before_any_byte_and_in_the_middle_of_a_reply_say_different_things() {
    let clock = Rc::new(TestClock::default());
    let cases = [
        ("no headers", true, Reply::hanging(), false),
        ("headers, then nothing", true, Reply::pieces(200, vec![Piece::Stall]), false),
        ("part of a stream", true, Reply::pieces(200, vec![Piece::Bytes(first_events(3)), Piece::Stall]), true),
        ("part of a whole reply", false, Reply::pieces(200, vec![Piece::Bytes(whole_reply().as_bytes()[..40].to_vec()), Piece::Stall]), true),
    ];
    for (case, stream, reply, received) in cases {
        let script = Script::new(vec![reply]);
        let p = openai(Connection { stream, ..Connection::default() }, &script, &clock);
        let (reply, log) = complete(&p);
        let err = reply.unwrap_err();
        assert_eq!(err, p.timeout_error(received), "{case}");
        assert!(retries(&log).is_empty(), "{case}: a timeout is not retried");
        assert_eq!(script.sent.borrow().len(), 1, "{case}");
    }
    let p = openai(Connection::default(), &Script::new(vec![]), &clock);
    assert!(p.timeout_error(false).message.contains("sent nothing for 120 s"));
    assert!(p.timeout_error(true).message.contains("in the middle of its reply"));
}

#[test]
fn a_reply_over_the_size_limit_fails_streamed_and_whole() {
    let clock = Rc::new(TestClock::default());
    let connection = |stream| Connection { stream, max_reply_kb: 1, ..Connection::default() };
    // Streamed: keep-alive comments that never end count too.
    let script = Script::new(vec![Reply::pieces(200, vec![Piece::Endless(b": keep-alive\n\n".to_vec())])]);
    let p = openai(connection(true), &script, &clock);
    assert_eq!(complete(&p).0.unwrap_err(), p.too_large_error());
    assert!(script.bytes_read.get() <= 1024 + 14, "read {} bytes", script.bytes_read.get());

    // Streamed text that passes the limit was shown as it came, then refused.
    let long: String = (0..200).map(|i| format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"word{i} \"}}}}]}}\n\n")).collect();
    let script = Script::new(vec![Reply::chunked(200, &long, 100)]);
    let p = openai(connection(true), &script, &clock);
    let (reply, log) = complete(&p);
    assert_eq!(reply.unwrap_err().kind, LlmErrorKind::TooLarge { limit_kb: 1 });
    assert!(shown(&log).starts_with("word0 word1 "));

    // Whole: a reply of 2 KB against the 1 KB limit.
    let padded = whole_reply().replace("Paris.", &format!("Paris.{}", " ".repeat(2048)));
    let script = Script::new(vec![Reply::chunked(200, &padded, 100)]);
    let p = openai(connection(false), &script, &clock);
    let (reply, log) = complete(&p);
    assert_eq!(reply.unwrap_err(), p.too_large_error());
    assert!(log.is_empty(), "nothing of a refused whole reply is shown");
    assert!(script.bytes_read.get() <= 1024 + 100);
}

#[test]
fn an_endless_error_body_is_read_only_up_to_its_limit() {
    let clock = Rc::new(TestClock::default());
    let script = Script::new(vec![Reply::pieces(500, vec![Piece::Bytes(b"{\"error\":".to_vec()), Piece::Endless(vec![b' '; 1024])])]);
    let p = openai(Connection { max_attempts: 1, ..Connection::default() }, &script, &clock);
    let (reply, _) = complete(&p);
    assert_eq!(reply.unwrap_err().kind, LlmErrorKind::Server { status: 500 });
    let read = script.bytes_read.get();
    assert!(read <= 64 * 1024 + 1024, "read {read} bytes of an endless error body");
    assert_eq!(script.dropped.get(), 1);

    // An error body that stalls ends at the silence limit; the status still says what happened.
    let script = Script::new(vec![Reply::pieces(401, vec![Piece::Bytes(b"{\"error\":".to_vec()), Piece::Stall])]);
    let p = openai(Connection::default(), &script, &clock);
    assert_eq!(complete(&p).0.unwrap_err().kind, LlmErrorKind::Auth);
}

#[test]
fn a_redirect_is_refused_its_target_named_and_nothing_secret_follows() {
    let target = "https://elsewhere.example/v1/messages";
    let connection = Connection { extra_headers: "X-Proxy-Token: tok-secret-777".into(), ..Connection::default() };
    // Its target readable, unreadable, and a probe that never answers (the silence limit ends it).
    for (to, probe_hangs) in [(Some(target.to_string()), false), (None, false), (None, true)] {
        let replies = RefCell::new(vec![Reply::redirect()].into());
        let script = Rc::new(Script { replies, redirect_to: to.clone(), probe_hangs, ..Script::default() });
        let clock = Rc::new(TestClock::default());
        let p = provider(Preset::Anthropic, connection.clone(), &script, &clock);
        let (reply, log) = complete(&p);
        let err = reply.unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::Redirected { to: to.clone() });
        match &to {
            Some(url) => assert!(err.message.contains(&format!("redirect to {url}")), "{}", err.message),
            None => assert!(err.message.contains("elsewhere (the browser does not reveal where)"), "{}", err.message),
        }
        assert!(log.is_empty(), "not retried");
        // One request, which asked not to follow; where it points is asked by URL alone.
        let sent = script.sent.borrow();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].redirects, Redirects::Refuse);
        assert!(sent[0].headers.contains(&("x-api-key".into(), KEY.into())));
        assert_eq!(*script.probed.borrow(), ["https://api.anthropic.com/v1/messages"]);
        assert!(!err.message.contains(KEY) && !err.message.contains("tok-secret-777"));
    }
}

#[test]
fn a_key_echoed_in_an_error_is_masked() {
    let clock = Rc::new(TestClock::default());
    let connection = Connection { extra_headers: "X-Proxy-Token: tok-secret-777".into(), ..Connection::default() };
    for preset in [Preset::OpenAi, Preset::Anthropic] {
        let body = format!(r#"{{"error":{{"type":"authentication_error","message":"Invalid key {KEY} (sent with tok-secret-777; workspace ws-other-9999)"}}}}"#);
        let script = Script::new(vec![Reply::whole(401, &body)]);
        let p = provider(preset, connection.clone(), &script, &clock).masking(&crate::secrets::Secrets::new(["ws-other-9999"]));
        let err = complete(&p).0.unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::Auth, "{preset:?}");
        assert!(err.message.contains("Invalid key "), "{preset:?}: the provider's words are kept: {}", err.message);
        for secret in [KEY, "tok-secret-777", "ws-other-9999"] {
            assert!(!err.message.contains(secret), "{preset:?}: {}", err.message);
        }
    }
}

#[test]
fn a_stream_cut_off_keeps_what_arrived_and_is_marked_incomplete() {
    let clock = Rc::new(TestClock::default());
    let script = Script::new(vec![Reply::pieces(200, vec![Piece::Bytes(first_events(4)), Piece::Break])]);
    let (reply, log) = complete(&openai(Connection::default(), &script, &clock));
    let reply = reply.unwrap();
    assert!(reply.incomplete);
    assert_eq!(reply.text, "The capital of");
    assert_eq!(shown(&log), "The capital of");
}

#[test]
fn stop_in_the_middle_of_a_stream_lets_the_response_go() {
    // As the run loop does: the call raced against the Stop button's token, which trips when
    // the first words are shown; the server then goes quiet and no timer would ever end it.
    let script = stalls_after(3);
    let clock = Rc::new(TestClock { never: true, ..TestClock::default() });
    let p = openai(Connection::default(), &script, &clock);
    let cancel = CancelToken::new();
    let log = RefCell::new(Vec::new());
    let progress = |p: Progress<'_>| {
        log.borrow_mut().push(line(p));
        cancel.cancel();
    };
    let request = request();
    let outcome = pollster::block_on(race(p.complete(&request, &progress), cancel.cancelled()));
    assert!(matches!(outcome, Either::Right(())));
    assert_eq!(shown(&log.borrow()), "The capital");
    assert_eq!(script.dropped.get(), 1, "the response was dropped with the call (in the page: the fetch is aborted)");
}

#[test]
fn dropping_the_call_in_the_middle_of_a_stream_lets_the_response_go() {
    let script = stalls_after(3);
    let clock = Rc::new(TestClock { never: true, ..TestClock::default() });
    let p = openai(Connection::default(), &script, &clock);
    let log = RefCell::new(Vec::new());
    let progress = |p: Progress<'_>| log.borrow_mut().push(line(p));
    let request = request();
    {
        let mut call = pin!(p.complete(&request, &progress));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..3 {
            assert!(call.as_mut().poll(&mut cx).is_pending(), "waits for more of the reply");
        }
        assert_eq!(shown(&log.borrow()), "The capital");
        assert_eq!(script.dropped.get(), 0, "still reading");
    }
    assert_eq!(script.dropped.get(), 1, "dropped with the call");
}

#[test]
fn a_server_that_refuses_the_usage_field_is_asked_again_without_it_and_that_is_remembered() {
    // The shape of a vLLM-style refusal of an unknown body field.
    let refusal = r#"{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]","type":"BadRequestError","param":null,"code":400}"#;
    let script = Script::new(vec![Reply::whole(400, refusal), Reply::chunked(200, &streamed_reply(), 64), Reply::chunked(200, &streamed_reply(), 64)]);
    let clock = Rc::new(TestClock::default());
    let refusals = crate::llm::client::UsageRefusals::default();
    let p = openai(Connection::default(), &script, &clock).remembering(&refusals);
    let (reply, log) = complete(&p);
    assert_eq!(reply.expect("the second ask is answered").text, STREAMED_TEXT);
    assert!(retries(&log).is_empty(), "not a retry: the same call asked again at once");
    // The next run builds a new provider for the same address, sharing the page's list: it
    // does not ask again. One that shares nothing does.
    assert!(openai(Connection::default(), &script, &clock).asks_usage(), "nothing shared, nothing known");
    let next = openai(Connection::default(), &script, &clock).remembering(&refusals);
    assert!(!next.asks_usage());
    let _ = complete(&next);
    let asked: Vec<bool> = script.sent.borrow().iter().map(|s| s.body.get("stream_options").is_some()).collect();
    assert_eq!(asked, [true, false, false]);
    assert_eq!(script.streams(), [Value::Bool(true), Value::Bool(true), Value::Bool(true)], "still streamed");
}

#[test]
fn a_streamed_reply_carries_the_usage_and_finish_reason_the_server_sent() {
    let script = Script::new(vec![Reply::chunked(200, &streamed_reply(), 7)]);
    let clock = Rc::new(TestClock::default());
    let (reply, _) = complete(&openai(Connection::default(), &script, &clock));
    let reply = reply.expect("a reply");
    assert_eq!(reply.usage.map(|u| (u.prompt_tokens, u.completion_tokens)), Some((78, 9)));
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
}
