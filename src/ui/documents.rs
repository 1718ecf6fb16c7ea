//! The Documents panel: the person's files, added by picking, a folder, a drop or pasted text;
//! each one's row (name, kind, size, pages, passages, when added, and its state); Remove,
//! Re-read, Save again and its text with its passages; indexing's progress with Stop; and what
//! the browser keeps. Draws `services::documents` (which carries out `app::documents`).

use leptos::prelude::*;

use crate::app::documents::{Msg, Row, State};
use crate::documents::cited::Source;
use crate::ui::services::documents::{self as docs, Documents};

const ACCEPT: &str = ".txt,.text,.md,.markdown,.html,.htm,.csv,.tsv,.json,.jsonl,.pdf,.log,.rst,.org,.tex,text/*,application/pdf,application/json";

#[component]
pub fn DocumentsPanel(on_close: Callback<()>) -> impl IntoView {
    let d = docs::panel();
    let cited = d.cited;
    let open_text = RwSignal::new(None::<String>);
    // The passage a citation asked for: its document's text opens there, the passage marked.
    let marked = RwSignal::new(None::<Source>);
    Effect::new(move |_| {
        let Some(source) = cited.get() else { return };
        // The documents may still be being read from storage: wait for the rows.
        d.rows.track();
        if let Some(id) = docs::id_named(&source.name) {
            cited.set(None);
            marked.set(Some(source));
            open_text.set(Some(id));
            docs::reveal_marked();
        } else if d.loaded.get() {
            // Not among the documents (removed since the answer was written).
            cited.set(None);
            d.problem.set(Some(format!("\"{}\" is no longer among your documents: the passage the answer cites is still in its run's trace.", source.name)));
        }
    });
    let paste_name = RwSignal::new(String::new());
    let paste_text = RwSignal::new(String::new());
    let over = RwSignal::new(false);
    let add_pasted = move |_| {
        let text = paste_text.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        let name = paste_name.get_untracked();
        let name = if name.trim().is_empty() { "Pasted text".to_string() } else { name.trim().to_string() };
        docs::add_text(&name, &text);
        paste_text.set(String::new());
        paste_name.set(String::new());
    };
    view! {
        <link rel="stylesheet" href="parts/documents.css"/>
        <link rel="stylesheet" href="parts/passages.css"/>
        <section class="panel documents-panel" id="documents" data-testid="documents-panel" aria-label="Your documents">
            <header class="panel-head">
                <h2>"Your documents"</h2>
                <button class="ghost" data-testid="documents-close" aria-label="Close documents" on:click=move |_| on_close.run(())>"✕"</button>
            </header>
            <p class="hint">"Your files stay in this browser: nothing is uploaded. When the agent searches them (the documents tool), the passages it finds go to the chat model with the question, and the trace shows each one."</p>
            <label class="documents-drop" class:over=move || over.get() data-testid="documents-drop"
                on:dragover=move |ev| { docs::allow_drop(&ev); over.set(true); }
                on:dragleave=move |_| over.set(false)
                on:drop=move |ev| { over.set(false); docs::add_dropped(&ev); }>
                <span>"Drop files here, or pick them: text, Markdown, HTML, CSV, JSON and PDF, up to 50 MB each."</span>
                <input type="file" multiple accept=ACCEPT data-testid="documents-add" on:change=move |ev| docs::add_chosen(&ev)/>
            </label>
            <div class="documents-more">
                <label class="button ghost">"Pick a folder…"
                    {folder_input()}
                </label>
                <details class="documents-paste">
                    <summary>"Paste text"</summary>
                    <input type="text" placeholder="Name (e.g. notes.md)" aria-label="Name of the pasted text" data-testid="documents-paste-name"
                        prop:value=move || paste_name.get() on:input=move |ev| paste_name.set(event_target_value(&ev))/>
                    <textarea rows="5" aria-label="Text to add" data-testid="documents-paste"
                        prop:value=move || paste_text.get() on:input=move |ev| paste_text.set(event_target_value(&ev))></textarea>
                    <button data-testid="documents-paste-add" on:click=add_pasted>"Add as a document"</button>
                </details>
            </div>
            {move || meaning_view(d)}
            {move || progress(d)}
            {move || d.problem.get().map(|p| view! { <div class="notice error" role="alert" data-testid="documents-problem">{p}</div> })}
            {move || d.kept.get().map(|k| view! { <p class="hint" data-testid="documents-kept">{k}</p> })}
            {move || d.storage.get().map(|s| view! { <p class="hint" data-testid="documents-storage">{s}</p> })}
            <ul class="documents-list">
                <For each=move || d.rows.get() key=|row| (row.meta.id.clone(), row.state_text(), row.passages, row.meaning_text()) let:row>
                    {row_view(row, open_text)}
                </For>
            </ul>
            {move || (d.loaded.get() && d.rows.with(Vec::is_empty)).then(|| view! { <p class="empty">"No documents yet."</p> })}
            {move || open_text.get().map(|id| text_view(id, open_text, marked))}
        </section>
    }
}

/// A file input that picks a folder (`webkitdirectory`, which the view macro has no name for).
fn folder_input() -> impl IntoView {
    use leptos::html::input;
    input()
        .r#type("file")
        .class("visually-hidden")
        .multiple(true)
        .attr("webkitdirectory", "")
        .attr("data-testid", "documents-folder")
        .on(leptos::ev::change, move |ev| docs::add_chosen(&ev))
}

/// Meaning search: off until the person turns it on, saying first where passages would go.
fn meaning_view(d: Documents) -> AnyView {
    let offer = d.meaning.get();
    let Some(url) = offer.url.clone() else {
        return view! {
            <p class="hint" data-testid="documents-meaning-where">"Full-text search needs no model. To search by meaning too, choose a provider with an OpenAI-compatible embeddings endpoint in Settings (Ollama, LM Studio, llama.cpp, vLLM, OpenAI)."</p>
        }
        .into_any();
    };
    let on = offer.on.is_some();
    let model = RwSignal::new(offer.on.clone().unwrap_or(offer.model.clone()));
    let where_to = if offer.local {
        format!("Passages and the agent's searches are sent to {url}, on this computer, to be turned into vectors.")
    } else {
        format!("Passages and the agent's searches are sent to {url} to be turned into vectors: they leave this computer. Off until you turn it on.")
    };
    let toggle = move |ev: leptos::ev::Event| docs::set_meaning(event_target_checked(&ev).then(|| model.get_untracked()));
    view! {
        <fieldset class="documents-meaning">
            <legend>"Find by meaning"</legend>
            <label class="check">
                <input type="checkbox" data-testid="documents-meaning" prop:checked=on on:change=toggle
                    disabled=move || !on && model.with(|m| m.trim().is_empty()) title="Name the embedding model first"/>
                " Search by meaning too, with the embedding model "
            </label>
            <input type="text" data-testid="documents-meaning-model" aria-label="Embedding model" placeholder="e.g. nomic-embed-text" disabled=on
                prop:value=move || model.get() on:input=move |ev| model.set(event_target_value(&ev))/>
            <p class="hint" data-testid="documents-meaning-where">{where_to}</p>
        </fieldset>
    }
    .into_any()
}

/// The work under way, with Stop.
fn progress(d: Documents) -> Option<AnyView> {
    if !d.busy.get() {
        return None;
    }
    let rows = d.rows.get();
    let working = rows.iter().find(|r| matches!(r.state, State::Reading | State::Indexing(..)) && !matches!(r.state, State::Indexing(a, b) if a == b));
    let embedding = rows.iter().find_map(|r| match r.meaning {
        Some(crate::app::documents::Meaning::Embedding(done, of)) => Some((r.meta.name.clone(), done, of)),
        _ => None,
    });
    let waiting = rows.iter().filter(|r| r.state == State::Queued).count();
    let (text, done, of) = match working {
        Some(Row { meta, state: State::Indexing(done, of), .. }) => (format!("Indexing {}: {done} of {of} passages", meta.name), *done, *of),
        Some(row) => (format!("Reading {}…", row.meta.name), 0, 0),
        None => match embedding {
            Some((name, done, of)) => (format!("Finding meaning in {name}: {done} of {of} passages"), done, of),
            None => ("Starting…".into(), 0, 0),
        },
    };
    let waiting = if waiting > 0 { format!(" · {waiting} waiting") } else { String::new() };
    Some(
        view! {
            <div class="documents-progress" role="status" data-testid="documents-progress">
                <span>{format!("{text}{waiting}")}</span>
                <progress max=of.max(1) value=done></progress>
                <button class="ghost" data-testid="documents-stop" on:click=move |_| docs::send(Msg::Stop)>"Stop"</button>
            </div>
        }
        .into_any(),
    )
}

fn row_view(row: Row, open_text: RwSignal<Option<String>>) -> impl IntoView {
    let id = row.meta.id.clone();
    let (remove_id, reread_id, save_id, text_id) = (id.clone(), id.clone(), id.clone(), id);
    let failed = matches!(row.state, State::Failed(_));
    let not_saved = matches!(row.state, State::NotSaved(_));
    let can_reread = matches!(row.state, State::Ready | State::NotSaved(_) | State::Stopped | State::Failed(_));
    let facts = if failed {
        size(row.meta.size)
    } else {
        let pages = if row.meta.kind == crate::documents::Kind::Pdf { format!(" · {} pages", row.pages) } else { String::new() };
        format!("{} · {}{pages} · {} passages · added {}", row.meta.kind.word().to_uppercase(), size(row.meta.size), row.passages, crate::ui::services::page::local_time(row.meta.added_ms))
    };
    let tone = match row.state {
        State::Failed(_) | State::NotSaved(_) => "error",
        State::Ready => "ok",
        _ => "working",
    };
    view! {
        <li class=format!("document tone-{tone}") data-testid="document" data-state=state_word(&row.state)>
            <div class="document-name">{row.meta.name.clone()}</div>
            <div class="document-facts">{facts}</div>
            <div class="document-state">{row.state_text()}</div>
            {row.meaning_text().map(|t| view! { <div class="document-meaning" data-testid="document-meaning">{t}</div> })}
            <div class="document-actions">
                {(!failed).then(|| view! { <button class="link small" data-testid="document-text" on:click=move |_| open_text.set(Some(text_id.clone()))>"Text"</button> })}
                {not_saved.then(|| view! { <button class="link small" data-testid="document-save" on:click=move |_| docs::send(Msg::SaveAgain(save_id.clone()))>"Save again"</button> })}
                {can_reread.then(|| view! { <button class="link small" data-testid="document-reread" on:click=move |_| docs::send(Msg::Reread(reread_id.clone()))>"Re-read"</button> })}
                <button class="link small danger" data-testid="document-remove" on:click=move |_| docs::send(Msg::Remove(remove_id.clone()))>"Remove"</button>
            </div>
        </li>
    }
}

fn state_word(state: &State) -> &'static str {
    match state {
        State::Queued => "queued",
        State::Reading => "reading",
        State::Indexing(..) => "indexing",
        State::Ready => "ready",
        State::NotSaved(_) => "not-saved",
        State::Failed(_) => "failed",
        State::Stopped => "stopped",
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1024 * 1024 => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
        b if b >= 1024 => format!("{:.0} KB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// A document's text, passage by passage, each with its page and heading. Text only: nothing
/// of a document is drawn as HTML.
fn text_view(id: String, open_text: RwSignal<Option<String>>, marked: RwSignal<Option<Source>>) -> impl IntoView {
    let name = docs::name_of(&id).unwrap_or_default();
    let label = format!("The text of {name}");
    let passages = docs::passages_of(&id);
    let items = passages
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let place = match (p.page, p.heading.is_empty()) {
                (Some(page), true) => format!("Passage {} · page {page}", i + 1),
                (Some(page), false) => format!("Passage {} · page {page} · § {}", i + 1, p.heading),
                (None, true) => format!("Passage {}", i + 1),
                (None, false) => format!("Passage {} · § {}", i + 1, p.heading),
            };
            let text = p.text.clone();
            let is_marked = move || marked.with(|m| m.as_ref().is_some_and(|m| m.page == p.page && same_passage(&m.text, &text)));
            view! {
                <li class="passage" class:cited=is_marked data-testid="passage" data-page=p.page.unwrap_or(0) data-start=p.start>
                    <div class="passage-source">{place}</div>
                    <div class="passage-text">{p.text}</div>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="document-text" data-testid="document-view" aria-label=label>
            <header class="panel-head">
                <h3>{name}</h3>
                <button class="ghost" aria-label="Close the text" on:click=move |_| { open_text.set(None); marked.set(None); }>"✕"</button>
            </header>
            <ol class="passages">{items}</ol>
        </div>
    }
}

/// Whether `given` (a passage as the model was given it, perhaps cut to fit) is `passage`.
fn same_passage(given: &str, passage: &str) -> bool {
    let words = |t: &str| t.split_whitespace().take(40).collect::<Vec<_>>().join(" ");
    let given = words(given.trim_end_matches("… (cut to fit)"));
    !given.is_empty() && words(passage).starts_with(&given[..given.len().min(200)])
}
