//! What the UI asks of the page that is not drawing: the time of day and offering a file for
//! download. Native builds (tests) have no page: the time is 0 and a download is refused.

/// Milliseconds since the Unix epoch, for stored timestamps.
pub(super) fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::now();
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

/// Offers `text` to the person as the file `name`.
#[cfg(target_arch = "wasm32")]
pub(super) fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    crate::browser::download(name, mime, text)
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn download(_name: &str, _mime: &str, _text: &str) -> Result<(), String> {
    Err("Exporting needs a browser.".into())
}
