//! The page's side of the person's documents (`app::documents`): files taken from the file
//! input, a drop or pasted text; their bytes held until they are stored; a PDF read by the PDF
//! reader (`www/pdf/read.js`, fetched on first use); each step of indexing a task of its own;
//! the documents' database (`storage::documents_idb`); and asking the browser to keep the
//! site's data. The index is shared with each run's `documents` tool (`shelf_for_run`).
//!
//! The documents are read from the database when the panel opens or a run starts, and only if
//! this browser has stored any (a mark in `localStorage`): a person without documents never
//! opens their database.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;

use crate::app::documents::{Do, Library, Msg, Row};
pub use crate::tools::documents::Shelf;

/// Set once a document was stored in this browser, cleared when the last one is removed.
const STORED_MARK: &str = "thoughtline.documents";
/// Meaning search, as the person turned it on: the embedding model and the address they
/// agreed to send passages to (`{"model":…,"url":…}`). Another address in Settings turns it off.
const MEANING_KEY: &str = "thoughtline.documents.meaning";

/// What the panel offers for meaning search, from the settings in use.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MeaningOffer {
    /// Where passages would be sent (the provider's `/embeddings`); `None` when the provider
    /// has none (Anthropic, the model in the page).
    pub url: Option<String>,
    /// That address is on this machine.
    pub local: bool,
    /// The model, while meaning search is on.
    pub on: Option<String>,
    /// The model last chosen (shown in the field while off).
    pub model: String,
}

/// What the Documents panel draws, mirrored from the app after each change.
#[derive(Clone, Copy)]
pub struct Documents {
    pub rows: RwSignal<Vec<Row>>,
    pub busy: RwSignal<bool>,
    /// A problem with the documents' database (cannot open, removed elsewhere, newer records).
    pub problem: RwSignal<Option<String>>,
    /// What the browser said about keeping the site's data.
    pub kept: RwSignal<Option<String>>,
    /// What the browser allows and what is used.
    pub storage: RwSignal<Option<String>>,
    /// The stored documents have been read.
    pub loaded: RwSignal<bool>,
    /// The passage a citation asked to see, until the panel has opened it.
    pub cited: RwSignal<Option<crate::documents::cited::Source>>,
    pub meaning: RwSignal<MeaningOffer>,
}

thread_local! {
    static LIBRARY: RefCell<Library> = RefCell::new(Library::default());
    /// Files' bytes, from their arrival until they are stored (or fail).
    static BYTES: RefCell<HashMap<String, Vec<u8>>> = RefCell::new(HashMap::new());
    static VIEW: RefCell<Option<Documents>> = const { RefCell::new(None) };
    /// A citation clicked before the panel was first built.
    static CITED: RefCell<Option<crate::documents::cited::Source>> = const { RefCell::new(None) };
    static LOAD: RefCell<Load> = const { RefCell::new(Load::NotYet) };
    /// The page's settings (the provider meaning search would use), once the panel is built.
    static SETTINGS: RefCell<Option<RwSignal<crate::app::settings::Settings>>> = const { RefCell::new(None) };
    /// When the last document was added (`meta`).
    static LAST_ADDED: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    #[cfg(target_arch = "wasm32")]
    static DB: RefCell<Option<Rc<crate::storage::documents_idb::DocumentsDb>>> = const { RefCell::new(None) };
}

enum Load {
    NotYet,
    Going,
    Done,
}

/// The panel's signals (made the first time; the panel is built once and then hidden).
pub fn panel() -> Documents {
    if let Some(view) = VIEW.with(|v| *v.borrow()) {
        return view;
    }
    let view = Documents {
        rows: RwSignal::new(Vec::new()),
        busy: RwSignal::new(false),
        problem: RwSignal::new(None),
        kept: RwSignal::new(None),
        storage: RwSignal::new(None),
        loaded: RwSignal::new(false),
        cited: RwSignal::new(CITED.with(|c| c.borrow_mut().take())),
        meaning: RwSignal::new(MeaningOffer::default()),
    };
    VIEW.with(|v| *v.borrow_mut() = Some(view));
    if let Some(settings) = use_context::<super::mcp::Mcp>().map(|m| m.settings()) {
        SETTINGS.with(|s| *s.borrow_mut() = Some(settings));
        // Meaning search follows the provider in Settings: on for the address the person agreed
        // to, off for any other, and the panel says where passages would go now.
        Effect::new(move |_| {
            settings.track();
            send(Msg::Meaning(meaning_offer().on));
        });
    }
    leptos::task::spawn_local(async move {
        loaded().await;
        mirror();
        estimate();
    });
    view
}

/// A citation was clicked: the panel opens the passage's document there (now, or when it is
/// first built).
pub fn cite(source: crate::documents::cited::Source) {
    match VIEW.with(|v| *v.borrow()) {
        Some(view) => view.cited.set(Some(source)),
        None => CITED.with(|c| *c.borrow_mut() = Some(source)),
    }
}

/// The index for a run's `documents` tool: `None` when this browser has no documents. Stored
/// documents are read by a part of their own (`read_documents`), fetched only where there are.
pub async fn shelf_for_run() -> Option<Shelf> {
    let any_here = LIBRARY.with(|l| !l.borrow().rows().is_empty());
    if !any_here && crate::storage::local::read(STORED_MARK).is_none() {
        return None;
    }
    if let Ok(reading) = read_documents().await {
        reading.await;
    }
    Some(LIBRARY.with(|l| l.borrow().shelf()))
}

/// The person's documents as files, (name, bytes as added), for Python's `/documents/`: those
/// ready to search, in their order.
pub async fn files() -> Vec<(String, Vec<u8>)> {
    let Some(shelf) = shelf_for_run().await else { return Vec::new() };
    let named: Vec<(String, String)> = shelf.borrow().documents().map(|d| (d.doc.clone(), d.name.clone())).collect();
    let mut out = Vec::with_capacity(named.len());
    for (id, name) in named {
        if let Some(bytes) = bytes_of(&id).await {
            out.push((name, bytes));
        }
    }
    out
}

/// The meaning search the person turned on: (model, the address they agreed to).
fn meaning_choice() -> Option<(String, String)> {
    let text = crate::storage::local::read(MEANING_KEY)?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some((value.get("model")?.as_str()?.to_string(), value.get("url")?.as_str()?.to_string()))
}

/// The embedder for `settings`, when meaning search is on for its address.
pub fn embedder(settings: &crate::app::settings::Settings) -> Option<Rc<crate::llm::embeddings::Embedder>> {
    let (model, url) = meaning_choice()?;
    let embedder = make_embedder(settings, &model)?;
    (embedder.url() == url).then(|| Rc::new(embedder))
}

fn settings_now() -> Option<crate::app::settings::Settings> {
    SETTINGS.with(|s| s.borrow().map(|s| s.get_untracked()))
}

/// What the panel offers, from the page's settings.
fn meaning_offer() -> MeaningOffer {
    let Some(settings) = settings_now() else { return MeaningOffer::default() };
    let choice = meaning_choice();
    let url = make_embedder(&settings, "any").map(|e| e.url());
    let on = choice.as_ref().filter(|(_, agreed)| Some(agreed) == url.as_ref()).map(|(m, _)| m.clone());
    MeaningOffer { local: url.as_deref().is_some_and(crate::llm::embeddings::on_this_machine), url, on, model: choice.map(|c| c.0).unwrap_or_default() }
}

/// Turns meaning search on with `model` (agreeing to send passages to the provider's
/// address) or off.
pub fn set_meaning(model: Option<String>) {
    let model = model.map(|m| m.trim().to_string()).filter(|m| !m.is_empty());
    let mut on = None;
    match model.as_ref().zip(settings_now()).and_then(|(m, settings)| make_embedder(&settings, m)) {
        Some(embedder) => {
            let choice = serde_json::json!({ "model": embedder.model, "url": embedder.url() }).to_string();
            if let Err(e) = crate::storage::local::write(MEANING_KEY, &choice) {
                problem(format!("Meaning search is on until this page is closed, but the choice could not be kept: {e}"));
            }
            on = Some(embedder.model.clone());
        }
        None => crate::storage::local::remove(MEANING_KEY),
    }
    send(Msg::Meaning(on));
}

/// Turns meaning search on in the app when the person chose it for the provider in use.
fn resume_meaning() {
    let on = meaning_offer().on;
    if on.is_some() {
        send(Msg::Meaning(on));
    }
}

crate::ui::services::parts::part!(read_documents, preload = preload_read_documents, pub fn read_documents() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
    Box::pin(loaded())
});

/// Waits until the stored documents are read (reading them the first time).
async fn loaded() {
    loop {
        let start = LOAD.with(|l| {
            let mut l = l.borrow_mut();
            match *l {
                Load::NotYet => {
                    *l = Load::Going;
                    Some(true)
                }
                Load::Going => Some(false),
                Load::Done => None,
            }
        });
        match start {
            None => return,
            Some(true) => {
                read_stored().await;
                LOAD.with(|l| *l.borrow_mut() = Load::Done);
                resume_meaning();
                return;
            }
            Some(false) => pause().await,
        }
    }
}

/// Gives the rest of the page its turn: resolves in a task of its own.
async fn pause() {
    let state = Rc::new(RefCell::new((false, None)));
    page_after_zero(state.clone());
    Wait(state).await;
}

/// A one-shot wake-up: whether it came, and the waker of the one waiting for it.
struct Wait(Rc<RefCell<(bool, Option<std::task::Waker>)>>);

impl std::future::Future for Wait {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let mut state = self.0.borrow_mut();
        if state.0 {
            std::task::Poll::Ready(())
        } else {
            state.1 = Some(cx.waker().clone());
            std::task::Poll::Pending
        }
    }
}

fn page_after_zero(tx: Rc<RefCell<(bool, Option<std::task::Waker>)>>) {
    super::page::after(std::time::Duration::ZERO, move || {
        let waker = {
            let mut state = tx.borrow_mut();
            state.0 = true;
            state.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    });
}

/// Copies the app's rows into the panel's signals.
fn mirror() {
    let Some(view) = VIEW.with(|v| *v.borrow()) else { return };
    let (rows, busy) = LIBRARY.with(|l| {
        let l = l.borrow();
        (l.rows().to_vec(), l.busy())
    });
    view.rows.set(rows);
    view.busy.set(busy);
    let offer = meaning_offer();
    if view.meaning.get_untracked() != offer {
        view.meaning.set(offer);
    }
    view.loaded.set(LOAD.with(|l| matches!(*l.borrow(), Load::Done)));
}

fn problem(text: String) {
    if let Some(view) = VIEW.with(|v| *v.borrow()) {
        view.problem.set(Some(text));
    }
}

/// Gives the app a message and carries out what it returns.
pub fn send(msg: Msg) {
    let todo = LIBRARY.with(|l| l.borrow_mut().handle(msg));
    mirror();
    for what in todo {
        carry_out(what);
    }
}

fn carry_out(what: Do) {
    match what {
        Do::Yield => super::page::after(std::time::Duration::ZERO, || send(Msg::Step)),
        Do::DropBytes(id) => {
            BYTES.with(|b| b.borrow_mut().remove(&id));
        }
        Do::AskToKeep => ask_to_keep(),
        Do::Embed { id, from, texts } => leptos::task::spawn_local(async move {
            let result = match settings_now().and_then(|settings| embedder(&settings)) {
                Some(embedder) => embedder.embed(&texts).await,
                None => Err("the provider in Settings changed: turn meaning search on again for it.".into()),
            };
            let failed = result.is_err();
            send(Msg::Embedded { id, from, result });
            // The app turned meaning search off: so does the panel's box, to be ticked again.
            if failed && LIBRARY.with(|l| l.borrow().meaning_model().is_none()) {
                crate::storage::local::remove(MEANING_KEY);
                mirror();
            }
        }),
        Do::Read(id) => leptos::task::spawn_local(async move {
            match bytes_of(&id).await {
                Some(bytes) => send(Msg::Bytes { id, bytes }),
                None => send(Msg::Unreadable { id, why: crate::documents::ReadError::Gone }),
            }
        }),
        Do::ReadPdf(id) => leptos::task::spawn_local(async move {
            let Some(bytes) = bytes_of(&id).await else {
                return send(Msg::Unreadable { id, why: crate::documents::ReadError::Gone });
            };
            let pages = pdf_pages(&bytes).await;
            send(Msg::PdfRead { id, pages });
        }),
        Do::Store(id) => leptos::task::spawn_local(async move {
            let result = store(&id).await;
            if result.is_ok() {
                BYTES.with(|b| b.borrow_mut().remove(&id));
                let _ = crate::storage::local::write(STORED_MARK, "1");
            }
            send(Msg::Stored { id, result });
            estimate();
        }),
        Do::Delete(id) => leptos::task::spawn_local(async move {
            BYTES.with(|b| b.borrow_mut().remove(&id));
            if let Err(why) = delete(&id).await {
                problem(format!("The document was taken out of search, but could not be deleted from this browser's storage: {why}"));
            }
            if LIBRARY.with(|l| l.borrow().rows().is_empty()) {
                crate::storage::local::remove(STORED_MARK);
            }
            estimate();
        }),
    }
}

/// Takes in files the person picked or dropped: each gets a row at once, its bytes are read,
/// then it is queued.
pub fn add_files(files: Vec<web_sys::File>) {
    for file in files {
        // A folder's files carry their path in it (`webkitRelativePath`).
        let path = js_sys::Reflect::get(&file, &"webkitRelativePath".into()).ok().and_then(|p| p.as_string()).filter(|p| !p.is_empty());
        let name = path.unwrap_or_else(|| file.name());
        let mime = file.type_();
        let size = file.size() as u64;
        let id = new_id();
        let Some(kind) = crate::documents::Kind::of(&name, &mime) else {
            send(Msg::Refused { meta: meta(&id, &name, crate::documents::Kind::Text, size), why: crate::documents::ReadError::Unknown });
            continue;
        };
        let meta = meta(&id, &name, kind, size);
        if size > crate::documents::read::MAX_FILE_BYTES {
            send(Msg::Added { meta, mime });
            continue;
        }
        leptos::task::spawn_local(async move {
            match read_file(&file).await {
                Ok(bytes) => {
                    BYTES.with(|b| b.borrow_mut().insert(id.clone(), bytes));
                    send(Msg::Added { meta, mime });
                }
                Err(why) => send(Msg::Refused { meta, why: crate::documents::ReadError::NotHanded(why) }),
            }
        });
    }
}

/// Files picked in a file input (its `change` event).
pub fn add_chosen(ev: &leptos::ev::Event) {
    let chosen = super::page::chosen(ev);
    add_files(chosen.files());
    chosen.clear();
}

/// Files dropped on the drop area.
pub fn add_dropped(ev: &leptos::ev::DragEvent) {
    ev.prevent_default();
    let files = ev.data_transfer().and_then(|d| d.files()).map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect()).unwrap_or_default();
    add_files(files);
}

/// Lets a drop happen on the drop area.
pub fn allow_drop(ev: &leptos::ev::DragEvent) {
    ev.prevent_default();
}

/// Pasted text, as a document called `name`.
pub fn add_text(name: &str, text: &str) {
    let id = new_id();
    let name = if crate::documents::Kind::of(name, "").is_some() { name.to_string() } else { format!("{name}.txt") };
    let kind = crate::documents::Kind::of(&name, "").unwrap_or(crate::documents::Kind::Text);
    BYTES.with(|b| b.borrow_mut().insert(id.clone(), text.as_bytes().to_vec()));
    send(Msg::Added { meta: meta(&id, &name, kind, text.len() as u64), mime: "text/plain".into() });
}

/// A document's pages, for its text view.
pub fn pages_of(id: &str) -> Vec<crate::documents::Page> {
    LIBRARY.with(|l| l.borrow().pages_of(id).map(|p| p.to_vec()).unwrap_or_default())
}

/// A document's passages as indexed, for its text view.
pub fn passages_of(id: &str) -> Vec<crate::documents::Passage> {
    LIBRARY.with(|l| l.borrow().shelf().borrow().documents().find(|d| d.doc == id).map(|d| d.passages.clone()).unwrap_or_default())
}

/// The id of the document called `name` (a citation names its document so).
pub fn id_named(name: &str) -> Option<String> {
    LIBRARY.with(|l| l.borrow().rows().iter().find(|r| r.meta.name == name).map(|r| r.meta.id.clone()))
}

/// Scrolls the marked passage of the open text into view, once it is drawn.
pub fn reveal_marked() {
    super::page::next_frame(|| {
        #[cfg(target_arch = "wasm32")]
        if let Some(found) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(".document-text .passage.cited").ok().flatten()) {
            found.scroll_into_view();
        }
    });
}

/// The name of document `id`.
pub fn name_of(id: &str) -> Option<String> {
    LIBRARY.with(|l| l.borrow().rows().iter().find(|r| r.meta.id == id).map(|r| r.meta.name.clone()))
}

/// A new document's description. Files added together are a millisecond apart, in the order
/// they were given, so the list keeps that order after a reload.
fn meta(id: &str, name: &str, kind: crate::documents::Kind, size: u64) -> crate::documents::Meta {
    let added_ms = LIBRARY.with(|l| l.borrow().rows().iter().map(|r| r.meta.added_ms + 1.0).fold(super::page::now_ms(), f64::max));
    let added_ms = LAST_ADDED.with(|last| {
        let at = added_ms.max(last.get() + 1.0);
        last.set(at);
        at
    });
    crate::documents::Meta { id: id.into(), name: name.into(), kind, size, added_ms }
}

fn new_id() -> String {
    format!("d{:x}{:06x}", super::page::now_ms() as u64, (super::page::random() * 16_777_216.0) as u64)
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;

    pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
        let buffer = JsFuture::from(file.array_buffer()).await.map_err(|e| js_text(&e))?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }

    fn js_text(e: &wasm_bindgen::JsValue) -> String {
        js_sys::Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string()).or_else(|| e.as_string()).unwrap_or_else(|| "no reason given".into())
    }

    async fn db() -> Result<Rc<crate::storage::documents_idb::DocumentsDb>, String> {
        if let Some(db) = DB.with(|d| d.borrow().clone()) {
            return Ok(db);
        }
        let on_blocked = || problem("Another Thoughtline tab holds the documents' storage with an older version: close it or reload it, and this page goes on.".into());
        let on_closed = || {
            DB.with(|d| *d.borrow_mut() = None);
            problem("A newer Thoughtline was opened in another tab: reload this page to keep using your documents here.".into());
        };
        let db = Rc::new(crate::storage::documents_idb::DocumentsDb::open(on_blocked, on_closed).await.map_err(|e| e.to_string())?);
        DB.with(|d| *d.borrow_mut() = Some(db.clone()));
        Ok(db)
    }

    pub async fn read_stored() {
        let db = match db().await {
            Ok(db) => db,
            Err(why) => return problem(format!("Your stored documents could not be opened: {why}")),
        };
        let records = match db.records().await {
            Ok(r) => r,
            Err(why) => return problem(format!("Your stored documents could not be read: {why}")),
        };
        let (mut newer, mut damaged) = (0, 0);
        for text in records {
            match crate::storage::documents::decode(&text) {
                Ok(one) => send(Msg::Loaded(vec![one])),
                Err(crate::storage::documents::Unread::Newer(_)) => newer += 1,
                Err(crate::storage::documents::Unread::Damaged(_)) => damaged += 1,
            }
            // One document per task: a large library never holds the page.
            pause().await;
        }
        if newer + damaged > 0 {
            let mut parts = Vec::new();
            if newer > 0 {
                parts.push(format!("{newer} stored by a newer Thoughtline (reload to get it; they are left as they are)"));
            }
            if damaged > 0 {
                parts.push(format!("{damaged} that could not be read"));
            }
            problem(format!("Some stored documents are not listed: {}.", parts.join(" and ")));
        }
    }

    pub async fn store(id: &str) -> Result<(), String> {
        let Some((meta, pages, indexed, vectors)) = LIBRARY.with(|l| l.borrow().stored(id)) else { return Ok(()) };
        let record = crate::storage::documents::encode(&meta, &pages, &indexed, vectors.as_ref());
        let db = db().await?;
        let bytes = BYTES.with(|b| b.borrow().get(id).cloned());
        db.put(id, &record, bytes.as_deref()).await.map_err(|e| match e.kind {
            crate::storage::StorageErrorKind::Full => "this browser's storage for the site is full: remove documents or chats to make room.".to_string(),
            _ => format!("{e}."),
        })
    }

    pub async fn delete(id: &str) -> Result<(), String> {
        db().await?.delete(id).await.map_err(|e| e.to_string())
    }

    pub async fn bytes_of(id: &str) -> Option<Vec<u8>> {
        if let Some(bytes) = BYTES.with(|b| b.borrow().get(id).cloned()) {
            return Some(bytes);
        }
        let bytes = db().await.ok()?.file(id).await.ok()??;
        BYTES.with(|b| b.borrow_mut().insert(id.to_string(), bytes.clone()));
        Some(bytes)
    }

    pub async fn pdf_pages(bytes: &[u8]) -> Result<Vec<String>, crate::documents::ReadError> {
        use crate::documents::ReadError;
        let base = web_sys::window().and_then(|w| w.document()).and_then(|d| d.base_uri().ok().flatten()).unwrap_or_default();
        let url = web_sys::Url::new_with_base("pdf/read.js", &base).map(|u| u.href()).unwrap_or_else(|_| "pdf/read.js".into());
        let module = JsFuture::from(crate::browser::import_module(&url)).await.map_err(|e| ReadError::ReaderMissing(js_text(&e)))?;
        let pages = js_sys::Reflect::get(&module, &"pages".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok()).ok_or_else(|| ReadError::ReaderMissing("pdf/read.js has no pages()".into()))?;
        let data = js_sys::Uint8Array::from(bytes);
        let promise = pages.call1(&wasm_bindgen::JsValue::NULL, &data).map_err(|e| ReadError::PdfDamaged(js_text(&e)))?;
        let result = JsFuture::from(js_sys::Promise::from(promise)).await.map_err(|e| {
            match js_sys::Reflect::get(&e, &"kind".into()).ok().and_then(|k| k.as_string()).as_deref() {
                Some("locked") => ReadError::PdfLocked,
                Some("missing") => ReadError::ReaderMissing(js_text(&e)),
                _ => ReadError::PdfDamaged(js_text(&e)),
            }
        })?;
        Ok(js_sys::Array::from(&result).iter().map(|p| p.as_string().unwrap_or_default()).collect())
    }

    pub fn make_embedder(settings: &crate::app::settings::Settings, model: &str) -> Option<crate::llm::embeddings::Embedder> {
        crate::llm::embeddings::Embedder::new(&settings.provider, &settings.connection, model, Rc::new(crate::net::browser::BrowserFetch), Rc::new(crate::browser::BrowserClock))
    }

    pub fn ask_to_keep() {
        let Some(storage) = web_sys::window().map(|w| w.navigator().storage()) else { return };
        let Ok(promise) = storage.persist() else { return };
        leptos::task::spawn_local(async move {
            let kept = JsFuture::from(promise).await.ok().and_then(|v| v.as_bool());
            let text = match kept {
                Some(true) => "This browser will keep your documents until you remove them.",
                _ => "This browser may clear the site's data when space runs short, and Safari clears it after seven days without a visit. Your files stay on your machine: add them again if they go.",
            };
            if let Some(view) = VIEW.with(|v| *v.borrow()) {
                view.kept.set(Some(text.into()));
            }
        });
    }

    pub fn estimate() {
        let Some(storage) = web_sys::window().map(|w| w.navigator().storage()) else { return };
        let Ok(promise) = storage.estimate() else { return };
        leptos::task::spawn_local(async move {
            let Ok(estimate) = JsFuture::from(promise).await else { return };
            let number = |name: &str| js_sys::Reflect::get(&estimate, &name.into()).ok().and_then(|v| v.as_f64());
            if let (Some(usage), Some(quota), Some(view)) = (number("usage"), number("quota"), VIEW.with(|v| *v.borrow())) {
                view.storage.set(Some(format!("This site uses {} of the {} this browser allows it.", size(usage), size(quota))));
            }
        });
    }

    /// "12.3 MB", "1.2 GB".
    fn size(bytes: f64) -> String {
        match bytes {
            b if b >= 1e9 => format!("{:.1} GB", b / 1e9),
            b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
            b => format!("{:.0} KB", b / 1e3),
        }
    }
}

#[cfg(target_arch = "wasm32")]
use browser::{make_embedder, ask_to_keep, bytes_of, delete, estimate, pdf_pages, read_file, read_stored, store};

#[cfg(not(target_arch = "wasm32"))]
mod native {
    //! Natively there is no page: nothing is stored or read, and no file arrives.
    pub async fn read_file(_file: &web_sys::File) -> Result<Vec<u8>, String> {
        Err("Reading files needs a browser.".into())
    }
    pub async fn read_stored() {}
    pub async fn store(_id: &str) -> Result<(), String> {
        Err("Storing needs a browser.".into())
    }
    pub async fn delete(_id: &str) -> Result<(), String> {
        Ok(())
    }
    pub async fn bytes_of(_id: &str) -> Option<Vec<u8>> {
        None
    }
    pub async fn pdf_pages(_bytes: &[u8]) -> Result<Vec<String>, crate::documents::ReadError> {
        Err(crate::documents::ReadError::ReaderMissing("no browser".into()))
    }
    pub fn ask_to_keep() {}
    pub fn estimate() {}
    pub fn make_embedder(_settings: &crate::app::settings::Settings, _model: &str) -> Option<crate::llm::embeddings::Embedder> {
        None
    }
}

#[cfg(not(target_arch = "wasm32"))]
use native::{make_embedder, ask_to_keep, bytes_of, delete, estimate, pdf_pages, read_file, read_stored, store};
