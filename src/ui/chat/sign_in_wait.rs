//! Above the composer while a run waits for a sign-in (`run-sign-in`): which server, and Sign
//! in. Stop (the composer's) ends the run.

use leptos::prelude::*;

use crate::ui::services::hub::with_sign_ins;
use crate::ui::services::mcp::Mcp;

/// Above the composer while a run waits for a sign-in: which server, and Sign in. Stop (the
/// composer's) ends the run.
#[component]
pub fn SignInWait(mcp: Mcp) -> impl IntoView {
    move || {
        let servers = mcp.sign_ins().with(|s| s.waited_on());
        servers
            .into_iter()
            .map(|server| {
                let shown = crate::ui::services::mcp::display_url(&server);
                let state = mcp.sign_ins().with(|s| s.state(&server));
                let go = server.clone();
                let signing_in = state == crate::app::mcp::sign_in::AuthState::SigningIn;
                view! {
                    <link rel="stylesheet" href="parts/approval.css"/>
                    <div class="approval" role="group" aria-label=format!("Sign in to {shown}") data-testid="sign-in-wait">
                        <p><strong>{format!("The agent waits for you to sign in to {shown}.")}</strong></p>
                        <p class="hint">{state.says(crate::ui::services::page::now_ms() as u64)}</p>
                        <div class="approval-choices">
                            <button class="primary" data-testid="run-sign-in" disabled=signing_in on:click=move |_| with_sign_ins(mcp, |a| a.sign_in(&go))>"Sign in"</button>
                        </div>
                    </div>
                }
            })
            .collect_view()
    }
}
