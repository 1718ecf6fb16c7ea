use super::*;
use crate::tools::mcp::oauth::Challenge;

const MCP: &str = "https://mcp.example.com/mcp";

fn pending(state: &str, started_ms: u64) -> Pending {
    Pending {
        server: MCP.into(),
        state: state.into(),
        verifier: "verifier-123".into(),
        client_id: "c-1".into(),
        client_secret: None,
        auth_method: AuthMethod::None,
        redirect_uri: "https://me.github.io/tl/".into(),
        issuer: "https://auth.example.com".into(),
        token_endpoint: "https://auth.example.com/token".into(),
        revocation_endpoint: None,
        resource: MCP.into(),
        started_ms,
    }
}

fn tokens(until: Option<u64>) -> Grant {
    pending("-", 0).grant(Tokens { access: "at-1".into(), refresh: Some("rt-1".into()), expires_at_ms: until, scope: None })
}

#[test]
fn a_sign_in_goes_from_needed_to_signed_in_and_says_so() {
    let mut s = SignIns::default();
    assert_eq!(s.state(MCP), AuthState::Open);
    s.needs(MCP, "the server asks for a sign-in");
    assert_eq!(s.state("https://MCP.example.com/mcp/").says(0), "Needs sign-in: the server asks for a sign-in");
    s.start(pending("st-1", 1_000));
    assert_eq!(s.state(MCP), AuthState::SigningIn);
    assert!(s.secrets().contains(&"verifier-123".to_string()), "the verifier is masked too");
    let (done, code) = s.came_back("code=abc&state=st-1", 2_000).unwrap();
    assert_eq!((done.token_endpoint.as_str(), code.as_str()), ("https://auth.example.com/token", "abc"));
    s.signed_in(MCP, tokens(Some(2_000 + 30 * 60_000)));
    assert_eq!(s.state(MCP).says(2_000), "Signed in, for 30 more minutes (renewed before then).");
    assert_eq!(s.state(MCP).says(2_000 + 29 * 60_000 + 1), "Signed in, for 1 more minute (renewed before then).");
    assert!(!format!("{s:?}").contains("at-1") && !format!("{s:?}").contains("verifier-123"), "no secret in a debug line");
}

#[test]
fn a_return_the_page_did_not_ask_for_is_refused() {
    let mut s = SignIns::default();
    s.start(pending("st-1", 0));
    assert!(s.came_back("code=abc&state=other", 1).unwrap_err().contains("did not send"));
    assert!(s.came_back("code=abc", 1).unwrap_err().contains("did not send"));
    assert_eq!(s.state(MCP), AuthState::SigningIn, "the real sign-in still waits");
    // Too late.
    assert!(s.came_back("code=abc&state=st-1", SIGN_IN_TTL_MS + 1).unwrap_err().contains("more than 10 minutes"));
    assert!(matches!(s.state(MCP), AuthState::NeedsSignIn(_)));
    // Used once.
    s.start(pending("st-2", 0));
    assert!(s.came_back("code=abc&state=st-2", 1).is_ok());
    assert!(s.came_back("code=abc&state=st-2", 1).is_err(), "a return replayed is refused");
    // Refused at the server: said as the server's state.
    s.start(pending("st-3", 0));
    assert!(s.came_back("error=access_denied&state=st-3", 1).unwrap_err().contains("refused"));
    assert_eq!(s.state(MCP).says(0), "Sign-in refused: The sign-in was refused.");
}

#[test]
fn a_token_goes_only_to_its_own_server_s_origin_and_only_with_remember() {
    let mut s = SignIns::default();
    s.signed_in(MCP, tokens(None));
    assert_eq!(s.bearer_for(MCP, "https://mcp.example.com/mcp"), Some("at-1"));
    assert_eq!(s.bearer_for(MCP, "https://mcp.example.com:443/other"), Some("at-1"), "the same origin");
    assert_eq!(s.bearer_for(MCP, "https://evil.example/mcp"), None);
    assert_eq!(s.bearer_for(MCP, "http://mcp.example.com/mcp"), None, "not over plain HTTP to the same host");
    assert_eq!(s.bearer_for("https://other.example/mcp", "https://other.example/mcp"), None, "another server has none");
    let mut back = SignIns::default();
    back.restore(&s.kept(|_| false).unwrap(), |_| true).unwrap();
    assert_eq!(back.bearer_for(MCP, MCP), None, "not remembered: not kept");
    back.restore(&s.kept(|_| true).unwrap(), |_| true).unwrap();
    assert_eq!(back.bearer_for(MCP, MCP), Some("at-1"));
    assert!(matches!(back.state(MCP), AuthState::SignedIn { .. }));
    let mut forgot = SignIns::default();
    forgot.restore(&s.kept(|_| true).unwrap(), |_| false).unwrap();
    assert_eq!(forgot.bearer_for(MCP, MCP), None, "Remember untied since: not taken back");
    assert_eq!(forgot.restore(r#"{"version": 9, "grants": []}"#, |_| true), Err(KeptUnread::Newer));
    assert_eq!(forgot.restore("{", |_| true), Err(KeptUnread::Damaged));
    assert_eq!(s.secrets(), ["at-1", "rt-1"]);
}

#[test]
fn refresh_is_due_before_expiry_and_a_401_or_sign_out_forgets_the_tokens() {
    let mut s = SignIns::default();
    s.signed_in(MCP, tokens(Some(100_000)));
    assert!(s.due(MCP, 100_000 - crate::tools::mcp::oauth::REFRESH_AHEAD_MS - 1).is_none());
    assert!(s.due(MCP, 100_000 - crate::tools::mcp::oauth::REFRESH_AHEAD_MS).is_some());
    assert_eq!(s.sign_out(MCP).map(|g| g.tokens.access), Some("at-1".into()));
    assert_eq!(s.state(MCP).says(0), "Needs sign-in: signed out");
    assert_eq!(s.bearer_for(MCP, MCP), None);
    assert_eq!(s.sign_out(MCP), None);
    s.signed_in(MCP, tokens(None));
    s.needs(MCP, "the token was revoked");
    assert_eq!(s.bearer_for(MCP, MCP), None, "a 401 means the token no longer serves");
    s.signed_in(MCP, tokens(None));
    s.refused(MCP, "invalid_grant");
    assert!(s.secrets().is_empty());
}

#[test]
fn a_401_refreshes_once_then_asks_for_a_sign_in() {
    let mut s = SignIns::default();
    let challenge = Challenge { error_description: Some("The access token expired".into()), ..Challenge::default() };
    assert_eq!(s.after_401(MCP, None, None), After401::SignIn, "never signed in");
    assert_eq!(s.state(MCP).says(0), "Needs sign-in: the server asks who you are");
    s.signed_in(MCP, tokens(None));
    assert_eq!(s.after_401(MCP, Some("older"), None), After401::Again, "a newer token is there");
    let After401::Refresh(grant) = s.after_401(MCP, Some("at-1"), Some(challenge.clone())) else { panic!("a refresh first") };
    assert_eq!(SignIns::refresh_body(&grant).unwrap(), "grant_type=refresh_token&refresh_token=rt-1&client_id=c-1&resource=https%3A%2F%2Fmcp.example.com%2Fmcp");
    assert_eq!(s.challenge(MCP), Some(challenge.clone()), "kept for discovery");
    s.refreshed(MCP, Tokens { access: "at-2".into(), refresh: None, expires_at_ms: None, scope: None });
    assert_eq!(s.bearer_for(MCP, MCP), Some("at-2"));
    assert_eq!(s.after_401(MCP, Some("at-2"), Some(challenge)), After401::SignIn, "no refresh token left: sign in");
    assert_eq!(s.state(MCP).says(0), "Needs sign-in: The access token expired");
    s.needs(MCP, "renewing the access failed");
    assert_eq!(s.after_401(MCP, None, Some(Challenge { error_description: Some("Missing Authorization header".into()), ..Challenge::default() })), After401::SignIn);
    assert_eq!(s.state(MCP).says(0), "Needs sign-in: renewing the access failed", "the reason the token went is kept");
}

#[test]
fn a_sign_in_begins_with_pkce_a_state_that_says_where_it_returns_and_checks_the_issuer() {
    use crate::tools::mcp::oauth::{AuthServer, Discovered};
    let found = Discovered {
        resource: MCP.into(),
        scope: Some("mcp:tools".into()),
        server: AuthServer {
            issuer: "https://auth.example.com".into(),
            authorization_endpoint: "https://auth.example.com/authorize".into(),
            token_endpoint: "https://auth.example.com/token".into(),
            registration_endpoint: None,
            revocation_endpoint: Some("https://auth.example.com/revoke".into()),
            scopes_supported: vec![],
            auth_methods: vec![],
            client_documents: false,
        },
    };
    let mut s = SignIns::default();
    let url = s.begin(MCP, &found, Begin { client: &Client::public("c-9"), redirect_uri: "https://me.github.io/tl/signed-in.html", leaves: false }, &[7; 48], 5);
    let pending = s.pending(MCP).unwrap().clone();
    assert!(pending.state.starts_with("w.") && !left_the_page(&pending.state));
    assert!(url.starts_with("https://auth.example.com/authorize?response_type=code&client_id=c-9&redirect_uri=https%3A%2F%2Fme.github.io%2Ftl%2Fsigned-in.html&code_challenge="));
    assert!(url.contains("&code_challenge_method=S256&") && url.contains("&resource=https%3A%2F%2Fmcp.example.com%2Fmcp") && url.ends_with("&scope=mcp%3Atools"));
    assert!(!url.contains(&pending.verifier), "the verifier never leaves the page");
    assert_eq!(s.state(MCP), AuthState::SigningIn);
    // A return from another issuer (a mix-up) is refused.
    let query = format!("code=abc&state={}&iss=https%3A%2F%2Fevil.example", pending.state);
    assert!(s.came_back(&query, 10).unwrap_err().contains("wrong issuer"));
    let url = s.begin(MCP, &found, Begin { client: &Client::public("c-9"), redirect_uri: "https://me.github.io/tl/signed-in.html", leaves: true }, &[8; 48], 5);
    let pending = s.pending(MCP).unwrap().clone();
    assert!(left_the_page(&pending.state) && url.contains(&pending.state));
    let query = format!("code=abc&state={}&iss=https%3A%2F%2Fauth.example.com", pending.state);
    let (back, code) = s.came_back(&query, 10).unwrap();
    assert_eq!(code, "abc");
    assert!(back.code_body(&code).contains(&format!("code_verifier={}", back.verifier)));
    assert_eq!(back.grant(tokens(None).tokens).revocation_endpoint.as_deref(), Some("https://auth.example.com/revoke"));
}

#[test]
fn runs_waiting_are_counted_per_server() {
    let mut s = SignIns::default();
    s.waiting(MCP, true);
    s.waiting("https://mcp.example.com/mcp/", true);
    assert_eq!(s.waited_on(), [MCP]);
    // Signed in: the runs go on at their next look, and no second sign-in is offered.
    s.signed_in(MCP, tokens(None));
    assert!(s.waited_on().is_empty());
    s.needs(MCP, "again");
    assert_eq!(s.waited_on(), [MCP]);
    s.waiting(MCP, false);
    assert_eq!(s.waited_on().len(), 1, "one run still waits");
    s.waiting(MCP, false);
    assert!(s.waited_on().is_empty());
}

#[test]
fn a_newer_page_s_record_is_never_written_over() {
    let mut s = SignIns::default();
    s.signed_in(MCP, tokens(None));
    assert!(s.kept(|_| true).is_some());
    let newer = r#"{"version":999,"grants":[]}"#;
    assert_eq!(s.restore(newer, |_| true), Err(KeptUnread::Newer));
    assert_eq!(s.kept(|_| true), None, "the newer record stays as it is");
    assert!(matches!(s.state(MCP), AuthState::SignedIn { .. }), "what is in memory still holds");
}

#[test]
fn one_renewal_at_a_time_per_server() {
    let mut s = SignIns::default();
    assert!(s.begin_renewal(MCP));
    assert!(!s.begin_renewal(MCP), "a second request waits for the first renewal");
    assert!(s.begin_renewal("https://other.example/mcp"), "another server renews on its own");
    assert!(s.renewing(MCP));
    s.end_renewal(MCP);
    assert!(!s.renewing(MCP) && s.begin_renewal(MCP));
}

#[test]
fn a_403_for_a_wider_scope_asks_for_a_new_sign_in_with_both_scopes_and_keeps_the_token_meanwhile() {
    let mut s = SignIns::default();
    let first = Challenge { scope: Some("mcp:basic".into()), ..Challenge::default() };
    assert_eq!(s.after_401(MCP, None, Some(first)), After401::SignIn);
    s.signed_in(MCP, tokens(None));
    let wider = Challenge { scope: Some("mcp:write mcp:basic".into()), error: Some("insufficient_scope".into()), ..Challenge::default() };
    // A token other than the grant's: the newer one may serve already.
    assert_eq!(s.after_401(MCP, Some("older"), Some(wider.clone())), After401::Again);
    // The grant's own token: no refresh (it would not widen anything), a sign-in.
    assert_eq!(s.after_401(MCP, Some("at-1"), Some(wider)), After401::SignIn);
    assert_eq!(s.challenge(MCP).and_then(|c| c.scope).as_deref(), Some("mcp:basic mcp:write"), "what was asked before, and what is asked now");
    assert_eq!(s.state(MCP).says(0), "Needs sign-in: the server asks for more access than your sign-in gave (mcp:basic mcp:write)");
    assert_eq!(s.bearer_for(MCP, MCP), Some("at-1"), "the token still serves the rest");
    // The sign-in again is made as the client the page already is there, not a new one.
    assert_eq!(s.registered(MCP, "https://auth.example.com").map(|c| c.id), Some("c-1".to_string()));
    assert_eq!(s.registered(MCP, "https://other.example.com"), None, "another authorization server: registered anew");

    // Signed in at first with no scope asked (none named), the grant saying what it gave.
    let mut s = SignIns::default();
    let mut grant = tokens(None);
    grant.tokens.scope = Some("files:read".into());
    s.signed_in(MCP, grant);
    assert_eq!(s.after_401(MCP, Some("at-1"), Some(Challenge { scope: Some("files:write".into()), error: Some("insufficient_scope".into()), ..Challenge::default() })), After401::SignIn);
    assert_eq!(s.challenge(MCP).and_then(|c| c.scope).as_deref(), Some("files:read files:write"));
}

#[test]
fn a_sign_in_kept_by_an_older_page_without_a_client_secret_still_reads() {
    let older = r#"{"server":"https://mcp.example.com/mcp","state":"w.s","verifier":"v","client_id":"c-1","redirect_uri":"https://me.github.io/tl/","issuer":"https://auth.example.com","token_endpoint":"https://auth.example.com/token","revocation_endpoint":null,"resource":"https://mcp.example.com/mcp","started_ms":5}"#;
    let read: Pending = serde_json::from_str(older).unwrap();
    assert_eq!((read.client_secret, read.auth_method), (None, AuthMethod::None));
    let grant: Grant = serde_json::from_str(r#"{"tokens":{"access":"at","refresh":null,"expires_at_ms":null},"client_id":"c-1","issuer":"i","token_endpoint":"t","revocation_endpoint":null,"resource":"r"}"#).unwrap();
    assert_eq!((grant.client_secret, grant.auth_method), (None, AuthMethod::None));
}
