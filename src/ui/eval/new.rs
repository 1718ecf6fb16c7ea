//! Making an evaluation: its set of cases (imported from a JSON Lines or CSV file, pasted, or
//! taken from the open chat's questions), its configurations (the settings as they are first,
//! up to four), how many cases run at once, and Run.

use leptos::prelude::*;

use crate::agent::Strategy;
use crate::app::eval::config::{another, Config, MAX_CONFIGS};
use crate::app::eval::record::EvalRecord;
use crate::app::eval::set::{read_set, ReadSet};
use crate::app::settings::Settings;
use crate::conversation::Conversation;
use crate::app::settings::Preset;

use crate::ui::services::eval::MAX_CONCURRENCY;

#[component]
pub fn NewEval(settings: ReadSignal<Settings>, chat: RwSignal<Conversation>, on_made: Callback<EvalRecord>, draft: super::Draft) -> impl IntoView {
    let name = RwSignal::new(draft.name);
    // Read when the text changes as a whole (a file, a paste, leaving the box), not per key.
    let set = RwSignal::new(if draft.text.is_empty() { ReadSet::default() } else { read_set(&draft.text) });
    let text = RwSignal::new(draft.text);
    let status = RwSignal::new(String::new());
    let configs = RwSignal::new(if draft.configs.is_empty() { vec![Config::settings_now()] } else { draft.configs });
    // The editors are made again only when one is added or removed, not at each change.
    let count = Memo::new(move |_| configs.with(Vec::len));
    let concurrency = RwSignal::new(if draft.concurrency == 0 { 2 } else { draft.concurrency });
    let use_text = move |t: String| {
        set.set(read_set(&t));
        text.set(t);
    };
    // Typed text is read once typing pauses (and at once when the box is left).
    let typing = crate::ui::services::page::Debounce::new(std::time::Duration::from_millis(400));
    let typed = move |ev: leptos::ev::Event| {
        text.set(event_target_value(&ev));
        typing.call(move || {
            // The form may be gone by then.
            if let Some(t) = text.try_get_untracked() {
                set.try_set(read_set(&t));
            }
        });
    };
    let on_file = move |ev: leptos::ev::Event| {
        let input = crate::ui::services::page::chosen(&ev);
        read_file(input, status, use_text, name);
    };
    let from_chat = move |_| {
        let lines: Vec<String> = chat.with_untracked(|c| c.runs.iter().map(|r| serde_json::json!({ "question": r.question }).to_string()).collect());
        if lines.is_empty() {
            status.set("The open chat has no questions yet.".into());
        } else {
            status.set(format!("Took the open chat's {} question{}; add what each should answer.", lines.len(), super::plural(lines.len())));
            use_text(lines.join("\n"));
        }
    };
    // The model in the page runs one case at a time.
    let in_page = move || settings.with(|base| configs.with(|cs| cs.iter().any(|c| c.apply(base).provider.preset.in_page())));
    let missing = move || settings.with(|base| configs.with(|cs| cs.iter().enumerate().find_map(|(i, c)| crate::ui::services::session::missing_setting(&c.apply(base)).map(|m| format!("{}: {m}", c.label(i))))));
    let run = move || {
        // A key pasted into a set is never stored, shown or exported: masked like a question.
        let secrets = settings.with_untracked(crate::ui::services::secrets::collect);
        let cases = set.with_untracked(|s| crate::app::eval::set::masked(&s.cases, &secrets));
        if cases.is_empty() || missing().is_some() {
            return;
        }
        let now = crate::ui::services::page::now_ms();
        let id = format!("e{:x}{:06x}", now as u64, (crate::ui::services::page::random() * 16_777_216.0) as u64);
        let title = name.with_untracked(|n| if n.trim().is_empty() { format!("{} cases", cases.len()) } else { n.trim().to_string() });
        let at_once = if in_page() { 1 } else { concurrency.get_untracked().clamp(1, MAX_CONCURRENCY) };
        on_made.run(EvalRecord::new(id, title, cases, configs.get_untracked(), at_once, now));
    };

    view! {
        <form class="eval-new" data-testid="eval-new-form" on:submit=move |ev| { ev.prevent_default(); run(); }>
            <h2>"New evaluation"</h2>
            <label>"Name"
                <input type="text" data-testid="eval-name" placeholder="What this evaluation is for"
                    prop:value=move || name.get() on:change=move |ev| name.set(event_target_value(&ev))/>
            </label>
            <fieldset class="group">
                <legend>"Cases"</legend>
                <p class="muted">"One JSON object per line, or CSV with the same column names: "
                    <code>"question"</code>", and optionally "<code>"expected"</code>", "<code>"scorer"</code>
                    " (exact, contains, regex, number, tool:NAME, answered, cites with file#page, judge; several joined by +), "<code>"tags"</code>" and "<code>"documents"</code>" (the documents it is about, ; between)."</p>
                <div class="row">
                    <label class="button ghost">"Import a file…"
                        <input type="file" data-testid="eval-import" accept=".jsonl,.ndjson,.csv,.json,.txt,text/csv,application/json" class="visually-hidden" on:change=on_file/>
                    </label>
                    <button type="button" class="ghost" data-testid="eval-from-chat" on:click=from_chat>"Use this chat's questions"</button>
                    <button type="button" class="ghost" data-testid="eval-set-export" disabled=move || set.with(|s| s.cases.is_empty())
                        on:click=move |_| {
                            let file = format!("{}.jsonl", super::table::file_stem(&name.get_untracked()));
                            if let Err(e) = set.with_untracked(|s| crate::ui::services::page::download(&file, "application/x-ndjson", &crate::app::eval::set::set_jsonl(&s.cases))) {
                                status.set(e);
                            }
                        }>"⬇ Save the set"</button>
                </div>
                <textarea data-testid="eval-set-text" rows="6" spellcheck="false" placeholder="{\"question\": \"What is 6 × 7?\", \"expected\": \"42\", \"scorer\": \"number\"}"
                    prop:value=move || text.get() on:input=typed on:change=move |ev| use_text(event_target_value(&ev))></textarea>
                <p class="muted" role="status" data-testid="eval-set-status">{move || {
                    let s = set.get();
                    let read = if text.with(String::is_empty) { String::new() } else { format!("{} case{} read.", s.cases.len(), super::plural(s.cases.len())) };
                    [status.get(), read, s.note.unwrap_or_default()].into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ")
                }}</p>
                <Show when=move || set.with(|s| !s.problems.is_empty())>
                    <ul class="problems" data-testid="eval-set-problems">
                        {move || set.with(|s| s.problems.iter().take(50).map(|p| view! { <li>{format!("Line {}: {}", p.line, p.reason)}</li> }).collect_view())}
                    </ul>
                </Show>
                <Show when=move || set.with(|s| !s.cases.is_empty())>
                    <details class="eval-cases-read">
                        <summary>{move || format!("The {} cases", set.with(|s| s.cases.len()))}</summary>
                        <table class="eval-set-table">
                            <thead><tr><th>"#"</th><th>"Question"</th><th>"Expected"</th><th>"Scorers"</th><th>"Tags"</th></tr></thead>
                            <tbody>{move || set.with(|s| s.cases.iter().take(200).enumerate().map(|(i, c)| view! {
                                <tr><td>{i + 1}</td><td>{c.question.clone()}</td><td>{c.expected.clone().unwrap_or_default()}</td>
                                <td>{c.scorers.iter().map(|s| s.name()).collect::<Vec<_>>().join(" + ")}</td><td>{c.tags.join(", ")}{(!c.documents.is_empty()).then(|| format!("{}about {}", if c.tags.is_empty() { "" } else { " · " }, c.documents.join("; ")))}</td></tr>
                            }).collect_view())}</tbody>
                        </table>
                    </details>
                </Show>
            </fieldset>
            <fieldset class="group">
                <legend>"Configurations"</legend>
                <div class="eval-configs">
                    {move || (0..count.get()).map(|at| view! { <ConfigEditor at configs settings/> }).collect_view()}
                </div>
                <button type="button" class="ghost" data-testid="eval-add-config" disabled=move || configs.with(|c| c.len() >= MAX_CONFIGS)
                    on:click=move |_| configs.update(|c| if let Some(next) = another(c) { c.push(next) })>
                    {format!("+ Add a configuration (up to {MAX_CONFIGS})")}
                </button>
            </fieldset>
            <label>"Cases run at once"
                <input type="number" min="1" max=MAX_CONCURRENCY.to_string() data-testid="eval-concurrency" disabled=in_page
                    prop:value=move || if in_page() { "1".to_string() } else { concurrency.get().to_string() }
                    on:input=move |ev| { if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() { concurrency.set(n.clamp(1, MAX_CONCURRENCY)) } }/>
                <span class="muted">{move || in_page().then_some(" One at a time: the model in this page runs one case at a time.")}</span>
            </label>
            <p class="problems" role="status">{missing}</p>
            <button type="submit" class="primary" data-testid="eval-run"
                disabled=move || set.with(|s| s.cases.is_empty()) || missing().is_some()>
                {move || { let n = set.with(|s| s.cases.len()) * configs.with(Vec::len); format!("Run {n} case{}", super::plural(n)) }}
            </button>
        </form>
    }
}

#[component]
fn ConfigEditor(at: usize, configs: RwSignal<Vec<Config>>, settings: ReadSignal<Settings>) -> impl IntoView {
    let get = move |f: fn(&Config) -> String| configs.with(|c| c.get(at).map(f).unwrap_or_default());
    let set = move |f: Box<dyn FnOnce(&mut Config)>| configs.update(|c| if let Some(c) = c.get_mut(at) { f(c) });
    view! {
        <fieldset class="eval-config" data-testid="eval-config">
            <legend>{move || configs.with(|c| c.get(at).map(|c| c.label(at)).unwrap_or_default())}</legend>
            <label>"Name"
                <input type="text" data-testid="eval-config-name" prop:value=move || get(|c| c.name.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |c| c.name = v)) }/>
            </label>
            <label>"Provider"
                <select data-testid="eval-config-provider" on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |c| c.preset = Preset::from_id(&v))) }>
                    <option value="" selected=move || configs.with(|c| c.get(at).is_some_and(|c| c.preset.is_none()))>"As in Settings"</option>
                    {Preset::ALL.into_iter().map(|p| view! {
                        <option value=p.id() selected=move || configs.with(|c| c.get(at).is_some_and(|c| c.preset == Some(p)))>{p.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"Model (empty: the provider's)"
                <input type="text" data-testid="eval-config-model" spellcheck="false" prop:value=move || get(|c| c.model.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |c| c.model = v)) }/>
            </label>
            <label>"Strategy"
                <select data-testid="eval-config-strategy" on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |c| c.strategy = Strategy::from_id(&v))) }>
                    <option value="" selected=move || configs.with(|c| c.get(at).is_some_and(|c| c.strategy.is_none()))>"As in Settings"</option>
                    {Strategy::ALL.into_iter().map(|st| view! {
                        <option value=st.id() selected=move || configs.with(|c| c.get(at).is_some_and(|c| c.strategy == Some(st)))>{st.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"System prompt template (empty: as in Settings)"
                <textarea rows="2" spellcheck="false" prop:value=move || get(|c| c.template.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |c| c.template = v)) }></textarea>
            </label>
            <label class="check">
                <input type="checkbox" data-testid="eval-config-allow" prop:checked=move || configs.with(|c| c.get(at).is_some_and(|c| c.allow_tools))
                    on:change=move |ev| { let v = event_target_checked(&ev); set(Box::new(move |c| c.allow_tools = v)) }/>
                "Allow the tools that ask first, for this evaluation (otherwise a case waits for you, and says so)"
            </label>
            <p class="muted" data-testid="eval-config-describe">{move || settings.with(|base| configs.with(|c| c.get(at).map(|c| c.describe(base)).unwrap_or_default()))}</p>
            <Show when=move || { at > 0 }>
                <button type="button" class="ghost small" on:click=move |_| configs.update(|c| { if at < c.len() { c.remove(at); } })>"Remove"</button>
            </Show>
        </fieldset>
    }
}

#[cfg(target_arch = "wasm32")]
fn read_file(input: crate::ui::services::page::Chosen, status: RwSignal<String>, use_text: impl Fn(String) + 'static, name: RwSignal<String>) {
    leptos::task::spawn_local(async move {
        let file = input.name();
        // Read whole up to the set's own bound and a little over, so the set can say it was cut.
        let read = input.read((crate::app::eval::set::MAX_BYTES * 2) as f64).await;
        input.clear();
        match read {
            Ok(text) => {
                status.set(format!("Read {file}."));
                if name.with_untracked(String::is_empty) {
                    name.set(file.rsplit_once('.').map_or(file.as_str(), |(stem, _)| stem).to_string());
                }
                use_text(text);
            }
            Err(e) => status.set(format!("{file} could not be read: {e}")),
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn read_file(_input: crate::ui::services::page::Chosen, status: RwSignal<String>, _use_text: impl Fn(String) + 'static, _name: RwSignal<String>) {
    status.set("Reading a file needs a browser.".into());
}
