//! Resuming an answer's stream (SEP-1699, protocol 2025-11-25): a server may close the stream of
//! a request before it answers (to free the connection, or to have the client poll). A stream
//! that gave an event ID is then asked for again with a GET carrying `Last-Event-ID`, after the
//! wait its `retry` field asked for (a second when it named none); the server sends what came
//! after that event, the answer included, on the new stream. A stream that gave no ID cannot be
//! resumed: its answer is lost, and the call says so.

use super::{read_body, McpClient, McpError, McpErrorKind, Read, ERROR_BODY_LIMIT};
use crate::agent::Clock;
use crate::net::HttpRequest;

/// Resumptions of one answer's stream before the answer is given up on.
pub(super) const RESUME_LIMIT: u32 = 5;
/// The limit, for the tests beside the client's.
#[cfg(test)]
pub(crate) const RESUME_LIMIT_FOR_TESTS: u32 = RESUME_LIMIT;
/// The wait before a resumption when the stream named none.
const DEFAULT_RETRY_MS: u64 = 1000;
/// The longest wait a stream may ask for: a server cannot park a call for long this way.
const LONGEST_RETRY_MS: u64 = 60_000;

impl McpClient {
    /// Waits as the stream asked, then opens it again from `last_id` and reads on for the
    /// response to `id`.
    pub(super) async fn resume(&self, clock: &dyn Clock, last_id: &str, retry_ms: Option<u64>, id: u64) -> Result<Read, McpError> {
        let wait = retry_ms.unwrap_or(DEFAULT_RETRY_MS).min(LONGEST_RETRY_MS);
        clock.sleep(wait as f64).await;
        let mut headers = self.headers("text/event-stream");
        headers.push(("Last-Event-ID".into(), last_id.to_string()));
        let request = HttpRequest { method: "GET", url: &self.url, headers: &headers, body: None, redirects: self.redirects() };
        let mut stream = match self.fetch.open(request).await {
            Ok(stream) => stream,
            Err(e) => return Err(self.lost(&e)),
        };
        if stream.is_redirect() {
            return Err(self.redirected().await);
        }
        let status = stream.status();
        let kind = stream.header("Content-Type").unwrap_or_default().to_ascii_lowercase();
        if !(200..300).contains(&status) || !kind.starts_with("text/event-stream") {
            let body = read_body(stream.as_mut(), ERROR_BODY_LIMIT).await.unwrap_or_default();
            let said = if (200..300).contains(&status) { String::new() } else { format!(": {}", self.http_error(status, &body).message) };
            return Err(McpError::new(
                McpErrorKind::Lost,
                format!("The MCP server {} closed the stream before it answered, and did not resume it{said}. Try the call again.", self.label),
            ));
        }
        self.read_events(stream.as_mut(), id, Some(last_id.to_string())).await
    }
}
