//! The Leptos app: one component per file, wired by `App`. Components only connect events to
//! plain functions; a run of the agent lives in `run` (the chat's side of it in `session`).
//!
//! Signals are owned by `App` and handed down narrowly (a read signal, a write signal or a
//! callback), so a component re-renders only for what it shows.

mod ahead;
mod chat;
mod chats;
mod compare;
mod documents;
mod eval;
mod features;
mod notices;
pub mod services;
mod settings;
mod share;
pub mod widgets;

use leptos::prelude::*;

use features::{compare_part, documents_part, evaluations_part, settings_part, settings_saved, Drawn};
use services::{page, parts, theme};
use std::sync::Arc;

pub use crate::conversation::{ChatMessage, Who};

/// Mounts the page: a shared run, read-only, when it was opened with a share link
/// (`#share=…`); otherwise the app. Decided once, here, rather than by a view that could switch:
/// the app's view is then only ever built, never rebuilt, and nothing of the shared view reaches
/// the first load. (A link pasted into the address bar of an open page loads it again:
/// `www/boot.js`.)
pub fn mount() {
    let opened = page::fragment();
    if !crate::app::share::link::is_share(&opened) {
        return mount_app();
    }
    theme::apply(&theme::load());
    leptos::mount::mount_to_body(move || parts::part_view("compare", move || Box::pin(compare_part(Drawn::SharedRun { fragment: opened.clone(), on_keep: keep_copy })), None, parts::Around::Nothing));
    page::app_up();
}

/// The app, mounted beside the first screen `www/index.html` drew, which stays until the app is
/// up (`page::app_up`): at once on a first visit; for a returning person once their settings
/// are read and the chat of last time is drawn, or after a second at most, so a slow database
/// never holds the page back.
fn mount_app() {
    leptos::mount::mount_to_body(App);
}

/// "Keep a copy" of a shared run (the shared view has gone, and the link left the address): the
/// app, with the copy imported.
fn keep_copy(copy: crate::conversation::Conversation) {
    services::chats::keep_for_import(copy);
    page::after(std::time::Duration::ZERO, mount_app);
}

#[component]
pub fn App() -> impl IntoView {
    // A first visit has no settings to read; a returning person's are read by a part, and the
    // first screen stays until they are here (`page::app_up`): until then the defaults stand in.
    let opening = services::settings::opening();
    let loaded = opening.as_ref().ok();
    let settings_notice = RwSignal::new(loaded.and_then(|l| l.notice()));
    let settings = RwSignal::new(loaded.map(|l| l.settings.clone()).unwrap_or_default());
    let settings_read = RwSignal::new(loaded.is_some());
    // Nothing is written over settings of a newer release, or over settings not read.
    let read_only = StoredValue::new(opening.as_ref().map_or(true, |l| l.read_only()));
    // The settings just read are not a change to save.
    let arriving = StoredValue::new(false);
    if let Err(json) = opening {
        leptos::task::spawn_local(async move {
            let loaded = services::settings::read(json).await;
            arriving.set_value(true);
            read_only.set_value(loaded.read_only());
            settings_notice.set(loaded.notice());
            settings.set(loaded.settings);
            settings_read.set(true);
        });
    }
    // The page's MCP servers: given to the runs, and to Settings as context.
    let mcp = services::mcp::install(settings);
    provide_context(mcp);
    let in_page = services::in_page::InPage::install();
    // Saving is the one effect that reaches the outside world from settings. Nothing is
    // written on load (a field that fell back must not overwrite what is stored until the
    // person changes something), and never over settings of a newer release.
    // The writer is a part of the page (`settings_saved`), fetched at idle: the first screen
    // writes nothing. Each save writes the settings as they are when it runs, so saves that
    // wait for the part together all write the latest.
    Effect::new(move |first: Option<()>| {
        settings.track();
        let arrived = arriving.try_update_value(|a| std::mem::take(a)).unwrap_or(false);
        if first.is_some() && !arrived && !read_only.get_value() {
            leptos::task::spawn_local(async move {
                let saved = settings_saved(settings).await.unwrap_or_else(|missing| Err(missing.message(parts::what("save_settings"))));
                settings_notice.set(saved.err().map(|e| format!("Settings are not saved: {e} They apply on this page until it is closed.")));
            });
        }
    });

    // The open conversation is the one record the chat, the trace pane, saving and export read.
    let chats = services::chats::Chats::restore();
    let chat = chats.chat;
    let chat_run = services::run::RunControl::new(chat, Some(Callback::new(move |save| chats.changed(save))), mcp);
    let (streaming, running) = (chat_run.streaming, chat_run.running);
    chats.driven_by(running.read_only());
    // Back from a sign-in: Settings opens (once the settings are read, below) and finishes it.
    let back_from_sign_in = page::back_from_sign_in();
    let show_settings = RwSignal::new(false);
    let show_compare = RwSignal::new(false);
    let show_evals = RwSignal::new(false);
    let show_documents = RwSignal::new(false);
    // A citation in an answer opens its passage in the Documents panel (`services::documents::cite`).
    provide_context(widgets::bubbles::OpenCitation(show_documents));
    // Bumped by the trace's "Compare runs": Compare opens at the runs of this conversation.
    let compare_runs_asked = RwSignal::new(0u32);
    let on_compare_runs = Callback::new(move |_: ()| {
        show_compare.set(true);
        show_evals.set(false);
        compare_runs_asked.update(|n| *n += 1);
    });
    // The parts a person is waiting for (a slow connection), in the order asked for.
    let loading = RwSignal::new(Vec::<&'static str>::new());
    let theme = RwSignal::new(theme::load());
    // Applied on load, saved only when changed: nothing is written on load.
    Effect::new(move |first: Option<()>| {
        theme.with(|t| {
            theme::apply(t);
            if first.is_some() {
                if let Err(e) = theme::save(t) {
                    settings_notice.set(Some(format!("The colour theme is not saved: {e} It applies on this page until it is closed.")));
                }
            }
        })
    });
    let session = services::session::Session::new(settings.read_only(), chats, chat_run);

    // Once the settings are read: the page is up (for a returning person, once the chat of
    // last time is open too, or after a second at most), and parts are fetched ahead.
    let returning = services::chats::returning();
    let chat_shown = RwSignal::new(!returning);
    // What a returning person's chat is drawn with (its reading, its answers, its steps) is
    // fetched as the app mounts: it does not depend on the settings.
    let parts_here = RwSignal::new(!returning);
    #[cfg(target_arch = "wasm32")]
    ahead::fetch_at_once(returning, move || parts_here.set(true));
    if returning {
        page::after(std::time::Duration::from_secs(1), move || chat_shown.set(true));
    }
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) || !settings_read.get() {
            return done.unwrap_or(false);
        }
        if !(chat_shown.get() || (chats.restored.get() && parts_here.get())) {
            return false;
        }
        page::app_up();
        starting(settings, in_page, mcp);
        true
    });
    let fetch_compare = || ahead::fetch("compare");
    // The pointer or the focus on a top-bar button fetches the part it opens (its `data-part`).
    let fetch_reached = |ev: &leptos::ev::Event| {
        if let Some(part) = services::dom::part_reached(ev) {
            ahead::fetch(&part)
        }
    };

    let on_send = Callback::new(move |question: String| session.ask(question));
    let on_stop = Callback::new(move |_: ()| chat_run.stop());
    let on_import = Callback::new(move |imported: crate::conversation::Conversation| {
        if !running.get_untracked() {
            chats.open_imported(imported)
        }
    });

    // Once the settings are read: Settings opens to finish a sign-in, and a shared run kept
    // (`keep_copy`) is imported, masked with this person's secrets as an imported file is.
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) || !settings_read.get() {
            return done.unwrap_or(false);
        }
        if back_from_sign_in {
            show_settings.set(true);
        }
        if let Some(mut kept) = services::chats::kept_for_import() {
            kept.mask(&settings.with_untracked(crate::ui::services::secrets::collect));
            chats.open_imported(kept);
        }
        true
    });

    view! {
        <div class="app">
            <header class="topbar">
                <div class="brand">
                    <img src="icons/logo.svg" alt="" width="28" height="28"/>
                    <h1>"Thoughtline"</h1>
                    <span class="tagline">"A ReAct agent you can watch think"</span>
                </div>
                <div class="topbar-actions" on:pointerover=move |ev| fetch_reached(&ev) on:focusin=move |ev| fetch_reached(&ev)>
                <button class="ghost" data-testid="theme-toggle"
                    aria-label=move || format!("Colour theme: {}", theme_label(&theme.get()))
                    on:click=move |_| theme.update(|t| *t = next_theme(t))>
                    {move || format!("◐ {}", theme_label(&theme.get()))}
                </button>
                <button class="ghost" data-testid="compare-toggle" data-part="compare"
                    aria-pressed=move || show_compare.get().to_string()
                    on:click=move |_| { show_evals.set(false); show_compare.update(|c| *c = !*c) }>
                    {move || if show_compare.get() { "← Chat" } else { "⇆ Compare" }}
                </button>
                <button class="ghost" data-testid="evaluate" data-part="evaluations"
                    aria-pressed=move || show_evals.get().to_string()
                    on:click=move |_| { show_compare.set(false); show_evals.update(|e| *e = !*e) }>
                    {move || if show_evals.get() { "← Chat" } else { "✓ Evaluate" }}
                </button>
                <button class="ghost" data-testid="documents" data-part="documents"
                    aria-expanded=move || show_documents.get().to_string()
                    aria-controls="documents"
                    on:click=move |_| show_documents.update(|d| *d = !*d)>
                    "▤ Documents"
                </button>
                <button
                    class="ghost"
                    data-testid="settings-toggle"
                    data-part="settings"
                    aria-expanded=move || show_settings.get().to_string()
                    aria-controls="settings"
                    on:click=move |_| show_settings.update(|s| *s = !*s)
                >
                    "⚙ Settings"
                </button>
                </div>
            </header>
            <notices::Notices chats settings_notice=settings_notice.read_only()/>
            // Hidden rather than removed, so a run in either view keeps streaming into it.
            <main class="layout" hidden=move || show_compare.get() || show_evals.get()>
                <chats::ChatList chats running=running.read_only()/>
                <chat::ChatPane chat running=running.read_only() on_send on_stop first_look=chat::FirstLook { settings, in_page } approval=chat_run.approval compose=chat::compose::Compose { mcp, run: chat_run }/>
                <widgets::trace::TracePane chat streaming=streaming.read_only() running=running.read_only() progress=chat_run.progress.read_only() sent=chat_run.sent.read_only() session on_compare_runs>
                    <widgets::trace::tools::TraceTools chat settings=settings.read_only() running=running.read_only() on_import share=widgets::trace::tools::ShareWith { panel: features::share_panel, fetch: fetch_compare }/>
                </widgets::trace::TracePane>
            </main>
            {parts::kept("compare-view", show_compare, "compare", Arc::new(move || -> parts::PartFuture { Box::pin(compare_part(Drawn::Compare { settings: settings.read_only(), chat, asked: compare_runs_asked.read_only() })) }), loading, parts::Around::Nothing)}
            {parts::kept("evals-view", show_evals, "evaluations", Arc::new(move || -> parts::PartFuture { Box::pin(evaluations_part(settings.read_only(), chat)) }), loading, parts::Around::Nothing)}
            {move || loading.with(|parts| parts.first().map(|what| view! {
                <div class="part-overlay"><div class="notice" role="status" data-testid="part-loading">{format!("Loading {}…", parts_list(what, &parts[1..]))}</div></div>
            }))}
            // Indexing goes on while the panel is closed.
            {parts::kept("documents-view", show_documents, "documents", Arc::new(move || -> parts::PartFuture { Box::pin(documents_part(Callback::new(move |_: ()| show_documents.set(false)))) }), loading, parts::Around::Overlay)}
            // Loaded the first time it is opened (`parts`): most visits never open it.
            <Show when=move || show_settings.get()>
                {
                    let on_close = Callback::new(move |_: ()| show_settings.set(false));
                    parts::part_view("settings", move || Box::pin(settings_part(settings, on_close)), Some(loading), parts::Around::Overlay)
                }
            </Show>
        </div>
    }
}

/// What starts once the settings are read: parts fetched ahead as the manifest says
/// (`parts::MANIFEST`) once the browser is idle (what a person coming back needs at once was
/// fetched as the app mounted); and, for someone who uses the model in the page, that model loaded from this
/// browser and reading the agent's system prompt while they type (never a download they did
/// not ask for).
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))]
fn starting(settings: RwSignal<crate::app::settings::Settings>, in_page: services::in_page::InPage, mcp: services::mcp::Mcp) {
    #[cfg(target_arch = "wasm32")]
    {
        ahead::fetch_at_idle(&settings.get_untracked());
        if settings.with_untracked(|s| s.provider.preset.in_page()) {
            page::when_idle(move || {
                leptos::task::spawn_local(async move {
                    if let Ok(warm) = services::run::warm_in_page(in_page, settings.get_untracked(), mcp, true).await {
                        warm.await;
                    }
                })
            });
        }
    }
}

/// "Settings", "Settings and Compare".
fn parts_list(first: &str, rest: &[&str]) -> String {
    rest.iter().fold(first.to_string(), |list, what| format!("{list} and {what}"))
}

/// Auto (follow the OS) → light → dark → auto.
fn next_theme(theme: &str) -> String {
    match theme {
        "" => "light",
        "light" => "dark",
        _ => "",
    }
    .to_string()
}

fn theme_label(theme: &str) -> &'static str {
    match theme {
        "light" => "Light",
        "dark" => "Dark",
        _ => "Auto",
    }
}
