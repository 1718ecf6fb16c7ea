//! What the UI asks of the page that is not drawing: the time of day, offering a file for
//! download, and hearing that the page is being hidden. Native builds (tests) have no page:
//! the time is 0, a download is refused and the page is never hidden.

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

/// Calls `hidden` when the page is being hidden: reloaded, closed, navigated from, or sent to
/// the background (after which a phone may end it without another word). What must survive
/// that is written synchronously there.
#[cfg(target_arch = "wasm32")]
pub(super) fn on_hidden(hidden: impl Fn() + Clone + 'static) {
    let again = hidden.clone();
    let _ = leptos::prelude::window_event_listener(leptos::ev::pagehide, move |_| hidden());
    let _ = leptos::prelude::window_event_listener(leptos::ev::visibilitychange, move |_| {
        if leptos::prelude::document().hidden() {
            again();
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn on_hidden(_hidden: impl Fn() + Clone + 'static) {}

/// Calls `gone` when the page goes away (reloaded, closed, navigated from), not when it is
/// only sent to the background.
#[cfg(target_arch = "wasm32")]
pub(super) fn on_gone(gone: impl Fn() + 'static) {
    let _ = leptos::prelude::window_event_listener(leptos::ev::pagehide, move |_| gone());
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn on_gone(_gone: impl Fn() + 'static) {}
