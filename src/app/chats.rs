//! The chat store's plain state: the list as the page holds it (newest first, and what the
//! page does to it: a chat saved, imported, renamed, deleted, found unreadable) and which read
//! of a stored chat may still show it (`Reading`). The stored list lines are `ChatSummary`
//! records (`storage::store::list` reads them); this is what the sidebar shows between two
//! reads. When the open chat is saved is `saves.rs`'s.

use crate::storage::ChatSummary;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatList(Vec<ChatSummary>);

impl ChatList {
    /// The list as `store::list` read it (newest first).
    pub fn new(entries: Vec<ChatSummary>) -> Self {
        ChatList(entries)
    }

    pub fn entries(&self) -> &[ChatSummary] {
        &self.0
    }

    /// A chat was saved (or imported): its line moves to the top, with its new title.
    pub fn put_first(&mut self, summary: ChatSummary) {
        self.0.retain(|c| c.id != summary.id);
        self.0.insert(0, summary);
    }

    pub fn rename(&mut self, id: &str, title: &str) {
        self.0.iter_mut().filter(|c| c.id == id).for_each(|c| c.title = title.to_string());
    }

    pub fn remove(&mut self, id: &str) {
        self.0.retain(|c| c.id != id);
    }

    /// Opening the chat showed it cannot be read: it stays listed, saying why.
    pub fn mark_unreadable(&mut self, id: &str, reason: &str) {
        self.0.iter_mut().filter(|c| c.id == id).for_each(|c| c.problem = Some(reason.to_string()));
    }

    /// Whether the chat is listed and can be opened.
    pub fn openable(&self, id: &str) -> bool {
        self.0.iter().any(|c| c.id == id && c.problem.is_none())
    }

    /// The chat to open: `preferred` (the one open last) if it can be opened, else the newest
    /// that can.
    pub fn to_open(&self, preferred: Option<&str>) -> Option<String> {
        preferred
            .filter(|id| self.openable(id))
            .map(str::to_string)
            .or_else(|| self.0.iter().find(|c| c.problem.is_none()).map(|c| c.id.clone()))
    }
}

/// Reading a stored chat takes a moment, longer on a first visit, when the reading part of the
/// page is still on its way. What the person does meanwhile wins over what the read brings: a
/// question asked, a new chat started, a file imported, another chat opened. Each read gets a
/// ticket; anything the person does to the open chat, and every later read, makes the tickets
/// before it stale, and a stale read shows nothing.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    issued: u64,
    /// The ticket whose read may still show its chat.
    current: Option<u64>,
}

/// A read of a stored chat, from `Reading::begin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(u64);

impl Reading {
    /// A read of a stored chat begins; any read before it may no longer show its chat.
    pub fn begin(&mut self) -> Ticket {
        self.issued += 1;
        self.current = Some(self.issued);
        Ticket(self.issued)
    }

    /// The person changed the open chat (asked, replied, imported, started a new one): no read
    /// on its way may replace it.
    pub fn touched(&mut self) {
        self.current = None;
    }

    /// Whether the read with this ticket may show what it read, now that it has it. Once.
    pub fn finish(&mut self, ticket: Ticket) -> bool {
        let fresh = self.current == Some(ticket.0);
        if fresh {
            self.current = None;
        }
        fresh
    }

    /// Whether a read is on its way that may still show its chat.
    pub fn pending(&self) -> bool {
        self.current.is_some()
    }
}

#[cfg(test)]
mod tests;
