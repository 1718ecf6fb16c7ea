//! Views of tools' results (MCP Apps) under a run's answer: each in its frame (the sandbox
//! proxy, `sandbox.html`, on an opaque origin of its own), named by its tool and server, with
//! Close; what the view asks the person (a call of a tool that asks first, a link to open)
//! above it; and, where it could not be shown, why, the call's text result being in the steps.
//! The state is `app::mcp::views`, carried by the page service `ui::services::views`.

use leptos::prelude::*;

use crate::app::mcp::views::{Ask, Msg, Stage};
use crate::ui::services::views::{send, views};

/// The views of `run` in the chat shown, drawn by a part of their own once there is one: a
/// page whose tools have no views never loads it.
#[component]
pub fn RunViews(chat: RwSignal<crate::conversation::Conversation>, run: usize) -> impl IntoView {
    let places: RwSignal<_> = crate::ui::services::views::places().into();
    let id = Memo::new(move |_| chat.with(|c| c.id.clone()));
    // A memo: the part is drawn once when the first view comes, not again on every change.
    let any = Memo::new(move |_| id.with(|chat| places.with(|p| p.iter().any(|(c, r)| c == chat && *r == run))));
    move || {
        any.get().then(|| {
            let chat = id.get_untracked();
            crate::ui::services::parts::part_view("mcp_views", move || Box::pin(run_views(chat.clone(), run)), None, crate::ui::services::parts::Around::Nothing)
        })
    }
}

crate::ui::services::parts::part!(mcp_views, preload = preload_views, pub fn run_views(chat: String, run: usize) -> AnyView {
    view! { <link rel="stylesheet" href="parts/approval.css"/> <link rel="stylesheet" href="parts/views.css"/> <Frames chat run/> }.into_any()
});

#[component]
fn Frames(chat: String, run: usize) -> impl IntoView {
    let all: RwSignal<_> = views().into();
    // Keyed by the view: a frame is drawn once and never again while its view lives.
    let ids = move || all.with(|v| v.of(&chat, run).iter().map(|l| l.id).collect::<Vec<_>>());
    view! {
        <div class="mcp-views">
            <For each=ids key=|id| *id let:id>
                <Frame id/>
            </For>
        </div>
    }
}

#[component]
fn Frame(id: u64) -> impl IntoView {
    let all: RwSignal<_> = views().into();
    let (tool, server) = all.with_untracked(|v| v.get(id).map(|l| (l.call.tool_name().to_string(), crate::ui::services::mcp::display_url(&l.call.server))).unwrap_or_default());
    let frame = NodeRef::<leptos::html::Iframe>::new();
    #[cfg(target_arch = "wasm32")]
    Effect::new(move |_| {
        if let Some(element) = frame.get() {
            crate::ui::services::views::attach(id, element);
        }
    });
    let stage = move || all.with(|v| v.get(id).map(|l| l.stage.clone()));
    let height = move || all.with(|v| v.get(id).map(|l| l.height).unwrap_or(0));
    let asked = move || all.with(|v| v.get(id).and_then(|l| l.asking.front().cloned()));
    let failed = move || match stage() {
        Some(Stage::Failed(why)) => Some(view! { <p class="notice error" data-testid="mcp-app-failed">{format!("The view could not be shown: {why}. The call's text result is in its steps.")}</p> }),
        _ => None,
    };
    let server_name = {
        let server = server.clone();
        move || server.clone()
    };
    let asking = move || {
        asked().map(|ask| {
            let said = match ask {
                Ask::Call { name, arguments, .. } => format!("The view asks to call {name} on {} with {arguments}.", server_name()),
                Ask::Open { url, .. } => format!("The view asks to open {url} in a new window (nothing of this page goes with it)."),
            };
            view! {
                <div class="approval mcp-app-ask" role="group" aria-label="The view asks" data-testid="mcp-app-ask">
                    <p>{said}</p>
                    <div class="approval-choices">
                        <button class="primary" data-testid="mcp-app-allow" on:click=move |_| send(Msg::Answer { view: id, allow: true })>"Allow"</button>
                        <button class="ghost" data-testid="mcp-app-deny" on:click=move |_| send(Msg::Answer { view: id, allow: false })>"Deny"</button>
                    </div>
                </div>
            }
        })
    };
    let title = format!("View of {tool}, from {server}");
    let label = title.clone();
    view! {
        <section class="mcp-app-view" class:closing=move || matches!(stage(), Some(Stage::Closing)) data-testid="mcp-app-view" data-view=id aria-label=label>
            <header class="mcp-app-head">
                <span>{format!("▣ {tool}")}<span class="hint">{format!(" · {server}")}</span></span>
                <button class="ghost small" data-testid="mcp-app-close" aria-label="Close the view" on:click=move |_| send(Msg::Close { view: id })>"Close"</button>
            </header>
            {asking}
            {failed}
            <Show when=move || !matches!(stage(), Some(Stage::Failed(_)))>
                <iframe node_ref=frame data-testid="mcp-app" class="mcp-app" src="sandbox.html" sandbox="allow-scripts" referrerpolicy="no-referrer"
                    title=title.clone() style:height=move || format!("{}px", if height() == 0 { 240 } else { height() })></iframe>
            </Show>
        </section>
    }
}
