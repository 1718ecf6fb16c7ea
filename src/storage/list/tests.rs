//! The chat list's operations.

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
