//! Nothing typed is lost: the moment a question (or a reply to the agent's question) enters the
//! open chat, the chat's latest run as far as the person wrote it goes into the journal
//! (`storage::journal`, written synchronously), and it stays there until a save of the chat
//! holding it has committed. A page that goes away before that (a reload right after Send, a
//! closed tab, on a first visit while the saving code is still being fetched) finds the record
//! on its next load and turns it back into the chat, the run marked interrupted.
//!
//! Bounded: one record per chat, its texts cut at `MAX_TEXT` characters with a note saying so.

use crate::conversation::{Clarification, Conversation, Run};
use crate::storage::chats::StoredClarification;
use crate::storage::journal::{JournalEntry, JOURNAL_VERSION};

/// The longest text a record keeps of a question or reply, in characters.
pub const MAX_TEXT: usize = 64 * 1024;
/// The most replies a record keeps of one run (the latest ones).
pub const MAX_REPLIES: usize = 32;

/// How far the person wrote a chat's latest run: its number and how many replies it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub chat: String,
    pub run: usize,
    pub replies: usize,
}

impl Mark {
    /// The open chat's latest run; `None` for an empty chat.
    pub fn of(chat: &Conversation) -> Option<Mark> {
        let run = chat.runs.len().checked_sub(1)?;
        Some(Mark { chat: chat.id.clone(), run, replies: chat.runs[run].clarified.len() })
    }

    /// Whether a chat stored as far as `self` holds everything `other` marks.
    fn covers(&self, other: &Mark) -> bool {
        self.chat == other.chat && (self.run, self.replies) >= (other.run, other.replies)
    }
}

/// What this tab has journaled and not yet seen stored, a mark per chat.
#[derive(Debug, Default)]
pub struct Journal {
    written: Vec<Mark>,
}

fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        None => text.to_string(),
        Some((end, _)) => format!("{}\n\n[Cut at {MAX_TEXT} characters: the page went away before the whole text was stored.]", &text[..end]),
    }
}

impl Journal {
    /// After a change to the open chat: the record to write now, if its latest run holds
    /// something the journal does not have yet. Call `failed` when writing it fails.
    pub fn note(&mut self, chat: &Conversation, now_ms: f64) -> Option<JournalEntry> {
        let mark = Mark::of(chat)?;
        if self.written.iter().any(|w| w.covers(&mark)) {
            return None;
        }
        let run = &chat.runs[mark.run];
        let skip = run.clarified.len().saturating_sub(MAX_REPLIES);
        let entry = JournalEntry {
            version: JOURNAL_VERSION,
            chat: chat.id.clone(),
            run: mark.run as u32,
            question: bounded(&run.question),
            clarified: run.clarified[skip..].iter().map(|c| StoredClarification { asked: bounded(&c.asked), reply: bounded(&c.reply) }).collect(),
            at_ms: now_ms,
        };
        self.written.retain(|w| w.chat != mark.chat);
        self.written.push(mark);
        Some(entry)
    }

    /// Writing chat `chat`'s record failed: the next change tries again.
    pub fn failed(&mut self, chat: &str) {
        self.written.retain(|w| w.chat != chat);
    }

    /// A save of the chat as far as `stored` has committed. The chat whose record can go, if
    /// this tab's record is all held by that save.
    pub fn stored(&mut self, stored: &Mark) -> Option<String> {
        let at = self.written.iter().position(|w| stored.covers(w))?;
        Some(self.written.remove(at).chat)
    }

    /// Chat `chat` was deleted: its record goes with it.
    pub fn forget(&mut self, chat: &str) {
        self.failed(chat);
    }
}

/// A record found at start, and the chat as stored (`None` when the database does not have
/// it). The chat with the record's run in it, marked interrupted; `None` when the stored chat
/// already holds all of it (the record can go).
pub fn restore(stored: Option<Conversation>, entry: &JournalEntry) -> Option<Conversation> {
    let mut chat = stored.unwrap_or_else(|| Conversation::new(entry.chat.clone()));
    let run = entry.run as usize;
    let clarified: Vec<Clarification> = entry.clarified.iter().map(|c| Clarification { asked: c.asked.clone(), reply: c.reply.clone() }).collect();
    let later_runs = chat.runs.len() > run + 1;
    match chat.runs.get_mut(run) {
        Some(stored_run) if stored_run.question == entry.question => {
            // The stored chat went on past that run: what it holds is newer than the record.
            if stored_run.clarified.len() >= clarified.len() || later_runs {
                return None;
            }
            // Replies the database did not get: the run went on after them, and was cut off.
            stored_run.clarified = clarified;
            stored_run.outcome = None;
        }
        // A run of that number holds another question (the chat went on in another tab):
        // the journaled one is added after it rather than lost.
        _ => {
            let mut lost = Run::new(entry.question.clone());
            lost.clarified = clarified;
            chat.runs.push(lost);
        }
    }
    chat.mark_interrupted();
    Some(chat)
}

#[cfg(test)]
mod tests;
