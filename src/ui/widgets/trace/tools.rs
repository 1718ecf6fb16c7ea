//! The trace's toolbar: export the conversation (every run, with its steps) as JSON, copy the
//! run shown as Markdown, and import an exported conversation to look at it again (no key
//! needed: nothing is re-run).

use leptos::prelude::*;

use crate::ui::services::files::{exported, import_text, preload_export, preload_import, Export};
use crate::agent::Trace;
use crate::conversation::Conversation;
use crate::app::settings::Settings;

#[component]
pub fn TraceTools(
    chat: RwSignal<Conversation>,
    settings: ReadSignal<Settings>,
    running: ReadSignal<bool>,
    on_import: Callback<Conversation>,
    share: ShareWith,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let toolbar = Toolbar { chat, settings, running, status, share };
    // Fetched when the pointer or the focus reaches the toolbar (the manifest's "hover").

    let fetch_parts = || {
        leptos::task::spawn_local(async {
            let _ = preload_export().await;
            let _ = preload_import().await;
        })
    };
    // An imported file may hold a key of ours (a run exported before it was configured, or
    // shared back): it is masked before it is shown or stored.
    let on_import = Callback::new(move |mut imported: Conversation| {
        imported.mask(&settings.with_untracked(crate::ui::services::secrets::collect));
        on_import.run(imported);
    });
    let import = move |ev: leptos::ev::Event| {
        let input = crate::ui::services::page::chosen(&ev);
        import_later(input, on_import, status);
    };

    view! {
        <div class="trace-tools" role="toolbar" aria-label="Trace actions" on:pointerenter=move |_| fetch_parts() on:focusin=move |_| fetch_parts()>
            // What applies now: a chat with no run yet has nothing to export, copy or compare.
            // Those controls are drawn by the trace's part, which such a chat has.
            <Show when=move || chat.with(|c| !c.runs.is_empty())>
                {crate::ui::services::parts::part_view("trace_rows", move || Box::pin(super::rows_part(super::Shown::Tools(toolbar))), None, crate::ui::services::parts::Around::Nothing)}
            </Show>
            <label class="ghost small file-button">
                "⬆ Import…"
                <input type="file" accept="application/json,.json" data-testid="import" class="visually-hidden" on:change=import/>
            </label>
            <span class="status" role="status" data-testid="trace-status">{move || status.get()}</span>
        </div>
    }
}

/// What the run's controls in the trace's toolbar work with.
#[derive(Clone, Copy)]
pub struct Toolbar {
    chat: RwSignal<Conversation>,
    settings: ReadSignal<Settings>,
    running: ReadSignal<bool>,
    /// The toolbar's line saying how the last action went.
    status: RwSignal<String>,
    share: ShareWith,
}

/// How the toolbar opens the Share panel, handed down by the shell (the panel is a feature's,
/// drawn by a part this widget does not name).
#[derive(Clone, Copy)]
pub struct ShareWith {
    /// The panel for a chat, with what closes it: the part's call, which this widget shows
    /// (`part_view`), so that only the call itself sits where the shell is.
    pub panel: fn(RwSignal<Conversation>, ReadSignal<Settings>, Callback<()>) -> crate::ui::services::parts::PartFuture,
    /// Fetches the panel's code ahead (the pointer or the focus reached Share).
    pub fetch: fn(),
}

impl Toolbar {
    pub fn new(chat: RwSignal<Conversation>, settings: ReadSignal<Settings>, running: ReadSignal<bool>, status: RwSignal<String>, share: ShareWith) -> Self {
        Toolbar { chat, settings, running, status, share }
    }
}

/// Share and the exports, for a chat that has runs (drawn by the trace's part). Compare runs,
/// Import and the ways of looking are in the find bar's menu, at the end of the same row.
pub fn run_tools(toolbar: Toolbar) -> AnyView {
    let Toolbar { chat, settings, running, status, share } = toolbar;
    let sharing = RwSignal::new(false);
    let empty = move || chat.with(Conversation::is_empty) || running.get();
    // Everything the conversation holds was masked where it came in (the run's observer, an
    // import), so it leaves as it is; the settings leave without their secrets. Writing and
    // reading the file are parts of the page fetched on use (`parts`): most visits never do.
    let export = move |_| {
        let (whole, settings) = (chat.get_untracked(), settings.get_untracked());
        let runs = whole.runs.len();
        leptos::task::spawn_local(async move {
            let json = match exported(Export::Json { chat: whole, settings, now_ms: crate::ui::services::page::now_ms() }, "Export").await {
                Ok(json) => json,
                Err(why) => return status.set(why),
            };
            status.set(match crate::ui::services::page::download("thoughtline-chat.json", "application/json", &json) {
                Ok(()) => format!("Exported {runs} run{}.", if runs == 1 { "" } else { "s" }),
                Err(e) => e,
            });
        });
    };
    // The run shown as an OpenTelemetry trace (OTLP JSON), masked again on the way out.
    let export_otel = move |_| {
        // A branch is a trace of its own, linked to the step it was made from.
        let (conversation_id, (events, parent)) = chat.with_untracked(|c| {
            let traced = c.shown_run().map(|r| crate::ui::services::otel::trace_of(r, r.shown_number())).unwrap_or_default();
            (c.id.clone(), traced)
        });
        let secrets = settings.with_untracked(crate::ui::services::secrets::collect);
        leptos::task::spawn_local(async move {
            let json = exported(Export::Otel { conversation_id, events, parent, secrets }, "The OpenTelemetry export").await;
            status.set(match json.and_then(|json| crate::ui::services::page::download("thoughtline-run.otlp.json", "application/json", &json)) {
                Ok(()) => "Exported the run shown as an OpenTelemetry trace.".into(),
                Err(e) => e,
            });
        });
    };
    // The run shown, as the pane shows it (written by the export part too).
    let copy = move |_| {
        let trace = Trace { events: chat.with_untracked(|c| c.shown_events().to_vec()) };
        leptos::task::spawn_local(async move {
            match exported(Export::Markdown(trace), "Copy as Markdown").await {
                Ok(text) => copy_later(text, status),
                Err(why) => status.set(why),
            }
        });
    };
    // The page as one file that needs no app (and no script) to read.
    let save_html = move |_| {
        let whole = chat.get_untracked();
        leptos::task::spawn_local(async move {
            let html = exported(Export::Html(whole), "Save as HTML").await;
            status.set(match html.and_then(|html| crate::ui::services::page::download("thoughtline-chat.html", "text/html", &html)) {
                Ok(()) => "Saved the conversation as an HTML page.".into(),
                Err(e) => e,
            });
        });
    };
    let fetch_share = share.fetch;
    // A choice closes the menu, as does a press anywhere outside it.
    let menu = NodeRef::<leptos::html::Details>::new();
    crate::ui::services::dom::close_menu_from_outside(menu);
    let close = move |_: leptos::ev::MouseEvent| {
        if let Some(menu) = menu.get_untracked() {
            crate::ui::services::dom::close_menu(&menu);
        }
    };
    let on_close = Callback::new(move |_: ()| sharing.set(false));
    view! {
        <button class="ghost small" data-testid="share" disabled=empty aria-expanded=move || sharing.get().to_string()
            on:pointerenter=move |_| fetch_share() on:focus=move |_| fetch_share()
            on:click=move |_| sharing.update(|s| *s = !*s) title="A link that carries this run: it opens read-only, with no server">"↗ Share"</button>
        // The exports in one menu, so the toolbar stays one row above the steps.
        <link rel="stylesheet" href="parts/find.css"/>
        <details class="menu" data-testid="exports" node_ref=menu>
            <summary class="ghost small" title="Save or copy this conversation or the run shown">"⬇ Export"</summary>
            <div class="menu-items" role="group" aria-label="Export" on:click=close>
                <button class="ghost small" data-testid="save-html" disabled=empty on:click=save_html title="Every run and step as one page that opens anywhere, no script needed">"Save as HTML"</button>
                <button class="ghost small" data-testid="export" disabled=empty on:click=export title="Every run of this conversation, with its steps">"Export JSON"</button>
                <button class="ghost small" data-testid="export-otel" disabled=empty on:click=export_otel title="The run shown, as OTLP JSON: opens in Jaeger, goes to any OpenTelemetry collector">"OpenTelemetry"</button>
                <button class="ghost small" data-testid="copy-markdown" disabled=empty on:click=copy title="The run shown">"Copy as Markdown"</button>
            </div>
        </details>
        <Show when=move || sharing.get()>
            {crate::ui::services::parts::part_view("compare", move || (share.panel)(chat, settings, on_close), None, crate::ui::services::parts::Around::Nothing)}
        </Show>
    }
    .into_any()
}

fn copy_later(text: String, status: RwSignal<String>) {
    leptos::task::spawn_local(async move {
        status.set(match crate::ui::services::page::copy_text(&text).await {
            Ok(()) => "Copied as Markdown.".into(),
            Err(e) => e,
        });
    });
}

#[cfg(target_arch = "wasm32")]
fn import_later(input: crate::ui::services::page::Chosen, on_import: Callback<Conversation>, status: RwSignal<String>) {
    leptos::task::spawn_local(async move {
        let result = match input.read(crate::ui::services::files::IMPORT_LIMIT_BYTES).await {
            Ok(text) => import_text(text).await.unwrap_or_else(|missing| Err(missing.message("Import"))),
            Err(e) => Err(e),
        };
        input.clear();
        match result {
            Ok(chat) => {
                let events: usize = chat.runs.iter().map(|r| r.events.len()).sum();
                let runs = chat.runs.len();
                status.set(format!("Imported {runs} run{} with {events} events.", if runs == 1 { "" } else { "s" }));
                on_import.run(chat);
            }
            Err(e) => status.set(e),
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn import_later(_input: crate::ui::services::page::Chosen, _on_import: Callback<Conversation>, status: RwSignal<String>) {
    // Reading a file needs the browser; the part is the same everywhere.
    let _ = import_text;
    status.set("Importing needs a browser.".into());
}
