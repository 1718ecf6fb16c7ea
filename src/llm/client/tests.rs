//! Tests of the requests `Provider` builds for each API (headers, key, body) and of its error
//! messages.

use super::*;
use crate::agent::time::SystemClock;
use crate::agent::{LocalBoxFuture, Message};
use crate::net::{FetchFailed, HttpRequest, HttpResponse, Streaming};

/// These tests only build requests and messages; nothing is sent.
struct NoNetwork;

impl Fetch for NoNetwork {
    fn get<'a>(&'a self, url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(async move { Err(FetchFailed(format!("no network in these tests: {url}"))) })
    }
    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        Box::pin(async move { Err(FetchFailed(format!("no network in these tests: {}", request.url))) })
    }
}

fn provider(preset: Preset, key: &str) -> Provider {
    let config = ProviderConfig { preset, base_url: preset.base_url().into(), model: "m".into(), api_key: key.into() };
    Provider::new(config, Connection::default(), Rc::new(NoNetwork), Rc::new(SystemClock::default()))
}

fn request() -> ChatRequest {
    ChatRequest { stop: vec!["Observation:".into()], ..ChatRequest::new(vec![Message::system("rules"), Message::user("hi")], 0.0, None) }
}

#[test]
fn openai_presets_send_the_key_only_as_a_bearer_header() {
    let parts = provider(Preset::OpenAi, "sk-abc").http_parts(&request(), true);
    assert_eq!(parts.url, "https://api.openai.com/v1/chat/completions");
    assert!(parts.headers.contains(&("Authorization".into(), "Bearer sk-abc".into())));
    assert!(!parts.body.contains("sk-abc"));
    let body: serde_json::Value = serde_json::from_str(&parts.body).unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert!(provider(Preset::Ollama, "").http_parts(&request(), false).headers.iter().all(|(k, _)| k != "Authorization"));
}

#[test]
fn anthropic_maps_system_and_sends_the_browser_header() {
    let parts = provider(Preset::Anthropic, "sk-ant").http_parts(&request(), false);
    assert_eq!(parts.url, "https://api.anthropic.com/v1/messages");
    assert!(parts.headers.contains(&("anthropic-dangerous-direct-browser-access".into(), "true".into())));
    assert!(parts.headers.contains(&("x-api-key".into(), "sk-ant".into())));
    let body: serde_json::Value = serde_json::from_str(&parts.body).unwrap();
    assert_eq!(body["system"], "rules");
    assert_eq!(body["stop_sequences"], serde_json::json!(["Observation:"]));
    assert!(!parts.body.contains("sk-ant"));
}

#[test]
fn extra_headers_are_added_and_malformed_lines_skipped() {
    let mut p = provider(Preset::OpenRouter, "k");
    p.connection.extra_headers = "HTTP-Referer: https://example.org\nnot a header\nX-Title:  Thoughtline \n: empty".into();
    let headers = p.http_parts(&request(), false).headers;
    assert!(headers.contains(&("HTTP-Referer".into(), "https://example.org".into())));
    assert!(headers.contains(&("X-Title".into(), "Thoughtline".into())));
    assert_eq!(headers.len(), 4);
}

#[test]
fn network_errors_name_the_setting_to_fix() {
    assert!(provider(Preset::Ollama, "").network_error().message.contains("OLLAMA_ORIGINS"));
    assert!(provider(Preset::Anthropic, "k").network_error().message.contains("https://api.anthropic.com/v1/messages"));
    assert!(provider(Preset::LlamaCpp, "").timeout_error(false).message.contains("Request timeout"));
    // Offline is said as such, not blamed on CORS.
    let offline = provider(Preset::OpenAi, "k").unreachable(&crate::net::FetchFailed::offline()).message;
    assert!(offline.starts_with("This browser is offline, so https://api.openai.com/"), "{offline}");
    assert!(!offline.contains("CORS"));
    let other = provider(Preset::OpenAi, "k").unreachable(&crate::net::FetchFailed("TypeError: Failed to fetch".into()));
    assert_eq!(other, provider(Preset::OpenAi, "k").network_error());
}

#[test]
fn errors_follow_the_presets_api() {
    let e = provider(Preset::Anthropic, "k").error_for(529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
    assert_eq!(e.kind, LlmErrorKind::Server { status: 529 });
    let e = provider(Preset::OpenAi, "k").error_for(401, "{}");
    assert_eq!(e.kind, LlmErrorKind::Auth);
}

#[test]
fn the_provider_masks_what_it_sends() {
    use crate::secrets::{mask, tests::stars};
    let mut s = crate::app::settings::Settings::default();
    s.provider.api_key = "sk-current-provider-key-1".into();
    s.connection.extra_headers = "HTTP-Referer: https://example.org\napi-key: azure-header-secret-3".into();
    let own = provider_secrets(&s.provider, &s.connection);
    assert_eq!(mask("sk-current-provider-key-1 azure-header-secret-3 openalex-key-5", &own), stars("*25* *21* openalex-key-5"));
}

