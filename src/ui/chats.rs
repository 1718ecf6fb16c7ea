//! Conversations: the sidebar list (new, open, rename, delete) and keeping the open one in
//! localStorage so a reload loses nothing. A run that a reload cut off comes back marked as
//! interrupted (`storage::mark_interrupted`).

use leptos::prelude::*;

use crate::agent::Event;
use crate::storage::{self, ChatSummary, StoredChat};

use super::chat::ChatMessage;

/// The conversation signals and the operations on them. `Copy`, so handlers capture it freely.
#[derive(Clone, Copy)]
pub struct Chats {
    pub list: RwSignal<Vec<ChatSummary>>,
    pub current: RwSignal<String>,
    messages: RwSignal<Vec<ChatMessage>>,
    trace: RwSignal<Vec<Event>>,
    running: RwSignal<bool>,
    save_pending: StoredValue<bool>,
}

fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return js_sys::Date::now();
    #[cfg(not(target_arch = "wasm32"))]
    0.0
}

fn new_id() -> String {
    #[cfg(target_arch = "wasm32")]
    let entropy = (js_sys::Math::random() * 1e9) as u64;
    #[cfg(not(target_arch = "wasm32"))]
    let entropy = 0u64;
    format!("{:x}{:x}", now_ms() as u64, entropy)
}

impl Chats {
    /// Opens the conversation that was open last, if there is one.
    pub fn restore(messages: RwSignal<Vec<ChatMessage>>, trace: RwSignal<Vec<Event>>, running: RwSignal<bool>) -> Self {
        let chats = Chats {
            list: RwSignal::new(storage::load_chat_index()),
            current: RwSignal::new(new_id()),
            messages,
            trace,
            running,
            save_pending: StoredValue::new(false),
        };
        let last = storage::current_chat_id().or_else(|| chats.list.with_untracked(|l| l.first().map(|c| c.id.clone())));
        if let Some(chat) = last.and_then(|id| storage::load_chat(&id)) {
            chats.show(chat);
        }
        // Whatever the conversation shows is saved shortly after it changes; a burst of
        // trace events costs one save.
        // The end of a run is saved at once: a reload right after the answer (or after the
        // agent's question) must not find the run still marked as running.
        Effect::new(move |was_running: Option<bool>| {
            chats.messages.track();
            chats.trace.track();
            let running = chats.running.get();
            if was_running == Some(true) && !running {
                chats.persist();
            } else {
                chats.persist_soon();
            }
            running
        });
        chats
    }

    fn show(self, chat: StoredChat) {
        self.current.set(chat.id);
        self.messages.set(chat.messages);
        self.trace.set(chat.trace);
    }

    fn persist_soon(self) {
        if self.save_pending.get_value() {
            return;
        }
        self.save_pending.set_value(true);
        set_timeout(
            move || {
                self.save_pending.set_value(false);
                self.persist();
            },
            std::time::Duration::from_millis(250),
        );
    }

    /// Saves the open conversation and moves it to the top of the list.
    pub fn persist(self) {
        let messages = self.messages.get_untracked();
        if messages.is_empty() {
            return;
        }
        let id = self.current.get_untracked();
        let known_title = self.list.with_untracked(|l| l.iter().find(|c| c.id == id).map(|c| c.title.clone()));
        let title = known_title.unwrap_or_else(|| storage::chat_title(&messages));
        let chat = StoredChat {
            id: id.clone(),
            title: title.clone(),
            messages,
            trace: self.trace.get_untracked(),
            running: self.running.get_untracked(),
            ..Default::default()
        };
        storage::save_chat(&chat);
        self.list.update(|list| {
            list.retain(|c| c.id != id);
            list.insert(0, ChatSummary { id, title, updated_unix_ms: now_ms() });
        });
        self.list.with_untracked(|l| storage::save_chat_index(l));
    }

    pub fn new_chat(self) {
        if self.running.get_untracked() {
            return;
        }
        self.persist();
        self.current.set(new_id());
        self.messages.set(Vec::new());
        self.trace.set(Vec::new());
    }

    pub fn open(self, id: String) {
        if self.running.get_untracked() || id == self.current.get_untracked() {
            return;
        }
        self.persist();
        if let Some(chat) = storage::load_chat(&id) {
            self.show(chat);
        }
    }

    pub fn rename(self, id: String, title: String) {
        let title = title.trim().to_string();
        if title.is_empty() {
            return;
        }
        self.list.update(|l| l.iter_mut().filter(|c| c.id == id).for_each(|c| c.title = title.clone()));
        self.list.with_untracked(|l| storage::save_chat_index(l));
        if let Some(mut chat) = storage::load_chat(&id) {
            chat.title = title;
            storage::save_chat(&chat);
            // save_chat marks it as the current one; keep the open conversation current.
            if id != self.current.get_untracked() {
                self.persist();
            }
        }
    }

    pub fn delete(self, id: String) {
        if self.running.get_untracked() && id == self.current.get_untracked() {
            return;
        }
        storage::delete_chat(&id);
        self.list.update(|l| l.retain(|c| c.id != id));
        self.list.with_untracked(|l| storage::save_chat_index(l));
        if id == self.current.get_untracked() {
            self.current.set(new_id());
            self.messages.set(Vec::new());
            self.trace.set(Vec::new());
        }
    }
}

#[component]
pub fn ChatList(chats: Chats, running: ReadSignal<bool>) -> impl IntoView {
    let rename = move |id: String, old: String| {
        if let Some(title) = ask_title(&old) {
            chats.rename(id, title);
        }
    };
    view! {
        <nav class="chats" aria-label="Conversations">
            <button class="primary new-chat" data-testid="new-chat" disabled=move || running.get() on:click=move |_| chats.new_chat()>"+ New chat"</button>
            <ul data-testid="chat-list">
                <For each=move || chats.list.get() key=|c| (c.id.clone(), c.title.clone()) let:chat>
                    {
                        let id = chat.id.clone();
                        let (open_id, rename_id, delete_id) = (id.clone(), id.clone(), id.clone());
                        let title = chat.title.clone();
                        let is_current = Signal::derive(move || chats.current.get() == id);
                        view! {
                            <li class:current=is_current data-testid="chat-item">
                                <button class="chat-title" aria-current=move || if is_current.get() { "page" } else { "false" }
                                    on:click=move |_| chats.open(open_id.clone())>{chat.title.clone()}</button>
                                <button class="icon-button" data-testid="rename-chat" aria-label=format!("Rename “{}”", chat.title)
                                    on:click=move |_| rename(rename_id.clone(), title.clone())>"✎"</button>
                                <button class="icon-button" data-testid="delete-chat" aria-label=format!("Delete “{}”", chat.title)
                                    on:click=move |_| chats.delete(delete_id.clone())>"✕"</button>
                            </li>
                        }
                    }
                </For>
            </ul>
        </nav>
    }
}

#[cfg(target_arch = "wasm32")]
fn ask_title(old: &str) -> Option<String> {
    web_sys::window()?.prompt_with_message_and_default("Rename this conversation:", old).ok().flatten()
}

#[cfg(not(target_arch = "wasm32"))]
fn ask_title(_old: &str) -> Option<String> {
    None
}
