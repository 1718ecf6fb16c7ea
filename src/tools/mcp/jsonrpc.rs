//! JSON-RPC 2.0 framing as MCP uses it: the requests and notifications this page sends, and
//! the messages a server sends back (a response to one of ours, a notification, or a request
//! of its own), read from untrusted text into typed values. No I/O here.

use serde_json::{json, Map, Value};

/// The longest server-written message kept (error texts end up in the trace and the chat).
const MESSAGE_LIMIT: usize = 500;

/// A request this page sends; `id` is unique per client.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A notification this page sends (no id, no answer expected).
pub fn notification(method: &str, params: Option<Value>) -> String {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    message.to_string()
}

/// Our answer to a request the server made.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> String {
    match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}}).to_string(),
    }
}

/// An error object of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// What the error carries beside its message, read only where the page uses it: the
    /// addresses to visit of `URL_ELICITATION_REQUIRED`.
    pub data: Option<Value>,
}

/// A server's "visit these addresses first" (2025-11-25): the request can go through once the
/// person has been where `data.elicitations` says.
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// JSON-RPC's "method not found", our answer to server requests this page does not serve.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "invalid params": a server request this page serves, asked in a way it cannot
/// take (an elicitation whose schema a form cannot show).
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's "internal error": a server request this page took but could not carry out.
pub const INTERNAL_ERROR: i64 = -32603;

/// One message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response { id: Value, outcome: Result<Value, RpcError> },
    /// Something the server tells us (`notifications/tools/list_changed`, progress, logs).
    Notification { method: String, params: Value },
    /// Something the server asks of us (`ping`, sampling, …); it waits for our answer.
    Request { id: Value, method: String, params: Value },
}

impl Incoming {
    /// Whether this is the response to our request `id`.
    pub fn answers(&self, id: u64) -> bool {
        matches!(self, Incoming::Response { id: got, .. } if got.as_u64() == Some(id))
    }
}

/// Reads a message body: one JSON-RPC message, or a batch (an array; protocol 2025-03-26).
pub fn parse(text: &str) -> Result<Vec<Incoming>, String> {
    let value: Value = serde_json::from_str(text.trim()).map_err(|e| format!("the body is not JSON ({e})"))?;
    match value {
        Value::Array(items) => items.into_iter().map(read).collect(),
        single => Ok(vec![read(single)?]),
    }
}

fn read(value: Value) -> Result<Incoming, String> {
    let Value::Object(mut object) = value else {
        return Err("a JSON-RPC message must be an object".into());
    };
    let id = object.remove("id");
    if let Some(method) = object.get("method").and_then(Value::as_str).map(str::to_string) {
        let params = object.remove("params").unwrap_or(Value::Null);
        return Ok(match id {
            Some(id) if !id.is_null() => Incoming::Request { id, method, params },
            _ => Incoming::Notification { method, params },
        });
    }
    let id = id.unwrap_or(Value::Null);
    if let Some(error) = object.remove("error") {
        return Ok(Incoming::Response { id, outcome: Err(read_error(&error)) });
    }
    match object.remove("result") {
        Some(result) => Ok(Incoming::Response { id, outcome: Ok(result) }),
        None => Err("the JSON object is not a JSON-RPC message (no method, result or error)".into()),
    }
}

/// An error object, tolerant of servers that send a bare string or leave fields out.
pub fn read_error(error: &Value) -> RpcError {
    match error {
        Value::Object(fields) => {
            let code = fields.get("code").and_then(Value::as_i64).unwrap_or(0);
            RpcError {
                code,
                message: bounded(fields.get("message").and_then(Value::as_str).unwrap_or("(no message)")),
                data: fields.get("data").filter(|_| code == URL_ELICITATION_REQUIRED).cloned(),
            }
        }
        Value::String(text) => RpcError { code: 0, message: bounded(text), data: None },
        other => RpcError { code: 0, message: bounded(&other.to_string()), data: None },
    }
}

/// The error of a non-2xx HTTP body, when it is a JSON-RPC error (as the SDK's servers send).
pub fn error_in_body(body: &str) -> Option<RpcError> {
    let value: Value = serde_json::from_str(body.trim()).ok()?;
    let object: &Map<String, Value> = value.as_object()?;
    object.get("error").map(read_error)
}

/// At most `MESSAGE_LIMIT` characters of a server-written text, on one line.
pub fn bounded(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MESSAGE_LIMIT {
        return line;
    }
    let mut cut: String = line.chars().take(MESSAGE_LIMIT).collect();
    cut.push('…');
    cut
}
