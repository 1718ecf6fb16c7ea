//! Thoughtline: a ReAct chat agent that runs entirely in the browser.
//!
//! Start with `agent` (the core: prompt, parser, loop, trace; no browser code), then `llm`
//! (model providers over fetch), `storage` (localStorage) and `ui` (the Leptos app).
//! ARCHITECTURE.md has the map and the flow of one question.

pub mod agent;
pub mod llm;
pub mod markdown;
pub mod net;
pub mod tools;
pub mod storage;
pub mod ui;

#[cfg(target_arch = "wasm32")]
pub mod browser;

/// Entry point of the page: install the panic hook, then mount the app.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    browser::install_panic_hook();
    leptos::mount::mount_to_body(ui::App);
}
