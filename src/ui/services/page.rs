//! The views' one seam to the page for what is not drawing: the time of day, timers (after a
//! delay, at the next frame, when the page is idle), random numbers, offering a file for
//! download, reading a file the person chose, the clipboard, asking for a line of text, and
//! hearing that the page is being hidden or goes away, its address and fragment, and packing a
//! share link (gzip, by the browser). Views call these rather than the
//! browser; native builds (tests) have no page: the time is 0, timers never fire, a download,
//! a file or the clipboard is refused, and the page is never hidden.

use std::time::Duration;

/// Milliseconds since the Unix epoch, for stored timestamps and durations a person reads.
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::now();
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

/// A number in [0, 1), for ids.
pub fn random() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Math::random();
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

/// Calls `f` once, `delay` from now.
pub fn after(delay: Duration, f: impl FnOnce() + 'static) {
    leptos::prelude::set_timeout(f, delay);
}

/// Calls `f` once, before the page's next frame is drawn.
pub fn next_frame(f: impl FnOnce() + 'static) {
    leptos::prelude::request_animation_frame(f);
}

/// Calls `f` once, when the page is idle. WebKit has no `requestIdleCallback`: there it is
/// called once the next frame is drawn, a moment later.
pub fn when_idle(f: impl Fn() + 'static) {
    #[cfg(target_arch = "wasm32")]
    {
        let idle = web_sys::window().is_some_and(|w| js_sys::Reflect::has(&w, &"requestIdleCallback".into()).unwrap_or(false));
        if idle {
            leptos::prelude::request_idle_callback(f);
        } else {
            next_frame(move || after(Duration::from_millis(1), f));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    drop(f);
}

/// Opens `url` in a new window that knows nothing of this page: no opener, no referrer.
pub fn open_apart(url: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(window) = web_sys::window() {
        let _ = window.open_with_url_and_target_and_features(url, "_blank", "noopener,noreferrer");
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = url;
}

/// Offers `text` to the person as the file `name`.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    return crate::browser::download(name, mime, text);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (name, mime, text);
        Err("Exporting needs a browser.".into())
    }
}

/// Puts `text` on the clipboard.
pub async fn copy_text(text: &str) -> Result<(), String> {
    #[cfg(target_arch = "wasm32")]
    return crate::browser::copy_text(text).await;
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = text;
        Err("Copying needs a browser.".into())
    }
}

/// Runs the last of quick successive calls once they pause: typing read when it stops.
#[derive(Clone, Copy)]
pub struct Debounce {
    delay: Duration,
    calls: leptos::prelude::StoredValue<u64>,
}

impl Debounce {
    pub fn new(delay: Duration) -> Self {
        Debounce { delay, calls: leptos::prelude::StoredValue::new(0) }
    }

    /// `f`, once no other call came within the delay (and only while its owner lives).
    pub fn call(self, f: impl FnOnce() + 'static) {
        use leptos::prelude::{GetValue, SetValue};
        let n = self.calls.get_value() + 1;
        self.calls.set_value(n);
        after(self.delay, move || {
            if self.calls.try_get_value() == Some(n) {
                f();
            }
        });
    }
}

/// A moment (milliseconds since the epoch) in the person's own way of writing dates.
pub fn local_time(unix_ms: f64) -> String {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::new(&unix_ms.into()).to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED).into();
    #[cfg(not(target_arch = "wasm32"))]
    format!("{unix_ms}")
}

/// The file input a person chose from, as its `change` event gave it.
pub struct Chosen(web_sys::HtmlInputElement);

/// The file input of a `change` event.
pub fn chosen(ev: &leptos::ev::Event) -> Chosen {
    Chosen(leptos::prelude::event_target::<web_sys::HtmlInputElement>(ev))
}

impl Chosen {
    /// The first file's name (empty when none was chosen).
    pub fn name(&self) -> String {
        self.0.files().and_then(|f| f.get(0)).map(|f| f.name()).unwrap_or_default()
    }

    /// Every file chosen.
    pub fn files(&self) -> Vec<web_sys::File> {
        self.0.files().map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect()).unwrap_or_default()
    }

    /// Empties the input, so the same file can be chosen again.
    pub fn clear(&self) {
        self.0.set_value("");
    }

    /// The first file's text, refused past `limit` bytes.
    #[cfg(target_arch = "wasm32")]
    pub async fn read(&self, limit: f64) -> Result<String, String> {
        crate::browser::read_chosen_file(&self.0, limit).await
    }
}

/// Asks the person for a line of text, `default` filled in; `None` when they cancel.
pub fn ask_line(question: &str, default: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    return web_sys::window()?.prompt_with_message_and_default(question, default).ok().flatten();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (question, default);
        None
    }
}

/// Calls `hidden` when the page is being hidden: reloaded, closed, navigated from, or sent to
/// the background (after which a phone may end it without another word). What must survive
/// that is written synchronously there.
pub fn on_hidden(hidden: impl Fn() + Clone + 'static) {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let again = hidden.clone();
        let _ = leptos::prelude::window_event_listener(leptos::ev::pagehide, move |_| hidden());
        // Fired at the document (it does not reach the window), and before `pagehide`.
        let document = leptos::prelude::document();
        let watched = document.clone();
        let on_change = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
            if watched.hidden() {
                again();
            }
        });
        let _ = document.add_event_listener_with_callback("visibilitychange", on_change.as_ref().unchecked_ref());
        // Heard for the page's whole life.
        on_change.forget();
    }
    #[cfg(not(target_arch = "wasm32"))]
    drop(hidden);
}

/// Calls `leaving` as soon as the page starts to go away (`beforeunload`, then `pagehide`),
/// which is before the browser cuts the requests the page has in flight: what ends then was
/// cut, not finished. The page may yet stay (a navigation can be called off).
pub fn on_leaving(leaving: impl Fn() + 'static) {
    // One callback for both events: each listener the first screen can reach costs its load.
    #[cfg(target_arch = "wasm32")]
    if let Some(window) = web_sys::window() {
        use wasm_bindgen::JsCast;
        let callback = wasm_bindgen::closure::Closure::<dyn Fn()>::new(leaving);
        for event in ["beforeunload", "pagehide"] {
            let _ = window.add_event_listener_with_callback(event, callback.as_ref().unchecked_ref());
        }
        // Heard for the page's whole life.
        callback.forget();
    }
    #[cfg(not(target_arch = "wasm32"))]
    drop(leaving);
}

/// Calls `gone` when the page goes away (reloaded, closed, navigated from), not when it is
/// only sent to the background.
pub fn on_gone(gone: impl Fn() + 'static) {
    #[cfg(target_arch = "wasm32")]
    let _ = leptos::prelude::window_event_listener(leptos::ev::pagehide, move |_| gone());
    #[cfg(not(target_arch = "wasm32"))]
    drop(gone);
}

/// Says the app is up: `data-app` on `<html>`, which `www/boot.js` waits for to hand the first
/// screen's typing over and take that screen away (once; later calls change nothing).
pub fn app_up() {
    #[cfg(target_arch = "wasm32")]
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-app", "");
    }
}

/// The page's address as the address bar shows it.
pub fn address() -> String {
    #[cfg(target_arch = "wasm32")]
    return web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    #[cfg(not(target_arch = "wasm32"))]
    String::new()
}

/// Whether the page was opened again by the callback of a sign-in it went to itself (an MCP
/// server's, `settings::sign_in`): its address then ends in `#signed-in`, which is taken off,
/// and Settings opens and finishes the sign-in.
pub fn back_from_sign_in() -> bool {
    let back = fragment() == "#signed-in";
    if back {
        forget_fragment();
    }
    back
}

/// The page's fragment, `#` and all (empty when it has none).
pub fn fragment() -> String {
    #[cfg(target_arch = "wasm32")]
    return web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    #[cfg(not(target_arch = "wasm32"))]
    String::new()
}

/// Takes the fragment off the address without reloading or adding to the history.
pub fn forget_fragment() {
    #[cfg(target_arch = "wasm32")]
    if let Some(window) = web_sys::window() {
        let address = address();
        let plain = address.split('#').next().unwrap_or("");
        let _ = window.history().and_then(|h| h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(plain)));
    }
}

/// `bytes` packed with gzip by the browser.
pub async fn pack(bytes: &[u8]) -> Result<Vec<u8>, String> {
    #[cfg(target_arch = "wasm32")]
    return crate::browser::pack::gzip(bytes).await;
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = bytes;
        Err("Packing a link needs a browser.".into())
    }
}

/// What a share link's packed record unpacks to, stopped at `UNPACKED_LIMIT`.
pub async fn unpack(bytes: &[u8]) -> Result<Vec<u8>, crate::app::share::LinkError> {
    use crate::app::share::{LinkError, UNPACKED_LIMIT};
    #[cfg(target_arch = "wasm32")]
    return crate::browser::pack::gunzip(bytes, UNPACKED_LIMIT).await.map_err(|why| match why {
        crate::browser::pack::Unpack::TooBig => LinkError::TooBig,
        crate::browser::pack::Unpack::Broken => LinkError::Altered,
    });
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (bytes, UNPACKED_LIMIT);
        Err(LinkError::Damaged)
    }
}
