//! Everything this page keeps in the browser, and the stored shapes, kept apart from the UI's
//! types so that changing the UI never silently breaks saved data. Imports no UI module.
//!
//! - `settings.rs`: the stored shape of the settings and the theme in `localStorage`
//!   (`local.rs`), read field by field; `keys.rs`: the stored keys of other providers. The
//!   settings model and its secrets' rules are the app's (`app::settings`).
//! - `chats.rs`: the stored shapes of a conversation (`crate::conversation`) and reading every
//!   version of them; `writer.rs`: what a save writes (only the records that changed);
//!   `store.rs`: listing, opening, saving, deleting and moving an older release's chats, over a
//!   `Backend`; `idb.rs`: that backend in IndexedDB. (The list the page shows, and what a
//!   person does to it, is the app's: `app::chats`.)
//! - `documents.rs`: the stored shape of a document (its pages and its share of the index);
//!   `documents_idb.rs`: their database, with the files' own bytes.
//! - `export.rs`: the conversation export file. `lenient.rs`: tolerant reading for all of the above;
//!   `read.rs`: the readers of the stored shapes (serde writes them, these read them).
//! - `tabs.rs`: telling other tabs what changed, and which runs are live.
//!
//! **Rule:** every write returns a `Result` the caller must show to the person when it fails,
//! and what is in memory stays until a write succeeds; reads keep every part they can, and
//! data written by a newer release is never overwritten.

pub mod chats;
pub mod documents;
#[cfg(target_arch = "wasm32")]
pub mod documents_idb;
pub mod error;
pub mod evals;
pub mod event;
pub(crate) mod agent_settings_read;
pub mod export;
pub mod keys;
#[cfg(target_arch = "wasm32")]
pub mod idb;
pub mod journal;
pub mod lenient;
pub mod local;
mod read;
pub mod settings;
pub mod store;
pub mod tabs;
pub(crate) mod tool_settings_read;
pub(crate) mod trace_read;
pub mod writer;

#[cfg(test)]
pub(crate) mod tests;

pub use chats::ChatSummary;
pub use error::{StorageError, StorageErrorKind};
pub use export::{export_chat, import_chat, import_value, ExportedSettings, EXPORT_FORMAT};
pub use settings::{load_theme, save_theme, SETTINGS_KEY};

/// The chat that was open last (per browser, like the theme).
pub const CURRENT_CHAT_KEY: &str = "thoughtline.current";

pub fn current_chat_id() -> Option<String> {
    local::read(CURRENT_CHAT_KEY).filter(|id| !id.is_empty())
}

/// Losing this only means a reload opens the newest chat instead.
pub fn set_current_chat_id(id: &str) {
    let _ = local::write(CURRENT_CHAT_KEY, id);
}

/// The same database for records beside the chats (evaluations), opened by the part of the
/// page that keeps them.
pub async fn open_records() -> Result<std::rc::Rc<dyn store::RecordStore>, StorageError> {
    #[cfg(target_arch = "wasm32")]
    return Ok(std::rc::Rc::new(idb::IdbBackend::open(|| {}).await?));
    #[cfg(not(target_arch = "wasm32"))]
    Err(StorageError::new(StorageErrorKind::Unavailable, "no browser database outside the page"))
}

/// Opens the browser's chat database. `on_blocked` is called while another tab holds an
/// older version of it open.
pub async fn open_backend(on_blocked: impl Fn() + 'static) -> Result<std::rc::Rc<dyn store::Backend>, StorageError> {
    #[cfg(target_arch = "wasm32")]
    return Ok(std::rc::Rc::new(idb::IdbBackend::open(on_blocked).await?));
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = on_blocked;
        Err(StorageError::new(StorageErrorKind::Unavailable, "no browser database outside the page"))
    }
}
