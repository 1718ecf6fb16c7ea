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

/// The theme the page shows now, `light` or `dark` (a view of a tool's result is told it).
pub fn current_name() -> String {
    #[cfg(target_arch = "wasm32")]
    {
        let window = web_sys::window();
        let set = window.as_ref().and_then(|w| w.document()).and_then(|d| d.document_element()).and_then(|r| r.get_attribute("data-theme"));
        if let Some(theme @ ("light" | "dark")) = set.as_deref() {
            return theme.to_string();
        }
        let dark = window.and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten()).is_some_and(|m| m.matches());
        return if dark { "dark" } else { "light" }.to_string();
    }
    #[cfg(not(target_arch = "wasm32"))]
    "light".to_string()
}
