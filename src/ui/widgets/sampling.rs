//! A server's request to use the person's model (sampling), above the composer: which server
//! asks, its instructions and messages as plain text, the token limit and what the page left
//! out; Approve, Edit (the texts become editable, and run as edited), Always allow for this
//! server, and Deny. The state is `app::mcp::sampling`, carried by the page service
//! `ui::services::sampling`.

use leptos::prelude::*;

use crate::app::mcp::sampling::{Msg, Request};
use crate::ui::services::sampling::{reviews, send};

/// The panel, while a request waits: drawn by the approval panel's part, fetched when a server
/// first asks, so a page whose servers never ask does not load it.
#[component]
pub fn SamplingPanel() -> impl IntoView {
    let waiting: RwSignal<_> = reviews().into();
    view! {
        <Show when=move || waiting.with(|r| r.shown().is_some())>
            {crate::ui::services::parts::part_view("approval", move || Box::pin(sampling_panel()), None, crate::ui::services::parts::Around::Nothing)}
        </Show>
    }
}

crate::ui::services::parts::part!(approval, preload = preload_sampling, pub fn sampling_panel() -> AnyView {
    view! { <link rel="stylesheet" href="parts/approval.css"/> <Panel/> }.into_any()
});

#[component]
fn Panel() -> impl IntoView {
    let waiting: RwSignal<_> = reviews().into();
    // Drawn once per request and once more when it opens for editing, so typing never redraws
    // the texts (and never moves the focus).
    let shown = Memo::new(move |_| waiting.with(|r| r.shown().map(|r| (r.id, r.draft.is_some()))));
    move || {
        shown.get()?;
        let request = waiting.with_untracked(|r| r.shown().cloned())?;
        let behind = waiting.with_untracked(|r| r.behind());
        Some(view! { <RequestView request behind/> })
    }
}

#[component]
fn RequestView(request: Request, behind: usize) -> impl IntoView {
    let server = request.server.clone();
    let asked = &request.asked;
    let notes = asked.notes();
    let more = (behind > 0).then(|| format!("{behind} more waiting after this one."));
    let editing = request.draft.is_some();
    let texts = match &request.draft {
        Some(draft) => {
            let system = view! {
                <label class="sampling-text">"Instructions (system prompt)"
                    <textarea rows="2" data-testid="sampling-text" data-at="0" prop:value=draft.system.clone()
                        on:input=move |ev| send(Msg::Change { at: 0, text: event_target_value(&ev) })></textarea>
                </label>
            };
            let messages = asked
                .messages
                .iter()
                .zip(&draft.messages)
                .enumerate()
                .map(|(i, ((speaker, _), text))| {
                    view! {
                        <label class="sampling-text">{speaker.as_str()}
                            <textarea rows="3" data-testid="sampling-text" data-at=(i + 1).to_string() prop:value=text.clone()
                                on:input=move |ev| send(Msg::Change { at: i + 1, text: event_target_value(&ev) })></textarea>
                        </label>
                    }
                })
                .collect_view();
            view! { {system} {messages} }.into_any()
        }
        None => {
            let system = asked.system.clone().map(|s| view! { <p class="hint">"Instructions (system prompt):"</p> <pre class="approval-input">{s}</pre> });
            let messages = asked
                .messages
                .iter()
                .map(|(speaker, text)| view! { <p class="hint">{format!("{}:", speaker.as_str())}</p> <pre class="approval-input" data-testid="sampling-message">{text.clone()}</pre> })
                .collect_view();
            view! { {system} {messages} }.into_any()
        }
    };
    view! {
        <div class="approval sampling" role="group" aria-label=format!("{server} asks for your model") data-testid="sampling">
            <p>
                <strong>{format!("{server} asks your model to write")}</strong>
                {format!(" (at most {} tokens). What it writes goes back to the server.", asked.max_tokens)}
            </p>
            {notes.into_iter().map(|n| view! { <p class="hint">{n}</p> }).collect_view()}
            <div class="sampling-messages">{texts}</div>
            {more.map(|m| view! { <p class="hint">{m}</p> })}
            <div class="approval-choices">
                <button class="primary" data-testid="sampling-approve" on:click=move |_| send(Msg::Approve)>{if editing { "Approve as edited" } else { "Approve" }}</button>
                {(!editing).then(|| view! { <button class="ghost" data-testid="sampling-edit" on:click=move |_| send(Msg::Edit)>"Edit"</button> })}
                <button class="ghost" data-testid="sampling-always" on:click=move |_| send(Msg::AlwaysAllow)>"Always allow for this server"</button>
                <button class="ghost" data-testid="sampling-deny" on:click=move |_| send(Msg::Deny)>"Deny"</button>
            </div>
        </div>
    }
}
