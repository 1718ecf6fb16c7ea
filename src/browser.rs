//! Browser glue that is not UI: the clock the agent runs on, the panic hook, and loading a
//! module of this site on use (the in-page engine, the PDF reader).

pub mod pack;

use wasm_bindgen::JsCast;

use crate::base::{Clock, LocalBoxFuture};

/// `performance.now()` for durations, `Date.now()` for timestamps, `setTimeout` for sleeps.
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
    }

    fn unix_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    /// Dropping the sleep before it ends clears its timer: the loop races a silence limit
    /// against every chunk of a reply, and thousands of abandoned timers would otherwise each
    /// fire minutes later.
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        let mut timer = None;
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            if let Some(window) = web_sys::window() {
                timer = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.clamp(0.0, 2_147_483_647.0) as i32).ok();
            }
        });
        let guard = timer.map(ClearTimer);
        Box::pin(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
            drop(guard);
        })
    }
}

#[wasm_bindgen::prelude::wasm_bindgen(inline_js = "export function import_module(url) { return import(url); }")]
extern "C" {
    /// `import(url)`: a module of this site, fetched the first time it is asked for.
    pub fn import_module(url: &str) -> js_sys::Promise;
}

/// A `setTimeout` that is cleared when this is dropped (clearing one that fired is harmless).
struct ClearTimer(i32);

impl Drop for ClearTimer {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            window.clear_timeout_with_handle(self.0);
        }
    }
}

/// Logs panics to the console with their message and shows a banner, so the page never dies
/// silently: a panic in WASM stops the app, and the person should know to reload.
/// Debug builds and the browser tests only: the shipped build (`scripts/build`) compiles a panic
/// to an immediate trap, which never reaches this hook; `www/boot.js` shows the same banner then.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_fatal_banner(&info.to_string());
    }));
}

/// Shows the fatal-error banner (also called by tests: a real panic would end them).
pub fn show_fatal_banner(detail: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(body) = document.body() else { return };
    let Ok(banner) = document.create_element("div") else { return };
    banner.set_class_name("fatal-banner");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-testid", "fatal-banner");
    // Text only: the panic message may quote untrusted input.
    banner.set_text_content(Some(&format!(
        "Thoughtline hit an internal error and stopped. Reload the page to continue. Details: {detail}"
    )));
    if let Some(el) = banner.dyn_ref::<web_sys::HtmlElement>() {
        let _ = el.focus();
    }
    let _ = body.prepend_with_node_1(&banner);
}

/// Offers `text` to the person as a file download.
pub fn download(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |e: wasm_bindgen::JsValue| format!("The download could not start: {e:?}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    link.set_href(&url);
    link.set_download(filename);
    link.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Puts `text` on the clipboard.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let clipboard = web_sys::window().ok_or("no window")?.navigator().clipboard();
    wasm_bindgen_futures::JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|_| "The browser refused clipboard access; use Export instead.".to_string())
}

/// The text of the first file chosen in a file input, refused unread when it is larger than
/// `limit` bytes.
pub async fn read_chosen_file(input: &web_sys::HtmlInputElement, limit: f64) -> Result<String, String> {
    let file = input.files().and_then(|f| f.get(0)).ok_or("No file was chosen.")?;
    let mb = |bytes: f64| bytes / (1024.0 * 1024.0);
    if file.size() > limit {
        return Err(format!(
            "This file is {:.1} MB; Thoughtline opens exported runs of up to {:.0} MB, so it was not read.",
            mb(file.size()),
            mb(limit)
        ));
    }
    let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.map_err(|_| "The file could not be read.".to_string())?;
    Ok(text.as_string().unwrap_or_default())
}
