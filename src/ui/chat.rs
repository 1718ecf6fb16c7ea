//! The chat column: the conversation and the box to ask in. Enter sends, Shift+Enter adds a
//! newline; Send is disabled while a run is going, and Stop appears instead.

use leptos::prelude::*;

pub(crate) mod compose;
mod sign_in_wait;

use crate::conversation::Who;
use crate::conversation::Conversation;

const EXAMPLES: [&str; 3] = [
    "Who is Albert Einstein?",
    "What is 25% of 300?",
    "Which were the most relevant publications about attention layers in neural networks in 2020?",
];

/// What the empty chat needs to offer the model in the page to a newcomer: the settings (to
/// see that nothing usable is set, and to switch) and the model's status.
#[derive(Clone, Copy)]
pub struct FirstLook {
    pub settings: RwSignal<crate::app::settings::Settings>,
    pub in_page: crate::ui::services::in_page::InPage,
}

/// "Start with the model in this page": one click switches the provider to it (the model is
/// downloaded with the first question, its size stated here), and sends the question in the
/// box if there is one. Shown only while no provider is usable and the chat is empty.
///
/// The offer and the model's status line are parts of the page (`parts`): fetched only when
/// there is something to offer or to say, never by someone whose provider works.
#[component]
fn Offer(offer: FirstLook, draft: RwSignal<String>, on_send: Callback<String>) -> impl IntoView {
    let settings = offer.settings;
    let needed = move || settings.with(|s| !s.provider.preset.in_page() && crate::ui::services::session::missing_setting(s).is_some());
    view! {
        <Show when=needed>
            {crate::ui::services::parts::part_view("first_look", move || Box::pin(first_look_offer(offer, draft, on_send)), None, crate::ui::services::parts::Around::Nothing)}
        </Show>
    }
}

crate::ui::services::parts::part!(first_look, preload = preload_first_look, pub(in crate::ui) fn first_look_offer(offer: FirstLook, draft: RwSignal<String>, on_send: Callback<String>) -> AnyView {
    view! { <FirstLookOffer offer draft on_send/> }.into_any()
});

crate::ui::services::parts::part!(in_page_status, preload = preload_in_page_status, pub(in crate::ui) fn in_page_status(handle: crate::ui::services::in_page::InPage) -> AnyView {
    view! { <crate::ui::widgets::in_page::StatusLine handle/> }.into_any()
});

#[component]
fn FirstLookOffer(offer: FirstLook, draft: RwSignal<String>, on_send: Callback<String>) -> impl IntoView {
    let settings = offer.settings;
    let model = crate::ui::services::in_page::RECOMMENDED[0];
    let start = move |_| {
        settings.update(|s| {
            let preset = crate::app::settings::Preset::InPage;
            crate::app::settings::keys::switch_provider(s, preset, String::new());
            s.provider.model = preset.default_model().into();
        });
        let question = draft.get_untracked();
        if !question.trim().is_empty() {
            draft.set(String::new());
            on_send.run(question.trim().to_string());
        }
    };
    view! {
        <div class="first-look" data-testid="in-page-offer">
            <p>"No model is set up yet. Try one that runs right here in your browser: no server, no key."</p>
            <button class="primary" data-testid="start-in-page" on:click=start>"Start with the model in this page"</button>
            <p class="hint">{format!("{} downloads once (about {} MB, {}), is kept in this browser, and answers slowly on a CPU. Or pick a provider in Settings (⚙).", model.name, model.size_mb, model.licence)}</p>
        </div>
    }
}

#[component]
pub fn ChatPane(
    chat: RwSignal<Conversation>,
    running: ReadSignal<bool>,
    on_send: Callback<String>,
    on_stop: Callback<()>,
    /// Offered, in an empty chat, when the settings name no usable provider: the model in the page.
    #[prop(optional)]
    first_look: Option<FirstLook>,
    /// A tool call of the chat's run waiting for the person's approval.
    approval: crate::ui::services::approval::Pending,
    /// The MCP servers' prompts and resources, offered beside the composer.
    compose: crate::ui::chat::compose::Compose,
) -> impl IntoView {
    // The bubbles are derived from the conversation's runs.
    let messages = Memo::new(move |_| chat.with(Conversation::messages));
    let draft = RwSignal::new(String::new());
    // A message a tool's view suggests (MCP Apps' `ui/message`) waits in the composer for the
    // person to send.
    let suggested: RwSignal<_> = crate::ui::services::views::suggested().into();
    Effect::new(move |_| {
        if let Some(text) = suggested.get() {
            draft.set(text);
            suggested.set(None);
        }
    });
    let send = move || {
        let text = draft.get_untracked();
        if running.get_untracked() || text.trim().is_empty() {
            return;
        }
        draft.set(String::new());
        on_send.run(text.trim().to_string());
    };

    view! {
        <section class="chat" aria-label="Chat">
            <ol class="messages" data-testid="messages" aria-live="polite">
                <Show when=move || messages.with(Vec::is_empty)>
                    <li class="empty">
                        <p>"Ask a question. The agent thinks, uses tools, and shows every step on the right."</p>
                        <div class="examples">
                            {EXAMPLES
                                .into_iter()
                                .map(|q| view! {
                                    <button class="example" data-testid="example" on:click=move |_| draft.set(q.to_string())>{q}</button>
                                })
                                .collect_view()}
                        </div>
                        // Below the examples: it is a part, and arrives after the first screen,
                        // which must not move for it (www/index.html draws that screen first).
                        {first_look.map(|offer| view! { <Offer offer draft on_send/> })}
                    </li>
                </Show>
                {crate::ui::widgets::bubbles::bubbles(messages, chat, running)}
            </ol>
            // While the model in the page loads, and when it failed: how it goes, with Cancel.
            {first_look.map(|FirstLook { settings, in_page }| view! {
                <Show when=move || settings.with(|s| s.provider.preset.in_page()) && in_page.status.with(|s| s.busy() || matches!(s, crate::ui::services::in_page::Status::Failed(_)))>
                    {crate::ui::services::parts::part_view("in_page_status", move || Box::pin(in_page_status(in_page)), None, crate::ui::services::parts::Around::Nothing)}
                </Show>
            })}
            <crate::ui::widgets::approval::ApprovalPanel pending=approval/>
            <crate::ui::widgets::asking::AskingPanel/>
            <crate::ui::widgets::sampling::SamplingPanel/>
            <Show when=move || compose.has_offers()>
                {crate::ui::services::parts::part_view("mcp_compose", move || Box::pin(crate::ui::chat::compose::pickers(compose, draft)), None, crate::ui::services::parts::Around::Nothing)}
            </Show>
            <form class="composer" on:submit=move |ev| { ev.prevent_default(); send(); }>
                <label for="question" class="visually-hidden">"Your question"</label>
                <textarea
                    id="question"
                    data-testid="composer"
                    rows="2"
                    placeholder=move || if messages.with(|m| m.last().is_some_and(|m| m.who == Who::AskedPerson)) {
                        "Answer the agent's question… (Enter to send)"
                    } else {
                        "Ask anything… (Enter to send, Shift+Enter for a new line)"
                    }
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                            ev.prevent_default();
                            send();
                        }
                    }
                ></textarea>
                <Show
                    when=move || running.get()
                    fallback=move || view! {
                        <button type="submit" class="primary" data-testid="send" disabled=move || draft.with(|d| d.trim().is_empty())>"Send"</button>
                    }
                >
                    <button type="button" class="danger" data-testid="stop" on:click=move |_| on_stop.run(())>"■ Stop"</button>
                </Show>
            </form>
        </section>
    }
}
