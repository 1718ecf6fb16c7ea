//! The one seam to the in-page engine: the JS module `in-page/engine.js` (beside the page,
//! wrapping `@wllama/wllama`), imported the first time it is needed, never on the first screen.
//! Every call here turns the module's promises into `Result`s whose error is the module's own
//! sentence and kind (`llm::in_page::EngineError`).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::agent::LocalBoxFuture;
use crate::llm::in_page::{Engine, EngineError, EngineReply, EngineRequest, Finish};

use super::{Environment, Loaded, ModelSource, Progress};

use crate::browser::import_module;

thread_local! {
    static MODULE: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

fn error(kind: &str, message: impl Into<String>) -> EngineError {
    EngineError { kind: kind.into(), message: message.into() }
}

/// A rejected promise as the engine's error: its `kind` and `message`, or the bare text.
fn from_js(e: JsValue) -> EngineError {
    let text = |name: &str| Reflect::get(&e, &name.into()).ok().and_then(|v| v.as_string());
    match (text("kind"), text("message")) {
        (Some(kind), Some(message)) => error(&kind, message),
        (None, Some(message)) => error("other", message),
        _ => error("other", e.as_string().unwrap_or_else(|| "The model in this page failed without saying why.".into())),
    }
}

/// The engine module, imported once (a failed import is tried again next time).
async fn module() -> Result<JsValue, EngineError> {
    if let Some(m) = MODULE.with(|m| m.borrow().clone()) {
        return Ok(m);
    }
    let base = web_sys::window().and_then(|w| w.document()).and_then(|d| d.base_uri().ok().flatten()).unwrap_or_default();
    let url = web_sys::Url::new_with_base("in-page/engine.js", &base).map(|u| u.href()).unwrap_or_else(|_| "in-page/engine.js".into());
    let m = JsFuture::from(import_module(&url)).await.map_err(|e| {
        let why = from_js(e).message;
        error("blocked", format!("The in-page engine could not be loaded from this site ({why}). Check the connection and reload the page."))
    })?;
    MODULE.with(|slot| *slot.borrow_mut() = Some(m.clone()));
    Ok(m)
}

async fn call(name: &str, args: &[JsValue]) -> Result<JsValue, EngineError> {
    let m = module().await?;
    let f: Function = Reflect::get(&m, &name.into()).ok().and_then(|f| f.dyn_into().ok()).ok_or_else(|| error("other", format!("The in-page engine has no {name}.")))?;
    let array = args.iter().collect::<js_sys::Array>();
    let value = f.apply(&JsValue::NULL, &array).map_err(from_js)?;
    match value.dyn_into::<Promise>() {
        Ok(p) => JsFuture::from(p).await.map_err(from_js),
        Err(plain) => Ok(plain),
    }
}

fn json(value: &serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}

/// Chat messages as the engine takes them: `[{ role, content }]`.
fn messages(list: &[(&str, String)]) -> js_sys::Array {
    list.iter().map(|(role, content)| json(&serde_json::json!({ "role": role, "content": content }))).collect()
}

fn get_f64(v: &JsValue, name: &str) -> f64 {
    Reflect::get(v, &name.into()).ok().and_then(|x| x.as_f64()).unwrap_or(0.0)
}

fn get_string(v: &JsValue, name: &str) -> String {
    Reflect::get(v, &name.into()).ok().and_then(|x| x.as_string()).unwrap_or_default()
}

fn get_bool(v: &JsValue, name: &str) -> bool {
    Reflect::get(v, &name.into()).ok().is_some_and(|x| x.is_truthy())
}

fn set(target: &Object, name: &str, value: &JsValue) {
    let _ = Reflect::set(target, &name.into(), value);
}

/// Aborts its controller when dropped: dropping a call's future stops the engine's work.
struct AbortOnDrop(web_sys::AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn controller() -> Result<AbortOnDrop, EngineError> {
    web_sys::AbortController::new().map(AbortOnDrop).map_err(|_| error("other", "This browser cannot cancel work (no AbortController)."))
}

/// What this browser can do for the engine.
pub async fn environment() -> Result<Environment, EngineError> {
    let v = call("environment", &[]).await?;
    Ok(Environment { threads: get_f64(&v, "threads") as u32, supported: get_bool(&v, "supported"), note: get_string(&v, "note") })
}

/// The download size of a model, when its server says.
pub async fn model_size(url: &str) -> Result<Option<f64>, EngineError> {
    let v = call("modelSize", &[url.into()]).await?;
    Ok(v.as_f64())
}

/// The models kept in this browser.
pub async fn cached_models() -> Result<Vec<(String, String, f64)>, EngineError> {
    let v = call("cachedModels", &[]).await?;
    let list: js_sys::Array = v.dyn_into().unwrap_or_default();
    Ok(list.iter().map(|m| (get_string(&m, "url"), get_string(&m, "name"), get_f64(&m, "sizeBytes"))).collect())
}

pub async fn delete_cached(url: &str) -> Result<bool, EngineError> {
    Ok(call("deleteCached", &[url.into()]).await?.is_truthy())
}

/// Loads a model, reporting download progress; dropping the future cancels it (and nothing
/// half-downloaded is kept).
pub async fn load(source: &ModelSource, n_ctx: u32, on_progress: Rc<dyn Fn(Progress)>) -> Result<Loaded, EngineError> {
    let abort = controller()?;
    let src = Object::new();
    match source {
        ModelSource::Url(url) => set(&src, "url", &url.into()),
        ModelSource::Files(files) => set(&src, "files", &files.iter().collect::<js_sys::Array>()),
    }
    let options = Object::new();
    set(&options, "nCtx", &n_ctx.into());
    set(&options, "signal", &abort.0.signal());
    let progress = Closure::<dyn Fn(JsValue)>::new(move |p: JsValue| {
        on_progress(Progress { loaded: get_f64(&p, "loaded"), total: get_f64(&p, "total"), bytes_per_second: get_f64(&p, "bytesPerSecond") })
    });
    set(&options, "onProgress", progress.as_ref());
    let v = call("load", &[src.into(), options.into()]).await?;
    drop(progress);
    Ok(Loaded {
        name: get_string(&v, "name"),
        size_bytes: get_f64(&v, "sizeBytes"),
        n_ctx: get_f64(&v, "nCtx") as u32,
        threads: get_f64(&v, "threads") as u32,
        backend: get_string(&v, "backend"),
        cached: get_bool(&v, "cached"),
    })
}

/// Processes the start of a prompt (the agent's system prompt) ahead of the first question.
pub async fn warm(list: &[(&str, String)]) -> Result<(), EngineError> {
    call("warm", &[messages(list).into()]).await.map(|_| ())
}

/// How often streamed text is handed on while a reply is written (the engine's callback holds
/// no reference to the caller's, which lives only as long as the call).
const STREAM_TICK_MS: f64 = 30.0;

/// The loaded model as the agent's `Engine`.
#[derive(Clone, Copy, Default)]
pub struct BrowserEngine;

thread_local! {
    /// A reply is being written: the engine writes one at a time, and a second chat would end
    /// the first, so a second caller (Compare's other side) waits its turn.
    static CHATTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Holds the engine for one chat; letting go (however the chat ends) frees it.
struct Turn;

impl Turn {
    async fn take() -> Turn {
        while CHATTING.with(|c| c.replace(true)) {
            crate::agent::Clock::sleep(&crate::browser::BrowserClock, STREAM_TICK_MS).await;
        }
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        CHATTING.with(|c| c.set(false));
    }
}

impl Engine for BrowserEngine {
    fn chat<'a>(&'a self, request: EngineRequest, on_text: &'a dyn Fn(&str)) -> LocalBoxFuture<'a, Result<EngineReply, EngineError>> {
        Box::pin(async move {
            let _turn = Turn::take().await;
            let abort = controller()?;
            let messages = messages(&request.messages);
            let options = Object::new();
            set(&options, "maxTokens", &request.max_tokens.into());
            set(&options, "temperature", &(request.temperature as f64).into());
            set(&options, "stop", &json(&serde_json::json!(request.stop)));
            if let Some(schema) = &request.json_schema {
                set(&options, "jsonSchema", &json(schema));
            }
            set(&options, "signal", &abort.0.signal());
            // The closure may be called only while this future is alive: it is dropped with it.
            let pending = Rc::new(RefCell::new(String::new()));
            let sink = pending.clone();
            let on_delta = Closure::<dyn Fn(JsValue)>::new(move |d: JsValue| {
                if let Some(text) = d.as_string() {
                    sink.borrow_mut().push_str(&text);
                }
            });
            set(&options, "onText", on_delta.as_ref());
            let args = [messages.into(), options.into()];
            let result = call("chat", &args);
            // Streamed text is handed on as it arrives, between the engine's callbacks.
            let mut result = std::pin::pin!(result);
            let v = loop {
                let tick = crate::agent::Clock::sleep(&crate::browser::BrowserClock, STREAM_TICK_MS);
                match crate::agent::time::race(result.as_mut(), tick).await {
                    crate::agent::time::Either::Left(done) => break done,
                    crate::agent::time::Either::Right(()) => {
                        let text = std::mem::take(&mut *pending.borrow_mut());
                        if !text.is_empty() {
                            on_text(&text);
                        }
                    }
                }
            };
            let rest = std::mem::take(&mut *pending.borrow_mut());
            if !rest.is_empty() {
                on_text(&rest);
            }
            drop(on_delta);
            let v = v?;
            let finish = match get_string(&v, "finishReason").as_str() {
                "length" => Finish::Length,
                "aborted" => Finish::Aborted,
                _ => Finish::Stop,
            };
            Ok(EngineReply {
                text: get_string(&v, "text"),
                finish,
                prompt_tokens: get_f64(&v, "promptTokens") as u32,
                completion_tokens: get_f64(&v, "completionTokens") as u32,
            })
        })
    }
}

thread_local! {
    /// The model loaded now: what it was loaded from (its URL, or the picked files' names) and
    /// with which context size, and what the engine said of it.
    static LOADED: RefCell<Option<(String, u32, Loaded)>> = const { RefCell::new(None) };
}

/// Loads the model unless it is the one loaded already, saying how it goes through `report`:
/// first how big the download is, then bytes, percent and speed, then what was loaded (or why
/// not). Dropping the future cancels the load.
pub async fn ensure_loaded(key: &str, source: ModelSource, n_ctx: u32, report: Rc<dyn Fn(super::Status)>) -> Result<Loaded, EngineError> {
    use super::Status;
    if let Some(loaded) = LOADED.with(|l| l.borrow().as_ref().filter(|(k, n, _)| k == key && *n == n_ctx).map(|(_, _, loaded)| loaded.clone())) {
        report(Status::Ready(loaded.clone()));
        return Ok(loaded);
    }
    LOADED.with(|l| *l.borrow_mut() = None);
    let total = match &source {
        ModelSource::Url(url) => {
            report(Status::Measuring);
            model_size(url).await.ok().flatten().unwrap_or(0.0)
        }
        ModelSource::Files(files) => files.iter().map(|f| f.size()).sum(),
    };
    report(Status::Downloading(Progress { loaded: 0.0, total, bytes_per_second: 0.0 }));
    let progress_report = report.clone();
    let on_progress: Rc<dyn Fn(Progress)> = Rc::new(move |p: Progress| {
        let total = if p.total > 0.0 { p.total } else { total };
        progress_report(Status::Downloading(Progress { total, ..p }))
    });
    match load(&source, n_ctx, on_progress).await {
        Ok(loaded) => {
            LOADED.with(|l| *l.borrow_mut() = Some((key.to_string(), n_ctx, loaded.clone())));
            report(Status::Ready(loaded.clone()));
            Ok(loaded)
        }
        Err(e) => {
            report(Status::Failed(e.message.clone()));
            Err(e)
        }
    }
}

/// Forgets the loaded model (after its file was deleted from this browser's storage).
pub async fn unload() {
    LOADED.with(|l| *l.borrow_mut() = None);
    let _ = call("unload", &[]).await;
}
