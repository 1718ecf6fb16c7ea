use super::*;

const MCP: &str = "https://mcp.example.com/mcp";

fn pending(state: &str, started_ms: u64) -> Pending {
    Pending {
        server: MCP.into(),
        state: state.into(),
        verifier: "verifier-123".into(),
        client_id: "c-1".into(),
        redirect_uri: "https://me.github.io/tl/".into(),
        token_endpoint: "https://auth.example.com/token".into(),
        resource: MCP.into(),
        started_ms,
    }
}

fn tokens(until: Option<u64>) -> Tokens {
    Tokens { access: "at-1".into(), refresh: Some("rt-1".into()), expires_at_ms: until, scope: None }
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
    assert!(s.kept(false).is_empty());
    assert_eq!(s.kept(true).len(), 1);
    assert_eq!(s.secrets(), ["at-1", "rt-1"]);
}

#[test]
fn refresh_is_due_before_expiry_and_a_401_or_sign_out_forgets_the_tokens() {
    let mut s = SignIns::default();
    s.signed_in(MCP, tokens(Some(100_000)));
    assert!(s.due(MCP, 100_000 - crate::tools::mcp::oauth::REFRESH_AHEAD_MS - 1).is_none());
    assert!(s.due(MCP, 100_000 - crate::tools::mcp::oauth::REFRESH_AHEAD_MS).is_some());
    assert_eq!(s.sign_out(MCP).map(|t| t.access), Some("at-1".into()));
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
