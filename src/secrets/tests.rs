use super::*;
use crate::agent::trace::{AnswerSource, LlmPurpose};
use crate::agent::{ChatRequest, LlmErrorKind, Message};
use crate::storage::{export_chat, settings_from_json, settings_to_json};

fn secrets(values: &[&str]) -> Secrets {
    Secrets::new(values.iter().copied())
}

fn check(input: &str, expected: &str) {
    assert_eq!(mask(input, &Secrets::default()), stars(expected), "{input}");
}

/// `expected` with each `*N*` written out as N stars.
fn stars(expected: &str) -> String {
    let mut out = String::new();
    let mut parts = expected.split('*');
    out.push_str(parts.next().unwrap_or(""));
    while let (Some(n), Some(rest)) = (parts.next(), parts.next()) {
        out.push_str(&"*".repeat(n.parse().unwrap()));
        out.push_str(rest);
    }
    out
}

#[test]
fn masks_every_common_key_shape() {
    check("Incorrect API key provided: sk-proj-abcdefghijklmnop1234.", "Incorrect API key provided: sk-*25*.");
    check("key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv_wx-yz rejected", "key sk-*38* rejected");
    check("Invalid API Key gsk_0123456789abcdefABCDEF", "Invalid API Key gsk_*22*");
    check("(xai-0123456789abcdefghij)", "(xai-*20*)");
    check("hf_abcdefghijklmnopqrstu and AIzaSyA-0123456789abcdefghijklmn", "hf_*21* and AIza*28*");
    check("pplx-0123456789abcdef0123 nvapi-0123456789abcdef-XYZ", "pplx-*20* nvapi-*20*");
    check("\"Authorization\": \"Bearer eyJhbGciOi.J9abc123.sig_x\"", "\"Authorization\": \"Bearer *25*\"");
    check("sent bearer  tl-0123456789 twice", "sent bearer  *13* twice");
    // Non-ASCII text around a key stays intact.
    check("Schlüssel «sk-abcdefghijklmnopqrst» ungültig", "Schlüssel «sk-*20*» ungültig");
}

#[test]
fn ordinary_words_are_not_keys() {
    for text in [
        "a task-list and a disk-image",
        "use sk-learn or sk-",
        "risk-free, gsk_short",
        "Bearer token required",
        "Missing bearer authentication header",
        "the Bearer: 12",
        "",
    ] {
        check(text, text);
    }
}

#[test]
fn masks_every_configured_value_wherever_it_appears_keeping_byte_lengths() {
    let s = secrets(&["tl-custom-secret-42", "az-header-value-9", "oa&key/1", "short", "schlüssel-ö"]);
    let text = "key tl-custom-secret-42, header az-header-value-9, url ?api_key=oa%26key%2F1 and oa&key/1, short stays, schlüssel-ö.";
    let masked = mask(text, &s);
    assert_eq!(masked, stars("key *19*, header *17*, url ?api_key=*12* and *8*, short stays, *13*."));
    assert_eq!(masked.len(), text.len(), "byte offsets into the text stay valid");
    // A secret that contains another is removed whole.
    let s = secrets(&["abcdef", "xxabcdefyy"]);
    assert_eq!(mask("1 xxabcdefyy 2 abcdef", &s), stars("1 *10* 2 *6*"));
    // Masking twice changes nothing more.
    let once = mask("sk-abcdefghijklmnopqrstuvwx tl-custom-secret-42", &secrets(&["tl-custom-secret-42"]));
    assert_eq!(mask(&once, &secrets(&["tl-custom-secret-42"])), once);
    assert!(!format!("{:?}", secrets(&["tl-custom-secret-42"])).contains("tl-custom"));
}

fn event(kind: EventKind) -> Event {
    Event { index: 0, step: 1, started_ms: 0.0, ended_ms: 0.0, kind }
}

#[test]
fn events_are_masked_in_every_text_they_hold() {
    let key = "tl-event-secret-7";
    let s = secrets(&[key]);
    let mut request = RequestRecord::whole(&ChatRequest::new(vec![Message::system("rules"), Message::user(format!("my key is {key}"))], 0.0, None));
    request.messages.push(Message::assistant_calls("", vec![crate::agent::model::ToolCall { id: "c".into(), name: "t".into(), arguments: format!("{{\"k\":\"{key}\"}}") }]));
    let mut events = vec![
        event(EventKind::RunStarted { question: key.into(), tools: vec![], history_turns: 0, started_unix_ms: 0.0, strategy: Default::default(), continues: false }),
        event(EventKind::LlmRequest { purpose: LlmPurpose::Step, request }),
        event(EventKind::LlmFailed { error: LlmError::new(LlmErrorKind::Auth, format!("The provider said: \"bad key {key}\"")) }),
        event(EventKind::Decided { thought: Some(key.into()), decision: Decision::Action { tool: "t".into(), input: serde_json::json!({"q": [key]}) }, notes: vec![key.into()] }),
        event(EventKind::ToolResult { tool: "t".into(), observation: format!("…{key}…") }),
        event(EventKind::ToolFailed { tool: "t".into(), message: key.into(), timed_out: false, fed_back: true }),
        event(EventKind::FinalAnswer { answer: key.into(), source: AnswerSource::Model }),
    ];
    mask_events(&mut events, &s);
    let json = serde_json::to_string(&events).unwrap();
    assert!(!json.contains(key), "{json}");
    assert!(json.contains("my key is *****************"), "{json}");
    assert!(json.contains("rules"), "the rest is untouched: {json}");
}

fn configured() -> Settings {
    let mut s = Settings::default();
    s.provider.api_key = "sk-current-provider-key-1".into();
    s.keys.saved.push(SavedKey { provider: "groq https://api.groq.com".into(), key: "gsk_other_provider_key_2".into() });
    s.connection.extra_headers = "HTTP-Referer: https://example.org\napi-key: azure-header-secret-3\nAuthorization: Bearer proxy-token-4\nX-Title: Thoughtline\nnot a header".into();
    s.tools.arxiv.openalex_key = "openalex-key-5".into();
    s
}

#[test]
fn collect_finds_every_secret_the_settings_hold() {
    let found = collect(&configured());
    let text = "sk-current-provider-key-1 gsk_other_provider_key_2 azure-header-secret-3 proxy-token-4 openalex-key-5 https://example.org Thoughtline";
    assert_eq!(mask(text, &found), stars("*25* *24* *21* *13* *14* https://example.org Thoughtline"));
}

#[test]
fn strip_leaves_no_secret_and_keeps_the_rest() {
    let stripped = strip(&configured());
    let debug = format!("{stripped:?}");
    for secret in ["sk-current", "gsk_other", "azure-header", "proxy-token", "openalex-key"] {
        assert!(!debug.contains(secret), "{secret} in {debug}");
    }
    assert_eq!(stripped.connection.extra_headers, "HTTP-Referer: https://example.org\nX-Title: Thoughtline");
    assert!(stripped.keys.saved.is_empty());
    assert_eq!(stripped.provider.model, configured().provider.model);
}

#[test]
fn storage_writes_secrets_only_when_remembered_and_exports_never() {
    let mut s = configured();
    let json = settings_to_json(&s);
    for secret in ["sk-current", "gsk_other", "azure-header", "proxy-token", "openalex-key"] {
        assert!(!json.contains(secret), "{secret} stored without Remember: {json}");
    }
    assert!(json.contains("HTTP-Referer"), "public headers are kept: {json}");
    s.remember_key = true;
    assert_eq!(settings_from_json(&settings_to_json(&s)), s);
    let export = export_chat(&crate::conversation::Conversation::default(), &s, 0.0);
    for secret in ["sk-current", "gsk_other", "azure-header", "proxy-token", "openalex-key"] {
        assert!(!export.contains(secret), "{secret} exported: {export}");
    }
}

#[test]
fn the_provider_masks_what_it_sends() {
    let s = configured();
    let own = of_provider(&s.provider, &s.connection);
    assert_eq!(mask("sk-current-provider-key-1 azure-header-secret-3 openalex-key-5", &own), stars("*25* *21* openalex-key-5"));
}

#[test]
fn origins_are_normalised() {
    assert_eq!(origin("https://API.openai.com/v1/").as_deref(), Some("https://api.openai.com"));
    assert_eq!(origin("https://api.openai.com:443/v1").as_deref(), Some("https://api.openai.com"));
    assert_eq!(origin("http://localhost:80").as_deref(), Some("http://localhost"));
    assert_eq!(origin("http://127.0.0.1:8080/v1?x=1").as_deref(), Some("http://127.0.0.1:8080"));
    assert_eq!(origin("https://user:pw@host.example/v1").as_deref(), Some("https://host.example"));
    assert_eq!(origin(""), None);
    assert_eq!(origin("ftp://x"), None);
    assert_eq!(origin("/relative/v1"), None);
}

#[test]
fn a_key_stays_with_the_provider_it_was_entered_for() {
    let mut s = Settings::default();
    s.provider.api_key = "sk-openai-key-entered-here".into();
    // Another preset: its own (empty) key.
    switch_provider(&mut s, Preset::Groq, Preset::Groq.base_url().into());
    assert_eq!(s.provider.api_key, "");
    s.provider.api_key = "gsk_groq_key_entered_here".into();
    // Same preset, another origin (a local server behind the same preset): empty again.
    switch_provider(&mut s, Preset::Custom, "http://localhost:1234/v1".into());
    assert_eq!(s.provider.api_key, "");
    // Back: each provider shows its own key.
    switch_provider(&mut s, Preset::OpenAi, Preset::OpenAi.base_url().into());
    assert_eq!(s.provider.api_key, "sk-openai-key-entered-here");
    switch_provider(&mut s, Preset::Groq, "https://api.groq.com/openai/v1/".into());
    assert_eq!(s.provider.api_key, "gsk_groq_key_entered_here");
    // Another path on the same origin keeps the key.
    switch_provider(&mut s, Preset::Groq, "https://api.groq.com/v2".into());
    assert_eq!(s.provider.api_key, "gsk_groq_key_entered_here");
    assert!(!format!("{:?}", s.keys).contains("sk-openai"));
}

#[test]
fn plain_http_to_another_machine_needs_consent_per_origin() {
    assert_eq!(plain_http_host("http://192.168.1.20:11434/v1").as_deref(), Some("192.168.1.20"));
    assert_eq!(plain_http_host("http://models.example:8000"), Some("models.example".into()));
    for local in ["http://localhost:11434/v1", "http://127.0.0.1:8080", "http://[::1]:8000/v1", "http://app.localhost", "https://models.example"] {
        assert_eq!(plain_http_host(local), None, "{local}");
    }
    assert_eq!(plain_http_host("http://127.0.0.1.evil.example/"), Some("127.0.0.1.evil.example".into()));

    let mut s = Settings::default();
    switch_provider(&mut s, Preset::Custom, "http://models.example:8000/v1".into());
    assert_eq!(plain_http_warning(&s), None, "no key, nothing to warn about");
    s.provider.api_key = "tl-key-over-http".into();
    assert!(plain_http_warning(&s).unwrap().contains("models.example"));
    allow_plain_http(&mut s, true);
    assert_eq!(plain_http_warning(&s), None);
    assert!(plain_http_allowed(&s));
    // The agreement is for that origin only.
    switch_provider(&mut s, Preset::Custom, "http://other.example/v1".into());
    s.provider.api_key = "tl-key-over-http".into();
    assert!(plain_http_warning(&s).is_some());
}

/// A model that calls the tool once, then answers.
struct TwoSteps(std::cell::Cell<u32>);

impl crate::agent::ChatModel for TwoSteps {
    fn complete<'a>(
        &'a self,
        _request: &'a ChatRequest,
        _progress: &'a dyn Fn(crate::agent::Progress<'_>),
    ) -> crate::agent::LocalBoxFuture<'a, Result<crate::agent::ChatResponse, LlmError>> {
        let n = self.0.get();
        self.0.set(n + 1);
        let text = if n == 0 { "Thought: look.\nAction:\n```json\n{\"action\": \"lookup\", \"action_input\": \"x\"}\n```" } else { "Final Answer: done" };
        Box::pin(async move { Ok(crate::agent::ChatResponse { text: text.into(), ..Default::default() }) })
    }
}

/// A tool whose answer quotes a key, as a tool error quoting its own URL would.
struct Leaky;

impl crate::agent::Tool for Leaky {
    fn name(&self) -> &str {
        "lookup"
    }
    fn description(&self) -> &str {
        "looks things up"
    }
    fn call<'a>(&'a self, _input: &'a serde_json::Value, _cx: &'a crate::agent::ToolContext<'a>) -> crate::agent::LocalBoxFuture<'a, Result<String, crate::agent::ToolError>> {
        Box::pin(async { Ok("found it with api_key=tl-tool-key-99, schlüssel ok".to_string()) })
    }
}

#[test]
fn a_masked_trace_still_rebuilds_every_request_it_sent() {
    use crate::agent::trace::request_at;
    let key = "tl-tool-key-99";
    let (settings, clock, cancel) = (crate::agent::AgentSettings::default(), crate::agent::time::SystemClock::default(), crate::agent::CancelToken::new());
    let tools: Vec<&dyn crate::agent::Tool> = vec![&Leaky];
    let model = TwoSteps(std::cell::Cell::new(0));
    let input = crate::agent::RunInput { question: "q", history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered: None };
    let mut events = pollster::block_on(crate::agent::run_agent(input, &())).events;
    let requests: Vec<usize> = events.iter().enumerate().filter(|(_, e)| matches!(e.kind, EventKind::LlmRequest { .. })).map(|(i, _)| i).collect();
    let last = *requests.last().unwrap();
    assert!(request_at(&events, last).unwrap().messages.iter().any(|m| m.content.contains(key)), "the second request quotes the observation");
    mask_events(&mut events, &secrets(&[key]));
    for at in requests {
        let rebuilt = request_at(&events, at).unwrap_or_else(|e| panic!("request {at}: {e}"));
        let text: String = rebuilt.messages.iter().map(|m| m.content.as_str()).collect();
        assert!(!text.contains(key), "{text}");
        if at == last {
            assert!(text.contains("api_key=**************, schlüssel ok"), "{text}");
        }
    }
}
