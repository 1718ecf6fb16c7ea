//! Reading the stored shapes of a conversation back by hand (`chats.rs` writes them): the
//! head, run and outcome records of version 3, the chats of versions 1 and 2, the list lines;
//! also the run records an export holds (`export.rs` reads the rest of its file). The stored
//! settings are read beside their writers (`settings.rs`, `keys.rs`). See `crate::json_read`
//! for why and for the rules every reader keeps.
//!
//! A struct with `#[serde(default)]` on it takes a missing field from its own `Default` (a
//! chat without `version` is version 2, as `LegacyChat::default()` says).

use serde_json::Value;

use super::chats::{ChatSummary, LegacyChat, OutcomeKind, StoredBranch, StoredClarification, StoredHead, StoredMessage, StoredAttached, StoredOutcome, StoredRun, StoredWho};
use crate::storage::trace_read::events;
use crate::json_read::{boolean, deserialize_via_value, float, list, read_name, string, uint32, Fields, Read};

#[cfg(test)]
mod tests;

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
pub(super) fn stored_outcome(value: &Value) -> Read<StoredOutcome> {
    let f = Fields::of(value)?;
    Ok(StoredOutcome { kind: f.get("kind", outcome_kind)?, text: f.get("text", string)? })
}

/// No defaults: both fields must be there.
pub(super) fn stored_clarification(value: &Value) -> Read<StoredClarification> {
    let f = Fields::of(value)?;
    Ok(StoredClarification { asked: f.get("asked", string)?, reply: f.get("reply", string)? })
}

/// No defaults: a resource without its name, address or server says nothing.
pub(super) fn stored_attached(value: &Value) -> Read<StoredAttached> {
    let f = Fields::of(value)?;
    Ok(StoredAttached { name: f.get("name", string)?, uri: f.get("uri", string)?, server: f.get("server", string)? })
}

fn stored_run(value: &Value) -> Read<StoredRun> {
    let f = Fields::of(value)?;
    let d = StoredRun::default();
    Ok(StoredRun {
        question: f.or("question", string, d.question)?,
        clarified: f.or("clarified", |v| list(v, stored_clarification), d.clarified)?,
        attached: f.or("attached", |v| list(v, stored_attached), d.attached)?,
        steps_kept: f.or("steps_kept", boolean, d.steps_kept)?,
        outcome: f.option_or("outcome", stored_outcome, d.outcome)?,
        events: f.or("events", uint32, d.events)?,
        branches: f.or("branches", |v| list(v, stored_branch), d.branches)?,
        shown: f.or("shown", uint32, d.shown)?,
    })
}

pub(crate) fn stored_branch(value: &Value) -> Read<StoredBranch> {
    let f = Fields::of(value)?;
    Ok(StoredBranch {
        parent: f.get("parent", uint32)?,
        at: f.get("at", uint32)?,
        question: f.or_default("question", string)?,
        clarified: f.or_default("clarified", |v| list(v, stored_clarification))?,
        outcome: f.option("outcome", stored_outcome)?,
        events: f.or_default("events", uint32)?,
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
    StoredWho => stored_who,
    StoredMessage => stored_message,
    LegacyChat => legacy_chat,
    StoredHead => stored_head,
    StoredRun => stored_run,
    ChatSummary => chat_summary,
}
