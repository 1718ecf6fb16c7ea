//! The settings model: everything a person can set, the rules its secrets follow
//! (`keys.rs`), and how it meets its stored shape (`storage::settings`, which knows only that
//! shape) and the export's (`storage::export`).
//!
//! **Invariant:** secrets (API keys, secret header values, tool keys; see `keys::strip`) are
//! written only when the person ticked "Remember", and never into an export.

use crate::agent::AgentSettings;
pub use crate::llm::Preset;
use crate::llm::{Connection, ProviderConfig};
use crate::storage::keys::ProviderKeys;
use crate::storage::settings::{self as stored, StoredSettings, SETTINGS_VERSION};
use crate::storage::{ExportedSettings, StorageError, StorageErrorKind};
use crate::tools::ToolSettings;
pub use crate::tools::mcp::{McpServer, McpSettings};
pub use crate::tools::{Common, SearchBackend, PYPI_INDEX};

pub mod keys;

/// Everything the person can set. The views mirror it in a signal.
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
    pub collector: crate::base::Collector,
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
        Settings {
            provider: ProviderConfig::default(),
            remember_key: false,
            keys: ProviderKeys::default(),
            connection: Connection::default(),
            agent: AgentSettings::default(),
            tools: ToolSettings::default(),
            collector: crate::base::Collector::default(),
        }
    }
}

impl From<&Settings> for StoredSettings {
    fn from(s: &Settings) -> Self {
        // Each MCP server has its own "Remember" box, apart from the API key's.
        let mcp_secrets = s.tools.mcp.remembered_secrets();
        let stripped;
        let s = if s.remember_key { s } else { stripped = keys::strip(s); &stripped };
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

/// The text storage writes for these settings.
pub fn settings_to_json(settings: &Settings) -> String {
    stored::to_json(&StoredSettings::from(settings))
}

/// What an export carries of the settings a run used: everything but the secrets.
impl From<&Settings> for ExportedSettings {
    fn from(s: &Settings) -> Self {
        let s = &keys::strip(s);
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
    /// Stored settings this page could not read at all (the part of the page that reads them
    /// could not be fetched): the defaults are used, and nothing is written over them.
    pub unread: bool,
}

impl LoadedSettings {
    /// The defaults, with no notice: nothing stored (a first visit).
    pub fn defaults() -> Self {
        LoadedSettings { settings: Settings::default(), dropped: Vec::new(), newer: false, unavailable: None, unread: false }
    }

    /// Whether saving must leave what is stored alone: settings of a newer release, or stored
    /// settings that were not read.
    pub fn read_only(&self) -> bool {
        self.newer || self.unread
    }

    /// A sentence for the settings notice, or `None` when everything was read.
    pub fn notice(&self) -> Option<String> {
        if self.unread {
            Some("Your saved settings could not be read, because a part of this page could not be loaded; the defaults are used and nothing is saved over yours. Reload the page to try again.".into())
        } else if let Some(e) = &self.unavailable {
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
    let stored::ReadStored { stored, dropped, newer } = stored::read_stored(json);
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
    LoadedSettings { settings, dropped, newer, unavailable: None, unread: false }
}

pub fn settings_from_json(json: &str) -> Settings {
    read_settings(json).settings
}


#[cfg(test)]
mod tests;
