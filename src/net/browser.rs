//! `fetch` for the browser, with an `AbortController` tied to the future: dropping the future
//! (Stop, a time limit) aborts the request, so nothing keeps running behind the person's back.
//! This is the only code that calls `fetch`: everything else goes through `net::Fetch`.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Request, RequestInit, RequestMode, RequestRedirect, Response, ResponseType};

use super::{Fetch, FetchFailed, HttpRequest, HttpResponse, OwnedRequest, Redirects, Streaming};
use crate::base::LocalBoxFuture;

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

/// A response whose headers have arrived; the body is read chunk by chunk. Dropping it before
/// the body is finished aborts the request.
struct Opened {
    response: Response,
    guard: AbortOnDrop,
    reader: Option<web_sys::ReadableStreamDefaultReader>,
}

impl Opened {
    /// The whole body as text, refusing one larger than `limit` bytes (read chunk by chunk, so
    /// an endless body costs no more than the limit).
    async fn text_limited(mut self, limit: usize) -> Result<String, FetchFailed> {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > limit {
                return Err(FetchFailed(format!("the answer is larger than {} KB, the limit for one reply, so it was not read", limit / 1024)));
            }
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, FetchFailed> {
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

/// Starts a request and waits for the response headers.
async fn start(method: &str, url: &str, headers: &[(String, String)], body: Option<&str>, redirects: Redirects, keepalive: bool) -> Result<Opened, FetchFailed> {
    let controller = AbortController::new().map_err(|e| FetchFailed(js_message(&e)))?;
    let guard = AbortOnDrop { controller, finished: false };
    let init = RequestInit::new();
    init.set_method(method);
    init.set_redirect(match redirects {
        Redirects::Follow => RequestRedirect::Follow,
        // The redirect comes back as an opaque response, which `is_redirect` recognises.
        Redirects::Refuse => RequestRedirect::Manual,
    });
    init.set_signal(Some(&guard.controller.signal()));
    // A request that must outlive the page (a session ended as the page goes away). web-sys
    // has no setter for this member of RequestInit, so it is set as the property it is.
    if keepalive {
        js_sys::Reflect::set(&init, &JsValue::from_str("keepalive"), &JsValue::TRUE).map_err(|e| FetchFailed(js_message(&e)))?;
    }
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
        .map_err(|e| if window.navigator().on_line() { FetchFailed(js_message(&e)) } else { FetchFailed::offline() })?
        .unchecked_into();
    Ok(Opened { response, guard, reader: None })
}

/// The most `get` reads of one answer: far more than any tool's service sends (a Wikipedia
/// extract, an arXiv feed), far less than would strain the page.
const BODY_LIMIT: usize = 4 * 1024 * 1024;

impl Streaming for Opened {
    fn status(&self) -> u16 {
        self.response.status()
    }
    fn header(&self, name: &str) -> Option<String> {
        self.response.headers().get(name).ok().flatten()
    }
    fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>> {
        Box::pin(self.next_chunk())
    }
    fn is_redirect(&self) -> bool {
        self.response.type_() == ResponseType::Opaqueredirect
    }
}

/// The browser's `fetch`, for the model client, the tools and MCP.
pub struct BrowserFetch;

impl Fetch for BrowserFetch {
    fn send_detached(&self, request: OwnedRequest) {
        // A task of its own, so dropping whatever asked for it does not abort it, and
        // `keepalive`, so the page going away does not either. The answer is not read: once
        // its headers are in, the request has done its work.
        wasm_bindgen_futures::spawn_local(async move {
            let _ = start(request.method, &request.url, &request.headers, request.body.as_deref(), request.redirects, true).await;
        });
    }
    fn get<'a>(&'a self, url: &'a str, headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(async move {
            let opened = start("GET", url, headers, None, Redirects::Follow, false).await?;
            let status = opened.status();
            let retry_after = opened.header("Retry-After");
            Ok(HttpResponse { status, retry_after, body: opened.text_limited(BODY_LIMIT).await? })
        })
    }

    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        Box::pin(async move {
            let opened = start(request.method, request.url, request.headers, request.body, request.redirects, false).await?;
            Ok(Box::new(opened) as Box<dyn Streaming>)
        })
    }

    fn redirect_target<'a>(&'a self, url: &'a str) -> LocalBoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let opened = start("GET", url, &[], None, Redirects::Follow, false).await.ok()?;
            // Dropping `opened` aborts the body, which is not needed.
            opened.response.redirected().then(|| opened.response.url())
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
