//! Reading stored chats: a part of the page (`parts`). Turning stored records back into a
//! conversation is needed only when there is a chat to open, so a first visit never fetches it;
//! a person coming back gets it while the database is read (`preload`, called at start when a
//! chat was open last time).

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use crate::storage::store::{self, Backend, Opened};

type Reading<T> = Pin<Box<dyn Future<Output = Result<T, String>>>>;

crate::ui::services::parts::part!(read_chat, preload = preload, pub fn opening(backend: Rc<dyn Backend>, id: String) -> Reading<Opened> {
    Box::pin(async move { store::open(backend.as_ref(), &id).await.map_err(|e| e.to_string()) })
});

crate::ui::services::parts::part!(move_legacy, preload = preload_moving, pub fn moving(backend: Rc<dyn Backend>, now_ms: f64) -> Reading<usize> {
    Box::pin(async move { store::migrate_legacy(backend.as_ref(), now_ms).await.map_err(|e| e.to_string()) })
});

/// Reads the chat `id`; the error says what to do, a part that did not arrive included.
pub async fn open(backend: Rc<dyn Backend>, id: String) -> Result<Opened, String> {
    match opening(backend, id).await {
        Ok(reading) => reading.await,
        Err(missing) => Err(missing.message("Reading chats")),
    }
}

/// Moves an older release's chats into the database, if it left any (`store::migrate_legacy`).
pub async fn move_legacy(backend: Rc<dyn Backend>, now_ms: f64) -> Result<usize, String> {
    if !store::has_legacy() {
        return Ok(0);
    }
    match moving(backend, now_ms).await {
        Ok(reading) => reading.await,
        Err(missing) => Err(missing.message("Moving the earlier version's chats")),
    }
}
