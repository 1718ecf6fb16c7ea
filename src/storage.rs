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
    fn garbage_falls_back_to_defaults() {
        assert_eq!(settings_from_json("{not json"), Settings::default());
        let partial = settings_from_json(r#"{"model": "x", "agent": {"max_iterations": 3}}"#);
        assert_eq!(partial.provider.model, "x");
        assert_eq!(partial.agent.max_iterations, 3);
        assert_eq!(partial.agent.observation_limit, 4000);
    }
}
