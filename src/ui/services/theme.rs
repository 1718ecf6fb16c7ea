//! The colour theme: read from and kept in the browser (`storage`), and applied to the page
//! as `data-theme` on `<html>` (none: follow the system).

pub use crate::storage::{load_theme as load, save_theme};

/// Keeps the theme; the error is a sentence for the banner.
pub fn save(theme: &str) -> Result<(), String> {
    save_theme(theme).map_err(|e| e.to_string())
}

#[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))]
pub fn apply(theme: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = if theme.is_empty() { root.remove_attribute("data-theme") } else { root.set_attribute("data-theme", theme) };
    }
}
