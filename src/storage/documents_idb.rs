//! The documents' own database, `thoughtline-documents`, apart from the chats' so that adding
//! it upgraded nothing an open tab holds. Two stores: `documents` (each document's record as
//! JSON text, `documents.rs`) and `files` (the file's bytes, for Re-read), written together.
//!
//! Upgrades: a tab holding an older version lets go when a newer page asks (`versionchange`),
//! and says to reload; a page that finds the database held by an older tab says so
//! (`blocked`) and opens once that tab lets go.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{IdbDatabase, IdbObjectStore, IdbTransaction, IdbTransactionMode};

use super::error::{StorageError, StorageErrorKind};
use super::idb::{committed, dom, finished, open_with_stores, outcome, text_of, watch};

const DB_NAME: &str = "thoughtline-documents";
/// Bump with an upgrade step in `open` whenever the stores change.
const DB_VERSION: u32 = 1;
const RECORDS: &str = "documents";
const FILES: &str = "files";

pub struct DocumentsDb {
    db: IdbDatabase,
}

impl DocumentsDb {
    /// Opens (creating) the database. `on_blocked`: an older tab holds it, opening waits;
    /// `on_closed`: a newer page asked for it and this one let go.
    pub async fn open(on_blocked: impl Fn() + 'static, on_closed: impl Fn() + 'static) -> Result<DocumentsDb, StorageError> {
        let unavailable = |d: &str| StorageError::new(StorageErrorKind::Unavailable, d);
        let (_, opened) = open_with_stores(DB_NAME, DB_VERSION, &[RECORDS, FILES], on_blocked).await?;
        let db = opened?.dyn_into::<IdbDatabase>().map_err(|_| unavailable("not a database"))?;
        let close = Closure::<dyn FnMut()>::new({
            let db = db.clone();
            move || {
                db.close();
                on_closed();
            }
        });
        db.set_onversionchange(Some(close.as_ref().unchecked_ref()));
        close.forget();
        Ok(DocumentsDb { db })
    }

    fn stores(&self, mode: IdbTransactionMode) -> Result<(IdbTransaction, IdbObjectStore, IdbObjectStore), StorageError> {
        let names = Array::of2(&JsValue::from_str(RECORDS), &JsValue::from_str(FILES));
        let tx = self.db.transaction_with_str_sequence_and_mode(&names, mode).map_err(|e| dom(&e))?;
        let records = tx.object_store(RECORDS).map_err(|e| dom(&e))?;
        let files = tx.object_store(FILES).map_err(|e| dom(&e))?;
        Ok((tx, records, files))
    }

    /// Every stored record, as text.
    pub async fn records(&self) -> Result<Vec<String>, StorageError> {
        let (_tx, records, _) = self.stores(IdbTransactionMode::Readonly)?;
        let all = records.get_all().map_err(|e| dom(&e))?;
        let done = watch(&all);
        let values: Array = outcome(&all, done).await?.unchecked_into();
        Ok(values.iter().filter_map(|v| text_of(&v)).collect())
    }

    /// Writes a document's record, and its file's bytes when given, in one transaction.
    pub async fn put(&self, id: &str, record: &str, file: Option<&[u8]>) -> Result<(), StorageError> {
        let (tx, records, files) = self.stores(IdbTransactionMode::Readwrite)?;
        records.put_with_key(&JsValue::from_str(record), &JsValue::from_str(id)).map_err(|e| dom(&e))?;
        if let Some(bytes) = file {
            files.put_with_key(&Uint8Array::from(bytes), &JsValue::from_str(id)).map_err(|e| dom(&e))?;
        }
        committed(&tx).await
    }

    /// The bytes of file `id`, if they are stored.
    pub async fn file(&self, id: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let (_tx, _, files) = self.stores(IdbTransactionMode::Readonly)?;
        let req = files.get(&JsValue::from_str(id)).map_err(|e| dom(&e))?;
        let value = finished(&req).await?;
        Ok(value.dyn_ref::<Uint8Array>().map(|a| a.to_vec()))
    }

    pub async fn delete(&self, id: &str) -> Result<(), StorageError> {
        let (tx, records, files) = self.stores(IdbTransactionMode::Readwrite)?;
        records.delete(&JsValue::from_str(id)).map_err(|e| dom(&e))?;
        files.delete(&JsValue::from_str(id)).map_err(|e| dom(&e))?;
        committed(&tx).await
    }
}
