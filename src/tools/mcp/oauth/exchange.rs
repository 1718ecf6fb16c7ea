//! The requests of a sign-in that go to the authorization server itself, through `net::Fetch`:
//! registering this page as a client (RFC 7591), redeeming a code or a refresh token for tokens,
//! and revoking a token (RFC 7009). Their answers are read by `oauth`'s readers. Each request
//! has a time limit of its own (`EXCHANGE_TIMEOUT_MS`): a server that takes the request and
//! never answers ends in an error a person can act on, never in a renewal that hangs.

use super::{read_registration, read_tokens, registration_body, registration_method, revocation_body, Client, Grant, OAuthError, Tokens};
use crate::agent::time::{race, Either};
use crate::base::Clock;
use crate::net::{Fetch, HttpRequest, Redirects};

/// What is read of an authorization server's answer.
const ANSWER_LIMIT: usize = 64 << 10;

/// How long one request to the authorization server may take, answer read and all.
pub const EXCHANGE_TIMEOUT_MS: f64 = 20_000.0;

/// POSTs `body` as `content_type` to `url` within `EXCHANGE_TIMEOUT_MS`, with the client's
/// `Authorization` header when it has one: the status and the body, or why nothing came back.
async fn post(fetch: &dyn Fetch, clock: &dyn Clock, url: &str, content_type: &str, body: &str, authorization: Option<&str>) -> Result<(u16, String), OAuthError> {
    match race(exchange(fetch, url, content_type, body, authorization), clock.sleep(EXCHANGE_TIMEOUT_MS)).await {
        Either::Left(answer) => answer,
        Either::Right(()) => Err(OAuthError(format!(
            "The authorization server at {url} did not answer within {:.0} s. Check that it is running, then try again.",
            EXCHANGE_TIMEOUT_MS / 1000.0
        ))),
    }
}

async fn exchange(fetch: &dyn Fetch, url: &str, content_type: &str, body: &str, authorization: Option<&str>) -> Result<(u16, String), OAuthError> {
    let mut headers = vec![("Content-Type".to_string(), content_type.to_string()), ("Accept".to_string(), "application/json".to_string())];
    if let Some(authorization) = authorization {
        headers.push(("Authorization".to_string(), authorization.to_string()));
    }
    let request = HttpRequest { method: "POST", url, headers: &headers, body: Some(body), redirects: Redirects::Refuse };
    let unread = |why: String| {
        OAuthError(format!(
            "The authorization server at {url} could not be reached ({why}). It must be running and allow this page's origin (CORS: Access-Control-Allow-Origin)."
        ))
    };
    let mut answer = fetch.open(request).await.map_err(|e| unread(e.0))?;
    if answer.is_redirect() {
        return Err(OAuthError(format!("The authorization server at {url} answered with a redirect, which a token request does not follow.")));
    }
    let status = answer.status();
    let mut bytes = Vec::new();
    while let Some(chunk) = answer.chunk().await.map_err(|e| unread(e.0))? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > ANSWER_LIMIT {
            return Err(OAuthError(format!("The authorization server at {url} answered with more than 64 KB, which no token answer needs.")));
        }
    }
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

const FORM: &str = "application/x-www-form-urlencoded";

/// Registers this page at `endpoint` with `redirect_uri`, as a public client unless the server
/// takes none (`supported`: its token endpoint's methods): the client it is made.
pub async fn register(fetch: &dyn Fetch, clock: &dyn Clock, endpoint: &str, redirect_uri: &str, supported: &[String]) -> Result<Client, OAuthError> {
    let asked = registration_method(supported);
    let (status, body) = post(fetch, clock, endpoint, "application/json", &registration_body(redirect_uri, "Thoughtline", asked), None).await?;
    if !(200..300).contains(&status) {
        let said = serde_json::from_str::<serde_json::Value>(&body).ok().and_then(|v| v.get("error_description").and_then(|d| d.as_str()).map(|d| format!(": {d}"))).unwrap_or_default();
        return Err(OAuthError(format!("The authorization server refused to register this page (HTTP {status}{said}). Enter a client ID it issued for this page in Settings instead.")));
    }
    read_registration(&body, asked)
}

/// Redeems a token request (`code_body` or `refresh_body`) of `client`'s at `token_endpoint`,
/// at `now_ms`, the client proving itself as it registered.
pub async fn redeem(fetch: &dyn Fetch, clock: &dyn Clock, token_endpoint: &str, client: &Client, body: &str, now_ms: u64, previous_refresh: Option<&str>) -> Result<Tokens, OAuthError> {
    let (body, authorization) = client.authenticate(body.to_string());
    let (status, answer) = post(fetch, clock, token_endpoint, FORM, &body, authorization.as_deref()).await?;
    read_tokens(status, &answer, now_ms, previous_refresh)
}

/// Revokes the tokens of `grant` where its server offers revocation: the refresh token first
/// (which ends the access it gave), then the access token. `Ok(false)` when it offers none.
pub async fn revoke(fetch: &dyn Fetch, clock: &dyn Clock, grant: &Grant) -> Result<bool, OAuthError> {
    let Some(endpoint) = &grant.revocation_endpoint else { return Ok(false) };
    let mut tokens = Vec::new();
    if let Some(refresh) = &grant.tokens.refresh {
        tokens.push((refresh.as_str(), "refresh_token"));
    }
    tokens.push((grant.tokens.access.as_str(), "access_token"));
    for (token, hint) in tokens {
        let (body, authorization) = grant.client().authenticate(revocation_body(token, hint, &grant.client_id));
        let (status, _) = post(fetch, clock, endpoint, FORM, &body, authorization.as_deref()).await?;
        if !(200..300).contains(&status) {
            return Err(OAuthError(format!("The authorization server did not revoke the {} (HTTP {status}); it was forgotten here all the same.", hint.replace('_', " "))));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests;
