//! The model in the page, as the page shares it: where its load stands (`Status`, shown by
//! `StatusLine` in the chat and in Settings), the files a person picked from their disk, and
//! the one load in progress, which Cancel ends. Loading itself is in the parts that need it
//! (the agent's engine, Settings): `prepare`.

use leptos::prelude::*;

use crate::agent::CancelToken;
pub use crate::in_page::{file_name, human_bytes, Status};
pub use crate::llm::in_page::RECOMMENDED;
#[cfg(target_arch = "wasm32")]
use crate::app::settings::Settings;

/// Shared by the chat, Settings and the runs (`provide_context` in `App`).
#[derive(Clone, Copy)]
pub struct InPage {
    pub status: RwSignal<Status>,
    /// `.gguf` files picked in Settings: read from disk when loaded, sent nowhere, and gone
    /// with the page (a file on disk can only be read when the person picks it).
    picked: StoredValue<Vec<web_sys::File>, LocalStorage>,
    /// The load in progress (what it loads, and its token), ended by Cancel.
    loading: StoredValue<Option<(String, CancelToken)>, LocalStorage>,
}

/// What `ProviderConfig::model` holds for picked files: this prefix and their names.
pub const PICKED_PREFIX: &str = "file: ";

impl InPage {
    pub fn install() -> InPage {
        let handle = InPage { status: RwSignal::new(Status::Idle), picked: StoredValue::new_local(Vec::new()), loading: StoredValue::new_local(None) };
        provide_context(handle);
        handle
    }

    /// The page's handle (a pane mounted on its own, as in the tests, makes its own).
    pub fn from_context() -> InPage {
        use_context::<InPage>().unwrap_or_else(InPage::install)
    }

    /// Keeps the `.gguf` files chosen in `input`; their names, joined, or `None` when none was.
    pub fn pick(self, input: &crate::ui::services::page::Chosen) -> Option<String> {
        let files = input.files();
        if files.is_empty() {
            return None;
        }
        let names = files.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ");
        self.picked.set_value(files);
        Some(names)
    }

    pub fn cancel(self) {
        if let Some((_, token)) = self.loading.get_value() {
            token.cancel();
        }
    }
}

/// Loads the model the settings name, unless it is loaded already; a second call while one
/// load runs takes its place. `Err` is what to tell the person.
#[cfg(target_arch = "wasm32")]
pub async fn prepare(handle: InPage, settings: &Settings) -> Result<(), String> {
    use crate::agent::time::{race, Either};
    use crate::in_page::{browser, ModelSource};
    use std::rc::Rc;
    let model = settings.provider.model.trim().to_string();
    let source = if let Some(names) = model.strip_prefix(PICKED_PREFIX) {
        let files = handle.picked.get_value();
        if files.is_empty() {
            let why = format!("Pick {names} again in Settings (⚙): a file on your disk can only be read right after you pick it.");
            handle.status.set(Status::Failed(why.clone()));
            return Err(why);
        }
        ModelSource::Files(files)
    } else {
        ModelSource::Url(model.clone())
    };
    // The same model on its way already (the warm-up at page load): wait for that load instead
    // of starting over; another model's load gives way to this one.
    while handle.loading.with_value(|l| l.as_ref().is_some_and(|(key, _)| *key == model)) {
        crate::agent::Clock::sleep(&crate::browser::BrowserClock, 100.0).await;
    }
    handle.cancel();
    let token = CancelToken::new();
    handle.loading.set_value(Some((model.clone(), token.clone())));
    let status = handle.status;
    let report: Rc<dyn Fn(Status)> = Rc::new(move |s| status.set(s));
    let outcome = race(browser::ensure_loaded(&model, source, settings.connection.context_tokens, report), token.cancelled()).await;
    if handle.loading.with_value(|l| l.as_ref().is_some_and(|(_, t)| t.same_as(&token))) {
        handle.loading.set_value(None);
    }
    match outcome {
        Either::Left(Ok(_)) => Ok(()),
        Either::Left(Err(e)) => Err(e.message),
        Either::Right(()) => {
            let why = "Loading the model was cancelled; nothing half-downloaded was kept.".to_string();
            status.set(Status::Failed(why.clone()));
            Err(why)
        }
    }
}
