//! A server the person signs in to (OAuth, `tools::mcp::oauth`): its token comes from an
//! `Authorizer` (the page's sign-ins, `app::mcp::sign_in`, behind it) and is sent only to that
//! server. Before each message the client asks for the token as it is now (refreshed first when
//! it is about to expire); a 401 is told to the authorizer with the server's challenge, and the
//! message is sent once more when a refresh gave a new token. Otherwise the error says a
//! sign-in is needed, and a run's tool call may wait for one (`Authorizer::wait`).

use std::rc::Rc;

use super::{Answer, Failure, McpClient, McpError, McpErrorKind};
use crate::agent::LocalBoxFuture;
use crate::tools::mcp::oauth::Challenge;

/// How a wait for a sign-in ended, or that it goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waited {
    SignedIn,
    /// The sign-in was refused or given up: why.
    Refused(String),
    /// Still waiting (asked again after a while, so a run can say it is waiting).
    Still,
}

/// Where the tokens of servers the person signs in to come from.
pub trait Authorizer {
    /// The access token to send to `server` now, refreshed first when it is due; `None` when
    /// the person is not signed in there.
    fn token<'a>(&'a self, server: &'a str) -> LocalBoxFuture<'a, Option<String>>;
    /// `server` answered 401 to `sent` (the token sent, if any) with `challenge`: whether there
    /// is a new token to try once more (a refresh that worked). When not, the server's state
    /// becomes "needs sign-in".
    fn refused<'a>(&'a self, server: &'a str, sent: Option<&'a str>, challenge: Option<Challenge>) -> LocalBoxFuture<'a, bool>;
    /// Waits a while for the person to sign in to `server`.
    fn wait<'a>(&'a self, server: &'a str) -> LocalBoxFuture<'a, Waited>;
    /// The person asks to sign in to `server` (a click: a window may open now).
    fn sign_in(&self, _server: &str) {}
    /// The person signs out of `server`.
    fn sign_out(&self, _server: &str) {}
    /// What the sign-ins depend on in the settings changed (which servers are remembered).
    fn settings_changed(&self) {}
}

impl McpClient {
    /// Gives this client the page's sign-ins. Used only while the server has no secret of its
    /// own in Settings (a fixed token or header wins).
    pub fn set_authorizer(&self, authorizer: Rc<dyn Authorizer>) {
        *self.authorizer.borrow_mut() = Some(authorizer);
    }

    pub(super) fn signs_in(&self) -> bool {
        self.auth.is_none() && self.authorizer.borrow().is_some()
    }

    fn authorizer(&self) -> Option<Rc<dyn Authorizer>> {
        if self.auth.is_some() {
            return None;
        }
        self.authorizer.borrow().clone()
    }

    /// The error of a server that wants a sign-in, with its reason when it gave one.
    pub(super) fn needs_sign_in(&self) -> McpError {
        let challenge = self.challenge.borrow().clone().unwrap_or_default();
        let said = challenge.error_description.map(|d| format!(" ({})", self.scrub(&d))).unwrap_or_default();
        if challenge.error.as_deref() == Some("insufficient_scope") {
            let wants = challenge.scope.map(|s| format!(" ({})", self.scrub(&s))).unwrap_or_default();
            return McpError::new(
                McpErrorKind::SignIn,
                format!("The MCP server {} asks for more access than your sign-in gave{wants}: sign in again to allow it. Press Sign in beside it in Settings → Tools → MCP servers.", self.label),
            );
        }
        McpError::new(
            McpErrorKind::SignIn,
            format!("The MCP server {} needs you to sign in{said}. Press Sign in beside it in Settings → Tools → MCP servers.", self.label),
        )
    }

    /// Waits for the person to sign in to this client's server: `Still` after a while, so the
    /// caller can say it waits; `Refused` at once when nothing can sign anyone in.
    pub async fn wait_for_sign_in(&self) -> Waited {
        match self.authorizer() {
            Some(authorizer) => authorizer.wait(&self.url).await,
            None => Waited::Refused("this server takes a fixed secret, set in Settings".into()),
        }
    }

    /// POSTs one message with the token as it is now; after a 401, once more when the
    /// authorizer has a new token.
    pub(super) async fn post(&self, body: &str, expect: Option<u64>) -> Result<Answer, Failure> {
        let Some(authorizer) = self.authorizer() else { return self.post_once(body, expect).await };
        let mut again = true;
        loop {
            let token = authorizer.token(&self.url).await;
            *self.bearer.borrow_mut() = token;
            self.unauthorized.set(false);
            match self.post_once(body, expect).await {
                // A 401 that named no way to sign in: the server may still offer one (Settings
                // then shows Sign in), but nothing waits for it.
                Err(Failure::Error(e)) if e.kind == McpErrorKind::Auth && self.unauthorized.get() => {
                    authorizer.refused(&self.url, None, None).await;
                    return Err(Failure::Error(e));
                }
                Err(Failure::Error(e)) if e.kind == McpErrorKind::SignIn => {
                    let sent = self.bearer.borrow().clone();
                    let challenge = self.challenge.borrow().clone();
                    if again && authorizer.refused(&self.url, sent.as_deref(), challenge).await {
                        again = false;
                        continue;
                    }
                    return Err(Failure::Error(e));
                }
                other => return other,
            }
        }
    }
}
