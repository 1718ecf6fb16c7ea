//! The server's own event stream (a GET), where it sends notifications such as a changed tool
//! list: one listener per client, kept open while the page uses the client, let go when the
//! client is retired.
//!
//! Letting go in the right order matters. A client retired while only its listener holds it
//! ends its session there and then; the DELETE is sent while the stream is still open, and the
//! stream is dropped only once the server has answered (a server closes the session's stream
//! itself). Chromium sends a DELETE that follows at once on an aborted stream twice, and the
//! second one is answered 404 for a session that no longer exists.

use std::pin::pin;
use std::rc::Rc;

use super::{read_body, session_unknown, McpClient, McpError, McpState, ERROR_BODY_LIMIT};
use crate::agent::time::{race, Either};
use crate::agent::Clock;
use crate::net::sse::SseDecoder;
use crate::net::HttpRequest;
use crate::tools::mcp::jsonrpc;

/// How a wait on the server's own event stream (`listen`) ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ListenEnd {
    /// The server offers no such stream (405): nothing to listen to.
    Unsupported,
    /// The stream ended or broke; listening again later may work.
    Ended,
    Failed(McpError),
}

/// Streams that end or fail this often in a row, each within a minute, are given up on.
const GIVE_UP_AFTER: u32 = 5;
/// A stream that lasted this long was working: the count of failures starts again.
const LASTED_MS: f64 = 60_000.0;
/// The wait before listening again grows by this much with each failure in a row.
const BACKOFF_MS: f64 = 2000.0;
/// The shortest wait before listening again to a stream that asked for a wait (`retry`).
const SHORTEST_RETRY_MS: f64 = 250.0;
/// The longest wait such a stream may ask for.
const LONGEST_RETRY_MS: f64 = 60_000.0;
/// How long a retired client waits for the server to answer the end of its session.
const SESSION_END_WAIT_MS: f64 = 2000.0;

impl McpClient {
    /// Keeps the server's event stream open while this client is the one in use, so tool-list
    /// changes and the server's own requests (a question for the person) arrive; listens again
    /// after a stream ends, and gives up after repeated quick failures or when the server has no
    /// such stream. A second call while one listens returns at once.
    ///
    /// `announced`: the server said it sends list changes, so a stream that fails is reported
    /// as the server failing. Otherwise the stream is opened only in case the server asks there,
    /// and a server that answers with anything but a stream is left alone, nothing reported
    /// (many answer 404 or 400 where they should say 405).
    pub async fn keep_listening(self: Rc<Self>, clock: &dyn Clock, announced: bool) {
        if self.listening.replace(true) {
            return;
        }
        let mut failures = 0;
        while !self.is_retired() && failures < GIVE_UP_AFTER {
            let started = clock.now_ms();
            match self.listen_while_current(clock, announced).await {
                None | Some(ListenEnd::Unsupported) => break,
                Some(ListenEnd::Failed(_)) if !announced => break,
                Some(_) => {}
            }
            // A stream the server closed having asked for a wait (SEP-1699) is listened to again
            // after that wait, from where it left off: a server that polls, not one failing.
            let asked = self.listened_to.borrow().1;
            let wait = match asked {
                Some(ms) => (ms as f64).clamp(SHORTEST_RETRY_MS, LONGEST_RETRY_MS),
                None => {
                    failures = if clock.now_ms() - started > LASTED_MS { 0 } else { failures + 1 };
                    BACKOFF_MS * f64::from(failures)
                }
            };
            if let Either::Right(()) = race(clock.sleep(wait), self.retired()).await {
                break;
            }
        }
        self.listening.set(false);
    }

    /// One `listen`, or `None` when the client was retired meanwhile. Retired while nothing
    /// else holds it, the client ends its session before letting go of the stream.
    async fn listen_while_current(self: &Rc<Self>, clock: &dyn Clock, announced: bool) -> Option<ListenEnd> {
        let mut listening = pin!(async {
            if announced {
                self.listen().await
            } else {
                self.listen_once(false).await
            }
        });
        match race(listening.as_mut(), self.retired()).await {
            Either::Left(end) => Some(end),
            Either::Right(()) => {
                if Rc::strong_count(self) == 1 {
                    self.end_session_answered(clock).await;
                }
                None
            }
        }
    }

    /// Ends the session and waits (a little) for the server's answer, which is not read.
    async fn end_session_answered(&self, clock: &dyn Clock) {
        let Some(delete) = self.take_session() else { return };
        let _ = race(self.fetch.open(delete.as_request()), clock.sleep(SESSION_END_WAIT_MS)).await;
    }

    /// Waits on the server's own event stream (GET) for notifications until it ends. The caller
    /// decides whether and when to listen again.
    pub async fn listen(&self) -> ListenEnd {
        let end = self.listen_once(true).await;
        if let ListenEnd::Failed(e) = &end {
            self.report_failure(e);
        }
        end
    }

    /// One stream. Not `announced`, any answer but a stream means the server has none for us.
    async fn listen_once(&self, announced: bool) -> ListenEnd {
        if self.session.borrow().is_none() {
            if let Err(e) = self.connect().await {
                return ListenEnd::Failed(e);
            }
        }
        let mut headers = self.headers("text/event-stream");
        // Where the last stream left off, for the server to send what came after it.
        let (from, _) = self.listened_to.replace((None, None));
        if let Some(last_id) = from {
            headers.push(("Last-Event-ID".into(), last_id));
        }
        let sent_session = self.session_id().is_some();
        let request = HttpRequest { method: "GET", url: &self.url, headers: &headers, body: None, redirects: self.redirects() };
        let mut stream = match self.fetch.open(request).await {
            Ok(stream) => stream,
            Err(e) => return ListenEnd::Failed(self.unreachable(&e, true).await),
        };
        if stream.is_redirect() {
            return ListenEnd::Failed(self.redirected().await);
        }
        match stream.status() {
            405 => return ListenEnd::Unsupported,
            200..=299 => {}
            _ if !announced => return ListenEnd::Unsupported,
            404 if sent_session => return self.forgotten(),
            status => {
                let body = read_body(stream.as_mut(), ERROR_BODY_LIMIT).await.unwrap_or_default();
                if sent_session && session_unknown(status, &body) {
                    return self.forgotten();
                }
                return ListenEnd::Failed(self.http_error(status, &body));
            }
        }
        let mut decoder = SseDecoder::new();
        loop {
            let events = match stream.chunk().await {
                Ok(Some(bytes)) => decoder.push(&bytes),
                Ok(None) => {
                    *self.listened_to.borrow_mut() = (decoder.last_id().map(str::to_string), decoder.retry_ms());
                    return ListenEnd::Ended;
                }
                Err(_) => return ListenEnd::Ended,
            };
            for event in events {
                if let Ok(messages) = jsonrpc::parse(&event.data) {
                    for message in messages {
                        self.handle(message, None).await;
                    }
                }
            }
        }
    }

    /// The server forgot the session the listener carried: the next `listen` starts a new one.
    fn forgotten(&self) -> ListenEnd {
        *self.session.borrow_mut() = None;
        self.report(McpState::Reconnecting);
        ListenEnd::Ended
    }
}
