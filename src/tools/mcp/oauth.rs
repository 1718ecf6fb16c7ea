//! Signing in to an MCP server that needs it, as the MCP authorization specification
//! (2025-11-25) asks of a client: OAuth 2.1 with PKCE, the server's authorization server found
//! from what the server says about itself. Pure: what to fetch, what to send and how to read
//! the answers; the HTTP goes through `net::Fetch` and the browser window elsewhere.
//!
//! The steps, in order:
//! 1. a request answered 401: its `WWW-Authenticate` challenge (`challenge`) may name the
//!    server's protected resource metadata (RFC 9728) and the scope it wants;
//! 2. that document, or the well-known addresses when the challenge names none
//!    (`resource_metadata_urls`), read by `read_resource_metadata`: which authorization servers
//!    issue tokens for it (the `resource` it names must be the server's own address);
//! 3. the first authorization server's metadata (RFC 8414, then OpenID Connect discovery:
//!    `auth_server_metadata_urls`), read by `read_auth_server`: its issuer must be the one asked
//!    for, and it must offer PKCE with S256, or the client refuses to go on;
//! 4. a client ID: one the person entered, or dynamic registration (RFC 7591,
//!    `registration_body`, `read_registration`);
//! 5. the person signs in at `authorization_url` (PKCE S256 (`pkce`), `state`, the `resource`
//!    indicator of RFC 8707, the scopes asked for), and comes back with a code (`callback`, which
//!    refuses a `state` that is not the one sent);
//! 6. the code is exchanged for tokens (`code_body`, `read_tokens`), which are refreshed before
//!    they expire (`Tokens::due`, `refresh_body`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;
use sha2::Digest;

use crate::net::encode_component;

mod client;
mod discover;
mod exchange;
pub use client::{read_registration, registration_method, AuthMethod, Client};
pub use discover::{discover, Discovered};
pub use exchange::{redeem, register, revoke};

/// What went wrong, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError(pub String);

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn fail<T>(why: impl Into<String>) -> Result<T, OAuthError> {
    Err(OAuthError(why.into()))
}

/// A server's `WWW-Authenticate: Bearer …` challenge.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

/// Reads the Bearer challenge of a `WWW-Authenticate` header (RFC 6750, section 3): its
/// parameters, quoted or not. `None` when the header has no Bearer challenge.
pub fn challenge(header: &str) -> Option<Challenge> {
    let at = header.to_ascii_lowercase().find("bearer")?;
    let mut rest = &header[at + "bearer".len()..];
    let mut found = Challenge::default();
    loop {
        rest = rest.trim_start_matches([' ', ',', '\t']);
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim().to_ascii_lowercase();
        // Another scheme's challenge begins: a name with a space in it.
        if name.contains(' ') {
            break;
        }
        rest = rest[eq + 1..].trim_start();
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, next)) = chars.next() {
                            value.push(next);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            rest = &quoted[end.min(quoted.len())..];
            value
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let value = rest[..end].trim().to_string();
            rest = &rest[end..];
            value
        };
        match name.as_str() {
            "resource_metadata" => found.resource_metadata = Some(value),
            "scope" => found.scope = Some(value),
            "error" => found.error = Some(value),
            "error_description" => found.error_description = Some(value),
            _ => {}
        }
    }
    Some(found)
}

/// `scheme://host[:port]` and the path of an http(s) URL (without query or fragment).
fn split(url: &str) -> Option<(String, String)> {
    let origin = crate::net::origin(url)?;
    let after = url.trim().split_once("://")?.1;
    let path = after.find('/').map_or("", |i| &after[i..]);
    let path = path.split(['?', '#']).next().unwrap_or("").trim_end_matches('/');
    Some((origin, path.to_string()))
}

/// The server's address as the `resource` it is known by (RFC 8707): its origin, lower-cased,
/// and its path, without query, fragment or a trailing slash.
pub fn canonical_resource(server: &str) -> String {
    split(server).map_or_else(|| server.trim().to_string(), |(origin, path)| format!("{origin}{path}"))
}

/// Where the server's protected resource metadata is: the address its challenge named, else
/// the well-known address with the server's path, then the one at its root (RFC 9728).
pub fn resource_metadata_urls(server: &str, challenge: Option<&Challenge>) -> Vec<String> {
    if let Some(named) = challenge.and_then(|c| c.resource_metadata.clone()) {
        return vec![named];
    }
    let Some((origin, path)) = split(server) else { return Vec::new() };
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls
}

/// What a client reads of a protected resource's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
}

fn strings(value: &Value, field: &str) -> Vec<String> {
    value.get(field).and_then(Value::as_array).map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn text(value: &Value, field: &str) -> Option<String> {
    value.get(field).and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty())
}

fn object(body: &str, what: &str) -> Result<Value, OAuthError> {
    match serde_json::from_str::<Value>(body) {
        Ok(value) if value.is_object() => Ok(value),
        _ => fail(format!("{what} is not a JSON object.")),
    }
}

/// Reads protected resource metadata fetched for `server`. The `resource` it names must be the
/// server's own address, or an address that holds it (its origin, a path above it): a document
/// that speaks for another resource is not used.
pub fn read_resource_metadata(body: &str, server: &str) -> Result<ResourceMetadata, OAuthError> {
    let value = object(body, "The server's protected resource metadata")?;
    let resource = text(&value, "resource").unwrap_or_default();
    let ours = canonical_resource(server);
    let theirs = canonical_resource(&resource);
    if !(theirs == ours || (!theirs.is_empty() && ours.starts_with(&format!("{theirs}/")))) {
        return fail(format!("The server's protected resource metadata is for {resource:?}, not for {ours}: it is not used."));
    }
    let authorization_servers = strings(&value, "authorization_servers");
    if authorization_servers.is_empty() {
        return fail("The server's protected resource metadata names no authorization server to sign in with.");
    }
    Ok(ResourceMetadata { resource, authorization_servers, scopes_supported: strings(&value, "scopes_supported") })
}

/// Where an authorization server's metadata is, in the order the specification gives: OAuth 2.0
/// (RFC 8414) then OpenID Connect discovery, each with the issuer's path inserted after the
/// well-known part, and OpenID Connect's path appended as well.
pub fn auth_server_metadata_urls(issuer: &str) -> Vec<String> {
    let Some((origin, path)) = split(issuer) else { return Vec::new() };
    if path.is_empty() {
        return vec![format!("{origin}/.well-known/oauth-authorization-server"), format!("{origin}/.well-known/openid-configuration")];
    }
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ]
}

/// What a client reads of an authorization server's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub revocation_endpoint: Option<String>,
    pub scopes_supported: Vec<String>,
    /// How it takes clients to prove themselves at its token endpoint, when it says.
    pub auth_methods: Vec<String>,
    /// It takes a client ID metadata document's address as a client ID.
    pub client_documents: bool,
}

/// Reads an authorization server's metadata fetched for `issuer`. Its `issuer` must be the one
/// asked for (a server answering for another is refused), and it must offer PKCE with S256: a
/// server whose metadata does not say so is refused, as the specification requires.
pub fn read_auth_server(body: &str, issuer: &str) -> Result<AuthServer, OAuthError> {
    let value = object(body, "The authorization server's metadata")?;
    let said = text(&value, "issuer").unwrap_or_default();
    if said.trim_end_matches('/') != issuer.trim_end_matches('/') {
        return fail(format!("The authorization server's metadata names the issuer {said:?}, not {issuer:?}: it is refused (wrong issuer)."));
    }
    if !strings(&value, "code_challenge_methods_supported").iter().any(|m| m == "S256") {
        return fail(format!("The authorization server {issuer} does not offer PKCE with S256, which MCP requires: signing in there is refused."));
    }
    let endpoint = |field: &str| text(&value, field).filter(|url| crate::net::origin(url).is_some());
    let (Some(authorization_endpoint), Some(token_endpoint)) = (endpoint("authorization_endpoint"), endpoint("token_endpoint")) else {
        return fail(format!("The authorization server {issuer} names no authorization or token endpoint."));
    };
    Ok(AuthServer {
        issuer: said,
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: endpoint("registration_endpoint"),
        revocation_endpoint: endpoint("revocation_endpoint"),
        scopes_supported: strings(&value, "scopes_supported"),
        auth_methods: strings(&value, "token_endpoint_auth_methods_supported"),
        client_documents: value.get("client_id_metadata_document_supported").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// The page's client ID metadata document, fetched from `url` beside the page: its address is
/// the client ID when the document says so itself (its `client_id` is that address), names
/// `redirect_uri`, and is served over HTTPS, as the specification requires.
pub fn read_client_document(body: &str, url: &str, redirect_uri: &str) -> Result<String, OAuthError> {
    if !url.starts_with("https://") {
        return fail("A client ID metadata document must be served over HTTPS.");
    }
    let value = object(body, "The page's client ID metadata document")?;
    if text(&value, "client_id").as_deref() != Some(url) {
        return fail(format!("The page's client ID metadata document does not name its own address ({url}) as its client_id."));
    }
    if !strings(&value, "redirect_uris").iter().any(|r| r == redirect_uri) {
        return fail(format!("The page's client ID metadata document does not list {redirect_uri} among its redirect_uris."));
    }
    Ok(url.to_string())
}

/// A PKCE pair: the verifier kept by the page, the S256 challenge sent with the sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

/// A PKCE pair from 32 random bytes (RFC 7636: a verifier of 43 characters).
pub fn pkce(random: &[u8; 32]) -> Pkce {
    let verifier = URL_SAFE_NO_PAD.encode(random);
    let challenge = URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
    Pkce { verifier, challenge }
}

/// A `state` from 16 random bytes.
pub fn state(random: &[u8; 16]) -> String {
    URL_SAFE_NO_PAD.encode(random)
}

/// The scopes to ask for: those the server's challenge named, else those its metadata lists.
pub fn scopes(challenge: Option<&Challenge>, resource: &ResourceMetadata) -> Option<String> {
    challenge.and_then(|c| c.scope.clone()).or_else(|| (!resource.scopes_supported.is_empty()).then(|| resource.scopes_supported.join(" ")))
}

/// What a sign-in asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignIn<'a> {
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    pub resource: &'a str,
    pub scope: Option<&'a str>,
}

/// The address the person signs in at.
pub fn authorization_url(server: &AuthServer, sign_in: &SignIn<'_>, pkce: &Pkce, state: &str) -> String {
    let mut url = server.authorization_endpoint.clone();
    url.push(if url.contains('?') { '&' } else { '?' });
    url.push_str(&form(&[
        ("response_type", "code"),
        ("client_id", sign_in.client_id),
        ("redirect_uri", sign_in.redirect_uri),
        ("code_challenge", &pkce.challenge),
        ("code_challenge_method", "S256"),
        ("state", state),
        ("resource", sign_in.resource),
    ]));
    if let Some(scope) = sign_in.scope {
        url.push_str("&scope=");
        url.push_str(&encode_component(scope));
    }
    url
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}={}", encode_component(v))).collect::<Vec<_>>().join("&")
}

/// What the page came back with from the sign-in (the callback's query), checked against the
/// `state` it sent: the code, or why there is none.
pub fn callback(query: &str, expected_state: &str) -> Result<String, OAuthError> {
    callback_from(query, expected_state, None)
}

/// `callback`, and the `iss` the authorization server put in its answer (RFC 9207) checked
/// against the issuer the sign-in went to: an answer from another server is refused (a mix-up).
pub fn callback_from(query: &str, expected_state: &str, issuer: Option<&str>) -> Result<String, OAuthError> {
    let params: Vec<(String, String)> = query.trim_start_matches('?').split('&').filter_map(|p| p.split_once('=')).map(|(k, v)| (decode(k), decode(v))).collect();
    let get = |name: &str| params.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    if get("state").as_deref() != Some(expected_state) {
        return fail("The sign-in came back with a state this page did not send: it is ignored (it may not be yours).");
    }
    if let (Some(said), Some(issuer)) = (get("iss"), issuer) {
        if said.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return fail(format!("The sign-in came back from {said:?}, not from {issuer:?}, where it went: it is refused (wrong issuer)."));
        }
    }
    if let Some(error) = get("error") {
        let said = get("error_description").map(|d| format!(": {d}")).unwrap_or_default();
        return fail(if error == "access_denied" { format!("The sign-in was refused{said}.") } else { format!("The sign-in failed ({error}){said}.") });
    }
    get("code").filter(|c| !c.is_empty()).map_or_else(|| fail("The sign-in came back without a code."), Ok)
}

/// `%XX` and `+` undone.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The body of a dynamic client registration (RFC 7591): this page, which signs in with PKCE,
/// as a public client unless the server takes none (`method`, from `registration_method`).
pub fn registration_body(redirect_uri: &str, client_name: &str, method: AuthMethod) -> String {
    serde_json::json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method.name(),
        "application_type": "web",
    })
    .to_string()
}

/// The token request for a sign-in's code.
pub fn code_body(code: &str, verifier: &str, sign_in: &SignIn<'_>) -> String {
    form(&[
        ("grant_type", "authorization_code"),
        ("code", code),
        ("code_verifier", verifier),
        ("client_id", sign_in.client_id),
        ("redirect_uri", sign_in.redirect_uri),
        ("resource", sign_in.resource),
    ])
}

/// The token request that refreshes `tokens`.
pub fn refresh_body(refresh_token: &str, client_id: &str, resource: &str) -> String {
    form(&[("grant_type", "refresh_token"), ("refresh_token", refresh_token), ("client_id", client_id), ("resource", resource)])
}

/// The tokens of a server the person signed in to. Secrets: kept only with "Remember", sent
/// only to that server, masked everywhere.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tokens {
    pub access: String,
    pub refresh: Option<String>,
    /// When the access token expires, in Unix milliseconds, when the server said.
    pub expires_at_ms: Option<u64>,
    pub scope: Option<String>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens").field("expires_at_ms", &self.expires_at_ms).field("scope", &self.scope).finish_non_exhaustive()
    }
}

/// How long before its expiry a token is refreshed.
pub const REFRESH_AHEAD_MS: u64 = 60_000;

impl Tokens {
    /// Whether to refresh before the next request.
    pub fn due(&self, now_ms: u64) -> bool {
        self.expires_at_ms.is_some_and(|at| now_ms + REFRESH_AHEAD_MS >= at)
    }
}

/// Reads a token answer at `now_ms`. A refresh answered without a new refresh token keeps the
/// one it was made with (`previous_refresh`). An error answer says the server's reason.
pub fn read_tokens(status: u16, body: &str, now_ms: u64, previous_refresh: Option<&str>) -> Result<Tokens, OAuthError> {
    let value = serde_json::from_str::<Value>(body).unwrap_or(Value::Null);
    if !(200..300).contains(&status) {
        let error = text(&value, "error").unwrap_or_else(|| format!("HTTP {status}"));
        let said = text(&value, "error_description").map(|d| format!(": {d}")).unwrap_or_default();
        return fail(format!("The authorization server refused the token request ({error}){said}."));
    }
    let Some(access) = text(&value, "access_token") else {
        return fail("The authorization server answered without an access token.");
    };
    if text(&value, "token_type").is_some_and(|t| !t.eq_ignore_ascii_case("bearer")) {
        return fail("The authorization server issued a token that is not a Bearer token, which MCP servers take.");
    }
    let expires_at_ms = value.get("expires_in").and_then(Value::as_u64).map(|s| now_ms + s.saturating_mul(1000));
    let refresh = text(&value, "refresh_token").or_else(|| previous_refresh.map(str::to_string));
    Ok(Tokens { access, refresh, expires_at_ms, scope: text(&value, "scope") })
}

/// A sign-in's outcome: the tokens, and what renewing and revoking them needs.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Grant {
    pub tokens: Tokens,
    pub client_id: String,
    /// The secret its registration issued, when it made this page a confidential client, and
    /// how the token endpoint takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default)]
    pub auth_method: AuthMethod,
    pub issuer: String,
    pub token_endpoint: String,
    pub revocation_endpoint: Option<String>,
    /// The server's address as the `resource` the tokens are for.
    pub resource: String,
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant").field("tokens", &self.tokens).field("client", &self.client()).field("issuer", &self.issuer).finish_non_exhaustive()
    }
}

impl Grant {
    /// The client its tokens were issued to, as the token endpoint knows it.
    pub fn client(&self) -> Client {
        Client { id: self.client_id.clone(), secret: self.client_secret.clone(), method: self.auth_method }
    }
}

/// The body of a token revocation (RFC 7009).
pub fn revocation_body(token: &str, hint: &str, client_id: &str) -> String {
    form(&[("token", token), ("token_type_hint", hint), ("client_id", client_id)])
}

#[cfg(test)]
mod tests;
