//! What a session puts on the wire, with no I/O: the ids of requests, the headers of each
//! message (the session id, the protocol version, the server's secret or the signed-in token),
//! whether a redirect may be followed, and the reading of the server's `initialize` answer.

use super::*;

impl McpClient {
    pub(super) fn take_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    pub(super) fn session_id(&self) -> Option<String> {
        self.session.borrow().as_ref().and_then(|s| s.id.clone())
    }

    /// A request carrying the server's token answers a redirect instead of following it: a
    /// browser keeps a custom header (`X-API-Key`) on a redirect, wherever it points.
    pub(super) fn redirects(&self) -> Redirects {
        if self.auth.is_some() || self.bearer.borrow().is_some() {
            Redirects::Refuse
        } else {
            Redirects::Follow
        }
    }

    pub(super) fn headers(&self, accept: &str) -> Vec<(String, String)> {
        let mut headers = vec![("Accept".to_string(), accept.to_string())];
        if let Some(session) = self.session.borrow().as_ref() {
            headers.push(("MCP-Protocol-Version".into(), session.info.protocol.clone()));
            if let Some(id) = &session.id {
                headers.push(("Mcp-Session-Id".into(), id.clone()));
            }
        }
        if let Some(auth) = &self.auth {
            headers.push(auth.clone());
        } else if let Some(token) = self.bearer.borrow().as_ref() {
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        }
        headers
    }

    /// The headers of a JSON-RPC message POSTed to the server (a request, a notification, an
    /// answer to the server): JSON in, JSON or an event stream back.
    pub(super) fn message_headers(&self) -> Vec<(String, String)> {
        let mut headers = self.headers("application/json, text/event-stream");
        headers.push(("Content-Type".into(), "application/json".into()));
        headers
    }

    pub(super) fn read_initialize(&self, result: Value) -> Result<ServerInfo, McpError> {
        let protocol = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        if protocol.is_empty() {
            return Err(self.not_json_rpc("the initialize result has no protocolVersion"));
        }
        if !SUPPORTED_VERSIONS.contains(&protocol) {
            return Err(McpError::new(
                McpErrorKind::Refused,
                format!(
                    "The MCP server {} speaks protocol version {}, which this page does not (it speaks {}). Update the server, or use another one.",
                    self.label,
                    jsonrpc::bounded(protocol),
                    SUPPORTED_VERSIONS.join(", ")
                ),
            ));
        }
        let server = result.get("serverInfo");
        let name = server.and_then(|s| s.get("title").or_else(|| s.get("name"))).and_then(Value::as_str).unwrap_or("");
        let lists_changes = result.pointer("/capabilities/tools/listChanged").and_then(Value::as_bool).unwrap_or(false);
        let instructions = result.get("instructions").and_then(Value::as_str).map(|text| {
            let text = self.scrub(text.trim());
            match text.char_indices().nth(INSTRUCTIONS_LIMIT) {
                Some((cut, _)) => format!("{}\n[… cut: the server's instructions are {} characters; the first {INSTRUCTIONS_LIMIT} are kept]", &text[..cut], text.chars().count()),
                None => text,
            }
        });
        let capability = |name: &str| result.pointer(&format!("/capabilities/{name}")).is_some_and(Value::is_object);
        Ok(ServerInfo {
            name: jsonrpc::bounded(&self.scrub(name)),
            protocol: protocol.to_string(),
            lists_changes,
            instructions: instructions.unwrap_or_default(),
            offers_resources: capability("resources"),
            offers_prompts: capability("prompts"),
        })
    }
}

/// A session id as the spec allows it: visible ASCII only, and of a sane length.
pub(super) fn valid_session_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 1024 && id.bytes().all(|b| (0x21..=0x7e).contains(&b))
}
