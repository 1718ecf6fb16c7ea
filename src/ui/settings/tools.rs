//! Settings for the tools: which are enabled (the prompt lists only those), "return direct",
//! per-tool time limits and options, and the CORS proxy that arXiv and DuckDuckGo need.

use leptos::prelude::*;

use crate::app::settings::Settings;
use crate::app::settings::{Common, SearchBackend};

use super::fields::{number_field, secret_field, text_field};

/// The on/off, return-direct and timeout controls every tool has.
fn common_fields(
    settings: RwSignal<Settings>,
    name: &'static str,
    get: fn(&Settings) -> &Common,
    get_mut: fn(&mut Settings) -> &mut Common,
) -> impl IntoView {
    let id = |suffix: &str| format!("tool-{name}-{suffix}");
    view! {
        <label class="check">
            <input type="checkbox" data-testid=id("enabled")
                prop:checked=move || settings.with(|s| get(s).enabled)
                on:change=move |ev| settings.update(|s| get_mut(s).enabled = event_target_checked(&ev))/>
            "Enabled"
        </label>
        <label class="check">
            <input type="checkbox" data-testid=id("direct")
                prop:checked=move || settings.with(|s| get(s).return_direct)
                on:change=move |ev| settings.update(|s| get_mut(s).return_direct = event_target_checked(&ev))/>
            "Return its result directly as the answer"
        </label>
        <label>
            "Time limit (seconds)"
            <input type="number" min="1" max="300" step="1" data-testid=id("timeout")
                prop:value=move || settings.with(|s| get(s).timeout_s.to_string())
                on:change=move |ev| {
                    if let Some(v) = crate::number::parse_f64(&event_target_value(&ev)) {
                        settings.update(|s| get_mut(s).timeout_s = v.clamp(1.0, 300.0));
                    }
                }/>
        </label>
    }
}

#[component]
pub fn ToolSettingsPanel(settings: RwSignal<Settings>) -> impl IntoView {
    view! {
        <fieldset class="group" data-testid="tool-settings">
            <legend>"Tools"</legend>
            <details open>
                <summary>"Wikipedia"</summary>
                {common_fields(settings, "wikipedia", |s| &s.tools.wikipedia.common, |s| &mut s.tools.wikipedia.common)}
                {text_field(settings, "Language edition (en, de, zh, …)", "wikipedia-lang".into(), "en", |s| s.tools.wikipedia.lang.clone(), |s, v| s.tools.wikipedia.lang = if v.is_empty() { "en".into() } else { v })}
                {number_field(settings, "Articles per search", "wikipedia-results".into(), (1.0, 10.0, 1.0), |s| s.tools.wikipedia.results as f64, |s, v| s.tools.wikipedia.results = v as u32)}
            </details>
            <details>
                <summary>"arXiv"</summary>
                {common_fields(settings, "arxiv", |s| &s.tools.arxiv.common, |s| &mut s.tools.arxiv.common)}
                {number_field(settings, "Papers per search", "arxiv-results".into(), (1.0, 20.0, 1.0), |s| s.tools.arxiv.max_results as f64, |s, v| s.tools.arxiv.max_results = v as u32)}
                {secret_field(settings, "OpenAlex API key (fallback when arXiv is unreachable; kept like the model's key)", "openalex-key".into(), "optional", |s| s.tools.arxiv.openalex_key.clone(), |s, v| s.tools.arxiv.openalex_key = v)}
            </details>
            <details>
                <summary>"Calculator"</summary>
                {common_fields(settings, "calculator", |s| &s.tools.calculator, |s| &mut s.tools.calculator)}
            </details>
            <details>
                <summary>"Python"</summary>
                {common_fields(settings, "python", |s| &s.tools.python.common, |s| &mut s.tools.python.common)}
                <label class="check">
                    <input type="checkbox" data-testid="tool-python-approve"
                        prop:checked=move || settings.with(|s| s.tools.python.approve)
                        on:change=move |ev| settings.update(|s| s.tools.python.approve = event_target_checked(&ev))/>
                    "Ask me before each run of code"
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="tool-python-install"
                        prop:checked=move || settings.with(|s| s.tools.python.install_packages)
                        on:change=move |ev| settings.update(|s| s.tools.python.install_packages = event_target_checked(&ev))/>
                    "Let the code install pure-Python packages (micropip), from this index only"
                </label>
                {text_field(settings, "Package index (Simple API)", "python-index".into(), crate::app::settings::PYPI_INDEX, |s| s.tools.python.package_index.clone(), |s, v| s.tools.python.package_index = v)}
                <p class="hint">"Runs the code the agent writes with Pyodide (Python 3.14 and its standard library) in a worker of this page, with no access to your chats and no network, except the package index when you allow installs (each request is then listed in the step). Fetched from this site the first time (13 MB) and kept for offline use. The time limit is for each piece of code."</p>
                <p class="hint" data-testid="python-status" role="status">{move || crate::ui::services::python::status().with(|s| s.text())}</p>
            </details>
            <details>
                <summary>"Web search"</summary>
                {common_fields(settings, "web_search", |s| &s.tools.web_search.common, |s| &mut s.tools.web_search.common)}
                <label>
                    "Search service"
                    <select data-testid="search-backend" on:change=move |ev| {
                        let backend = if event_target_value(&ev) == "searx" { SearchBackend::Searx } else { SearchBackend::DuckDuckGo };
                        settings.update(|s| s.tools.web_search.backend = backend);
                    }>
                        <option value="duckduckgo" selected=move || settings.with(|s| s.tools.web_search.backend == SearchBackend::DuckDuckGo)>"DuckDuckGo instant answers (needs the CORS proxy)"</option>
                        <option value="searx" selected=move || settings.with(|s| s.tools.web_search.backend == SearchBackend::Searx)>"SearXNG instance"</option>
                    </select>
                </label>
                {text_field(settings, "SearXNG URL", "searx-url".into(), "https://searx.example.org", |s| s.tools.web_search.searx_url.clone(), |s, v| s.tools.web_search.searx_url = v)}
            </details>
            <crate::ui::settings::mcp::McpServersPanel settings/>
            {text_field(settings, "CORS proxy for arXiv and DuckDuckGo ({url} = encoded address)", "cors-proxy".into(), "https://proxy.example/?url={url}", |s| s.tools.cors_proxy.clone(), |s, v| s.tools.cors_proxy = v)}
            <p class="hint">"arXiv and DuckDuckGo do not allow requests from web pages. Without a proxy, arXiv searches fall back to OpenAlex (which indexes arXiv); under "<code>"scripts/serve"</code>" a built-in development proxy is used."</p>
        </fieldset>
    }
}
