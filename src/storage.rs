//! The only code that touches `localStorage`. Stored values have their own versioned shapes
//! here, apart from the UI's types, so changing the UI never silently breaks saved data.
//!
//! **Invariant:** the API key is written only when the person ticked "Remember key".

use serde::{Deserialize, Serialize};

use crate::agent::AgentSettings;
use crate::llm::{Connection, Preset, ProviderConfig};
use crate::tools::ToolSettings;

pub const SETTINGS_KEY: &str = "thoughtline.settings";
const SETTINGS_VERSION: u32 = 1;

/// Everything the person can set. Lives in a signal in the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub provider: ProviderConfig,
    pub remember_key: bool,
    pub connection: Connection,
    pub agent: AgentSettings,
    pub tools: ToolSettings,
}

impl Default for Settings {
    fn default() -> Self {
        let preset = Preset::OpenAi;
        Settings {
            provider: ProviderConfig { preset, base_url: preset.base_url().into(), model: preset.default_model().into(), api_key: String::new() },
            remember_key: false,
            connection: Connection::default(),
            agent: AgentSettings::default(),
            tools: ToolSettings::default(),
        }
    }
}

/// The stored shape, version 1.
#[derive(Serialize, Deserialize)]
#[serde(default)]
struct StoredSettings {
    version: u32,
    preset: String,
    base_url: String,
    model: String,
    remember_key: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_key: Option<String>,
    connection: Connection,
    agent: AgentSettings,
    tools: ToolSettings,
}

impl Default for StoredSettings {
    fn default() -> Self {
        StoredSettings::from(&Settings::default())
    }
}

impl From<&Settings> for StoredSettings {
    fn from(s: &Settings) -> Self {
        StoredSettings {
            version: SETTINGS_VERSION,
            preset: s.provider.preset.id().into(),
            base_url: s.provider.base_url.clone(),
            model: s.provider.model.clone(),
            remember_key: s.remember_key,
            api_key: (s.remember_key && !s.provider.api_key.is_empty()).then(|| s.provider.api_key.clone()),
            connection: s.connection.clone(),
            agent: s.agent.clone(),
            tools: s.tools.clone(),
        }
    }
}

pub fn settings_to_json(settings: &Settings) -> String {
    serde_json::to_string(&StoredSettings::from(settings)).unwrap_or_default()
}

/// Reads stored settings; anything unreadable falls back to the defaults, field by field.
pub fn settings_from_json(json: &str) -> Settings {
    let stored: StoredSettings = serde_json::from_str(json).unwrap_or_default();
    let preset = Preset::from_id(&stored.preset).unwrap_or(Preset::Custom);
    Settings {
        provider: ProviderConfig { preset, base_url: stored.base_url, model: stored.model, api_key: stored.api_key.unwrap_or_default() },
        remember_key: stored.remember_key,
        connection: stored.connection,
        agent: stored.agent,
        tools: stored.tools,
    }
}

pub const EXPORT_FORMAT: &str = "thoughtline.run";
const EXPORT_VERSION: u32 = 1;

/// The settings a run used, as exported: everything but the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExportedSettings {
    pub preset: String,
    pub base_url: String,
    pub model: String,
    pub connection: Connection,
    pub agent: AgentSettings,
    pub tools: ToolSettings,
}

impl Default for ExportedSettings {
    fn default() -> Self {
        ExportedSettings::from(&Settings::default())
    }
}

impl From<&Settings> for ExportedSettings {
    fn from(s: &Settings) -> Self {
        ExportedSettings {
            preset: s.provider.preset.id().into(),
            base_url: s.provider.base_url.clone(),
            model: s.provider.model.clone(),
            connection: s.connection.clone(),
            agent: s.agent.clone(),
            tools: s.tools.clone(),
        }
    }
}

/// One run as a file a person can keep, share and open again without any key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedRun {
    pub format: String,
    pub version: u32,
    pub exported_unix_ms: f64,
    pub question: String,
    pub answer: Option<String>,
    pub settings: ExportedSettings,
    pub trace: crate::agent::Trace,
}

pub fn export_run(trace: &crate::agent::Trace, settings: &Settings, now_unix_ms: f64) -> String {
    let question = trace
        .events
        .iter()
        .find_map(|e| match &e.kind {
            crate::agent::EventKind::RunStarted { question, .. } => Some(question.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let run = ExportedRun {
        format: EXPORT_FORMAT.into(),
        version: EXPORT_VERSION,
        exported_unix_ms: now_unix_ms.round(),
        question,
        answer: trace.final_answer().map(str::to_string),
        settings: ExportedSettings::from(settings),
        trace: trace.clone(),
    };
    serde_json::to_string_pretty(&run).unwrap_or_default()
}

/// Reads an exported run, saying what is wrong with a file that is not one.
pub fn import_run(json: &str) -> Result<ExportedRun, String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("This file is not JSON ({e})."))?;
    if value["format"] != EXPORT_FORMAT {
        return Err("This JSON file is not a Thoughtline run export (its \"format\" is not \"thoughtline.run\").".into());
    }
    if value["version"].as_u64().unwrap_or(0) > EXPORT_VERSION as u64 {
        return Err("This run was exported by a newer Thoughtline; update the page to open it.".into());
    }
    serde_json::from_value(value).map_err(|e| format!("This run export is damaged: {e}."))
}

#[cfg(target_arch = "wasm32")]
fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Loads the saved settings, or the defaults when there are none.
pub fn load_settings() -> Settings {
    #[cfg(target_arch = "wasm32")]
    if let Some(json) = local_storage().and_then(|s| s.get_item(SETTINGS_KEY).ok().flatten()) {
        return settings_from_json(&json);
    }
    Settings::default()
}

/// Saves settings; storage may be full or disabled (private mode), which only costs persistence.
pub fn save_settings(settings: &Settings) {
    #[cfg(target_arch = "wasm32")]
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(SETTINGS_KEY, &settings_to_json(settings));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = settings;
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn exported_runs_round_trip_without_the_key() {
        use crate::agent::trace::{Event, EventKind, StopReason};
        let events = vec![
            Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::RunStarted { question: "Who?".into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0 } },
            Event { index: 1, step: 1, started_ms: 1.0, ended_ms: 2.5, kind: EventKind::FinalAnswer { answer: "Ada".into(), source: crate::agent::trace::AnswerSource::Model } },
            Event { index: 2, step: 1, started_ms: 2.5, ended_ms: 2.5, kind: EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() } },
        ];
        let trace = crate::agent::Trace { events };
        let json = export_run(&trace, &with_key(true), 1000.0);
        assert!(!json.contains("sk-live-abc"), "{json}");
        let back = import_run(&json).unwrap();
        assert_eq!(back.trace, trace);
        assert_eq!(back.question, "Who?");
        assert_eq!(back.answer.as_deref(), Some("Ada"));
        assert_eq!(back.settings.model, "my-model");
    }

    #[test]
    fn importing_something_else_says_what_is_wrong() {
        assert!(import_run("nope").unwrap_err().contains("not JSON"));
        assert!(import_run("{\"a\": 1}").unwrap_err().contains("not a Thoughtline run export"));
        assert!(import_run(r#"{"format": "thoughtline.run", "version": 99}"#).unwrap_err().contains("newer"));
        assert!(import_run(r#"{"format": "thoughtline.run", "version": 1}"#).unwrap_err().contains("damaged"));
    }

    #[test]
    fn garbage_falls_back_to_defaults() {
        assert_eq!(settings_from_json("{not json"), Settings::default());
        let partial = settings_from_json(r#"{"model": "x", "agent": {"max_iterations": 3}}"#);
        assert_eq!(partial.provider.model, "x");
        assert_eq!(partial.agent.max_iterations, 3);
        assert_eq!(partial.agent.observation_limit, 4000);
    }
}
