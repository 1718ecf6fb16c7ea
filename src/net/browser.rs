//! `fetch` for the browser, with an `AbortController` tied to the future: dropping the future
//! (Stop, a time limit) aborts the request, so nothing keeps running behind the person's back.
//! Requests that carry secrets use `open_without_redirects`: a browser keeps custom headers
//! (`x-api-key`, a proxy token) on a redirect, so such a request must never follow one.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Request, RequestInit, RequestMode, RequestRedirect, Response, ResponseType};

use super::{Fetch, FetchFailed, HttpRequest, HttpResponse, Streaming};
use crate::agent::LocalBoxFuture;

struct AbortOnDrop {
    controller: AbortController,
    finished: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.finished {
            self.controller.abort();
        }
    }
}

fn js_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| format!("{value:?}"))
}

/// A response whose headers have arrived; the body is read with `text` or chunk by chunk.
/// Dropping it before the body is finished aborts the request.
pub struct Opened {
    response: Response,
    guard: AbortOnDrop,
    reader: Option<web_sys::ReadableStreamDefaultReader>,
}

impl Opened {
    pub fn status(&self) -> u16 {
        self.response.status()
    }

    pub fn retry_after(&self) -> Option<String> {
        self.header("Retry-After")
    }

    /// A response header the page may read (CORS hides the rest unless the server exposes them).
    pub fn header(&self, name: &str) -> Option<String> {
        self.response.headers().get(name).ok().flatten()
    }

    /// A redirect answered to `open_without_redirects`. The browser hides its target; see
    /// `redirect_target`.
    pub fn is_redirect(&self) -> bool {
        self.response.type_() == ResponseType::Opaqueredirect
    }

    /// The whole body as text, refusing one larger than `limit` bytes (read chunk by chunk, so
    /// an endless body costs no more than the limit).
    pub async fn text_limited(mut self, limit: usize) -> Result<String, FetchFailed> {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.chunk().await? {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > limit {
                return Err(FetchFailed(format!("the answer is larger than {} KB, the limit for one reply, so it was not read", limit / 1024)));
            }
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The next chunk of the body, or `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<Vec<u8>>, FetchFailed> {
        if self.reader.is_none() {
            let body = self.response.body().ok_or_else(|| FetchFailed("the response has no body".into()))?;
            self.reader = Some(body.get_reader().unchecked_into());
        }
        let Some(reader) = &self.reader else { return Ok(None) };
        let result = JsFuture::from(reader.read()).await.map_err(|e| FetchFailed(js_message(&e)))?;
        let done = js_sys::Reflect::get(&result, &JsValue::from_str("done")).map(|d| d.is_truthy()).unwrap_or(true);
        if done {
            self.guard.finished = true;
            return Ok(None);
        }
        let value = js_sys::Reflect::get(&result, &JsValue::from_str("value")).map_err(|e| FetchFailed(js_message(&e)))?;
        Ok(Some(js_sys::Uint8Array::new(&value).to_vec()))
    }
}

/// Starts a request and waits for the response headers; redirects are followed.
pub async fn open(method: &str, url: &str, headers: &[(&str, String)], body: Option<&str>) -> Result<Opened, FetchFailed> {
    start(method, url, headers, body, RequestRedirect::Follow).await
}

/// Starts a request that carries secrets: a redirect is not followed but answered as a
/// response for which `Opened::is_redirect` is true.
pub async fn open_without_redirects(method: &str, url: &str, headers: &[(&str, String)], body: Option<&str>) -> Result<Opened, FetchFailed> {
    start(method, url, headers, body, RequestRedirect::Manual).await
}

/// Where `url` redirects to, found with a bare GET (no headers, no body, so nothing secret
/// goes along) that follows it; `None` when the target cannot be read (e.g. it sends no CORS
/// headers) or there was no redirect.
pub async fn redirect_target(url: &str) -> Option<String> {
    let opened = open("GET", url, &[], None).await.ok()?;
    // Dropping `opened` aborts the body, which is not needed.
    opened.response.redirected().then(|| opened.response.url())
}

async fn start(method: &str, url: &str, headers: &[(&str, String)], body: Option<&str>, redirect: RequestRedirect) -> Result<Opened, FetchFailed> {
    let controller = AbortController::new().map_err(|e| FetchFailed(js_message(&e)))?;
    let guard = AbortOnDrop { controller, finished: false };
    let init = RequestInit::new();
    init.set_method(method);
    init.set_redirect(redirect);
    init.set_signal(Some(&guard.controller.signal()));
    if let Some(body) = body {
        init.set_body(&JsValue::from_str(body));
    }
    let request = Request::new_with_str_and_init(url, &init).map_err(|e| FetchFailed(js_message(&e)))?;
    for (name, value) in headers {
        request.headers().set(name, value).map_err(|e| FetchFailed(js_message(&e)))?;
    }
    let window = web_sys::window().ok_or_else(|| FetchFailed("no window".into()))?;
    let response: Response = JsFuture::from(window.fetch_with_request(&request))
        .await
        .map_err(|e| FetchFailed(js_message(&e)))?
        .unchecked_into();
    Ok(Opened { response, guard, reader: None })
}

/// The most `send` reads of one answer: far more than any tool's service sends (a Wikipedia
/// extract, an arXiv feed), far less than would strain the page.
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;

pub async fn send(method: &str, url: &str, headers: &[(&str, String)], body: Option<&str>) -> Result<HttpResponse, FetchFailed> {
    let opened = open(method, url, headers, body).await?;
    let status = opened.status();
    let retry_after = opened.retry_after();
    Ok(HttpResponse { status, retry_after, body: opened.text_limited(BODY_LIMIT).await? })
}

pub async fn post(url: &str, headers: &[(&str, String)], body: &str) -> Result<HttpResponse, FetchFailed> {
    send("POST", url, headers, Some(body)).await
}

impl Streaming for Opened {
    fn status(&self) -> u16 {
        Opened::status(self)
    }
    fn header(&self, name: &str) -> Option<String> {
        Opened::header(self, name)
    }
    fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>> {
        Box::pin(Opened::chunk(self))
    }
}

/// The browser's `fetch`, for tools.
pub struct BrowserFetch;

impl Fetch for BrowserFetch {
    fn get<'a>(&'a self, url: &'a str, headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(async move {
            let headers: Vec<(&str, String)> = headers.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            send("GET", url, &headers, None).await
        })
    }

    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        Box::pin(async move {
            let headers: Vec<(&str, String)> = request.headers.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            let opened = open(request.method, request.url, &headers, request.body).await?;
            Ok(Box::new(opened) as Box<dyn Streaming>)
        })
    }

    /// A `no-cors` GET resolves (with an opaque response) whenever the server answers at all,
    /// whatever its CORS headers say, and fails when nothing answers. One exception: Chromium
    /// blocks a 2xx JSON answer to such a request (opaque response blocking) as if it failed;
    /// MCP endpoints answer a bare GET with 400 or 405, which passes.
    fn reachable<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Option<bool>> {
        Box::pin(async move {
            let controller = AbortController::new().ok()?;
            let _guard = AbortOnDrop { controller, finished: false };
            let init = RequestInit::new();
            init.set_method("GET");
            init.set_mode(RequestMode::NoCors);
            init.set_signal(Some(&_guard.controller.signal()));
            let window = web_sys::window()?;
            Some(JsFuture::from(window.fetch_with_str_and_init(url, &init)).await.is_ok())
        })
    }
}
