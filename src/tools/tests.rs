//! The tools through their `Tool` interface, with a fake `Fetch` replaying the recorded
//! responses in tests/fixtures, and a fake clock: routing (CORS proxy, dev proxy, OpenAlex
//! fallback), arXiv's request spacing, and the calculator's model call for prose.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use super::*;
use crate::test_support::fixture;
use crate::agent::{ChatModel, ChatResponse, LlmError};


/// Answers by URL prefix; records every URL asked for.
#[derive(Default)]
struct FakeFetch {
    routes: RefCell<Vec<(String, Result<(u16, String), String>)>>,
    asked: RefCell<Vec<String>>,
}

impl FakeFetch {
    fn route(self, prefix: &str, status: u16, body: impl Into<String>) -> Self {
        self.routes.borrow_mut().push((prefix.into(), Ok((status, body.into()))));
        self
    }
    fn fail(self, prefix: &str) -> Self {
        self.routes.borrow_mut().push((prefix.into(), Err("TypeError: Failed to fetch".into())));
        self
    }
}

impl Fetch for FakeFetch {
    fn get<'a>(&'a self, url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        self.asked.borrow_mut().push(url.to_string());
        let answer = self.routes.borrow().iter().find(|(p, _)| url.starts_with(p.as_str())).map(|(_, a)| a.clone());
        Box::pin(async move {
            match answer {
                Some(Ok((status, body))) => Ok(HttpResponse { status, body, retry_after: None }),
                Some(Err(e)) => Err(FetchFailed(e)),
                None => Ok(HttpResponse { status: 404, body: "<html>Not Found</html>".into(), retry_after: None }),
            }
        })
    }
    fn open<'a>(&'a self, request: crate::net::HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn crate::net::Streaming>, FetchFailed>> {
        // The built-in tools only GET; a request of another kind here is a bug in the test.
        Box::pin(async move { Err(FetchFailed(format!("unexpected {} {}", request.method, request.url))) })
    }
}

/// Time that moves only when slept on; records each sleep.
#[derive(Default, Clone)]
struct FakeClock {
    now: Rc<Cell<f64>>,
    sleeps: Rc<RefCell<Vec<f64>>>,
}

impl Clock for FakeClock {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    fn unix_ms(&self) -> f64 {
        0.0
    }
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        self.sleeps.borrow_mut().push(ms);
        self.now.set(self.now.get() + ms);
        Box::pin(async {})
    }
}

struct OneReply(&'static str);

impl ChatModel for OneReply {
    fn complete<'a>(&'a self, _r: &'a ChatRequest, _d: &'a dyn Fn(crate::agent::Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async move { Ok(ChatResponse { text: self.0.into(), ..Default::default() }) })
    }
}

/// Calls `tool` with `input`; returns the result and how many model calls the tool made.
fn call(tool: &dyn Tool, input: Value, model_reply: &'static str) -> (Result<String, ToolError>, usize) {
    let model = OneReply(model_reply);
    let calls = Cell::new(0);
    let on_call = |_: &ChatRequest, _: &Result<ChatResponse, LlmError>, _: f64| calls.set(calls.get() + 1);
    let now = || 0.0;
    let cx = ToolContext { model: &model, on_model_call: &on_call, now_ms: &now, on_progress: &|_| {}, on_asking: &|_| {}, on_asked: &|_| {}, on_view: &|_| {} };
    let result = pollster::block_on(tool.call(&input, &cx));
    (result, calls.get())
}

fn tools_with(settings: &ToolSettings, fetch: Rc<FakeFetch>, clock: FakeClock) -> Vec<Box<dyn Tool>> {
    build_tools(settings, fetch, Rc::new(clock))
}

fn only(settings: &ToolSettings, name: &str, fetch: Rc<FakeFetch>, clock: FakeClock) -> Box<dyn Tool> {
    tools_with(settings, fetch, clock).into_iter().find(|t| t.name() == name).unwrap()
}

#[test]
fn only_enabled_tools_are_built() {
    let mut s = ToolSettings::default();
    let names = |s: &ToolSettings| tools_with(s, Rc::new(FakeFetch::default()), FakeClock::default()).iter().map(|t| t.name().to_string()).collect::<Vec<_>>();
    assert_eq!(names(&s), ["wikipedia", "arxiv", "calculator", "web_search"]);
    s.arxiv.common.enabled = false;
    s.web_search.common.enabled = false;
    assert_eq!(names(&s), ["wikipedia", "calculator"]);
}

#[test]
fn wikipedia_searches_then_reads_extracts() {
    let fetch = Rc::new(
        FakeFetch::default()
            .route("https://en.wikipedia.org/w/api.php?action=query&list=search", 200, fixture("wikipedia/action_query_list_search_srlimit3.json"))
            .route("https://en.wikipedia.org/w/api.php?action=query&prop=extracts", 200, fixture("wikipedia/action_query_prop_extracts_explaintext_full.json")),
    );
    let tool = only(&ToolSettings::default(), "wikipedia", fetch.clone(), FakeClock::default());
    let (obs, _) = call(tool.as_ref(), json!("Python programming"), "");
    let obs = obs.unwrap();
    assert!(obs.contains("Page: Python (programming language)"), "{obs}");
    assert!(obs.contains("URL: https://en.wikipedia.org/wiki/Python_(programming_language)"), "{obs}");
    assert!(obs.chars().count() <= 4000 + 40);
    assert_eq!(fetch.asked.borrow().len(), 2);
    assert!(fetch.asked.borrow()[0].contains("origin=*"), "browser calls need origin=*");
}

#[test]
fn wikipedia_no_results_and_api_errors() {
    let fetch = Rc::new(FakeFetch::default().route("https://de.wikipedia.org", 200, fixture("wikipedia/action_query_list_search_no_results_2017.json")));
    let mut s = ToolSettings::default();
    s.wikipedia.lang = "de".into();
    let (obs, _) = call(only(&s, "wikipedia", fetch, FakeClock::default()).as_ref(), json!("gobbilygook"), "");
    assert!(obs.unwrap().contains("Wikipedia has no page matching 'gobbilygook'"));

    let fetch = Rc::new(FakeFetch::default().route("https://en.wikipedia.org", 200, fixture("wikipedia/action_api_error_unknown_action.json")));
    let (err, _) = call(only(&ToolSettings::default(), "wikipedia", fetch, FakeClock::default()).as_ref(), json!("x"), "");
    assert!(!err.unwrap_err().message.is_empty());

    let fetch = Rc::new(FakeFetch::default().fail("https://en.wikipedia.org"));
    let (err, _) = call(only(&ToolSettings::default(), "wikipedia", fetch, FakeClock::default()).as_ref(), json!("x"), "");
    let err = err.unwrap_err();
    assert!(err.message.contains("Could not reach Wikipedia"), "{}", err.message);

    // Offline, the tool says so and names what still works.
    let fetch = Rc::new(FakeFetch::default());
    fetch.routes.borrow_mut().push(("https://en.wikipedia.org".into(), Err(FetchFailed::OFFLINE.into())));
    let (err, _) = call(only(&ToolSettings::default(), "wikipedia", fetch, FakeClock::default()).as_ref(), json!("x"), "");
    let err = err.unwrap_err();
    assert!(err.message.starts_with("Wikipedia needs the network, and this browser is offline."), "{}", err.message);
    assert!(!err.message.contains("CORS"), "{}", err.message);
}

#[test]
fn arxiv_uses_the_cors_proxy_when_set() {
    let mut s = ToolSettings::default();
    s.cors_proxy = "https://proxy.test/?url={url}".into();
    let fetch = Rc::new(FakeFetch::default().route("https://proxy.test/?url=https%3A%2F%2Fexport.arxiv.org%2Fapi%2Fquery", 200, fixture("arxiv/search_all_testing_first3_trimmed.xml")));
    let (obs, _) = call(only(&s, "arxiv", fetch.clone(), FakeClock::default()).as_ref(), json!("testing"), "");
    let obs = obs.unwrap();
    assert!(obs.contains("Title:") && obs.contains("URL: https://arxiv.org/abs/"), "{obs}");
    assert_eq!(fetch.asked.borrow().len(), 1);
}

#[test]
fn arxiv_uses_the_dev_proxy_when_trunk_serves_the_page() {
    let fetch = Rc::new(FakeFetch::default().route("proxy/arxiv/query?", 200, fixture("arxiv/search_all_testing_first3_trimmed.xml")));
    let (obs, _) = call(only(&ToolSettings::default(), "arxiv", fetch.clone(), FakeClock::default()).as_ref(), json!("testing"), "");
    assert!(obs.unwrap().contains("Published:"));
    assert!(fetch.asked.borrow()[0].starts_with("proxy/arxiv/query?search_query="));
}

#[test]
fn arxiv_falls_back_to_openalex_and_says_so() {
    let fetch = Rc::new(FakeFetch::default().route("https://api.openalex.org/works?", 200, fixture("openalex/works_search_machine_learning_public_health_trimmed2.json")));
    let tool = only(&ToolSettings::default(), "arxiv", fetch.clone(), FakeClock::default());
    let (obs, _) = call(tool.as_ref(), json!("machine learning public health"), "");
    let obs = obs.unwrap();
    assert!(obs.starts_with(openalex::SOURCE_NOTE), "{obs}");
    assert!(fetch.asked.borrow()[1].contains("S4306400194"), "restricted to arXiv-hosted works");
    // The missing dev proxy is remembered: the next call goes straight to OpenAlex.
    let _ = call(tool.as_ref(), json!("again"), "");
    assert_eq!(fetch.asked.borrow().len(), 3);
}

#[test]
fn arxiv_error_feed_is_a_clear_tool_error() {
    let mut s = ToolSettings::default();
    s.arxiv.base_url = "http://127.0.0.1:1".into();
    let fetch = Rc::new(FakeFetch::default().route("http://127.0.0.1:1/api/query", 400, fixture("arxiv/error_400_incorrect_id_format.xml")));
    let (err, _) = call(only(&s, "arxiv", fetch, FakeClock::default()).as_ref(), json!("id:abc"), "");
    assert!(err.unwrap_err().message.contains("incorrect id format"));
}

#[test]
fn arxiv_requests_are_spaced_three_seconds_apart() {
    let mut s = ToolSettings::default();
    s.arxiv.base_url = "http://arxiv.test".into();
    let fetch = Rc::new(FakeFetch::default().route("http://arxiv.test", 200, fixture("arxiv/search_all_testing_first3_trimmed.xml")));
    let clock = FakeClock::default();
    let tool = only(&s, "arxiv", fetch, clock.clone());
    let _ = call(tool.as_ref(), json!("a"), "");
    clock.now.set(clock.now.get() + 1000.0);
    let _ = call(tool.as_ref(), json!("b"), "");
    assert_eq!(*clock.sleeps.borrow(), vec![2000.0]);
}

#[test]
fn calculator_evaluates_expressions_without_the_model() {
    let tool = only(&ToolSettings::default(), "calculator", Rc::new(FakeFetch::default()), FakeClock::default());
    let (obs, calls) = call(tool.as_ref(), json!("25% of 300"), "");
    assert_eq!(obs.unwrap(), "25% of 300 = 75");
    assert_eq!(calls, 0);
    let (err, _) = call(tool.as_ref(), json!("10/0"), "");
    assert!(err.unwrap_err().message.to_lowercase().contains("division by zero"));
}

#[test]
fn calculator_asks_the_model_to_translate_prose() {
    let tool = only(&ToolSettings::default(), "calculator", Rc::new(FakeFetch::default()), FakeClock::default());
    let (obs, calls) = call(tool.as_ref(), json!("What is the square root of two times eight?"), "Expression: sqrt(2*8)");
    assert_eq!(obs.unwrap(), "sqrt(2*8) = 4");
    assert_eq!(calls, 1, "the translation call is reported to the trace");
    let (err, _) = call(tool.as_ref(), json!("Who was the first emperor of Rome?"), "Expression: NONE");
    assert!(err.unwrap_err().message.contains("could not be turned into one"));
}

#[test]
fn web_search_needs_a_proxy_for_duckduckgo_and_says_so() {
    let tool = only(&ToolSettings::default(), "web_search", Rc::new(FakeFetch::default()), FakeClock::default());
    let (err, _) = call(tool.as_ref(), json!("rust"), "");
    assert!(err.unwrap_err().message.contains("set a CORS proxy in Settings"));

    let mut s = ToolSettings::default();
    s.cors_proxy = "https://proxy.test/".into();
    let fetch = Rc::new(FakeFetch::default().route("https://proxy.test/https%3A%2F%2Fapi.duckduckgo.com", 200, fixture("duckduckgo/instant_answer_rust_programming_language.json")));
    let (obs, _) = call(only(&s, "web_search", fetch, FakeClock::default()).as_ref(), json!("Rust programming language"), "");
    assert!(obs.unwrap().contains("Rust"));
}

#[test]
fn web_search_empty_answer_says_so() {
    let mut s = ToolSettings::default();
    s.web_search.ddg_url = "http://ddg.test".into();
    let fetch = Rc::new(FakeFetch::default().route("http://ddg.test", 200, fixture("duckduckgo/instant_answer_no_result.json")));
    let (obs, _) = call(only(&s, "web_search", fetch, FakeClock::default()).as_ref(), json!("target model attention"), "");
    assert!(obs.unwrap().contains("No instant answer"));
}

#[test]
fn tool_settings_round_trip_with_defaults_for_missing_fields() {
    let s: ToolSettings = serde_json::from_str(r#"{"wikipedia": {"lang": "de", "common": {"enabled": false}}}"#).unwrap();
    assert_eq!(s.wikipedia.lang, "de");
    assert!(!s.wikipedia.common.enabled);
    assert_eq!(s.wikipedia.results, 3);
    assert!(s.arxiv.common.enabled);
    let back: ToolSettings = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);
}
