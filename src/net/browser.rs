//! `fetch` for the browser, with an `AbortController` tied to the future: dropping the future
//! (Stop, a time limit) aborts the request, so nothing keeps running behind the person's back.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Request, RequestInit, Response};

use super::{Fetch, FetchFailed, HttpResponse};
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

pub async fn send(method: &str, url: &str, headers: &[(&str, String)], body: Option<&str>) -> Result<HttpResponse, FetchFailed> {
    let controller = AbortController::new().map_err(|e| FetchFailed(js_message(&e)))?;
    let mut guard = AbortOnDrop { controller, finished: false };
    let init = RequestInit::new();
    init.set_method(method);
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
    let text = response.text().map_err(|e| FetchFailed(js_message(&e)))?;
    let body = JsFuture::from(text).await.map_err(|e| FetchFailed(js_message(&e)))?;
    guard.finished = true;
    Ok(HttpResponse {
        status: response.status(),
        body: body.as_string().unwrap_or_default(),
        retry_after: response.headers().get("Retry-After").ok().flatten(),
    })
}

pub async fn post(url: &str, headers: &[(&str, String)], body: &str) -> Result<HttpResponse, FetchFailed> {
    send("POST", url, headers, Some(body)).await
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
}
