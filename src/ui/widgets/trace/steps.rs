//! What the trace pane's files share: the steps shown, read in place, and how many of them get
//! rows. A leaf below the pane (`trace`), its rows (`trace::row`), the find bar
//! (`trace::find`) and the timeline (`timeline`), so none of them reaches back into another.

use leptos::prelude::*;

use crate::agent::Event;
use crate::conversation::Conversation;

/// The events the pane shows: those of the conversation's shown run, read in place (a run's
/// events are never copied to be drawn).
#[derive(Clone, Copy)]
pub struct Steps(pub RwSignal<Conversation>);

impl Steps {
    pub fn with<R>(self, f: impl FnOnce(&[Event]) -> R) -> R {
        self.0.with(|c| f(c.shown_events()))
    }

    pub fn with_untracked<R>(self, f: impl FnOnce(&[Event]) -> R) -> R {
        self.0.with_untracked(|c| f(c.shown_events()))
    }

    pub fn track(self) {
        self.0.track();
    }
}

/// The most rows the pane holds: a 600-step run. An imported file may hold a hundred thousand
/// events, which as rows would slow every frame of the page; the newest are the ones shown.
pub const MAX_ROWS: usize = 3000;
