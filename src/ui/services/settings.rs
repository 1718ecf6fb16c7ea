//! The settings as the browser keeps them (`localStorage`, through `storage::settings`): read
//! once as the page opens, written after each change. What they mean, and how their stored
//! shape is read tolerantly, is the app's (`app::settings`).

use crate::app::settings::{read_settings, LoadedSettings, Settings};
use crate::storage::settings::{self as stored, StoredSettings};
use crate::storage::StorageError;

/// The settings kept on this device, or the defaults with what went wrong.
pub fn load() -> LoadedSettings {
    match stored::read_text() {
        Ok(Some(json)) => read_settings(&json),
        Ok(None) => LoadedSettings { settings: Settings::default(), dropped: Vec::new(), newer: false, unavailable: None },
        Err(e) => LoadedSettings { settings: Settings::default(), dropped: Vec::new(), newer: false, unavailable: Some(e) },
    }
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
