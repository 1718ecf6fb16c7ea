//! The chat list as the page holds it: plain data, newest first, and the operations the page
//! performs on it (a chat saved, imported, renamed, deleted, found unreadable), so its rules are
//! tested natively (`list/tests.rs`). The stored list lines are `ChatSummary` records
//! (`store::list` reads them); this is what the sidebar shows between two reads.

use super::chats::ChatSummary;

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

#[cfg(test)]
mod tests;
