//! When the open chat is saved. A change to the chat asks for a save now or soon
//! (`conversation::Save`); a save asked for soon is queued for *that* chat, `SAVE_DELAY_MS`
//! later, so a burst of a run's events costs one save. What a queued save must never do:
//! write another chat than the one it was queued for (a late save would move that chat to the
//! top of the list), or hold back a save of the chat opened meanwhile (an import opened within
//! the delay was never saved). A chat run by another tab is that tab's to save. A save that
//! failed leaves the chat unsaved, in memory, until one succeeds.
//!
//! Plain state: each operation returns what the page must do (`Do`), and time is a number the
//! caller passes, so the tests replay every fault with a clock they move by hand.

use crate::conversation::Save;
use crate::storage::tabs::TabNews;

/// How long a save asked for "soon" waits for more changes.
pub const SAVE_DELAY_MS: f64 = 250.0;

/// What the page must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Do {
    /// Save chat `0` now, if it is still the open one when the save runs (`may_write`).
    Save(String),
    /// Call `due` at this time (a queued save's).
    WakeAt(f64),
    /// No run goes on any more: let go of the run's cross-tab lock.
    ReleaseRunLock,
}

/// What news from another tab asks of the open chat.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    Nothing,
    /// Read the open chat again from the database.
    Reload,
    /// The open chat was deleted over there: show a new one.
    Clear,
}

#[derive(Debug, Clone)]
pub struct Saves {
    open: String,
    /// The save queued for later, and the chat it is for.
    queued: Option<(String, f64)>,
    /// The chat whose last save failed: it stays in memory until a save succeeds.
    failed: Option<String>,
    /// The open chat is being run by another tab: that tab saves it, this one must not.
    live_elsewhere: bool,
}

impl Saves {
    pub fn new(open: String) -> Self {
        Saves { open, queued: None, failed: None, live_elsewhere: false }
    }

    pub fn open_id(&self) -> &str {
        &self.open
    }

    pub fn live_elsewhere(&self) -> bool {
        self.live_elsewhere
    }

    /// Chat `id` is now the open one; `live_elsewhere` when another tab is running it.
    pub fn opened(&mut self, id: &str, live_elsewhere: bool) {
        self.open = id.to_string();
        self.live_elsewhere = live_elsewhere;
    }

    /// A change to the open chat, and what it asks of storage; `running` says whether a run
    /// still goes on in it after the change.
    pub fn changed(&mut self, save: Save, running: bool, now_ms: f64) -> Vec<Do> {
        match save {
            Save::No => Vec::new(),
            Save::Soon => {
                if self.queued.as_ref().is_some_and(|(id, _)| *id == self.open) {
                    return Vec::new();
                }
                // A save queued for a chat left meanwhile is not this one's: this chat gets its own.
                let due = now_ms + SAVE_DELAY_MS;
                self.queued = Some((self.open.clone(), due));
                vec![Do::WakeAt(due)]
            }
            Save::Now => {
                let mut out = vec![Do::Save(self.open.clone())];
                if !running {
                    out.push(Do::ReleaseRunLock);
                }
                out
            }
        }
    }

    /// The clock reached a `WakeAt`: the chat to save now, if its queued save is due and it is
    /// still open. One that was left was saved on the way out, or deleted.
    pub fn due(&mut self, now_ms: f64) -> Option<String> {
        let (id, at) = self.queued.as_ref()?;
        if *at > now_ms {
            return None;
        }
        let id = id.clone();
        self.queued = None;
        (id == self.open).then_some(id)
    }

    /// Whether a save of chat `id` may write now: it is the open chat and this tab's to write.
    pub fn may_write(&self, id: &str) -> bool {
        id == self.open && !self.live_elsewhere
    }

    /// How a save of chat `id` ended.
    pub fn saved(&mut self, id: &str, ok: bool) {
        if ok {
            if self.failed.as_deref() == Some(id) {
                self.failed = None;
            }
        } else {
            self.failed = Some(id.to_string());
        }
    }

    /// Whether the open chat holds something no save has written yet.
    pub fn unsaved(&self) -> bool {
        self.queued.as_ref().is_some_and(|(id, _)| *id == self.open) || self.failed.as_deref() == Some(self.open.as_str())
    }

    /// A run is about to start in the open chat. Two tabs must not write one chat: when another
    /// tab runs it, the question goes on in a new chat `new_id`, with the conversation so far.
    /// Whether it moved.
    pub fn run_starting(&mut self, new_id: &str) -> bool {
        if !self.live_elsewhere {
            return false;
        }
        self.live_elsewhere = false;
        self.open = new_id.to_string();
        true
    }

    /// Another tab saved or deleted a chat; `running` says whether a run goes on here.
    pub fn hear(&self, news: &TabNews, running: bool) -> Heard {
        let (TabNews::Saved { id } | TabNews::Deleted { id }) = news;
        if *id != self.open || running {
            return Heard::Nothing;
        }
        // Changes this tab has not saved are kept, unless the chat is the other tab's to write.
        let theirs = self.live_elsewhere || !self.unsaved();
        match news {
            TabNews::Saved { .. } if theirs => Heard::Reload,
            TabNews::Deleted { .. } if theirs => Heard::Clear,
            _ => Heard::Nothing,
        }
    }
}

#[cfg(test)]
mod tests;
