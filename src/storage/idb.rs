//! IndexedDB, the browser's transactional database, as the chat store's `Backend`: two object
//! stores, `chats` (the list lines, keyed by chat id) and `bodies` (each chat's head under its
//! id, and its run records and event chunks under keys that start with `{id}/`), written
//! together in one transaction. Values are JSON text, read back through the same tolerant readers as
//! everything else. Browser-only; the rules live in `store.rs`.
//!
//! A request or transaction is awaited by handing a Promise's own resolve/reject functions to
//! its event handlers, so no Rust closure has to outlive the call.

use js_sys::{Function, Promise};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbKeyRange, IdbObjectStore, IdbRequest, IdbTransaction, IdbTransactionMode};

use super::error::{StorageError, StorageErrorKind};
use super::store::{Backend, Record, RecordStore, Stored};
use crate::agent::LocalBoxFuture;

const DB_NAME: &str = "thoughtline";
/// Bump with an upgrade step in `upgrade` whenever the stores change.
const DB_VERSION: u32 = 1;
const SUMMARIES: &str = "chats";
const BODIES: &str = "bodies";

pub struct IdbBackend {
    db: IdbDatabase,
    /// Opened at a newer version than this release knows: read, never write.
    read_only: bool,
}

pub(super) fn dom(value: &JsValue) -> StorageError {
    match value.dyn_ref::<web_sys::DomException>() {
        Some(ex) => StorageError::from_dom(&ex.name(), &ex.message()),
        None => StorageError::new(StorageErrorKind::Other, "the database refused"),
    }
}

fn request_error(req: &IdbRequest) -> StorageError {
    match req.error() {
        Ok(Some(ex)) => StorageError::from_dom(&ex.name(), &ex.message()),
        _ => StorageError::new(StorageErrorKind::Other, "the database request failed"),
    }
}

/// Starts listening to `req`. Call before any `.await`, or its events may pass unheard.
pub(super) fn watch(req: &IdbRequest) -> Promise {
    Promise::new(&mut |resolve: Function, reject: Function| {
        req.set_onsuccess(Some(&resolve));
        req.set_onerror(Some(&reject));
    })
}

pub(super) async fn finished(req: &IdbRequest) -> Result<JsValue, StorageError> {
    let promise = watch(req);
    outcome(req, promise).await
}

pub(super) async fn outcome(req: &IdbRequest, promise: Promise) -> Result<JsValue, StorageError> {
    let outcome = JsFuture::from(promise).await;
    req.set_onsuccess(None);
    req.set_onerror(None);
    match outcome {
        Ok(_) => req.result().map_err(|e| dom(&e)),
        Err(_) => Err(request_error(req)),
    }
}

/// Resolves when the transaction has committed; a quota or other failure aborts it.
pub(super) async fn committed(tx: &IdbTransaction) -> Result<(), StorageError> {
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&reject));
    });
    match JsFuture::from(promise).await {
        Ok(_) => Ok(()),
        Err(_) => Err(match tx.error() {
            Some(ex) => StorageError::from_dom(&ex.name(), &ex.message()),
            None => StorageError::new(StorageErrorKind::Other, "the transaction was aborted"),
        }),
    }
}

pub(super) fn text_of(value: &JsValue) -> Option<String> {
    if value.is_undefined() {
        return None;
    }
    // Values are JSON text; anything else someone put there is shown as JSON, never dropped.
    value.as_string().or_else(|| js_sys::JSON::stringify(value).ok().and_then(|s| s.as_string())).or(Some(String::new()))
}

/// Opens database `name` at `version`, creating the `stores` it lacks, with `on_blocked` called
/// while another tab holds an older version open. Gives the factory back with the outcome, so a
/// caller can open the database as it is when it turns out newer.
pub(super) async fn open_with_stores(name: &str, version: u32, stores: &'static [&'static str], on_blocked: impl Fn() + 'static) -> Result<(web_sys::IdbFactory, Result<JsValue, StorageError>), StorageError> {
    let unavailable = |d: &str| StorageError::new(StorageErrorKind::Unavailable, d);
    let factory = web_sys::window().ok_or_else(|| unavailable("no window"))?.indexed_db().map_err(|e| dom(&e))?.ok_or_else(|| unavailable("IndexedDB is missing"))?;
    let req = factory.open_with_u32(name, version).map_err(|e| dom(&e))?;
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
        let target = event.target().and_then(|t| t.dyn_into::<IdbRequest>().ok());
        if let Some(db) = target.and_then(|r| r.result().ok()).and_then(|r| r.dyn_into::<IdbDatabase>().ok()) {
            let names = db.object_store_names();
            for store in stores {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        }
    });
    let blocked = Closure::<dyn FnMut()>::new(on_blocked);
    req.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    req.set_onblocked(Some(blocked.as_ref().unchecked_ref()));
    let opened = finished(&req).await;
    req.set_onupgradeneeded(None);
    req.set_onblocked(None);
    Ok((factory, opened))
}

impl IdbBackend {
    /// Opens (creating or upgrading) the database. `on_blocked` is called when another tab
    /// holds an older version open; opening then waits until that tab lets go.
    pub async fn open(on_blocked: impl Fn() + 'static) -> Result<IdbBackend, StorageError> {
        let unavailable = |d: &str| StorageError::new(StorageErrorKind::Unavailable, d);
        let (factory, opened) = open_with_stores(DB_NAME, DB_VERSION, &[SUMMARIES, BODIES], on_blocked).await?;
        let (db, read_only) = match opened {
            Ok(db) => (db.dyn_into::<IdbDatabase>().map_err(|_| unavailable("not a database"))?, false),
            Err(e) if e.kind == StorageErrorKind::Newer => {
                // A newer release upgraded the database: open it as it is, to read only.
                let req = factory.open(DB_NAME).map_err(|e| dom(&e))?;
                let db = finished(&req).await?.dyn_into::<IdbDatabase>().map_err(|_| unavailable("not a database"))?;
                (db, true)
            }
            Err(e) => return Err(e),
        };
        // A newer tab wanting to upgrade must not be blocked by this one: let go, and this
        // page's later writes fail visibly instead.
        let close = Closure::<dyn FnMut()>::new({
            let db = db.clone();
            move || db.close()
        });
        db.set_onversionchange(Some(close.as_ref().unchecked_ref()));
        close.forget();
        Ok(IdbBackend { db, read_only })
    }

    fn store(&self, names: &[&str], mode: IdbTransactionMode) -> Result<(IdbTransaction, Vec<IdbObjectStore>), StorageError> {
        let list = js_sys::Array::new();
        for name in names {
            list.push(&JsValue::from_str(name));
        }
        let tx = self.db.transaction_with_str_sequence_and_mode(&list, mode).map_err(|e| dom(&e))?;
        let stores = names.iter().map(|n| tx.object_store(n).map_err(|e| dom(&e))).collect::<Result<Vec<_>, _>>()?;
        Ok((tx, stores))
    }

    /// The keys of the records beside chat `id`'s head: `{id}/` then anything.
    fn parts_of(id: &str) -> Result<IdbKeyRange, StorageError> {
        IdbKeyRange::bound(&JsValue::from_str(&format!("{id}/")), &JsValue::from_str(&format!("{id}/\u{ffff}"))).map_err(|e| dom(&e))
    }

    /// The keys that start with `prefix`.
    fn starting(prefix: &str) -> Result<IdbKeyRange, StorageError> {
        IdbKeyRange::bound(&JsValue::from_str(prefix), &JsValue::from_str(&format!("{prefix}\u{ffff}"))).map_err(|e| dom(&e))
    }

    fn refuse_if_read_only(&self) -> Result<(), StorageError> {
        if self.read_only {
            Err(StorageError::new(StorageErrorKind::Newer, "the chats were saved by a newer Thoughtline"))
        } else {
            Ok(())
        }
    }
}

impl Backend for IdbBackend {
    fn read_only(&self) -> bool {
        self.read_only
    }

    fn summaries(&self) -> LocalBoxFuture<'_, Result<Vec<(String, String)>, StorageError>> {
        Box::pin(async move {
            let (_tx, stores) = self.store(&[SUMMARIES], IdbTransactionMode::Readonly)?;
            let keys = stores[0].get_all_keys().map_err(|e| dom(&e))?;
            let keys_done = watch(&keys);
            let values = stores[0].get_all().map_err(|e| dom(&e))?;
            let values_done = watch(&values);
            let keys: js_sys::Array = outcome(&keys, keys_done).await?.unchecked_into();
            let values: js_sys::Array = outcome(&values, values_done).await?.unchecked_into();
            Ok(keys
                .iter()
                .zip(values.iter())
                .map(|(k, v)| (k.as_string().unwrap_or_default(), text_of(&v).unwrap_or_default()))
                .collect())
        })
    }

    fn chat<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Stored>, StorageError>> {
        Box::pin(async move {
            let (_tx, stores) = self.store(&[BODIES], IdbTransactionMode::Readonly)?;
            let range = Self::parts_of(id)?;
            // Issued back to back, each watched before anything is awaited.
            let head = stores[0].get(&JsValue::from_str(id)).map_err(|e| dom(&e))?;
            let head_done = watch(&head);
            let keys = stores[0].get_all_keys_with_key(&range).map_err(|e| dom(&e))?;
            let keys_done = watch(&keys);
            let values = stores[0].get_all_with_key(&range).map_err(|e| dom(&e))?;
            let values_done = watch(&values);
            let head = outcome(&head, head_done).await?;
            let keys: js_sys::Array = outcome(&keys, keys_done).await?.unchecked_into();
            let values: js_sys::Array = outcome(&values, values_done).await?.unchecked_into();
            let Some(body) = text_of(&head) else { return Ok(None) };
            let parts = keys.iter().zip(values.iter()).map(|(k, v)| (k.as_string().unwrap_or_default(), text_of(&v).unwrap_or_default())).collect();
            Ok(Some(Stored { body, parts }))
        })
    }

    fn put(&self, records: Vec<Record>) -> LocalBoxFuture<'_, Result<(), StorageError>> {
        Box::pin(async move {
            self.refuse_if_read_only()?;
            let (tx, stores) = self.store(&[SUMMARIES, BODIES], IdbTransactionMode::Readwrite)?;
            let issued = records.iter().try_for_each(|record| {
                let key = JsValue::from_str(&record.id);
                stores[0].put_with_key(&JsValue::from_str(&record.summary), &key)?;
                stores[1].put_with_key(&JsValue::from_str(&record.body), &key)?;
                record.parts.iter().try_for_each(|(key, text)| stores[1].put_with_key(&JsValue::from_str(text), &JsValue::from_str(key)).map(drop))
            });
            if let Err(e) = issued {
                // All or nothing: what was already queued must not commit on its own.
                let _ = tx.abort();
                return Err(dom(&e));
            }
            committed(&tx).await
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            self.refuse_if_read_only()?;
            let (tx, stores) = self.store(&[SUMMARIES, BODIES], IdbTransactionMode::Readwrite)?;
            let key = JsValue::from_str(id);
            let range = Self::parts_of(id)?;
            let issued = stores.iter().try_for_each(|store| store.delete(&key).map(drop)).and_then(|()| stores[1].delete(&range).map(drop));
            if let Err(e) = issued {
                let _ = tx.abort();
                return Err(dom(&e));
            }
            committed(&tx).await
        })
    }
}

impl RecordStore for IdbBackend {
    fn records<'a>(&'a self, prefix: &'a str) -> LocalBoxFuture<'a, Result<Vec<(String, String)>, StorageError>> {
        Box::pin(async move {
            let (_tx, stores) = self.store(&[BODIES], IdbTransactionMode::Readonly)?;
            let range = Self::starting(prefix)?;
            let keys = stores[0].get_all_keys_with_key(&range).map_err(|e| dom(&e))?;
            let keys_done = watch(&keys);
            let values = stores[0].get_all_with_key(&range).map_err(|e| dom(&e))?;
            let values_done = watch(&values);
            let keys: js_sys::Array = outcome(&keys, keys_done).await?.unchecked_into();
            let values: js_sys::Array = outcome(&values, values_done).await?.unchecked_into();
            Ok(keys.iter().zip(values.iter()).map(|(k, v)| (k.as_string().unwrap_or_default(), text_of(&v).unwrap_or_default())).collect())
        })
    }

    fn put_records(&self, records: Vec<(String, String)>) -> LocalBoxFuture<'_, Result<(), StorageError>> {
        Box::pin(async move {
            self.refuse_if_read_only()?;
            let (tx, stores) = self.store(&[BODIES], IdbTransactionMode::Readwrite)?;
            let issued = records.iter().try_for_each(|(key, text)| stores[0].put_with_key(&JsValue::from_str(text), &JsValue::from_str(key)).map(drop));
            if let Err(e) = issued {
                let _ = tx.abort();
                return Err(dom(&e));
            }
            committed(&tx).await
        })
    }

    fn delete_records<'a>(&'a self, prefix: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            self.refuse_if_read_only()?;
            let (tx, stores) = self.store(&[BODIES], IdbTransactionMode::Readwrite)?;
            let range = Self::starting(prefix)?;
            if let Err(e) = stores[0].delete(&range) {
                let _ = tx.abort();
                return Err(dom(&e));
            }
            committed(&tx).await
        })
    }
}
