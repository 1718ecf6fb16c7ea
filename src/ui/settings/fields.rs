//! Small form controls bound to one field of the settings, so panels read as a list of
//! fields instead of repeated signal plumbing. Each takes a getter and a setter as plain `fn`
//! pointers, not generic closures: one compiled copy serves every field, which keeps the
//! WASM bundle small.

use leptos::prelude::*;

use crate::app::settings::Settings;

pub fn text_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: String,
    placeholder: &'static str,
    get: fn(&Settings) -> String,
    set: fn(&mut Settings, String),
) -> impl IntoView {
    string_field(settings, label, testid, placeholder, get, set, false)
}

pub fn number_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: String,
    (min, max, step): (f64, f64, f64),
    get: fn(&Settings) -> f64,
    set: fn(&mut Settings, f64),
) -> impl IntoView {
    view! {
        <label>
            {label}
            <input type="number" data-testid=testid min=min max=max step=step
                prop:value=move || settings.with(get).to_string()
                on:change=move |ev| {
                    // Out-of-range or unreadable input snaps back to the stored value.
                    if let Some(v) = crate::number::parse_f64(&event_target_value(&ev)) {
                        settings.update(|s| set(s, v.clamp(min, max)));
                    } else {
                        settings.update(|_| {});
                    }
                }/>
        </label>
    }
}

pub fn check_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: String,
    get: fn(&Settings) -> bool,
    set: fn(&mut Settings, bool),
) -> impl IntoView {
    view! {
        <label class="check">
            <input type="checkbox" data-testid=testid
                prop:checked=move || settings.with(get)
                on:change=move |ev| settings.update(|s| set(s, event_target_checked(&ev)))/>
            {label}
        </label>
    }
}

/// A secret (a tool's API key): a password field, never spell-checked or autofilled.
pub fn secret_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: String,
    placeholder: &'static str,
    get: fn(&Settings) -> String,
    set: fn(&mut Settings, String),
) -> impl IntoView {
    string_field(settings, label, testid, placeholder, get, set, true)
}

/// The one text input behind `text_field` and `secret_field`; a secret is a password field
/// the browser does not offer to autofill.
fn string_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: String,
    placeholder: &'static str,
    get: fn(&Settings) -> String,
    set: fn(&mut Settings, String),
    secret: bool,
) -> impl IntoView {
    view! {
        <label>
            {label}
            <input type=if secret { "password" } else { "text" } data-testid=testid placeholder=placeholder
                autocomplete=secret.then_some("off") spellcheck="false"
                prop:value=move || settings.with(get)
                on:change=move |ev| settings.update(|s| set(s, event_target_value(&ev).trim().to_string()))/>
        </label>
    }
}
