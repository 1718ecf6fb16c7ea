//! Discovery over the network: from a server's 401 to the authorization server to sign in at
//! (steps 2 and 3 of `oauth`), through `net::Fetch`. Each document is looked for where the
//! specification says, in its order; an address that answers 404 or another error is passed
//! over, and one the page cannot read at all is told apart: a server that is down, or one that
//! answers but sends no CORS headers for this page (which the message says it must).

use super::{auth_server_metadata_urls, read_auth_server, read_resource_metadata, resource_metadata_urls, scopes, AuthServer, Challenge, OAuthError};
use crate::net::Fetch;

/// What discovery found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// The server's address as the `resource` its tokens are for.
    pub resource: String,
    pub server: AuthServer,
    /// The scopes to ask for, when the server said.
    pub scope: Option<String>,
}

/// Why an address gave nothing: its status, or why it could not be read.
async fn unread(fetch: &dyn Fetch, url: &str, failed: Option<u16>) -> String {
    match failed {
        Some(status) => format!("{url} answered HTTP {status}"),
        None => match fetch.reachable(url).await {
            Some(true) => format!(
                "{url} answers, but not to this page: it must send Access-Control-Allow-Origin for this page's origin (CORS)"
            ),
            Some(false) => format!("{url} could not be reached"),
            None => format!("{url} could not be read (the server is down, or sends no CORS headers for this page)"),
        },
    }
}

/// The first of `urls` that answers 200, read by `read`; what each of the others gave, when none
/// does. A document that answers but is refused by `read` ends the search: it is the server's
/// answer, and a wrong one.
async fn first<T>(fetch: &dyn Fetch, urls: &[String], read: impl Fn(&str) -> Result<T, OAuthError>) -> Result<T, Vec<String>> {
    let mut tried = Vec::new();
    for url in urls {
        match fetch.get(url, &[]).await {
            Ok(answer) if answer.status == 200 => return read(&answer.body).map_err(|e| vec![e.0]),
            Ok(answer) => tried.push(unread(fetch, url, Some(answer.status)).await),
            Err(_) => tried.push(unread(fetch, url, None).await),
        }
    }
    Err(tried)
}

/// From a server's 401 (its challenge, when it sent one) to the authorization server to sign in
/// at: the first one its protected resource metadata names.
pub async fn discover(fetch: &dyn Fetch, server_url: &str, challenge: Option<&Challenge>) -> Result<Discovered, OAuthError> {
    let said = |what: &str, tried: Vec<String>| OAuthError(format!("{what}: {}.", tried.join("; ")));
    let urls = resource_metadata_urls(server_url, challenge);
    let resource = match first(fetch, &urls, |body| read_resource_metadata(body, server_url)).await {
        Ok(resource) => resource,
        // Every address answered, with no metadata: a server of the 2025-03-26 revision.
        Err(tried) if tried.iter().all(|t| t.contains(" answered HTTP ")) && challenge.is_none_or(|c| c.resource_metadata.is_none()) => {
            return earlier_revision(fetch, server_url).await.map_err(|more| said("This server asks for a sign-in, but neither its protected resource metadata nor an authorization server at its origin could be found", [tried, more].concat()));
        }
        Err(tried) => return Err(said("This server asks for a sign-in, but its protected resource metadata could not be found", tried)),
    };
    let issuer = &resource.authorization_servers[0];
    let server = first(fetch, &auth_server_metadata_urls(issuer), |body| read_auth_server(body, issuer))
        .await
        .map_err(|tried| said(&format!("The metadata of the authorization server {issuer} could not be found"), tried))?;
    Ok(Discovered { resource: super::canonical_resource(server_url), scope: scopes(challenge, &resource), server })
}

/// A server of the 2025-03-26 revision is its own authorization server, found at its origin: its
/// metadata at the well-known addresses, else the paths that revision set (`/authorize`,
/// `/token`, `/register`). Without metadata, nothing says the server offers PKCE; the page uses
/// it all the same, as every revision requires.
async fn earlier_revision(fetch: &dyn Fetch, server_url: &str) -> Result<Discovered, Vec<String>> {
    let Some(origin) = crate::net::origin(server_url) else { return Err(vec![format!("{server_url} is not an http or https address")]) };
    let resource = super::canonical_resource(server_url);
    // Its metadata's issuer may carry a path (`/oauth`): one on the server's own origin is taken.
    let at_origin = |body: &str| {
        let issuer = serde_json::from_str::<serde_json::Value>(body).ok().and_then(|v| v.get("issuer").and_then(|i| i.as_str()).map(str::to_string));
        match issuer.filter(|issuer| crate::net::origin(issuer).as_deref() == Some(origin.as_str())) {
            Some(issuer) => read_auth_server(body, &issuer),
            None => read_auth_server(body, &origin),
        }
    };
    let server = match first(fetch, &auth_server_metadata_urls(&origin), at_origin).await {
        Ok(server) => server,
        Err(tried) if tried.iter().all(|t| t.contains(" answered HTTP 404")) => AuthServer {
            issuer: origin.clone(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            revocation_endpoint: None,
            scopes_supported: Vec::new(),
            auth_methods: Vec::new(),
            client_documents: false,
        },
        Err(tried) => return Err(tried),
    };
    Ok(Discovered { resource, server, scope: None })
}

#[cfg(test)]
mod tests;
