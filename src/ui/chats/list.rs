//! The chat list's entries (open, rename, delete, download an unreadable one): a part of the
//! page (`parts`). A first visit has no chat to list, so its first screen carries none of this;
//! a person coming back gets it while the database is read, everyone else when the page is
//! idle or the first chat is saved.

use leptos::prelude::*;

use crate::ui::services::chats::Chats;

crate::ui::services::parts::part!(chat_list, preload = preload, pub fn entries(chats: Chats) -> AnyView {
    let rename = move |id: String, old: String| {
        if let Some(title) = crate::ui::services::page::ask_line("Rename this conversation:", &old) {
            chats.rename(id, title);
        }
    };
    view! {
        <ul data-testid="chat-list">
            <For each=move || chats.list.with(|l| l.entries().to_vec()) key=|c| (c.id.clone(), c.title.clone(), c.problem.clone()) let:chat>
                {
                    let id = chat.id.clone();
                    let (open_id, rename_id, delete_id, raw_id) = (id.clone(), id.clone(), id.clone(), id.clone());
                    let title = chat.title.clone();
                    let is_current = Signal::derive(move || chats.chat.with(|c| c.id == id));
                    let problem = chat.problem.clone();
                    let unreadable = problem.is_some();
                    view! {
                        <li class:current=is_current class:unreadable=unreadable data-testid="chat-item">
                            <button class="chat-title" aria-current=move || if is_current.get() { "page" } else { "false" }
                                title=problem.clone().unwrap_or_default()
                                on:click=move |_| chats.open(open_id.clone())>{chat.title.clone()}</button>
                            {problem.map(|why| view! {
                                <span class="chat-problem" data-testid="chat-unreadable">{format!("Could not be read: {why}")}</span>
                                <button class="icon-button" data-testid="download-raw" aria-label="Download what is stored for this chat"
                                    on:click=move |_| chats.download_raw(raw_id.clone())>"⬇"</button>
                            })}
                            <button class="icon-button" data-testid="rename-chat" aria-label=format!("Rename “{}”", chat.title)
                                on:click=move |_| rename(rename_id.clone(), title.clone())>"✎"</button>
                            <button class="icon-button" data-testid="delete-chat" aria-label=format!("Delete “{}”", chat.title)
                                on:click=move |_| chats.delete(delete_id.clone())>"✕"</button>
                        </li>
                    }
                }
            </For>
        </ul>
    }
    .into_any()
});
