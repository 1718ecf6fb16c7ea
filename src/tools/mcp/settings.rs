//! What the person sets up for MCP servers, as stored with the other settings: each server's
//! address, the header that carries its secret, its limits, and the tools it listed on Connect
//! with an on/off per tool. Written by serde, read by hand (`tools/settings_read.rs`): a
//! missing field takes its value from its struct's `Default`.
//!
//! **Invariant:** the secret (a bearer token or header value) is never serialised with these
//! settings, so it cannot reach storage or an export by this path. `storage.rs` keeps it only
//! when the person ticked "Remember", through `remembered_secrets` / `restore_secrets`.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::tools::Common;

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct McpSettings {
    pub servers: Vec<McpServer>,
}

#[derive(Clone, PartialEq, Serialize)]
pub struct McpServer {
    /// The Streamable HTTP endpoint, e.g. `https://example.org/mcp`.
    pub url: String,
    /// The header that carries the secret. Empty or `Authorization`: `Authorization: Bearer …`.
    pub header: String,
    /// A bearer token or header value. Never serialised here (see the module's invariant).
    #[serde(skip)]
    pub secret: String,
    pub remember_secret: bool,
    /// The client ID its sign-in's authorization server issued for this page, when that server
    /// registers no client itself (OAuth; empty: registered on sign-in). Not a secret.
    pub client_id: String,
    /// The secret that came with that client ID, when the authorization server made this page
    /// a confidential client. A secret like the token: never serialised here (see the module's
    /// invariant), kept only when "Remember" is ticked, sent only to the token endpoint of the
    /// server's sign-in.
    #[serde(skip)]
    pub client_secret: String,
    /// On/off for all of this server's tools, "return direct", and the time limit per call.
    pub common: Common,
    /// The name the server gave itself on Connect.
    pub name: String,
    /// The tools it listed on the last Connect (or refresh).
    pub tools: Vec<McpToolInfo>,
    /// What the server asked of its clients on the last Connect (`instructions`): added to
    /// the system prompt, marked as the server's, while any of its tools is offered.
    pub instructions: String,
    /// The resources, resource templates and prompts it listed on the last Connect, as the
    /// JSON text of `McpOffers` (empty when it offered none). Kept as text so that only the
    /// parts of the page that use them read them (`offers`): the first screen, which reads the
    /// settings, carries no reader for them.
    pub offers: String,
    /// The agent's reading of this server's resources asks before each read.
    pub resources_ask: bool,
    /// The server's requests to use the model (sampling) wait for the person's review; off:
    /// "always allow sampling for this server".
    pub sampling_ask: bool,
}

/// What a server offers besides tools, as listed on Connect.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct McpOffers {
    pub resources: Vec<McpItem>,
    pub templates: Vec<McpItem>,
    pub prompts: Vec<McpItem>,
}

impl McpOffers {
    /// The text kept in `McpServer::offers`: empty when there is nothing.
    pub fn to_text(&self) -> String {
        if self.resources.is_empty() && self.templates.is_empty() && self.prompts.is_empty() {
            return String::new();
        }
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Something a server offers besides tools: a resource, a resource template or a prompt, as
/// it described it (bounded).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct McpItem {
    pub name: String,
    pub description: String,
    /// A resource's URI, a template's URI template; empty for a prompt.
    pub uri: String,
    pub mime_type: String,
    /// A prompt's arguments.
    pub arguments: Vec<McpArgument>,
}

/// One argument of a prompt, filled in by the person.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct McpArgument {
    pub name: String,
    pub description: String,
    pub required: bool,
}

impl Default for McpServer {
    fn default() -> Self {
        McpServer {
            url: String::new(),
            header: String::new(),
            secret: String::new(),
            remember_secret: false,
            client_id: String::new(),
            client_secret: String::new(),
            common: Common { timeout_s: 30.0, ..Common::default() },
            name: String::new(),
            tools: Vec::new(),
            instructions: String::new(),
            offers: String::new(),
            resources_ask: true,
            sampling_ask: true,
        }
    }
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("url", &self.url)
            .field("header", &self.header)
            .field("secret", &if self.secret.is_empty() { "" } else { "(hidden)" })
            .field("remember_secret", &self.remember_secret)
            .field("client_secret", &if self.client_secret.is_empty() { "" } else { "(hidden)" })
            .field("common", &self.common)
            .field("name", &self.name)
            .field("tools", &self.tools.len())
            .finish()
    }
}

/// One tool as the server described it, and whether the person lets the agent use it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpToolInfo {
    pub name: String,
    pub title: String,
    pub description: String,
    pub input_schema: Value,
    pub enabled: bool,
    /// Each call waits for the person's approval ("Ask each time"); off: "Always allow". Tools
    /// a server lists ask (`client::tool_info`); the default, `false`, is what tools stored
    /// before approval existed read as: they ran unasked, and still do until the person says
    /// otherwise.
    pub ask: bool,
    /// Why the page cannot call this tool (empty when it can): it is shown greyed with this
    /// reason and never offered to the model, whatever `enabled` says.
    pub unavailable: String,
    /// The `ui://` resource of its view (MCP Apps), shown beside its result (empty: none).
    pub view: String,
    /// Offered to the model (off: a tool only the server's views call).
    pub for_model: bool,
    /// Callable from the server's views.
    pub for_views: bool,
}

impl McpToolInfo {
    /// Switched on, and a tool the page can call and the model may see.
    pub fn offered(&self) -> bool {
        self.enabled && self.unavailable.is_empty() && self.for_model
    }
}

impl Default for McpToolInfo {
    fn default() -> Self {
        McpToolInfo {
            name: String::new(),
            title: String::new(),
            description: String::new(),
            input_schema: Value::Null,
            enabled: true,
            ask: false,
            unavailable: String::new(),
            view: String::new(),
            for_model: true,
            for_views: true,
        }
    }
}

/// A secret kept because the person ticked "Remember", with the server it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct RememberedSecret {
    pub url: String,
    pub secret: String,
    /// The client secret entered for the server's sign-in (`McpServer::client_secret`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub client_secret: String,
}

impl McpServer {
    /// What it offers besides tools (read tolerantly: unreadable text is nothing offered).
    pub fn offers(&self) -> McpOffers {
        if self.offers.trim().is_empty() {
            return McpOffers::default();
        }
        serde_json::from_str(&self.offers).unwrap_or_default()
    }

    /// The header carrying the secret, if there is one.
    pub fn auth_header(&self) -> Option<(String, String)> {
        let secret = self.secret.trim();
        if secret.is_empty() {
            return None;
        }
        let name = self.header.trim();
        if name.is_empty() || name.eq_ignore_ascii_case("authorization") {
            let has_scheme = secret.len() > 7 && secret[..7].eq_ignore_ascii_case("bearer ");
            let value = if has_scheme { secret.to_string() } else { format!("Bearer {secret}") };
            Some(("Authorization".into(), value))
        } else {
            Some((name.to_string(), secret.to_string()))
        }
    }

    /// The address as shown in the trace and in messages: scheme, host and path, without a
    /// query, fragment or user info that might hold a key.
    pub fn display_url(&self) -> String {
        display_url(&self.url)
    }
}

/// `url` without query, fragment and user info.
pub fn display_url(url: &str) -> String {
    let url = url.trim();
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..end];
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => url.to_string(),
    }
}

impl McpSettings {
    /// The secrets to store: only those of servers whose "Remember" box is ticked.
    pub fn remembered_secrets(&self) -> Vec<RememberedSecret> {
        self.servers
            .iter()
            .filter(|s| s.remember_secret && !(s.secret.trim().is_empty() && s.client_secret.trim().is_empty()))
            .map(|s| RememberedSecret { url: s.url.clone(), secret: s.secret.clone(), client_secret: s.client_secret.clone() })
            .collect()
    }

    /// Gives stored secrets back to their servers (by address, in order).
    pub fn restore_secrets(&mut self, secrets: Vec<RememberedSecret>) {
        let mut secrets = secrets;
        for server in self.servers.iter_mut().filter(|s| s.remember_secret) {
            if let Some(at) = secrets.iter().position(|k| k.url == server.url) {
                let kept = secrets.remove(at);
                server.secret = kept.secret;
                server.client_secret = kept.client_secret;
            }
        }
    }
}

/// A fresh tool list merged with the old one: the person's on/off and approval choices
/// survive by name, and new tools start switched on, asking before each call.
pub fn merge_tools(old: &[McpToolInfo], fresh: Vec<McpToolInfo>) -> Vec<McpToolInfo> {
    fresh
        .into_iter()
        .map(|mut tool| {
            if let Some(known) = old.iter().find(|o| o.name == tool.name) {
                tool.enabled = known.enabled;
                tool.ask = known.ask;
            }
            tool
        })
        .collect()
}
