//! The in-page model's files as Settings manages them: the models this browser keeps, what
//! the browser offers the engine, loading one now (and warming it up with the agent's system
//! prompt) and deleting a kept one.

use leptos::prelude::*;

use crate::app::settings::Settings;
#[cfg(target_arch = "wasm32")]
use crate::in_page::file_name;
use crate::ui::services::in_page::InPage;

#[cfg(target_arch = "wasm32")]
pub fn refresh_cached(cached: RwSignal<Vec<(String, String, f64)>>) {
    leptos::task::spawn_local(async move {
        if let Ok(list) = crate::in_page::browser::cached_models().await {
            cached.set(list);
        }
    });
}

#[cfg(target_arch = "wasm32")]
pub fn show_environment(environment: RwSignal<String>) {
    leptos::task::spawn_local(async move {
        environment.set(match crate::in_page::browser::environment().await {
            Ok(env) => env.note,
            Err(e) => e.message,
        });
    });
}

#[cfg(target_arch = "wasm32")]
pub fn load_now(handle: InPage, settings: Settings, cached: RwSignal<Vec<(String, String, f64)>>, mcp: Option<crate::ui::services::mcp::Mcp>) {
    leptos::task::spawn_local(async move {
        let loaded = super::in_page::prepare(handle, &settings).await.is_ok();
        // The list shows the kept model as soon as it is loaded, before the warm-up below.
        refresh_cached(cached);
        // Then it reads the agent's system prompt while the person types.
        if let (true, Some(mcp)) = (loaded, mcp) {
            if let Ok(warm) = super::run::warm_in_page(handle, settings, mcp, false).await {
                warm.await;
            }
        }
    });
}

#[cfg(target_arch = "wasm32")]
pub fn delete_cached(url: String, handle: InPage, cached: RwSignal<Vec<(String, String, f64)>>) {
    leptos::task::spawn_local(async move {
        crate::in_page::browser::unload().await;
        handle.status.set(match crate::in_page::browser::delete_cached(&url).await {
            Ok(_) => crate::in_page::Status::Failed(format!("Deleted {} from this browser.", file_name(&url))),
            Err(e) => crate::in_page::Status::Failed(e.message),
        });
        refresh_cached(cached);
    });
}

#[cfg(not(target_arch = "wasm32"))]
pub fn refresh_cached(_cached: RwSignal<Vec<(String, String, f64)>>) {}

#[cfg(not(target_arch = "wasm32"))]
pub fn show_environment(environment: RwSignal<String>) {
    environment.set("The model in the page needs a browser.".into());
}

#[cfg(not(target_arch = "wasm32"))]
pub fn load_now(handle: InPage, _settings: Settings, _cached: RwSignal<Vec<(String, String, f64)>>, _mcp: Option<crate::ui::services::mcp::Mcp>) {
    handle.status.set(crate::in_page::Status::Failed("The model in the page needs a browser.".into()));
}

#[cfg(not(target_arch = "wasm32"))]
pub fn delete_cached(_url: String, _handle: InPage, _cached: RwSignal<Vec<(String, String, f64)>>) {}
