//! The Settings panel: provider, model, key and temperature. Values persist through the
//! `settings` signal (saved by `App`); secrets are kept across reloads only when "Remember" is
//! ticked. A key belongs to the provider it was entered for (`app::settings::keys::switch_provider`).

use leptos::prelude::*;

pub(crate) mod agent;
pub(crate) mod fields;
pub(crate) mod in_page;
pub(crate) mod mcp;
pub(crate) mod sign_in;
pub(crate) mod tools;

use crate::app::settings::Preset;
use crate::secrets::is_secret_header;
use crate::app::settings::keys::{allow_plain_http, plain_http_allowed, switch_provider};
use crate::app::settings::keys::plain_http_host;
use crate::app::settings::Settings;

use self::fields::{check_field, number_field};

#[component]
pub fn SettingsPanel(settings: RwSignal<Settings>, on_close: Callback<()>) -> impl IntoView {
    let choose_preset = move |id: String| {
        if let Some(preset) = Preset::from_id(&id) {
            settings.update(|s| {
                let base_url = if preset == Preset::Custom { s.provider.base_url.clone() } else { preset.base_url().into() };
                switch_provider(s, preset, base_url);
                if preset != Preset::Custom {
                    s.provider.model = preset.default_model().into();
                }
            });
        }
    };
    let plain_http = move || settings.with(|s| plain_http_host(&s.provider.base_url));
    view! {
        <link rel="stylesheet" href="parts/settings.css"/>
        <aside id="settings" class="settings" data-testid="settings" aria-label="Settings">
            <div class="settings-head">
                <h2>"Settings"</h2>
                <button class="ghost" data-testid="settings-close" on:click=move |_| on_close.run(()) aria-label="Close settings">"✕"</button>
            </div>
            <label>
                "Provider"
                <select data-testid="preset" on:change=move |ev| choose_preset(event_target_value(&ev))>
                    {Preset::ALL
                        .into_iter()
                        .map(|p| view! {
                            <option value=p.id() selected=move || settings.with(|s| s.provider.preset == p)>{p.label()}</option>
                        })
                        .collect_view()}
                </select>
            </label>
            <Show when=move || settings.with(|s| s.provider.preset.in_page())>
                <crate::ui::settings::in_page::InPageSettings settings/>
            </Show>
            <div class="http-provider" hidden=move || settings.with(|s| s.provider.preset.in_page())>
            <label>
                "Base URL"
                <input type="url" data-testid="base-url" placeholder="https://…/v1"
                    prop:value=move || settings.with(|s| s.provider.base_url.clone())
                    on:change=move |ev| settings.update(|s| {
                        let preset = s.provider.preset;
                        switch_provider(s, preset, event_target_value(&ev).trim().to_string());
                    })/>
            </label>
            {move || plain_http().map(|host| view! {
                <div class="warning" data-testid="plain-http-warning" role="alert">
                    <p>{format!("This base URL uses plain http:// to {host}: an API key sent there travels unencrypted, readable by anyone on the network path. The key is not sent until you agree below.")}</p>
                    <label class="check">
                        <input type="checkbox" data-testid="plain-http-ok"
                            prop:checked=move || settings.with(plain_http_allowed)
                            on:change=move |ev| settings.update(|s| allow_plain_http(s, event_target_checked(&ev)))/>
                        {format!("Send my key to {host} over plain HTTP")}
                    </label>
                </div>
            })}
            <label>
                "Model"
                <input type="text" data-testid="model"
                    prop:value=move || settings.with(|s| s.provider.model.clone())
                    on:change=move |ev| settings.update(|s| s.provider.model = event_target_value(&ev).trim().to_string())/>
            </label>
            <label>
                "API key"
                <input type="password" data-testid="api-key" autocomplete="off"
                    placeholder=move || if settings.with(|s| s.provider.preset.needs_key()) { "required" } else { "not needed for local servers" }
                    prop:value=move || settings.with(|s| s.provider.api_key.clone())
                    on:change=move |ev| settings.update(|s| s.provider.api_key = event_target_value(&ev).trim().to_string())/>
            </label>
            <label class="check">
                <input type="checkbox" data-testid="remember-key"
                    prop:checked=move || settings.with(|s| s.remember_key)
                    on:change=move |ev| settings.update(|s| s.remember_key = event_target_checked(&ev))/>
                "Remember keys and secret headers on this device (stored in this browser's storage; otherwise they live in this tab's memory only)"
            </label>
            </div>
            <label>
                {move || format!("Temperature: {:.1}", settings.with(|s| s.agent.temperature))}
                <input type="range" min="0" max="2" step="0.1" data-testid="temperature"
                    prop:value=move || settings.with(|s| s.agent.temperature.to_string())
                    on:input=move |ev| {
                        if let Some(t) = crate::number::parse_f32(&event_target_value(&ev)) {
                            settings.update(|s| s.agent.temperature = t.clamp(0.0, 2.0));
                        }
                    }/>
            </label>
            <div hidden=move || settings.with(|s| s.provider.preset.in_page())>
                <ConnectionTest settings=settings.read_only()/>
            </div>
            {check_field(settings, "Stream replies token by token", "stream".into(), |s| s.connection.stream, |s, v| s.connection.stream = v)}
            {number_field(settings, "Request timeout: give up after this many silent seconds", "timeout".into(), (5.0, 3600.0, 5.0), |s| s.connection.timeout_s, |s, v| s.connection.timeout_s = v)}
            {number_field(settings, "Tries per model call (rate limits, server errors)", "attempts".into(), (1.0, 10.0, 1.0), |s| s.connection.max_attempts as f64, |s, v| s.connection.max_attempts = v as u32)}
            {number_field(settings, "Largest model reply (KB received; a longer one is cut off)", "max-reply-kb".into(), (64.0, 262144.0, 64.0), |s| s.connection.max_reply_kb as f64, |s, v| s.connection.max_reply_kb = v as u32)}
            <HeaderField settings/>
            <crate::ui::settings::agent::AgentSettingsPanel settings/>
            <crate::ui::settings::tools::ToolSettingsPanel settings/>
            <CollectorFields settings/>
            <p class="hint version" data-testid="app-version">{concat!("Thoughtline ", env!("CARGO_PKG_VERSION"))}</p>
        </aside>
    }
}

/// Extra request headers. Values of secret headers (`api-key`, `Authorization`, …) are shown
/// masked, like a password field, except while the box is being edited.
#[component]
fn HeaderField(settings: RwSignal<Settings>) -> impl IntoView {
    let editing = RwSignal::new(false);
    let shown = move || settings.with(|s| if editing.get() { s.connection.extra_headers.clone() } else { masked_headers(&s.connection.extra_headers) });
    view! {
        <label>
            "Extra request headers (one \"Name: value\" per line; secret values are kept like the key)"
            <textarea rows="2" data-testid="extra-headers" spellcheck="false" autocomplete="off"
                prop:value=shown
                on:focus=move |_| editing.set(true)
                on:blur=move |_| editing.set(false)
                on:change=move |ev| settings.update(|s| s.connection.extra_headers = event_target_value(&ev))></textarea>
        </label>
    }
}

/// Where finished runs are sent as OpenTelemetry traces (`otel::send`). The header's value is
/// a secret bound to the endpoint's origin: another origin forgets it.
#[component]
fn CollectorFields(settings: RwSignal<Settings>) -> impl IntoView {
    view! {
        <fieldset class="collector">
            <legend>"Send runs to an OpenTelemetry collector"</legend>
            <p class="hint">"Each finished run is sent once as OTLP/HTTP JSON, for example to Langfuse or a collector that allows this page (CORS). Leave the endpoint empty to send nothing."</p>
            <label>
                "OTLP traces endpoint"
                <input type="url" data-testid="collector-endpoint" placeholder="http://localhost:4318/v1/traces" autocomplete="off"
                    prop:value=move || settings.with(|s| s.collector.endpoint.clone())
                    on:change=move |ev| settings.update(|s| s.collector.set_endpoint(&event_target_value(&ev)))/>
            </label>
            {crate::ui::settings::fields::text_field(settings, "Header name", "collector-header-name".into(), "Authorization", |s| s.collector.header_name.clone(), |s, v| s.collector.header_name = v.trim().to_string())}
            {crate::ui::settings::fields::secret_field(settings, "Header value (a secret, kept like the key; for Langfuse: \"Basic \" and base64 of public:secret key)", "collector-header".into(), "", |s| s.collector.header_value.clone(), |s, v| s.collector.header_value = v)}
        </fieldset>
    }
}

/// What a hidden header value shows as.
const HIDDEN: &str = "••••••••";

/// The header lines with the values of secret headers hidden.
fn masked_headers(lines: &str) -> String {
    lines
        .lines()
        .map(|line| match line.split_once(':') {
            Some((name, value)) if is_secret_header(name) && !value.trim().is_empty() => format!("{name}: {HIDDEN}"),
            Some(_) => line.to_string(),
            None if line.trim().is_empty() => String::new(),
            None => HIDDEN.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "Test connection": one tiny request with the current settings, and its outcome in words.
#[component]
fn ConnectionTest(settings: ReadSignal<Settings>) -> impl IntoView {
    let status = RwSignal::new(None::<(bool, String)>);
    let testing = RwSignal::new(false);
    let test = move |_| {
        if let Some(problem) = crate::ui::services::session::missing_setting(&settings.get_untracked()) {
            status.set(Some((false, problem)));
            return;
        }
        testing.set(true);
        status.set(None);
        run_connection_test(settings.get_untracked(), status, testing);
    };
    view! {
        <div class="connection-test">
            <button type="button" class="ghost" data-testid="test-connection" disabled=move || testing.get() on:click=test>
                {move || if testing.get() { "Testing…" } else { "Test connection" }}
            </button>
            <p role="status" data-testid="connection-status"
                class=move || match status.get() { Some((true, _)) => "ok", Some((false, _)) => "bad", None => "" }>
                {move || status.get().map(|(ok, text)| format!("{} {text}", if ok { "✓" } else { "✗" }))}
            </p>
        </div>
    }
}

#[cfg(target_arch = "wasm32")]
fn run_connection_test(settings: Settings, status: RwSignal<Option<(bool, String)>>, testing: RwSignal<bool>) {
    use crate::agent::{ChatModel, ChatRequest, Message};
    leptos::task::spawn_local(async move {
        let secrets = crate::ui::services::secrets::collect(&settings);
        let provider = crate::ui::services::run::provider(&settings, &secrets);
        let request = ChatRequest::new(vec![Message::user("Reply with the single word OK.")], 0.0, Some(16));
        let started = crate::ui::services::page::now_ms();
        let outcome = provider.complete(&request, &|_| {}).await;
        let ms = crate::ui::services::page::now_ms() - started;
        status.set(Some(match outcome {
            Ok(reply) => (true, format!("Connected to {} in {:.0} ms. The model said: \"{}\"", settings.provider.model, ms, crate::secrets::mask(reply.text.trim(), &secrets))),
            Err(e) => (false, e.message),
        }));
        testing.set(false);
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn run_connection_test(_settings: Settings, status: RwSignal<Option<(bool, String)>>, testing: RwSignal<bool>) {
    status.set(Some((false, "Testing a connection needs a browser.".into())));
    testing.set(false);
}
