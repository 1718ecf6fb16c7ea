//! How this page proves who it is to an authorization server's token endpoint (RFC 6749
//! §2.3.1): as a public client, by its client ID alone (`none`, with PKCE), or, where the
//! server takes no public clients and its registration issued a secret, with that secret in a
//! Basic header (`client_secret_basic`) or in the form (`client_secret_post`). The method is
//! asked for at registration from what the server's metadata lists, and taken as the
//! registration answers.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

use super::{fail, text, OAuthError};
use crate::net::encode_component;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    #[default]
    None,
    ClientSecretBasic,
    ClientSecretPost,
}

impl AuthMethod {
    pub fn name(self) -> &'static str {
        match self {
            AuthMethod::None => "none",
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
        }
    }

    fn named(name: &str) -> Option<Self> {
        [AuthMethod::None, AuthMethod::ClientSecretBasic, AuthMethod::ClientSecretPost].into_iter().find(|m| m.name() == name)
    }
}

/// This page as a client of one authorization server: its ID and, when the server registered
/// it as a confidential client, its secret (a secret like a token: kept only with the grant it
/// came with, sent only to that server, masked everywhere).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Client {
    pub id: String,
    pub secret: Option<String>,
    pub method: AuthMethod,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("id", &self.id).field("method", &self.method).finish_non_exhaustive()
    }
}

impl Client {
    /// A public client: its ID alone.
    pub fn public(id: impl Into<String>) -> Self {
        Client { id: id.into(), secret: None, method: AuthMethod::None }
    }

    /// A client the authorization server registered beforehand, as the person entered it: its
    /// ID, and its secret when it came with one, sent the way the server's metadata lists
    /// (`token_endpoint_auth_methods_supported`): in a Basic header where it takes that or says
    /// nothing (RFC 6749's default), else in the form. A server that takes only public
    /// clients gets none.
    pub fn entered(id: &str, secret: &str, supported: &[String]) -> Self {
        let secret = secret.trim();
        let offers = |m: AuthMethod| supported.iter().any(|s| s == m.name());
        let method = if secret.is_empty() {
            AuthMethod::None
        } else if supported.is_empty() || offers(AuthMethod::ClientSecretBasic) {
            AuthMethod::ClientSecretBasic
        } else if offers(AuthMethod::ClientSecretPost) {
            AuthMethod::ClientSecretPost
        } else {
            AuthMethod::None
        };
        match method {
            AuthMethod::None => Client::public(id.trim()),
            method => Client { id: id.trim().to_string(), secret: Some(secret.to_string()), method },
        }
    }

    /// A token or revocation request's form (`body`, which names the client ID) with the
    /// client's proof: the secret added to the form, or the `Authorization` header to send.
    pub fn authenticate(&self, mut body: String) -> (String, Option<String>) {
        match (self.method, &self.secret) {
            (AuthMethod::ClientSecretPost, Some(secret)) => {
                body.push_str("&client_secret=");
                body.push_str(&encode_component(secret));
                (body, None)
            }
            (AuthMethod::ClientSecretBasic, Some(secret)) => {
                // RFC 6749 §2.3.1: each part form-encoded, then joined and base64-encoded.
                let pair = format!("{}:{}", encode_component(&self.id), encode_component(secret));
                (body, Some(format!("Basic {}", STANDARD.encode(pair))))
            }
            _ => (body, None),
        }
    }
}

/// The method to ask for at registration, from the server's `token_endpoint_auth_methods_supported`:
/// a public client wherever the server takes one (or says nothing), else a secret in a Basic
/// header, else in the form.
pub fn registration_method(supported: &[String]) -> AuthMethod {
    let offers = |m: AuthMethod| supported.iter().any(|s| s == m.name());
    if supported.is_empty() || offers(AuthMethod::None) {
        AuthMethod::None
    } else if offers(AuthMethod::ClientSecretBasic) {
        AuthMethod::ClientSecretBasic
    } else if offers(AuthMethod::ClientSecretPost) {
        AuthMethod::ClientSecretPost
    } else {
        AuthMethod::None
    }
}

/// The client a registration answered with: its ID, and the secret and method when it issued
/// one. The method is the one the answer names, else the one asked for (`asked`); a secret is
/// used only with a method that sends it.
pub fn read_registration(body: &str, asked: AuthMethod) -> Result<Client, OAuthError> {
    let value: Value = serde_json::from_str(body).ok().filter(Value::is_object).ok_or_else(|| OAuthError("The registration's answer is not a JSON object.".into()))?;
    let Some(id) = text(&value, "client_id") else { return fail("The authorization server registered this page but sent no client ID.") };
    let secret = text(&value, "client_secret").filter(|s| !s.is_empty());
    let method = text(&value, "token_endpoint_auth_method").and_then(|m| AuthMethod::named(&m)).unwrap_or(asked);
    match (method, secret) {
        (AuthMethod::None, _) => Ok(Client::public(id)),
        (method, Some(secret)) => Ok(Client { id, secret: Some(secret), method }),
        (method, None) => fail(format!("The authorization server registered this page for {} but sent no client secret.", method.name())),
    }
}
