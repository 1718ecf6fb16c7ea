//! Where secrets live in the settings, what storage and exports keep of them, and the rules a
//! key follows.

use super::*;
use crate::secrets::mask;
use crate::secrets::tests::stars;
use super::super::{settings_from_json, settings_to_json};
use crate::storage::keys::SavedKey;
use crate::storage::{export_chat, ExportedSettings};

fn configured() -> Settings {
    let mut s = Settings::default();
    s.provider.api_key = "sk-current-provider-key-1".into();
    s.keys.saved.push(SavedKey { provider: "groq https://api.groq.com".into(), key: "gsk_other_provider_key_2".into() });
    s.connection.extra_headers = "HTTP-Referer: https://example.org\napi-key: azure-header-secret-3\nAuthorization: Bearer proxy-token-4\nX-Title: Thoughtline\nnot a header".into();
    s.tools.arxiv.openalex_key = "openalex-key-5".into();
    s.collector = crate::base::Collector { endpoint: "https://otel.example.org".into(), header_name: "Authorization".into(), header_value: "Basic collector-6".into() };
    s
}

#[test]
fn collect_finds_every_secret_the_settings_hold() {
    let found = collect(&configured());
    let text = "sk-current-provider-key-1 gsk_other_provider_key_2 azure-header-secret-3 proxy-token-4 openalex-key-5 Basic collector-6 https://example.org Thoughtline";
    assert_eq!(mask(text, &found), stars("*25* *24* *21* *13* *14* *17* https://example.org Thoughtline"));
}

#[test]
fn strip_leaves_no_secret_and_keeps_the_rest() {
    let stripped = strip(&configured());
    let debug = format!("{stripped:?}");
    for secret in ["sk-current", "gsk_other", "azure-header", "proxy-token", "openalex-key", "collector-6"] {
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
    for secret in ["sk-current", "gsk_other", "azure-header", "proxy-token", "openalex-key", "collector-6"] {
        assert!(!json.contains(secret), "{secret} stored without Remember: {json}");
    }
    assert!(json.contains("HTTP-Referer"), "public headers are kept: {json}");
    s.remember_key = true;
    assert_eq!(settings_from_json(&settings_to_json(&s)), s);
    let export = export_chat(&crate::conversation::Conversation::default(), &ExportedSettings::from(&s), 0.0);
    for secret in ["sk-current", "gsk_other", "azure-header", "proxy-token", "openalex-key", "collector-6"] {
        assert!(!export.contains(secret), "{secret} exported: {export}");
    }
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
