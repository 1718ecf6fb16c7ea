//! The features as the shell opens them: each a part of the page fetched on first use
//! (`services::parts`), and the one way in to it. The shell (`ui/mod.rs`) and the parts
//! fetched ahead (`ahead.rs`) name these; no feature does, so none reaches another through
//! them. A widget that opens a feature (the trace's Share) is handed the way in by the shell.

use leptos::prelude::*;

use crate::app::settings::Settings;
use crate::conversation::Conversation;

crate::ui::services::parts::part!(save_settings, preload = preload_save_settings, pub fn settings_saved(settings: RwSignal<Settings>) -> Result<(), String> {
    settings.with_untracked(crate::ui::services::settings::save).map_err(|e| e.to_string())
});

crate::ui::services::parts::part!(settings, preload = preload_settings, pub fn settings_part(settings: RwSignal<Settings>, on_close: Callback<()>) -> AnyView {
    view! { <super::settings::SettingsPanel settings on_close/> }.into_any()
});

/// What the Compare part draws: Compare, and the other views of runs that nobody runs here, the
/// Share panel and a shared run. One part, because they are drawn from the same code (runs side
/// by side, the trace pane, export): as parts of their own they would split every chunk they
/// share with the others, and the loader carries a line for each chunk in the first load.
pub enum Drawn {
    Compare { settings: ReadSignal<Settings>, chat: RwSignal<Conversation>, asked: ReadSignal<u32> },
    SharePanel { chat: RwSignal<Conversation>, settings: ReadSignal<Settings>, on_close: Callback<()> },
    SharedRun { fragment: String, on_keep: fn(Conversation) },
}

crate::ui::services::parts::part!(compare, preload = preload_compare, pub fn compare_part(what: Drawn) -> AnyView {
    match what {
        Drawn::Compare { settings, chat, asked } => view! { <super::compare::ComparePane settings chat asked/> }.into_any(),
        Drawn::SharePanel { chat, settings, on_close } => super::share::share_panel(chat, settings, on_close),
        Drawn::SharedRun { fragment, on_keep } => super::share::shared_page(fragment, on_keep),
    }
});

crate::ui::services::parts::part!(evaluations, preload = preload_evaluations, pub fn evaluations_part(settings: ReadSignal<Settings>, chat: RwSignal<Conversation>) -> AnyView {
    view! { <super::eval::EvalPane settings chat/> }.into_any()
});

// The Documents panel: the top bar's button is its only way in from the first load.
crate::ui::services::parts::part!(documents, preload = preload_documents, pub fn documents_part(on_close: Callback<()>) -> AnyView {
    view! { <super::documents::DocumentsPanel on_close/> }.into_any()
});

/// The trace toolbar's way to the Share panel, which the Compare part draws. Only this call
/// sits in the first load; the toolbar's part shows what it brings.
pub fn share_panel(chat: RwSignal<Conversation>, settings: ReadSignal<Settings>, on_close: Callback<()>) -> crate::ui::services::parts::PartFuture {
    Box::pin(compare_part(Drawn::SharePanel { chat, settings, on_close }))
}
