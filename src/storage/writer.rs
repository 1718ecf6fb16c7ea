//! What a save writes: only the records of a chat that changed since the last save that
//! committed. The head (small) every time; a run's record when its question, clarifications or
//! outcome changed; of its events, only the chunks that gained events (the one still filling,
//! at most `CHUNK` events). So a save during a run writes about the same at step 200 as at
//! step 2, however many runs the chat already holds.
//!
//! A save that fails marks nothing written: the next one writes all of it again.

use super::chats::{line_chunk_key, run_key, version_of, ChatSummary, StoredHead, StoredRun, CHUNK};
use crate::conversation::Conversation;

/// One save of a chat: its id, its list line, its head (or, before version 3, the whole chat)
/// and the records beside it that changed, all JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: String,
    pub summary: String,
    pub body: String,
    /// `(key, text)`: run records and event chunks (`chats::run_key`, `chats::chunk_key`).
    pub parts: Vec<(String, String)>,
}

/// What has been written of one run: its record, and how many own events of each line (the
/// run as first asked, then its branches).
#[derive(Debug, Clone, Default, PartialEq)]
struct Written {
    record: String,
    events: Vec<usize>,
}

fn own_counts(run: &crate::conversation::Run) -> Vec<usize> {
    (0..run.lines()).filter_map(|n| run.line(n)).map(|line| line.own().len()).collect()
}

/// What is known to be stored of the open chat.
#[derive(Debug, Default)]
pub struct ChatWriter {
    chat: String,
    runs: Vec<Written>,
}

/// The records of one save, and what to mark written once it has committed.
#[derive(Debug)]
pub struct Batch {
    pub record: Record,
    pub summary: ChatSummary,
    chat: String,
    marks: Vec<(usize, Written)>,
}

impl Batch {
    /// Bytes the save hands to the database (the benchmark's figure).
    pub fn bytes(&self) -> usize {
        self.record.summary.len() + self.record.body.len() + self.record.parts.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
    }
}

impl ChatWriter {
    /// The chat was read from records of the current version: all of it is stored.
    pub fn loaded(&mut self, chat: &Conversation) {
        self.chat = chat.id.clone();
        self.runs = chat.runs.iter().map(|run| Written { record: run_json(&StoredRun::of(run)), events: own_counts(run) }).collect();
    }

    /// The records that bring what is stored of `chat` up to date.
    pub fn batch(&self, chat: &Conversation, now_unix_ms: f64) -> Batch {
        let same = self.chat == chat.id;
        let mut parts = Vec::new();
        let mut marks = Vec::new();
        for (i, run) in chat.runs.iter().enumerate() {
            let written = if same { self.runs.get(i).cloned().unwrap_or_default() } else { Written::default() };
            let record = run_json(&StoredRun::of(run));
            let changed = record != written.record;
            if changed {
                parts.push((run_key(&chat.id, i), record.clone()));
            }
            let counts = own_counts(run);
            for (n, &total) in counts.iter().enumerate() {
                let Some(line) = run.line(n) else { continue };
                let own = line.own();
                let done = written.events.get(n).copied().unwrap_or(0);
                // Whole chunks already written stay; the first one not complete is written again.
                for chunk in done.min(total) / CHUNK..total.div_ceil(CHUNK) {
                    let events = &own[chunk * CHUNK..((chunk + 1) * CHUNK).min(total)];
                    if chunk * CHUNK + events.len() <= done {
                        continue;
                    }
                    parts.push((line_chunk_key(&chat.id, i, n, chunk), super::event::events_json(events)));
                }
            }
            if changed || counts != written.events {
                marks.push((i, Written { record, events: counts }));
            }
        }
        let head = StoredHead { version: version_of(chat), id: chat.id.clone(), title: chat.title.clone(), runs: chat.runs.len() as u32 };
        let summary = ChatSummary::of(chat, now_unix_ms);
        let record = Record {
            id: chat.id.clone(),
            summary: serde_json::to_string(&summary).unwrap_or_default(),
            body: serde_json::to_string(&head).unwrap_or_default(),
            parts,
        };
        Batch { record, summary, chat: chat.id.clone(), marks }
    }

    /// `batch` has committed.
    pub fn committed(&mut self, batch: &Batch) {
        if self.chat != batch.chat {
            self.chat = batch.chat.clone();
            self.runs.clear();
        }
        for (i, written) in &batch.marks {
            if self.runs.len() <= *i {
                self.runs.resize(i + 1, Written::default());
            }
            // Saves commit in order, but a slower one must not roll a later one's marks back.
            let current = &self.runs[*i].events;
            let later = current.len() > written.events.len() || current.iter().zip(&written.events).any(|(now, then)| now > then);
            if !later {
                self.runs[*i] = written.clone();
            }
        }
    }
}

fn run_json(run: &StoredRun) -> String {
    serde_json::to_string(run).unwrap_or_default()
}
