//! The settings as the browser keeps them (`localStorage`, through `storage::settings`): read
//! once as the page opens, written after each change. What they mean, and how their stored
//! shape is read tolerantly, is the app's (`app::settings`).

use crate::app::settings::{read_settings, LoadedSettings, Settings};
use crate::storage::settings::{self as stored, StoredSettings};
use crate::storage::StorageError;

/// The settings as the page opens: at once when there are none stored (a first visit) or
/// storage is refused; otherwise the stored text, for `read`.
pub fn opening() -> Result<LoadedSettings, String> {
    match stored::read_text() {
        Ok(Some(json)) => Err(json),
        Ok(None) => Ok(LoadedSettings::defaults()),
        Err(e) => Ok(LoadedSettings { unavailable: Some(e), ..LoadedSettings::defaults() }),
    }
}

/// Reads stored settings. Their reader is a part of the page (its JSON reading is a sixth of
/// the first load), fetched as a returning person's page starts; one that cannot be fetched
/// leaves the defaults in use and the stored settings untouched (`LoadedSettings::unread`).
pub async fn read(json: String) -> LoadedSettings {
    reading(json).await.unwrap_or_else(|_| LoadedSettings { unread: true, ..LoadedSettings::defaults() })
}

crate::ui::services::parts::part!(read_settings, preload = preload_reading, fn reading(json: String) -> LoadedSettings {
    read_settings(&json)
});

/// The settings kept on this device, or the defaults with what went wrong, read at once, without
/// the part (the tests' way: the page itself uses `opening` and `read`).
pub fn load() -> LoadedSettings {
    opening().unwrap_or_else(|json| read_settings(&json))
}

/// Keeps `settings` on this device.
pub fn save(settings: &Settings) -> Result<(), StorageError> {
    stored::write(&StoredSettings::from(settings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{local, StorageErrorKind};

    #[test]
    fn settings_writes_report_a_full_storage() {
        local::set_full(true);
        let result = save(&Settings::default());
        local::set_full(false);
        assert_eq!(result.unwrap_err().kind, StorageErrorKind::Full);
        assert!(save(&Settings::default()).is_ok());
    }

    #[test]
    fn a_refused_storage_is_said_and_the_settings_hold_on_the_page() {
        let mut mine = Settings::default();
        mine.provider.model = "my-model".into();
        local::set_refused(true);
        let loaded = load();
        let saved = save(&mine);
        local::set_refused(false);
        assert_eq!(loaded.unavailable.as_ref().map(|e| e.kind), Some(StorageErrorKind::Unavailable));
        assert!(loaded.notice().is_some(), "the person is told");
        assert_eq!(saved.unwrap_err().kind, StorageErrorKind::Unavailable, "a refused write is an error, never silent");
        assert_eq!(mine.provider.model, "my-model", "what is in memory stays");
    }
}
