//! Reading the stored shapes back by hand: chats (every version), their runs and list lines
//! (`chats.rs`), exports of every version (`export.rs`), the version every stored document carries (`lenient.rs`), and the
//! parts of the stored settings owned elsewhere (`Connection`, `ProviderKeys`); the stored
//! settings document itself is read in `settings.rs`, beside its private type. See
//! `crate::json_read` for why and for the rules every reader keeps.
//!
//! A struct with `#[serde(default)]` on it takes a missing field from its own `Default` (a
//! chat without `version` is version 2, as `LegacyChat::default()` says). `ProviderKeys` and
//! `SavedKey` hold keys: their errors name only the field and what was expected.

use serde_json::Value;

use super::chats::{ChatSummary, LegacyChat, OutcomeKind, StoredClarification, StoredHead, StoredMessage, StoredOutcome, StoredRun, StoredWho};
use super::export::{ExportedChat, ExportedRun, ExportedSettings, SingleRun};
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

/// A run of a version 1 or 2 export. No defaults but for `answer` (an `Option`).
pub(super) fn exported_single_run(value: &Value) -> Read<SingleRun> {
    let f = Fields::of(value)?;
    Ok(SingleRun { question: f.get("question", string)?, answer: f.option("answer", string)?, trace: f.get("trace", trace)? })
}

/// A version 3 export. No defaults but for `title` and `app_version`.
pub(super) fn exported_chat(value: &Value) -> Read<ExportedChat> {
    let f = Fields::of(value)?;
    Ok(ExportedChat {
        format: f.get("format", string)?,
        version: f.get("version", uint32)?,
        app_version: f.or_default("app_version", string)?,
        exported_unix_ms: f.get("exported_unix_ms", float)?,
        title: f.or_default("title", string)?,
        settings: f.get("settings", exported_settings)?,
        runs: f.get("runs", |v| list(v, exported_run))?,
    })
}

fn exported_run(value: &Value) -> Read<ExportedRun> {
    let f = Fields::of(value)?;
    Ok(ExportedRun {
        question: f.get("question", string)?,
        clarified: f.or_default("clarified", |v| list(v, stored_clarification))?,
        steps_kept: f.or("steps_kept", boolean, true)?,
        outcome: f.option("outcome", stored_outcome)?,
        trace: f.get("trace", trace)?,
    })
}

fn outcome_kind(value: &Value) -> Read<OutcomeKind> {
    let named = |tag: &str| match tag {
        "answer" => Some(OutcomeKind::Answer),
        "asks" => Some(OutcomeKind::Asks),
        "ended" => Some(OutcomeKind::Ended),
        _ => None,
    };
    read_name(value, named, "outcome")
}

/// No defaults: both fields must be there.
fn stored_outcome(value: &Value) -> Read<StoredOutcome> {
    let f = Fields::of(value)?;
    Ok(StoredOutcome { kind: f.get("kind", outcome_kind)?, text: f.get("text", string)? })
}

/// No defaults: both fields must be there.
fn stored_clarification(value: &Value) -> Read<StoredClarification> {
    let f = Fields::of(value)?;
    Ok(StoredClarification { asked: f.get("asked", string)?, reply: f.get("reply", string)? })
}

fn stored_run(value: &Value) -> Read<StoredRun> {
    let f = Fields::of(value)?;
    let d = StoredRun::default();
    Ok(StoredRun {
        question: f.or("question", string, d.question)?,
        clarified: f.or("clarified", |v| list(v, stored_clarification), d.clarified)?,
        steps_kept: f.or("steps_kept", boolean, d.steps_kept)?,
        outcome: f.option_or("outcome", stored_outcome, d.outcome)?,
        events: f.or("events", uint32, d.events)?,
    })
}

fn stored_head(value: &Value) -> Read<StoredHead> {
    let f = Fields::of(value)?;
    let d = StoredHead::default();
    Ok(StoredHead {
        version: f.or("version", uint32, d.version)?,
        id: f.or("id", string, d.id)?,
        title: f.or("title", string, d.title)?,
        runs: f.or("runs", uint32, d.runs)?,
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

fn legacy_chat(value: &Value) -> Read<LegacyChat> {
    let f = Fields::of(value)?;
    let d = LegacyChat::default();
    Ok(LegacyChat {
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
    ExportedChat => exported_chat,
    StoredWho => stored_who,
    StoredMessage => stored_message,
    LegacyChat => legacy_chat,
    StoredHead => stored_head,
    StoredRun => stored_run,
    ChatSummary => chat_summary,
}
