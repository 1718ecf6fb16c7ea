//! The journal: what a person typed, written to `localStorage` the moment it is sent, so the
//! page going away before the chat database has it (a reload right after Send, on a first visit
//! while the saving code is still on its way) loses nothing. One small record per chat, under
//! `thoughtline.journal.<chat id>`, holding the question of the chat's latest run and the
//! person's replies within it, and, when the page is hidden while some of that run's events
//! are not stored yet, those events; removed once a save of the chat holding them has committed. The
//! app layer decides what to journal and how a record becomes a chat again (`app::journal`).
//!
//! Written synchronously and read at start, so this file stays in the first load: a record is
//! plain text through `serde_json`, read back by hand like every stored shape.

use serde::Serialize;
use serde_json::Value;

use super::chats::StoredClarification;
use super::error::StorageError;
use super::local;
use super::read::stored_clarification;
use crate::json_read::{float, list, string, uint32, Fields, Read};

/// Every journal record's key starts with this, followed by the chat's id.
pub const JOURNAL_PREFIX: &str = "thoughtline.journal.";

/// The version this release writes. A record of a newer version is left as it is.
pub const JOURNAL_VERSION: u32 = 1;

/// A journal record: the latest run of chat `chat`, as far as the person wrote it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JournalEntry {
    pub version: u32,
    pub chat: String,
    /// The run's number in the chat.
    pub run: u32,
    /// Masked, like everything the conversation holds.
    pub question: String,
    /// The agent's questions within that run and the person's replies, in order (masked).
    pub clarified: Vec<StoredClarification>,
    /// The run's latest events not known to be stored, as stored events are written
    /// (`storage::event`), a JSON array; empty when the record holds none. Kept as text so
    /// the first load carries neither the events' writer nor their reader: the saving part
    /// writes it and reads it back (`ui/chats/save.rs`).
    #[serde(skip_serializing_if = "String::is_empty", serialize_with = "raw_json")]
    pub events: String,
    /// When it was written (milliseconds since 1970).
    pub at_ms: f64,
}

/// No defaults but `clarified` and `at_ms`: a record without its chat, run or question is of no use.
fn entry(value: &Value) -> Read<JournalEntry> {
    let f = Fields::of(value)?;
    Ok(JournalEntry {
        version: f.get("version", uint32)?,
        chat: f.get("chat", string)?,
        run: f.get("run", uint32)?,
        question: f.get("question", string)?,
        clarified: f.or("clarified", |v| list(v, stored_clarification), Vec::new())?,
        // Kept as the text it was written as: `entry_from_json`.
        events: String::new(),
        at_ms: f.or("at_ms", float, 0.0)?,
    })
}

/// Writes text that is JSON already as it is; text that is not is written as `[]`.
fn raw_json<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    match serde_json::value::RawValue::from_string(text.to_string()) {
        Ok(raw) => raw.serialize(serializer),
        Err(_) => serializer.collect_seq(std::iter::empty::<()>()),
    }
}

/// Reads one record's text. `None` for text that is not a record (left where it is).
pub fn entry_from_json(text: &str) -> Option<JournalEntry> {
    let value: Value = serde_json::from_str(text).ok()?;
    let mut entry = entry(&value).ok()?;
    // The steps as written, their text untouched: the saving part reads them (`ui/chats/save.rs`).
    let fields = serde_json::from_str::<std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>>(text).ok()?;
    entry.events = fields.get("events").map(|raw| raw.get().to_string()).filter(|t| t.starts_with('[')).unwrap_or_default();
    Some(entry)
}

pub fn entry_to_json(entry: &JournalEntry) -> String {
    // Strings, numbers and lists of strings only: writing cannot fail.
    serde_json::to_string(entry).unwrap_or_default()
}

fn key(chat: &str) -> String {
    format!("{JOURNAL_PREFIX}{chat}")
}

/// Writes the record of `entry.chat`, in place of the one before it.
pub fn write(entry: &JournalEntry) -> Result<(), StorageError> {
    local::write(&key(&entry.chat), &entry_to_json(entry))
}

/// Forgets chat `chat`'s record (its chat is stored, or was deleted).
pub fn remove(chat: &str) {
    local::remove(&key(chat))
}

/// What the journal holds: the records this release can read, oldest first, and how many it
/// cannot (a newer release's, or damaged text), which stay where they are.
pub fn read_all() -> (Vec<JournalEntry>, usize) {
    let mut entries = Vec::new();
    let mut unreadable = 0;
    for key in local::keys().into_iter().filter(|k| k.starts_with(JOURNAL_PREFIX)) {
        match local::read(&key).as_deref().and_then(entry_from_json) {
            Some(e) if e.version <= JOURNAL_VERSION && key == self::key(&e.chat) => entries.push(e),
            _ => unreadable += 1,
        }
    }
    crate::sort::sort_by(&mut entries, |a, b| a.at_ms.total_cmp(&b.at_ms));
    (entries, unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(chat: &str, at_ms: f64) -> JournalEntry {
        JournalEntry {
            version: JOURNAL_VERSION,
            chat: chat.into(),
            run: 2,
            question: "What is \"x\"?\nSecond line".into(),
            clarified: vec![StoredClarification { asked: "Which x?".into(), reply: "The first".into() }],
            events: r#"[{"index":0,"kind":"whatever"}]"#.into(),
            at_ms,
        }
    }

    #[test]
    fn a_record_reads_back_as_it_was_written() {
        let e = sample("c1", 5.0);
        assert_eq!(entry_from_json(&entry_to_json(&e)), Some(e));
    }

    #[test]
    fn records_are_read_oldest_first_and_unreadable_ones_are_counted_and_left() {
        write(&sample("late", 9.0)).unwrap();
        write(&sample("early", 3.0)).unwrap();
        local::write(&key("bad"), "{not json").unwrap();
        let mut newer = sample("newer", 1.0);
        newer.version = JOURNAL_VERSION + 1;
        local::write(&key("newer"), &entry_to_json(&newer)).unwrap();
        // A record under another chat's key is not that chat's.
        local::write(&key("elsewhere"), &entry_to_json(&sample("other", 2.0))).unwrap();
        let (entries, unreadable) = read_all();
        assert_eq!(entries.iter().map(|e| e.chat.as_str()).collect::<Vec<_>>(), ["early", "late"]);
        assert_eq!(unreadable, 3);
        assert!(local::read(&key("bad")).is_some() && local::read(&key("newer")).is_some());
        remove("late");
        assert_eq!(read_all().0.len(), 1);
        for k in ["early", "bad", "newer", "elsewhere"] {
            local::remove(&key(k));
        }
    }

    #[test]
    fn a_record_without_its_question_is_not_a_record() {
        assert_eq!(entry_from_json(r#"{"version":1,"chat":"c","run":0}"#), None);
        let e = entry_from_json(r#"{"version":1,"chat":"c","run":0,"question":"q","extra":true}"#).unwrap();
        assert_eq!((e.clarified.len(), e.at_ms, e.events.as_str()), (0, 0.0, ""));
    }
}
