//! The trace's toolbar: export the run as JSON, copy it as Markdown, and import an exported
//! run to look at it again (no key needed: nothing is re-run).

use leptos::prelude::*;

use crate::agent::{Event, Trace};
use crate::storage::{ExportedRun, Settings};

#[component]
pub fn TraceTools(
    trace: ReadSignal<Vec<Event>>,
    settings: ReadSignal<Settings>,
    running: ReadSignal<bool>,
    on_import: Callback<ExportedRun>,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let empty = move || trace.with(Vec::is_empty) || running.get();
    let current = move || Trace { events: trace.get_untracked() };

    // The shown events are masked already; masking again at the exit also covers a secret
    // configured after the run was recorded.
    let masked = move || {
        let mut trace = current();
        crate::secrets::mask_events(&mut trace.events, &settings.with_untracked(crate::secrets::collect));
        trace
    };
    let export = move |_| {
        let json = crate::storage::export_run(&masked(), &settings.get_untracked(), super::page::now_ms());
        status.set(match super::page::download("thoughtline-run.json", "application/json", &json) {
            Ok(()) => "Exported.".into(),
            Err(e) => e,
        });
    };
    let copy = move |_| {
        let markdown = masked().to_markdown();
        copy_later(markdown, status);
    };
    // An imported file may hold a key of ours (a run exported before it was configured, or
    // shared back): it is masked before it is shown or stored.
    let on_import = Callback::new(move |mut run: ExportedRun| {
        let secrets = settings.with_untracked(crate::secrets::collect);
        crate::secrets::mask_events(&mut run.trace.events, &secrets);
        run.question = crate::secrets::mask(&run.question, &secrets);
        run.answer = run.answer.map(|a| crate::secrets::mask(&a, &secrets));
        on_import.run(run);
    });
    let import = move |ev: leptos::ev::Event| {
        let input = event_target::<web_sys::HtmlInputElement>(&ev);
        import_later(input, on_import, status);
    };

    view! {
        <div class="trace-tools" role="toolbar" aria-label="Trace actions">
            <button class="ghost small" data-testid="export" disabled=empty on:click=export>"⬇ Export JSON"</button>
            <button class="ghost small" data-testid="copy-markdown" disabled=empty on:click=copy>"Copy as Markdown"</button>
            <label class="ghost small file-button">
                "⬆ Import…"
                <input type="file" accept="application/json,.json" data-testid="import" class="visually-hidden" on:change=import/>
            </label>
            <span class="status" role="status" data-testid="trace-status">{move || status.get()}</span>
        </div>
    }
}

/// The largest file Import opens: a 100-step run with long observations exports to about
/// 5 MB, and a file many times that would only stall the page while it is parsed.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const IMPORT_LIMIT_BYTES: f64 = 20.0 * 1024.0 * 1024.0;


#[cfg(target_arch = "wasm32")]
fn copy_later(text: String, status: RwSignal<String>) {
    leptos::task::spawn_local(async move {
        status.set(match crate::browser::copy_text(&text).await {
            Ok(()) => "Copied as Markdown.".into(),
            Err(e) => e,
        });
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn copy_later(_text: String, status: RwSignal<String>) {
    status.set("Copying needs a browser.".into());
}

#[cfg(target_arch = "wasm32")]
fn import_later(input: web_sys::HtmlInputElement, on_import: Callback<ExportedRun>, status: RwSignal<String>) {
    leptos::task::spawn_local(async move {
        let result = crate::browser::read_chosen_file(&input, IMPORT_LIMIT_BYTES).await.and_then(|text| crate::storage::import_run(&text));
        input.set_value("");
        match result {
            Ok(run) => {
                status.set(format!("Imported a run of {} events.", run.trace.events.len()));
                on_import.run(run);
            }
            Err(e) => status.set(e),
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn import_later(_input: web_sys::HtmlInputElement, _on_import: Callback<ExportedRun>, status: RwSignal<String>) {
    status.set("Importing needs a browser.".into());
}
