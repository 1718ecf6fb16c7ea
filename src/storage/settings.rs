//! The person's settings and their stored shape in `localStorage`.
//!
//! Reads are tolerant and versioned: each field that cannot be read falls back alone
//! (`lenient`), and settings written by a newer release are used but never overwritten.
//! Nothing is written back on load: the stored text changes only when the person changes a
//! setting.
//!
//! **Invariant:** secrets (API keys, secret header values, tool keys; see `secrets::strip`) are
//! written only when the person ticked "Remember".

use serde::Serialize;
use serde_json::Value;

use super::error::{StorageError, StorageErrorKind};
use super::lenient::{read_lenient, stored_version};
use super::local;
use crate::storage::agent_settings_read::agent_settings;
use crate::agent::AgentSettings;
use crate::json_read::{boolean, deserialize_via_value, float, list, string, uint32, Fields, Read};
use crate::llm::{Connection, Preset, ProviderConfig};
use super::keys::{provider_keys, ProviderKeys};
use crate::storage::tool_settings_read::{remembered_secret, tool_settings};
use crate::tools::ToolSettings;

pub const SETTINGS_KEY: &str = "thoughtline.settings";
pub const SETTINGS_VERSION: u32 = 1;

/// Everything the person can set. Lives in a signal in the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub provider: ProviderConfig,
    pub remember_key: bool,
    /// Keys entered for other providers (`provider.api_key` is the current one's).
    pub keys: ProviderKeys,
    pub connection: Connection,
    pub agent: AgentSettings,
    pub tools: ToolSettings,
    /// Where finished runs are sent as OpenTelemetry traces, if anywhere.
    pub collector: crate::otel::Collector,
}

impl Settings {
    /// Whether runs may ask for structured output: turned on, and the provider's API takes a
    /// JSON schema (a request it cannot take is never sent). Which strategies use it:
    /// `AgentSettings::structured_output_for`.
    pub fn structured_output(&self) -> bool {
        self.agent.structured_output && self.provider.preset.supports_json_schema()
    }

    /// Whether a run with these settings (their strategy, their provider) asks for structured
    /// output: what the Settings note and Compare's summary say.
    pub fn uses_structured_output(&self) -> bool {
        self.structured_output() && self.agent.structured_output_for(self.agent.strategy)
    }
}

impl Default for Settings {
    fn default() -> Self {
        let preset = Preset::OpenAi;
        Settings {
            provider: ProviderConfig { preset, base_url: preset.base_url().into(), model: preset.default_model().into(), api_key: String::new() },
            remember_key: false,
            keys: ProviderKeys::default(),
            connection: Connection::default(),
            agent: AgentSettings::default(),
            tools: ToolSettings::default(),
            collector: crate::otel::Collector::default(),
        }
    }
}

/// The stored shape, version 1. Read by hand (`stored_settings` below).
#[derive(Serialize)]
struct StoredSettings {
    version: u32,
    preset: String,
    base_url: String,
    model: String,
    remember_key: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_key: Option<String>,
    #[serde(skip_serializing_if = "ProviderKeys::is_empty")]
    keys: ProviderKeys,
    /// Secrets of MCP servers whose own "Remember" box is ticked (`ToolSettings` never
    /// serialises them, so exports cannot carry them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mcp_secrets: Vec<crate::tools::mcp::RememberedSecret>,
    connection: Connection,
    #[serde(serialize_with = "super::agent_settings_read::agent_settings_as_stored")]
    agent: AgentSettings,
    tools: ToolSettings,
    collector: crate::otel::Collector,
}

impl Default for StoredSettings {
    fn default() -> Self {
        StoredSettings::from(&Settings::default())
    }
}

/// A missing field takes its value from `StoredSettings::default()`, `null` is refused but for
/// `api_key`. It holds secrets: its errors name only the field and what was expected (and are
/// never shown: `read_lenient` only names the fields it dropped).
fn stored_settings(value: &Value) -> Read<StoredSettings> {
    let f = Fields::of(value)?;
    let d = StoredSettings::default();
    Ok(StoredSettings {
        version: f.or("version", uint32, d.version)?,
        preset: f.or("preset", string, d.preset)?,
        base_url: f.or("base_url", string, d.base_url)?,
        model: f.or("model", string, d.model)?,
        remember_key: f.or("remember_key", boolean, d.remember_key)?,
        api_key: f.option_or("api_key", string, d.api_key)?,
        keys: f.or("keys", provider_keys, d.keys)?,
        mcp_secrets: f.or("mcp_secrets", |v| list(v, remembered_secret), d.mcp_secrets)?,
        connection: f.or("connection", connection, d.connection)?,
        agent: f.or("agent", agent_settings, d.agent)?,
        tools: f.or("tools", tool_settings, d.tools)?,
        collector: f.or("collector", collector, d.collector)?,
    })
}

fn collector(value: &Value) -> Read<crate::otel::Collector> {
    let f = Fields::of(value)?;
    let d = crate::otel::Collector::default();
    Ok(crate::otel::Collector {
        endpoint: f.or("endpoint", string, d.endpoint)?,
        header_name: f.or("header_name", string, d.header_name)?,
        header_value: f.or("header_value", string, d.header_value)?,
    })
}

pub(crate) fn connection(value: &Value) -> Read<Connection> {
    let f = Fields::of(value)?;
    let d = Connection::default();
    Ok(Connection {
        stream: f.or("stream", boolean, d.stream)?,
        timeout_s: f.or("timeout_s", float, d.timeout_s)?,
        max_attempts: f.or("max_attempts", uint32, d.max_attempts)?,
        extra_headers: f.or("extra_headers", string, d.extra_headers)?,
        max_reply_kb: f.or("max_reply_kb", uint32, d.max_reply_kb)?,
        context_tokens: f.or("context_tokens", uint32, d.context_tokens)?,
    })
}

deserialize_via_value! { StoredSettings => stored_settings, Connection => connection }

impl From<&Settings> for StoredSettings {
    fn from(s: &Settings) -> Self {
        // Each MCP server has its own "Remember" box, apart from the API key's.
        let mcp_secrets = s.tools.mcp.remembered_secrets();
        let stripped;
        let s = if s.remember_key { s } else { stripped = super::keys::strip(s); &stripped };
        StoredSettings {
            version: SETTINGS_VERSION,
            preset: s.provider.preset.id().into(),
            base_url: s.provider.base_url.clone(),
            model: s.provider.model.clone(),
            remember_key: s.remember_key,
            api_key: (!s.provider.api_key.is_empty()).then(|| s.provider.api_key.clone()),
            keys: s.keys.clone(),
            mcp_secrets,
            connection: s.connection.clone(),
            agent: s.agent.clone(),
            tools: s.tools.clone(),
            collector: s.collector.clone(),
        }
    }
}

pub fn settings_to_json(settings: &Settings) -> String {
    serde_json::to_string(&StoredSettings::from(settings)).unwrap_or_default()
}

/// Settings as read from storage, with what could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSettings {
    pub settings: Settings,
    /// Fields that could not be read and use their defaults, e.g. `agent.strategy`.
    pub dropped: Vec<String>,
    /// Written by a newer release: use them, never write over them.
    pub newer: bool,
    /// The browser refuses the page its storage: the defaults are used and nothing is kept.
    pub unavailable: Option<StorageError>,
}

impl LoadedSettings {
    /// A sentence for the settings notice, or `None` when everything was read.
    pub fn notice(&self) -> Option<String> {
        if let Some(e) = &self.unavailable {
            Some(format!("Settings cannot be read or kept in this browser, so the defaults are used and what you change applies on this page until it is closed. {e}"))
        } else if self.newer {
            Some(format!(
                "These settings were saved by a newer version of Thoughtline. They are used here, but changes are not saved, so the newer page keeps its own. ({})",
                StorageError::new(StorageErrorKind::Newer, "").advice()
            ))
        } else if !self.dropped.is_empty() {
            Some(format!(
                "Some saved settings could not be read and use their defaults: {}. The rest were kept.",
                self.dropped.join(", ")
            ))
        } else {
            None
        }
    }
}

/// Reads stored settings; anything unreadable falls back to its default, field by field.
pub fn read_settings(json: &str) -> LoadedSettings {
    let newer = stored_version(json) > SETTINGS_VERSION;
    let (stored, dropped) = match read_lenient::<StoredSettings>(json) {
        Ok(read) => (read.value, read.dropped),
        Err(_) => (StoredSettings::default(), vec!["all (the stored text is not JSON)".to_string()]),
    };
    // A preset this release does not know keeps its URL and model as a custom provider.
    let preset = Preset::from_id(&stored.preset).unwrap_or(Preset::Custom);
    let mut tools = stored.tools;
    tools.mcp.restore_secrets(stored.mcp_secrets);
    let settings = Settings {
        provider: ProviderConfig { preset, base_url: stored.base_url, model: stored.model, api_key: stored.api_key.unwrap_or_default() },
        remember_key: stored.remember_key,
        keys: stored.keys,
        connection: stored.connection,
        agent: stored.agent,
        tools,
        collector: stored.collector,
    };
    LoadedSettings { settings, dropped, newer, unavailable: None }
}

pub fn settings_from_json(json: &str) -> Settings {
    read_settings(json).settings
}

/// Loads the saved settings, or the defaults when there are none.
pub fn load_settings() -> LoadedSettings {
    if let Err(e) = local::available() {
        return LoadedSettings { settings: Settings::default(), dropped: Vec::new(), newer: false, unavailable: Some(e) };
    }
    match local::read(SETTINGS_KEY) {
        Some(json) => read_settings(&json),
        None => LoadedSettings { settings: Settings::default(), dropped: Vec::new(), newer: false, unavailable: None },
    }
}

pub fn save_settings(settings: &Settings) -> Result<(), StorageError> {
    local::write(SETTINGS_KEY, &settings_to_json(settings))
}

pub const THEME_KEY: &str = "thoughtline.theme";

/// "light", "dark", or "" to follow the operating system.
pub fn load_theme() -> String {
    local::read(THEME_KEY).filter(|t| t == "light" || t == "dark").unwrap_or_default()
}

/// A theme that cannot be saved only costs the choice after a reload.
pub fn save_theme(theme: &str) -> Result<(), StorageError> {
    local::write(THEME_KEY, theme)
}
