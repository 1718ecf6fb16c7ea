//! The chat store: the rules for listing, opening, saving and deleting conversations, over a
//! `Backend` that keeps a summary for the list and the chat's records (its head under the
//! chat's id, its runs and their event chunks under keys that start with `{id}/`), always
//! written together in one transaction. The browser's backend is IndexedDB (`idb.rs`);
//! tests use a map.
//!
//! **Invariant:** the chat list is read from the same database as the chats, written in the
//! same transaction, so the two cannot disagree; a record that cannot be read stays listed.

use std::collections::BTreeMap;

use super::chats::{last_started, read_chat, ChatSummary, ReadChat};
use super::error::StorageError;
use super::local;
pub use super::writer::Record;
use super::writer::{Batch, ChatWriter};
use crate::agent::LocalBoxFuture;
use crate::conversation::Conversation;

/// A chat as stored: its head and every record beside it, by key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stored {
    pub body: String,
    pub parts: BTreeMap<String, String>,
}

impl Stored {
    /// Everything stored for the chat as one JSON text, for the person to download.
    pub fn raw(&self) -> String {
        if self.parts.is_empty() {
            return self.body.clone();
        }
        let parts: Vec<String> = self.parts.iter().map(|(k, v)| format!("{}:{}", json_string(k), json_string(v))).collect();
        format!("{{\"body\":{},\"parts\":{{{}}}}}", json_string(&self.body), parts.join(","))
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Where chats are kept. Every method is one transaction.
pub trait Backend {
    /// Every summary record as `(id, stored text)`.
    fn summaries(&self) -> LocalBoxFuture<'_, Result<Vec<(String, String)>, StorageError>>;
    /// Everything stored of one chat (its head and the records beside it).
    fn chat<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Stored>, StorageError>>;
    /// Writes all `records` (each with its parts) in one transaction: all of them or none.
    /// Resolves once committed.
    fn put(&self, records: Vec<Record>) -> LocalBoxFuture<'_, Result<(), StorageError>>;
    /// Deletes the chat: its summary, head and every record beside it.
    fn delete<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>>;
    /// Written by a newer release: every write is refused.
    fn read_only(&self) -> bool {
        false
    }
}

/// Records beside the chats, by key (evaluations: `storage/evals.rs`), in the same database.
/// A trait of its own, not the chat store's: only the part of the page that uses them makes
/// one (`storage::open_records`), so the first load carries none of it.
pub trait RecordStore {
    /// Every record whose key starts with `prefix`, by key. Never a chat's: their keys start
    /// with no such prefix.
    fn records<'a>(&'a self, prefix: &'a str) -> LocalBoxFuture<'a, Result<Vec<(String, String)>, StorageError>>;
    /// Writes these records in one transaction: all of them or none.
    fn put_records(&self, records: Vec<(String, String)>) -> LocalBoxFuture<'_, Result<(), StorageError>>;
    /// Deletes every record whose key starts with `prefix`, in one transaction.
    fn delete_records<'a>(&'a self, prefix: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>>;
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
    /// `current`: read from records of this version (nothing needs rewriting).
    Chat { chat: Conversation, note: Option<String>, current: bool },
    /// It cannot be shown; `raw` is what is stored, for the person to download.
    Unreadable { reason: String, raw: String },
    Missing,
}

pub async fn open(backend: &dyn Backend, id: &str) -> Result<Opened, StorageError> {
    let Some(stored) = backend.chat(id).await? else { return Ok(Opened::Missing) };
    Ok(match read_chat(id, &stored.body, &stored.parts) {
        ReadChat::Chat { chat, note, current } => Opened::Chat { chat, note, current },
        ReadChat::Unreadable { reason } => Opened::Unreadable { reason, raw: stored.raw() },
    })
}

/// Writes `batch` (what `writer` did not know to be stored of the open chat, `ChatWriter::batch`)
/// and marks it stored once the transaction has committed. A failure leaves `writer` as it was:
/// the next save writes it all again.
pub async fn save_changes(backend: &dyn Backend, writer: &std::cell::RefCell<ChatWriter>, batch: Batch) -> Result<ChatSummary, StorageError> {
    backend.put(vec![batch.record.clone()]).await?;
    writer.borrow_mut().committed(&batch);
    Ok(batch.summary)
}

/// Saves the whole of `chat` (a chat that is not the open one: a rename, an import).
pub async fn save(backend: &dyn Backend, chat: &Conversation, now_unix_ms: f64) -> Result<ChatSummary, StorageError> {
    let batch = ChatWriter::default().batch(chat, now_unix_ms);
    backend.put(vec![batch.record]).await?;
    Ok(batch.summary)
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
        let Some(id) = legacy_chat_id(&key) else { continue };
        let Some(body) = local::read(&key) else { continue };
        let (title, updated) = match read_chat(id, &body, &BTreeMap::new()) {
            // The old index kept the time of the last save; the last run's start is close,
            // and keeps the list in the order it had.
            ReadChat::Chat { chat, .. } => (chat.title(), last_started(&chat).unwrap_or(now_unix_ms)),
            ReadChat::Unreadable { .. } => ("Chat that could not be read".into(), now_unix_ms),
        };
        let summary = ChatSummary { id: id.to_string(), title, updated_unix_ms: updated, ..Default::default() };
        records.push(Record { id: id.to_string(), summary: serde_json::to_string(&summary).unwrap_or_default(), body, parts: Vec::new() });
        keys.push(key);
    }
    if local::read(LEGACY_INDEX_KEY).is_some() {
        keys.push(LEGACY_INDEX_KEY.to_string());
    }
    (records, keys)
}

/// Whether an older release left chats in `localStorage` to move (`migrate_legacy`): a check
/// that reads no chat.
pub fn has_legacy() -> bool {
    local::keys().iter().any(|key| key == LEGACY_INDEX_KEY || legacy_chat_id(key).is_some())
}

/// The chat id of an older release's `localStorage` key for a chat.
fn legacy_chat_id(key: &str) -> Option<&str> {
    key.strip_prefix(LEGACY_CHAT_PREFIX).filter(|id| !id.is_empty())
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
