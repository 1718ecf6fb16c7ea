//! Fetching parts of the page ahead of their use, as the manifest says (`parts::MANIFEST`):
//! at once what a person coming back to a chat needs, the rest once the first screen is up and
//! the browser is idle, one after the other; Settings and Compare when the pointer or the focus
//! reaches their buttons. Above the features (it names their preloads); only `App` and this
//! file's tests use it, so no feature reaches back through it.

#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
use crate::ui::services::parts::{ahead, PartMissing};

/// Fetches a part without calling it.
pub type Preload = fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), PartMissing>>>>;

/// How to fetch part `chunk` ahead; `None` for a part only its use fetches.
pub fn preload(chunk: &str) -> Option<Preload> {
    Some(match chunk {
        "save_chat" => || Box::pin(super::services::chats::preload_save()),
        "save_settings" => || Box::pin(super::features::preload_save_settings()),
        "run" => || Box::pin(super::services::run::preload_engine()),
        "markdown" => || Box::pin(super::widgets::markdown::preload_answer()),
        "trace_rows" => || Box::pin(super::widgets::trace::preload_rows()),
        "otel_send" => || Box::pin(super::services::otel::preload_send()),
        "find_bar" => || Box::pin(super::widgets::trace::find::preload_find_bar()),
        "approval" => || Box::pin(super::widgets::approval::preload()),
        "in_page_warm" => || Box::pin(super::services::run::preload_warm()),
        "chat_list" => || Box::pin(super::chats::preload_list()),
        "read_chat" => || Box::pin(super::services::chats::preload_read()),
        "open_chats" => || Box::pin(super::services::chats::preload_open()),
        "settings" => || Box::pin(super::features::preload_settings()),
        "compare" => || Box::pin(super::features::preload_compare()),
        "evaluations" => || Box::pin(super::features::preload_evaluations()),
        "documents" => || Box::pin(super::features::preload_documents()),
        "export_file" => || Box::pin(super::services::files::preload_export()),
        "import_file" => || Box::pin(super::services::files::preload_import()),
        _ => return None,
    })
}

/// Fetches, side by side, what `parts::ahead` says a person coming back needs at once (their
/// chat's reading, its answers and its steps): as the app mounts, since none of it depends on
/// the settings. `settled` is called once each has arrived or failed, so that the first screen
/// can stay until the chat is drawn whole.
#[cfg(target_arch = "wasm32")]
pub fn fetch_at_once(returning: bool, settled: impl Fn() + 'static) {
    let now: Vec<Preload> = ahead(&Default::default(), returning).0.into_iter().filter_map(|p| preload(p.chunk)).collect();
    let left = std::rc::Rc::new(std::cell::Cell::new(now.len()));
    let settled = std::rc::Rc::new(settled);
    if now.is_empty() {
        settled();
    }
    for preload in now {
        let (left, settled) = (left.clone(), settled.clone());
        leptos::task::spawn_local(async move {
            let _ = preload().await;
            left.set(left.get() - 1);
            if left.get() == 0 {
                settled();
            }
        });
    }
}

/// Fetches, one after the other once the browser is idle, what `parts::ahead` says the
/// settings will need.
#[cfg(target_arch = "wasm32")]
pub fn fetch_at_idle(settings: &crate::app::settings::Settings) {
    let (_, idle) = ahead(settings, false);
    let idle: Vec<Preload> = idle.into_iter().filter_map(|p| preload(p.chunk)).collect();
    crate::ui::services::page::when_idle(move || {
        let idle = idle.clone();
        leptos::task::spawn_local(async move {
            for preload in idle {
                let _ = preload().await;
            }
        })
    });
}

/// Fetches part `chunk` now (the pointer or the focus reached what opens it).
pub fn fetch(chunk: &str) {
    if let Some(preload) = preload(chunk) {
        leptos::task::spawn_local(async move {
            let _ = preload().await;
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::ui::services::parts::MANIFEST;
    use super::*;

    /// A part fetched ahead has a way to be fetched ahead, a part only its use fetches has none,
    /// and every preload can be called (natively each is done at once).
    #[test]
    fn every_part_fetched_ahead_can_be_fetched_ahead() {
        for part in MANIFEST {
            assert!(!part.fetched.is_empty() && !part.what.is_empty(), "{}", part.chunk);
            let ahead = part.fetched.iter().any(|f| *f != crate::ui::services::parts::Fetched::OnUse);
            assert_eq!(preload(part.chunk).is_some(), ahead, "{}", part.chunk);
            if let Some(preload) = preload(part.chunk) {
                assert_eq!(pollster::block_on(preload()), Ok(()), "{}", part.chunk);
            }
        }
        assert!(preload("no_such_part").is_none());
    }

    #[test]
    fn what_is_fetched_ahead_follows_the_manifest_and_the_settings() {
        let chunks = |parts: Vec<&crate::ui::services::parts::Part>| parts.into_iter().map(|p| p.chunk).collect::<Vec<_>>();
        let mut settings = crate::app::settings::Settings::default();
        let (now, idle) = ahead(&settings, false);
        assert!(now.is_empty(), "a first visit fetches nothing before the first screen is up");
        let idle = chunks(idle);
        assert_eq!(&idle[..3], ["save_chat", "save_settings", "run"], "saving before the engine");
        assert!(idle.contains(&"trace_rows") && !idle.contains(&"approval") && !idle.contains(&"in_page_warm") && !idle.contains(&"settings"));
        assert!(!idle.contains(&"otel_send"), "no collector, no sending");
        let (now, _) = ahead(&settings, true);
        assert_eq!(chunks(now), ["markdown", "trace_rows", "chat_list", "read_chat", "open_chats"], "coming back: the chat's reading, the list, its answers and its steps at once");
        settings.collector.endpoint = "http://127.0.0.1:4318".into();
        assert!(chunks(ahead(&settings, false).1).contains(&"otel_send"));
        settings.tools.mcp.servers.push(crate::app::settings::McpServer { url: "http://127.0.0.1:9/mcp".into(), ..Default::default() });
        settings.tools.mcp.servers[0].common.enabled = true;
        settings.provider.preset = crate::app::settings::Preset::InPage;
        let idle = chunks(ahead(&settings, false).1);
        assert!(idle.contains(&"approval") && idle.contains(&"in_page_warm"));
    }
}
