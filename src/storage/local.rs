//! `localStorage`, the small synchronous store for settings, the theme and which chat was open.
//! (Chats live in IndexedDB, see `idb.rs`.) Natively a map stands in, so the code above it
//! (settings reads, the move of old chats) is tested with `cargo test`.

use super::error::{StorageError, StorageErrorKind};

pub fn read(key: &str) -> Option<String> {
    imp::read(key)
}

/// Whether the page may use `localStorage` at all (private modes and blocked site data refuse).
pub fn available() -> Result<(), StorageError> {
    imp::available()
}

/// Writes `value`; a full or disabled storage is an error the caller must show.
pub fn write(key: &str, value: &str) -> Result<(), StorageError> {
    imp::write(key, value)
}

pub fn remove(key: &str) {
    imp::remove(key)
}

/// Every key, for finding what an older release stored.
pub fn keys() -> Vec<String> {
    imp::keys()
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use wasm_bindgen::JsCast;

    fn storage() -> Result<web_sys::Storage, StorageError> {
        let unavailable = |detail: &str| StorageError::new(StorageErrorKind::Unavailable, detail);
        let window = web_sys::window().ok_or_else(|| unavailable("no window"))?;
        match window.local_storage() {
            Ok(Some(storage)) => Ok(storage),
            Ok(None) => Err(unavailable("localStorage is missing")),
            Err(e) => Err(dom_error(e)),
        }
    }

    fn dom_error(e: wasm_bindgen::JsValue) -> StorageError {
        match e.dyn_ref::<web_sys::DomException>() {
            Some(ex) => StorageError::from_dom(&ex.name(), &ex.message()),
            None => StorageError::new(StorageErrorKind::Other, "the browser refused"),
        }
    }

    pub fn read(key: &str) -> Option<String> {
        storage().ok()?.get_item(key).ok().flatten()
    }

    pub fn available() -> Result<(), StorageError> {
        storage().map(drop)
    }

    pub fn write(key: &str, value: &str) -> Result<(), StorageError> {
        storage()?.set_item(key, value).map_err(dom_error)
    }

    pub fn remove(key: &str) {
        if let Ok(storage) = storage() {
            let _ = storage.remove_item(key);
        }
    }

    pub fn keys() -> Vec<String> {
        let Ok(storage) = storage() else { return Vec::new() };
        let n = storage.length().unwrap_or(0);
        (0..n).filter_map(|i| storage.key(i).ok().flatten()).collect()
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    thread_local! {
        static MAP: RefCell<BTreeMap<String, String>> = const { RefCell::new(BTreeMap::new()) };
        static FULL: RefCell<bool> = const { RefCell::new(false) };
        static REFUSED: RefCell<bool> = const { RefCell::new(false) };
    }

    /// Tests: refuse the storage altogether, as a browser that blocks site data does.
    #[cfg(test)]
    pub fn set_refused(refused: bool) {
        REFUSED.with(|r| *r.borrow_mut() = refused);
    }

    fn refused() -> Result<(), StorageError> {
        match REFUSED.with(|r| *r.borrow()) {
            true => Err(StorageError::new(StorageErrorKind::Unavailable, "SecurityError: the site's data is blocked")),
            false => Ok(()),
        }
    }

    /// Tests: make every write fail as a full storage would.
    #[cfg(test)]
    pub fn set_full(full: bool) {
        FULL.with(|f| *f.borrow_mut() = full);
    }

    pub fn read(key: &str) -> Option<String> {
        refused().ok()?;
        MAP.with(|m| m.borrow().get(key).cloned())
    }

    pub fn available() -> Result<(), StorageError> {
        refused()
    }

    pub fn write(key: &str, value: &str) -> Result<(), StorageError> {
        refused()?;
        if FULL.with(|f| *f.borrow()) {
            return Err(StorageError::new(StorageErrorKind::Full, "QuotaExceededError"));
        }
        MAP.with(|m| m.borrow_mut().insert(key.to_string(), value.to_string()));
        Ok(())
    }

    pub fn remove(key: &str) {
        MAP.with(|m| m.borrow_mut().remove(key));
    }

    pub fn keys() -> Vec<String> {
        MAP.with(|m| m.borrow().keys().cloned().collect())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
pub use imp::{set_full, set_refused};
