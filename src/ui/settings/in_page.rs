//! Settings for the model in the page (part of Settings, fetched with it): the GGUF to use (a
//! URL, one of the recommended models, or a file on this computer), the context size, Load
//! with its status line and Cancel, what this browser can do, and the models kept in this
//! browser with their sizes and a Delete for each.

use leptos::prelude::*;

use crate::app::settings::Settings;

use super::fields::number_field;
use crate::ui::services::in_page::{human_bytes, InPage, PICKED_PREFIX, RECOMMENDED};
use crate::ui::services::models::{delete_cached, load_now, refresh_cached, show_environment};
use crate::ui::widgets::in_page::StatusLine;

#[component]
pub fn InPageSettings(settings: RwSignal<Settings>) -> impl IntoView {
    let handle = InPage::from_context();
    let cached = RwSignal::new(Vec::<(String, String, f64)>::new());
    let environment = RwSignal::new(String::new());
    let refresh = move || refresh_cached(cached);
    refresh();
    show_environment(environment);
    let mcp = use_context::<crate::ui::services::mcp::Mcp>();
    let load = move |_| load_now(handle, settings.get_untracked(), cached, mcp);
    let pick = move |ev: leptos::ev::Event| {
        let Some(names) = handle.pick(&crate::ui::services::page::chosen(&ev)) else { return };
        settings.update(|s| s.provider.model = format!("{PICKED_PREFIX}{names}"));
    };
    view! {
        <div class="in-page-settings" data-testid="in-page-settings">
            <p class="hint">"The model runs in this tab (llama.cpp compiled to WebAssembly): no server, no key. It is downloaded once, kept in this browser, and then loads without the network. Expect a few tokens per second on a laptop's CPU; small models follow the agent's format less reliably than hosted ones."</p>
            <p class="hint" data-testid="in-page-strategies">"Strategies: ReAct (with or without structured output) and Plan-ReAct. It makes no native tool calls: a run set to native tool calling goes on with ReAct and says so in the trace."</p>
            <label>
                "Model (a GGUF file's URL; for a split model, its first part)"
                <input type="url" data-testid="in-page-model" spellcheck="false"
                    prop:value=move || settings.with(|s| s.provider.model.clone())
                    on:change=move |ev| settings.update(|s| s.provider.model = event_target_value(&ev).trim().to_string())/>
            </label>
            <fieldset class="group">
                <legend>"Recommended"</legend>
                <ul class="recommended" data-testid="in-page-recommended">
                    {RECOMMENDED.into_iter().map(|m| view! {
                        <li>
                            <button type="button" class="link" on:click=move |_| settings.update(|s| s.provider.model = m.url.to_string())
                                aria-pressed=move || settings.with(|s| s.provider.model == m.url).to_string()>{m.name}</button>
                            <span class="hint">{format!(" about {} MB · {} · Hugging Face", m.size_mb, m.licence)}</span>
                        </li>
                    }).collect_view()}
                </ul>
            </fieldset>
            <label class="ghost small file-button">
                "Use a .gguf file from this computer…"
                <input type="file" accept=".gguf" multiple data-testid="in-page-file" class="visually-hidden" on:change=pick/>
            </label>
            {number_field(settings, "Context size (tokens: the prompt and the reply together; more needs more memory)", "in-page-context".into(), (512.0, 131072.0, 512.0), |s| s.connection.context_tokens as f64, |s, v| s.connection.context_tokens = v as u32)}
            <div class="in-page-load">
                <button type="button" class="ghost" data-testid="in-page-load" disabled=move || handle.status.with(|s| s.busy()) on:click=load>"Load"</button>
                <StatusLine handle/>
            </div>
            <p class="hint" data-testid="in-page-environment">{move || environment.get()}</p>
            <fieldset class="group">
                <legend>"Kept in this browser"</legend>
                <ul class="cached-models" data-testid="in-page-cached">
                    {move || cached.get().into_iter().map(|(url, name, size)| {
                        let gone = url.clone();
                        view! {
                            <li data-testid="in-page-cached-model">
                                <span>{format!("{name} · {}", human_bytes(size))}</span>
                                <button type="button" class="ghost small" data-testid="in-page-delete" aria-label=format!("Delete {name} from this browser")
                                    on:click=move |_| delete_cached(gone.clone(), handle, cached)>"Delete"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <Show when=move || cached.with(Vec::is_empty)>
                    <p class="hint">"No model is kept in this browser yet."</p>
                </Show>
            </fieldset>
        </div>
    }
}
