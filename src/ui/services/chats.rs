//! Conversations as a page service: the list (new, open, rename, delete, download an
//! unreadable one) the sidebar draws (`ui::chats`), and keeping the open one saved in the browser's database, so a reload loses nothing. Saving is
//! called by whoever changes the conversation (`changed`, with what the change asks for), and
//! writes only the records that changed (`storage::writer`). Every save that fails is shown in
//! the banner (`problem`), and the chat in memory stays until a later save succeeds. Other tabs hear of each save and delete and refresh their lists; a run
//! going on in another tab is left alone rather than marked interrupted.
//!
//! The rules are the app's (`app::saves`: when to save which chat; `app::journal`: what a
//! person typed, kept synchronously until it is stored, and restored at start); this file
//! carries out what they return with the browser: timers, the database, the cross-tab lock.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::app::chats::{ChatList, Reading};
use crate::app::journal::{Journal, KeptSteps, Mark};
use crate::app::saves::{Do, Heard, Saves};
use crate::conversation::{Conversation, Save};
use crate::storage::store::{self, Backend, Opened};
use crate::storage::tabs::{self, RunLock, TabNews};
use crate::storage::writer::ChatWriter;
use crate::storage::{self, ChatSummary};

use crate::ui::services::page::now_ms;

mod read;
mod save;

use save::Write;
pub use read::preload as preload_read;
pub use save::preload as preload_save;

thread_local! {
    /// A shared run the person keeps a copy of, for the app to import once it is up.
    static KEPT: std::cell::Cell<Option<Conversation>> = const { std::cell::Cell::new(None) };
}

/// Hands a copy of a shared run ("Keep a copy") to the app about to be mounted.
pub fn keep_for_import(copy: Conversation) {
    KEPT.with(|kept| kept.set(Some(copy)));
}

/// The copy handed over by `keep_for_import`, once.
pub fn kept_for_import() -> Option<Conversation> {
    KEPT.with(std::cell::Cell::take)
}

/// Whether a chat was open when the page was last left: a person coming back.
pub fn returning() -> bool {
    storage::current_chat_id().is_some()
}

crate::ui::services::parts::part!(open_chats, preload = preload_open, pub fn opening(chats: Chats) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
    Box::pin(chats.connect())
});

/// The conversation list, the open conversation and keeping it stored. `Copy`, so handlers
/// capture it freely.
#[derive(Clone, Copy)]
pub struct Chats {
    pub list: RwSignal<ChatList>,
    /// The open conversation: the one record the chat, the trace pane, saving and export read.
    pub chat: RwSignal<Conversation>,
    /// A save or load that failed, in words saying what was not saved and what to do.
    pub problem: RwSignal<Option<String>>,
    /// About the open chat: parts that could not be read, or a run going on in another tab.
    pub note: RwSignal<Option<String>>,
    /// The chat of last time is open (or there is none, or the database cannot be opened): the
    /// first screen's glimpse may give way to it.
    pub restored: RwSignal<bool>,
    backend: StoredValue<Option<Rc<dyn Backend>>, LocalStorage>,
    /// What is known to be stored of the open chat, so a save writes only what changed.
    writer: StoredValue<Rc<RefCell<ChatWriter>>, LocalStorage>,
    /// When to save which chat, and whether the open one is this tab's to write.
    saves: StoredValue<Saves>,
    /// What the person typed that is not stored yet, kept synchronously (`storage::journal`).
    journal: StoredValue<Journal>,
    /// Which read of a stored chat may still show it: what the person does meanwhile wins.
    reading: StoredValue<Reading>,
    /// The latest run's steps no save holds yet, written as text ahead of the page being
    /// hidden, and whether writing them is under way.
    kept: StoredValue<Option<KeptSteps>>,
    keeping: StoredValue<bool>,
    run_lock: StoredValue<Option<RunLock>, LocalStorage>,
    /// Whether this page runs a run in the open chat: the run controller's answer
    /// (`app::run`), not the stored record's (whose latest run may be another tab's).
    run_going: StoredValue<Option<ReadSignal<bool>>>,
}

fn new_id() -> String {
    let entropy = (crate::ui::services::page::random() * 1e9) as u64;
    format!("{:x}{:x}", now_ms() as u64, entropy)
}

impl Chats {
    /// Opens the database (moving an older release's chats into it), lists the chats and
    /// opens the one that was open last.
    pub fn restore() -> Self {
        let id = new_id();
        let chats = Chats {
            list: RwSignal::new(ChatList::default()),
            saves: StoredValue::new(Saves::new(id.clone())),
            journal: StoredValue::new(Journal::default()),
            reading: StoredValue::new(Reading::default()),
            kept: StoredValue::new(None),
            keeping: StoredValue::new(false),
            chat: RwSignal::new(Conversation::new(id)),
            problem: RwSignal::new(None),
            note: RwSignal::new(None),
            restored: RwSignal::new(false),
            backend: StoredValue::new_local(None),
            writer: StoredValue::new_local(Rc::default()),
            run_lock: StoredValue::new_local(None),
            run_going: StoredValue::new(None),
        };
        // The database is opened by a part, fetched at once: the first screen works without it,
        // and a question asked before it is open is saved as soon as it is. (Not at idle: a tab
        // opened in the background draws no frames, and WebKit's idle is a frame.)
        leptos::task::spawn_local(async move {
            match opening(chats).await {
                Ok(connecting) => connecting.await,
                Err(missing) => {
                    chats.problem.set(Some(missing.message(crate::ui::services::parts::what("open_chats"))));
                    chats.restored.set(true);
                }
            }
        });
        // From the start: a run may begin before the database is open.
        crate::ui::services::page::on_hidden(move || chats.keep_unsaved());
        chats
    }

    /// The open chat's runs are driven by the run controller whose `running` this is.
    pub fn driven_by(self, running: ReadSignal<bool>) {
        self.run_going.set_value(Some(running));
    }

    fn running(self) -> bool {
        self.run_going.get_value().is_some_and(|r| r.get_untracked())
    }

    /// A run is about to start in the open chat. Two tabs must not write one chat: if another
    /// tab runs it, the question goes on in a new chat of its own, with the conversation so far.
    pub fn run_starting(self) {
        let id = new_id();
        self.reading.update_value(Reading::touched);
        if self.saves.try_update_value(|s| s.run_starting(&id)).unwrap_or(false) {
            self.chat.update(|c| c.id = id);
            self.note.set(Some("That chat is still running in another tab, so this question continues in a new chat.".into()));
        }
        self.run_lock.set_value(Some(tabs::hold_run_lock(&self.chat.with_untracked(|c| c.id.clone()))));
    }

    /// What a change to the open conversation asks of storage. The end of a run is saved at
    /// once: a reload right after the answer (or the agent's question) must not find the run
    /// still running; a burst of events costs one save.
    pub fn changed(self, save: Save) {
        if save != Save::No {
            self.reading.update_value(Reading::touched);
            self.keep_journal();
        }
        if save == Save::Soon && self.running() {
            self.keep_steps_ahead();
        }
        self.schedule(save);
    }

    /// Carries out what a change asks of storage (`app::saves`).
    fn schedule(self, save: Save) {
        let running = self.running();
        let todo = self.saves.try_update_value(|s| s.changed(save, running, now_ms())).unwrap_or_default();
        for todo in todo {
            match todo {
                Do::Save(id) => self.persist_chat(id),
                Do::WakeAt(at) => {
                    let wait = (at - now_ms()).max(0.0);
                    crate::ui::services::page::after(std::time::Duration::from_millis(wait as u64), move || {
                        if let Some(id) = self.saves.try_update_value(|s| s.due(at.max(now_ms()))).flatten() {
                            self.persist_chat(id);
                        }
                    });
                }
                Do::ReleaseRunLock => self.run_lock.set_value(None),
            }
        }
    }

    /// Writes to the journal, synchronously, what the person wrote into the open chat that the
    /// journal does not have yet: a reload in the next moment must not lose it.
    fn keep_journal(self) {
        let entry = self.chat.with_untracked(|c| self.journal.try_update_value(|j| j.note(c, now_ms())).flatten());
        let Some(entry) = entry else { return };
        if let Err(e) = storage::journal::write(&entry) {
            self.journal.update_value(|j| j.failed(&entry.chat));
            self.note.set(Some(format!("Your question is not kept against a reload until the chat is saved: {e}")));
        }
    }

    /// Writes the latest run's steps that no save holds yet as text, in a moment (one task for
    /// a burst of steps), by the saving part: the page being hidden cannot wait for it.
    fn keep_steps_ahead(self) {
        if self.keeping.get_value() {
            return;
        }
        self.keeping.set_value(true);
        leptos::task::spawn_local(async move {
            let _ = self.keeping.try_set_value(false);
            let todo = self.chat.try_with_untracked(|c| self.journal.try_with_value(|j| j.steps_to_keep(c)).flatten()).flatten();
            let Some((mark, from)) = todo else { return };
            // At most the latest 256: the text keeps only the latest that fit its bound.
            let from = from.max(mark.events.saturating_sub(256));
            save::keep_steps(self.chat, mark, from, self.kept).await;
        });
    }

    /// The page is being hidden: the open chat's latest steps that this page's run recorded and
    /// no save holds yet go into the journal, synchronously (a burst of steps is saved a moment after
    /// it, and the page may be gone by then). Without the agent's part no run went on here.
    fn keep_unsaved(self) {
        // Only a run this page drove has steps written ahead (an imported chat is the person's
        // own copy; one run by another tab is that tab's). Not "is it running": a page going
        // away cuts its requests off, which may end the run just before this is heard.
        if self.saves.with_value(Saves::live_elsewhere) {
            return;
        }
        let kept = self.kept.get_value();
        let entry = self.chat.with_untracked(|c| self.journal.try_update_value(|j| j.unsaved(c, now_ms(), kept.as_ref())).flatten());
        let Some(entry) = entry else { return };
        if let Err(e) = storage::journal::write(&entry) {
            self.journal.update_value(|j| j.failed(&entry.chat));
            // Seen if the page was only sent to the background.
            self.note.set(Some(format!("The latest steps are not kept against the page closing until the chat is saved: {e}")));
        }
    }

    /// Turns what the journal holds into chats (a question the page went away before storing,
    /// its run marked interrupted) and stores them; each record goes once its chat is stored.
    /// The chat the person was on last, if one was restored.
    async fn restore_journal(self, backend: Rc<dyn Backend>) -> Option<String> {
        let (entries, _newer_or_damaged) = storage::journal::read_all();
        let mut newest = None;
        for entry in entries {
            // That tab is still running the chat, and saves it itself.
            if tabs::run_is_live(&entry.chat).await {
                continue;
            }
            let stored = if self.list.with_untracked(|l| l.entries().iter().any(|c| c.id == entry.chat)) {
                match read::open(backend.clone(), entry.chat.clone()).await {
                    Ok(Opened::Chat { chat, .. }) => Some(chat),
                    Ok(Opened::Missing) => None,
                    // Left for a later load: opening the chat says what is wrong with it.
                    Ok(Opened::Unreadable { .. }) | Err(_) => continue,
                }
            } else {
                None
            };
            // The chat with the record's run (and its steps, if the page was hidden with some
            // not stored), written whole by the saving part; nothing when the stored chat holds
            // it all already.
            let chat = entry.chat.clone();
            match save::write(backend.clone(), Write::Restore { stored, entry }, now_ms()).await {
                Ok(None) => storage::journal::remove(&chat),
                Ok(Some(_)) => {
                    storage::journal::remove(&chat);
                    tabs::announce(&TabNews::Saved { id: chat.clone() });
                    newest = Some(chat);
                }
                Err(e) => self.problem.set(Some(format!(
                    "A question asked before the page was last closed is not saved yet: {e} It stays in this browser and is tried again on the next load."
                ))),
            }
        }
        if newest.is_some() {
            self.refresh_list().await;
        }
        newest
    }

    pub(super) async fn connect(self) {
        let problem = self.problem;
        let opened = storage::open_backend(move || {
            problem.set(Some(format!("Chats cannot be opened yet. {}", storage::StorageError::new(storage::StorageErrorKind::Blocked, "blocked").advice())))
        })
        .await;
        let backend = match opened {
            Ok(backend) => backend,
            Err(e) => {
                self.problem.set(Some(format!("Chats are not saved in this browser: {e}")));
                self.restored.set(true);
                return;
            }
        };
        self.problem.set(None);
        if backend.read_only() {
            self.problem.set(Some(format!("Chats are shown but not saved. {}", storage::StorageError::new(storage::StorageErrorKind::Newer, "").advice())));
        } else if let Err(e) = read::move_legacy(backend.clone(), now_ms()).await {
            self.problem.set(Some(format!(
                "The chats of the earlier version could not be moved into the database yet; they stay where they were and moving is tried again on the next load. {e}"
            )));
        }
        self.backend.set_value(Some(backend.clone()));
        self.refresh_list().await;
        // A question the page went away before storing comes back first, as the chat the
        // person was on (a newer release's database is left as it is).
        let restored = if backend.read_only() { None } else { self.restore_journal(backend).await };
        let last = restored.or_else(|| self.list.with_untracked(|l| l.to_open(storage::current_chat_id().as_deref())));
        // A question asked while the database was opening wins over the chat of last time,
        // and is saved now that there is somewhere to save it.
        if !self.chat.with_untracked(Conversation::is_empty) {
            self.persist();
        } else if let Some(id) = last {
            self.load(id).await;
        }
        tabs::listen(move |news| leptos::task::spawn_local(self.hear(news)));
        self.restored.set(true);
    }

    fn backend(self) -> Option<Rc<dyn Backend>> {
        self.backend.get_value()
    }

    /// Whether saving can succeed at all here: there is a database, and this release may write it.
    pub fn can_save(self) -> bool {
        self.backend().is_some_and(|b| !b.read_only())
    }

    async fn refresh_list(self) {
        let Some(backend) = self.backend() else { return };
        match store::list(backend.as_ref()).await {
            Ok(list) => self.list.set(ChatList::new(list)),
            Err(e) => self.problem.set(Some(format!("The chat list could not be read: {e}"))),
        }
    }

    /// Another tab saved or deleted a chat.
    async fn hear(self, news: TabNews) {
        self.refresh_list().await;
        let running = self.running();
        match self.saves.with_value(|s| s.hear(&news, running)) {
            Heard::Reload => self.load(self.open_id()).await,
            // Deleted on purpose over there; kept here only if this tab has unsaved changes.
            Heard::Clear => self.clear(),
            Heard::Nothing => {}
        }
    }

    /// Shows a stored chat. A chat saved while running is either live in another tab (left to
    /// that tab) or was cut off by a reload (marked interrupted, and saved so).
    /// What the person did while it was read wins (`app::chats::Reading`): a question asked
    /// meanwhile stays, and is saved, rather than being replaced by the chat read.
    async fn load(self, id: String) {
        let Some(backend) = self.backend() else { return };
        let ticket = self.reading.try_update_value(Reading::begin);
        let Some(ticket) = ticket else { return };
        let read = read::open(backend, id.clone()).await;
        let live = match &read {
            Ok(Opened::Chat { chat, .. }) => chat.running().is_some() && tabs::run_is_live(&id).await,
            _ => false,
        };
        if !self.reading.try_update_value(|r| r.finish(ticket)).unwrap_or(false) {
            if let Ok(Opened::Unreadable { reason, .. }) = &read {
                self.list.update(|l| l.mark_unreadable(&id, reason));
            }
            // Not another read on its way: the person changed the open chat, which is saved.
            if !self.reading.with_value(Reading::pending) {
                self.persist();
            }
            return;
        }
        match read {
            Ok(Opened::Chat { mut chat, note, current }) => {
                let interrupted = !live && chat.mark_interrupted();
                self.saves.update_value(|s| s.opened(&id, live));
                self.note.set(if live {
                    Some("This chat's run is going on in another tab; it shows here as that tab saves it.".into())
                } else {
                    note
                });
                // Records of this version are stored as they are; an older version's chat is
                // written whole, in this version's records, with its next change.
                self.journal.update_value(|j| j.loaded(&chat));
                let writer = self.writer.get_value();
                if current {
                    writer.borrow_mut().loaded(&chat);
                } else {
                    *writer.borrow_mut() = ChatWriter::default();
                }
                self.chat.set(chat);
                if interrupted {
                    self.persist();
                }
                storage::set_current_chat_id(&id);
                self.keep_glimpse();
            }
            Ok(Opened::Unreadable { reason, .. }) => {
                self.list.update(|l| l.mark_unreadable(&id, &reason));
                self.note.set(Some(format!("That chat could not be opened: {reason}. It stays in the list; ⬇ downloads what is stored.")));
            }
            Ok(Opened::Missing) => self.list.update(|l| l.remove(&id)),
            Err(e) => self.problem.set(Some(format!("The chat could not be read: {e}"))),
        }
    }

    fn clear(self) {
        self.reading.update_value(Reading::touched);
        let id = new_id();
        self.saves.update_value(|s| s.opened(&id, false));
        self.note.set(None);
        self.chat.set(Conversation::new(id));
    }

    /// The first screen's glimpse of the open chat (`app::glimpse`), kept when it is opened and
    /// each time it is saved: what a reload will find, not what the page held as it went away
    /// (a run cut off by the reload, whose fetch failed, comes back interrupted). An empty chat
    /// leaves the last one's. One that cannot be kept only costs that early view.
    fn keep_glimpse(self) {
        if let Some(glimpse) = self.chat.try_with_untracked(crate::app::glimpse::of).flatten() {
            let _ = storage::local::write(crate::app::glimpse::KEY, &glimpse);
        }
    }

    fn open_id(self) -> String {
        self.chat.with_untracked(|c| c.id.clone())
    }

    /// Saves the open conversation and moves it to the top of the list. A failure is shown
    /// and changes nothing in memory: the next save writes everything again.
    pub fn persist(self) {
        self.persist_chat(self.open_id());
    }

    /// Saves chat `id` if it is still the open one when the save runs. One that was left
    /// meanwhile was saved on the way out (`may_leave`), or deleted: saving whatever is open
    /// instead would move that chat to the top of the list.
    fn persist_chat(self, id: String) {
        // Spawned futures start in order, so each save's transaction starts after the last one's.
        leptos::task::spawn_local(async move {
            self.save_open(id).await;
        });
    }

    /// Saves the open conversation now if it is chat `id`; whether it is safely stored (or
    /// there is nothing to store).
    async fn save_open(self, id: String) -> bool {
        if self.chat.with_untracked(|c| c.is_empty() || c.id != id) || !self.saves.with_value(|s| s.may_write(&id)) {
            return true;
        }
        let Some(backend) = self.backend() else { return false };
        let writer = self.writer.get_value();
        let title = self.chat.with_untracked(Conversation::title);
        // What the save holds at least: it reads the chat when it runs, and runs only grow.
        let holds = self.chat.with_untracked(Mark::of);
        match save::write(backend, Write::Open { chat: self.chat, id: id.clone(), writer }, now_ms()).await {
            // The chat was left while its save waited for the saving part of the page.
            Ok(None) => true,
            Ok(Some(summary)) => {
                self.saves.update_value(|s| s.saved(&id, true));
                if let Some(done) = holds.and_then(|m| self.journal.try_update_value(|j| j.stored(&m)).flatten()) {
                    storage::journal::remove(&done);
                }
                self.list.update(|list| list.put_first(summary));
                self.problem.set(None);
                storage::set_current_chat_id(&id);
                self.keep_glimpse();
                tabs::announce(&TabNews::Saved { id });
                true
            }
            Err(e) => {
                self.saves.update_value(|s| s.saved(&id, false));
                self.problem.set(Some(format!("“{title}” is not saved: {e} It stays on this page; the next change tries to save it again.")));
                false
            }
        }
    }

    /// Leaving the open conversation: only once it is stored (or storage is not available at
    /// all), so a chat whose save failed is never dropped from memory by switching away.
    async fn may_leave(self) -> bool {
        // Without a database, or with one only a newer release may write, nothing can ever be
        // saved here: the banner says so, and switching is not held up.
        if self.backend().is_none_or(|b| b.read_only()) || self.save_open(self.open_id()).await {
            return true;
        }
        self.note.set(Some("This chat stays open because it is not saved yet: export it (⬇ Export JSON) or make room, then switch.".into()));
        false
    }

    pub fn new_chat(self) {
        if self.running() {
            return;
        }
        leptos::task::spawn_local(async move {
            if self.may_leave().await {
                self.clear();
            }
        });
    }

    pub fn open(self, id: String) {
        if self.running() || self.chat.with_untracked(|c| c.id == id) {
            return;
        }
        leptos::task::spawn_local(async move {
            if self.may_leave().await {
                self.load(id).await;
            }
        });
    }

    /// Opens an exported conversation as a chat of its own, every run with its steps; the
    /// open chat is kept as it was.
    pub fn open_imported(self, mut imported: Conversation) {
        if self.running() {
            return;
        }
        leptos::task::spawn_local(async move {
            if !self.may_leave().await {
                return;
            }
            self.clear();
            imported.id = self.chat.with_untracked(|c| c.id.clone());
            let summary = ChatSummary::of(&imported, now_ms());
            self.list.update(|l| l.put_first(summary));
            self.chat.set(imported);
            // Saved in a task of its own, not in the one that just read the file: a long run
            // costs tens of milliseconds to read and as many to write. Not journaled: the
            // file it came from is the person's copy.
            self.schedule(Save::Soon);
        });
    }

    pub fn rename(self, id: String, title: String) {
        let title = title.trim().to_string();
        if title.is_empty() {
            return;
        }
        self.list.update(|l| l.rename(&id, &title));
        if self.chat.with_untracked(|c| c.id == id) {
            let save = self.chat.try_update(|c| c.rename(&title)).unwrap_or(Save::No);
            self.changed(save);
            return;
        }
        let Some(backend) = self.backend() else { return };
        leptos::task::spawn_local(async move {
            let saved = match read::open(backend.clone(), id.clone()).await {
                Ok(Opened::Chat { mut chat, .. }) => {
                    chat.rename(&title);
                    save::write(backend.clone(), Write::Whole(chat), now_ms()).await.map(drop)
                }
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            match saved {
                Ok(()) => tabs::announce(&TabNews::Saved { id }),
                Err(e) => self.problem.set(Some(format!("The new name is not saved: {e}"))),
            }
            self.refresh_list().await;
        });
    }

    /// Deletes a chat. Deleting the open one opens the next (or a new chat), so a reload
    /// never lands on a chat that is gone.
    pub fn delete(self, id: String) {
        // Not the open chat while a run goes on in it, here or in another tab (whose next save
        // would bring it back).
        if (self.running() || self.saves.with_value(Saves::live_elsewhere)) && self.chat.with_untracked(|c| c.id == id) {
            return;
        }
        let Some(backend) = self.backend() else { return };
        leptos::task::spawn_local(async move {
            if let Err(e) = store::delete(backend.as_ref(), &id).await {
                self.problem.set(Some(format!("The chat was not deleted: {e}")));
                return;
            }
            tabs::announce(&TabNews::Deleted { id: id.clone() });
            self.journal.update_value(|j| j.forget(&id));
            storage::journal::remove(&id);
            self.list.update(|l| l.remove(&id));
            if self.chat.with_untracked(|c| c.id == id) {
                self.clear();
                let next = self.list.with_untracked(|l| l.to_open(None));
                match next {
                    Some(next) => self.load(next).await,
                    None => storage::set_current_chat_id(""),
                }
            }
        });
    }

    /// Saves what is stored of a chat that cannot be opened, exactly as it is.
    pub fn download_raw(self, id: String) {
        let Some(backend) = self.backend() else { return };
        leptos::task::spawn_local(async move {
            let outcome = match backend.chat(&id).await {
                Ok(Some(stored)) => crate::ui::services::page::download(&format!("thoughtline-chat-{id}.json"), "application/json", &stored.raw()),
                Ok(None) => Err("Nothing is stored for this chat any more.".into()),
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = outcome {
                self.note.set(Some(e));
            }
        });
    }
}
