//! Views of tools' results (MCP Apps) as a page service: the views of this page's runs
//! (`app::mcp::views`, the state the frames under the answers draw, `ui::widgets::views`), each
//! frame's page read from its server, handed to the sandbox proxy (`sandbox.html`, sandboxed on
//! an opaque origin) with its own Content Security Policy written in first, and the messages
//! between the frame and the page: the bridge's answers posted, a tool of the view's server
//! called through the page's client, a link opened apart, a message put in the composer.

use std::cell::RefCell;

use leptos::prelude::*;
use serde_json::Value;

use crate::app::mcp::views::{Do, Host, Msg, ViewCall, Views};
use crate::ui::services::mcp::Mcp;

thread_local! {
    /// The page's views, made on first use, never owned by a view that may go away.
    static VIEWS: std::cell::OnceCell<ArcRwSignal<Views>> = const { std::cell::OnceCell::new() };
    /// Where views are, by conversation id and run: all the first screen reads (the views
    /// themselves, and the code that draws them, come with their part).
    static PLACES: std::cell::OnceCell<ArcRwSignal<Vec<(String, usize)>>> = const { std::cell::OnceCell::new() };
    /// A message a view suggests, for the composer to take.
    static SUGGESTED: std::cell::OnceCell<ArcRwSignal<Option<String>>> = const { std::cell::OnceCell::new() };
    /// The page's MCP servers (set when a run first shows a view).
    static PAGE: std::cell::Cell<Option<Mcp>> = const { std::cell::Cell::new(None) };
    /// Each view's page, with its policy written in, until its proxy is ready for it.
    static PAGES: RefCell<Vec<(u64, String)>> = const { RefCell::new(Vec::new()) };
}

/// The views, for the widgets.
pub fn views() -> ArcRwSignal<Views> {
    VIEWS.with(|v| v.get_or_init(|| ArcRwSignal::new(Views::default())).clone())
}

/// The runs that have views, by conversation id and run.
pub fn places() -> ArcRwSignal<Vec<(String, usize)>> {
    PLACES.with(|p| p.get_or_init(|| ArcRwSignal::new(Vec::new())).clone())
}

/// A message a view suggested (the composer takes it, then clears it).
pub fn suggested() -> ArcRwSignal<Option<String>> {
    SUGGESTED.with(|s| s.get_or_init(|| ArcRwSignal::new(None)).clone())
}

/// A run's call in `chat` came with a view (`RunObserver::on_tool_view`): it joins the views,
/// and its page is read from its server.
pub fn shown(page: Mcp, chat: String, run: usize, step: u32, view: &Value) {
    let Some(call) = ViewCall::read(view) else { return };
    PAGE.with(|p| p.set(Some(page)));
    if !places().with_untracked(|p| p.iter().any(|(c, r)| *c == chat && *r == run)) {
        places().update(|p| p.push((chat.clone(), run)));
    }
    let id = views().try_update(|v| {
        v.handle(Msg::Shown { chat, run, step, call: call.clone() }, &Host::default());
        v.last_id()
    });
    if let Some(id) = id {
        io::load(page, id, call);
    }
}

/// The host context a view is told, and the tools of its server.
fn host(view: u64) -> Host {
    let server = views().with_untracked(|v| v.get(view).map(|l| l.call.server.clone())).unwrap_or_default();
    let tools = PAGE
        .with(std::cell::Cell::get)
        .and_then(|page| page.settings().with_untracked(|s| s.tools.mcp.servers.iter().find(|s| s.url.trim() == server && s.common.enabled).map(|s| s.tools.clone())))
        .unwrap_or_default();
    let (locale, time_zone) = io::locale();
    Host { theme: crate::ui::services::theme::current_name(), locale, time_zone, tools }
}

/// The view of `run`'s call in `step`, in the chat `chat`, when one is shown.
pub fn view_of(chat: &str, run: usize, step: u32) -> Option<u64> {
    views().with(|v| v.of(chat, run).iter().find(|l| l.step == step).map(|l| l.id))
}

/// Brings view `view` into sight (a trace row's "its view").
pub fn scroll_to_view(view: u64) {
    #[cfg(target_arch = "wasm32")]
    if let Some(element) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(&format!("[data-testid=\"mcp-app-view\"][data-view=\"{view}\"]")).ok().flatten()) {
        crate::ui::services::dom::scroll_to(&element);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = view;
}

/// What a view (or the person, about it) did.
pub fn send(msg: Msg) {
    let view = match &msg {
        Msg::Shown { .. } => 0,
        Msg::Loaded { view } | Msg::Failed { view, .. } | Msg::FromView { view, .. } | Msg::Answer { view, .. } | Msg::Called { view, .. } | Msg::Close { view } | Msg::Gone { view } => *view,
    };
    let host = host(view);
    let todo = views().try_update(|v| v.handle(msg, &host)).unwrap_or_default();
    for step in todo {
        match step {
            Do::Post { view, message } => io::post(view, &message),
            Do::Call { view, id, name, arguments } => io::call(view, id, name, arguments),
            Do::Open { url } => crate::ui::services::page::open_apart(&url),
            Do::Compose { text } => {
                suggested().set(Some(text));
            }
            // A closing view has a moment to answer its teardown before it goes.
            Do::Closing { view } => crate::ui::services::page::after(std::time::Duration::from_millis(CLOSING_MS), move || send(Msg::Gone { view })),
            Do::Remove { view } => io::forget(view),
        }
    }
}

/// How long a closing view has to answer its teardown.
const CLOSING_MS: u64 = 500;

#[cfg(target_arch = "wasm32")]
mod io {
    use std::cell::{Cell, RefCell};

    use leptos::prelude::*;
    use serde_json::Value;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    use super::{send, views, PAGE, PAGES};
    use crate::app::mcp::views::{Msg, ViewCall};
    use crate::tools::mcp::app::{read_view, with_policy};
    use crate::ui::services::mcp::Mcp;

    /// The largest message taken from a frame.
    const MESSAGE_LIMIT: usize = 4 << 20;

    thread_local! {
        /// Each view's frame (the proxy's), once drawn.
        static FRAMES: RefCell<Vec<(u64, web_sys::HtmlIFrameElement)>> = const { RefCell::new(Vec::new()) };
        static LISTENING: Cell<bool> = const { Cell::new(false) };
    }

    /// Reads the view's page from its server and keeps it, with its policy, for its frame.
    pub fn load(page: Mcp, id: u64, call: ViewCall) {
        listen();
        leptos::task::spawn_local(async move {
            let server = page.settings().with_untracked(|s| s.tools.mcp.servers.iter().find(|s| s.url.trim() == call.server).cloned());
            let Some(server) = server else {
                send(Msg::Failed { view: id, why: "its server is no longer in Settings".into() });
                return;
            };
            let client = crate::ui::services::hub::hub(page).client(&server);
            let read = crate::ui::services::hub::within(&server, client.read_resource_whole(&call.uri)).await;
            match read.and_then(|result| read_view(&result)) {
                Ok(view) => {
                    let html = with_policy(&view.html, &view.csp.policy());
                    PAGES.with(|p| p.borrow_mut().push((id, html)));
                    // A frame drawn before the page arrived was waiting for it.
                    if FRAMES.with(|f| f.borrow().iter().any(|(v, _)| *v == id)) {
                        hand_over(id);
                    }
                }
                Err(why) => send(Msg::Failed { view: id, why }),
            }
        });
    }

    /// The view's frame is drawn (its proxy loads, then says it is ready).
    pub fn attach(view: u64, frame: web_sys::HtmlIFrameElement) {
        FRAMES.with(|f| {
            let mut frames = f.borrow_mut();
            frames.retain(|(v, _)| *v != view);
            frames.push((view, frame));
        });
    }

    pub fn forget(view: u64) {
        PAGES.with(|p| p.borrow_mut().retain(|(v, _)| *v != view));
        // Its frame goes with its place in the views (`widgets::views`).
        FRAMES.with(|f| f.borrow_mut().retain(|(v, _)| *v != view));
    }

    fn frame_of(view: u64) -> Option<web_sys::HtmlIFrameElement> {
        FRAMES.with(|f| f.borrow().iter().find(|(v, _)| *v == view).map(|(_, frame)| frame.clone()))
    }

    /// Sends `message` to the view's frame (through its proxy).
    pub fn post(view: u64, message: &Value) {
        let (Some(frame), Ok(data)) = (frame_of(view), js_sys::JSON::parse(&message.to_string())) else { return };
        if let Some(window) = frame.content_window() {
            // The proxy's origin is opaque: no name to address it by. What goes is the view's
            // own call and its server's answers.
            let _ = window.post_message(&data, "*");
        }
    }

    /// The proxy is ready: the view's page goes in.
    fn hand_over(view: u64) {
        let Some(html) = PAGES.with(|p| p.borrow().iter().find(|(v, _)| *v == view).map(|(_, html)| html.clone())) else { return };
        post(view, &serde_json::json!({"jsonrpc": "2.0", "method": "ui/notifications/sandbox-resource-ready", "params": {"html": html}}));
        send(Msg::Loaded { view });
    }

    /// Calls `name` of the view's server for the view.
    pub fn call(view: u64, id: Value, name: String, arguments: Value) {
        let Some(page) = PAGE.with(Cell::get) else { return };
        let server_url = views().with_untracked(|v| v.get(view).map(|l| l.call.server.clone())).unwrap_or_default();
        leptos::task::spawn_local(async move {
            let server = page.settings().with_untracked(|s| s.tools.mcp.servers.iter().find(|s| s.url.trim() == server_url).cloned());
            let outcome = match server {
                Some(server) => {
                    let client = crate::ui::services::hub::hub(page).client(&server);
                    crate::ui::services::hub::within(&server, client.call_tool(&name, arguments, None)).await
                }
                None => Err("its server is no longer in Settings".into()),
            };
            send(Msg::Called { view, id, outcome });
        });
    }

    /// The page's language and time zone, as the browser says.
    pub fn locale() -> (String, String) {
        let options = js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new()).resolved_options();
        let get = |name: &str| js_sys::Reflect::get(&options, &JsValue::from_str(name)).ok().and_then(|v| v.as_string()).unwrap_or_default();
        (get("locale"), get("timeZone"))
    }

    /// Messages from the frames: each taken only from the frame it belongs to.
    fn listen() {
        if LISTENING.with(|l| l.replace(true)) {
            return;
        }
        let Some(window) = web_sys::window() else { return };
        let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(source) = event.source() else { return };
            let view = FRAMES.with(|f| {
                f.borrow().iter().find(|(_, frame)| frame.content_window().is_some_and(|w| JsValue::from(w) == JsValue::from(source.clone()))).map(|(v, _)| *v)
            });
            let Some(view) = view else { return };
            let Some(text) = js_sys::JSON::stringify(&event.data()).ok().and_then(|t| t.as_string()) else { return };
            if text.len() > MESSAGE_LIMIT {
                return;
            }
            let Ok(message) = serde_json::from_str::<Value>(&text) else { return };
            if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
                return;
            }
            if message.get("method").and_then(Value::as_str) == Some("ui/notifications/sandbox-proxy-ready") {
                hand_over(view);
                return;
            }
            send(Msg::FromView { view, message });
        });
        let _ = window.add_event_listener_with_callback("message", handler.as_ref().unchecked_ref());
        handler.forget();
    }
}

/// Native builds (tests) have no frames.
#[cfg(not(target_arch = "wasm32"))]
mod io {
    use serde_json::Value;

    use crate::app::mcp::views::ViewCall;
    use crate::ui::services::mcp::Mcp;

    pub fn load(_page: Mcp, _id: u64, _call: ViewCall) {}
    pub fn post(_view: u64, _message: &Value) {}
    pub fn call(_view: u64, _id: Value, _name: String, _arguments: Value) {}
    pub fn forget(_view: u64) {}
    pub fn locale() -> (String, String) {
        (String::new(), String::new())
    }
}

#[cfg(target_arch = "wasm32")]
pub use io::attach;
