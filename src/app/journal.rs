//! Nothing typed is lost: the moment a question (or a reply to the agent's question) enters the
//! open chat, the chat's latest run as far as the person wrote it goes into the journal
//! (`storage::journal`, written synchronously), and it stays there until a save of the chat
//! holding it has committed. A page that goes away before that (a reload right after Send, a
//! closed tab, on a first visit while the saving code is still being fetched) finds the record
//! on its next load and turns it back into the chat, the run marked interrupted.
//!
//! The run's events go the same way when the page is hidden (`unsaved`: a reload, a closed or
//! backgrounded tab) while some are not stored yet: a burst of events is saved a moment after
//! it (`saves.rs`), and a page gone within that moment would lose them. Their text is written
//! ahead while the run goes on (`steps_to_keep`, `KeptSteps`), since a hiding page cannot wait.
//! They come back into their run, after the ones the database has.
//!
//! Bounded: one record per chat, its texts cut at `MAX_TEXT` characters with a note saying so,
//! its events the latest that fit in `MAX_EVENTS_BYTES`.

use crate::agent::Event;
use crate::conversation::{Clarification, Conversation, Run};
use crate::storage::chats::StoredClarification;
use crate::storage::journal::{JournalEntry, JOURNAL_VERSION};

/// The longest text a record keeps of a question or reply, in characters.
pub const MAX_TEXT: usize = 64 * 1024;
/// The most replies a record keeps of one run (the latest ones).
pub const MAX_REPLIES: usize = 32;
/// The most a record keeps of a run's events, in bytes of their stored text (the latest ones;
/// `localStorage` holds about 5 MB for the whole site).
pub const MAX_EVENTS_BYTES: usize = 1024 * 1024;

/// How far a chat's latest run goes: its number, how many replies and events it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub chat: String,
    pub run: usize,
    pub replies: usize,
    pub events: usize,
}

impl Mark {
    /// The open chat's latest run; `None` for an empty chat.
    pub fn of(chat: &Conversation) -> Option<Mark> {
        let run = chat.runs.len().checked_sub(1)?;
        Some(Mark { chat: chat.id.clone(), run, replies: chat.runs[run].clarified.len(), events: chat.runs[run].events.len() })
    }

    /// Whether a chat stored as far as `self` holds everything `other` marks.
    fn covers(&self, other: &Mark) -> bool {
        self.chat == other.chat && (self.run, self.replies, self.events) >= (other.run, other.replies, other.events)
    }

    /// Whether `self` holds everything the person wrote that `other` marks (events aside).
    fn covers_typed(&self, other: &Mark) -> bool {
        self.chat == other.chat && (self.run, self.replies) >= (other.run, other.replies)
    }
}

/// What this tab has journaled and not yet seen stored, and what it knows is stored, a mark
/// per chat.
#[derive(Debug, Default)]
pub struct Journal {
    written: Vec<Mark>,
    stored: Vec<Mark>,
}

/// Steps of the open chat's latest run as text (`storage::event::events_json`), written ahead
/// of need while the run goes on: the page being hidden has no time to wait for the part that
/// writes them, and the first load carries no writer of events (`ui/chats`).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptSteps {
    /// The run as far as the text holds it.
    pub mark: Mark,
    pub text: String,
}

/// The latest of `events` whose text (as `text` writes it) fits in `MAX_EVENTS_BYTES`.
pub fn bounded_events(events: &[Event], text: impl Fn(&[Event]) -> String) -> String {
    let mut from = 0;
    loop {
        let written = text(&events[from..]);
        if written.len() <= MAX_EVENTS_BYTES || from + 1 >= events.len() {
            return if written.len() <= MAX_EVENTS_BYTES { written } else { String::new() };
        }
        // Keeps the later half of what did not fit: a few writes at most.
        from += (events.len() - from).div_ceil(2);
    }
}

fn put(marks: &mut Vec<Mark>, mark: Mark) {
    marks.retain(|m| m.chat != mark.chat);
    marks.push(mark);
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
        let mark = Mark { events: 0, ..Mark::of(chat)? };
        // Journaled already, or held by a save that committed: nothing to write.
        if self.written.iter().chain(&self.stored).any(|w| w.covers_typed(&mark)) {
            return None;
        }
        let entry = entry(chat, &mark, String::new(), now_ms);
        put(&mut self.written, mark);
        Some(entry)
    }

    /// Which steps of the open chat's latest run to write ahead as text (`KeptSteps`): the run
    /// and the first event no save is known to hold; `None` when every step is stored or
    /// journaled already.
    pub fn steps_to_keep(&self, chat: &Conversation) -> Option<(Mark, usize)> {
        let mark = Mark::of(chat)?;
        if self.written.iter().chain(&self.stored).any(|m| m.covers(&mark)) {
            return None;
        }
        let from = self.stored.iter().find(|m| m.chat == mark.chat && m.run == mark.run).map_or(0, |m| m.events.min(mark.events));
        Some((mark, from))
    }

    /// The page is being hidden (reloaded, closed, sent to the background): the record to
    /// write now if the open chat's latest run holds events neither stored nor journaled, with
    /// those of them `kept` holds as text. Call `failed` when writing it fails.
    pub fn unsaved(&mut self, chat: &Conversation, now_ms: f64, kept: Option<&KeptSteps>) -> Option<JournalEntry> {
        let latest = Mark::of(chat)?;
        let kept = kept.filter(|k| k.mark.chat == latest.chat && k.mark.run == latest.run)?;
        let mark = kept.mark.clone();
        if self.written.iter().chain(&self.stored).any(|m| m.covers(&mark)) {
            return None;
        }
        let entry = entry(chat, &mark, kept.text.clone(), now_ms);
        put(&mut self.written, mark);
        Some(entry)
    }

    /// A chat as read from the database: what it holds is stored.
    pub fn loaded(&mut self, chat: &Conversation) {
        if let Some(mark) = Mark::of(chat) {
            put(&mut self.stored, mark);
        }
    }

    /// Writing chat `chat`'s record failed: the next change tries again.
    pub fn failed(&mut self, chat: &str) {
        self.written.retain(|w| w.chat != chat);
    }

    /// A save of the chat as far as `stored` has committed. The chat whose record can go, if
    /// this tab's record is all held by that save.
    pub fn stored(&mut self, stored: &Mark) -> Option<String> {
        put(&mut self.stored, stored.clone());
        let at = self.written.iter().position(|w| stored.covers(w))?;
        Some(self.written.remove(at).chat)
    }

    /// Chat `chat` was deleted: its record goes with it.
    pub fn forget(&mut self, chat: &str) {
        self.failed(chat);
        self.stored.retain(|m| m.chat != chat);
    }
}

/// The record of `chat`'s latest run as far as `mark`, with `events` as text.
fn entry(chat: &Conversation, mark: &Mark, events: String, now_ms: f64) -> JournalEntry {
    let run = &chat.runs[mark.run];
    let skip = run.clarified.len().saturating_sub(MAX_REPLIES);
    JournalEntry {
        version: JOURNAL_VERSION,
        chat: chat.id.clone(),
        run: mark.run as u32,
        question: bounded(&run.question),
        clarified: run.clarified[skip..].iter().map(|c| StoredClarification { asked: bounded(&c.asked), reply: bounded(&c.reply) }).collect(),
        events,
        at_ms: now_ms,
    }
}

/// Puts `events` (a record's, read back) into `run` after the ones it holds: those with a
/// number it does not have, numbered on from its last. Whether any were added.
fn add_events(run: &mut Run, events: &[Event]) -> bool {
    let held = run.events.len();
    let mut added = false;
    for event in events.iter().filter(|e| e.index as usize >= held) {
        let mut event = event.clone();
        event.index = run.events.len() as u32;
        run.events.push(event);
        added = true;
    }
    added
}

/// A record found at start, its events as read back (`entry.events`), and the chat as stored
/// (`None` when the database does not have it). The chat with the record's run in it, marked
/// interrupted unless its events end it; `None` when the stored chat already holds all of it
/// (the record can go).
pub fn restore(stored: Option<Conversation>, entry: &JournalEntry, events: &[Event]) -> Option<Conversation> {
    let mut chat = stored.unwrap_or_else(|| Conversation::new(entry.chat.clone()));
    let run = entry.run as usize;
    let clarified: Vec<Clarification> = entry.clarified.iter().map(|c| Clarification { asked: c.asked.clone(), reply: c.reply.clone() }).collect();
    let later_runs = chat.runs.len() > run + 1;
    let added = match chat.runs.get_mut(run) {
        Some(stored_run) if stored_run.question == entry.question => {
            // The stored chat went on past that run: what it holds is newer than the record.
            if later_runs {
                return None;
            }
            let replies = stored_run.clarified.len() < clarified.len();
            // A run stored as ended takes no later steps, unless a reply went on with it.
            let added = (stored_run.outcome.is_none() || replies) && add_events(stored_run, events);
            if !added && !replies {
                return None;
            }
            // Replies or steps the database did not get: the run went on after them.
            if replies {
                stored_run.clarified = clarified;
            }
            stored_run.outcome = None;
            added
        }
        // A run of that number holds another question (the chat went on in another tab):
        // the journaled one is added after it rather than lost.
        _ => {
            let mut lost = Run::new(entry.question.clone());
            lost.clarified = clarified;
            let added = add_events(&mut lost, events);
            chat.runs.push(lost);
            added
        }
    };
    // The record's steps end the run with an answer or a question to the person (the page
    // went away between that step and its save): it ended as they say. Any other end may be
    // the page's own doing (going away cuts its requests off, and the run fails on that), so
    // the run is marked cut off, its steps kept.
    let ended = chat.runs.last_mut().filter(|r| {
        added
            && r.events.last().is_some_and(|e| {
                matches!(e.kind, crate::agent::EventKind::RunStopped { reason: crate::agent::trace::StopReason::Answered | crate::agent::trace::StopReason::AskedPerson, .. })
            })
    });
    match ended {
        Some(run) => run.outcome = Some(crate::conversation::outcome(&run.events)),
        None => {
            chat.mark_interrupted();
        }
    }
    Some(chat)
}

#[cfg(test)]
mod tests;
