//! The banner under the top bar: what could not be saved or read, in words saying what to do.
//! Storage problems are never silent; each notice stays until the next save succeeds.

use leptos::prelude::*;

use crate::ui::services::chats::Chats;

#[component]
pub fn Notices(chats: Chats, settings_notice: ReadSignal<Option<String>>) -> impl IntoView {
    view! {
        <Show when=move || chats.problem.with(Option::is_some)>
            <div class="notice error" role="alert" data-testid="storage-problem">
                <span>{move || chats.problem.get().unwrap_or_default()}</span>
                // Only where a save can succeed: not when the browser refuses the page a database.
                {move || chats.problem.with(|_| chats.can_save()).then(|| view! {
                    <button class="ghost small" data-testid="retry-save" on:click=move |_| chats.persist()>"Try saving again"</button>
                })}
            </div>
        </Show>
        <Show when=move || settings_notice.with(Option::is_some)>
            <div class="notice" role="status" data-testid="settings-notice">{move || settings_notice.get().unwrap_or_default()}</div>
        </Show>
        <Show when=move || chats.note.with(Option::is_some)>
            <div class="notice" role="status" data-testid="chat-note">
                <span>{move || chats.note.get().unwrap_or_default()}</span>
                <button class="ghost small" aria-label="Dismiss" on:click=move |_| chats.note.set(None)>"✕"</button>
            </div>
        </Show>
    }
}
