//! The chat store: the rules for listing, opening, saving and deleting conversations, over a
//! `Backend` that keeps two record kinds per chat (a summary for the list and the chat itself),
//! always written together in one transaction. The browser's backend is IndexedDB (`idb.rs`);
//! tests use a map.
//!
//! **Invariant:** the chat list is read from the same database as the chats, written in the
//! same transaction, so the two cannot disagree; a record that cannot be read stays listed.

use super::chats::{read_chat, ChatSummary, ReadChat, StoredChat};
use super::error::StorageError;
use super::local;
use crate::agent::LocalBoxFuture;

/// One chat as written: its id, its list line and the chat itself, both as JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub summary: String,
    pub body: String,
}

/// Where chats are kept. Every method is one transaction.
pub trait Backend {
    /// Every summary record as `(id, stored text)`.
    fn summaries(&self) -> LocalBoxFuture<'_, Result<Vec<(String, String)>, StorageError>>;
    /// The stored text of one chat.
    fn body<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<String>, StorageError>>;
    /// Writes all `records` in one transaction: all of them or none. Resolves once committed.
    fn put(&self, records: Vec<Record>) -> LocalBoxFuture<'_, Result<(), StorageError>>;
    fn delete<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>>;
    /// Written by a newer release: every write is refused.
    fn read_only(&self) -> bool {
        false
    }
}

/// The chat list, newest first. A summary that cannot be read is listed as such, never hidden.
pub async fn list(backend: &dyn Backend) -> Result<Vec<ChatSummary>, StorageError> {
    let mut list: Vec<ChatSummary> = backend
        .summaries()
        .await?
        .into_iter()
        .map(|(id, text)| match serde_json::from_str::<ChatSummary>(&text) {
            Ok(summary) if summary.version <= super::chats::CHAT_VERSION => ChatSummary { id, ..summary },
            Ok(_) => ChatSummary { id, title: "Saved by a newer Thoughtline".into(), problem: Some(super::chats::SAVED_BY_NEWER.into()), ..Default::default() },
            Err(e) => ChatSummary {
                id,
                title: "Chat that could not be read".into(),
                problem: Some(format!("its list entry is damaged ({e})")),
                ..Default::default()
            },
        })
        .collect();
    crate::sort::sort_by(&mut list, |a, b| b.updated_unix_ms.total_cmp(&a.updated_unix_ms));
    Ok(list)
}

/// What opening a chat gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Opened {
    Chat { chat: StoredChat, note: Option<String> },
    /// It cannot be shown; `raw` is the stored text, for the person to download.
    Unreadable { reason: String, raw: String },
    Missing,
}

pub async fn open(backend: &dyn Backend, id: &str) -> Result<Opened, StorageError> {
    let Some(raw) = backend.body(id).await? else { return Ok(Opened::Missing) };
    Ok(match read_chat(&raw) {
        ReadChat::Chat { mut chat, note } => {
            // The record's key is the truth: a damaged id field must not move the chat.
            chat.id = id.to_string();
            Opened::Chat { chat, note }
        }
        ReadChat::Unreadable { reason } => Opened::Unreadable { reason, raw },
    })
}

/// The records that save `chat` as of `now`: its summary and itself.
fn record(chat: &StoredChat, body: String, now_unix_ms: f64) -> (Record, ChatSummary) {
    let summary = ChatSummary::of(chat, now_unix_ms);
    let record = Record { id: chat.id.clone(), summary: serde_json::to_string(&summary).unwrap_or_default(), body };
    (record, summary)
}

pub async fn save(backend: &dyn Backend, chat: &StoredChat, now_unix_ms: f64) -> Result<ChatSummary, StorageError> {
    let (record, summary) = record(chat, serde_json::to_string(chat).unwrap_or_default(), now_unix_ms);
    backend.put(vec![record]).await?;
    Ok(summary)
}

/// Saves `chat` as `body`, its stored text already written (`TraceJson::chat_body`: how the
/// open chat is saved while its run grows, serialising only the events added since).
pub async fn save_text(backend: &dyn Backend, chat: &StoredChat, body: String, now_unix_ms: f64) -> Result<ChatSummary, StorageError> {
    let (record, summary) = record(chat, body, now_unix_ms);
    backend.put(vec![record]).await?;
    Ok(summary)
}

pub async fn delete(backend: &dyn Backend, id: &str) -> Result<(), StorageError> {
    backend.delete(id).await
}

/// `localStorage` keys of the release before IndexedDB.
pub const LEGACY_INDEX_KEY: &str = "thoughtline.chats";
pub const LEGACY_CHAT_PREFIX: &str = "thoughtline.chat.";

/// The chats an older release left in `localStorage`, as records, with the keys to remove once
/// they are safely in the database. Every `thoughtline.chat.*` key counts: the old index is not
/// needed (each chat holds its own title, renames included), so a damaged index orphans
/// nothing. A chat that cannot be read moves as it is, and is listed as unreadable, not lost.
pub fn legacy_records(now_unix_ms: f64) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut keys = Vec::new();
    for key in local::keys() {
        let Some(id) = key.strip_prefix(LEGACY_CHAT_PREFIX).filter(|id| !id.is_empty()) else { continue };
        let Some(body) = local::read(&key) else { continue };
        let (title, updated) = match read_chat(&body) {
            ReadChat::Chat { chat, .. } => {
                let title = if chat.title.is_empty() { super::chats::chat_title(&chat.messages) } else { chat.title };
                // The old index kept the time of the last save; the last run's start is close,
                // and keeps the list in the order it had.
                let started = chat.trace.iter().rev().find_map(|e| match e.kind {
                    crate::agent::EventKind::RunStarted { started_unix_ms, .. } => Some(started_unix_ms),
                    _ => None,
                });
                (title, started.unwrap_or(now_unix_ms))
            }
            ReadChat::Unreadable { .. } => ("Chat that could not be read".into(), now_unix_ms),
        };
        let summary = ChatSummary { id: id.to_string(), title, updated_unix_ms: updated, ..Default::default() };
        records.push(Record { id: id.to_string(), summary: serde_json::to_string(&summary).unwrap_or_default(), body });
        keys.push(key);
    }
    if local::read(LEGACY_INDEX_KEY).is_some() {
        keys.push(LEGACY_INDEX_KEY.to_string());
    }
    (records, keys)
}

/// Moves an older release's chats into `backend`. The old keys are removed only after the
/// transaction holding every one of them has committed; on failure nothing is removed.
pub async fn migrate_legacy(backend: &dyn Backend, now_unix_ms: f64) -> Result<usize, StorageError> {
    let (mut records, keys) = legacy_records(now_unix_ms);
    // A move cut off between the commit and the removal of the old keys must not put the
    // old copy over a chat that has changed since.
    let existing: Vec<String> = backend.summaries().await?.into_iter().map(|(id, _)| id).collect();
    records.retain(|r| !existing.contains(&r.id));
    let moved = records.len();
    if moved > 0 {
        backend.put(records).await?;
    }
    for key in keys {
        local::remove(&key);
    }
    Ok(moved)
}
