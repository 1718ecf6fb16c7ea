//! An MCP client over the Streamable HTTP transport (protocol 2025-11-25, the version the
//! current official TypeScript SDK speaks; older servers' 2025-06-18 and 2025-03-26 answers
//! are accepted too). Every JSON-RPC message is its own POST with `Accept: application/json,
//! text/event-stream`; the answer is one JSON body or an SSE stream that may carry the
//! server's notifications and requests before the response. After `initialize` every request
//! carries `MCP-Protocol-Version` and, when the server gave one, `Mcp-Session-Id`; a 404 on a
//! request that carried a session id means the session expired, and the client initialises
//! again, once.
//!
//! All I/O goes through `net::Fetch`, so the whole exchange is tested natively with a scripted
//! server. Dropping a future abandons its request (in the page: aborts the fetch), which is how
//! Stop and time limits end a call; a request dropped before its answer is also cancelled with
//! the server (`notifications/cancelled`), so it can stop the work, and a client nothing holds
//! any more ends its session (`DELETE`). Every failure is an `McpError` whose message names
//! the server and says what to do; the secret never appears in one.
//!
//! This file is the async driver (connect, the lists, calls, a POST and its answer); what has
//! no I/O sits beside it: `wire.rs` (ids, headers, redirects, the `initialize` answer),
//! `session.rs` (the session and its end), `items.rs` (list entries), `errors.rs` (what went
//! wrong, in words); `signing.rs` (tokens of servers one signs in to), `listen.rs` (the event
//! stream).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use super::jsonrpc::{self, Incoming, RpcError};
use super::schema::DESCRIPTION_LIMIT;
use super::settings::{McpArgument, McpItem, McpServer, McpToolInfo};
pub use listen::ListenEnd;
pub use sampling::SampleJob;
use crate::agent::CancelToken;
use crate::net::sse::SseDecoder;
use crate::net::{Fetch, FetchFailed, HttpRequest, OwnedRequest, Redirects, Streaming};

/// The protocol version this client asks for: `LATEST_PROTOCOL_VERSION` of
/// `@modelcontextprotocol/sdk` 1.32.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions a server may answer with. All of them use the framing implemented here.
pub const SUPPORTED_VERSIONS: [&str; 3] = [PROTOCOL_VERSION, "2025-06-18", "2025-03-26"];

/// The largest answer read (a tool list with big schemas, a long tool result).
const BODY_LIMIT: usize = 4 << 20;
/// What is kept of an error body: enough for a JSON-RPC error.
const ERROR_BODY_LIMIT: usize = 64 << 10;
/// Characters kept of a server's `instructions` (they go into every system prompt).
pub const INSTRUCTIONS_LIMIT: usize = 2000;
/// Messages of a prompt kept as the question (`get_prompt`).
const PROMPT_MESSAGES: usize = 20;
/// Bytes read of a GET's event stream looking for the older transport's `endpoint` event.
const OLDER_GREETING_LIMIT: usize = 4096;
/// `tools/list` pages followed, and tools kept, per server.
const PAGE_LIMIT: usize = 20;
const TOOL_LIMIT: usize = 300;

mod errors;
mod items;
mod listen;
mod resume;
#[cfg(test)]
pub(crate) use resume::RESUME_LIMIT_FOR_TESTS;
mod sampling;
mod session;
mod signing;
mod visit;
mod wire;

use session::{Answer, Failure, InFlight, Session, Unanswered};

pub use items::unservable;
use items::{item, tool_info};
use wire::valid_session_id;
pub use signing::{Authorizer, Waited};

/// Why an MCP exchange failed, by what the person can do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpErrorKind {
    /// Nothing answers at the address (not running, wrong address, offline).
    Unreachable,
    /// The server answers but does not allow this page (CORS), or hides its session header.
    Blocked,
    /// 401/403: the token is missing or wrong, or the server refuses this origin.
    Auth,
    /// 401 from a server the person signs in to (OAuth): a sign-in is needed, or a new one.
    SignIn,
    /// Something answers, but not as an MCP server over Streamable HTTP.
    NotMcp,
    /// The server answered with an error of its own (JSON-RPC error, other HTTP status).
    Refused,
    /// The server went away while a request was in flight.
    Lost,
    /// The server wants the person to visit addresses first (`McpError::visits`), then the
    /// request can be sent again.
    VisitFirst,
}

#[derive(Debug, Clone, PartialEq)]
pub struct McpError {
    pub kind: McpErrorKind,
    /// A sentence naming the server and what to do.
    pub message: String,
    /// What the server asks the person to visit first (`VisitFirst`), read and bounded.
    pub visits: Vec<super::elicit::Asked>,
}

impl McpError {
    fn new(kind: McpErrorKind, message: impl Into<String>) -> Self {
        McpError { kind, message: message.into(), visits: Vec::new() }
    }
}

/// Whether a refusal means the server does not know the session the request carried: 404, as
/// the protocol asks, or 400 whose body says the session is missing, invalid or unknown (what
/// the reference servers of `@modelcontextprotocol/sdk` answer after a restart). Any other 400
/// is the server refusing the request itself.
pub fn session_unknown(status: u16, body: &str) -> bool {
    match status {
        404 => true,
        400 => {
            let body = body.to_ascii_lowercase();
            body.contains("session")
                && ["no valid", "invalid", "missing", "unknown", "not found", "expired", "required"].iter().any(|why| body.contains(why))
        }
        _ => false,
    }
}

/// How reading an answer's stream ended.
enum Read {
    Answer(Incoming),
    /// The stream ended first: its last event ID, and the wait it asked for (`retry`).
    Closed { last_id: Option<String>, retry_ms: Option<u64> },
}

/// What a call hears while it waits, besides its answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// Progress the server reports (`notifications/progress`), as a line of text.
    Progress(String),
    /// The server asked the person something (`true`), or they answered (`false`).
    Asking(bool),
    /// What the person was asked and answered, for the trace (before `Asking(false)`).
    Answered(crate::agent::AskedYou),
    /// A request to use the model, approved: the call runs it on its run's model and answers.
    Sample(SampleJob),
}


/// What a call hears while it waits (`next`): its progress, and the person being asked.
#[derive(Clone, Default)]
pub struct ProgressFeed(Rc<RefCell<(std::collections::VecDeque<Heard>, Option<std::task::Waker>)>>);

impl ProgressFeed {
    fn push(&self, heard: Heard) {
        let waker = {
            let mut state = self.0.borrow_mut();
            // A server that floods is read at its latest: a few lines are enough to show.
            // (Only progress lines are dropped: a wait on the person is always heard.)
            if state.0.len() >= 16 {
                if let Some(at) = state.0.iter().position(|h| matches!(h, Heard::Progress(_))) {
                    state.0.remove(at);
                }
            }
            state.0.push_back(heard);
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// What was heard and not read yet, without waiting.
    pub fn drain(&self) -> Vec<Heard> {
        self.0.borrow_mut().0.drain(..).collect()
    }

    /// The next thing heard (waits for one).
    pub fn next(&self) -> impl std::future::Future<Output = Heard> + '_ {
        std::future::poll_fn(move |cx| {
            let mut state = self.0.borrow_mut();
            match state.0.pop_front() {
                Some(text) => std::task::Poll::Ready(text),
                None => {
                    state.1 = Some(cx.waker().clone());
                    std::task::Poll::Pending
                }
            }
        })
    }
}

/// A progress notification as a line: "3 of 8: reading page 3", "40%", or the message.
pub fn progress_text(params: &Value) -> Option<String> {
    let progress = params.get("progress").and_then(Value::as_f64)?;
    let total = params.get("total").and_then(Value::as_f64);
    let message = params.get("message").and_then(Value::as_str).map(jsonrpc::bounded).filter(|m| !m.is_empty());
    let amount = match total {
        Some(total) if total > 0.0 => format!("{} of {}", number(progress), number(total)),
        _ => number(progress),
    };
    Some(match message {
        Some(message) => format!("{amount}: {message}"),
        None => amount,
    })
}

fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n:.2}")
    }
}

/// How the page's connection to a server stands, as Settings shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum McpState {
    /// A session is open.
    Connected(ServerInfo),
    /// The server forgot the session (a restart); a new one is being started.
    Reconnecting,
    /// Starting a session failed, or the server cannot be reached: the message says why.
    Failed(String),
}

/// What the server said about itself on `initialize`.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerInfo {
    pub name: String,
    pub protocol: String,
    /// It announced `tools.listChanged`: it will say when its tool list changes.
    pub lists_changes: bool,
    /// What the server asks of a client that uses it (`instructions`), bounded, secret masked.
    pub instructions: String,
    /// It offers resources (`resources/list`, `resources/read`).
    pub offers_resources: bool,
    /// It offers prompts (`prompts/list`, `prompts/get`).
    pub offers_prompts: bool,
}

pub struct McpClient {
    url: String,
    auth: Option<(String, String)>,
    /// How messages name the server.
    label: String,
    fetch: Rc<dyn Fetch>,
    session: RefCell<Option<Session>>,
    next_id: Cell<u64>,
    on_list_changed: RefCell<Option<Rc<dyn Fn()>>>,
    /// Told each change of `McpState`.
    on_state: RefCell<Option<Rc<dyn Fn(McpState)>>>,
    /// The calls waiting for an answer that asked to hear progress, by progress token.
    progress: RefCell<Vec<(String, ProgressFeed)>>,
    next_token: Cell<u64>,
    /// The requests in flight that carry a progress token, by request id: what a server asks
    /// on the stream of a request's answer belongs to that request's call.
    streams: RefCell<Vec<(u64, String)>>,
    /// Someone is listening on the server's event stream (one stream per session).
    listening: Cell<bool>,
    /// Tripped when the page stops using this client (its server was removed or changed):
    /// a listener waiting on the server's event stream lets go at once.
    retired: CancelToken,
    /// Where the token of a server the person signs in to comes from (`signing`), for a server
    /// with no secret of its own; the token sent last, and the challenge of the last 401.
    authorizer: RefCell<Option<Rc<dyn Authorizer>>>,
    bearer: RefCell<Option<String>>,
    challenge: RefCell<Option<super::oauth::Challenge>>,
    /// The last message was answered 401.
    unauthorized: Cell<bool>,
    /// Who answers the server's questions (`elicitation/create`); none: the client declares no
    /// elicitation and declines such requests.
    asker: RefCell<Option<Rc<dyn super::elicit::Asker>>>,
    /// Who reviews the server's requests to use the model (`sampling/createMessage`); none:
    /// the client declares no sampling and refuses such requests.
    sampler: RefCell<Option<Rc<dyn super::sample::Sampler>>>,
    /// The page's clock: with one, an answer's stream that closes before the answer is resumed
    /// (a GET with `Last-Event-ID`, after the wait the stream asked for); without one, such a
    /// close is a lost answer.
    clock: RefCell<Option<Rc<dyn crate::agent::Clock>>>,
    /// Where the server's own stream left off when it last ended gracefully: its last event ID
    /// (sent as `Last-Event-ID` when listening again) and the wait it asked for.
    listened_to: RefCell<(Option<String>, Option<u64>)>,
    /// The page shows tools' views (MCP Apps): said in `initialize`, under `extensions`.
    shows_views: Cell<bool>,
}

impl McpClient {
    pub fn new(server: &McpServer, fetch: Rc<dyn Fetch>) -> Self {
        McpClient {
            url: server.url.trim().to_string(),
            auth: server.auth_header(),
            label: server.display_url(),
            fetch,
            session: RefCell::new(None),
            next_id: Cell::new(1),
            on_list_changed: RefCell::new(None),
            on_state: RefCell::new(None),
            progress: RefCell::new(Vec::new()),
            next_token: Cell::new(1),
            streams: RefCell::new(Vec::new()),
            listening: Cell::new(false),
            retired: CancelToken::new(),
            authorizer: RefCell::new(None),
            bearer: RefCell::new(None),
            challenge: RefCell::new(None),
            unauthorized: Cell::new(false),
            asker: RefCell::new(None),
            sampler: RefCell::new(None),
            clock: RefCell::new(None),
            listened_to: RefCell::new((None, None)),
            shows_views: Cell::new(false),
        }
    }

    /// Lets the server ask the person (elicitation, form and URL modes): declared at the next
    /// connect, so set it before.
    pub fn set_asker(&self, asker: Rc<dyn super::elicit::Asker>) {
        *self.asker.borrow_mut() = Some(asker);
    }

    /// Lets the server ask for the model (sampling), each request reviewed by `sampler` and
    /// run by the call waiting on the server: declared at the next connect, so set it before.
    pub fn set_sampler(&self, sampler: Rc<dyn super::sample::Sampler>) {
        *self.sampler.borrow_mut() = Some(sampler);
    }

    /// The page shows tools' views (MCP Apps): declared at the next connect.
    pub fn set_shows_views(&self) {
        self.shows_views.set(true);
    }

    /// The clock that times the resumption of a stream the server closed before its answer.
    pub fn set_clock(&self, clock: Rc<dyn crate::agent::Clock>) {
        *self.clock.borrow_mut() = Some(clock);
    }

    /// What this client offers the server in `initialize`.
    fn capabilities(&self) -> Value {
        let mut offered = serde_json::Map::new();
        if self.asker.borrow().is_some() {
            offered.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        }
        if self.sampler.borrow().is_some() {
            offered.insert("sampling".into(), json!({}));
        }
        if self.shows_views.get() {
            offered.insert("extensions".into(), json!({(super::app::EXTENSION): {"mimeTypes": [super::app::MIME]}}));
        }
        Value::Object(offered)
    }

    /// The page no longer uses this client: its listener, if any, lets go of the server.
    pub fn retire(&self) {
        self.retired.cancel();
    }

    pub fn is_retired(&self) -> bool {
        self.retired.is_cancelled()
    }

    /// Resolves once `retire` is called.
    pub fn retired(&self) -> impl std::future::Future<Output = ()> + '_ {
        self.retired.cancelled()
    }

    /// Whether this client talks to `server` as it is configured now (address and secret).
    pub fn serves(&self, server: &McpServer) -> bool {
        self.url == server.url.trim() && self.auth == server.auth_header()
    }

    /// Whether this client talks to the address of `server` (whatever its secret).
    pub fn same_address(&self, server: &McpServer) -> bool {
        self.url == server.url.trim()
    }

    /// Called whenever the server says its tool list changed (in any answer or on `listen`).
    pub fn set_on_list_changed(&self, callback: Rc<dyn Fn()>) {
        *self.on_list_changed.borrow_mut() = Some(callback);
    }

    /// Called whenever the connection's state changes: a session started, the server forgot it,
    /// starting one failed, the server could not be reached.
    pub fn set_on_state(&self, callback: Rc<dyn Fn(McpState)>) {
        *self.on_state.borrow_mut() = Some(callback);
    }

    fn report(&self, state: McpState) {
        let callback = self.on_state.borrow().clone();
        if let Some(callback) = callback {
            callback(state);
        }
    }

    /// Reports a failure that says the server is out of reach (not one call refused).
    fn report_failure(&self, e: &McpError) {
        if matches!(e.kind, McpErrorKind::Unreachable | McpErrorKind::Blocked | McpErrorKind::Auth | McpErrorKind::SignIn | McpErrorKind::NotMcp | McpErrorKind::Lost) {
            self.report(McpState::Failed(e.message.clone()));
        }
    }

    /// `text` with the secret masked, for anything the server wrote that the page shows.
    pub fn scrub(&self, text: &str) -> String {
        let secret = self.auth.as_ref().map(|(_, v)| v.strip_prefix("Bearer ").unwrap_or(v).trim().to_string()).or_else(|| self.bearer.borrow().clone()).unwrap_or_default();
        if secret.len() < 4 {
            return text.to_string();
        }
        text.replace(&secret, "•••")
    }

    /// Starts a new session: `initialize`, then `notifications/initialized`.
    pub async fn connect(&self) -> Result<ServerInfo, McpError> {
        let connected = self.start_session().await;
        match &connected {
            Ok(info) => self.report(McpState::Connected(info.clone())),
            Err(e) => self.report(McpState::Failed(e.message.clone())),
        }
        connected
    }

    async fn start_session(&self) -> Result<ServerInfo, McpError> {
        *self.session.borrow_mut() = None;
        let id = self.take_id();
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": self.capabilities(),
            "clientInfo": {"name": "thoughtline", "title": "Thoughtline", "version": env!("CARGO_PKG_VERSION")},
        });
        let answer = match self.post(&jsonrpc::request(id, "initialize", params), Some(id)).await {
            Ok(answer) => answer,
            Err(Failure::Expired) => return Err(self.not_found()),
            Err(Failure::Error(e)) => return Err(e),
        };
        let info = self.read_initialize(answer.result.unwrap_or(Value::Null))?;
        *self.session.borrow_mut() = Some(Session { id: answer.session, info: info.clone() });
        match self.post(&jsonrpc::notification("notifications/initialized", None), None).await {
            Ok(_) => Ok(info),
            Err(Failure::Expired) => Err(self.not_found()),
            Err(Failure::Error(e)) => {
                *self.session.borrow_mut() = None;
                Err(e)
            }
        }
    }

    /// Every tool the server offers, following `nextCursor` page by page.
    pub async fn list_tools(&self) -> Result<Vec<McpToolInfo>, McpError> {
        self.list_all("tools/list", "tools", tool_info).await
    }

    /// Every item of a paginated list (`tools/list`, `resources/list`, …): the `field` of each
    /// page as `read` keeps it, following `nextCursor`, at most `PAGE_LIMIT` pages and
    /// `TOOL_LIMIT` items.
    async fn list_all<T>(&self, method: &str, field: &str, read: fn(&Value) -> Option<T>) -> Result<Vec<T>, McpError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..PAGE_LIMIT {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.request(method, params).await?;
            let listed = result.get(field).and_then(Value::as_array).ok_or_else(|| {
                McpError::new(McpErrorKind::NotMcp, format!("The MCP server {} answered {method} without a list of {field}.", self.label))
            })?;
            items.extend(listed.iter().filter_map(read));
            let next = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_string);
            if next.is_none() || next == cursor || items.len() >= TOOL_LIMIT {
                break;
            }
            cursor = next;
        }
        items.truncate(TOOL_LIMIT);
        Ok(items)
    }

    /// The server's resources and resource templates, if it offers resources.
    pub async fn list_resources(&self) -> Result<(Vec<McpItem>, Vec<McpItem>), McpError> {
        let resources = self.list_all("resources/list", "resources", |v| item(v, "uri")).await?;
        // Templates are optional even for a server with resources.
        let templates = self.list_all("resources/templates/list", "resourceTemplates", |v| item(v, "uriTemplate")).await.unwrap_or_default();
        Ok((resources, templates))
    }

    /// The server's prompts, if it offers prompts.
    pub async fn list_prompts(&self) -> Result<Vec<McpItem>, McpError> {
        self.list_all("prompts/list", "prompts", |v| item(v, "")).await
    }

    /// `resources/read`: the resource's text contents, bounded; binary contents summarised.
    /// `resources/read` as the server answered it (a tool's view, MCP Apps).
    pub async fn read_resource_whole(&self, uri: &str) -> Result<Value, McpError> {
        self.request("resources/read", json!({"uri": uri})).await
    }

    pub async fn read_resource(&self, uri: &str) -> Result<String, McpError> {
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        let parts: Vec<String> = result
            .get("contents")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|content| super::result::observation(&json!({"content": [{"type": "resource", "resource": content}]})).unwrap_or_else(|text| text))
            .collect();
        if parts.is_empty() {
            return Ok(format!("(the resource {uri} has no contents)"));
        }
        Ok(self.scrub(&parts.join("\n")))
    }

    /// `prompts/get` with the person's `arguments`: the prompt's messages as one text, each
    /// message's content as an observation shows it, a reply of the assistant marked as such.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<String, McpError> {
        let result = self.request("prompts/get", json!({"name": name, "arguments": arguments})).await?;
        let messages = result.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // Bounded like an observation: at most `PROMPT_MESSAGES` messages, each cut by `observation`.
        let texts: Vec<String> = messages
            .iter()
            .take(PROMPT_MESSAGES)
            .map(|m| {
                let content = m.get("content").cloned().unwrap_or(Value::Null);
                let text = super::result::observation(&json!({"content": [content]})).unwrap_or_else(|text| text);
                if m.get("role").and_then(Value::as_str) == Some("assistant") {
                    format!("(The assistant, in the prompt:) {text}")
                } else {
                    text
                }
            })
            .collect();
        if texts.is_empty() {
            return Err(McpError::new(McpErrorKind::Refused, format!("The MCP server {} gave the prompt {name} without any message.", self.label)));
        }
        Ok(self.scrub(&texts.join("\n\n")))
    }

    /// `tools/call`: the call's result object (`content`, `isError`, …) as the server sent it.
    /// Every call carries a progress token; what the server reports goes to `feed`.
    pub async fn call_tool(&self, name: &str, arguments: Value, feed: Option<ProgressFeed>) -> Result<Value, McpError> {
        let token = format!("thoughtline-{}", self.next_token.get());
        self.next_token.set(self.next_token.get() + 1);
        struct Forget<'c>(&'c McpClient, String);
        impl Drop for Forget<'_> {
            fn drop(&mut self) {
                if let Ok(mut listening) = self.0.progress.try_borrow_mut() {
                    listening.retain(|(token, _)| *token != self.1);
                }
            }
        }
        let _forget = feed.map(|feed| {
            self.progress.borrow_mut().push((token.clone(), feed));
            Forget(self, token.clone())
        });
        self.request("tools/call", json!({"name": name, "arguments": arguments, "_meta": {"progressToken": token}})).await
    }

    /// One request in the current session (started first if there is none); a session the
    /// server forgot (`session_unknown`) is started again, once, and the request sent again.
    async fn request(&self, method: &str, params: Value) -> Result<Value, McpError> {
        match self.request_once_again(method, params).await {
            Ok(result) => Ok(result),
            Err(Unanswered::Call(e)) => {
                self.report_failure(&e);
                Err(e)
            }
            // `connect` has reported it.
            Err(Unanswered::Connect(e)) => Err(e),
        }
    }

    async fn request_once_again(&self, method: &str, params: Value) -> Result<Value, Unanswered> {
        if self.session.borrow().is_none() {
            self.connect().await.map_err(Unanswered::Connect)?;
        }
        for attempt in 0..2 {
            let id = self.take_id();
            if let Some(token) = params.pointer("/_meta/progressToken").and_then(Value::as_str) {
                self.streams.borrow_mut().push((id, token.to_string()));
            }
            let mut in_flight = InFlight { client: self, id, settled: false };
            let outcome = self.post(&jsonrpc::request(id, method, params.clone()), Some(id)).await;
            in_flight.settled = true;
            match outcome {
                Ok(answer) => return Ok(answer.result.unwrap_or(Value::Null)),
                Err(Failure::Expired) if attempt == 0 => {
                    self.report(McpState::Reconnecting);
                    self.connect().await.map_err(Unanswered::Connect)?;
                }
                Err(Failure::Expired) => return Err(Unanswered::Call(self.not_found())),
                Err(Failure::Error(e)) => return Err(Unanswered::Call(e)),
            }
        }
        Err(Unanswered::Call(self.not_found()))
    }

    /// Tells the server that the answer to request `id` is no longer wanted
    /// (`notifications/cancelled`), so it can stop the work: sent on its own, since the call
    /// that made the request is being dropped. Nothing is sent without a session to send it in.
    fn cancel(&self, id: u64) {
        let Ok(session) = self.session.try_borrow() else { return };
        if session.is_none() {
            return;
        }
        drop(session);
        let headers = self.message_headers();
        let params = json!({"requestId": id, "reason": "Thoughtline stopped waiting for this call (Stop, or a time limit)."});
        let body = jsonrpc::notification("notifications/cancelled", Some(params));
        self.fetch.send_detached(OwnedRequest { method: "POST", url: self.url.clone(), headers, body: Some(body), redirects: self.redirects() });
    }

    /// POSTs one message; for a request (`expect` = its id) reads the answer, JSON or SSE.
    /// Once: `post` (in `signing`) sends it with the current token and again after a refresh.
    async fn post_once(&self, body: &str, expect: Option<u64>) -> Result<Answer, Failure> {
        let headers = self.message_headers();
        let sent_session = self.session_id().is_some();
        let request = HttpRequest { method: "POST", url: &self.url, headers: &headers, body: Some(body), redirects: self.redirects() };
        let mut response = match self.fetch.open(request).await {
            Ok(response) => response,
            Err(e) => return Err(self.unreachable(&e, sent_session).await.into()),
        };
        if response.is_redirect() {
            return Err(self.redirected().await.into());
        }
        let status = response.status();
        if status == 404 && sent_session {
            return Err(Failure::Expired);
        }
        if !(200..300).contains(&status) {
            let body = read_body(response.as_mut(), ERROR_BODY_LIMIT).await.unwrap_or_default();
            if sent_session && session_unknown(status, &body) {
                return Err(Failure::Expired);
            }
            // An `initialize` refused as a method or path the server does not serve: a server
            // of the older HTTP+SSE transport says so on GET, at once.
            if !sent_session && matches!(status, 400 | 404 | 405) && self.speaks_older_transport().await {
                return Err(McpError::new(
                    McpErrorKind::NotMcp,
                    format!(
                        "The MCP server {} uses the older HTTP+SSE transport (protocol 2024-11-05), which this page does not speak: it speaks Streamable HTTP. Use the server's Streamable HTTP endpoint if it has one (often /mcp), or a newer version of the server.",
                        self.label
                    ),
                )
                .into());
            }
            let challenge = matches!(status, 401 | 403).then(|| response.header("WWW-Authenticate").and_then(|h| super::oauth::challenge(&h))).flatten();
            // A token that serves, but not for this: the server names the wider scope it wants
            // (step-up authorization), and a new sign-in asks for it.
            let step_up = status == 403 && challenge.as_ref().is_some_and(|c| c.error.as_deref() == Some("insufficient_scope"));
            if (status == 401 || step_up) && self.signs_in() {
                // A server that says how to sign in (its challenge), or refused a token of a
                // sign-in: a sign-in. One that says nothing may want a fixed token instead.
                let sign_in = challenge.is_some() || self.bearer.borrow().is_some();
                *self.challenge.borrow_mut() = challenge;
                self.unauthorized.set(true);
                return Err(if sign_in { self.needs_sign_in() } else { self.http_error(status, &body) }.into());
            }
            return Err(self.http_error(status, &body).into());
        }
        let session = response.header("Mcp-Session-Id").filter(|id| valid_session_id(id));
        let Some(id) = expect else {
            return Ok(Answer { result: None, session });
        };
        let kind = response.header("Content-Type").map(|t| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase()).unwrap_or_default();
        let outcome = match kind.as_str() {
            "application/json" => {
                let text = read_body(response.as_mut(), BODY_LIMIT).await.map_err(|e| self.lost(&e))?;
                let messages = jsonrpc::parse(&text).map_err(|why| self.not_json_rpc(&why))?;
                let mut found = None;
                for message in messages {
                    if message.answers(id) {
                        found = Some(message);
                    } else {
                        self.handle(message, Some(id)).await;
                    }
                }
                found.ok_or_else(|| McpError::new(McpErrorKind::NotMcp, format!("The MCP server {} answered, but not to the request sent.", self.label)))?
            }
            "text/event-stream" => self.read_stream(response.as_mut(), id).await?,
            "" if status == 202 || status == 204 => {
                return Err(McpError::new(McpErrorKind::NotMcp, format!("The MCP server {} accepted the request but sent no answer.", self.label)).into())
            }
            other => {
                return Err(McpError::new(
                    McpErrorKind::NotMcp,
                    format!(
                        "{} answered with {}, not JSON or an event stream: it is not an MCP server. Check the address in Settings → Tools → MCP servers (Streamable HTTP endpoints usually end in /mcp).",
                        self.label,
                        if other.is_empty() { "no content type" } else { other }
                    ),
                )
                .into())
            }
        };
        match outcome {
            Incoming::Response { outcome: Ok(result), .. } => Ok(Answer { result: Some(result), session }),
            Incoming::Response { outcome: Err(error), .. } => Err(self.rpc_error(&error).into()),
            _ => Err(self.not_json_rpc("no response").into()),
        }
    }

    /// Reads an SSE answer until the response to `id`, handling what comes before it. A stream
    /// that ends before the answer, having given an event ID, is resumed (`resume.rs`).
    async fn read_stream(&self, stream: &mut dyn Streaming, id: u64) -> Result<Incoming, McpError> {
        let mut read = self.read_events(stream, id, None).await?;
        let mut resumed = 0;
        loop {
            match read {
                Read::Answer(message) => return Ok(message),
                Read::Closed { last_id, retry_ms } => {
                    let clock = self.clock.borrow().clone();
                    let (Some(clock), Some(last_id)) = (clock, last_id) else { return Err(self.closed_early()) };
                    if resumed >= resume::RESUME_LIMIT {
                        return Err(self.closed_early());
                    }
                    resumed += 1;
                    read = self.resume(clock.as_ref(), &last_id, retry_ms, id).await?;
                }
            }
        }
    }

    /// Reads events until the response to `id`, or until the stream ends (with its last event
    /// ID, or `last_id` when it gave none, and the wait it asked for before a reconnection).
    async fn read_events(&self, stream: &mut dyn Streaming, id: u64, last_id: Option<String>) -> Result<Read, McpError> {
        let mut decoder = SseDecoder::new();
        let mut read = 0;
        loop {
            let (events, ended) = match stream.chunk().await {
                Ok(Some(bytes)) => {
                    read += bytes.len();
                    if read > BODY_LIMIT {
                        return Err(self.too_large());
                    }
                    (decoder.push(&bytes), false)
                }
                Ok(None) => (decoder.finish(), true),
                Err(e) => return Err(self.lost(&e)),
            };
            for event in events {
                // A priming event (an id, empty data) or a comment carries no message.
                if event.data.trim().is_empty() {
                    continue;
                }
                let messages = jsonrpc::parse(&event.data).map_err(|why| self.not_json_rpc(&why))?;
                for message in messages {
                    if message.answers(id) {
                        return Ok(Read::Answer(message));
                    }
                    self.handle(message, Some(id)).await;
                }
            }
            if ended {
                let last_id = decoder.last_id().map(str::to_string).or(last_id);
                return Ok(Read::Closed { last_id, retry_ms: decoder.retry_ms() });
            }
        }
    }

    fn closed_early(&self) -> McpError {
        McpError::new(
            McpErrorKind::Lost,
            format!("The MCP server {} closed the stream before it answered. It may have stopped or restarted; check it and try again.", self.label),
        )
    }

    /// A message that is not the awaited response: notifications are noted, and the server's
    /// own requests answered: `ping`, and `elicitation/create` when someone answers them (the
    /// call's answer waits on the person, as the server does); anything else is declined.
    /// `from`: the request on whose answer's stream it came, when it did (not on the server's
    /// own stream): a question or a request for the model then belongs to that request's call.
    async fn handle(&self, message: Incoming, from: Option<u64>) {
        match message {
            Incoming::Notification { method, params } if method == "notifications/progress" => {
                let token = match params.get("progressToken") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return,
                };
                let feed = self.progress.borrow().iter().find(|(t, _)| *t == token).map(|(_, feed)| feed.clone());
                if let (Some(feed), Some(text)) = (feed, progress_text(&params)) {
                    feed.push(Heard::Progress(self.scrub(&text)));
                }
            }
            Incoming::Notification { method, .. } if method == "notifications/tools/list_changed" => {
                let callback = self.on_list_changed.borrow().clone();
                if let Some(callback) = callback {
                    callback();
                }
            }
            Incoming::Request { id, method, params } => {
                let asker = self.asker.borrow().clone();
                let outcome = match (method.as_str(), asker) {
                    ("ping", _) => Ok(json!({})),
                    ("elicitation/create", Some(asker)) => match super::elicit::read(&params) {
                        Ok(asked) => {
                            let _asking = self.asking();
                            let answer = asker.ask(&self.label, asked.clone()).await;
                            self.tell_calls(Heard::Answered(super::elicit::exchange(&self.label, &asked, &answer)), from);
                            Ok(answer.result())
                        }
                        Err(why) => Err(RpcError { code: jsonrpc::INVALID_PARAMS, message: why, data: None }),
                    },
                    ("sampling/createMessage", _) if self.sampler.borrow().is_some() => self.sample(&params, from).await,
                    _ => Err(RpcError { code: jsonrpc::METHOD_NOT_FOUND, message: format!("This client does not offer {method}."), data: None }),
                };
                self.deliver(&jsonrpc::response(&id, outcome)).await;
            }
            _ => {}
        }
    }

    /// The calls waiting on this server wait on the person now (a question, a request for the
    /// model): their silence limits pause until the returned guard is dropped (an answer, or
    /// Stop dropping the wait).
    pub(super) fn asking(&self) -> impl Drop + '_ {
        struct Asking<'c>(&'c McpClient);
        impl Drop for Asking<'_> {
            fn drop(&mut self) {
                self.0.tell_calls(Heard::Asking(false), None);
            }
        }
        self.tell_calls(Heard::Asking(true), None);
        Asking(self)
    }

    /// Tells `heard` to the call of request `from` where there is one; else to every call
    /// waiting on this server (what came on the server's own stream names no call).
    pub(super) fn tell_calls(&self, heard: Heard, from: Option<u64>) {
        if let Some(feed) = self.feed_of(from) {
            feed.push(heard);
            return;
        }
        let Ok(progress) = self.progress.try_borrow() else { return };
        let feeds: Vec<ProgressFeed> = progress.iter().map(|(_, feed)| feed.clone()).collect();
        drop(progress);
        for feed in feeds {
            feed.push(heard.clone());
        }
    }

    /// The progress feed of the call that sent request `from`, if it still waits.
    pub(super) fn feed_of(&self, from: Option<u64>) -> Option<ProgressFeed> {
        let token = self.streams.try_borrow().ok()?.iter().find(|(id, _)| Some(*id) == from)?.1.clone();
        self.progress.try_borrow().ok()?.iter().find(|(t, _)| *t == token).map(|(_, feed)| feed.clone())
    }

    /// POSTs our answer to a server request. Whether it arrives changes nothing for the
    /// request being read, so failures are not reported.
    async fn deliver(&self, body: &str) {
        let headers = self.message_headers();
        let request = HttpRequest { method: "POST", url: &self.url, headers: &headers, body: Some(body), redirects: self.redirects() };
        let _ = self.fetch.open(request).await;
    }

}

/// The whole body as text, up to `limit` bytes.
async fn read_body(stream: &mut dyn Streaming, limit: usize) -> Result<String, FetchFailed> {
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.chunk().await? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > limit {
            bytes.truncate(limit);
            break;
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
