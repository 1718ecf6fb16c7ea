//! Reading the stored shapes back by hand: chats and their list lines (`chats.rs`), run
//! exports (`export.rs`), the version every stored document carries (`lenient.rs`), and the
//! parts of the stored settings owned elsewhere (`Connection`, `ProviderKeys`); the stored
//! settings document itself is read in `settings.rs`, beside its private type. See
//! `crate::json_read` for why and for the rules every reader keeps.
//!
//! A struct with `#[serde(default)]` on it takes a missing field from its own `Default` (a
//! chat without `version` is version 2, as `StoredChat::default()` says). `ProviderKeys` and
//! `SavedKey` hold keys: their errors name only the field and what was expected.

use serde_json::Value;

use super::chats::{ChatSummary, StoredChat, StoredMessage, StoredWho};
use super::export::{ExportedRun, ExportedSettings};
use crate::agent::settings_read::agent_settings;
use crate::agent::trace_read::{events, trace};
use crate::json_read::{boolean, deserialize_via_value, float, list, read_name, string, strings, uint32, Fields, Read};
use crate::llm::Connection;
use crate::secrets::{ProviderKeys, SavedKey};
use crate::tools::settings_read::tool_settings;

#[cfg(test)]
mod tests;

pub(super) fn connection(value: &Value) -> Read<Connection> {
    let f = Fields::of(value)?;
    let d = Connection::default();
    Ok(Connection {
        stream: f.or("stream", boolean, d.stream)?,
        timeout_s: f.or("timeout_s", float, d.timeout_s)?,
        max_attempts: f.or("max_attempts", uint32, d.max_attempts)?,
        extra_headers: f.or("extra_headers", string, d.extra_headers)?,
        max_reply_kb: f.or("max_reply_kb", uint32, d.max_reply_kb)?,
    })
}

pub(super) fn provider_keys(value: &Value) -> Read<ProviderKeys> {
    let f = Fields::of(value)?;
    let d = ProviderKeys::default();
    Ok(ProviderKeys { saved: f.or("saved", |v| list(v, saved_key), d.saved)?, plain_http_ok: f.or("plain_http_ok", strings, d.plain_http_ok)? })
}

/// No defaults: both fields must be there.
fn saved_key(value: &Value) -> Read<SavedKey> {
    let f = Fields::of(value)?;
    Ok(SavedKey { provider: f.get("provider", string)?, key: f.get("key", string)? })
}

fn exported_settings(value: &Value) -> Read<ExportedSettings> {
    let f = Fields::of(value)?;
    let d = ExportedSettings::default();
    Ok(ExportedSettings {
        preset: f.or("preset", string, d.preset)?,
        base_url: f.or("base_url", string, d.base_url)?,
        model: f.or("model", string, d.model)?,
        connection: f.or("connection", connection, d.connection)?,
        agent: f.or("agent", agent_settings, d.agent)?,
        tools: f.or("tools", tool_settings, d.tools)?,
    })
}

/// What an export says it is before it is read whole: `format` and `version`, each `""` or 0
/// when missing.
pub(super) fn export_header(value: &Value) -> Read<(String, u32)> {
    let f = Fields::of(value)?;
    Ok((f.or_default("format", string)?, f.or_default("version", uint32)?))
}

/// No defaults but for `answer` (an `Option`).
pub(super) fn exported_run(value: &Value) -> Read<ExportedRun> {
    let f = Fields::of(value)?;
    Ok(ExportedRun {
        format: f.get("format", string)?,
        version: f.get("version", uint32)?,
        exported_unix_ms: f.get("exported_unix_ms", float)?,
        question: f.get("question", string)?,
        answer: f.option("answer", string)?,
        settings: f.get("settings", exported_settings)?,
        trace: f.get("trace", trace)?,
    })
}

fn stored_who(value: &Value) -> Read<StoredWho> {
    let named = |tag: &str| match tag {
        "user" => Some(StoredWho::User),
        "assistant" => Some(StoredWho::Assistant),
        "problem" => Some(StoredWho::Problem),
        // `AskedPerson`, under its first tag.
        "clarify" => Some(StoredWho::AskedPerson),
        _ => None,
    };
    read_name(value, named, "speaker")
}

/// No defaults: both fields must be there.
fn stored_message(value: &Value) -> Read<StoredMessage> {
    let f = Fields::of(value)?;
    Ok(StoredMessage { who: f.get("who", stored_who)?, text: f.get("text", string)? })
}

fn stored_chat(value: &Value) -> Read<StoredChat> {
    let f = Fields::of(value)?;
    let d = StoredChat::default();
    Ok(StoredChat {
        version: f.or("version", uint32, d.version)?,
        id: f.or("id", string, d.id)?,
        title: f.or("title", string, d.title)?,
        messages: f.or("messages", |v| list(v, stored_message), d.messages)?,
        trace: f.or("trace", events, d.trace)?,
        running: f.or("running", boolean, d.running)?,
    })
}

fn chat_summary(value: &Value) -> Read<ChatSummary> {
    let f = Fields::of(value)?;
    let d = ChatSummary::default();
    Ok(ChatSummary {
        version: f.or("version", uint32, d.version)?,
        id: f.or("id", string, d.id)?,
        title: f.or("title", string, d.title)?,
        updated_unix_ms: f.or("updated_unix_ms", float, d.updated_unix_ms)?,
        // Not stored: always the default.
        problem: d.problem,
    })
}

deserialize_via_value! {
    Connection => connection,
    ProviderKeys => provider_keys,
    SavedKey => saved_key,
    ExportedSettings => exported_settings,
    ExportedRun => exported_run,
    StoredWho => stored_who,
    StoredMessage => stored_message,
    StoredChat => stored_chat,
    ChatSummary => chat_summary,
}
