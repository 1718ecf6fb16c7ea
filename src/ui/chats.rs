//! The sidebar: the conversation list, with "New chat". The list and the open chat are a page
//! service (`ui::services::chats`); its entries are a part (`chats/list.rs`).

use leptos::prelude::*;

use crate::ui::services::chats::Chats;

mod list;

pub use list::preload as preload_list;

#[component]
pub fn ChatList(chats: Chats, running: ReadSignal<bool>) -> impl IntoView {
    view! {
        <nav class="chats" aria-label="Conversations">
            <button class="primary new-chat" data-testid="new-chat" disabled=move || running.get() on:click=move |_| chats.new_chat()>"+ New chat"</button>
            // A first visit has nothing to list: the entries are a part, fetched once there is.
            <Show when=move || chats.list.with(|l| !l.entries().is_empty())>
                {crate::ui::services::parts::part_view("chat_list", move || Box::pin(list::entries(chats)), None, crate::ui::services::parts::Around::Nothing)}
            </Show>
        </nav>
    }
}
