//! Python in the page, as a page service: the workers that run Pyodide (`www/python/worker.js`,
//! fetched from `python/` on first use), their messages turned into the pool's (`app::python`),
//! and what the pool decides carried out: workers started and ended, code posted, timers set,
//! calls answered. A run's calls go through its `Session`, the `Interpreter` the `python` tool
//! holds; when the run's tools are dropped, the session tells the pool the run ended.
//!
//! The worker talks over a `MessagePort` it keeps out of reach of the code it runs, and its
//! answers are read as untrusted: every text is bounded again here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;

use crate::app::python::{CallId, Do, Limits, Msg, Pool, RunKey, Status};
use crate::tools::python::{Install, Interpreter, Ran};

/// What a waiting call has heard: progress lines not yet told, and its answer.
#[derive(Default)]
struct Mailbox {
    progress: Vec<String>,
    answer: Option<Result<Ran, String>>,
    waker: Option<Waker>,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::new(Limits::default()));
    static CALLS: RefCell<HashMap<CallId, Rc<RefCell<Mailbox>>>> = RefCell::new(HashMap::new());
    static NEXT: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
    static STATUS: std::cell::OnceCell<ArcRwSignal<Status>> = const { std::cell::OnceCell::new() };
}

/// The runtime's state, for Settings (`python-status`).
pub fn status() -> ArcRwSignal<Status> {
    STATUS.with(|s| s.get_or_init(|| ArcRwSignal::new(Status::default())).clone())
}

fn next_id() -> u64 {
    NEXT.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    })
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Tells the pool `msg` and carries out what it decides.
fn tell(msg: Msg) {
    let todo = POOL.with(|p| p.borrow_mut().handle(msg, now()));
    let state = POOL.with(|p| p.borrow().status());
    status().set(state);
    for step in todo {
        carry_out(step);
    }
}

fn carry_out(step: Do) {
    match step {
        Do::Answer { call, result } => {
            if let Some(mailbox) = CALLS.with(|c| c.borrow_mut().remove(&call)) {
                let mut m = mailbox.borrow_mut();
                m.answer = Some(result);
                if let Some(w) = m.waker.take() {
                    w.wake();
                }
            }
        }
        Do::Progress { call, text } => {
            if let Some(mailbox) = CALLS.with(|c| c.borrow().get(&call).cloned()) {
                let mut m = mailbox.borrow_mut();
                m.progress.push(text);
                if let Some(w) = m.waker.take() {
                    w.wake();
                }
            }
        }
        other => page::carry_out(other),
    }
}

/// One run's interpreter. Dropped with the run's tools: the pool then ends it.
pub struct Session {
    run: RunKey,
    wall_ms: f64,
    install: Option<Install>,
}

/// The interpreter for a new run whose calls may each run `wall_s` seconds, and install
/// packages from `install` where the person allowed it.
pub fn session(wall_s: f64, install: Option<Install>) -> Rc<Session> {
    Rc::new(Session { run: next_id(), wall_ms: (wall_s * 1000.0).clamp(1000.0, 300_000.0), install })
}

impl Drop for Session {
    fn drop(&mut self) {
        tell(Msg::RunEnded { run: self.run });
    }
}

impl Interpreter for Session {
    fn run<'a>(&'a self, code: &'a str, progress: &'a dyn Fn(&str)) -> crate::agent::LocalBoxFuture<'a, Result<Ran, String>> {
        Box::pin(async move {
            let call = next_id();
            let mailbox = Rc::new(RefCell::new(Mailbox::default()));
            CALLS.with(|c| c.borrow_mut().insert(call, mailbox.clone()));
            tell(Msg::Call { run: self.run, call, code: code.to_string(), wall_ms: self.wall_ms, install: self.install.clone() });
            Heard { mailbox, progress }.await
        })
    }
}

/// Waits for a call's answer, telling its progress on the way.
struct Heard<'a> {
    mailbox: Rc<RefCell<Mailbox>>,
    progress: &'a dyn Fn(&str),
}

impl Future for Heard<'_> {
    type Output = Result<Ran, String>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let (lines, answer) = {
            let mut m = self.mailbox.borrow_mut();
            let lines = std::mem::take(&mut m.progress);
            let answer = m.answer.take();
            if answer.is_none() {
                m.waker = Some(cx.waker().clone());
            }
            (lines, answer)
        };
        for line in lines {
            (self.progress)(&line);
        }
        match answer {
            Some(a) => Poll::Ready(a),
            None => Poll::Pending,
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod page {
    use super::*;
    use crate::app::python::WorkerId;
    use crate::tools::python::{Raised, OUTPUT_KEPT};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};

    /// A live worker: its port, its interrupt buffer where the page can share memory, and the
    /// handlers kept alive with it.
    struct Live {
        worker: web_sys::Worker,
        port: web_sys::MessagePort,
        interrupt: Option<js_sys::Uint8Array>,
        _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
        _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
    }

    thread_local! {
        static LIVE: RefCell<HashMap<WorkerId, Live>> = RefCell::new(HashMap::new());
    }

/// A worker's `done` message, read as untrusted.
fn ran_from(data: &JsValue) -> (CallId, Ran, u64) {
    let text = |name: &str, most: usize| -> String {
        let mut s = js_sys::Reflect::get(data, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
        if s.len() > most {
            let mut end = most;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s.truncate(end);
        }
        s
    };
    let number = |name: &str| js_sys::Reflect::get(data, &name.into()).ok().and_then(|v| v.as_f64()).filter(|n| n.is_finite() && *n >= 0.0).unwrap_or(0.0);
    let error = js_sys::Reflect::get(data, &"error".into()).ok().filter(|e| e.is_object()).map(|e| Raised {
        name: ran_text(&e, "name", 200),
        traceback: ran_text(&e, "traceback", OUTPUT_KEPT),
    });
    let value = js_sys::Reflect::get(data, &"value".into()).ok().and_then(|v| v.as_string()).map(|v| {
        let (shown, _) = v.char_indices().nth(OUTPUT_KEPT).map_or((v.as_str(), 0), |(at, _)| (&v[..at], 1));
        shown.to_string()
    });
    let ran = Ran {
        stdout: text("stdout", OUTPUT_KEPT),
        stderr: text("stderr", OUTPUT_KEPT),
        stdout_cut: number("stdoutCut") as u64,
        stderr_cut: number("stderrCut") as u64,
        value,
        error,
        ms: number("ms"),
        note: None,
        network: network_of(data),
    };
    (number("id") as CallId, ran, number("memory") as u64)
}

/// The requests a call made to install packages, at most 51 lines of 300 characters.
fn network_of(data: &JsValue) -> Vec<String> {
    let Ok(list) = js_sys::Reflect::get(data, &"network".into()) else { return Vec::new() };
    if !js_sys::Array::is_array(&list) {
        return Vec::new();
    }
    js_sys::Array::from(&list).iter().take(51).filter_map(|v| v.as_string()).map(|l| l.chars().take(300).collect()).collect()
}

fn ran_text(object: &JsValue, name: &str, most: usize) -> String {
    let s = js_sys::Reflect::get(object, &name.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    s.chars().take(most).collect()
}

    fn field(data: &JsValue, name: &str) -> JsValue {
        js_sys::Reflect::get(data, &name.into()).unwrap_or(JsValue::UNDEFINED)
    }

    fn js_text(e: &JsValue) -> String {
        e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| "no reason given".into()).chars().take(300).collect()
    }

    fn worker_url() -> String {
        let base = web_sys::window().and_then(|w| w.document()).and_then(|d| d.base_uri().ok().flatten()).unwrap_or_default();
        web_sys::Url::new_with_base("python/worker.js", &base).map(|u| u.href()).unwrap_or_else(|_| "python/worker.js".into())
    }

    /// The start message's `install`: where the worker's Python may fetch packages from, or null.
    fn install_field(install: &Option<Install>) -> JsValue {
        let Some(install) = install else { return JsValue::NULL };
        let strings = |list: &[String]| list.iter().map(JsValue::from).collect::<js_sys::Array>();
        let field = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&field, &"indexUrls".into(), &strings(&install.index_urls));
        let _ = js_sys::Reflect::set(&field, &"hosts".into(), &strings(&install.hosts));
        field.into()
    }

    fn spawn(worker: WorkerId, install: &Option<Install>) -> Result<Live, String> {
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let w = web_sys::Worker::new_with_options(&worker_url(), &options).map_err(|e| format!("this browser could not start a worker ({})", js_text(&e)))?;
        let channel = web_sys::MessageChannel::new().map_err(|_| "this browser could not open a channel to the worker".to_string())?;
        let port = channel.port1();
        let isolated = js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false);
        let shared = if isolated { js_sys::SharedArrayBuffer::new(1).dyn_into::<JsValue>().ok() } else { None };
        let interrupt = shared.as_ref().map(js_sys::Uint8Array::new);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let data = event.data();
            match field(&data, "type").as_string().as_deref() {
                Some("progress") => tell(Msg::Loading { worker, loaded: field(&data, "loaded").as_f64().unwrap_or(0.0) as u64, total: field(&data, "total").as_f64().unwrap_or(0.0) as u64 }),
                Some("ready") => {
                    let memory = field(&data, "memory").as_f64().unwrap_or(0.0) as u64;
                    // The person's documents go in first, under /documents/: the port keeps
                    // order, so no code runs before they are there.
                    wasm_bindgen_futures::spawn_local(async move {
                        let files = crate::ui::services::documents::files().await;
                        if !files.is_empty() {
                            post_documents(worker, &files);
                        }
                        tell(Msg::Started { worker, result: Ok((memory, isolated)) });
                    });
                }
                Some("failed") => {
                    let why: String = field(&data, "message").as_string().unwrap_or_else(|| "the runtime failed".into()).chars().take(500).collect();
                    tell(Msg::Died { worker, why });
                }
                Some("done") => {
                    let (call, ran, memory) = ran_from(&data);
                    tell(Msg::Answered { worker, call, ran, memory });
                }
                _ => {}
            }
        });
        port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            let message = event.message();
            let why = if message.is_empty() { "the worker's script could not be loaded: is python/ on this site?".to_string() } else { message.chars().take(500).collect() };
            tell(Msg::Died { worker, why });
        });
        w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let start = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&start, &"type".into(), &"start".into());
        let _ = js_sys::Reflect::set(&start, &"port".into(), &channel.port2());
        let _ = js_sys::Reflect::set(&start, &"interrupt".into(), shared.as_ref().unwrap_or(&JsValue::NULL));
        let _ = js_sys::Reflect::set(&start, &"outputLimit".into(), &JsValue::from_f64(OUTPUT_KEPT as f64));
        let _ = js_sys::Reflect::set(&start, &"install".into(), &install_field(install));
        let transfer = js_sys::Array::of1(&channel.port2());
        w.post_message_with_transfer(&start, &transfer).map_err(|e| format!("the worker could not be started ({})", js_text(&e)))?;
        Ok(Live { worker: w, port, interrupt, _on_message: on_message, _on_error: on_error })
    }

    /// Posts the documents to a worker, to be written read-only under /documents/.
    fn post_documents(worker: WorkerId, files: &[(String, Vec<u8>)]) {
        let list = js_sys::Array::new();
        for (name, bytes) in files {
            let file = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&file, &"name".into(), &name.into());
            let _ = js_sys::Reflect::set(&file, &"bytes".into(), &js_sys::Uint8Array::from(bytes.as_slice()));
            list.push(&file);
        }
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"documents".into());
        let _ = js_sys::Reflect::set(&message, &"files".into(), &list);
        LIVE.with(|l| {
            if let Some(live) = l.borrow().get(&worker) {
                let _ = live.port.post_message(&message);
            }
        });
    }

    pub(super) fn carry_out(step: Do) {
        match step {
            Do::Spawn { worker, install } => match spawn(worker, &install) {
                Ok(live) => {
                    LIVE.with(|l| l.borrow_mut().insert(worker, live));
                }
                // Told after this step: the pool is not borrowed while it decides.
                Err(why) => {
                    wasm_bindgen_futures::spawn_local(async move { tell(Msg::Died { worker, why }) });
                }
            },
            Do::Send { worker, call, code } => {
                let sent = LIVE.with(|l| {
                    l.borrow().get(&worker).map(|live| {
                        if let Some(flag) = &live.interrupt {
                            flag.set_index(0, 0);
                        }
                        let message = js_sys::Object::new();
                        let _ = js_sys::Reflect::set(&message, &"type".into(), &"run".into());
                        let _ = js_sys::Reflect::set(&message, &"id".into(), &JsValue::from_f64(call as f64));
                        let _ = js_sys::Reflect::set(&message, &"code".into(), &code.into());
                        live.port.post_message(&message).is_ok()
                    })
                });
                if sent != Some(true) {
                    wasm_bindgen_futures::spawn_local(async move { tell(Msg::Died { worker, why: "the code could not be posted to it".into() }) });
                }
            }
            Do::Interrupt { worker } => LIVE.with(|l| {
                if let Some(flag) = l.borrow().get(&worker).and_then(|live| live.interrupt.as_ref()) {
                    // 2 is SIGINT: Python raises KeyboardInterrupt at its next check.
                    flag.set_index(0, 2);
                }
            }),
            Do::End { worker } => {
                if let Some(live) = LIVE.with(|l| l.borrow_mut().remove(&worker)) {
                    live.port.set_onmessage(None);
                    live.worker.set_onerror(None);
                    live.worker.terminate();
                }
            }
            Do::Wake { at, worker, call } => {
                let wait = (at - now()).max(0.0);
                let fire = Closure::once_into_js(move || tell(Msg::TimeUp { worker, call }));
                if let Some(window) = web_sys::window() {
                    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(fire.unchecked_ref(), wait.min(i32::MAX as f64) as i32);
                }
            }
            Do::Answer { .. } | Do::Progress { .. } => {}
        }
    }
}

/// Native builds (tests) have no workers; runs, which would use them, need a browser too.
#[cfg(not(target_arch = "wasm32"))]
mod page {
    pub(super) fn carry_out(_: super::Do) {}
}
