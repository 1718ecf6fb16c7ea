//! The save rules, and every saving fault found so far replayed as a sequence of operations
//! against a page made of plain parts: the open chat, a database of what each save wrote, the
//! chat list's order, and timers on a clock the test moves.

use std::collections::BTreeMap;

use super::*;
use crate::conversation::Conversation;

/// The page around `Saves`: what the view does with each `Do`.
struct Page {
    saves: Saves,
    chat: Conversation,
    /// Chat id → how many runs its last committed save held.
    db: BTreeMap<String, usize>,
    /// The chat list, newest save first.
    list: Vec<String>,
    timers: Vec<f64>,
    now: f64,
    /// The database refuses writes (a full disk).
    full: bool,
    lock_held: bool,
}

impl Page {
    fn new(id: &str) -> Self {
        Page {
            saves: Saves::new(id.into()),
            chat: Conversation::new(id.into()),
            db: BTreeMap::new(),
            list: Vec::new(),
            timers: Vec::new(),
            now: 0.0,
            full: false,
            lock_held: false,
        }
    }

    fn run(&mut self, todo: Vec<Do>) {
        for d in todo {
            match d {
                Do::Save(id) => {
                    self.save(&id);
                }
                Do::WakeAt(at) => self.timers.push(at),
                Do::ReleaseRunLock => self.lock_held = false,
            }
        }
    }

    /// A save of chat `id`: whether it is safely stored (or was not this tab's to write).
    fn save(&mut self, id: &str) -> bool {
        if !self.saves.may_write(id) || self.chat.id != id || self.chat.is_empty() {
            return true;
        }
        let ok = !self.full;
        if ok {
            self.db.insert(id.into(), self.chat.runs.len());
            self.list.retain(|c| c != id);
            self.list.insert(0, id.into());
        }
        self.saves.saved(id, ok);
        ok
    }

    fn ask(&mut self, question: &str) {
        self.lock_held = true;
        self.chat.ask(question.into());
        let todo = self.saves.changed(Save::Now, true, self.now);
        self.run(todo);
    }

    fn step(&mut self) {
        let todo = self.saves.changed(Save::Soon, true, self.now);
        self.run(todo);
    }

    fn end(&mut self) {
        let run = self.chat.runs.len() - 1;
        let save = self.chat.end(run, crate::conversation::Outcome::Answer("done".into()));
        let todo = self.saves.changed(save, false, self.now);
        self.run(todo);
    }

    fn advance(&mut self, ms: f64) {
        self.now += ms;
        let mut due: Vec<f64> = self.timers.iter().copied().filter(|t| *t <= self.now).collect();
        due.sort_by(f64::total_cmp);
        self.timers.retain(|t| *t > self.now);
        for at in due {
            if let Some(id) = self.saves.due(at) {
                self.save(&id);
            }
        }
    }

    /// Leaves the open chat (saving it first) for `next`; whether it could.
    fn leave_for(&mut self, next: Conversation) -> bool {
        let id = self.chat.id.clone();
        if !self.save(&id) {
            return false;
        }
        self.saves.opened(&next.id, false);
        self.chat = next;
        true
    }
}

fn chat_with(id: &str, question: &str) -> Conversation {
    let mut c = Conversation::new(id.into());
    c.ask(question.into());
    c
}

#[test]
fn a_burst_of_steps_costs_one_save_after_the_delay() {
    let mut page = Page::new("a");
    page.ask("q");
    assert_eq!(page.db["a"], 1);
    page.db.clear();
    for _ in 0..10 {
        page.step();
        page.advance(10.0);
    }
    assert_eq!(page.timers.len(), 1, "one save is queued for the burst");
    assert!(page.saves.unsaved());
    page.advance(SAVE_DELAY_MS);
    assert_eq!(page.db.get("a"), Some(&1));
    assert!(!page.saves.unsaved());
}

#[test]
fn the_end_of_a_run_is_saved_at_once_and_lets_go_of_the_lock() {
    let mut page = Page::new("a");
    page.ask("q");
    assert!(page.lock_held);
    page.step();
    page.db.clear();
    page.end();
    assert_eq!(page.db.get("a"), Some(&1), "saved without waiting for the queued save");
    assert!(!page.lock_held);
}

/// The fault: a run's last step queued a save for chat A; an import opened within the delay
/// found the queue taken and queued nothing; A's save then found A no longer open and wrote
/// nothing. The imported chat was never saved.
#[test]
fn an_import_opened_within_the_save_delay_is_saved() {
    let mut page = Page::new("a");
    page.ask("q");
    page.step();
    page.end();
    page.step(); // a late event of the ended run queues a save of A
    page.advance(100.0);
    assert!(page.leave_for(chat_with("imported", "imported question")));
    let todo = page.saves.changed(Save::Soon, false, page.now);
    page.run(todo);
    page.advance(SAVE_DELAY_MS * 2.0);
    assert_eq!(page.db.get("imported"), Some(&1), "the imported chat is stored");
}

/// The fault: a save queued for chat A ran after the person opened chat B, wrote B and moved
/// it to the top of the list.
#[test]
fn a_save_queued_for_a_chat_that_was_left_writes_nothing() {
    let mut page = Page::new("b");
    page.ask("first");
    page.end();
    let b = page.chat.clone();
    assert!(page.leave_for(Conversation::new("a".into())));
    page.ask("second");
    page.step();
    // Back to B before A's queued save runs.
    page.advance(100.0);
    assert!(page.leave_for(b));
    let order = page.list.clone();
    page.advance(SAVE_DELAY_MS);
    assert_eq!(page.list, order, "the late save moved nothing");
    assert_eq!(page.list, ["a", "b"]);
}

#[test]
fn a_save_queued_for_a_chat_deleted_meanwhile_writes_nothing() {
    let mut page = Page::new("a");
    page.ask("q");
    page.step();
    page.db.clear();
    // Deleted: the page opens a new chat.
    page.saves.opened("fresh", false);
    page.chat = Conversation::new("fresh".into());
    page.advance(SAVE_DELAY_MS);
    assert!(page.db.is_empty(), "nothing written for the deleted chat, nor for the empty new one");
}

/// A run cannot change chats, but its steps can land after the person's view moved on (the
/// queue is for the run's chat): a step queued before the switch saves nothing of the new one.
#[test]
fn a_run_ending_while_its_chat_is_not_open_leaves_the_open_one_alone() {
    let mut page = Page::new("a");
    page.ask("q");
    page.step();
    assert!(page.leave_for(chat_with("b", "other")));
    page.db.remove("b");
    page.advance(SAVE_DELAY_MS);
    assert_eq!(page.db.get("b"), None, "b was not written by a's queued save");
    assert_eq!(page.list.first().map(String::as_str), Some("a"));
}

#[test]
fn a_failed_save_keeps_the_chat_in_memory_until_a_save_succeeds() {
    let mut page = Page::new("a");
    page.full = true;
    page.ask("q");
    assert!(page.db.is_empty());
    assert!(page.saves.unsaved());
    assert!(!page.leave_for(Conversation::new("b".into())), "switching away would drop the only copy");
    assert_eq!(page.chat.id, "a");
    // Another tab saving this chat must not replace what this tab holds.
    assert_eq!(page.saves.hear(&TabNews::Saved { id: "a".into() }, false), Heard::Nothing);
    assert_eq!(page.saves.hear(&TabNews::Deleted { id: "a".into() }, false), Heard::Nothing);
    page.full = false;
    page.end();
    assert_eq!(page.db.get("a"), Some(&1));
    assert!(!page.saves.unsaved());
    assert!(page.leave_for(Conversation::new("b".into())));
}

#[test]
fn two_tabs_one_chat_the_run_belongs_to_the_tab_running_it() {
    // This tab opened chat A while another tab runs it.
    let mut page = Page::new("a");
    page.saves.opened("a", true);
    page.chat = chat_with("a", "theirs");
    assert!(!page.saves.may_write("a"));
    page.step();
    page.advance(SAVE_DELAY_MS);
    assert!(page.db.is_empty(), "the other tab saves it");
    // Their saves are shown here, even though this tab has a queued save.
    assert_eq!(page.saves.hear(&TabNews::Saved { id: "a".into() }, false), Heard::Reload);
    assert_eq!(page.saves.hear(&TabNews::Saved { id: "other".into() }, false), Heard::Nothing);
    // A question asked here goes on in a chat of its own.
    assert!(page.saves.run_starting("a2"));
    assert_eq!(page.saves.open_id(), "a2");
    assert!(!page.saves.live_elsewhere());
    assert!(page.saves.may_write("a2"));
    assert!(!page.saves.run_starting("a3"), "only once");
}

#[test]
fn news_of_the_open_chat_is_not_applied_while_a_run_goes_on_here() {
    let saves = Saves::new("a".into());
    assert_eq!(saves.hear(&TabNews::Saved { id: "a".into() }, true), Heard::Nothing);
    assert_eq!(saves.hear(&TabNews::Saved { id: "a".into() }, false), Heard::Reload);
    assert_eq!(saves.hear(&TabNews::Deleted { id: "a".into() }, false), Heard::Clear);
}

#[test]
fn a_save_is_due_only_at_its_time() {
    let mut saves = Saves::new("a".into());
    assert_eq!(saves.changed(Save::Soon, true, 1000.0), vec![Do::WakeAt(1000.0 + SAVE_DELAY_MS)]);
    assert_eq!(saves.changed(Save::Soon, true, 1100.0), Vec::new());
    assert_eq!(saves.due(1000.0 + SAVE_DELAY_MS - 1.0), None);
    assert_eq!(saves.due(1000.0 + SAVE_DELAY_MS), Some("a".into()));
    assert_eq!(saves.due(2000.0), None, "once");
    assert_eq!(saves.changed(Save::No, true, 2000.0), Vec::new());
}

#[test]
fn a_queued_save_names_its_chat_and_no_other() {
    let mut saves = Saves::new("a".into());
    saves.changed(Save::Soon, true, 0.0);
    saves.opened("b", false);
    assert!(!saves.unsaved(), "b has nothing queued");
    assert_eq!(saves.due(SAVE_DELAY_MS), None, "a was left: its save does not write b");
    // b's own change queues b's save, whatever was queued before.
    saves.changed(Save::Soon, true, 0.0);
    saves.opened("a", false);
    assert_eq!(saves.changed(Save::Soon, true, 10.0), vec![Do::WakeAt(10.0 + SAVE_DELAY_MS)]);
    assert_eq!(saves.due(10.0 + SAVE_DELAY_MS), Some("a".into()));
}
