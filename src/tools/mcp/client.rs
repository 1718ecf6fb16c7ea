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

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use super::jsonrpc::{self, Incoming, RpcError};
use super::schema::DESCRIPTION_LIMIT;
use super::settings::{McpArgument, McpItem, McpServer, McpToolInfo};
pub use listen::ListenEnd;
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

mod listen;
mod signing;
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct McpError {
    pub kind: McpErrorKind,
    /// A sentence naming the server and what to do.
    pub message: String,
}

impl McpError {
    fn new(kind: McpErrorKind, message: impl Into<String>) -> Self {
        McpError { kind, message: message.into() }
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

/// Progress a server reports on a call (`notifications/progress`), as lines of text, for
/// the call to read while it waits (`next`).
#[derive(Clone, Default)]
pub struct ProgressFeed(Rc<RefCell<(std::collections::VecDeque<String>, Option<std::task::Waker>)>>);

impl ProgressFeed {
    fn push(&self, text: String) {
        let waker = {
            let mut state = self.0.borrow_mut();
            // A server that floods is read at its latest: a few lines are enough to show.
            if state.0.len() >= 16 {
                state.0.pop_front();
            }
            state.0.push_back(text);
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// The next line of progress (waits for one).
    pub fn next(&self) -> impl std::future::Future<Output = String> + '_ {
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

/// Why a request got no answer: starting the session failed (which `connect` reports), or the
/// request itself did.
enum Unanswered {
    Connect(McpError),
    Call(McpError),
}

struct Session {
    id: Option<String>,
    info: ServerInfo,
}

/// A failed POST: an error, or the sign that the session expired.
enum Failure {
    Expired,
    Error(McpError),
}

impl From<McpError> for Failure {
    fn from(e: McpError) -> Self {
        Failure::Error(e)
    }
}

/// When nothing in the page holds this client any more (its server was removed or changed in
/// Settings, and no run still uses it), the server is told it can end the session: an HTTP
/// DELETE with the session id, as the protocol asks of a client that is done with a session.
/// Sent on its own; a server that does not allow it answers 405, which changes nothing.
impl Drop for McpClient {
    fn drop(&mut self) {
        self.end_session();
    }
}

impl McpClient {
    /// Ends the session now, once: the DELETE above, sent on its own. Used when nothing holds
    /// the client any more, and by the hub when the page goes away (`McpHub::end_sessions`).
    /// Used again afterwards, the client starts a new session.
    pub fn end_session(&self) {
        if let Some(delete) = self.take_session() {
            self.fetch.send_detached(delete);
        }
    }

    /// Forgets the session and gives the DELETE that ends it with the server; `None` when
    /// there is no session, or the client is busy (a borrow held elsewhere) and keeps it.
    fn take_session(&self) -> Option<OwnedRequest> {
        self.session_id().filter(|id| !id.is_empty())?;
        let headers = self.headers("application/json, text/event-stream");
        let mut current = self.session.try_borrow_mut().ok()?;
        *current = None;
        drop(current);
        Some(OwnedRequest { method: "DELETE", url: self.url.clone(), headers, body: None, redirects: self.redirects() })
    }
}

/// A request on its way. Dropped before it settles (Stop, a time limit, a run that ended), it
/// tells the server the answer is no longer wanted, as the protocol asks of a client.
struct InFlight<'a> {
    client: &'a McpClient,
    id: u64,
    settled: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.settled {
            self.client.cancel(self.id);
        }
    }
}

/// A successful POST: the response's result (none for a notification) and the session id the
/// response carried, if the page may read it.
struct Answer {
    result: Option<Value>,
    session: Option<String>,
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
            listening: Cell::new(false),
            retired: CancelToken::new(),
            authorizer: RefCell::new(None),
            bearer: RefCell::new(None),
            challenge: RefCell::new(None),
            unauthorized: Cell::new(false),
        }
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
            "capabilities": {},
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

    fn take_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    fn session_id(&self) -> Option<String> {
        self.session.borrow().as_ref().and_then(|s| s.id.clone())
    }

    /// A request carrying the server's token answers a redirect instead of following it: a
    /// browser keeps a custom header (`X-API-Key`) on a redirect, wherever it points.
    fn redirects(&self) -> Redirects {
        if self.auth.is_some() || self.bearer.borrow().is_some() {
            Redirects::Refuse
        } else {
            Redirects::Follow
        }
    }

    fn headers(&self, accept: &str) -> Vec<(String, String)> {
        let mut headers = vec![("Accept".to_string(), accept.to_string())];
        if let Some(session) = self.session.borrow().as_ref() {
            headers.push(("MCP-Protocol-Version".into(), session.info.protocol.clone()));
            if let Some(id) = &session.id {
                headers.push(("Mcp-Session-Id".into(), id.clone()));
            }
        }
        if let Some(auth) = &self.auth {
            headers.push(auth.clone());
        } else if let Some(token) = self.bearer.borrow().as_ref() {
            headers.push(("Authorization".into(), format!("Bearer {token}")));
        }
        headers
    }

    /// The headers of a JSON-RPC message POSTed to the server (a request, a notification, an
    /// answer to the server): JSON in, JSON or an event stream back.
    fn message_headers(&self) -> Vec<(String, String)> {
        let mut headers = self.headers("application/json, text/event-stream");
        headers.push(("Content-Type".into(), "application/json".into()));
        headers
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
            if status == 401 && self.signs_in() {
                // A server that says how to sign in (its challenge), or refused a token of a
                // sign-in: a sign-in. One that says nothing may want a fixed token instead.
                let challenge = response.header("WWW-Authenticate").and_then(|h| super::oauth::challenge(&h));
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
                        self.handle(message).await;
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

    /// Reads an SSE answer until the response to `id`, handling what comes before it.
    async fn read_stream(&self, stream: &mut dyn Streaming, id: u64) -> Result<Incoming, McpError> {
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
                        return Ok(message);
                    }
                    self.handle(message).await;
                }
            }
            if ended {
                return Err(McpError::new(
                    McpErrorKind::Lost,
                    format!("The MCP server {} closed the stream before it answered. It may have stopped or restarted; check it and try again.", self.label),
                ));
            }
        }
    }

    /// A message that is not the awaited response: notifications are noted, and the server's
    /// own requests answered (`ping`; anything else is declined, as this page declares no
    /// client capabilities).
    async fn handle(&self, message: Incoming) {
        match message {
            Incoming::Notification { method, params } if method == "notifications/progress" => {
                let token = match params.get("progressToken") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return,
                };
                let feed = self.progress.borrow().iter().find(|(t, _)| *t == token).map(|(_, feed)| feed.clone());
                if let (Some(feed), Some(text)) = (feed, progress_text(&params)) {
                    feed.push(self.scrub(&text));
                }
            }
            Incoming::Notification { method, .. } if method == "notifications/tools/list_changed" => {
                let callback = self.on_list_changed.borrow().clone();
                if let Some(callback) = callback {
                    callback();
                }
            }
            Incoming::Request { id, method, .. } => {
                let outcome = if method == "ping" {
                    Ok(json!({}))
                } else {
                    Err(RpcError { code: jsonrpc::METHOD_NOT_FOUND, message: format!("This client does not offer {method}.") })
                };
                self.deliver(&jsonrpc::response(&id, outcome)).await;
            }
            _ => {}
        }
    }

    /// POSTs our answer to a server request. Whether it arrives changes nothing for the
    /// request being read, so failures are not reported.
    async fn deliver(&self, body: &str) {
        let headers = self.message_headers();
        let request = HttpRequest { method: "POST", url: &self.url, headers: &headers, body: Some(body), redirects: self.redirects() };
        let _ = self.fetch.open(request).await;
    }

    fn read_initialize(&self, result: Value) -> Result<ServerInfo, McpError> {
        let protocol = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        if protocol.is_empty() {
            return Err(self.not_json_rpc("the initialize result has no protocolVersion"));
        }
        if !SUPPORTED_VERSIONS.contains(&protocol) {
            return Err(McpError::new(
                McpErrorKind::Refused,
                format!(
                    "The MCP server {} speaks protocol version {}, which this page does not (it speaks {}). Update the server, or use another one.",
                    self.label,
                    jsonrpc::bounded(protocol),
                    SUPPORTED_VERSIONS.join(", ")
                ),
            ));
        }
        let server = result.get("serverInfo");
        let name = server.and_then(|s| s.get("title").or_else(|| s.get("name"))).and_then(Value::as_str).unwrap_or("");
        let lists_changes = result.pointer("/capabilities/tools/listChanged").and_then(Value::as_bool).unwrap_or(false);
        let instructions = result.get("instructions").and_then(Value::as_str).map(|text| {
            let text = self.scrub(text.trim());
            match text.char_indices().nth(INSTRUCTIONS_LIMIT) {
                Some((cut, _)) => format!("{}\n[… cut: the server's instructions are {} characters; the first {INSTRUCTIONS_LIMIT} are kept]", &text[..cut], text.chars().count()),
                None => text,
            }
        });
        let capability = |name: &str| result.pointer(&format!("/capabilities/{name}")).is_some_and(Value::is_object);
        Ok(ServerInfo {
            name: jsonrpc::bounded(&self.scrub(name)),
            protocol: protocol.to_string(),
            lists_changes,
            instructions: instructions.unwrap_or_default(),
            offers_resources: capability("resources"),
            offers_prompts: capability("prompts"),
        })
    }

    /// Whether a GET of the address opens an event stream whose first event is `endpoint`:
    /// how a server of the older HTTP+SSE transport greets a client. Reads at most a few
    /// kilobytes; dropping the stream ends the request.
    async fn speaks_older_transport(&self) -> bool {
        let headers = self.headers("text/event-stream");
        let request = HttpRequest { method: "GET", url: &self.url, headers: &headers, body: None, redirects: self.redirects() };
        let Ok(mut stream) = self.fetch.open(request).await else { return false };
        if !(200..300).contains(&stream.status()) {
            return false;
        }
        let mut decoder = SseDecoder::new();
        let mut read = 0;
        while read < OLDER_GREETING_LIMIT {
            let Ok(Some(bytes)) = stream.chunk().await else { return false };
            read += bytes.len();
            if let Some(first) = decoder.push(&bytes).into_iter().next() {
                return first.event.as_deref() == Some("endpoint");
            }
        }
        false
    }

    /// A fetch that got no response. The browser does not say why; asking once more without
    /// CORS tells a server that is down from one that refuses this page.
    async fn unreachable(&self, failure: &FetchFailed, had_session: bool) -> McpError {
        let cors = "The server must allow this page's origin (CORS: Access-Control-Allow-Origin, and allow the Content-Type, Accept, Authorization, Mcp-Session-Id and MCP-Protocol-Version request headers) and expose Mcp-Session-Id (Access-Control-Expose-Headers).";
        let detail = jsonrpc::bounded(&failure.0);
        if failure.is_offline() {
            return McpError::new(
                McpErrorKind::Unreachable,
                format!("The MCP server {} needs the network, and this browser is offline. Try again once the connection is back.", self.label),
            );
        }
        match self.fetch.reachable(&self.url).await {
            Some(true) => McpError::new(McpErrorKind::Blocked, format!("The MCP server {} answers, but not to this page: its CORS settings block it. {cors}", self.label)),
            Some(false) if had_session => McpError::new(
                McpErrorKind::Lost,
                format!("The MCP server {} stopped answering ({detail}). Check that it is still running; the agent can go on without it.", self.label),
            ),
            Some(false) => McpError::new(
                McpErrorKind::Unreachable,
                format!("Could not reach the MCP server {} ({detail}). Check that it is running and that the address in Settings → Tools → MCP servers is right.", self.label),
            ),
            None => McpError::new(
                McpErrorKind::Unreachable,
                format!("Could not reach the MCP server {} ({detail}): it is not running, the address is wrong, or it does not allow this page. {cors}", self.label),
            ),
        }
    }

    fn http_error(&self, status: u16, body: &str) -> McpError {
        let said = jsonrpc::error_in_body(body).map(|e| self.scrub(&e.message));
        let colon = said.as_ref().map(|m| format!(": {m}")).unwrap_or_default();
        let place = "Settings → Tools → MCP servers";
        match status {
            401 if self.auth.is_none() => {
                let or = if self.signs_in() { " If it signs people in instead, press Sign in there." } else { "" };
                McpError::new(McpErrorKind::Auth, format!("The MCP server {} wants a token (401 Unauthorized{colon}). Add it in {place}.{or}", self.label))
            }
            401 => McpError::new(McpErrorKind::Auth, format!("The MCP server {} did not accept the token (401 Unauthorized{colon}). Check the token and its header in {place}.", self.label)),
            403 => McpError::new(
                McpErrorKind::Auth,
                format!("The MCP server {} refused the request (403 Forbidden{colon}). If it checks origins, it must allow this page's origin; if it checks tokens, check the one in {place}.", self.label),
            ),
            404 => self.not_found(),
            405 => McpError::new(
                McpErrorKind::NotMcp,
                format!("{} does not take MCP messages by POST (405): it is not a Streamable HTTP MCP endpoint. Check the address in {place}; servers that only speak the older HTTP+SSE transport are not supported.", self.label),
            ),
            400 if self.session.borrow().as_ref().is_some_and(|s| s.id.is_none()) && said.as_ref().is_some_and(|m| m.to_lowercase().contains("session")) => McpError::new(
                McpErrorKind::Blocked,
                format!("The MCP server {} uses sessions, but does not let this page read its session header ({}). It must send Access-Control-Expose-Headers: Mcp-Session-Id.", self.label, said.unwrap_or_default()),
            ),
            _ => McpError::new(McpErrorKind::Refused, format!("The MCP server {} answered HTTP {status}{colon}.", self.label)),
        }
    }

    fn rpc_error(&self, error: &RpcError) -> McpError {
        let what = match error.code {
            jsonrpc::METHOD_NOT_FOUND => " (it does not offer this)",
            -32602 => " (invalid arguments)",
            _ => "",
        };
        McpError::new(McpErrorKind::Refused, format!("The MCP server {} answered with an error{what}: {}", self.label, self.scrub(&error.message)))
    }

    fn not_found(&self) -> McpError {
        McpError::new(
            McpErrorKind::NotMcp,
            format!("Nothing answers as an MCP server at {} (404 Not Found). Check the address in Settings → Tools → MCP servers: Streamable HTTP endpoints usually end in /mcp.", self.label),
        )
    }

    fn not_json_rpc(&self, why: &str) -> McpError {
        McpError::new(
            McpErrorKind::NotMcp,
            format!("{} did not answer like an MCP server ({}). Check the address in Settings → Tools → MCP servers.", self.label, jsonrpc::bounded(why)),
        )
    }

    fn lost(&self, failure: &FetchFailed) -> McpError {
        McpError::new(
            McpErrorKind::Lost,
            format!("The connection to the MCP server {} broke before its answer arrived ({}). Check that the server is still running.", self.label, jsonrpc::bounded(&failure.0)),
        )
    }

    /// The server answered a request carrying its token with a redirect, which was not
    /// followed; where it points is asked with a bare GET, so the token goes nowhere else.
    async fn redirected(&self) -> McpError {
        let target = match self.fetch.redirect_target(&self.url).await {
            Some(url) => format!("to {}", jsonrpc::bounded(&self.scrub(&url))),
            None => "elsewhere (the browser does not reveal where)".to_string(),
        };
        McpError::new(
            McpErrorKind::Refused,
            format!(
                "The MCP server {} answered with a redirect {target}. Thoughtline does not follow redirects with the server's token attached, so nothing was sent there. If that address is the server's, put it in Settings → Tools → MCP servers.",
                self.label
            ),
        )
    }

    fn too_large(&self) -> McpError {
        McpError::new(McpErrorKind::Refused, format!("The MCP server {} sent an answer larger than {} MB; it was not read.", self.label, BODY_LIMIT >> 20))
    }
}

/// A session id as the spec allows it: visible ASCII only, and of a sane length.
fn valid_session_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 1024 && id.bytes().all(|b| (0x21..=0x7e).contains(&b))
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

/// One entry of `tools/list`, bounded; entries without a name are skipped.
fn tool_info(tool: &Value) -> Option<McpToolInfo> {
    let name = tool.get("name").and_then(Value::as_str)?.trim();
    if name.is_empty() {
        return None;
    }
    let title = tool.get("title").or_else(|| tool.pointer("/annotations/title")).and_then(Value::as_str).unwrap_or("");
    let description = tool.get("description").and_then(Value::as_str).unwrap_or("");
    let input_schema = match tool.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        _ => json!({"type": "object"}),
    };
    let unavailable = unservable(tool, &input_schema);
    Some(McpToolInfo {
        name: name.chars().take(128).collect(),
        title: jsonrpc::bounded(title),
        description: super::schema::compact_description(description, DESCRIPTION_LIMIT * 5),
        input_schema,
        enabled: true,
        // A tool a server lists asks before each call until the person says otherwise.
        ask: true,
        unavailable,
    })
}

/// A resource (`uri_field` "uri"), a resource template ("uriTemplate") or a prompt ("") as
/// listed, bounded; `None` without a name (or, for a resource, a URI).
fn item(value: &Value, uri_field: &str) -> Option<McpItem> {
    let text = |name: &str| value.get(name).and_then(Value::as_str).unwrap_or("");
    let prompt = uri_field.is_empty();
    let uri = if prompt { "" } else { text(uri_field) };
    // A prompt is asked for by its `name`; a resource is shown by its title, name or URI.
    let name = if prompt { text("name") } else { [text("title"), text("name"), uri].into_iter().find(|s| !s.is_empty()).unwrap_or("") };
    let unusable = if prompt { name.trim().is_empty() } else { name.is_empty() || uri.is_empty() };
    if unusable {
        return None;
    }
    let arguments = value
        .get("arguments")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| {
            let name = a.get("name").and_then(Value::as_str)?.trim();
            (!name.is_empty()).then(|| McpArgument {
                name: name.chars().take(128).collect(),
                description: jsonrpc::bounded(a.get("description").and_then(Value::as_str).unwrap_or("")),
                required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .take(20)
        .collect();
    Some(McpItem {
        name: if prompt { name.chars().take(128).collect() } else { jsonrpc::bounded(name) },
        description: super::schema::compact_description(text("description"), DESCRIPTION_LIMIT),
        uri: uri.chars().take(2048).collect(),
        mime_type: jsonrpc::bounded(text("mimeType")),
        arguments,
    })
}

/// Why the page cannot call a listed tool, or empty: a tool that runs only as a task (the
/// protocol's `execution.taskSupport: "required"`, which this client does not implement: the
/// call would fail with -32601), or one whose input is not an object of named arguments, which
/// no strategy can give it.
pub fn unservable(tool: &Value, input_schema: &Value) -> String {
    if tool.pointer("/execution/taskSupport").and_then(Value::as_str) == Some("required") {
        return "It runs only as a background task (taskSupport \"required\"), which this page does not support.".into();
    }
    match input_schema.get("type") {
        None => String::new(),
        Some(Value::String(t)) if t == "object" => String::new(),
        Some(other) => format!("Its input schema asks for {} rather than an object of named arguments, which the agent cannot give.", jsonrpc::bounded(&other.to_string())),
    }
}
