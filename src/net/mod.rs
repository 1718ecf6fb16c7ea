//! The HTTP seam: the response type every client reads and the `Fetch` trait tools are written
//! against, so their request/response logic runs natively in tests with a fake `Fetch` and in
//! the page with the browser's `fetch` (`browser.rs`).

use crate::agent::LocalBoxFuture;

#[cfg(target_arch = "wasm32")]
pub mod browser;

pub struct HttpResponse {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<String>,
}

/// A fetch that produced no response at all. In a browser a `TypeError` from fetch means the
/// network or CORS; the page cannot tell which, so callers explain both.
#[derive(Debug, Clone)]
pub struct FetchFailed(pub String);

/// Makes GET requests. Dropping the future must abandon the request.
pub trait Fetch {
    fn get<'a>(&'a self, url: &'a str, headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>>;
}
