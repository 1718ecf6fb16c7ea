//! A server the person signs in to: the client sends the authorizer's token, only to that
//! server; a 401 is told to the authorizer with the server's challenge and the message is sent
//! once more after a refresh; else the error asks for a sign-in and never shows a token.

use super::*;
use crate::tools::mcp::client::{Authorizer, Waited};
use crate::tools::mcp::oauth::Challenge;

/// Tokens in turn: each `token` gives the current one; `refused` moves to the next, if any.
struct Tokens {
    tokens: RefCell<VecDeque<String>>,
    told: RefCell<Vec<(Option<String>, Option<Challenge>)>>,
}

impl Authorizer for Tokens {
    fn token<'a>(&'a self, _server: &'a str) -> LocalBoxFuture<'a, Option<String>> {
        let token = self.tokens.borrow().front().cloned();
        Box::pin(async move { token })
    }
    fn refused<'a>(&'a self, _server: &'a str, sent: Option<&'a str>, challenge: Option<Challenge>) -> LocalBoxFuture<'a, bool> {
        self.told.borrow_mut().push((sent.map(str::to_string), challenge));
        self.tokens.borrow_mut().pop_front();
        let more = !self.tokens.borrow().is_empty();
        Box::pin(async move { more })
    }
    fn wait<'a>(&'a self, _server: &'a str) -> LocalBoxFuture<'a, Waited> {
        Box::pin(async { Waited::Still })
    }
}

fn unauthorized(challenge: &str) -> Reply {
    let mut reply = Reply::status(401, "application/json", r#"{"error": "invalid_token", "error_description": "The token at-1 expired"}"#);
    reply.headers.push(("WWW-Authenticate".into(), challenge.into()));
    reply
}

fn signing_client(server: &Rc<Server>, tokens: &[&str]) -> (McpClient, Rc<Tokens>) {
    let c = client(server, "");
    let auth = Rc::new(Tokens { tokens: RefCell::new(tokens.iter().map(|t| t.to_string()).collect()), told: RefCell::new(Vec::new()) });
    c.set_authorizer(auth.clone());
    (c, auth)
}

#[test]
fn a_refused_token_is_refreshed_once_and_the_message_sent_again() {
    let challenge = r#"Bearer error="invalid_token", error_description="The token expired", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#;
    let mut replies = vec![unauthorized(challenge)];
    replies.extend(handshake());
    let server = Server::new(replies);
    let (c, auth) = signing_client(&server, &["at-1", "at-2"]);
    run(c.connect()).unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].header("Authorization"), Some("Bearer at-1"));
    assert_eq!(seen[1].header("Authorization"), Some("Bearer at-2"), "sent again with the refreshed token");
    assert_eq!(seen[0].redirects, Redirects::Refuse, "a request with a token follows no redirect");
    let told = auth.told.borrow();
    assert_eq!(told[0].0.as_deref(), Some("at-1"));
    assert_eq!(told[0].1.as_ref().and_then(|c| c.resource_metadata.as_deref()), Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
}

#[test]
fn with_no_new_token_the_error_asks_for_a_sign_in_and_hides_the_token() {
    let server = Server::new(vec![unauthorized(r#"Bearer error="invalid_token", error_description="The token at-1 expired""#)]);
    let (c, auth) = signing_client(&server, &["at-1"]);
    let e = run(c.connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::SignIn);
    assert!(e.message.contains("needs you to sign in (The token ••• expired)") && e.message.contains("Sign in"), "{}", e.message);
    assert!(!e.message.contains("at-1"));
    assert_eq!(auth.told.borrow().len(), 1, "asked once, not in a loop");
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn a_fixed_secret_in_settings_wins_over_sign_ins() {
    let server = Server::new(vec![Reply::status(401, "application/json", "{}")]);
    let c = client(&server, "fixed-secret-1");
    let auth = Rc::new(Tokens { tokens: RefCell::new(VecDeque::from(["at-1".to_string()])), told: RefCell::new(Vec::new()) });
    c.set_authorizer(auth.clone());
    let e = run(c.connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Auth);
    assert_eq!(server.seen()[0].header("Authorization"), Some("Bearer fixed-secret-1"));
    assert!(auth.told.borrow().is_empty());
    assert_eq!(run(c.wait_for_sign_in()), Waited::Refused("this server takes a fixed secret, set in Settings".into()));
}

#[test]
fn a_401_that_names_no_sign_in_says_a_token_is_wanted_or_a_sign_in() {
    let server = Server::new(vec![Reply::status(401, "application/json", r#"{"error": "unauthorized"}"#)]);
    let (c, auth) = signing_client(&server, &[]);
    let e = run(c.connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Auth, "nothing waits for a sign-in the server never offered");
    assert!(e.message.contains("wants a token (401 Unauthorized") && e.message.ends_with("If it signs people in instead, press Sign in there."), "{}", e.message);
    assert_eq!(auth.told.borrow().len(), 1, "Settings still offers Sign in");
}
