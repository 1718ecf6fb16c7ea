//! Small form controls bound to one field of the settings, so panels read as a list of
//! fields instead of repeated signal plumbing. Each takes a getter and a setter.

use leptos::prelude::*;

use crate::storage::Settings;

pub fn text_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: impl Into<String>,
    placeholder: &'static str,
    get: impl Fn(&Settings) -> String + Send + Sync + Copy + 'static,
    set: impl Fn(&mut Settings, String) + Send + Sync + Copy + 'static,
) -> impl IntoView {
    let testid: String = testid.into();
    view! {
        <label>
            {label}
            <input type="text" data-testid=testid placeholder=placeholder spellcheck="false"
                prop:value=move || settings.with(get)
                on:change=move |ev| settings.update(|s| set(s, event_target_value(&ev).trim().to_string()))/>
        </label>
    }
}

pub fn number_field(
    settings: RwSignal<Settings>,
    label: &'static str,
    testid: impl Into<String>,
    (min, max, step): (f64, f64, f64),
    get: impl Fn(&Settings) -> f64 + Send + Sync + Copy + 'static,
    set: impl Fn(&mut Settings, f64) + Send + Sync + Copy + 'static,
) -> impl IntoView {
    let testid: String = testid.into();
    view! {
        <label>
            {label}
            <input type="number" data-testid=testid min=min max=max step=step
                prop:value=move || settings.with(get).to_string()
                on:change=move |ev| {
                    // Out-of-range or unreadable input snaps back to the stored value.
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
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
    testid: impl Into<String>,
    get: impl Fn(&Settings) -> bool + Send + Sync + Copy + 'static,
    set: impl Fn(&mut Settings, bool) + Send + Sync + Copy + 'static,
) -> impl IntoView {
    let testid: String = testid.into();
    view! {
        <label class="check">
            <input type="checkbox" data-testid=testid
                prop:checked=move || settings.with(get)
                on:change=move |ev| settings.update(|s| set(s, event_target_checked(&ev)))/>
            {label}
        </label>
    }
}
