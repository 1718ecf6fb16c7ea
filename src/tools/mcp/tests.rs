//! The MCP client against a scripted server (a fake `Fetch` that answers each request with the
//! next scripted reply and records what it was sent), plus the pure parts: JSON-RPC framing,
//! schema hints, unique names, arguments, observations and settings.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::rc::Rc;

use serde_json::{json, Value};

use super::client::{session_unknown, Heard, ListenEnd, McpClient, McpErrorKind, McpState, PROTOCOL_VERSION};
use super::jsonrpc::{self, Incoming, RpcError};
use super::names::unique_names;
use super::schema::{compact_description, function_parameters, input_hint};
use super::settings::{display_url, merge_tools, McpItem, McpOffers, McpServer, McpSettings, McpToolInfo, RememberedSecret};
use super::tool::arguments;
use super::{build_tools, result, McpHub, RESERVED_NAMES};
use crate::agent::LocalBoxFuture;
use crate::net::{Fetch, FetchFailed, HttpRequest, HttpResponse, OwnedRequest, Redirects, Streaming};

// ---- a scripted server -------------------------------------------------------------------

#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    /// Body pieces; an `Err` breaks the connection at that point.
    chunks: Vec<Result<String, String>>,
    /// `open` itself fails (no response at all).
    fails: bool,
    /// A redirect answered to a request that refuses redirects.
    redirect: bool,
    /// The server never answers (a slow tool): `open` stays pending.
    hangs: bool,
    /// The body stays open after its pieces (a server's event stream), until let go.
    stays_open: bool,
}

impl Reply {
    fn json(body: Value) -> Self {
        Reply { status: 200, headers: vec![("Content-Type".into(), "application/json".into())], chunks: vec![Ok(body.to_string())], fails: false, redirect: false, hangs: false, stays_open: false }
    }
    /// An SSE answer, cut into 7-byte pieces so events straddle chunks.
    fn sse(messages: &[Value]) -> Self {
        let mut text = String::from("id: prime\ndata: \n\n");
        for m in messages {
            text.push_str(&format!("event: message\ndata: {m}\n\n"));
        }
        let chunks = text.as_bytes().chunks(7).map(|c| Ok(String::from_utf8_lossy(c).into_owned())).collect();
        Reply { status: 200, headers: vec![("Content-Type".into(), "text/event-stream".into())], chunks, fails: false, redirect: false, hangs: false, stays_open: false }
    }
    /// An event stream of exactly `text`.
    fn sse_text(text: &str) -> Self {
        Reply { chunks: vec![Ok(text.to_string())], ..Reply::sse(&[]) }
    }
    fn status(status: u16, content_type: &str, body: &str) -> Self {
        Reply { status, headers: vec![("Content-Type".into(), content_type.into())], chunks: vec![Ok(body.into())], fails: false, redirect: false, hangs: false, stays_open: false }
    }
    fn accepted() -> Self {
        Reply { status: 202, headers: Vec::new(), chunks: Vec::new(), fails: false, redirect: false, hangs: false, stays_open: false }
    }
    fn no_response() -> Self {
        Reply { status: 0, headers: Vec::new(), chunks: Vec::new(), fails: true, redirect: false, hangs: false, stays_open: false }
    }
    fn hang() -> Self {
        Reply { hangs: true, ..Reply::accepted() }
    }
    /// An event stream that carries nothing and stays open.
    fn open_stream() -> Self {
        Reply { stays_open: true, ..Reply::sse(&[]) }
    }
    fn session(mut self, id: &str) -> Self {
        self.headers.push(("mcp-session-id".into(), id.into()));
        self
    }
}

#[derive(Debug, Clone)]
struct Seen {
    method: String,
    redirects: Redirects,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    fn rpc_method(&self) -> &str {
        self.body.get("method").and_then(Value::as_str).unwrap_or("")
    }
}

#[derive(Default)]
struct Server {
    /// Where a redirect points, as `redirect_target` finds it.
    redirect_to: Option<String>,
    replies: RefCell<VecDeque<Reply>>,
    seen: RefCell<Vec<Seen>>,
    /// What was sent with `send_detached`.
    detached: RefCell<Vec<Seen>>,
    /// In order: each request's method as it is sent, and "let go" when the page drops an
    /// open stream.
    log: Rc<RefCell<Vec<String>>>,
    reachable: Option<bool>,
}

impl Server {
    fn new(replies: Vec<Reply>) -> Rc<Self> {
        Rc::new(Server { replies: RefCell::new(replies.into()), ..Default::default() })
    }
    fn seen(&self) -> Vec<Seen> {
        self.seen.borrow().clone()
    }
}

struct Stream {
    reply: Reply,
    next: usize,
    log: Rc<RefCell<Vec<String>>>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.reply.stays_open {
            self.log.borrow_mut().push("let go".into());
        }
    }
}

impl Streaming for Stream {
    fn status(&self) -> u16 {
        self.reply.status
    }
    fn is_redirect(&self) -> bool {
        self.reply.redirect
    }
    fn header(&self, name: &str) -> Option<String> {
        self.reply.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    }
    fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>> {
        let piece = self.reply.chunks.get(self.next).cloned();
        self.next += 1;
        let stays_open = self.reply.stays_open;
        Box::pin(async move {
            match piece {
                None if stays_open => std::future::pending().await,
                None => Ok(None),
                Some(Ok(text)) => Ok(Some(text.into_bytes())),
                Some(Err(e)) => Err(FetchFailed(e)),
            }
        })
    }
}

impl Fetch for Server {
    fn get<'a>(&'a self, url: &'a str, _headers: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
        Box::pin(async move { Err(FetchFailed(format!("unexpected GET {url}"))) })
    }
    fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
        let body = request.body.map(|b| serde_json::from_str(b).expect("the client sends JSON")).unwrap_or(Value::Null);
        self.seen.borrow_mut().push(Seen { method: request.method.into(), redirects: request.redirects, headers: request.headers.to_vec(), body });
        self.log.borrow_mut().push(request.method.into());
        let reply = self.replies.borrow_mut().pop_front().unwrap_or_else(|| Reply::status(500, "text/plain", "the script ran out"));
        let log = self.log.clone();
        Box::pin(async move {
            if reply.hangs {
                std::future::pending::<()>().await;
            }
            if reply.fails {
                return Err(FetchFailed("TypeError: Failed to fetch".into()));
            }
            Ok(Box::new(Stream { reply, next: 0, log }) as Box<dyn Streaming>)
        })
    }
    fn reachable<'a>(&'a self, _url: &'a str) -> LocalBoxFuture<'a, Option<bool>> {
        let answer = self.reachable;
        Box::pin(async move { answer })
    }
    fn redirect_target<'a>(&'a self, _url: &'a str) -> LocalBoxFuture<'a, Option<String>> {
        let to = self.redirect_to.clone();
        Box::pin(async move { to })
    }
    fn send_detached(&self, request: OwnedRequest) {
        let body = request.body.map(|b| serde_json::from_str(&b).expect("the client sends JSON")).unwrap_or(Value::Null);
        self.detached.borrow_mut().push(Seen { method: request.method.into(), redirects: request.redirects, headers: request.headers, body });
    }
}

fn server_settings(url: &str, secret: &str) -> McpServer {
    McpServer { url: url.into(), secret: secret.into(), ..Default::default() }
}

fn client(server: &Rc<Server>, secret: &str) -> McpClient {
    McpClient::new(&server_settings("http://127.0.0.1:9/mcp?key=abc", secret), server.clone())
}

fn init_result(id: u64, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}},
        "serverInfo": {"name": "demo", "version": "1.0.0"},
    }})
}

fn answer(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// initialize (answered as SSE with session "s1") and initialized (202).
fn handshake() -> Vec<Reply> {
    vec![Reply::sse(&[init_result(1, PROTOCOL_VERSION)]).session("s1"), Reply::accepted()]
}

fn run<T>(future: impl std::future::Future<Output = T>) -> T {
    pollster::block_on(future)
}

// ---- JSON-RPC framing --------------------------------------------------------------------

#[test]
fn requests_and_notifications_are_framed_as_json_rpc_2() {
    let request: Value = serde_json::from_str(&jsonrpc::request(7, "tools/list", json!({"cursor": "c"}))).unwrap();
    assert_eq!(request, json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"cursor": "c"}}));
    let note: Value = serde_json::from_str(&jsonrpc::notification("notifications/initialized", None)).unwrap();
    assert_eq!(note, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let reply: Value = serde_json::from_str(&jsonrpc::response(&json!("srv-1"), Ok(json!({})))).unwrap();
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}}));
    let refusal: Value = serde_json::from_str(&jsonrpc::response(&json!(3), Err(RpcError { code: -32601, message: "no".into(), data: None }))).unwrap();
    assert_eq!(refusal["error"], json!({"code": -32601, "message": "no"}));
}

#[test]
fn incoming_messages_are_told_apart() {
    let check = |text: &str, expected: Vec<Incoming>| assert_eq!(jsonrpc::parse(text).unwrap(), expected, "{text}");
    check(r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#, vec![Incoming::Response { id: json!(1), outcome: Ok(json!({"ok": true})) }]);
    check(
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: nope"}}"#,
        vec![Incoming::Response { id: json!(2), outcome: Err(RpcError { code: -32602, message: "Unknown tool: nope".into(), data: None }) }],
    );
    check(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        vec![Incoming::Notification { method: "notifications/tools/list_changed".into(), params: Value::Null }],
    );
    check(r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#, vec![Incoming::Request { id: json!("p1"), method: "ping".into(), params: Value::Null }]);
    // A batch (protocol 2025-03-26).
    let batch = jsonrpc::parse(r#"[{"jsonrpc":"2.0","method":"notifications/progress","params":{}},{"jsonrpc":"2.0","id":5,"result":{}}]"#).unwrap();
    assert_eq!(batch.len(), 2);
    assert!(batch[1].answers(5) && !batch[0].answers(5) && !batch[1].answers(4));
    assert!(jsonrpc::parse("<html>hello</html>").unwrap_err().contains("not JSON"));
    assert!(jsonrpc::parse(r#"{"hello": "world"}"#).unwrap_err().contains("not a JSON-RPC message"));
    assert!(jsonrpc::parse("42").is_err());
}

#[test]
fn server_error_texts_are_bounded_and_on_one_line() {
    let long = format!("line one\nline two {}", "x".repeat(2000));
    let error = jsonrpc::read_error(&json!({"code": 1, "message": long}));
    assert!(error.message.starts_with("line one line two x"));
    assert_eq!(error.message.chars().count(), 501);
    assert_eq!(jsonrpc::error_in_body(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}"#).unwrap().message, "Bad Request");
    assert_eq!(jsonrpc::error_in_body("<html>401</html>"), None);
}

// ---- the client --------------------------------------------------------------------------

#[test]
fn connect_negotiates_then_sends_session_and_version_headers() {
    let server = Server::new([handshake(), vec![Reply::json(answer(2, json!({"tools": []})))]].concat());
    let c = client(&server, "");
    let info = run(c.connect()).unwrap();
    assert_eq!((info.name.as_str(), info.protocol.as_str(), info.lists_changes), ("demo", PROTOCOL_VERSION, true));
    run(c.list_tools()).unwrap();
    let seen = server.seen();
    assert_eq!(seen.iter().map(|s| s.rpc_method()).collect::<Vec<_>>(), ["initialize", "notifications/initialized", "tools/list"]);
    assert!(seen.iter().all(|s| s.method == "POST" && s.header("Content-Type") == Some("application/json")));
    assert!(seen.iter().all(|s| s.header("Accept") == Some("application/json, text/event-stream")));
    assert_eq!(seen[0].body["params"]["protocolVersion"], PROTOCOL_VERSION);
    assert_eq!(seen[0].body["params"]["clientInfo"]["name"], "thoughtline");
    // Before the answer to initialize there is nothing to send back.
    assert_eq!((seen[0].header("Mcp-Session-Id"), seen[0].header("MCP-Protocol-Version")), (None, None));
    for later in &seen[1..] {
        assert_eq!(later.header("Mcp-Session-Id"), Some("s1"));
        assert_eq!(later.header("MCP-Protocol-Version"), Some(PROTOCOL_VERSION));
    }
    assert!(seen[1].body.get("id").is_none(), "initialized is a notification");
}

#[test]
fn an_older_protocol_version_is_used_as_negotiated_and_an_unknown_one_refused() {
    let server = Server::new(vec![Reply::json(init_result(1, "2025-06-18")).session("s"), Reply::accepted(), Reply::json(answer(2, json!({"tools": []})))]);
    let c = client(&server, "");
    run(c.list_tools()).unwrap();
    assert_eq!(server.seen()[2].header("MCP-Protocol-Version"), Some("2025-06-18"));

    let server = Server::new(vec![Reply::json(init_result(1, "2099-01-01"))]);
    let e = run(client(&server, "").connect()).unwrap_err();
    assert!(e.message.contains("protocol version 2099-01-01") && e.message.contains(PROTOCOL_VERSION), "{}", e.message);
}

#[test]
fn tools_are_listed_page_by_page() {
    let page1 = answer(2, json!({"tools": [{"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}], "nextCursor": "p2"}));
    let page2 = answer(3, json!({"tools": [{"name": "add", "title": "Adder", "inputSchema": {"type": "object"}}, {"description": "no name: skipped"}]}));
    let server = Server::new([handshake(), vec![Reply::sse(&[page1]), Reply::json(page2)]].concat());
    let tools = run(client(&server, "").list_tools()).unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["echo", "add"]);
    assert_eq!(tools[1].title, "Adder");
    assert!(tools.iter().all(|t| t.enabled));
    let seen = server.seen();
    assert_eq!(seen[2].body["params"], json!({}));
    assert_eq!(seen[3].body["params"], json!({"cursor": "p2"}));
}

#[test]
fn tools_the_page_cannot_call_are_listed_with_the_reason_and_never_offered() {
    let listed = answer(2, json!({"tools": [
        {"name": "echo", "inputSchema": {"type": "object"}},
        {"name": "long-job", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        {"name": "maybe-task", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        {"name": "bare-text", "inputSchema": {"type": "string"}},
        {"name": "no-schema"},
    ]}));
    let server = Server::new([handshake(), vec![Reply::json(listed)]].concat());
    let tools = run(client(&server, "").list_tools()).unwrap();
    let why: Vec<(&str, &str)> = tools.iter().map(|t| (t.name.as_str(), t.unavailable.as_str())).collect();
    assert_eq!(why[0], ("echo", ""));
    assert!(why[1].1.contains("background task"), "{why:?}");
    assert_eq!(why[2], ("maybe-task", ""), "a task it may run as a plain call is callable");
    assert!(why[3].1.contains(r#""string""#) && why[3].1.contains("object"), "{why:?}");
    assert_eq!(why[4], ("no-schema", ""));

    let s = McpSettings { servers: vec![McpServer { url: "http://127.0.0.1:1/mcp".into(), tools, ..McpServer::default() }] };
    let names = unique_names(&s, &[]);
    assert_eq!(names[0], [Some("echo".to_string()), None, Some("maybe-task".to_string()), None, Some("no-schema".to_string())]);
    let built = build_tools(&s, &hub(&server));
    assert_eq!(built.iter().map(|t| t.name().to_string()).collect::<Vec<_>>(), ["echo", "maybe-task", "no-schema"]);
}

#[test]
fn listed_tools_ask_before_each_call_until_the_person_says_otherwise() {
    let listed = answer(2, json!({"tools": [{"name": "echo"}, {"name": "add"}]}));
    let server = Server::new([handshake(), vec![Reply::json(listed)]].concat());
    let fresh = run(client(&server, "").list_tools()).unwrap();
    assert!(fresh.iter().all(|t| t.ask), "new tools ask");
    // Relisted: the person's "Always allow" stays, a new tool asks.
    let old = vec![McpToolInfo { ask: false, ..tool("echo") }];
    let merged = merge_tools(&old, fresh);
    assert_eq!(merged.iter().map(|t| (t.name.as_str(), t.ask)).collect::<Vec<_>>(), [("echo", false), ("add", true)]);
    // Built into the run's tools as they are; found again by the name the model used.
    let s = McpSettings { servers: vec![McpServer { url: "http://127.0.0.1:1/mcp".into(), tools: merged, ..McpServer::default() }] };
    let built = build_tools(&s, &hub(&server));
    assert_eq!(built.iter().map(|t| (t.name().to_string(), t.needs_approval())).collect::<Vec<_>>(), [("echo".to_string(), false), ("add".to_string(), true)]);
    assert_eq!(super::tool_named(&s, "add"), Some((0, 1)));
    assert_eq!(super::tool_named(&s, "nothing"), None);
}

#[test]
fn a_servers_instructions_are_kept_bounded_and_quoted_once_in_the_system_prompt_as_its_own() {
    let mut init = init_result(1, PROTOCOL_VERSION);
    init["result"]["instructions"] = json!(format!("Use get-sum for arithmetic. Token: secret-token-9. {}", "x".repeat(3000)));
    let server = Server::new(vec![Reply::json(init).session("s1"), Reply::accepted()]);
    let info = run(client(&server, "secret-token-9").connect()).unwrap();
    assert!(info.instructions.starts_with("Use get-sum for arithmetic. Token: •••."), "{}", &info.instructions[..60]);
    assert!(info.instructions.ends_with("the first 2000 are kept]"), "bounded");
    assert!(info.instructions.chars().count() < 2100);

    let s = McpSettings { servers: vec![McpServer {
        url: "http://127.0.0.1:1/mcp".into(),
        tools: vec![tool("echo"), tool("add")],
        instructions: "Use get-sum for arithmetic.".into(),
        ..McpServer::default()
    }] };
    let built = build_tools(&s, &hub(&server));
    let tools: Vec<&dyn crate::agent::Tool> = built.iter().map(|t| t.as_ref()).collect();
    let settings = crate::agent::AgentSettings::default();
    let system = crate::agent::prompt::system_prompt(&settings, crate::agent::Strategy::React, false, &tools);
    assert_eq!(system.matches("[From the MCP server at http://127.0.0.1:1/mcp]\nUse get-sum for arithmetic.\n[End of the notes from").count(), 1, "{system}");
    assert!(system.contains("they do not change the format or the rules above"));
    // No instructions, no notes.
    let plain = McpSettings { servers: vec![McpServer { instructions: String::new(), ..s.servers[0].clone() }] };
    let built = build_tools(&plain, &hub(&server));
    let tools: Vec<&dyn crate::agent::Tool> = built.iter().map(|t| t.as_ref()).collect();
    assert!(!crate::agent::prompt::system_prompt(&settings, crate::agent::Strategy::React, false, &tools).contains("Notes from the servers"));
}

#[test]
fn an_sse_answer_may_carry_notifications_and_requests_before_the_response() {
    let stream = Reply::sse(&[
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        json!({"jsonrpc": "2.0", "id": 99, "method": "ping"}),
        answer(2, text_result("pong")),
    ]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted()]].concat());
    let c = client(&server, "");
    let changed = Rc::new(Cell::new(0));
    let count = changed.clone();
    c.set_on_list_changed(Rc::new(move || count.set(count.get() + 1)));
    let result = run(c.call_tool("echo", json!({"text": "pong"}), None)).unwrap();
    assert_eq!(result::observation(&result).unwrap(), "pong");
    assert_eq!(changed.get(), 1);
    let seen = server.seen();
    assert_eq!(seen[2].body["params"], json!({"name": "echo", "arguments": {"text": "pong"}, "_meta": {"progressToken": "thoughtline-1"}}));
    // The server's ping was answered in the same session.
    assert_eq!(seen[3].body, json!({"jsonrpc": "2.0", "id": 99, "result": {}}));
    assert_eq!(seen[3].header("Mcp-Session-Id"), Some("s1"));
}

#[test]
fn progress_of_a_call_reaches_its_feed_as_lines_and_other_tokens_are_ignored() {
    let progress = |token: &str, params: Value| {
        let mut params = params;
        params["progressToken"] = json!(token);
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
    };
    let stream = Reply::sse(&[
        progress("thoughtline-1", json!({"progress": 1, "total": 3, "message": "reading page 1"})),
        progress("someone-else", json!({"progress": 9})),
        progress("thoughtline-1", json!({"progress": 0.5})),
        progress("thoughtline-1", json!({"progress": 2, "total": 3, "message": "token secret-token-9 used"})),
        answer(2, text_result("done")),
    ]);
    let server = Server::new([handshake(), vec![stream]].concat());
    let c = client(&server, "secret-token-9");
    let feed = super::client::ProgressFeed::default();
    assert!(run(c.call_tool("slow", json!({}), Some(feed.clone()))).is_ok());
    let lines: Vec<Heard> = (0..3).map(|_| run(feed.next())).collect();
    assert_eq!(lines, ["1 of 3: reading page 1", "0.50", "2 of 3: token ••• used"].map(|l| Heard::Progress(l.into())));
    assert_eq!(super::client::progress_text(&json!({"message": "no number"})), None);
}

#[test]
fn an_expired_session_is_started_again_once() {
    let expired = || Reply::status(404, "application/json", r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}"#);
    let again = vec![Reply::json(init_result(3, PROTOCOL_VERSION)).session("s2"), Reply::accepted()];
    let server = Server::new([handshake(), vec![expired()], again, vec![Reply::json(answer(4, text_result("ok")))]].concat());
    let c = client(&server, "");
    run(c.connect()).unwrap();
    assert!(run(c.call_tool("echo", json!({}), None)).is_ok());
    let seen = server.seen();
    assert_eq!(seen.iter().map(|s| s.rpc_method()).collect::<Vec<_>>(), ["initialize", "notifications/initialized", "tools/call", "initialize", "notifications/initialized", "tools/call"]);
    assert_eq!(seen[3].header("Mcp-Session-Id"), None, "a new session starts without the old id");
    assert_eq!(seen[5].header("Mcp-Session-Id"), Some("s2"));

    // Expired again right after starting over: give up with a message, not a loop.
    let again = vec![Reply::json(init_result(3, PROTOCOL_VERSION)).session("s2"), Reply::accepted()];
    let server = Server::new([handshake(), vec![expired()], again, vec![expired()]].concat());
    let c = client(&server, "");
    run(c.connect()).unwrap();
    let e = run(c.call_tool("echo", json!({}), None)).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::NotMcp);
    assert_eq!(server.seen().len(), 6);
}

/// What `@modelcontextprotocol/sdk`'s server answers after a restart, for a session it never saw.
const NO_VALID_SESSION: &str = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#;

#[test]
fn a_refusal_names_an_unknown_session_by_404_or_by_a_400_that_says_so() {
    assert!(session_unknown(404, ""));
    assert!(session_unknown(400, NO_VALID_SESSION));
    assert!(session_unknown(400, "Mcp-Session-Id header is required"));
    assert!(session_unknown(400, "Invalid or expired session"));
    assert!(!session_unknown(400, r#"{"error":{"message":"Invalid params: missing field `name`"}}"#), "a bad request of its own");
    assert!(!session_unknown(400, "Bad Request"));
    assert!(!session_unknown(500, "session not found"));
    assert!(!session_unknown(401, "missing session token"));
}

/// The states a client reports, in order.
fn states(c: &McpClient) -> Rc<RefCell<Vec<String>>> {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let into = seen.clone();
    c.set_on_state(Rc::new(move |state| {
        into.borrow_mut().push(match state {
            McpState::Connected(info) => format!("connected {}", info.protocol),
            McpState::Reconnecting => "reconnecting".into(),
            McpState::Failed(why) => format!("failed: {why}"),
        })
    }));
    seen
}

#[test]
fn a_server_that_restarted_and_answers_400_gets_a_new_session_and_the_call_again() {
    let forgotten = || Reply::status(400, "application/json", NO_VALID_SESSION);
    let again = vec![Reply::json(init_result(3, PROTOCOL_VERSION)).session("s2"), Reply::accepted()];
    let server = Server::new([handshake(), vec![forgotten()], again, vec![Reply::json(answer(4, text_result("ok")))]].concat());
    let c = client(&server, "");
    let said = states(&c);
    run(c.connect()).unwrap();
    assert!(run(c.call_tool("echo", json!({}), None)).is_ok());
    let seen = server.seen();
    assert_eq!(seen.iter().map(|s| s.rpc_method()).collect::<Vec<_>>(), ["initialize", "notifications/initialized", "tools/call", "initialize", "notifications/initialized", "tools/call"]);
    assert_eq!(seen[5].header("Mcp-Session-Id"), Some("s2"));
    let version = format!("connected {PROTOCOL_VERSION}");
    assert_eq!(*said.borrow(), [version.as_str(), "reconnecting", version.as_str()]);

    // A 400 about the request itself is the server's answer, not a reason to start over.
    let server = Server::new([handshake(), vec![Reply::status(400, "application/json", r#"{"error":{"message":"Invalid params"}}"#)]].concat());
    let c = client(&server, "");
    let said = states(&c);
    run(c.connect()).unwrap();
    let e = run(c.call_tool("echo", json!({}), None)).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Refused);
    assert_eq!(server.seen().len(), 3);
    assert_eq!(said.borrow().len(), 1, "still connected: {:?}", said.borrow());
}

#[test]
fn the_listener_hears_a_forgotten_session_and_the_next_listen_starts_a_new_one() {
    let again = vec![Reply::json(init_result(2, PROTOCOL_VERSION)).session("s2"), Reply::accepted()];
    let server = Server::new([handshake(), vec![Reply::status(400, "application/json", NO_VALID_SESSION)], again, vec![Reply::status(405, "text/plain", "")]].concat());
    let c = client(&server, "");
    let said = states(&c);
    run(c.connect()).unwrap();
    assert!(matches!(run(c.listen()), ListenEnd::Ended));
    assert_eq!(said.borrow().last().map(String::as_str), Some("reconnecting"));
    assert!(matches!(run(c.listen()), ListenEnd::Unsupported));
    let seen = server.seen();
    assert_eq!(seen.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["POST", "POST", "GET", "POST", "POST", "GET"]);
    assert_eq!(seen[3].header("Mcp-Session-Id"), None, "a new session starts without the old id");
    assert_eq!(seen[5].header("Mcp-Session-Id"), Some("s2"));
    assert_eq!(said.borrow().last().map(String::as_str), Some(format!("connected {PROTOCOL_VERSION}").as_str()));
}

#[test]
fn a_reconnect_that_fails_is_reported_once() {
    // The server forgets the session, then refuses the new one.
    let server = Server::new([handshake(), vec![Reply::status(404, "text/plain", ""), Reply::status(401, "application/json", "{}")]].concat());
    let c = client(&server, "");
    let said = states(&c);
    run(c.connect()).unwrap();
    let e = run(c.call_tool("echo", json!({}), None)).unwrap_err();
    let version = format!("connected {PROTOCOL_VERSION}");
    assert_eq!(*said.borrow(), [version, "reconnecting".into(), format!("failed: {}", e.message)]);
}

#[test]
fn a_server_out_of_reach_is_reported_as_failed_with_the_reason() {
    let server = Server::new([handshake(), vec![Reply::status(401, "application/json", "{}")]].concat());
    let c = client(&server, "");
    let said = states(&c);
    run(c.connect()).unwrap();
    let e = run(c.call_tool("echo", json!({}), None)).unwrap_err();
    assert_eq!(said.borrow().last(), Some(&format!("failed: {}", e.message)));
}

#[test]
fn a_server_of_the_older_transport_is_named_as_such_at_once() {
    let greeting = Reply::status(200, "text/event-stream", "event: endpoint\ndata: /messages?sessionId=abc\n\n");
    let server = Server::new(vec![Reply::status(405, "text/plain", "Method Not Allowed"), greeting]);
    let e = run(client(&server, "").connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::NotMcp);
    assert!(e.message.contains("uses the older HTTP+SSE transport (protocol 2024-11-05)"), "{}", e.message);
    let seen = server.seen();
    assert_eq!(seen.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["POST", "GET"]);
    assert_eq!(seen[1].header("Accept"), Some("text/event-stream"));

    // A GET that is no such greeting leaves the refusal as it was.
    let server = Server::new(vec![Reply::status(404, "text/html", "<p>Nothing here</p>"), Reply::status(404, "text/html", "")]);
    let e = run(client(&server, "").connect()).unwrap_err();
    assert!(!e.message.contains("uses the older"), "{}", e.message);
    let server = Server::new(vec![Reply::status(405, "text/plain", ""), Reply::status(200, "text/event-stream", "event: message\ndata: {}\n\n")]);
    let e = run(client(&server, "").connect()).unwrap_err();
    assert!(!e.message.contains("uses the older"), "{}", e.message);
}

#[test]
fn auth_failures_say_whether_the_token_is_missing_or_wrong_and_never_show_it() {
    let refused = || Reply::status(401, "application/json", r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"bad token sekret-123"},"id":null}"#);
    let server = Server::new(vec![refused()]);
    let e = run(client(&server, "").connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Auth);
    assert!(e.message.contains("wants a token") && e.message.contains("Settings → Tools → MCP servers"), "{}", e.message);

    let server = Server::new(vec![refused()]);
    let e = run(client(&server, "sekret-123").connect()).unwrap_err();
    assert!(e.message.contains("did not accept the token"), "{}", e.message);
    assert!(!e.message.contains("sekret-123"), "{}", e.message);
    assert_eq!(server.seen()[0].header("Authorization"), Some("Bearer sekret-123"));
    // The address is shown without its query, which may hold a key.
    assert!(e.message.contains("http://127.0.0.1:9/mcp ") && !e.message.contains("key=abc"), "{}", e.message);
}

#[test]
fn a_custom_header_carries_the_secret_as_it_is() {
    let mut s = server_settings("http://x.test/mcp", "k-1");
    s.header = "X-API-Key".into();
    assert_eq!(s.auth_header(), Some(("X-API-Key".into(), "k-1".into())));
    s.header = "authorization".into();
    assert_eq!(s.auth_header(), Some(("Authorization".into(), "Bearer k-1".into())));
    s.secret = "Bearer already".into();
    assert_eq!(s.auth_header(), Some(("Authorization".into(), "Bearer already".into())));
    s.secret = "  ".into();
    assert_eq!(s.auth_header(), None);
}

#[test]
fn no_response_is_told_apart_as_down_or_blocked_by_cors() {
    let mut down = Server { reachable: Some(false), ..Default::default() };
    down.replies.get_mut().push_back(Reply::no_response());
    let e = run(McpClient::new(&server_settings("http://127.0.0.1:9/mcp", ""), Rc::new(down)).connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Unreachable);
    assert!(e.message.contains("Check that it is running"), "{}", e.message);

    let mut blocked = Server { reachable: Some(true), ..Default::default() };
    blocked.replies.get_mut().push_back(Reply::no_response());
    let e = run(McpClient::new(&server_settings("http://127.0.0.1:9/mcp", ""), Rc::new(blocked)).connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Blocked);
    assert!(e.message.contains("must allow this page's origin") && e.message.contains("expose Mcp-Session-Id"), "{}", e.message);

    let unknown = Server::new(vec![Reply::no_response()]);
    let e = run(client(&unknown, "").connect()).unwrap_err();
    assert!(e.message.contains("not running") && e.message.contains("CORS"), "{}", e.message);
}

#[test]
fn a_server_that_goes_away_mid_run_is_a_lost_connection() {
    let mut gone = Server { reachable: Some(false), ..Default::default() };
    gone.replies.get_mut().extend([handshake(), vec![Reply::no_response()]].concat());
    let c = McpClient::new(&server_settings("http://127.0.0.1:9/mcp", ""), Rc::new(gone));
    run(c.connect()).unwrap();
    let e = run(c.call_tool("slow", json!({}), None)).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Lost);
    assert!(e.message.contains("stopped answering"), "{}", e.message);

    // The stream breaks, or ends, before the response.
    let mut broken = Reply::sse(&[answer(2, text_result("never"))]);
    broken.chunks.truncate(3);
    broken.chunks.push(Err("network error".into()));
    let server = Server::new([handshake(), vec![broken]].concat());
    let c = client(&server, "");
    assert_eq!(run(c.call_tool("x", json!({}), None)).unwrap_err().kind, McpErrorKind::Lost);
    let mut cut = Reply::sse(&[answer(2, text_result("never"))]);
    cut.chunks.truncate(3);
    let server = Server::new([handshake(), vec![cut]].concat());
    let e = run(client(&server, "").call_tool("x", json!({}), None)).unwrap_err();
    assert!(e.message.contains("closed the stream before it answered"), "{}", e.message);
}

#[test]
fn a_hidden_session_header_is_explained() {
    // initialize works, but CORS hid Mcp-Session-Id, so the next request has none.
    let server = Server::new(vec![
        Reply::json(init_result(1, PROTOCOL_VERSION)),
        Reply::status(400, "application/json", r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}"#),
    ]);
    let e = run(client(&server, "").connect()).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Blocked);
    assert!(e.message.contains("Access-Control-Expose-Headers: Mcp-Session-Id"), "{}", e.message);
}

#[test]
fn addresses_that_are_not_mcp_endpoints_say_so() {
    let check = |reply: Reply, expect: &str| {
        let server = Server::new(vec![reply]);
        let e = run(client(&server, "").connect()).unwrap_err();
        assert_eq!(e.kind, McpErrorKind::NotMcp, "{}", e.message);
        assert!(e.message.contains(expect), "{}", e.message);
    };
    check(Reply::status(200, "text/html; charset=utf-8", "<!doctype html><title>Thoughtline</title>"), "answered with text/html");
    check(Reply::status(404, "text/plain", "not found"), "404 Not Found");
    check(Reply::status(405, "text/plain", ""), "405");
    check(Reply::json(json!({"models": []})), "did not answer like an MCP server");
}

#[test]
fn json_rpc_errors_carry_the_servers_message() {
    let refusal = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Tool nope not found"}});
    let server = Server::new([handshake(), vec![Reply::json(refusal)]].concat());
    let e = run(client(&server, "").call_tool("nope", json!({}), None)).unwrap_err();
    assert_eq!(e.kind, McpErrorKind::Refused);
    assert!(e.message.contains("Tool nope not found") && e.message.contains("invalid arguments"), "{}", e.message);
}

// ---- schema hints ------------------------------------------------------------------------

#[test]
fn input_schemas_are_said_compactly() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city to look up. Use the English name, not the local one."},
            "days": {"type": "integer", "minimum": 1},
            "units": {"enum": ["metric", "imperial"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]},
            "note": {"type": ["string", "null"]},
            "mode": {"anyOf": [{"const": "fast"}, {"const": "exact"}]},
        },
        "required": ["city"],
    });
    assert_eq!(
        input_hint(&schema),
        r#"{"city": string (The city to look up. Use the English name, not the local one…), "days"?: integer, "mode"?: "fast" | "exact", "note"?: string | null, "tags"?: [string], "units"?: "metric" | "imperial", "where"?: {"lat": number, "lon": number}}"#
    );
    assert_eq!(input_hint(&json!({"type": "object", "additionalProperties": false})), "{} (no input)");
    assert_eq!(input_hint(&json!({"type": "object"})), "{} (no input)");
    let wide: serde_json::Map<String, Value> = (0..60).map(|i| (format!("field_{i:02}"), json!({"type": "string"}))).collect();
    let hint = input_hint(&json!({"type": "object", "properties": wide}));
    assert_eq!(hint.chars().count(), 401);
    assert!(hint.ends_with('…'));
}

#[test]
fn descriptions_are_cut_at_a_sentence_end() {
    let text = format!("Searches the docs.   Returns   matches. {}", "More words here. ".repeat(40));
    let short = compact_description(&text, 60);
    assert_eq!(short, "Searches the docs. Returns matches. More words here.");
    assert_eq!(compact_description("a b", 60), "a b");
    assert!(compact_description(&"x".repeat(100), 10).ends_with('…'));
}

#[test]
fn native_calling_gets_the_object_schema_without_dollar_schema() {
    let schema = json!({"$schema": "x", "type": "object", "properties": {"a": {"type": "number"}}});
    assert_eq!(function_parameters(&schema), json!({"type": "object", "properties": {"a": {"type": "number"}}}));
    assert_eq!(function_parameters(&json!({"type": "string"})), json!({"type": "object"}));
    assert_eq!(function_parameters(&Value::Null), json!({"type": "object"}));
}

// ---- unique names ------------------------------------------------------------------------

fn tool(name: &str) -> McpToolInfo {
    McpToolInfo { name: name.into(), input_schema: json!({"type": "object"}), ..Default::default() }
}

fn settings(servers: Vec<(&str, &str, Vec<McpToolInfo>)>) -> McpSettings {
    McpSettings {
        servers: servers.into_iter().map(|(name, url, tools)| McpServer { name: name.into(), url: url.into(), tools, ..Default::default() }).collect(),
    }
}

#[test]
fn clashing_names_get_their_servers_prefix_and_others_stay() {
    let s = settings(vec![
        ("Docs Search", "https://docs.example/mcp", vec![tool("search"), tool("fetch"), tool("calculator")]),
        ("", "https://www.tickets.example/mcp", vec![tool("Search"), tool("admin.tools.list"), tool("final_answer")]),
    ]);
    let names = unique_names(&s, &RESERVED_NAMES);
    let flat: Vec<&str> = names.iter().flatten().map(|n| n.as_deref().unwrap()).collect();
    assert_eq!(flat, ["docs_search_search", "fetch", "docs_search_calculator", "tickets_example_Search", "admin_tools_list", "tickets_example_final_answer"]);
}

#[test]
fn names_stay_unique_within_a_server_and_switched_off_tools_take_no_name() {
    let mut s = settings(vec![("a", "https://a.test/mcp", vec![tool("get_user"), tool("GetUser"), tool("get-user"), tool("x")])]);
    let names = unique_names(&s, &[]);
    assert_eq!(names[0].iter().map(|n| n.clone().unwrap()).collect::<Vec<_>>(), ["a_get_user", "a_GetUser_2", "a_get-user_3", "x"]);
    s.servers[0].tools[1].enabled = false;
    s.servers[0].tools[2].enabled = false;
    assert_eq!(unique_names(&s, &[])[0], [Some("get_user".to_string()), None, None, Some("x".to_string())]);
    s.servers[0].common.enabled = false;
    assert!(unique_names(&s, &[])[0].iter().all(Option::is_none));
    let long = "n".repeat(100);
    let s = settings(vec![("a", "https://a.test/mcp", vec![tool(&long), tool(&long), tool("with space/slash")])]);
    let names = unique_names(&s, &[]);
    assert!(names[0].iter().flatten().all(|n| n.len() <= 64 && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')), "{names:?}");
    assert_eq!(names[0][2].as_deref(), Some("with_space_slash"));
}

// ---- the tool adapter --------------------------------------------------------------------

#[test]
fn arguments_come_from_objects_json_text_or_a_lone_value() {
    let one = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
    let two = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]});
    let count = json!({"type": "object", "properties": {"n": {"type": "integer"}, "verbose": {"type": "boolean"}}, "required": ["n"]});
    let none = json!({"type": "object"});
    assert_eq!(arguments(&one, &json!("rust")).unwrap(), json!({"query": "rust"}));
    assert_eq!(arguments(&two, &json!({"a": 1, "b": 2})).unwrap(), json!({"a": 1, "b": 2}));
    assert_eq!(arguments(&two, &json!(r#" {"a": 1, "b": 2} "#)).unwrap(), json!({"a": 1, "b": 2}));
    assert_eq!(arguments(&count, &json!("12")).unwrap(), json!({"n": 12}));
    assert_eq!(arguments(&count, &json!(12)).unwrap(), json!({"n": 12}));
    assert_eq!(arguments(&none, &Value::Null).unwrap(), json!({}));
    assert_eq!(arguments(&none, &json!("")).unwrap(), json!({}));
    assert!(arguments(&two, &json!("1 and 2")).unwrap_err().contains("JSON object with named fields"));
    assert!(arguments(&one, &Value::Null).unwrap_err().contains("required: query"));
}

#[test]
fn results_become_observations_and_other_content_is_summarised() {
    let mixed = json!({"content": [
        {"type": "text", "text": "<b>Sum</b>: 3"},
        {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", "mimeType": "image/png"},
        {"type": "audio", "data": "", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs", "description": "The entry point."},
        {"type": "resource", "resource": {"uri": "mem://note", "mimeType": "text/plain", "text": "kept text"}},
        {"type": "resource", "resource": {"uri": "mem://bin", "blob": "AAAA"}},
        {"type": "hologram"},
    ]});
    assert_eq!(
        result::observation(&mixed).unwrap(),
        "<b>Sum</b>: 3\n[image: image/png, 45 bytes — not shown]\n[audio: audio/wav, 0 bytes — not shown]\n[link: a.rs file:///a.rs — The entry point.]\n[resource mem://note]\nkept text\n[resource mem://bin: unknown type, 3 bytes — not shown]\n[hologram content — not shown]"
    );
    assert_eq!(result::observation(&json!({"content": [], "structuredContent": {"n": 1}})).unwrap(), r#"{"n":1}"#);
    assert_eq!(result::observation(&json!({})).unwrap(), "(the tool returned no content)");
    assert_eq!(result::observation(&json!({"content": [{"type": "text", "text": "boom"}], "isError": true})).unwrap_err(), "boom");
}

/// A hub whose clients all talk to `server`.
fn hub(server: &Rc<Server>) -> McpHub {
    McpHub::new(server.clone(), Rc::new(|_: &str| {}), Rc::new(|_: &str, _| {}))
}

#[test]
fn built_tools_describe_themselves_for_every_strategy_and_call_their_server() {
    let mut s = settings(vec![("demo", "http://127.0.0.1:9/mcp", vec![
        McpToolInfo { name: "get-sum".into(), description: "Adds two numbers.".into(), input_schema: json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}), ..Default::default() },
        McpToolInfo { name: "off".into(), enabled: false, ..tool("off") },
    ])]);
    s.servers[0].common.timeout_s = 7.0;
    let server = Server::new([handshake(), vec![Reply::json(answer(2, text_result("The sum is 3."))), Reply::json(answer(3, json!({"content": [{"type": "text", "text": "a must be a number"}], "isError": true})))]].concat());
    let hub = hub(&server);
    let tools = build_tools(&s, &hub);
    assert_eq!(tools.len(), 1);
    let t = tools[0].as_ref();
    assert_eq!((t.name(), t.description()), ("get-sum", "Adds two numbers."));
    assert_eq!(t.input_hint(), Some(r#"{"a": number, "b": number}"#));
    assert_eq!(t.input_schema().unwrap()["required"], json!(["a", "b"]));
    assert_eq!(t.origin(), Some("http://127.0.0.1:9/mcp"));
    assert_eq!(t.timeout_ms(), Some(7000.0));
    let model = NoModel;
    let obs = run(crate::agent::tool::call_with_model(t, &json!(r#"{"a": 1, "b": 2}"#), &model)).unwrap();
    assert_eq!(obs, "The sum is 3.");
    assert_eq!(server.seen()[2].body["params"], json!({"name": "get-sum", "arguments": {"a": 1, "b": 2}, "_meta": {"progressToken": "thoughtline-1"}}));
    let e = run(crate::agent::tool::call_with_model(t, &json!({"a": "x", "b": 2}), &model)).unwrap_err();
    assert!(e.message.contains("reported an error: a must be a number"), "{}", e.message);
    let e = run(crate::agent::tool::call_with_model(t, &json!("1 plus 2"), &model)).unwrap_err();
    assert!(e.message.contains(r#"Its input: {"a": number, "b": number}"#), "{}", e.message);
    // One session for both calls.
    assert_eq!(server.seen().iter().filter(|s| s.rpc_method() == "initialize").count(), 1);
}

#[test]
fn the_hub_shares_a_client_until_its_address_or_secret_changes() {
    let server = Server::new(Vec::new());
    let hub = hub(&server);
    let mut a = server_settings("http://a.test/mcp", "one");
    let first = hub.client(&a);
    assert!(Rc::ptr_eq(&first, &hub.client(&a)));
    a.secret = "two".into();
    let second = hub.client(&a);
    assert!(!Rc::ptr_eq(&first, &second));
    assert!(!hub.is_current(&first) && hub.is_current(&second));
    // The replaced client is retired, so a listener on it lets go of the server.
    assert!(first.is_retired() && !second.is_retired());
    run(first.retired());
    hub.keep_only(std::slice::from_ref(&a));
    assert!(hub.is_current(&second) && !second.is_retired(), "a server still configured keeps its client");
    hub.keep_only(&[]);
    assert!(!hub.is_current(&second) && second.is_retired());
}

struct NoModel;

impl crate::agent::ChatModel for NoModel {
    fn complete<'a>(&'a self, _r: &'a crate::agent::ChatRequest, _p: &'a dyn Fn(crate::agent::Progress<'_>)) -> LocalBoxFuture<'a, Result<crate::agent::ChatResponse, crate::agent::LlmError>> {
        Box::pin(async { Err(crate::agent::LlmError::new(crate::agent::LlmErrorKind::Empty, "no model here")) })
    }
}

// ---- settings ----------------------------------------------------------------------------

#[test]
fn relisted_tools_keep_the_persons_choices() {
    let old = vec![McpToolInfo { enabled: false, ..tool("a") }, tool("b")];
    let merged = merge_tools(&old, vec![tool("b"), tool("a"), tool("c")]);
    assert_eq!(merged.iter().map(|t| (t.name.as_str(), t.enabled)).collect::<Vec<_>>(), [("b", true), ("a", false), ("c", true)]);
}

#[test]
fn addresses_are_shown_without_query_fragment_or_user_info() {
    assert_eq!(display_url("https://user:pw@host.test:8443/mcp?token=abc#x"), "https://host.test:8443/mcp");
    assert_eq!(display_url(" http://127.0.0.1:3000/mcp "), "http://127.0.0.1:3000/mcp");
    assert_eq!(display_url("no-scheme/path?q"), "no-scheme/path");
}

#[test]
fn secrets_are_not_serialised_and_come_back_only_when_remembered() {
    let mut s = settings(vec![("", "https://a.test/mcp", vec![]), ("", "https://b.test/mcp", vec![])]);
    s.servers[0].secret = "tok-a".into();
    s.servers[0].remember_secret = true;
    s.servers[0].client_secret = "cs-a".into();
    s.servers[1].secret = "tok-b".into();
    s.servers[1].client_secret = "cs-b".into();
    let json = serde_json::to_string(&s).unwrap();
    assert!(!json.contains("tok-") && !json.contains("cs-"), "{json}");
    assert_eq!(s.remembered_secrets(), vec![RememberedSecret { url: "https://a.test/mcp".into(), secret: "tok-a".into(), client_secret: "cs-a".into() }]);
    let mut back: McpSettings = serde_json::from_str(&json).unwrap();
    back.restore_secrets(s.remembered_secrets());
    assert_eq!((back.servers[0].secret.as_str(), back.servers[0].client_secret.as_str()), ("tok-a", "cs-a"));
    assert_eq!((back.servers[1].secret.as_str(), back.servers[1].client_secret.as_str()), ("", ""));
    // A client secret alone is remembered too, and stored secrets of an older page (no client
    // secret) still read.
    s.servers[0].secret.clear();
    assert_eq!(s.remembered_secrets()[0].client_secret, "cs-a");
    let older = crate::storage::tool_settings_read::remembered_secret(&serde_json::json!({"url": "https://a.test/mcp", "secret": "tok-a"})).unwrap();
    assert_eq!((older.secret.as_str(), older.client_secret.as_str()), ("tok-a", ""));
}

// ---- in a run ----------------------------------------------------------------------------

/// Replies in order; records the requests it was sent.
struct Scripted {
    replies: RefCell<VecDeque<crate::agent::ChatResponse>>,
    sent: RefCell<Vec<crate::agent::ChatRequest>>,
}

impl crate::agent::ChatModel for Scripted {
    fn complete<'a>(&'a self, r: &'a crate::agent::ChatRequest, _p: &'a dyn Fn(crate::agent::Progress<'_>)) -> LocalBoxFuture<'a, Result<crate::agent::ChatResponse, crate::agent::LlmError>> {
        self.sent.borrow_mut().push(r.clone());
        let reply = self.replies.borrow_mut().pop_front();
        Box::pin(async move { reply.ok_or_else(|| crate::agent::LlmError::new(crate::agent::LlmErrorKind::Empty, "script ran out")) })
    }
}

#[test]
fn a_react_run_lists_the_tool_with_its_input_calls_the_server_and_traces_where() {
    use crate::agent::trace::EventKind;
    use crate::agent::{run_agent, AgentSettings, CancelToken, ChatResponse, RunInput, Tool};
    let s = settings(vec![("demo", "http://127.0.0.1:9/mcp?k=1", vec![McpToolInfo {
        name: "get-sum".into(),
        description: "Adds two numbers.".into(),
        input_schema: json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        ..Default::default()
    }])]);
    let server = Server::new([handshake(), vec![Reply::sse(&[answer(2, text_result("The sum is 5."))])]].concat());
    let hub = hub(&server);
    let owned = build_tools(&s, &hub);
    let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).collect();
    let reply = |text: &str| ChatResponse { text: text.into(), ..Default::default() };
    let model = Scripted {
        replies: RefCell::new(VecDeque::from([
            reply("Thought: add them.\nAction:\n```json\n{\"action\": \"get-sum\", \"action_input\": {\"a\": 2, \"b\": 3}}\n```"),
            reply("Thought: done.\nFinal Answer: 5"),
        ])),
        sent: RefCell::new(Vec::new()),
    };
    let settings = AgentSettings::default();
    let clock = crate::agent::time::SystemClock::default();
    let cancel = CancelToken::new();
    let input = RunInput { question: "2+3?", history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered: None, fork: None };
    let trace = run(run_agent(input, &()));
    assert_eq!(trace.final_answer(), Some("5"));
    let system = &model.sent.borrow()[0].messages[0].content;
    assert!(system.contains("- get-sum: Adds two numbers. Input: {\"a\": number, \"b\": number}"), "{system}");
    assert!(model.sent.borrow()[1].messages.last().unwrap().content.contains("Observation: The sum is 5."));
    let via = trace.events.iter().find_map(|e| match &e.kind {
        EventKind::ToolCall { via, .. } => via.clone(),
        _ => None,
    });
    assert_eq!(via.as_deref(), Some("http://127.0.0.1:9/mcp"), "the trace names the server, without the query");
    // Native calling and structured output see the same tool.
    let specs = crate::agent::prompt::tool_specs(&tools, &settings);
    assert_eq!(specs[0].parameters["required"], json!(["a", "b"]));
    let step = crate::agent::prompt::step_schema(&crate::agent::prompt::tool_names(&tools, &settings));
    assert!(step.schema["properties"]["action"]["enum"].as_array().unwrap().contains(&json!("get-sum")));
}

#[test]
fn a_server_with_a_token_is_never_followed_through_a_redirect() {
    let redirect = Reply { status: 0, headers: Vec::new(), chunks: Vec::new(), fails: false, redirect: true, hangs: false, stays_open: false };
    let server = Rc::new(Server { replies: RefCell::new(vec![redirect].into()), redirect_to: Some("https://elsewhere.example/mcp".into()), ..Default::default() });
    let mcp = client(&server, "tok-12345");
    let err = run(mcp.list_tools()).unwrap_err();
    assert_eq!(err.kind, McpErrorKind::Refused);
    assert!(err.message.contains("redirect to https://elsewhere.example/mcp") && err.message.contains("nothing was sent there"), "{}", err.message);
    assert!(!err.message.contains("tok-12345"));
    let seen = server.seen();
    assert_eq!(seen.len(), 1, "nothing is sent after the redirect");
    assert_eq!(seen[0].redirects, Redirects::Refuse);
    // Without a token there is nothing to leak, and a moved server is simply followed.
    let open = Server::new(handshake());
    let _ = run(client(&open, "").list_tools());
    assert!(open.seen().iter().all(|s| s.redirects == Redirects::Follow));
}

// ---- cancellation ------------------------------------------------------------------------

#[test]
fn a_call_dropped_before_its_answer_tells_the_server_it_is_cancelled() {
    let mut replies = handshake();
    replies.push(Reply::json(answer(2, text_result("quick"))));
    replies.push(Reply::hang());
    let server = Server::new(replies);
    let client = client(&server, "tok-secret-123");
    run(client.connect()).unwrap();
    // An answered call cancels nothing.
    run(client.call_tool("echo", json!({"message": "hi"}), None)).unwrap();
    assert!(server.detached.borrow().is_empty());

    // A slow call, dropped while it waits (what Stop and a time limit do).
    {
        let mut call = Box::pin(client.call_tool("slow", json!({"seconds": 60}), None));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(call.as_mut().poll(&mut cx).is_pending());
    }
    let sent = server.seen();
    let call = sent.last().unwrap();
    assert_eq!(call.body["params"]["name"], "slow");
    let detached = server.detached.borrow().clone();
    assert_eq!(detached.len(), 1, "one cancellation");
    let note = &detached[0];
    assert_eq!(note.method, "POST");
    assert_eq!(note.rpc_method(), "notifications/cancelled");
    assert_eq!(note.body["params"]["requestId"], call.body["id"], "it names the dropped request");
    assert!(note.body.get("id").is_none(), "a notification, not a request");
    assert!(note.body["params"]["reason"].as_str().is_some_and(|r| !r.contains("tok-secret")));
    // Sent in the session, with the server's own token, and like every request carrying one,
    // refusing redirects.
    assert_eq!(note.header("Mcp-Session-Id"), Some("s1"));
    assert_eq!(note.header("Authorization"), call.header("Authorization"));
    assert!(note.header("Authorization").is_some());
    assert_eq!(note.redirects, Redirects::Refuse);
}

#[test]
fn nothing_is_cancelled_without_a_session() {
    // The handshake itself never finishes: dropping it sends no cancellation (there is no
    // session to send it in, and `initialize` is never cancelled).
    let server = Server::new(vec![Reply::hang()]);
    let client = client(&server, "");
    {
        let mut call = Box::pin(client.call_tool("slow", json!({}), None));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(call.as_mut().poll(&mut cx).is_pending());
    }
    assert_eq!(server.seen().len(), 1);
    assert_eq!(server.seen()[0].rpc_method(), "initialize");
    assert!(server.detached.borrow().is_empty());
}

#[test]
fn a_client_nobody_holds_any_more_ends_its_session() {
    let server = Server::new(handshake());
    let client = client(&server, "tok-secret-123");
    run(client.connect()).unwrap();
    let auth = server.seen()[0].header("Authorization").map(str::to_string);
    assert!(server.detached.borrow().is_empty(), "nothing while it is in use");
    drop(client);
    let detached = server.detached.borrow().clone();
    assert_eq!(detached.len(), 1);
    assert_eq!(detached[0].method, "DELETE");
    assert_eq!(detached[0].header("Mcp-Session-Id"), Some("s1"));
    assert_eq!(detached[0].header("Authorization").map(str::to_string), auth);
    assert_eq!(detached[0].redirects, Redirects::Refuse);

    // A client that never started a session has none to end.
    let idle = Server::new(Vec::new());
    drop(McpClient::new(&server_settings("http://127.0.0.1:9/mcp", ""), idle.clone()));
    assert!(idle.detached.borrow().is_empty());
}

#[test]
fn a_server_removed_from_settings_has_its_session_ended_once_no_run_holds_it() {
    let server = Server::new(handshake());
    let hub = McpHub::new(server.clone(), Rc::new(|_: &str| {}), Rc::new(|_: &str, _| {}));
    let settings = server_settings("http://127.0.0.1:9/mcp", "");
    let client = hub.client(&settings);
    run(client.connect()).unwrap();
    // A run still holds the client: removing the server retires it but keeps the session.
    hub.keep_only(&[]);
    assert!(client.is_retired());
    assert!(server.detached.borrow().is_empty());
    drop(client);
    let detached = server.detached.borrow().clone();
    assert_eq!(detached.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["DELETE"]);
}

#[test]
fn a_page_going_away_ends_every_session_at_once_even_one_a_run_holds() {
    let server = Server::new(handshake());
    let hub = McpHub::new(server.clone(), Rc::new(|_: &str| {}), Rc::new(|_: &str, _| {}));
    let client = hub.client(&server_settings("http://127.0.0.1:9/mcp", ""));
    run(client.connect()).unwrap();
    hub.end_sessions();
    assert!(client.is_retired());
    assert!(!hub.is_current(&client), "the hub holds no client any more");
    let methods = || server.detached.borrow().iter().map(|s| s.method.clone()).collect::<Vec<_>>();
    assert_eq!(methods(), ["DELETE"]);
    assert_eq!(server.detached.borrow()[0].header("Mcp-Session-Id"), Some("s1"));
    // Ended once: letting go of the client later sends nothing more.
    drop(client);
    assert_eq!(methods(), ["DELETE"]);
}

/// Polls as pending once, so the other side of a `race` runs first.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await
}

/// A client of `hub`, connected and listening, whose server is removed from Settings while
/// its stream is open; `run_holds` keeps a second handle to it, as a run would.
fn remove_while_listening(server: &Rc<Server>, run_holds: bool) -> Option<Rc<McpClient>> {
    let hub = McpHub::new(server.clone(), Rc::new(|_: &str| {}), Rc::new(|_: &str, _| {}));
    let client = hub.client(&server_settings("http://127.0.0.1:9/mcp", ""));
    run(client.connect()).unwrap();
    let clock = crate::agent::time::SystemClock::default();
    let listening = Rc::clone(&client).keep_listening(&clock, true);
    let held = run_holds.then(|| Rc::clone(&client));
    drop(client);
    let removed = async {
        yield_once().await;
        assert_eq!(server.log.borrow().last().map(String::as_str), Some("GET"), "the stream is open");
        hub.keep_only(&[]);
        std::future::pending::<()>().await
    };
    assert!(matches!(run(crate::agent::time::race(listening, removed)), crate::agent::time::Either::Left(())));
    held
}

#[test]
fn a_removed_server_has_its_session_ended_before_its_stream_is_let_go() {
    let server = Server::new([handshake(), vec![Reply::open_stream(), Reply::status(200, "text/plain", "")]].concat());
    assert!(remove_while_listening(&server, false).is_none());
    // The DELETE goes out while the stream is open: one sent at once after an aborted stream,
    // Chromium sends twice, and the server answers the second 404.
    assert_eq!(*server.log.borrow(), ["POST", "POST", "GET", "DELETE", "let go"]);
    assert_eq!(server.seen()[3].header("Mcp-Session-Id"), Some("s1"));
    assert!(server.detached.borrow().is_empty(), "ended once, not again when the client is dropped");
}

#[test]
fn a_removed_server_that_a_run_still_uses_keeps_its_session_until_the_run_lets_go() {
    let server = Server::new([handshake(), vec![Reply::open_stream()]].concat());
    let held = remove_while_listening(&server, true).expect("the run's handle");
    assert_eq!(*server.log.borrow(), ["POST", "POST", "GET", "let go"]);
    assert!(server.detached.borrow().is_empty());
    drop(held);
    let detached = server.detached.borrow().clone();
    assert_eq!(detached.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["DELETE"]);
}

// ---- resources and prompts ---------------------------------------------------------------

#[test]
fn resources_templates_and_prompts_are_listed_bounded_and_read_as_text() {
    let resources = answer(2, json!({"resources": [
        {"uri": "note://today", "name": "today", "title": "Today's note", "mimeType": "text/plain", "description": "What to do."},
        {"name": "no uri: skipped"},
    ]}));
    let templates = answer(3, json!({"resourceTemplates": [{"uriTemplate": "note://{day}", "name": "note-by-day"}]}));
    let prompts = answer(4, json!({"prompts": [
        {"name": "summarise", "title": "Summary", "arguments": [{"name": "topic", "required": true}, {"name": "style"}, {"description": "unnamed: skipped"}]},
        {"title": "no name: skipped"},
    ]}));
    let read = answer(5, json!({"contents": [
        {"uri": "note://today", "mimeType": "text/plain", "text": "Buy milk. Token secret-token-9."},
        {"uri": "file://logo.png", "mimeType": "image/png", "blob": "aGVsbG8="},
    ]}));
    let prompt = answer(6, json!({"messages": [
        {"role": "user", "content": {"type": "text", "text": "Summarise tides."}},
        {"role": "assistant", "content": {"type": "text", "text": "Gladly."}},
    ]}));
    let server = Server::new([handshake(), vec![Reply::json(resources), Reply::json(templates), Reply::json(prompts), Reply::json(read), Reply::json(prompt)]].concat());
    let c = client(&server, "secret-token-9");
    let (listed, templates) = run(c.list_resources()).unwrap();
    assert_eq!(listed.iter().map(|r| (r.name.as_str(), r.uri.as_str(), r.mime_type.as_str())).collect::<Vec<_>>(), [("Today's note", "note://today", "text/plain")]);
    assert_eq!((templates[0].name.as_str(), templates[0].uri.as_str()), ("note-by-day", "note://{day}"));
    let prompts = run(c.list_prompts()).unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "summarise", "asked for by its name, not its title");
    assert_eq!(prompts[0].arguments.iter().map(|a| (a.name.as_str(), a.required)).collect::<Vec<_>>(), [("topic", true), ("style", false)]);
    let text = run(c.read_resource("note://today")).unwrap();
    assert!(text.starts_with("[resource note://today]\nBuy milk. Token •••."), "{text}");
    assert!(text.contains("[resource file://logo.png: image/png,") && text.contains("not shown]"), "binary is summarised: {text}");
    let question = run(c.get_prompt("summarise", json!({"topic": "tides"}))).unwrap();
    assert_eq!(question, "Summarise tides.\n\n(The assistant, in the prompt:) Gladly.");
    let seen = server.seen();
    assert_eq!(seen.iter().skip(2).map(|s| s.rpc_method()).collect::<Vec<_>>(), ["resources/list", "resources/templates/list", "prompts/list", "resources/read", "prompts/get"]);
    assert_eq!(seen[6].body["params"], json!({"name": "summarise", "arguments": {"topic": "tides"}}));
}

#[test]
fn an_attached_resource_is_marked_bounded_or_said_unreadable() {
    let long = "x".repeat(super::ATTACHED_LIMIT + 10);
    let text = super::attached_context("Note", "note://a", "http://s/mcp", Ok(long));
    assert!(text.starts_with("\n\n[Attached by the person as context: the resource “Note” (note://a) of the MCP server at http://s/mcp."));
    assert!(text.contains(&format!("[… cut: showing {} of {} characters]", super::ATTACHED_LIMIT, super::ATTACHED_LIMIT + 10)));
    assert!(text.ends_with("[End of the resource “Note”]"));
    assert_eq!(super::attached_context("Note", "note://a", "http://s/mcp", Err("gone".into())), "\n\n[The person attached the resource “Note” (note://a), but it could not be read: gone]");
}

#[test]
fn servers_with_resources_get_a_read_action_that_asks_first() {
    let with = |url: &str, resources: usize| McpServer {
        url: url.into(),
        offers: McpOffers { resources: (0..resources).map(|i| McpItem { name: format!("r{i}"), uri: format!("note://{i}"), ..McpItem::default() }).collect(), ..McpOffers::default() }.to_text(),
        ..McpServer::default()
    };
    let s = McpSettings { servers: vec![with("http://a/mcp", 1), with("http://b/mcp", 0), with("http://c/mcp", 2)] };
    assert_eq!(super::read_actions(&s), [(0, "read_resource".to_string()), (2, "read_resource_2".to_string())]);
    let server = Server::new(vec![]);
    let built = build_tools(&s, &hub(&server));
    let read = built.iter().find(|t| t.name() == "read_resource_2").unwrap();
    assert!(read.needs_approval());
    assert_eq!(read.origin(), Some("http://c/mcp"));
    assert_eq!(super::read::uri_for_tests(&json!({"uri": "note://1"})).as_deref(), Some("note://1"));
    assert_eq!(super::read::uri_for_tests(&json!("<note://1>")).as_deref(), Some("note://1"));
    assert_eq!(super::read::uri_for_tests(&json!(r#"{"uri": "note://2"}"#)).as_deref(), Some("note://2"));
    assert_eq!(super::read::uri_for_tests(&json!(7)), None);
    // A server tool may not take the action's name.
    assert!(RESERVED_NAMES.contains(&"read_resource"));
}

#[test]
fn offers_are_kept_as_text_and_read_back_tolerantly() {
    let offers = McpOffers {
        resources: vec![McpItem { name: "Today".into(), uri: "note://today".into(), mime_type: "text/plain".into(), ..McpItem::default() }],
        templates: vec![],
        prompts: vec![McpItem { name: "summarise".into(), arguments: vec![super::McpArgument { name: "topic".into(), description: String::new(), required: true }], ..McpItem::default() }],
    };
    let server = McpServer { offers: offers.to_text(), ..McpServer::default() };
    assert_eq!(server.offers(), offers);
    assert_eq!(McpOffers::default().to_text(), "", "nothing offered is kept as nothing");
    assert_eq!(McpServer { offers: "{not json".into(), ..McpServer::default() }.offers(), McpOffers::default());
}

/// A ReAct run whose only tool is the server `name`'s `tool` (at a loopback address), through
/// `hub`; the model answers with `replies` in order. The trace, and the model (what it was sent).
fn react_run(hub: &McpHub, name: &str, tool_name: &str, question: &str, replies: &[&str]) -> (crate::agent::Trace, Scripted) {
    use crate::agent::{run_agent, AgentSettings, CancelToken, ChatResponse, RunInput, Tool};
    let s = settings(vec![(name, "http://127.0.0.1:9/mcp", vec![tool(tool_name)])]);
    let owned = build_tools(&s, hub);
    let tools: Vec<&dyn Tool> = owned.iter().map(|t| t.as_ref()).collect();
    let reply = |text: &str| ChatResponse { text: text.into(), finish_reason: Some("stop".into()), ..Default::default() };
    let model = Scripted { replies: RefCell::new(replies.iter().map(|r| reply(r)).collect()), sent: RefCell::new(Vec::new()) };
    let (settings, clock, cancel) = (AgentSettings::default(), crate::agent::time::SystemClock::default(), CancelToken::new());
    let input = RunInput { question, history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered: None, fork: None };
    let trace = run(run_agent(input, &()));
    (trace, model)
}

mod resume;
mod sampling;
mod signing;
mod visit;

// ---- a server that asks back (elicitation) ------------------------------------------------

/// Answers every question with what it is given, and keeps what it was asked.
struct Person {
    answer: crate::tools::mcp::elicit::Answer,
    asked: RefCell<Vec<(String, crate::tools::mcp::elicit::Asked)>>,
}

impl crate::tools::mcp::elicit::Asker for Person {
    fn ask(&self, server: &str, asked: crate::tools::mcp::elicit::Asked) -> LocalBoxFuture<'static, crate::tools::mcp::elicit::Answer> {
        self.asked.borrow_mut().push((server.to_string(), asked));
        let answer = self.answer.clone();
        Box::pin(async move { answer })
    }
}

fn elicitation(id: u64, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": params})
}

#[test]
fn a_question_on_the_servers_own_stream_is_answered_and_a_server_without_one_is_left_alone() {
    use crate::tools::mcp::elicit::Answer;
    let form = json!({"message": "Go on?", "requestedSchema": {"type": "object", "properties": {}}});
    let server = Server::new([handshake(), vec![Reply::sse(&[elicitation(9, form)]), Reply::accepted()]].concat());
    let c = client(&server, "");
    let person = Rc::new(Person { answer: Answer::Accept(serde_json::Map::new()), asked: RefCell::new(Vec::new()) });
    c.set_asker(person.clone());
    run(c.connect()).unwrap();
    assert!(matches!(run(c.listen()), ListenEnd::Ended));
    assert_eq!(person.asked.borrow().len(), 1);
    let seen = server.seen();
    assert_eq!((seen[2].method.as_str(), seen[3].method.as_str()), ("GET", "POST"));
    assert_eq!(seen[3].body, json!({"jsonrpc": "2.0", "id": 9, "result": {"action": "accept"}}));

    // A server that announced no list changes and answers the stream's GET with a 404: the
    // listener stops at once, and the server is not said to have failed.
    let server = Server::new([handshake(), vec![Reply::status(404, "text/html", "Cannot GET /mcp")]].concat());
    let hub = McpHub::new(server.clone(), Rc::new(|_: &str| {}), Rc::new(|_: &str, _| {}));
    let c = hub.client(&server_settings("http://127.0.0.1:9/mcp", ""));
    let said = states(&c);
    run(c.connect()).unwrap();
    run(Rc::clone(&c).keep_listening(&crate::agent::time::SystemClock::default(), false));
    assert_eq!(server.seen().len(), 3, "one GET, not tried again");
    assert!(said.borrow().iter().all(|s| !s.starts_with("failed")), "{:?}", said.borrow());
}

#[test]
fn a_question_on_the_stream_of_a_calls_answer_is_told_to_that_call_only() {
    use crate::tools::mcp::elicit::Answer;
    let form = json!({"message": "Which size?", "requestedSchema": {"type": "object", "properties": {}}});
    // Call 2 waits (its answer never comes); call 3's answer stream carries the question.
    let server = Server::new([handshake(), vec![Reply::hang(), Reply::sse(&[elicitation(7, form), answer(3, text_result("done"))]), Reply::accepted()]].concat());
    let c = client(&server, "");
    c.set_asker(Rc::new(Person { answer: Answer::Decline, asked: RefCell::new(Vec::new()) }));
    run(c.connect()).unwrap();
    let (waiting, asking) = (super::client::ProgressFeed::default(), super::client::ProgressFeed::default());
    let mut first = Box::pin(c.call_tool("slow", json!({}), Some(waiting.clone())));
    assert!(first.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())).is_pending());
    run(c.call_tool("order", json!({}), Some(asking.clone()))).unwrap();
    let told = |feed: &super::client::ProgressFeed| feed.drain().into_iter().filter(|h| matches!(h, Heard::Answered(_))).count();
    assert_eq!((told(&asking), told(&waiting)), (1, 0), "the exchange is a step of the call it came with, not of every call");
    drop(first);
}

#[test]
fn a_client_with_someone_to_ask_declares_elicitation_and_answers_the_servers_form() {
    use crate::tools::mcp::elicit::{Answer, Asked};
    let form = json!({"message": "Which size?", "requestedSchema": {"type": "object", "properties": {"size": {"type": "string", "enum": ["s", "l"], "default": "l"}}}});
    let stream = Reply::sse(&[elicitation(7, form), answer(2, text_result("done"))]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted()]].concat());
    let c = client(&server, "");
    let person = Rc::new(Person { answer: Answer::Accept(serde_json::Map::from_iter([("size".to_string(), json!("l"))])), asked: RefCell::new(Vec::new()) });
    c.set_asker(person.clone());
    let feed = super::client::ProgressFeed::default();
    let result = run(c.call_tool("order", json!({}), Some(feed.clone()))).unwrap();
    assert_eq!(result::observation(&result).unwrap(), "done");
    // The call heard that it waited on the person, what was asked and answered (for its
    // trace), and when the wait ended.
    let heard = [run(feed.next()), run(feed.next()), run(feed.next())];
    let asker = person.asked.borrow()[0].0.clone();
    let exchange = crate::agent::AskedYou { server: asker, question: "Which size?".into(), answer: r#"Sent {"size":"l"}"#.into(), accepted: true };
    assert_eq!(heard, [Heard::Asking(true), Heard::Answered(exchange), Heard::Asking(false)]);
    let seen = server.seen();
    assert_eq!(seen[0].body["params"]["capabilities"], json!({"elicitation": {"form": {}, "url": {}}}));
    assert_eq!(seen[3].body, json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "content": {"size": "l"}}}));
    let asked = person.asked.borrow();
    assert_eq!(asked.len(), 1);
    assert!(matches!(&asked[0].1, Asked::Form(f) if f.message == "Which size?" && f.fields.len() == 1));
}

#[test]
fn decline_reaches_the_server_and_a_form_that_cannot_be_shown_is_refused_as_invalid() {
    use crate::tools::mcp::elicit::Answer;
    let bad = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"deep": {"type": "object"}}}});
    let good = json!({"message": "Go on?", "requestedSchema": {"type": "object", "properties": {}}});
    let stream = Reply::sse(&[elicitation(7, bad), elicitation(8, good), answer(2, text_result("stopped"))]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted(), Reply::accepted()]].concat());
    let c = client(&server, "");
    c.set_asker(Rc::new(Person { answer: Answer::Decline, asked: RefCell::new(Vec::new()) }));
    run(c.call_tool("order", json!({}), None)).unwrap();
    let seen = server.seen();
    assert_eq!(seen[3].body["error"]["code"], json!(-32602));
    assert!(seen[3].body["error"]["message"].as_str().unwrap().contains("\"deep\""));
    assert_eq!(seen[4].body, json!({"jsonrpc": "2.0", "id": 8, "result": {"action": "decline"}}));
}

#[test]
fn a_client_with_no_one_to_ask_declares_nothing_and_declines_the_method() {
    let stream = Reply::sse(&[elicitation(7, json!({"message": "m", "requestedSchema": {"type": "object"}})), answer(2, text_result("ok"))]);
    let server = Server::new([handshake(), vec![stream, Reply::accepted()]].concat());
    let c = client(&server, "");
    run(c.call_tool("order", json!({}), None)).unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].body["params"]["capabilities"], json!({}));
    assert_eq!(seen[3].body["error"]["code"], json!(-32601));
}
