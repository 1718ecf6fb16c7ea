//! The HTTP seam: the `Fetch` trait the model client (`llm::Provider`), the tools and MCP are
//! written against, so their request/response logic (retries, time limits, size limits,
//! redirects) runs natively in tests with a fake `Fetch` and in the page with the browser's
//! `fetch` (`browser.rs`, the one implementation and the only code that calls `fetch`).
//! `sse.rs` decodes a `text/event-stream` body, for streamed model replies and MCP alike.

use crate::base::LocalBoxFuture;

pub use crate::base::url::{encode_component, origin, percent_encode};

#[cfg(target_arch = "wasm32")]
pub mod browser;
pub mod sse;

pub struct HttpResponse {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<String>,
}

/// A fetch that produced no response at all. In a browser a `TypeError` from fetch means the
/// network or CORS; the page cannot tell which, so callers explain both.
#[derive(Debug, Clone)]
pub struct FetchFailed(pub String);

impl FetchFailed {
    /// What the browser seam reports when a fetch fails while the browser says it has no network.
    pub const OFFLINE: &'static str = "this browser is offline";

    pub fn offline() -> Self {
        FetchFailed(Self::OFFLINE.into())
    }

    pub fn is_offline(&self) -> bool {
        self.0 == Self::OFFLINE
    }
}

/// A request with any method, headers and body (a model call, MCP's JSON-RPC over POST, its
/// event stream over GET).
pub struct HttpRequest<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub headers: &'a [(String, String)],
    pub body: Option<&'a str>,
    pub redirects: Redirects,
}

/// A request that owns its parts, for `Fetch::send_detached`: it outlives the code that made it.
pub struct OwnedRequest {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    pub redirects: Redirects,
}

impl OwnedRequest {
    /// The same request, borrowed, for `Fetch::open` (to wait for its answer after all).
    pub fn as_request(&self) -> HttpRequest<'_> {
        HttpRequest { method: self.method, url: &self.url, headers: &self.headers, body: self.body.as_deref(), redirects: self.redirects }
    }
}

/// What a request does when the server answers with a redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirects {
    Follow,
    /// Answer the redirect itself (`Streaming::is_redirect`): a browser keeps custom headers
    /// (`x-api-key`, extra headers) on a redirect, so a request carrying a key must not follow
    /// one. Where it points is asked separately (`Fetch::redirect_target`).
    Refuse,
}

/// A response whose status and headers have arrived; its body is read chunk by chunk.
/// Dropping it before the end abandons the request (in the page: aborts the fetch).
pub trait Streaming {
    fn status(&self) -> u16;
    /// A response header; in a browser only the ones CORS lets the page read.
    fn header(&self, name: &str) -> Option<String>;
    /// The next piece of the body, or `None` at its end.
    fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>>;
    /// The server redirected a request sent with `Redirects::Refuse`; status and body are
    /// then meaningless (a browser hides them).
    fn is_redirect(&self) -> bool {
        false
    }
}

/// Makes HTTP requests. Dropping a returned future must abandon its request.
pub trait Fetch {
    fn get<'a>(&'a self, url: &'a str, headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>>;
    /// Sends `request` and resolves once the response headers are in.
    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>>;
    /// After a failed request: whether `url` answers at all when CORS is left out of it, which
    /// tells "the server is down" from "the server refuses this page". `None`: cannot tell.
    fn reachable<'a>(&'a self, _url: &'a str) -> LocalBoxFuture<'a, Option<bool>> {
        Box::pin(async { None })
    }
    /// Where `url` redirects to, found with a bare GET (no headers, no body, so nothing secret
    /// goes along) that follows it; `None` when there is no redirect or its target cannot be
    /// read (in a browser: the target sends no CORS headers).
    fn redirect_target<'a>(&'a self, _url: &'a str) -> LocalBoxFuture<'a, Option<String>> {
        Box::pin(async { None })
    }
    /// Sends `request` and lets it go: nothing waits for the answer, and nothing the caller
    /// drops aborts it. For a message whose reply nobody needs that must still leave while the
    /// call it is about is being dropped (MCP's `notifications/cancelled`). By default it is
    /// not sent: a `Fetch` that cannot run work of its own has nowhere to send it from.
    fn send_detached(&self, _request: OwnedRequest) {}
}

