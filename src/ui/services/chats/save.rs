//! Writing a chat to the database. A part of the page (`parts`): turning a chat into its stored
//! records is needed once something has changed, never to show the first screen. Fetched when
//! the page is idle, so a save rarely waits for it; a save whose part cannot be fetched fails
//! like any other save (shown, and the chat stays in memory). It also writes what the journal
//! keeps of a run's steps while the run goes on, and turns a journal record found at start
//! back into its chat (`app::journal`): both need the writer of events, which the first
//! screen does without.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use leptos::prelude::*;

use crate::app::journal::{KeptSteps, Mark};
use crate::conversation::Conversation;
use crate::storage::journal::JournalEntry;
use crate::storage::store::{self, Backend};
use crate::storage::writer::ChatWriter;
use crate::storage::ChatSummary;

/// What to write.
pub enum Write {
    /// The open chat, if it is still chat `id`: what `writer` does not know to be stored,
    /// marked stored once committed.
    Open { chat: RwSignal<Conversation>, id: String, writer: Rc<RefCell<ChatWriter>> },
    /// A whole chat that is not the open one (another chat renamed).
    Whole(Conversation),
    /// A journal record found at start, and its chat as stored (`None` when the database has
    /// none): the chat with the record's run in it, written whole; nothing when the stored
    /// chat holds it all already.
    Restore { stored: Option<Conversation>, entry: JournalEntry },
    /// Not to the database: the open chat's latest steps from `from` up to `mark`, as text
    /// the journal writes when the page is hidden, into `kept`.
    Steps { chat: RwSignal<Conversation>, mark: Mark, from: usize, kept: StoredValue<Option<KeptSteps>> },
}

/// The chat's summary once stored; `None` when the open chat is no longer the one to write.
type Saving = Pin<Box<dyn Future<Output = Result<Option<ChatSummary>, String>>>>;

crate::ui::services::parts::part!(save_chat, preload = preload, pub fn writing(backend: Option<Rc<dyn Backend>>, write: Write, now_ms: f64) -> Saving {
    Box::pin(async move {
        // Steps are kept as text, not in the database: a run may go on before it is open.
        if let Write::Steps { chat, mark, from, kept } = write {
            let text = chat.try_with_untracked(|c| {
                let events = c.runs.get(mark.run).map(|r| &r.events[from.min(r.events.len())..mark.events.min(r.events.len())])?;
                Some(crate::app::journal::bounded_events(events, crate::storage::event::events_json))
            });
            if let Some(text) = text.flatten() {
                let _ = kept.try_set_value(Some(KeptSteps { mark, text }));
            }
            return Ok(None);
        }
        let Some(backend) = backend else { return Err("Chats cannot be saved in this browser yet.".into()) };
        let saved = match write {
            Write::Open { chat, id, writer } => {
                // Only what changed since the last save that committed is serialised and written.
                let Some(batch) = chat.with_untracked(|chat| (chat.id == id).then(|| writer.borrow().batch(chat, now_ms))) else {
                    return Ok(None);
                };
                store::save_changes(backend.as_ref(), &writer, batch).await
            }
            Write::Whole(chat) => store::save(backend.as_ref(), &chat, now_ms).await,
            Write::Restore { stored, entry } => {
                // Read as stored steps are: one that cannot be read costs only itself, and the
                // question comes back whatever the steps' text holds.
                let events = crate::storage::lenient::read_lenient::<Vec<crate::agent::Event>>(&entry.events).map(|read| read.value).unwrap_or_default();
                let Some(chat) = crate::app::journal::restore(stored, &entry, &events) else { return Ok(None) };
                store::save(backend.as_ref(), &chat, now_ms).await
            }
            Write::Steps { .. } => return Ok(None),
        };
        saved.map(Some).map_err(|e| e.to_string())
    })
});

/// Writes `write`; the error says what to do, a part that did not arrive included.
pub async fn write(backend: Rc<dyn Backend>, write: Write, now_ms: f64) -> Result<Option<ChatSummary>, String> {
    match writing(Some(backend), write, now_ms).await {
        Ok(saving) => saving.await,
        Err(missing) => Err(missing.message("Saving")),
    }
}

/// Writes the open chat's latest steps from `from` up to `mark` as text into `kept`, with or
/// without a database; a part that cannot be fetched leaves them to their save.
pub async fn keep_steps(chat: RwSignal<Conversation>, mark: Mark, from: usize, kept: StoredValue<Option<KeptSteps>>) {
    if let Ok(saving) = writing(None, Write::Steps { chat, mark, from, kept }, 0.0).await {
        let _ = saving.await;
    }
}
