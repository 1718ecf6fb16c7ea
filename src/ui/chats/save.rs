//! Writing a chat to the database. A part of the page (`parts`): turning a chat into its stored
//! records is needed once something has changed, never to show the first screen. Fetched when
//! the page is idle, so a save rarely waits for it; a save whose part cannot be fetched fails
//! like any other save (shown, and the chat stays in memory).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use leptos::prelude::*;

use crate::conversation::Conversation;
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
}

/// The chat's summary once stored; `None` when the open chat is no longer the one to write.
type Saving = Pin<Box<dyn Future<Output = Result<Option<ChatSummary>, String>>>>;

crate::ui::parts::part!(save_chat, preload = preload, pub fn writing(backend: Rc<dyn Backend>, write: Write, now_ms: f64) -> Saving {
    Box::pin(async move {
        let saved = match write {
            Write::Open { chat, id, writer } => {
                // Only what changed since the last save that committed is serialised and written.
                let Some(batch) = chat.with_untracked(|chat| (chat.id == id).then(|| writer.borrow().batch(chat, now_ms))) else {
                    return Ok(None);
                };
                store::save_changes(backend.as_ref(), &writer, batch).await
            }
            Write::Whole(chat) => store::save(backend.as_ref(), &chat, now_ms).await,
        };
        saved.map(Some).map_err(|e| e.to_string())
    })
});

crate::ui::parts::part!(journal_steps, preload = preload_steps, pub fn writing_steps(events: Vec<crate::agent::Event>) -> String {
    crate::app::journal::bounded_events(&events, crate::storage::event::events_json)
});

/// Steps as the journal keeps them (`app::journal::KeptSteps`); `Err` when the part could not
/// be fetched (the question is journaled all the same).
pub async fn steps_text(events: Vec<crate::agent::Event>) -> Result<String, ()> {
    writing_steps(events).await.map_err(drop)
}

/// Writes `write`; the error says what to do, a part that did not arrive included.
pub async fn write(backend: Rc<dyn Backend>, write: Write, now_ms: f64) -> Result<Option<ChatSummary>, String> {
    match writing(backend, write, now_ms).await {
        Ok(saving) => saving.await,
        Err(missing) => Err(missing.message("Saving")),
    }
}
