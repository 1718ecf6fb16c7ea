//! The settings model: what is stored of it (secrets only when remembered), what an
//! unreadable or newer stored text gives, what an export carries, and when structured output
//! is asked for.

use super::*;
use crate::conversation::Conversation;
use crate::storage::export_chat;

fn with_key(remember: bool) -> Settings {
    let mut s = Settings::default();
    s.provider.api_key = "sk-live-abc".into();
    s.provider.model = "my-model".into();
    s.remember_key = remember;
    s.agent.temperature = 0.7;
    s
}

#[test]
fn key_is_not_stored_unless_remembered() {
    let json = settings_to_json(&with_key(false));
    assert!(!json.contains("sk-live-abc"), "{json}");
    let back = settings_from_json(&json);
    assert_eq!(back.provider.api_key, "");
    assert_eq!(back.provider.model, "my-model");
    assert_eq!(back.agent.temperature, 0.7);
}

#[test]
fn key_round_trips_when_remembered() {
    let s = with_key(true);
    assert_eq!(settings_from_json(&settings_to_json(&s)), s);
}

#[test]
fn garbage_falls_back_to_defaults() {
    assert_eq!(settings_from_json("{not json"), Settings::default());
    let partial = settings_from_json(r#"{"model": "x", "agent": {"max_iterations": 3}}"#);
    assert_eq!(partial.provider.model, "x");
    assert_eq!(partial.agent.max_iterations, 3);
    assert_eq!(partial.agent.observation_limit, 4000);
}

#[test]
fn one_unreadable_setting_costs_only_that_setting() {
    let mut s = with_key(true);
    s.agent.max_iterations = 7;
    s.connection.timeout_s = 33.0;
    let json = settings_to_json(&s);
    // A wrong type deep inside, and an enum value this release does not know.
    let damaged = json.replace("\"max_iterations\":7", "\"max_iterations\":\"seven\"").replace("\"strategy\":\"react\"", "\"strategy\":\"tree_of_thought\"");
    assert_ne!(damaged, json);
    let read = read_settings(&damaged);
    assert_eq!(read.settings.provider.api_key, "sk-live-abc", "the remembered key survives");
    assert_eq!(read.settings.provider.model, "my-model");
    assert_eq!(read.settings.connection.timeout_s, 33.0);
    assert_eq!(read.settings.agent.temperature, 0.7, "the neighbours of the bad field survive");
    assert_eq!(read.settings.agent.max_iterations, crate::agent::AgentSettings::default().max_iterations);
    assert_eq!(read.settings.agent.strategy, crate::agent::Strategy::React);
    assert_eq!(read.dropped, vec!["agent.max_iterations".to_string(), "agent.strategy".to_string()]);
    assert!(read.notice().unwrap().contains("agent.max_iterations"));
    assert!(!read.newer);
}

#[test]
fn settings_from_a_newer_release_are_used_but_flagged() {
    let json = settings_to_json(&with_key(true)).replace("\"version\":1", "\"version\":9");
    let read = read_settings(&json);
    assert!(read.newer);
    assert_eq!(read.settings.provider.model, "my-model");
    assert!(read.notice().unwrap().contains("newer version"));
}

#[test]
fn mcp_secrets_are_stored_only_when_remembered_never_exported_and_masked() {
    use crate::tools::mcp::McpServer;
    let mut s = Settings::default();
    let server = |url: &str, secret: &str, remember| McpServer { url: url.into(), secret: secret.into(), remember_secret: remember, ..Default::default() };
    s.tools.mcp.servers = vec![server("https://a.test/mcp", "tok-kept-1", true), server("https://b.test/mcp", "tok-memory-2", false)];
    let json = settings_to_json(&s);
    assert!(json.contains("tok-kept-1") && !json.contains("tok-memory-2"), "{json}");
    let back = settings_from_json(&json);
    assert_eq!(back.tools.mcp.servers[0].secret, "tok-kept-1");
    assert_eq!(back.tools.mcp.servers[1].secret, "");
    assert_eq!(back.tools.mcp.servers[1].url, "https://b.test/mcp");
    let export = export_chat(&Conversation::default(), &ExportedSettings::from(&s), 0.0);
    assert!(export.contains("https://a.test/mcp") && !export.contains("tok-kept-1") && !export.contains("tok-memory-2"), "{export}");
    let masked = crate::secrets::mask("server said tok-memory-2 and tok-kept-1", &keys::collect(&s));
    assert!(!masked.contains("tok-"), "{masked}");
}

#[test]
fn structured_output_is_asked_for_only_where_the_api_takes_a_schema() {
    let mut s = Settings::default();
    assert!(!s.structured_output(), "off by default");
    s.agent.structured_output = true;
    assert!(s.structured_output(), "OpenAI takes a JSON schema");
    s.provider.preset = crate::llm::Preset::Anthropic;
    assert!(!s.structured_output(), "Anthropic's Messages API has no response_format");
    assert!(s.agent.structured_output_for(crate::agent::Strategy::React));
    assert!(!s.agent.structured_output_for(crate::agent::Strategy::PlanReact));
    // What a run with these settings does, as the Settings note and Compare say it.
    assert!(!s.uses_structured_output(), "not with Anthropic");
    s.provider.preset = crate::llm::Preset::OpenAi;
    s.agent.strategy = crate::agent::Strategy::React;
    assert!(s.uses_structured_output());
    s.agent.strategy = crate::agent::Strategy::ToolCalling;
    assert!(!s.uses_structured_output(), "ReAct only");
}


#[test]
fn an_export_carries_the_settings_without_the_key() {
    let json = export_chat(&Conversation::default(), &ExportedSettings::from(&with_key(true)), 1000.0);
    assert!(!json.contains("sk-live-abc"), "{json}");
    assert!(json.contains("my-model"), "{json}");
}
