//! The chat list's operations, and which read of a stored chat may show it.

use super::*;

fn line(id: &str, title: &str) -> ChatSummary {
    ChatSummary { id: id.into(), title: title.into(), ..Default::default() }
}

fn ids(list: &ChatList) -> Vec<&str> {
    list.entries().iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn a_saved_or_imported_chat_moves_to_the_top_once() {
    let mut list = ChatList::new(vec![line("a", "A"), line("b", "B")]);
    list.put_first(line("b", "B, renamed by its save"));
    assert_eq!(ids(&list), ["b", "a"]);
    assert_eq!(list.entries()[0].title, "B, renamed by its save");
    list.put_first(line("c", "Imported"));
    assert_eq!(ids(&list), ["c", "b", "a"]);
}

#[test]
fn rename_remove_and_unreadable_change_only_their_chat() {
    let mut list = ChatList::new(vec![line("a", "A"), line("b", "B")]);
    list.rename("a", "New name");
    assert_eq!(list.entries()[0].title, "New name");
    assert_eq!(list.entries()[1].title, "B");
    list.mark_unreadable("b", "damaged");
    assert_eq!(list.entries()[1].problem.as_deref(), Some("damaged"));
    assert!(!list.openable("b") && list.openable("a"));
    list.remove("a");
    assert_eq!(ids(&list), ["b"]);
    list.remove("zzz");
    assert_eq!(ids(&list), ["b"]);
}

#[test]
fn the_chat_to_open_is_the_last_one_if_it_can_be_else_the_newest_that_can() {
    let mut list = ChatList::new(vec![line("new", "N"), line("old", "O"), line("older", "P")]);
    assert_eq!(list.to_open(Some("old")).as_deref(), Some("old"));
    assert_eq!(list.to_open(Some("gone")).as_deref(), Some("new"));
    list.mark_unreadable("new", "damaged");
    assert_eq!(list.to_open(None).as_deref(), Some("old"));
    list.mark_unreadable("old", "damaged");
    list.mark_unreadable("older", "damaged");
    assert_eq!(list.to_open(Some("old")), None, "nothing that can be opened");
}

// Reading a stored chat: what the person does while it is read wins.

#[test]
fn a_question_asked_while_the_last_chat_is_read_is_not_replaced_by_it() {
    let mut reading = Reading::default();
    // The page opens and reads the chat of last time; the reading part is still on its way.
    let last = reading.begin();
    // The person asks a question in the empty chat meanwhile.
    reading.touched();
    assert!(!reading.finish(last), "the read chat must not replace the question");
    assert!(!reading.pending());
}

#[test]
fn of_two_chats_opened_one_after_the_other_the_second_shows_whichever_read_ends_first() {
    let mut reading = Reading::default();
    let first = reading.begin();
    let second = reading.begin();
    assert!(reading.finish(second));
    assert!(!reading.finish(first), "a slower first read must not cover the chat opened after it");

    let first = reading.begin();
    let second = reading.begin();
    assert!(!reading.finish(first));
    assert!(reading.finish(second));
}

#[test]
fn a_read_nobody_interrupted_shows_its_chat_once() {
    let mut reading = Reading::default();
    let ticket = reading.begin();
    assert!(reading.pending());
    assert!(reading.finish(ticket));
    assert!(!reading.finish(ticket));
}

#[test]
fn a_new_chat_or_an_import_while_a_chat_is_read_wins_and_a_later_read_shows_again() {
    let mut reading = Reading::default();
    let opened = reading.begin();
    reading.touched(); // New chat, or an imported file opened
    assert!(!reading.finish(opened));
    let next = reading.begin();
    assert!(reading.finish(next));
}
