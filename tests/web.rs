//! Browser tests (wasm-bindgen-test in headless Chromium): the code that needs a real browser,
//! i.e. fetch, localStorage and mounting the app. The loopback server's address comes from
//! THOUGHTLINE_TEST_SERVER at compile time; scripts/test starts the server and sets it.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

use thoughtline::agent::{ChatModel, ChatRequest, ChatResponse, LlmErrorKind, Message, Progress};
use std::rc::Rc;
use thoughtline::net::browser::BrowserFetch;
use thoughtline::net::{Fetch, FetchFailed, HttpRequest, Redirects};

use thoughtline::browser::BrowserClock;
use thoughtline::llm::{Connection, Preset, Provider, ProviderConfig};
use thoughtline::app::settings::Settings;
use thoughtline::ui::services::settings::{load as load_settings, save as save_settings};
use thoughtline::storage::SETTINGS_KEY;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn server() -> &'static str {
    option_env!("THOUGHTLINE_TEST_SERVER").expect("run these tests through scripts/test, which starts the loopback server")
}

fn local_storage() -> web_sys::Storage {
    web_sys::window().unwrap().local_storage().unwrap().unwrap()
}

#[wasm_bindgen_test]
fn settings_persist_in_local_storage_without_the_key_by_default() {
    local_storage().clear().unwrap();
    let mut s = Settings::default();
    s.provider.model = "stored-model".into();
    s.provider.api_key = "sk-browser-secret".into();
    save_settings(&s).unwrap();
    let raw = local_storage().get_item(SETTINGS_KEY).unwrap().unwrap();
    assert!(!raw.contains("sk-browser-secret"));
    let back = load_settings().settings;
    assert_eq!(back.provider.model, "stored-model");
    assert_eq!(back.provider.api_key, "");

    s.remember_key = true;
    save_settings(&s).unwrap();
    assert_eq!(load_settings().settings.provider.api_key, "sk-browser-secret");
    local_storage().clear().unwrap();
}

/// The IndexedDB backend in a real browser: a save is committed when it resolves, the list
/// comes from the database, a damaged record stays listed, and a delete removes both records.
#[wasm_bindgen_test]
async fn chats_are_saved_listed_and_deleted_in_indexed_db() {
    use thoughtline::storage::store::{self, Opened};
    use thoughtline::conversation::{Conversation, Outcome};
    let db = thoughtline::storage::open_backend(|| {}).await.expect("IndexedDB opens");
    let mut chat = Conversation::new("web-test".into());
    chat.rename("Stored in IndexedDB");
    // Two runs, the first with more events than one stored chunk holds.
    let first = chat.ask("Hello?".into());
    for i in 0..40 {
        chat.record(first, thoughtline::agent::Event { index: 0, step: 1, started_ms: i as f64, ended_ms: i as f64, kind: thoughtline::agent::EventKind::ToolResult { tool: "calculator".into(), observation: format!("{i}") } });
    }
    chat.end(first, Outcome::Answer("Hi.".into()));
    let second = chat.ask("And?".into());
    chat.end(second, Outcome::Ended("Stopped.".into()));
    store::save(db.as_ref(), &chat, 5.0).await.unwrap();
    let list = store::list(db.as_ref()).await.unwrap();
    assert!(list.iter().any(|c| c.id == "web-test" && c.title == "Stored in IndexedDB" && c.problem.is_none()));
    match store::open(db.as_ref(), "web-test").await.unwrap() {
        Opened::Chat { chat: back, note, current } => {
            assert_eq!(back, chat);
            assert_eq!((note, current), (None, true));
        }
        other => panic!("{other:?}"),
    }
    db.put(vec![store::Record { id: "web-bad".into(), summary: "{oops".into(), body: "{oops".into(), parts: Vec::new() }]).await.unwrap();
    let list = store::list(db.as_ref()).await.unwrap();
    assert!(list.iter().any(|c| c.id == "web-bad" && c.problem.is_some()));
    assert!(matches!(store::open(db.as_ref(), "web-bad").await.unwrap(), Opened::Unreadable { raw, .. } if raw == "{oops"));
    for id in ["web-test", "web-bad"] {
        store::delete(db.as_ref(), id).await.unwrap();
        assert_eq!(store::open(db.as_ref(), id).await.unwrap(), Opened::Missing);
    }
    // The records beside a deleted chat's head go with it: a chat saved again under that id
    // holds only its own.
    let mut again = Conversation::new("web-test".into());
    again.ask("Only this?".into());
    store::save(db.as_ref(), &again, 6.0).await.unwrap();
    assert!(matches!(store::open(db.as_ref(), "web-test").await.unwrap(), Opened::Chat { chat, .. } if chat == again));
    let stored = db.chat("web-test").await.unwrap().unwrap();
    assert_eq!(stored.parts.keys().collect::<Vec<_>>(), ["web-test/0"]);
    store::delete(db.as_ref(), "web-test").await.unwrap();
}

/// POSTs `body` through the seam and reads the whole answer: (status, body).
async fn post(url: &str, body: &str) -> Result<(u16, String), FetchFailed> {
    let mut response = BrowserFetch.open(HttpRequest { method: "POST", url, headers: &[], body: Some(body), redirects: Redirects::Follow }).await?;
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        bytes.extend(chunk);
    }
    Ok((response.status(), String::from_utf8(bytes).unwrap()))
}

#[wasm_bindgen_test]
async fn get_reads_status_body_and_headers() {
    let url = format!("{}/s/web/echo/201", server());
    let resp = BrowserFetch.get(&url, &[("Authorization".into(), "Bearer abc".into())]).await.unwrap();
    assert_eq!(resp.status, 201);
    assert_eq!(resp.retry_after.as_deref(), Some("7"));
    let echoed: serde_json::Value = serde_json::from_str(&resp.body).unwrap();
    assert_eq!((echoed["method"].as_str(), echoed["auth"].as_str()), (Some("GET"), Some("Bearer abc")));
}

#[wasm_bindgen_test]
async fn open_sends_any_request_and_reads_exposed_headers_and_the_body_in_chunks() {
    let url = format!("{}/s/web/echo/202", server());
    let headers = vec![("Authorization".to_string(), "Bearer xyz".to_string())];
    let mut response = BrowserFetch.open(HttpRequest { method: "POST", url: &url, headers: &headers, body: Some("{\"x\":1}"), redirects: Redirects::Follow }).await.unwrap();
    assert_eq!(response.status(), 202);
    assert!(!response.is_redirect());
    assert_eq!(response.header("Retry-After").as_deref(), Some("7"), "exposed by the server's CORS headers");
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        body.extend(chunk);
    }
    let echoed: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((echoed["method"].as_str(), echoed["auth"].as_str(), echoed["body"].as_str()), (Some("POST"), Some("Bearer xyz"), Some("{\"x\":1}")));
}

/// Only the "down" half: this runner's page is cross-origin isolated (COEP require-corp), which
/// blocks the opaque answers the probe relies on. `tests/e2e/mcp.test.mjs` checks that a server
/// without CORS is found reachable, from the real page.
#[wasm_bindgen_test]
async fn reachable_says_no_when_nothing_answers() {
    assert_eq!(BrowserFetch.reachable("http://127.0.0.1:9/mcp").await, Some(false));
}

#[wasm_bindgen_test]
async fn fetch_to_a_closed_port_fails_without_panicking() {
    assert!(post("http://127.0.0.1:9/v1/chat/completions", "{}").await.is_err());
}

#[wasm_bindgen_test]
async fn a_response_without_cors_headers_is_a_fetch_failure() {
    let url = format!("{}/nocors/s/web/echo/200", server());
    assert!(post(&url, "{}").await.is_err());
}

async fn script(scope: &str, replies: serde_json::Value) {
    let url = format!("{}/s/{scope}/__script", server());
    let (status, _) = post(&url, &serde_json::json!({ "replies": replies }).to_string()).await.unwrap();
    assert_eq!(status, 204);
}

fn client(scope: &str, preset: Preset, cors: bool) -> Provider {
    connect(scope, preset, cors, Connection { stream: false, ..Connection::default() })
}

fn connect(scope: &str, preset: Preset, cors: bool, connection: Connection) -> Provider {
    let prefix = if cors { "" } else { "/nocors" };
    // Anthropic's base URL has no /v1 (the client adds /v1/messages).
    let base_url = match preset {
        Preset::Anthropic => format!("{}{prefix}/s/{scope}", server()),
        _ => format!("{}{prefix}/s/{scope}/v1", server()),
    };
    let config = ProviderConfig { preset, base_url, model: "m".into(), api_key: "sk-web-secret".into() };
    Provider::new(config, connection, Rc::new(BrowserFetch), Rc::new(BrowserClock))
}

fn streaming(scope: &str, preset: Preset) -> Provider {
    connect(scope, preset, true, Connection::default())
}

/// Calls the model and records what it reported along the way.
async fn complete(p: &Provider) -> (Result<ChatResponse, thoughtline::agent::LlmError>, Vec<String>) {
    let log = RefCell::new(Vec::new());
    let progress = |p: Progress<'_>| {
        log.borrow_mut().push(match p {
            Progress::Text(t) => format!("text:{t}"),
            Progress::Reasoning(t) => format!("reasoning:{t}"),
            Progress::Retry { attempt, wait_ms, reason } => format!("retry:{attempt}:{wait_ms}:{reason}"),
        })
    };
    let result = p.complete(&request(), &progress).await;
    (result, log.into_inner())
}

async fn recorded(scope: &str) -> Vec<serde_json::Value> {
    let resp = BrowserFetch.get(&format!("{}/s/{scope}/__requests", server()), &[]).await.unwrap();
    serde_json::from_str(&resp.body).unwrap()
}

fn request() -> ChatRequest {
    ChatRequest { stop: vec!["Observation:".into()], ..ChatRequest::new(vec![Message::user("hi")], 0.0, None) }
}

#[wasm_bindgen_test]
async fn openai_client_completes_through_real_fetch() {
    script("web-ok", serde_json::json!([{ "text": "Final Answer: hello" }])).await;
    let reply = client("web-ok", Preset::Custom, true).complete(&request(), &|_| {}).await.unwrap();
    assert_eq!(reply.text, "Final Answer: hello");
    assert!(reply.usage.is_some());
}

#[wasm_bindgen_test]
async fn openai_client_maps_a_401_to_an_auth_error() {
    script("web-401", serde_json::json!([{ "status": 401, "fixture": "openai/error_401_invalid_api_key.json" }])).await;
    let err = client("web-401", Preset::OpenAi, true).complete(&request(), &|_| {}).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Auth);
}

#[wasm_bindgen_test]
async fn openai_client_explains_cors_for_ollama() {
    let err = client("web-cors", Preset::Ollama, false).complete(&request(), &|_| {}).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Network);
    assert!(err.message.contains("OLLAMA_ORIGINS"), "{}", err.message);
}

#[wasm_bindgen_test]
async fn the_app_mounts_with_its_shell() {
    local_storage().clear().unwrap();
    leptos::mount::mount_to_body(thoughtline::ui::App);
    leptos::task::tick().await;
    let doc = web_sys::window().unwrap().document().unwrap();
    for id in ["composer", "messages", "import", "settings-toggle"] {
        assert!(doc.query_selector(&format!("[data-testid={id}]")).unwrap().is_some(), "missing {id}");
    }
    // A chat with no run shows no step list and no controls for steps: only Import.
    for id in ["trace", "export", "view-timeline"] {
        assert!(doc.query_selector(&format!("[data-testid={id}]")).unwrap().is_none(), "{id} in an empty chat");
    }
}

#[wasm_bindgen_test]
async fn openai_streams_deltas_in_order_and_records_usage() {
    script("st-openai", serde_json::json!([{ "text": "Thought: easy.\nFinal Answer: streamed" }])).await;
    let (reply, log) = complete(&streaming("st-openai", Preset::OpenAi)).await;
    let reply = reply.unwrap();
    assert_eq!(reply.text, "Thought: easy.\nFinal Answer: streamed");
    assert!(!reply.incomplete);
    assert!(log.len() > 3, "several deltas: {log:?}");
    let joined: String = log.iter().filter_map(|l| l.strip_prefix("text:")).collect();
    assert_eq!(joined, reply.text);
    assert_eq!(reply.usage.unwrap().prompt_tokens, 100);
    let sent = recorded("st-openai").await;
    assert_eq!(sent[0]["body"]["stream"], true);
}

#[wasm_bindgen_test]
async fn recorded_streams_of_each_family_are_assembled() {
    let cases = [
        ("fx-openai", Preset::OpenAi, "openai/chat_completion_stream_text_include_usage.sse"),
        ("fx-ollama", Preset::Ollama, "ollama/openai_chat_completion_stream_include_usage_pre_v0.32.6.sse"),
        ("fx-dashscope", Preset::DashScope, "dashscope/openai_compat_stream_include_usage_docs.sse"),
        ("fx-anthropic", Preset::Anthropic, "anthropic/messages_stream_text.sse"),
        ("fx-thinking", Preset::Anthropic, "anthropic/messages_stream_thinking.sse"),
    ];
    for (scope, preset, fixture) in cases {
        script(scope, serde_json::json!([{ "sse_fixture": fixture, "chunk_bytes": 5 }])).await;
        let (reply, log) = complete(&streaming(scope, preset)).await;
        let reply = reply.unwrap_or_else(|e| panic!("{fixture}: {e}"));
        assert!(!reply.text.is_empty(), "{fixture}");
        assert!(reply.usage.is_some(), "{fixture}: usage recorded");
        if fixture.contains("thinking") {
            assert!(log.iter().any(|l| l.starts_with("reasoning:")), "{fixture}: reasoning streamed");
        }
    }
}

#[wasm_bindgen_test]
async fn recorded_tool_call_streams_become_tool_calls() {
    // The recorded OpenAI and Anthropic tool-call streams, replayed in 5-byte pieces through
    // real fetch: the calls are assembled from their argument fragments and shown as they come.
    let cases = [
        ("fx-tools-openai", Preset::OpenAi, "openai/chat_completion_stream_tool_calls_include_usage.sse", "get_capital", r#"{"country":"UK"}"#),
        ("fx-tools-anthropic", Preset::Anthropic, "anthropic/messages_stream_tool_use_input_json_delta.sse", "get_exchange_rate", r#"{"from_currency": "USD", "to_currency": "EUR"}"#),
    ];
    for (scope, preset, fixture, name, arguments) in cases {
        script(scope, serde_json::json!([{ "sse_fixture": fixture, "chunk_bytes": 5 }])).await;
        let (reply, log) = complete(&streaming(scope, preset)).await;
        let reply = reply.unwrap_or_else(|e| panic!("{fixture}: {e}"));
        assert_eq!(reply.tool_calls.len(), 1, "{fixture}");
        assert_eq!((reply.tool_calls[0].name.as_str(), reply.tool_calls[0].arguments.as_str()), (name, arguments), "{fixture}");
        assert!(!reply.tool_calls[0].id.is_empty());
        let live: String = log.iter().filter_map(|l| l.strip_prefix("text:")).collect();
        assert!(live.contains(&format!("→ {name}")), "{fixture}: the call was shown as it streamed: {live}");
    }
}

#[wasm_bindgen_test]
async fn anthropic_streams_and_sends_its_headers() {
    script("st-anthropic", serde_json::json!([{ "text": "Final Answer: from Claude" }])).await;
    let (reply, _) = complete(&streaming("st-anthropic", Preset::Anthropic)).await;
    assert_eq!(reply.unwrap().text, "Final Answer: from Claude");
    let sent = recorded("st-anthropic").await;
    assert_eq!(sent[0]["headers"]["anthropic-dangerous-direct-browser-access"], "true");
    assert_eq!(sent[0]["headers"]["x-api-key"], "sk-web-secret");
    assert_eq!(sent[0]["body"]["system"], serde_json::Value::Null, "no system message in this request");
}

#[wasm_bindgen_test]
async fn rate_limits_are_retried_after_retry_after_and_announced() {
    script("retry-429", serde_json::json!([
        { "status": 429, "fixture": "openai/error_429_rate_limit_exceeded_RECONSTRUCTED.json", "retry_after": 1 },
        { "status": 503, "body": "{}" },
        { "text": "Final Answer: third time lucky" }
    ])).await;
    let (reply, log) = complete(&streaming("retry-429", Preset::OpenAi)).await;
    assert_eq!(reply.unwrap().text, "Final Answer: third time lucky");
    let retries: Vec<_> = log.iter().filter(|l| l.starts_with("retry:")).collect();
    assert_eq!(retries, ["retry:1:1000:HTTP 429", "retry:2:2000:HTTP 503"]);
}

#[wasm_bindgen_test]
async fn anthropic_overload_is_retried_then_reported() {
    let overloaded = serde_json::json!({ "status": 529, "fixture": "anthropic/error_529_overloaded_error_2026.json", "retry_after": 0 });
    script("retry-529", serde_json::json!([overloaded, overloaded])).await;
    let c = connect("retry-529", Preset::Anthropic, true, Connection { max_attempts: 2, ..Connection::default() });
    let (reply, log) = complete(&c).await;
    let err = reply.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Server { status: 529 });
    assert_eq!(log.iter().filter(|l| l.starts_with("retry:")).count(), 1);
}

#[wasm_bindgen_test]
async fn client_errors_are_not_retried_and_say_what_to_do() {
    let cases = [
        ("e404", 404, "ollama/openai_error_404_model_not_found_RECONSTRUCTED.json", LlmErrorKind::NotFound, "base URL and the model name"),
        ("e400", 400, "openai/error_400_context_length_exceeded.json", LlmErrorKind::ContextLength, "History budget"),
        ("e403", 403, "openai/error_401_invalid_api_key.json", LlmErrorKind::Auth, "Check the key"),
    ];
    for (scope, status, fixture, kind, advice) in cases {
        script(scope, serde_json::json!([{ "status": status, "fixture": fixture }])).await;
        let (reply, log) = complete(&streaming(scope, Preset::OpenAi)).await;
        let err = reply.unwrap_err();
        assert_eq!(err.kind, kind, "{scope}");
        assert!(err.message.contains(advice), "{scope}: {}", err.message);
        assert!(!err.message.contains("sk-web-secret"));
        assert!(log.is_empty(), "{scope}: no retry");
    }
}

#[wasm_bindgen_test]
async fn a_stream_cut_off_keeps_what_arrived_and_is_marked_incomplete() {
    script("cut", serde_json::json!([{ "text": "Thought: this reply will be cut off somewhere in the middle", "cut_after": 3 }])).await;
    let (reply, _) = complete(&streaming("cut", Preset::OpenAi)).await;
    let reply = reply.unwrap();
    assert!(reply.incomplete);
    assert_eq!(reply.text, "Thought: this repl");
}

#[wasm_bindgen_test]
async fn silence_times_out_and_aborts_the_request() {
    script("hang", serde_json::json!([{ "hang": true }])).await;
    let c = connect("hang", Preset::OpenAi, true, Connection { timeout_s: 1.0, ..Connection::default() });
    let (reply, _) = complete(&c).await;
    let err = reply.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Timeout);
    assert!(err.message.contains("Request timeout"));
    // The server notices the closed connection a moment later: poll for up to two seconds.
    let mut aborted = false;
    for _ in 0..20 {
        thoughtline::agent::Clock::sleep(&BrowserClock, 100.0).await;
        aborted = recorded("hang").await[0]["aborted"] == true;
        if aborted {
            break;
        }
    }
    assert!(aborted, "the timed-out request was aborted");
}

#[wasm_bindgen_test]
async fn a_provider_that_refuses_streaming_gets_whole_replies() {
    script("nostream", serde_json::json!([{ "reject_stream": true, "text": "Final Answer: whole" }, { "text": "Final Answer: again" }])).await;
    let c = streaming("nostream", Preset::OpenAi);
    let (reply, _) = complete(&c).await;
    assert_eq!(reply.unwrap().text, "Final Answer: whole");
    let (reply, _) = complete(&c).await;
    assert_eq!(reply.unwrap().text, "Final Answer: again");
    let sent = recorded("nostream").await;
    let streams: Vec<_> = sent.iter().map(|r| r["body"]["stream"].clone()).collect();
    assert_eq!(streams, [true, false, false], "falls back once and remembers");
}

#[wasm_bindgen_test]
async fn a_malformed_body_is_a_clear_error() {
    script("garbled", serde_json::json!([{ "status": 200, "body": "<html>proxy error</html>" }])).await;
    let (reply, _) = complete(&client("garbled", Preset::OpenAi, true)).await;
    assert_eq!(reply.unwrap_err().kind, LlmErrorKind::BadResponse);
}

#[wasm_bindgen_test]
async fn the_key_reaches_no_trace_event() {
    use thoughtline::agent::{run_agent, AgentSettings, CancelToken, RunInput};
    script("nokey", serde_json::json!([{ "status": 401, "fixture": "openai/error_401_invalid_api_key.json" }, { "text": "Final Answer: ok" }])).await;
    let model = streaming("nokey", Preset::OpenAi);
    let settings = AgentSettings::default();
    let cancel = CancelToken::new();
    for _ in 0..2 {
        let input = RunInput { question: "q", history: &[], model: &model, tools: &[], settings: &settings, clock: &BrowserClock, cancel: &cancel, answered: None, fork: None };
        let trace = run_agent(input, &()).await;
        let json = thoughtline::storage::event::trace_json(&trace);
        assert!(!json.contains("sk-web-secret"), "{json}");
    }
}

#[wasm_bindgen_test]
async fn a_key_echoed_in_an_error_is_masked() {
    for (scope, preset) in [("echo-openai", Preset::OpenAi), ("echo-anthropic", Preset::Anthropic)] {
        script(scope, serde_json::json!([{ "status": 401, "echo_key": true }])).await;
        let err = client(scope, preset, true).complete(&request(), &|_| {}).await.unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::Auth, "{scope}");
        assert!(!err.message.contains("sk-web-secret"), "{scope}: {}", err.message);
        assert!(err.message.contains("*************"), "{scope}: {}", err.message);
    }
}

#[wasm_bindgen_test]
async fn a_redirect_is_not_followed_and_its_target_is_named() {
    // Anthropic's key travels in x-api-key, which a browser would keep on a redirect.
    let target = format!("{}/s/redir/elsewhere/v1/messages", server());
    script("redir", serde_json::json!([{ "redirect": 307, "location": target }, { "text": "never" }])).await;
    let err = client("redir", Preset::Anthropic, true).complete(&request(), &|_| {}).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Redirected { to: Some(target.clone()) });
    assert!(err.message.contains(&format!("redirect to {target}")), "{}", err.message);
    let resp = BrowserFetch.get(&format!("{}/s/redir/__seen", server()), &[]).await.unwrap();
    let seen: Vec<serde_json::Value> = serde_json::from_str(&resp.body).unwrap();
    for r in seen.iter().filter(|r| r["path"].as_str().unwrap_or("").contains("/elsewhere/")) {
        assert_eq!(r["method"], "GET", "only the bare probe reached the target");
        assert!(!r["headers"].to_string().contains("sk-web-secret"), "{r}");
    }
}

#[wasm_bindgen_test]
async fn an_error_body_that_stalls_ends_at_the_silence_limit() {
    script("stall-401", serde_json::json!([{ "status": 401, "stall_body": true }])).await;
    let c = connect("stall-401", Preset::OpenAi, true, Connection { timeout_s: 1.0, stream: false, ..Connection::default() });
    let (reply, _) = complete(&c).await;
    assert_eq!(reply.unwrap_err().kind, LlmErrorKind::Auth);
}

#[wasm_bindgen_test]
async fn an_endless_stream_is_cut_at_the_size_limit() {
    script("endless", serde_json::json!([{ "endless": true }])).await;
    let c = connect("endless", Preset::OpenAi, true, Connection { max_reply_kb: 64, ..Connection::default() });
    let (reply, log) = complete(&c).await;
    let err = reply.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::TooLarge { limit_kb: 64 });
    assert!(!log.is_empty(), "the text was shown as it came");
}

mod tools {
    //! The real tools through the browser's fetch, against the loopback server's recorded
    //! service responses, with and without CORS headers.
    use super::*;
    use serde_json::json;
    use thoughtline::agent::Tool;
    use thoughtline::tools::{build_tools, ToolSettings};

    fn tool(settings: &ToolSettings, name: &str) -> Box<dyn Tool> {
        build_tools(settings, Rc::new(BrowserFetch), Rc::new(BrowserClock)).into_iter().find(|t| t.name() == name).unwrap()
    }

    async fn call(tool: &dyn Tool, input: serde_json::Value) -> Result<String, thoughtline::agent::ToolError> {
        let model = streaming("tools-model", Preset::OpenAi);
        thoughtline::agent::tool::call_with_model(tool, &input, &model).await
    }

    #[wasm_bindgen_test]
    async fn wikipedia_through_fetch() {
        let mut s = ToolSettings::default();
        s.wikipedia.base_url = format!("{}/s/tw/wikipedia", server());
        let obs = call(tool(&s, "wikipedia").as_ref(), json!("Python")).await.unwrap();
        assert!(obs.contains("Page: Python (programming language)"), "{obs}");
    }

    #[wasm_bindgen_test]
    async fn wikipedia_without_cors_is_an_actionable_error() {
        let mut s = ToolSettings::default();
        s.wikipedia.base_url = format!("{}/nocors/s/tw/wikipedia", server());
        let err = call(tool(&s, "wikipedia").as_ref(), json!("Python")).await.unwrap_err();
        assert!(err.message.contains("Could not reach Wikipedia"), "{}", err.message);
    }

    #[wasm_bindgen_test]
    async fn arxiv_without_cors_falls_back_to_openalex() {
        // No proxy and no dev proxy on the test page: the OpenAlex fallback answers.
        let mut s = ToolSettings::default();
        s.arxiv.openalex_url = format!("{}/s/ta/openalex", server());
        let obs = call(tool(&s, "arxiv").as_ref(), json!("machine learning")).await.unwrap();
        assert!(obs.starts_with("Source: OpenAlex"), "{obs}");
    }

    #[wasm_bindgen_test]
    async fn arxiv_through_the_cors_proxy() {
        let mut s = ToolSettings::default();
        s.cors_proxy = format!("{}/s/tp/proxy?url={{url}}", server());
        let obs = call(tool(&s, "arxiv").as_ref(), json!("testing")).await.unwrap();
        assert!(obs.contains("Title:") && obs.contains("arxiv.org/abs/"), "{obs}");
    }

    #[wasm_bindgen_test]
    async fn duckduckgo_through_the_cors_proxy_and_its_empty_answer() {
        let mut s = ToolSettings::default();
        s.cors_proxy = format!("{}/s/td/proxy?url={{url}}", server());
        let t = tool(&s, "web_search");
        assert!(call(t.as_ref(), json!("Rust programming language")).await.unwrap().contains("Rust"));
        assert!(call(t.as_ref(), json!("zzqx unknown topic")).await.unwrap().contains("No instant answer"));
    }

    #[wasm_bindgen_test]
    async fn calculator_in_the_browser() {
        let s = ToolSettings::default();
        assert_eq!(call(tool(&s, "calculator").as_ref(), json!("2^10")).await.unwrap(), "2^10 = 1024");
    }
}

#[wasm_bindgen_test]
fn the_fatal_banner_is_visible_and_shows_text_only() {
    thoughtline::browser::show_fatal_banner("boom <img src=x onerror=alert(1)>");
    let doc = web_sys::window().unwrap().document().unwrap();
    let banner = doc.query_selector("[data-testid=fatal-banner]").unwrap().expect("banner shown");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(banner.text_content().unwrap().contains("Reload the page"));
    assert!(banner.text_content().unwrap().contains("<img src=x"), "the detail is text");
    assert!(banner.query_selector("img").unwrap().is_none());
}
