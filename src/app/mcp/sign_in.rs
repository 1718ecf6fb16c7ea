//! Signing in to MCP servers that need it (`tools::mcp::oauth`), as plain state: each server's
//! state in words for Settings, the sign-ins under way (what must outlive a full-page redirect:
//! the `state` sent, the PKCE verifier, where the code is exchanged), and the tokens. Tokens are
//! secrets: each is sent only to its own server's origin, kept in storage only with "Remember",
//! and listed for masking. The window, storage and requests are the views'.

use crate::tools::mcp::oauth::{callback, Tokens};

/// How long a sign-in may take before its return is no longer accepted.
pub const SIGN_IN_TTL_MS: u64 = 10 * 60_000;

/// A server's sign-in state, as Settings says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthState {
    /// Nothing is known yet: the server has not asked.
    Open,
    /// The server answered 401: why, in the server's words where it gave them.
    NeedsSignIn(String),
    SigningIn,
    SignedIn { until_ms: Option<u64> },
    /// The sign-in or a refresh was refused: the reason.
    Refused(String),
}

impl AuthState {
    /// The state in words (`mcp-auth-state`).
    pub fn says(&self, now_ms: u64) -> String {
        match self {
            AuthState::Open => String::new(),
            AuthState::NeedsSignIn(why) => format!("Needs sign-in: {why}"),
            AuthState::SigningIn => "Signing in… (finish in the window that opened)".into(),
            AuthState::SignedIn { until_ms: None } => "Signed in.".into(),
            AuthState::SignedIn { until_ms: Some(until) } => {
                let minutes = until.saturating_sub(now_ms).div_ceil(60_000);
                if minutes == 0 {
                    "Signed in; the access expired and is renewed on the next call.".into()
                } else {
                    format!("Signed in, for {minutes} more minute{} (renewed before then).", if minutes == 1 { "" } else { "s" })
                }
            }
            AuthState::Refused(why) => format!("Sign-in refused: {why}"),
        }
    }
}

/// A sign-in under way: what the return needs to finish it.
#[derive(Clone, PartialEq, Eq)]
pub struct Pending {
    /// The MCP server's address, as in Settings.
    pub server: String,
    pub state: String,
    pub verifier: String,
    pub client_id: String,
    pub redirect_uri: String,
    pub token_endpoint: String,
    pub resource: String,
    pub started_ms: u64,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending").field("server", &self.server).field("started_ms", &self.started_ms).finish_non_exhaustive()
    }
}

/// Every server's sign-in state, the sign-ins under way and the tokens.
#[derive(Debug, Default)]
pub struct SignIns {
    states: Vec<(String, AuthState)>,
    pending: Vec<Pending>,
    tokens: Vec<(String, Tokens)>,
}

fn same_server(a: &str, b: &str) -> bool {
    crate::tools::mcp::oauth::canonical_resource(a) == crate::tools::mcp::oauth::canonical_resource(b)
}

impl SignIns {
    pub fn state(&self, server: &str) -> AuthState {
        self.states.iter().find(|(s, _)| same_server(s, server)).map_or(AuthState::Open, |(_, state)| state.clone())
    }

    fn set(&mut self, server: &str, state: AuthState) {
        match self.states.iter_mut().find(|(s, _)| same_server(s, server)) {
            Some(entry) => entry.1 = state,
            None => self.states.push((server.to_string(), state)),
        }
    }

    /// The server answered 401: its tokens (if any) no longer serve.
    pub fn needs(&mut self, server: &str, why: &str) {
        self.tokens.retain(|(s, _)| !same_server(s, server));
        self.set(server, AuthState::NeedsSignIn(why.to_string()));
    }

    /// A sign-in starts (its window opens, or the page goes to it).
    pub fn start(&mut self, pending: Pending) {
        self.pending.retain(|p| !same_server(&p.server, &pending.server));
        self.set(&pending.server.clone(), AuthState::SigningIn);
        self.pending.push(pending);
    }

    /// The page came back from a sign-in with `query`: the sign-in it finishes (found by its
    /// `state`) and the code to exchange, or why not. A return with a `state` no sign-in sent,
    /// or after `SIGN_IN_TTL_MS`, is refused; a refusal at the server is that server's state.
    pub fn came_back(&mut self, query: &str, now_ms: u64) -> Result<(Pending, String), String> {
        let sent = query
            .trim_start_matches('?')
            .split('&')
            .find_map(|p| p.strip_prefix("state="))
            .unwrap_or_default()
            .to_string();
        let Some(at) = self.pending.iter().position(|p| p.state == sent && !sent.is_empty()) else {
            return Err("The sign-in came back with a state this page did not send: it is ignored (it may not be yours).".into());
        };
        let pending = self.pending.remove(at);
        if now_ms.saturating_sub(pending.started_ms) > SIGN_IN_TTL_MS {
            let why = "the sign-in took more than 10 minutes; sign in again".to_string();
            self.set(&pending.server, AuthState::NeedsSignIn(why.clone()));
            return Err(format!("Not signed in: {why}."));
        }
        match callback(query, &pending.state) {
            Ok(code) => Ok((pending, code)),
            Err(why) => {
                self.set(&pending.server, AuthState::Refused(why.0.clone()));
                Err(why.0)
            }
        }
    }

    pub fn signed_in(&mut self, server: &str, tokens: Tokens) {
        self.set(server, AuthState::SignedIn { until_ms: tokens.expires_at_ms });
        self.tokens.retain(|(s, _)| !same_server(s, server));
        self.tokens.push((server.to_string(), tokens));
    }

    /// The sign-in or a refresh was refused: the tokens go.
    pub fn refused(&mut self, server: &str, why: &str) {
        self.tokens.retain(|(s, _)| !same_server(s, server));
        self.set(server, AuthState::Refused(why.to_string()));
    }

    /// The access token for a request to `url` on behalf of `server`: only to that server's own
    /// origin.
    pub fn bearer_for(&self, server: &str, url: &str) -> Option<&str> {
        let origin = crate::net::origin(url)?;
        if crate::net::origin(server).as_deref() != Some(origin.as_str()) {
            return None;
        }
        self.tokens.iter().find(|(s, _)| same_server(s, server)).map(|(_, t)| t.access.as_str())
    }

    /// The tokens of `server`, when they are due for a refresh at `now_ms`.
    pub fn due(&self, server: &str, now_ms: u64) -> Option<&Tokens> {
        self.tokens.iter().find(|(s, t)| same_server(s, server) && t.due(now_ms)).map(|(_, t)| t)
    }

    /// Sign out: the tokens are forgotten and returned (to be revoked where the server offers it).
    pub fn sign_out(&mut self, server: &str) -> Option<Tokens> {
        let at = self.tokens.iter().position(|(s, _)| same_server(s, server))?;
        self.set(server, AuthState::NeedsSignIn("signed out".into()));
        Some(self.tokens.remove(at).1)
    }

    /// Every token and verifier held, for the masking of everything that leaves.
    pub fn secrets(&self) -> Vec<String> {
        let tokens = self.tokens.iter().flat_map(|(_, t)| std::iter::once(t.access.clone()).chain(t.refresh.clone()));
        tokens.chain(self.pending.iter().map(|p| p.verifier.clone())).collect()
    }

    /// What storage keeps: the tokens only when "Remember" is ticked.
    pub fn kept(&self, remember: bool) -> Vec<(String, Tokens)> {
        if remember {
            self.tokens.clone()
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests;
