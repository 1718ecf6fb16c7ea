//! The only code that touches `localStorage`. Stored values have their own versioned shapes
//! here, apart from the UI's types, so changing the UI never silently breaks saved data.
//!
//! **Invariant:** the API key is written only when the person ticked "Remember key", and an MCP
//! server's secret only when its own "Remember" box is ticked (`ToolSettings` never serialises
//! those secrets, so exports cannot carry them).

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
    /// Secrets of MCP servers whose "Remember" box is ticked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mcp_secrets: Vec<crate::tools::mcp::RememberedSecret>,
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
            mcp_secrets: s.tools.mcp.remembered_secrets(),
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
    let mut tools = stored.tools;
    tools.mcp.restore_secrets(stored.mcp_secrets);
    Settings {
        provider: ProviderConfig { preset, base_url: stored.base_url, model: stored.model, api_key: stored.api_key.unwrap_or_default() },
        remember_key: stored.remember_key,
        connection: stored.connection,
        agent: stored.agent,
        tools,
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
    let question = crate::agent::trace::question(&trace.events).unwrap_or_default().to_string();
    let run = ExportedRun {
        format: EXPORT_FORMAT.into(),
        version: EXPORT_VERSION,
        exported_unix_ms: now_unix_ms.round(),
        question,
        answer: trace.final_answer().map(str::to_string),
        settings: ExportedSettings::from(settings),
        trace: trace.clone(),
    };
    // Compact like every other write: a pretty printer would compile every serializer twice.
    serde_json::to_string(&run).unwrap_or_default()
}

/// Reads an exported run, saying what is wrong with a file that is not one.
pub fn import_run(json: &str) -> Result<ExportedRun, String> {
    // Both reads go through `from_str`: deserialising through `serde_json::Value` as well would
    // compile the whole trace reader a second time into the bundle.
    #[derive(Deserialize)]
    struct Header {
        #[serde(default)]
        format: String,
        #[serde(default)]
        version: u32,
    }
    let header: Header = serde_json::from_str(json).map_err(|e| format!("This file is not a JSON object ({e})."))?;
    if header.format != EXPORT_FORMAT {
        return Err("This JSON file is not a Thoughtline run export (its \"format\" is not \"thoughtline.run\").".into());
    }
    if header.version > EXPORT_VERSION {
        return Err("This run was exported by a newer Thoughtline; update the page to open it.".into());
    }
    serde_json::from_str(json).map_err(|e| format!("This run export is damaged: {e}."))
}

pub const THEME_KEY: &str = "thoughtline.theme";

/// "light", "dark", or "" to follow the operating system.
pub fn load_theme() -> String {
    read(THEME_KEY).filter(|t| t == "light" || t == "dark").unwrap_or_default()
}

pub fn save_theme(theme: &str) {
    write(THEME_KEY, theme);
}

/// The list of conversations, newest first.
pub const CHATS_KEY: &str = "thoughtline.chats";
/// The conversation that was open last.
pub const CURRENT_CHAT_KEY: &str = "thoughtline.current";
const CHAT_VERSION: u32 = 1;

fn chat_key(id: &str) -> String {
    format!("thoughtline.chat.{id}")
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSummary {
    pub id: String,
    pub title: String,
    pub updated_unix_ms: f64,
}

/// One conversation as stored: its messages and the trace of its latest run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredChat {
    pub version: u32,
    pub id: String,
    pub title: String,
    pub messages: Vec<crate::ui::ChatMessage>,
    pub trace: Vec<crate::agent::Event>,
    /// A run was in progress when this was saved.
    pub running: bool,
}

impl Default for StoredChat {
    fn default() -> Self {
        StoredChat { version: CHAT_VERSION, id: String::new(), title: String::new(), messages: Vec::new(), trace: Vec::new(), running: false }
    }
}

/// A title from the first question, cut at a word boundary.
pub fn chat_title(messages: &[crate::ui::ChatMessage]) -> String {
    let first = messages.iter().find(|m| m.who == crate::ui::Who::User).map(|m| m.text.trim()).unwrap_or("");
    if first.is_empty() {
        return "New chat".into();
    }
    let line = first.lines().next().unwrap_or(first);
    if line.chars().count() <= 60 {
        return line.to_string();
    }
    let cut: String = line.chars().take(60).collect();
    let cut = cut.rsplit_once(' ').map(|(head, _)| head).filter(|h| h.len() > 20).unwrap_or(&cut);
    format!("{cut}…")
}

/// A chat saved while a run was in progress was cut off by a reload or a closed tab: say so
/// in the chat and the trace, and clear the flag. Returns whether anything changed.
pub fn mark_interrupted(chat: &mut StoredChat) -> bool {
    if !chat.running {
        return false;
    }
    chat.running = false;
    let message = "This run was interrupted (the page was reloaded or closed before it finished). Ask again to run it anew.";
    chat.messages.push(crate::ui::ChatMessage { who: crate::ui::Who::Problem, text: message.into() });
    let index = chat.trace.len() as u32;
    let (step, at) = chat.trace.last().map(|e| (e.step, e.ended_ms)).unwrap_or((0, 0.0));
    chat.trace.push(crate::agent::Event {
        index,
        step,
        started_ms: at,
        ended_ms: at,
        kind: crate::agent::EventKind::RunStopped { reason: crate::agent::StopReason::Interrupted, message: message.into() },
    });
    true
}

pub fn load_chat_index() -> Vec<ChatSummary> {
    read(CHATS_KEY).and_then(|json| serde_json::from_str(&json).ok()).unwrap_or_default()
}

pub fn save_chat_index(index: &[ChatSummary]) {
    write(CHATS_KEY, &serde_json::to_string(index).unwrap_or_default());
}

/// A stored chat, with an interrupted run already marked as such.
pub fn load_chat(id: &str) -> Option<StoredChat> {
    let mut chat: StoredChat = serde_json::from_str(&read(&chat_key(id))?).ok()?;
    if mark_interrupted(&mut chat) {
        save_chat(&chat);
    }
    Some(chat)
}

pub fn save_chat(chat: &StoredChat) {
    write(&chat_key(&chat.id), &serde_json::to_string(chat).unwrap_or_default());
    write(CURRENT_CHAT_KEY, &chat.id);
}

pub fn delete_chat(id: &str) {
    remove(&chat_key(id));
}

pub fn current_chat_id() -> Option<String> {
    read(CURRENT_CHAT_KEY)
}

fn read(key: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    return local_storage()?.get_item(key).ok().flatten();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = key;
        None
    }
}

/// Storage may be full or disabled (private mode); that costs persistence, never the page.
fn write(key: &str, value: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(storage) = local_storage() {
        let _ = storage.set_item(key, value);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (key, value);
}

fn remove(key: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(key);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = key;
}

#[cfg(target_arch = "wasm32")]
fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Loads the saved settings, or the defaults when there are none.
pub fn load_settings() -> Settings {
    read(SETTINGS_KEY).map(|json| settings_from_json(&json)).unwrap_or_default()
}

pub fn save_settings(settings: &Settings) {
    write(SETTINGS_KEY, &settings_to_json(settings));
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
            Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::RunStarted { question: "Who?".into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0, strategy: Default::default(), continues: false } },
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
        assert!(import_run("nope").unwrap_err().contains("not a JSON object"));
        assert!(import_run("{\"a\": 1}").unwrap_err().contains("not a Thoughtline run export"));
        assert!(import_run(r#"{"format": "thoughtline.run", "version": 99}"#).unwrap_err().contains("newer"));
        assert!(import_run(r#"{"format": "thoughtline.run", "version": 1}"#).unwrap_err().contains("damaged"));
    }

    #[test]
    fn titles_come_from_the_first_question() {
        use crate::ui::{ChatMessage, Who};
        let m = |who, text: &str| ChatMessage { who, text: text.into() };
        assert_eq!(chat_title(&[]), "New chat");
        assert_eq!(chat_title(&[m(Who::User, "Who is Ada?\nMore detail")]), "Who is Ada?");
        let long = "Which were the most relevant publications about attention layers in neural networks in 2020?";
        assert_eq!(chat_title(&[m(Who::User, long)]), "Which were the most relevant publications about attention…");
    }

    #[test]
    fn an_interrupted_run_is_marked_once() {
        use crate::ui::{ChatMessage, Who};
        let mut chat = StoredChat { id: "a".into(), running: true, messages: vec![ChatMessage { who: Who::User, text: "q".into() }], ..Default::default() };
        assert!(mark_interrupted(&mut chat));
        assert!(!chat.running);
        assert_eq!(chat.messages.last().unwrap().who, Who::Problem);
        assert!(matches!(chat.trace.last().unwrap().kind, crate::agent::EventKind::RunStopped { reason: crate::agent::StopReason::Interrupted, .. }));
        assert!(!mark_interrupted(&mut chat));
        let back: StoredChat = serde_json::from_str(&serde_json::to_string(&chat).unwrap()).unwrap();
        assert_eq!(back, chat);
    }

    #[test]
    fn mcp_secrets_are_stored_only_when_remembered_and_never_exported() {
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
        let export = export_run(&crate::agent::Trace::default(), &s, 0.0);
        assert!(export.contains("https://a.test/mcp") && !export.contains("tok-kept-1") && !export.contains("tok-memory-2"), "{export}");
        assert!(!format!("{s:?}").contains("tok-"), "Debug hides the secrets");
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
