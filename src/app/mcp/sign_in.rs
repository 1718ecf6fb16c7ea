//! Signing in to MCP servers that need it (`tools::mcp::oauth`), as plain state: each server's
//! state in words for Settings, the sign-ins under way (what must outlive a full-page redirect:
//! the `state` sent, the PKCE verifier, where the code is exchanged), and the tokens. Tokens are
//! secrets: each is sent only to its own server's origin, kept in storage only with "Remember",
//! and listed for masking. The window, storage and requests are the views'.

use crate::tools::mcp::oauth::{authorization_url, callback_from, code_body, pkce, refresh_body, AuthMethod, Challenge, Client, Discovered, Grant, SignIn, Tokens};

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

/// A sign-in under way: what the return needs to finish it. Kept in the tab's session storage
/// while the page is away at the sign-in (a full-page redirect), and nowhere else.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pending {
    /// The MCP server's address, as in Settings.
    pub server: String,
    pub state: String,
    pub verifier: String,
    pub client_id: String,
    /// The client's secret and method, when its registration made it a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default)]
    pub auth_method: AuthMethod,
    pub redirect_uri: String,
    pub issuer: String,
    pub token_endpoint: String,
    pub revocation_endpoint: Option<String>,
    pub resource: String,
    pub started_ms: u64,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending").field("server", &self.server).field("started_ms", &self.started_ms).finish_non_exhaustive()
    }
}

impl Pending {
    /// The token request that redeems `code`.
    pub fn code_body(&self, code: &str) -> String {
        code_body(code, &self.verifier, &SignIn { client_id: &self.client_id, redirect_uri: &self.redirect_uri, resource: &self.resource, scope: None })
    }

    /// The client the sign-in is for, as the token endpoint knows it.
    pub fn client(&self) -> Client {
        Client { id: self.client_id.clone(), secret: self.client_secret.clone(), method: self.auth_method }
    }

    /// The grant its tokens make.
    pub fn grant(&self, tokens: Tokens) -> Grant {
        Grant {
            tokens,
            client_id: self.client_id.clone(),
            client_secret: self.client_secret.clone(),
            auth_method: self.auth_method,
            issuer: self.issuer.clone(),
            token_endpoint: self.token_endpoint.clone(),
            revocation_endpoint: self.revocation_endpoint.clone(),
            resource: self.resource.clone(),
        }
    }
}

/// Whether a sign-in's `state` says it left the page (a full-page redirect) rather than
/// opening a window: the callback page reads it to know where to go.
pub fn left_the_page(state: &str) -> bool {
    state.starts_with("r.")
}

/// How a sign-in begins: as which client, back to which address, and whether the page itself
/// goes to the sign-in (no window could open).
#[derive(Debug, Clone, Copy)]
pub struct Begin<'a> {
    pub client: &'a Client,
    pub redirect_uri: &'a str,
    pub leaves: bool,
}

/// The scopes of `before` and then those of `now` not in it, space-separated (`None` when
/// neither names any).
fn wider(before: Option<&str>, now: Option<&str>) -> Option<String> {
    let mut scopes: Vec<&str> = Vec::new();
    for scope in before.into_iter().chain(now).flat_map(str::split_whitespace) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

/// What to do after a server answered 401 to a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum After401 {
    /// A newer token is there already (another request refreshed it): send again with it.
    Again,
    /// Refresh with this grant, then send again.
    Refresh(Box<Grant>),
    /// The person must sign in (the state says so now).
    SignIn,
}

/// Every server's sign-in state, the sign-ins under way, the grants, the challenges servers
/// answered with, and the servers a run waits on.
#[derive(Debug, Default, Clone)]
pub struct SignIns {
    states: Vec<(String, AuthState)>,
    pending: Vec<Pending>,
    grants: Vec<(String, Grant)>,
    challenges: Vec<(String, Challenge)>,
    waits: Vec<String>,
    /// The servers whose tokens are being renewed now: one renewal at a time per server.
    renewing: Vec<String>,
    /// The device holds a record of a newer page: it is never written over.
    newer_kept: bool,
}

impl PartialEq for SignIns {
    /// What a view shows: the states and the waits.
    fn eq(&self, other: &Self) -> bool {
        self.states == other.states && self.waits == other.waits
    }
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

    fn drop_grant(&mut self, server: &str) -> Option<Grant> {
        let at = self.grants.iter().position(|(s, _)| same_server(s, server))?;
        Some(self.grants.remove(at).1)
    }

    fn grant(&self, server: &str) -> Option<&Grant> {
        self.grants.iter().find(|(s, _)| same_server(s, server)).map(|(_, g)| g)
    }

    /// The client this page already is at `issuer` for `server`, from the grant it holds there:
    /// a sign-in again (a wider scope, say) uses it rather than registering once more.
    pub fn registered(&self, server: &str, issuer: &str) -> Option<Client> {
        self.grant(server).filter(|g| g.issuer == issuer).map(Grant::client)
    }

    /// The server answered 401: its tokens (if any) no longer serve.
    pub fn needs(&mut self, server: &str, why: &str) {
        self.drop_grant(server);
        self.set(server, AuthState::NeedsSignIn(why.to_string()));
    }

    /// The challenge the server's last 401 carried, for discovery.
    pub fn challenge(&self, server: &str) -> Option<Challenge> {
        self.challenges.iter().find(|(s, _)| same_server(s, server)).map(|(_, c)| c.clone())
    }

    /// `server` answered 401 to `sent`, with `challenge`: what to do next.
    /// A 403 whose challenge says `insufficient_scope` (step-up authorization) is told here
    /// too: the token serves, but not for what was asked, so no refresh helps. The next
    /// sign-in asks for the scope the server named, with the scope asked for before, and the
    /// grant serves the rest until then.
    pub fn after_401(&mut self, server: &str, sent: Option<&str>, challenge: Option<Challenge>) -> After401 {
        let step_up = challenge.as_ref().is_some_and(|c| c.error.as_deref() == Some("insufficient_scope"));
        if let Some(mut challenge) = challenge.clone() {
            if step_up {
                // What was asked for before, and what the grant says it gave.
                let asked = self.challenge(server).and_then(|c| c.scope);
                let given = self.grant(server).and_then(|g| g.tokens.scope.clone());
                let before = wider(asked.as_deref(), given.as_deref());
                challenge.scope = wider(before.as_deref(), challenge.scope.as_deref());
            }
            self.challenges.retain(|(s, _)| !same_server(s, server));
            self.challenges.push((server.to_string(), challenge));
        }
        if let Some(grant) = self.grant(server) {
            if sent != Some(grant.tokens.access.as_str()) {
                return After401::Again;
            }
            if step_up {
                let wants = self.challenge(server).and_then(|c| c.scope).map(|s| format!(" ({s})")).unwrap_or_default();
                self.set(server, AuthState::NeedsSignIn(format!("the server asks for more access than your sign-in gave{wants}")));
                return After401::SignIn;
            }
            if grant.tokens.refresh.is_some() {
                return After401::Refresh(Box::new(grant.clone()));
            }
        }
        // A request sent without a token because renewing it failed keeps that reason.
        let why = match self.state(server) {
            AuthState::NeedsSignIn(why) if sent.is_none() => why,
            _ => challenge.and_then(|c| c.error_description).unwrap_or_else(|| "the server asks who you are".into()),
        };
        self.needs(server, &why);
        After401::SignIn
    }

    /// A sign-in at the authorization server `found` names starts, as `how` says; `random`
    /// gives the PKCE verifier and the `state`. The address to send the person to.
    pub fn begin(&mut self, server: &str, found: &Discovered, how: Begin<'_>, random: &[u8; 48], now_ms: u64) -> String {
        let Begin { client, redirect_uri, leaves } = how;
        let client_id = client.id.as_str();
        let mut verifier_bytes = [0u8; 32];
        verifier_bytes.copy_from_slice(&random[..32]);
        let mut state_bytes = [0u8; 16];
        state_bytes.copy_from_slice(&random[32..]);
        let pair = pkce(&verifier_bytes);
        let state = format!("{}.{}", if leaves { "r" } else { "w" }, crate::tools::mcp::oauth::state(&state_bytes));
        let sign_in = SignIn { client_id, redirect_uri, resource: &found.resource, scope: found.scope.as_deref() };
        let url = authorization_url(&found.server, &sign_in, &pair, &state);
        self.start(Pending {
            server: server.to_string(),
            state,
            verifier: pair.verifier,
            client_id: client_id.to_string(),
            client_secret: client.secret.clone(),
            auth_method: client.method,
            redirect_uri: redirect_uri.to_string(),
            issuer: found.server.issuer.clone(),
            token_endpoint: found.server.token_endpoint.clone(),
            revocation_endpoint: found.server.revocation_endpoint.clone(),
            resource: found.resource.clone(),
            started_ms: now_ms,
        });
        url
    }

    /// Sign in was pressed: the page is finding where to sign in.
    pub fn set_signing_in(&mut self, server: &str) {
        self.set(server, AuthState::SigningIn);
    }

    /// A sign-in starts (its window opens, or the page goes to it); also a sign-in the page
    /// kept while it was away.
    pub fn start(&mut self, pending: Pending) {
        self.pending.retain(|p| !same_server(&p.server, &pending.server));
        self.set(&pending.server.clone(), AuthState::SigningIn);
        self.pending.push(pending);
    }

    /// The sign-in under way for `server`, to keep while the page is away.
    pub fn pending(&self, server: &str) -> Option<&Pending> {
        self.pending.iter().find(|p| same_server(&p.server, server))
    }

    /// The page came back from a sign-in with `query`: the sign-in it finishes (found by its
    /// `state`) and the code to redeem, or why not. A return with a `state` no sign-in sent,
    /// or after `SIGN_IN_TTL_MS`, is refused, as is one from another issuer than the one the
    /// sign-in went to; a refusal at the server is that server's state.
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
        match callback_from(query, &pending.state, Some(&pending.issuer)) {
            Ok(code) => Ok((pending, code)),
            Err(why) => {
                self.set(&pending.server, AuthState::Refused(why.0.clone()));
                Err(why.0)
            }
        }
    }

    pub fn signed_in(&mut self, server: &str, grant: Grant) {
        self.set(server, AuthState::SignedIn { until_ms: grant.tokens.expires_at_ms });
        self.drop_grant(server);
        self.grants.push((server.to_string(), grant));
    }

    /// A refresh gave new tokens.
    pub fn refreshed(&mut self, server: &str, tokens: Tokens) {
        if let Some(mut grant) = self.drop_grant(server) {
            grant.tokens = tokens;
            self.signed_in(server, grant);
        }
    }

    /// The sign-in or a refresh was refused: the tokens go.
    pub fn refused(&mut self, server: &str, why: &str) {
        self.drop_grant(server);
        self.pending.retain(|p| !same_server(&p.server, server));
        self.set(server, AuthState::Refused(why.to_string()));
    }

    /// The access token for a request to `url` on behalf of `server`: only to that server's own
    /// origin.
    pub fn bearer_for(&self, server: &str, url: &str) -> Option<&str> {
        let origin = crate::net::origin(url)?;
        if crate::net::origin(server).as_deref() != Some(origin.as_str()) {
            return None;
        }
        self.grant(server).map(|g| g.tokens.access.as_str())
    }

    /// The grant of `server`, when its tokens are due for a refresh at `now_ms` and can be.
    pub fn due(&self, server: &str, now_ms: u64) -> Option<Grant> {
        self.grant(server).filter(|g| g.tokens.due(now_ms) && g.tokens.refresh.is_some()).cloned()
    }

    /// The token request that refreshes `grant`.
    pub fn refresh_body(grant: &Grant) -> Option<String> {
        grant.tokens.refresh.as_deref().map(|r| refresh_body(r, &grant.client_id, &grant.resource))
    }

    /// Sign out: the grant is forgotten and returned (to be revoked where the server offers it).
    pub fn sign_out(&mut self, server: &str) -> Option<Grant> {
        let grant = self.drop_grant(server)?;
        self.set(server, AuthState::NeedsSignIn("signed out".into()));
        Some(grant)
    }

    /// A run waits for a sign-in to `server` (`true`), or no longer does.
    pub fn waiting(&mut self, server: &str, waits: bool) {
        if waits {
            self.waits.push(server.to_string());
        } else if let Some(at) = self.waits.iter().position(|s| same_server(s, server)) {
            self.waits.remove(at);
        }
    }

    /// The servers runs wait on, once each; not those signed in to already (their runs go on
    /// at their next look, and a second sign-in is not offered meanwhile).
    pub fn waited_on(&self) -> Vec<String> {
        let mut servers: Vec<String> = Vec::new();
        for server in &self.waits {
            let signed_in = matches!(self.state(server), AuthState::SignedIn { .. });
            if !signed_in && !servers.iter().any(|s| same_server(s, server)) {
                servers.push(server.clone());
            }
        }
        servers
    }

    /// Every token, client secret and verifier held, for the masking of everything that leaves.
    pub fn secrets(&self) -> Vec<String> {
        let tokens = self.grants.iter().flat_map(|(_, g)| std::iter::once(g.tokens.access.clone()).chain(g.tokens.refresh.clone()).chain(g.client_secret.clone()));
        tokens.chain(self.pending.iter().flat_map(|p| std::iter::once(p.verifier.clone()).chain(p.client_secret.clone()))).collect()
    }

    /// What storage keeps, as text: the grants of the servers whose secret is remembered
    /// (`remember`), in a versioned record; `None` when the device holds a newer page's record,
    /// which is never written over.
    pub fn kept(&self, remember: impl Fn(&str) -> bool) -> Option<String> {
        if self.newer_kept {
            return None;
        }
        let grants = self.grants.iter().filter(|(s, _)| remember(s)).cloned().collect();
        Some(serde_json::to_string(&Kept { version: KEPT_VERSION, grants }).unwrap_or_default())
    }

    /// A renewal of `server`'s tokens begins: `false` when one is under way already (a refresh
    /// token serves once, so the caller waits for that one instead of spending it again).
    pub fn begin_renewal(&mut self, server: &str) -> bool {
        if self.renewing(server) {
            return false;
        }
        self.renewing.push(server.to_string());
        true
    }

    /// The renewal of `server`'s tokens ended, however it went.
    pub fn end_renewal(&mut self, server: &str) {
        self.renewing.retain(|s| s != server);
    }

    /// Whether `server`'s tokens are being renewed now.
    pub fn renewing(&self, server: &str) -> bool {
        self.renewing.iter().any(|s| s == server)
    }

    /// Takes back what storage kept (`kept`): the grants whose server is still remembered. A
    /// record of another version, or one that does not read, gives nothing (`Err` says which,
    /// and a newer one is then not written over).
    pub fn restore(&mut self, text: &str, remember: impl Fn(&str) -> bool) -> Result<(), KeptUnread> {
        #[derive(serde::Deserialize)]
        struct Version {
            version: u64,
        }
        match serde_json::from_str::<Version>(text).map_err(|_| KeptUnread::Damaged)?.version {
            KEPT_VERSION => {}
            v if v > KEPT_VERSION => {
                self.newer_kept = true;
                return Err(KeptUnread::Newer);
            }
            _ => return Err(KeptUnread::Damaged),
        }
        let kept: Kept = serde_json::from_str(text).map_err(|_| KeptUnread::Damaged)?;
        for (server, grant) in kept.grants.into_iter().filter(|(s, _)| remember(s)) {
            self.signed_in(&server, grant);
        }
        Ok(())
    }
}

/// The record of remembered sign-ins.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    version: u64,
    grants: Vec<(String, Grant)>,
}

/// The version of the record `SignIns::kept` writes.
pub const KEPT_VERSION: u64 = 1;

/// Why kept sign-ins were not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptUnread {
    Damaged,
    /// Written by a newer version of the page: left as it is.
    Newer,
}

#[cfg(test)]
mod tests;
