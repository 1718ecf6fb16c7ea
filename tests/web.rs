//! Browser tests (wasm-bindgen-test in headless Chromium): the code that needs a real browser,
//! i.e. fetch, localStorage and mounting the app. The loopback server's address comes from
//! THOUGHTLINE_TEST_SERVER at compile time; scripts/test starts the server and sets it.
#![cfg(target_arch = "wasm32")]

use thoughtline::agent::{ChatModel, ChatRequest, LlmErrorKind, Message};
use thoughtline::net::browser as http;
use thoughtline::llm::openai::OpenAiCompatible;
use thoughtline::llm::{Preset, ProviderConfig};
use thoughtline::storage::{load_settings, save_settings, Settings, SETTINGS_KEY};
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
    save_settings(&s);
    let raw = local_storage().get_item(SETTINGS_KEY).unwrap().unwrap();
    assert!(!raw.contains("sk-browser-secret"));
    let back = load_settings();
    assert_eq!(back.provider.model, "stored-model");
    assert_eq!(back.provider.api_key, "");

    s.remember_key = true;
    save_settings(&s);
    assert_eq!(load_settings().provider.api_key, "sk-browser-secret");
    local_storage().clear().unwrap();
}

#[wasm_bindgen_test]
async fn fetch_reads_status_body_and_headers() {
    let url = format!("{}/s/web/echo/201", server());
    let resp = http::post(&url, &[("Authorization", "Bearer abc".into())], "{\"x\":1}").await.unwrap();
    assert_eq!(resp.status, 201);
    assert_eq!(resp.retry_after.as_deref(), Some("7"));
    let echoed: serde_json::Value = serde_json::from_str(&resp.body).unwrap();
    assert_eq!(echoed["auth"], "Bearer abc");
    assert_eq!(echoed["body"], "{\"x\":1}");
}

#[wasm_bindgen_test]
async fn fetch_to_a_closed_port_fails_without_panicking() {
    assert!(http::post("http://127.0.0.1:9/v1/chat/completions", &[], "{}").await.is_err());
}

#[wasm_bindgen_test]
async fn a_response_without_cors_headers_is_a_fetch_failure() {
    let url = format!("{}/nocors/s/web/echo/200", server());
    assert!(http::post(&url, &[], "{}").await.is_err());
}

async fn script(scope: &str, replies: serde_json::Value) {
    let url = format!("{}/s/{scope}/__script", server());
    let resp = http::post(&url, &[], &serde_json::json!({ "replies": replies }).to_string()).await.unwrap();
    assert_eq!(resp.status, 204);
}

fn client(scope: &str, preset: Preset, cors: bool) -> OpenAiCompatible {
    let prefix = if cors { "" } else { "/nocors" };
    OpenAiCompatible {
        config: ProviderConfig { preset, base_url: format!("{}{prefix}/s/{scope}/v1", server()), model: "m".into(), api_key: "sk-web".into() },
    }
}

fn request() -> ChatRequest {
    ChatRequest { messages: vec![Message::user("hi")], stop: vec!["Observation:".into()], temperature: 0.0, max_tokens: None }
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
    for id in ["composer", "messages", "trace", "settings-toggle"] {
        assert!(doc.query_selector(&format!("[data-testid={id}]")).unwrap().is_some(), "missing {id}");
    }
}
