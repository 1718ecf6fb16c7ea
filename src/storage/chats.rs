//! The stored shape of a conversation, apart from the UI's types, and the pure rules on it:
//! titles, reading tolerantly, and marking a run a reload cut off. Written by serde, read by
//! hand (`read.rs`): a missing field takes its value from its struct's `Default`.

use serde::Serialize;

use super::lenient::{read_lenient, stored_version};
use crate::agent::{Event, EventKind, StopReason};

/// Version 1 was the `localStorage` release (one key per chat plus an index). Version 2 is
/// the IndexedDB record; its trace records each model request as what it adds to the last
/// one, and it reads version 1's traces unchanged.
pub const CHAT_VERSION: u32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredWho {
    User,
    Assistant,
    /// The run ended without an answer; the text says why and what to do.
    Problem,
    /// The agent asked the person a question (stored under its first tag, see `EventKind`).
    #[serde(rename = "clarify")]
    AskedPerson,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredMessage {
    pub who: StoredWho,
    pub text: String,
}

/// One conversation as stored: its messages and the trace of its latest run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredChat {
    pub version: u32,
    pub id: String,
    pub title: String,
    pub messages: Vec<StoredMessage>,
    pub trace: Vec<Event>,
    /// A run was in progress when this was saved.
    pub running: bool,
}

impl Default for StoredChat {
    fn default() -> Self {
        StoredChat { version: CHAT_VERSION, id: String::new(), title: String::new(), messages: Vec::new(), trace: Vec::new(), running: false }
    }
}

/// A line of the chat list. Stored beside the chat, in the same transaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatSummary {
    pub version: u32,
    pub id: String,
    pub title: String,
    pub updated_unix_ms: f64,
    /// Not stored: why this chat cannot be opened (unreadable, or saved by a newer release).
    #[serde(skip)]
    pub problem: Option<String>,
}

impl Default for ChatSummary {
    fn default() -> Self {
        ChatSummary { version: CHAT_VERSION, id: String::new(), title: String::new(), updated_unix_ms: 0.0, problem: None }
    }
}

impl ChatSummary {
    pub fn of(chat: &StoredChat, updated_unix_ms: f64) -> Self {
        ChatSummary { id: chat.id.clone(), title: chat.title.clone(), updated_unix_ms, ..Default::default() }
    }
}

/// A title from the first question, cut at a word boundary.
pub fn chat_title(messages: &[StoredMessage]) -> String {
    let first = messages.iter().find(|m| m.who == StoredWho::User).map(|m| m.text.as_str()).unwrap_or("");
    title_from(first)
}

/// A title from a question, cut at a word boundary.
pub fn title_from(question: &str) -> String {
    let first = question.trim();
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
    chat.messages.push(StoredMessage { who: StoredWho::Problem, text: message.into() });
    let index = chat.trace.len() as u32;
    let (step, at) = chat.trace.last().map(|e| (e.step, e.ended_ms)).unwrap_or((0, 0.0));
    chat.trace.push(Event {
        index,
        step,
        started_ms: at,
        ended_ms: at,
        kind: EventKind::RunStopped { reason: StopReason::Interrupted, message: message.into() },
    });
    true
}

/// Why a record written by a newer release is not opened here.
pub const SAVED_BY_NEWER: &str = "saved by a newer version of Thoughtline; reload to get the newer page (this one never overwrites it)";

/// What reading a stored chat gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadChat {
    /// The chat, and a note when some parts could not be read and were left out.
    Chat { chat: StoredChat, note: Option<String> },
    /// Nothing usable: the reason. The stored text stays as it is, for download.
    Unreadable { reason: String },
}

/// Reads a stored chat body, keeping every part that can be read.
pub fn read_chat(json: &str) -> ReadChat {
    if stored_version(json) > CHAT_VERSION {
        return ReadChat::Unreadable { reason: SAVED_BY_NEWER.into() };
    }
    match read_lenient::<StoredChat>(json) {
        Ok(read) if read.value.id.is_empty() && read.value.messages.is_empty() && read.value.trace.is_empty() => {
            ReadChat::Unreadable { reason: "the stored record holds no conversation".into() }
        }
        Ok(read) => {
            let note = (!read.dropped.is_empty()).then(|| {
                format!("Parts of this chat could not be read and are left out ({}); the rest is shown.", read.dropped.join(", "))
            });
            ReadChat::Chat { chat: read.value, note }
        }
        Err(e) => ReadChat::Unreadable { reason: format!("the stored text is damaged ({e})") },
    }
}
