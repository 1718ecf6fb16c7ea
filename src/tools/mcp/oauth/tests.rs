use super::*;

#[test]
fn a_bearer_challenge_names_its_metadata_and_scope() {
    let c = challenge(r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write", error="invalid_token", error_description="The \"token\" expired""#).unwrap();
    assert_eq!(c.resource_metadata.as_deref(), Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"));
    assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
    assert_eq!(c.error.as_deref(), Some("invalid_token"));
    assert_eq!(c.error_description.as_deref(), Some("The \"token\" expired"));
    // Unquoted values, another scheme first, and a bare Bearer.
    let c = challenge(r#"Basic realm="x", bearer error=insufficient_scope, scope=admin"#).unwrap();
    assert_eq!((c.error.as_deref(), c.scope.as_deref()), (Some("insufficient_scope"), Some("admin")));
    assert_eq!(challenge("Bearer"), Some(Challenge::default()));
    assert_eq!(challenge("Basic realm=\"x\""), None);
    // A quote never closed reads to the end, without a panic.
    assert_eq!(challenge("Bearer scope=\"a b").unwrap().scope.as_deref(), Some("a b"));
}

#[test]
fn metadata_is_looked_for_where_the_server_says_then_at_the_well_known_addresses() {
    let named = Challenge { resource_metadata: Some("https://m.example/prm".into()), ..Default::default() };
    assert_eq!(resource_metadata_urls("https://m.example/mcp", Some(&named)), ["https://m.example/prm"]);
    assert_eq!(
        resource_metadata_urls("https://M.example:443/public/mcp/?x=1", None),
        ["https://m.example/.well-known/oauth-protected-resource/public/mcp", "https://m.example/.well-known/oauth-protected-resource"]
    );
    assert_eq!(resource_metadata_urls("http://127.0.0.1:3000", None), ["http://127.0.0.1:3000/.well-known/oauth-protected-resource"]);
    assert!(resource_metadata_urls("not a url", None).is_empty());
    assert_eq!(
        auth_server_metadata_urls("https://auth.example.com/tenant1"),
        [
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
            "https://auth.example.com/.well-known/openid-configuration/tenant1",
            "https://auth.example.com/tenant1/.well-known/openid-configuration"
        ]
    );
    assert_eq!(auth_server_metadata_urls("https://auth.example.com/"), ["https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"]);
}

#[test]
fn resource_metadata_must_speak_for_this_server() {
    let body = r#"{"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"], "scopes_supported": ["read", "write"]}"#;
    let read = read_resource_metadata(body, "https://MCP.example.com/mcp/").unwrap();
    assert_eq!(read.authorization_servers, ["https://auth.example.com"]);
    assert_eq!(scopes(None, &read).as_deref(), Some("read write"));
    let asked = Challenge { scope: Some("read".into()), ..Default::default() };
    assert_eq!(scopes(Some(&asked), &read).as_deref(), Some("read"), "the challenge's scope first");
    assert!(read_resource_metadata(body, "https://evil.example/mcp").unwrap_err().0.contains("not used"));
    // Metadata for an address that holds the server's (its origin, at the root well-known
    // address) speaks for it; a sibling path or a longer name does not.
    let origin = r#"{"resource": "https://mcp.example.com", "authorization_servers": ["https://auth.example.com"]}"#;
    assert!(read_resource_metadata(origin, "https://mcp.example.com/mcp").is_ok());
    let sibling = r#"{"resource": "https://mcp.example.com/other", "authorization_servers": ["https://auth.example.com"]}"#;
    assert!(read_resource_metadata(sibling, "https://mcp.example.com/mcp").is_err());
    let longer = r#"{"resource": "https://mcp.example.com/mc", "authorization_servers": ["https://auth.example.com"]}"#;
    assert!(read_resource_metadata(longer, "https://mcp.example.com/mcp").is_err());
    assert!(read_resource_metadata(body, "https://mcp.example.com").is_err(), "not the other way round");
    assert!(read_resource_metadata(r#"{"resource": "https://mcp.example.com/mcp"}"#, "https://mcp.example.com/mcp").unwrap_err().0.contains("no authorization server"));
    assert!(read_resource_metadata("<html>", "https://mcp.example.com/mcp").unwrap_err().0.contains("not a JSON object"));
}

fn server_metadata(issuer: &str, methods: &str) -> String {
    format!(
        r#"{{"issuer": "{issuer}", "authorization_endpoint": "{issuer}/authorize", "token_endpoint": "{issuer}/token", "registration_endpoint": "{issuer}/register", "revocation_endpoint": "{issuer}/revoke", "code_challenge_methods_supported": {methods}}}"#
    )
}

#[test]
fn an_authorization_server_must_be_the_issuer_asked_for_and_offer_s256() {
    let issuer = "https://auth.example.com";
    let read = read_auth_server(&server_metadata(issuer, r#"["plain", "S256"]"#), issuer).unwrap();
    assert_eq!(read.token_endpoint, "https://auth.example.com/token");
    assert_eq!(read.registration_endpoint.as_deref(), Some("https://auth.example.com/register"));
    assert!(read_auth_server(&server_metadata("https://other.example", r#"["S256"]"#), issuer).unwrap_err().0.contains("wrong issuer"));
    assert!(read_auth_server(&server_metadata(issuer, r#"["plain"]"#), issuer).unwrap_err().0.contains("S256"));
    let no_methods = server_metadata(issuer, "null");
    assert!(read_auth_server(&no_methods, issuer).unwrap_err().0.contains("PKCE"), "absent means no PKCE: refused");
    let no_token = format!(r#"{{"issuer": "{issuer}", "authorization_endpoint": "{issuer}/a", "code_challenge_methods_supported": ["S256"]}}"#);
    assert!(read_auth_server(&no_token, issuer).unwrap_err().0.contains("no authorization or token endpoint"));
}

#[test]
fn pkce_follows_rfc_7636_and_the_sign_in_carries_everything_asked() {
    // RFC 7636, appendix B.
    let random: [u8; 32] = [116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121];
    let pair = pkce(&random);
    assert_eq!(pair.verifier, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
    assert_eq!(pair.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    assert_eq!(state(&[0; 16]).len(), 22);
    let server = read_auth_server(&server_metadata("https://auth.example.com", r#"["S256"]"#), "https://auth.example.com").unwrap();
    let sign_in = SignIn { client_id: "page-1", redirect_uri: "https://me.github.io/tl/oauth.html", resource: "https://mcp.example.com/mcp", scope: Some("read write") };
    let url = authorization_url(&server, &sign_in, &pair, "st-1");
    assert_eq!(
        url,
        "https://auth.example.com/authorize?response_type=code&client_id=page-1&redirect_uri=https%3A%2F%2Fme.github.io%2Ftl%2Foauth.html&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=st-1&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&scope=read%20write"
    );
    let body = code_body("c0de", &pair.verifier, &sign_in);
    assert!(body.starts_with("grant_type=authorization_code&code=c0de&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&client_id=page-1&"), "{body}");
    assert!(body.ends_with("&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"), "{body}");
    assert_eq!(refresh_body("r 1", "page-1", "https://m.example"), "grant_type=refresh_token&refresh_token=r%201&client_id=page-1&resource=https%3A%2F%2Fm.example");
}

#[test]
fn the_callback_is_taken_only_with_the_state_sent() {
    assert_eq!(callback("?code=abc%2B1&state=s1", "s1").unwrap(), "abc+1");
    assert!(callback("code=abc&state=s2", "s1").unwrap_err().0.contains("state this page did not send"));
    assert!(callback("code=abc", "s1").is_err());
    assert_eq!(callback("error=access_denied&error_description=You+said+no&state=s1", "s1").unwrap_err().0, "The sign-in was refused: You said no.");
    assert!(callback("error=server_error&state=s1", "s1").unwrap_err().0.contains("(server_error)"));
    assert!(callback("state=s1&code=", "s1").unwrap_err().0.contains("without a code"));
    assert_eq!(decode("%zz%4"), "%zz%4", "a broken escape stays as it is");
}

#[test]
fn registration_asks_for_a_public_client_and_reads_its_id() {
    let body: Value = serde_json::from_str(&registration_body("https://me.github.io/tl/oauth.html", "Thoughtline", AuthMethod::None)).unwrap();
    assert_eq!(body["redirect_uris"][0], "https://me.github.io/tl/oauth.html");
    assert_eq!(body["token_endpoint_auth_method"], "none");
    assert_eq!(body["grant_types"], serde_json::json!(["authorization_code", "refresh_token"]));
    assert_eq!(read_registration(r#"{"client_id": "c-9", "client_id_issued_at": 1}"#, AuthMethod::None).unwrap(), Client::public("c-9"));
    assert!(read_registration("{}", AuthMethod::None).is_err());
    // A secret issued to a public client is not used.
    assert_eq!(read_registration(r#"{"client_id": "c-9", "client_secret": "s"}"#, AuthMethod::None).unwrap(), Client::public("c-9"));
}

#[test]
fn a_server_that_takes_no_public_clients_gets_a_confidential_one_proving_itself_as_it_registered() {
    let methods = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(registration_method(&methods(&[])), AuthMethod::None, "a server that says nothing");
    assert_eq!(registration_method(&methods(&["client_secret_basic", "none"])), AuthMethod::None);
    assert_eq!(registration_method(&methods(&["client_secret_post", "client_secret_basic"])), AuthMethod::ClientSecretBasic);
    assert_eq!(registration_method(&methods(&["client_secret_post"])), AuthMethod::ClientSecretPost);
    let body: Value = serde_json::from_str(&registration_body("https://p.example/cb", "Thoughtline", AuthMethod::ClientSecretPost)).unwrap();
    assert_eq!(body["token_endpoint_auth_method"], "client_secret_post");

    // Basic: the form names the client, the header proves it (each part form-encoded first).
    let basic = read_registration(r#"{"client_id": "c 1", "client_secret": "s:cr&t"}"#, AuthMethod::ClientSecretBasic).unwrap();
    assert_eq!(basic.method, AuthMethod::ClientSecretBasic);
    let (form, header) = basic.authenticate(refresh_body("rt", "c 1", "https://m.example"));
    assert!(!form.contains("client_secret"), "{form}");
    let pair = base64::engine::general_purpose::STANDARD.decode(header.unwrap().strip_prefix("Basic ").unwrap()).unwrap();
    assert_eq!(String::from_utf8(pair).unwrap(), "c%201:s%3Acr%26t");
    // Post: the secret in the form, no header. The answer's own method wins over the one asked.
    let post = read_registration(r#"{"client_id": "c", "client_secret": "x y", "token_endpoint_auth_method": "client_secret_post"}"#, AuthMethod::ClientSecretBasic).unwrap();
    assert_eq!(post.authenticate("client_id=c".into()), ("client_id=c&client_secret=x%20y".to_string(), None));
    // A confidential registration without its secret cannot be used.
    assert!(read_registration(r#"{"client_id": "c"}"#, AuthMethod::ClientSecretBasic).unwrap_err().0.contains("no client secret"));
    // The secret never shows in a debug print.
    assert!(!format!("{post:?}").contains("x y"));

    // A client registered beforehand, as entered: Basic where the server takes it or says
    // nothing, the form where it takes only that; no secret, or a server of public clients
    // only: public.
    assert_eq!(Client::entered(" pre ", " s ", &methods(&["client_secret_basic"])), Client { id: "pre".into(), secret: Some("s".into()), method: AuthMethod::ClientSecretBasic });
    assert_eq!(Client::entered("pre", "s", &methods(&[])).method, AuthMethod::ClientSecretBasic);
    assert_eq!(Client::entered("pre", "s", &methods(&["none", "client_secret_post"])).method, AuthMethod::ClientSecretPost);
    assert_eq!(Client::entered("pre", "s", &methods(&["none"])), Client::public("pre"));
    assert_eq!(Client::entered("pre", "", &methods(&["client_secret_basic"])), Client::public("pre"));
}

#[test]
fn tokens_expire_are_refreshed_ahead_and_a_refusal_says_why() {
    let t = read_tokens(200, r#"{"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1", "scope": "read"}"#, 1_000, None).unwrap();
    assert_eq!(t.expires_at_ms, Some(3_601_000));
    assert!(!t.due(3_601_000 - REFRESH_AHEAD_MS - 1));
    assert!(t.due(3_601_000 - REFRESH_AHEAD_MS));
    assert!(!format!("{t:?}").contains("at-1") && !format!("{t:?}").contains("rt-1"), "a token never shows in a debug line");
    // A refresh answered without a new refresh token keeps the old one; no lifetime: never due.
    let again = read_tokens(200, r#"{"access_token": "at-2", "token_type": "bearer"}"#, 5, Some("rt-1")).unwrap();
    assert_eq!((again.refresh.as_deref(), again.expires_at_ms), (Some("rt-1"), None));
    assert!(!again.due(u64::MAX - REFRESH_AHEAD_MS));
    let refused = read_tokens(400, r#"{"error": "invalid_grant", "error_description": "Refresh token revoked"}"#, 0, None).unwrap_err();
    assert_eq!(refused.0, "The authorization server refused the token request (invalid_grant): Refresh token revoked.");
    assert!(read_tokens(502, "<html>", 0, None).unwrap_err().0.contains("HTTP 502"));
    assert!(read_tokens(200, r#"{"token_type": "Bearer"}"#, 0, None).unwrap_err().0.contains("without an access token"));
    assert!(read_tokens(200, r#"{"access_token": "x", "token_type": "DPoP"}"#, 0, None).unwrap_err().0.contains("not a Bearer"));
    assert_eq!(revocation_body("rt 1", "refresh_token", "c"), "token=rt%201&token_type_hint=refresh_token&client_id=c");
}

#[test]
fn a_client_id_metadata_document_is_used_only_when_it_names_itself_and_the_redirect() {
    let url = "https://me.github.io/tl/oauth-client.json";
    let redirect = "https://me.github.io/tl/signed-in.html";
    let good = format!(r#"{{"client_id": "{url}", "client_name": "Thoughtline", "redirect_uris": ["{redirect}"]}}"#);
    assert_eq!(read_client_document(&good, url, redirect).unwrap(), url);
    assert!(read_client_document(&good, "http://me.github.io/tl/oauth-client.json", redirect).unwrap_err().0.contains("HTTPS"));
    assert!(read_client_document(&good, url, "https://me.github.io/other/signed-in.html").unwrap_err().0.contains("redirect_uris"));
    let other = good.replace(url, "https://evil.example/c.json");
    assert!(read_client_document(&other, url, redirect).unwrap_err().0.contains("does not name its own address"));
    assert!(read_client_document("<html>", url, redirect).is_err());
}
