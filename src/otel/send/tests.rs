use std::cell::RefCell;

use super::*;
use crate::agent::LocalBoxFuture;
use crate::net::{FetchFailed, HttpResponse, Streaming};

/// What the fake collector answers.
#[derive(Clone)]
enum Answer {
    Status(u16, &'static str),
    Redirect,
    Unreachable,
    /// Takes the request and never answers.
    Silent,
    /// Answers with a status, then never sends its body.
    StatusThenStall(u16),
}

struct FakeCollector {
    answer: Answer,
    sent: RefCell<Vec<(String, Vec<(String, String)>, String, Redirects)>>,
}

/// Status, body, whether a redirect, whether the body stalls.
struct Opened(u16, Option<Vec<u8>>, bool, bool);

impl Streaming for Opened {
    fn status(&self) -> u16 {
        self.0
    }
    fn header(&self, _name: &str) -> Option<String> {
        None
    }
    fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>> {
        let next = self.1.take();
        if self.3 {
            return Box::pin(std::future::pending());
        }
        Box::pin(async move { Ok(next) })
    }
    fn is_redirect(&self) -> bool {
        self.2
    }
}

impl Fetch for FakeCollector {
    fn get<'a>(&'a self, _url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(async { Err(FetchFailed("not used".into())) })
    }
    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        self.sent.borrow_mut().push((request.url.to_string(), request.headers.to_vec(), request.body.unwrap_or_default().to_string(), request.redirects));
        let answer = self.answer.clone();
        Box::pin(async move {
            match answer {
                Answer::Status(status, body) => Ok(Box::new(Opened(status, Some(body.as_bytes().to_vec()), false, false)) as Box<dyn Streaming>),
                Answer::Redirect => Ok(Box::new(Opened(0, None, true, false)) as Box<dyn Streaming>),
                Answer::Unreachable => Err(FetchFailed("TypeError".into())),
                Answer::Silent => std::future::pending().await,
                Answer::StatusThenStall(status) => Ok(Box::new(Opened(status, None, false, true)) as Box<dyn Streaming>),
            }
        })
    }
}

fn collector() -> Collector {
    Collector { endpoint: "https://otel.example.org:4318".into(), header_name: "Authorization".into(), header_value: "Basic c2VjcmV0LWhlYWRlcg==".into() }
}

fn send_to(answer: Answer) -> (Result<(), String>, FakeCollector) {
    let fake = FakeCollector { answer, sent: RefCell::default() };
    let clock = crate::agent::time::SystemClock::default();
    let result = pollster::block_on(send(&fake, &clock, &collector(), "{\"resourceSpans\":[]}", &Secrets::default()));
    (result, fake)
}

#[test]
fn a_run_is_posted_once_with_its_header_and_never_follows_a_redirect() {
    let (result, fake) = send_to(Answer::Status(200, "{}"));
    assert_eq!(result, Ok(()));
    let sent = fake.sent.borrow();
    assert_eq!(sent.len(), 1);
    let (url, headers, body, redirects) = &sent[0];
    assert_eq!(url, "https://otel.example.org:4318/v1/traces");
    assert!(headers.contains(&("Authorization".to_string(), "Basic c2VjcmV0LWhlYWRlcg==".to_string())));
    assert!(headers.contains(&("Content-Type".to_string(), "application/json".to_string())));
    assert_eq!(body, "{\"resourceSpans\":[]}");
    assert_eq!(*redirects, Redirects::Refuse);
}

#[test]
fn a_refusal_says_why_with_the_header_masked() {
    let (result, _) = send_to(Answer::Status(401, "bad credentials: Basic c2VjcmV0LWhlYWRlcg=="));
    let message = result.expect_err("401 is a failure");
    assert!(message.contains("HTTP 401") && message.contains("Check the header in Settings"), "{message}");
    assert!(!message.contains("c2VjcmV0LWhlYWRlcg"), "the header's value is masked: {message}");
    let (redirected, _) = send_to(Answer::Redirect);
    assert!(redirected.expect_err("a redirect fails").contains("redirect"));
    let (unreachable, _) = send_to(Answer::Unreachable);
    assert!(unreachable.expect_err("no answer").contains("CORS"));
}

#[test]
fn the_header_belongs_to_the_endpoints_origin() {
    let mut c = collector();
    c.set_endpoint("https://otel.example.org:4318/v1/traces");
    assert!(!c.header_value.is_empty(), "same origin, another path: kept");
    c.set_endpoint("https://elsewhere.example.com/v1/traces");
    assert!(c.header_value.is_empty(), "another origin: forgotten");
}

#[test]
fn a_bare_address_gets_the_traces_path() {
    let with = |endpoint: &str| Collector { endpoint: endpoint.into(), ..Collector::default() }.url();
    assert_eq!(with("http://localhost:4318"), "http://localhost:4318/v1/traces");
    assert_eq!(with("http://localhost:4318/"), "http://localhost:4318/v1/traces");
    assert_eq!(with("https://cloud.langfuse.com/api/public/otel/v1/traces"), "https://cloud.langfuse.com/api/public/otel/v1/traces");
}

// A stalled collector is given up on without a test waiting 30 s (`Impatient`).
use crate::base::clock::Impatient;

#[test]
fn a_collector_that_never_answers_is_given_up_on_after_its_time() {
    let fake = FakeCollector { answer: Answer::Silent, sent: RefCell::default() };
    let clock = Impatient::default();
    let result = pollster::block_on(send(&fake, &clock, &collector(), "{}", &Secrets::default()));
    assert_eq!(result, Err("The collector at https://otel.example.org:4318/v1/traces did not answer within 30 s.".into()));
    assert_eq!(*clock.0.borrow(), vec![SEND_TIMEOUT_MS]);
    assert_eq!(fake.sent.borrow().len(), 1, "asked once, not again");

    // A refusal whose body never comes still says its status.
    let fake = FakeCollector { answer: Answer::StatusThenStall(503), sent: RefCell::default() };
    let result = pollster::block_on(send(&fake, &clock, &collector(), "{}", &Secrets::default()));
    assert_eq!(result, Err("The collector at https://otel.example.org:4318/v1/traces refused the run: HTTP 503.".into()));
}
