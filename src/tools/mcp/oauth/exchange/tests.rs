//! A renewal that hangs: the token, registration and revocation requests each end at their
//! time limit, with a message that names the server, and nothing after it is waited for.

use std::cell::RefCell;

use super::*;
use crate::base::clock::Impatient;
use crate::base::LocalBoxFuture;
use crate::net::{FetchFailed, HttpResponse, Streaming};
use crate::tools::mcp::oauth::Tokens;

/// An authorization server that takes every request and never answers.
#[derive(Default)]
struct Silent(RefCell<Vec<String>>);

impl Fetch for Silent {
    fn get<'a>(&'a self, _url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(std::future::pending())
    }
    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        self.0.borrow_mut().push(request.url.to_string());
        Box::pin(std::future::pending())
    }
}

fn grant() -> Grant {
    Grant {
        client_id: "thoughtline-test".into(),
        client_secret: None,
        auth_method: Default::default(),
        token_endpoint: "https://auth.test/token".into(),
        issuer: "https://auth.test".into(),
        revocation_endpoint: Some("https://auth.test/revoke".into()),
        tokens: Tokens { access: "tok-access-1".into(), refresh: Some("tok-refresh-2".into()), expires_at_ms: None, scope: None },
        resource: "https://mcp.test/mcp".into(),
    }
}

#[test]
fn a_token_request_that_hangs_ends_at_its_time_limit() {
    let (server, clock) = (Silent::default(), Impatient::default());
    let err = pollster::block_on(redeem(&server, &clock, "https://auth.test/token", &Client::public("c"), "grant_type=refresh_token", 0, None)).unwrap_err();
    assert!(err.0.contains("https://auth.test/token") && err.0.contains("did not answer within 20 s"), "{}", err.0);
    assert_eq!(*clock.0.borrow(), [EXCHANGE_TIMEOUT_MS]);
    assert_eq!(*server.0.borrow(), ["https://auth.test/token"]);
}

#[test]
fn a_registration_that_hangs_ends_at_its_time_limit() {
    let (server, clock) = (Silent::default(), Impatient::default());
    let err = pollster::block_on(register(&server, &clock, "https://auth.test/register", "https://page.test/signed-in.html", &[])).unwrap_err();
    assert!(err.0.contains("https://auth.test/register") && err.0.contains("did not answer"), "{}", err.0);
}

#[test]
fn a_revocation_that_hangs_ends_at_its_time_limit_and_asks_nothing_more() {
    let (server, clock) = (Silent::default(), Impatient::default());
    let err = pollster::block_on(revoke(&server, &clock, &grant())).unwrap_err();
    assert!(err.0.contains("https://auth.test/revoke") && err.0.contains("did not answer"), "{}", err.0);
    // The refresh token's request hung: the access token's is not sent after it.
    assert_eq!(server.0.borrow().len(), 1);
    assert!(!err.0.contains("tok-"), "no token in the message: {}", err.0);
}
