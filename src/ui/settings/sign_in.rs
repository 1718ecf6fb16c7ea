//! How a server is signed in to, on its row in Settings: its state in words (`mcp-auth-state`)
//! and Sign in / Sign out (`mcp-sign-in`, `mcp-sign-out`). The sign-in itself is a page
//! service (`ui::services::sign_in`), reached through the hub.

use leptos::prelude::*;

use crate::app::mcp::sign_in::AuthState;
use crate::ui::services::hub::with_sign_ins;
use crate::ui::services::mcp::Mcp;

/// The address of server `index` in the settings.
fn server_url(page: Mcp, index: usize) -> String {
    page.settings().with(|s| s.tools.mcp.servers.get(index).map(|s| s.url.trim().to_string()).unwrap_or_default())
}

/// A server row's sign-in line: its state in words, and Sign in or Sign out when they apply.
pub fn auth_line(page: Mcp, index: usize) -> impl IntoView {
    let state = move || {
        let url = server_url(page, index);
        page.sign_ins().with(|s| s.state(&url))
    };
    let now = || crate::ui::services::page::now_ms() as u64;
    // Remember ticked or not: what the device keeps of this server's sign-in follows.
    let remember = Memo::new(move |_| page.settings().with(|s| s.tools.mcp.servers.get(index).is_some_and(|s| s.remember_secret)));
    Effect::new(move |before: Option<bool>| {
        let now = remember.get();
        if before.is_some_and(|b| b != now) {
            with_sign_ins(page, |a| a.settings_changed());
        }
        now
    });
    view! {
        {move || {
            let state = state();
            let shown = !matches!(state, AuthState::Open);
            let signed_in = matches!(state, AuthState::SignedIn { .. });
            // While signing in too: a window closed half-way leaves nothing else to press.
            let can_sign_in = matches!(state, AuthState::NeedsSignIn(_) | AuthState::Refused(_) | AuthState::SigningIn);
            shown.then(|| view! {
                <div class="mcp-auth">
                    <p role="status" data-testid="mcp-auth-state" class:bad=matches!(state, AuthState::Refused(_))>{state.says(now())}</p>
                    {can_sign_in.then(|| view! {
                        <button type="button" class="primary small" data-testid="mcp-sign-in"
                            on:click=move |_| with_sign_ins(page, |a| a.sign_in(&server_url(page, index)))>"Sign in"</button>
                    })}
                    {signed_in.then(|| view! {
                        <button type="button" class="ghost small" data-testid="mcp-sign-out"
                            on:click=move |_| with_sign_ins(page, |a| a.sign_out(&server_url(page, index)))>"Sign out"</button>
                    })}
                </div>
            })
        }}
    }
}
