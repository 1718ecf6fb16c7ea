//! A session's own state and its end: the session id and what the server said on
//! `initialize`, the answer a POST gave (or the sign that the session expired), a request on its
//! way that tells the server when it is no longer wanted, and the DELETE that ends a session
//! nothing holds any more.

use super::*;

/// Why a request got no answer: starting the session failed (which `connect` reports), or the
/// request itself did.
pub(super) enum Unanswered {
    Connect(McpError),
    Call(McpError),
}

pub(super) struct Session {
    pub(super) id: Option<String>,
    pub(super) info: ServerInfo,
}

/// A failed POST: an error, or the sign that the session expired.
pub(super) enum Failure {
    Expired,
    Error(McpError),
}

impl From<McpError> for Failure {
    fn from(e: McpError) -> Self {
        Failure::Error(e)
    }
}

/// When nothing in the page holds this client any more (its server was removed or changed in
/// Settings, and no run still uses it), the server is told it can end the session: an HTTP
/// DELETE with the session id, as the protocol asks of a client that is done with a session.
/// Sent on its own; a server that does not allow it answers 405, which changes nothing.
impl Drop for McpClient {
    fn drop(&mut self) {
        self.end_session();
    }
}

impl McpClient {
    /// Ends the session now, once: the DELETE above, sent on its own. Used when nothing holds
    /// the client any more, and by the hub when the page goes away (`McpHub::end_sessions`).
    /// Used again afterwards, the client starts a new session.
    pub fn end_session(&self) {
        if let Some(delete) = self.take_session() {
            self.fetch.send_detached(delete);
        }
    }

    /// Forgets the session and gives the DELETE that ends it with the server; `None` when
    /// there is no session, or the client is busy (a borrow held elsewhere) and keeps it.
    pub(super) fn take_session(&self) -> Option<OwnedRequest> {
        self.session_id().filter(|id| !id.is_empty())?;
        let headers = self.headers("application/json, text/event-stream");
        let mut current = self.session.try_borrow_mut().ok()?;
        *current = None;
        drop(current);
        Some(OwnedRequest { method: "DELETE", url: self.url.clone(), headers, body: None, redirects: self.redirects() })
    }
}

/// A request on its way. Dropped before it settles (Stop, a time limit, a run that ended), it
/// tells the server the answer is no longer wanted, as the protocol asks of a client.
pub(super) struct InFlight<'a> {
    pub(super) client: &'a McpClient,
    pub(super) id: u64,
    pub(super) settled: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Ok(mut streams) = self.client.streams.try_borrow_mut() {
            streams.retain(|(id, _)| *id != self.id);
        }
        if !self.settled {
            self.client.cancel(self.id);
        }
    }
}

/// A successful POST: the response's result (none for a notification) and the session id the
/// response carried, if the page may read it.
pub(super) struct Answer {
    pub(super) result: Option<Value>,
    pub(super) session: Option<String>,
}
