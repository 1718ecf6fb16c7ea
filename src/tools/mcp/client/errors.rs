//! What went wrong, in words a person can act on: a server that cannot be reached (down, or
//! refusing this page's origin), an HTTP or JSON-RPC error, a redirect, an answer too large,
//! and a server that speaks the older transport.

use super::*;

impl McpClient {
    /// A fetch that got no response. The browser does not say why; asking once more without
    /// CORS tells a server that is down from one that refuses this page.
    pub(super) async fn unreachable(&self, failure: &FetchFailed, had_session: bool) -> McpError {
        let cors = "The server must allow this page's origin (CORS: Access-Control-Allow-Origin, and allow the Content-Type, Accept, Authorization, Mcp-Session-Id and MCP-Protocol-Version request headers) and expose Mcp-Session-Id (Access-Control-Expose-Headers).";
        let detail = jsonrpc::bounded(&failure.0);
        if failure.is_offline() {
            return McpError::new(
                McpErrorKind::Unreachable,
                format!("The MCP server {} needs the network, and this browser is offline. Try again once the connection is back.", self.label),
            );
        }
        match self.fetch.reachable(&self.url).await {
            Some(true) => McpError::new(McpErrorKind::Blocked, format!("The MCP server {} answers, but not to this page: its CORS settings block it. {cors}", self.label)),
            Some(false) if had_session => McpError::new(
                McpErrorKind::Lost,
                format!("The MCP server {} stopped answering ({detail}). Check that it is still running; the agent can go on without it.", self.label),
            ),
            Some(false) => McpError::new(
                McpErrorKind::Unreachable,
                format!("Could not reach the MCP server {} ({detail}). Check that it is running and that the address in Settings → Tools → MCP servers is right.", self.label),
            ),
            None => McpError::new(
                McpErrorKind::Unreachable,
                format!("Could not reach the MCP server {} ({detail}): it is not running, the address is wrong, or it does not allow this page. {cors}", self.label),
            ),
        }
    }

    pub(super) fn http_error(&self, status: u16, body: &str) -> McpError {
        let said = jsonrpc::error_in_body(body).map(|e| self.scrub(&e.message));
        let colon = said.as_ref().map(|m| format!(": {m}")).unwrap_or_default();
        let place = "Settings → Tools → MCP servers";
        match status {
            401 if self.auth.is_none() => {
                let or = if self.signs_in() { " If it signs people in instead, press Sign in there." } else { "" };
                McpError::new(McpErrorKind::Auth, format!("The MCP server {} wants a token (401 Unauthorized{colon}). Add it in {place}.{or}", self.label))
            }
            401 => McpError::new(McpErrorKind::Auth, format!("The MCP server {} did not accept the token (401 Unauthorized{colon}). Check the token and its header in {place}.", self.label)),
            403 => McpError::new(
                McpErrorKind::Auth,
                format!("The MCP server {} refused the request (403 Forbidden{colon}). If it checks origins, it must allow this page's origin; if it checks tokens, check the one in {place}.", self.label),
            ),
            404 => self.not_found(),
            405 => McpError::new(
                McpErrorKind::NotMcp,
                format!("{} does not take MCP messages by POST (405): it is not a Streamable HTTP MCP endpoint. Check the address in {place}; servers that only speak the older HTTP+SSE transport are not supported.", self.label),
            ),
            400 if self.session.borrow().as_ref().is_some_and(|s| s.id.is_none()) && said.as_ref().is_some_and(|m| m.to_lowercase().contains("session")) => McpError::new(
                McpErrorKind::Blocked,
                format!("The MCP server {} uses sessions, but does not let this page read its session header ({}). It must send Access-Control-Expose-Headers: Mcp-Session-Id.", self.label, said.unwrap_or_default()),
            ),
            _ => McpError::new(McpErrorKind::Refused, format!("The MCP server {} answered HTTP {status}{colon}.", self.label)),
        }
    }

    pub(super) fn rpc_error(&self, error: &RpcError) -> McpError {
        if let Some(visits) = self.visits_first(error) {
            let mut e = McpError::new(
                McpErrorKind::VisitFirst,
                format!("The MCP server {} asks you to visit an address first: {}", self.label, self.scrub(&error.message)),
            );
            e.visits = visits;
            return e;
        }
        let what = match error.code {
            jsonrpc::METHOD_NOT_FOUND => " (it does not offer this)",
            -32602 => " (invalid arguments)",
            _ => "",
        };
        McpError::new(McpErrorKind::Refused, format!("The MCP server {} answered with an error{what}: {}", self.label, self.scrub(&error.message)))
    }

    pub(super) fn not_found(&self) -> McpError {
        McpError::new(
            McpErrorKind::NotMcp,
            format!("Nothing answers as an MCP server at {} (404 Not Found). Check the address in Settings → Tools → MCP servers: Streamable HTTP endpoints usually end in /mcp.", self.label),
        )
    }

    pub(super) fn not_json_rpc(&self, why: &str) -> McpError {
        McpError::new(
            McpErrorKind::NotMcp,
            format!("{} did not answer like an MCP server ({}). Check the address in Settings → Tools → MCP servers.", self.label, jsonrpc::bounded(why)),
        )
    }

    pub(super) fn lost(&self, failure: &FetchFailed) -> McpError {
        McpError::new(
            McpErrorKind::Lost,
            format!("The connection to the MCP server {} broke before its answer arrived ({}). Check that the server is still running.", self.label, jsonrpc::bounded(&failure.0)),
        )
    }

    /// The server answered a request carrying its token with a redirect, which was not
    /// followed; where it points is asked with a bare GET, so the token goes nowhere else.
    pub(super) async fn redirected(&self) -> McpError {
        let target = match self.fetch.redirect_target(&self.url).await {
            Some(url) => format!("to {}", jsonrpc::bounded(&self.scrub(&url))),
            None => "elsewhere (the browser does not reveal where)".to_string(),
        };
        McpError::new(
            McpErrorKind::Refused,
            format!(
                "The MCP server {} answered with a redirect {target}. Thoughtline does not follow redirects with the server's token attached, so nothing was sent there. If that address is the server's, put it in Settings → Tools → MCP servers.",
                self.label
            ),
        )
    }

    pub(super) fn too_large(&self) -> McpError {
        McpError::new(McpErrorKind::Refused, format!("The MCP server {} sent an answer larger than {} MB; it was not read.", self.label, BODY_LIMIT >> 20))
    }

    /// Whether a GET of the address opens an event stream whose first event is `endpoint`:
    /// how a server of the older HTTP+SSE transport greets a client. Reads at most a few
    /// kilobytes; dropping the stream ends the request.
    pub(super) async fn speaks_older_transport(&self) -> bool {
        let headers = self.headers("text/event-stream");
        let request = HttpRequest { method: "GET", url: &self.url, headers: &headers, body: None, redirects: self.redirects() };
        let Ok(mut stream) = self.fetch.open(request).await else { return false };
        if !(200..300).contains(&stream.status()) {
            return false;
        }
        let mut decoder = SseDecoder::new();
        let mut read = 0;
        while read < OLDER_GREETING_LIMIT {
            let Ok(Some(bytes)) = stream.chunk().await else { return false };
            read += bytes.len();
            if let Some(first) = decoder.push(&bytes).into_iter().next() {
                return first.event.as_deref() == Some("endpoint");
            }
        }
        false
    }
}
