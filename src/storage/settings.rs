//! The settings' stored shape in `localStorage` (the model, what a person can set and the
//! rules of its secrets, is the app's: `app::settings`).
//!
//! Reads are tolerant and versioned: each field that cannot be read falls back alone
//! (`lenient`) to its default, and the version says whether a newer release wrote them.
//! Nothing is written back on load.

use serde::Serialize;
use serde_json::Value;

use super::error::StorageError;
use super::lenient::{read_lenient, stored_version};
use super::local;
use crate::storage::agent_settings_read::agent_settings;
use crate::agent::AgentSettings;
use crate::json_read::{boolean, deserialize_via_value, float, list, string, uint32, Fields, Read};
use crate::llm::{Connection, ProviderConfig};
use super::keys::{provider_keys, ProviderKeys};
use crate::storage::tool_settings_read::{remembered_secret, tool_settings};
use crate::tools::ToolSettings;

pub const SETTINGS_KEY: &str = "thoughtline.settings";
pub const SETTINGS_VERSION: u32 = 1;

/// The stored shape, version 1. Read by hand (`stored_settings` below); written only with
/// the secrets the person asked to be remembered (`app::settings`).
#[derive(Clone, Serialize)]
pub struct StoredSettings {
    pub version: u32,
    pub preset: String,
    pub base_url: String,
    pub model: String,
    pub remember_key: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(skip_serializing_if = "ProviderKeys::is_empty")]
    pub keys: ProviderKeys,
    /// Secrets of MCP servers whose own "Remember" box is ticked (`ToolSettings` never
    /// serialises them, so exports cannot carry them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_secrets: Vec<crate::tools::mcp::RememberedSecret>,
    pub connection: Connection,
    #[serde(serialize_with = "super::agent_settings_read::agent_settings_as_stored")]
    pub agent: AgentSettings,
    pub tools: ToolSettings,
    pub collector: crate::base::Collector,
}

/// What a first visit starts with: each part's own default.
impl Default for StoredSettings {
    fn default() -> Self {
        let provider = ProviderConfig::default();
        StoredSettings {
            version: SETTINGS_VERSION,
            preset: provider.preset.id().into(),
            base_url: provider.base_url,
            model: provider.model,
            remember_key: false,
            api_key: None,
            keys: ProviderKeys::default(),
            mcp_secrets: Vec::new(),
            connection: Connection::default(),
            agent: AgentSettings::default(),
            tools: ToolSettings::default(),
            collector: crate::base::Collector::default(),
        }
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

fn collector(value: &Value) -> Read<crate::base::Collector> {
    let f = Fields::of(value)?;
    let d = crate::base::Collector::default();
    Ok(crate::base::Collector {
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

/// Stored settings as read: what could be read, the fields that could not (they took their
/// defaults), and whether a newer release wrote them.
pub struct ReadStored {
    pub stored: StoredSettings,
    pub dropped: Vec<String>,
    pub newer: bool,
}

/// Reads stored settings; anything unreadable falls back to its default, field by field.
pub fn read_stored(json: &str) -> ReadStored {
    let newer = stored_version(json) > SETTINGS_VERSION;
    match read_lenient::<StoredSettings>(json) {
        Ok(read) => ReadStored { stored: read.value, dropped: read.dropped, newer },
        Err(_) => ReadStored { stored: StoredSettings::default(), dropped: vec!["all (the stored text is not JSON)".to_string()], newer },
    }
}

/// The stored text, if any; the error when the browser refuses the page its storage.
pub fn read_text() -> Result<Option<String>, StorageError> {
    local::available()?;
    Ok(local::read(SETTINGS_KEY))
}

pub fn write(stored: &StoredSettings) -> Result<(), StorageError> {
    local::write(SETTINGS_KEY, &to_json(stored))
}

pub fn to_json(stored: &StoredSettings) -> String {
    serde_json::to_string(stored).unwrap_or_default()
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
