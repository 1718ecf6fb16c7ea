//! The stored shapes read back: random values of every type written by serde and read by
//! hand, the struct-level defaults a stored document missing a field gets, the header of an
//! export, versions, and errors that quote no secret.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;
use std::fmt::Debug;

use super::*;
use crate::llm::Connection;
use crate::storage::export::{export_header, exported_chat, ExportedSettings};
use crate::storage::keys::provider_keys;
use crate::storage::lenient::stored_version;
use crate::app::settings::{read_settings, settings_to_json, Settings};
use crate::test_support::Rng;
use crate::tools::mcp::{McpServer, McpSettings};
use crate::tools::ToolSettings;

mod generate;

/// Written by serde, read back by hand: the same value.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) {
    let json = serde_json::to_string(value).unwrap();
    let back: Result<T, String> = serde_json::from_str(&json).map_err(|e| e.to_string());
    assert_eq!(back.as_ref(), Ok(value), "{json}");
}

#[test]
fn random_values_of_every_type_read_back_as_written() {
    let mut rng = Rng::new(404);
    for _ in 0..400 {
        let r = &mut rng;
        round_trip(&ExportedSettings { agent: generate::agent_settings(r), ..ExportedSettings::default() });
        let tools = generate::tool_settings(r);
        round_trip(&tools.wikipedia);
        round_trip(&tools.arxiv);
        round_trip(&tools.web_search);
        round_trip(&tools.web_search.backend);
        round_trip(&tools.calculator);
        round_trip(&generate::mcp_tool(r));
        round_trip(&McpServer { secret: String::new(), client_secret: String::new(), ..generate::mcp_server(r) });
        round_trip(&generate::remembered_secret(r));
        round_trip(&generate::connection(r));
        round_trip(&generate::provider_keys(r));
        round_trip(&generate::exported_settings(r));
        round_trip(&generate::exported_chat(r));
        round_trip(&generate::stored_message(r));
        round_trip(&generate::legacy_chat(r));
        round_trip(&generate::stored_head(r));
        round_trip(&generate::stored_run(r));
        round_trip(&generate::chat_summary(r));
        let mcp = McpSettings { servers: tools.mcp.servers.iter().map(|s| McpServer { secret: String::new(), client_secret: String::new(), ..s.clone() }).collect() };
        round_trip(&ToolSettings { mcp, ..tools });
    }
    round_trip(&crate::agent::settings::EarlyStopping::Generate);
    round_trip(&StoredWho::AskedPerson);
}

#[test]
fn random_settings_read_back_with_their_remembered_secrets() {
    let mut rng = Rng::new(405);
    for _ in 0..300 {
        let settings = generate::settings(&mut rng);
        let json = settings_to_json(&settings);
        let read = read_settings(&json);
        assert!(read.dropped.is_empty() && !read.newer, "{json}");
        assert_eq!(read.settings, settings, "{json}");
        let secrets: Vec<&str> = settings.tools.mcp.servers.iter().map(|s| s.secret.as_str()).collect();
        let back: Vec<&str> = read.settings.tools.mcp.servers.iter().map(|s| s.secret.as_str()).collect();
        assert_eq!(back, secrets, "McpServer's PartialEq does not look at the secret alone");
    }
}

#[test]
fn a_stored_document_missing_a_field_gets_the_structs_default() {
    let read = read_settings(r#"{"version":1,"preset":"ollama","agent":{"temperature":0.25},"connection":{"stream":false}}"#);
    assert!(read.dropped.is_empty());
    let defaults = Settings::default();
    assert_eq!(read.settings.agent.max_iterations, 15, "AgentSettings::default(), not 0");
    assert_eq!(read.settings.agent.temperature, 0.25);
    assert_eq!(read.settings.connection, Connection { stream: false, ..Connection::default() }, "3 attempts, 120 s, not 0");
    assert_eq!(read.settings.provider.base_url, defaults.provider.base_url, "StoredSettings::default()'s, from Settings::default()");
    assert_eq!(read.settings.tools, defaults.tools);
    assert_eq!(read_settings("{}").settings, defaults);

    let chat: LegacyChat = serde_json::from_str(r#"{"id":"c1"}"#).unwrap();
    assert_eq!((chat.version, chat.id.as_str(), chat.running), (2, "c1", false), "a chat's version defaults to 2");
    let run: StoredRun = serde_json::from_str(r#"{"question":"q"}"#).unwrap();
    assert!(run.steps_kept && run.outcome.is_none(), "a run's steps are kept unless it says otherwise");
    let summary: ChatSummary = serde_json::from_str(r#"{"id":"c1","problem":"x"}"#).unwrap();
    assert_eq!(summary, ChatSummary { id: "c1".into(), ..ChatSummary::default() }, "problem is never read");
    let exported: ExportedSettings = serde_json::from_str(r#"{"model":"m"}"#).unwrap();
    assert_eq!(exported, ExportedSettings { model: "m".into(), ..ExportedSettings::default() });
}

#[test]
fn required_fields_and_wrong_values_are_errors_that_name_them() {
    let read = |v: serde_json::Value| legacy_chat(&v).map_err(|e| e.to_string());
    assert_eq!(read(json!({"messages": [{"who": "user"}]})), Err("messages[0].text: missing".into()));
    assert_eq!(read(json!({"messages": [{"who": "person", "text": "t"}]})), Err("messages[0].who: unknown speaker".into()));
    assert_eq!(read(json!({"running": null})), Err("running: expected true or false".into()));
    assert!(read(json!({"trace": [{"index": 0}]})).unwrap_err().starts_with("trace[0]."));
    assert_eq!(chat_summary(&json!({"updated_unix_ms": "now"})).unwrap_err().to_string(), "updated_unix_ms: expected a number");
    let file = json!({"format": "thoughtline.run", "version": 3, "exported_unix_ms": 1, "settings": {}, "runs": [{"question": "q"}]});
    assert_eq!(exported_chat(&file).unwrap_err().to_string(), "runs[0].trace: missing");
    assert_eq!(stored_run(&json!({"outcome": {"kind": "won", "text": "t"}})).unwrap_err().to_string(), "outcome.kind: unknown outcome");
}

#[test]
fn errors_in_shapes_holding_keys_quote_no_key() {
    let key = "sk-ant-secret-0123456789";
    let cases = [
        json!({"saved": [{"provider": "openai", "key": [key]}]}),
        json!({"saved": [{"provider": key}]}),
        json!({"saved": {key: key}}),
        json!({"plain_http_ok": key}),
    ];
    for input in cases {
        let error = provider_keys(&input).unwrap_err().to_string();
        assert!(!error.contains("sk-"), "{error}");
    }
    let stored = format!(r#"{{"keys":{{"saved":[{{"provider":"p","key":7}}]}},"agent":{{"strategy":"{key}"}},"mcp_secrets":[{{"secret":{{"{key}":1}}}}]}}"#);
    let read = read_settings(&stored);
    assert_eq!(read.dropped, ["agent.strategy", "keys.saved[0]", "mcp_secrets[0].secret"], "only paths, never values");
    assert!(read.notice().is_some_and(|n| !n.contains("sk-")));
}

#[test]
fn exports_say_what_they_are_before_they_are_read() {
    assert_eq!(export_header(&json!({})), Ok((String::new(), 0)));
    use crate::storage::import_chat;
    assert!(import_chat("[1]").unwrap_err().starts_with("This file is not a JSON object"));
    assert!(import_chat(r#"{"format":7}"#).unwrap_err().starts_with("This file is not a JSON object (format: expected a string)"));
    assert!(import_chat(r#"{"format":"other"}"#).unwrap_err().contains("not a Thoughtline export"));
    assert!(import_chat(r#"{"format":"thoughtline.run","version":5}"#).unwrap_err().contains("newer Thoughtline"));
    assert!(import_chat(r#"{"format":"thoughtline.run","version":2,"question":"q","settings":{},"trace":{"events":[]}}"#).unwrap().runs.len() == 1);
    assert!(import_chat(r#"{"format":"thoughtline.run","version":2}"#).unwrap_err().starts_with("This export is damaged: question: missing"));
}

#[test]
fn the_stored_version_is_a_whole_number_or_zero() {
    for (json, want) in [(r#"{"version":2,"id":"x"}"#, 2), ("{}", 0), (r#"{"version":"2"}"#, 0), (r#"{"version":-1}"#, 0), ("not json", 0), ("", 0), ("[]", 0)] {
        assert_eq!(stored_version(json), want, "{json}");
    }
}
