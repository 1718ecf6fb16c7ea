//! What can go wrong when saving or reading, as a value with a sentence a person can act on.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageErrorKind {
    /// The browser's quota for this site is used up.
    Full,
    /// Storage is switched off (private mode, site data blocked) or missing.
    Unavailable,
    /// Another tab holds the database open at an older version and does not let go.
    Blocked,
    /// The data was written by a newer Thoughtline: read-only here, never overwritten.
    Newer,
    /// Anything else the browser reported.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageError {
    pub kind: StorageErrorKind,
    /// The browser's own words, for the details.
    pub detail: String,
}

impl StorageError {
    pub fn new(kind: StorageErrorKind, detail: impl Into<String>) -> Self {
        StorageError { kind, detail: detail.into() }
    }

    /// Sorts a DOMException (or similar) by its name.
    pub fn from_dom(name: &str, message: &str) -> Self {
        let kind = match name {
            "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED" => StorageErrorKind::Full,
            "SecurityError" | "InvalidStateError" | "UnknownError" => StorageErrorKind::Unavailable,
            "VersionError" => StorageErrorKind::Newer,
            _ => StorageErrorKind::Other,
        };
        let detail = if message.is_empty() { name.to_string() } else { format!("{name}: {message}") };
        StorageError { kind, detail }
    }

    /// What the person can do about it.
    pub fn advice(&self) -> &'static str {
        match self.kind {
            StorageErrorKind::Full => {
                "This browser's storage for the page is full. Export what you want to keep (⬇ Export JSON), then delete old chats."
            }
            StorageErrorKind::Unavailable => {
                "This browser does not let the page store data (private mode or blocked site data). Export what you want to keep (⬇ Export JSON)."
            }
            StorageErrorKind::Blocked => "Another Thoughtline tab is holding the storage. Close other Thoughtline tabs, then reload this one.",
            StorageErrorKind::Newer => {
                "It was saved by a newer version of Thoughtline; this page only reads it and never overwrites it. Reload to get the newer page."
            }
            StorageErrorKind::Other => "Try again; if it keeps failing, export what you want to keep (⬇ Export JSON).",
        }
    }
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.advice(), self.detail)
    }
}
