//! Browser glue that is not UI: the clock the agent runs on and the panic hook.

use wasm_bindgen::JsCast;

use crate::agent::{Clock, LocalBoxFuture};

/// `performance.now()` for durations, `Date.now()` for timestamps, `setTimeout` for sleeps.
pub struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
    }

    fn unix_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            if let Some(window) = web_sys::window() {
                let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.clamp(0.0, 2_147_483_647.0) as i32);
            }
        });
        Box::pin(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        })
    }
}

/// Logs panics to the console with their message and shows a banner, so the page never dies
/// silently: a panic in WASM stops the app, and the person should know to reload.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_fatal_banner(&info.to_string());
    }));
}

fn show_fatal_banner(detail: &str) {
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
