//! The approval panel: the tool a waiting call names, where it runs and its input, with Allow
//! once, Always allow and Deny. The channel it answers on is a page service
//! (`ui::services::approval`).

use leptos::prelude::*;

use crate::agent::ApprovalChoice;
use crate::ui::services::approval::Pending;

/// The panel, where the run's side has set a question: a part of the page (`parts`), fetched
/// when a call first waits for approval (and ahead of that when the page is idle and a server
/// asks before calls), so a page that never asks does not load it.
#[component]
pub fn ApprovalPanel(pending: Pending) -> impl IntoView {
    view! {
        <Show when=move || pending.with(Option::is_some)>
            {crate::ui::services::parts::part_view("approval", move || Box::pin(panel(pending)), None, crate::ui::services::parts::Around::Nothing)}
        </Show>
    }
}

crate::ui::services::parts::part!(approval, preload = preload, pub fn panel(pending: Pending) -> AnyView {
    view! { <link rel="stylesheet" href="parts/approval.css"/> <Panel pending/> }.into_any()
});

#[component]
fn Panel(pending: Pending) -> impl IntoView {
    let choose = move |choice: ApprovalChoice| {
        if let Some(asked) = pending.get_untracked() {
            asked.reply.give(choice);
        }
    };
    move || {
        pending.get().map(|asked| {
            let where_ = asked.via.clone().map(|v| format!(" on the MCP server at {v}")).unwrap_or_default();
            let tool = asked.tool.clone();
            view! {
                // A group of controls in the page, not a modal: the run waits, the page does not
                // (the trace's announcer says a call waits). Labelled by text, not by an id, since
                // Compare shows two at once.
                <div class="approval" role="group" aria-label=format!("Allow the agent to call {tool}?") data-testid="approval">
                    <p><strong>{format!("Allow the agent to call {tool}?")}</strong></p>
                    <p class="hint">{format!("It runs{where_} with this input. Nothing is sent until you choose.")}</p>
                    <pre class="approval-input" data-testid="approval-input">{asked.input.clone()}</pre>
                    <div class="approval-choices">
                        <button class="primary" data-testid="approval-once" on:click=move |_| choose(ApprovalChoice::Once)>"Allow once"</button>
                        <button class="ghost" data-testid="approval-always" on:click=move |_| choose(ApprovalChoice::Always)>{format!("Always allow {tool}")}</button>
                        <button class="ghost" data-testid="approval-deny" on:click=move |_| choose(ApprovalChoice::Denied)>"Deny"</button>
                    </div>
                </div>
            }
        })
    }
}
