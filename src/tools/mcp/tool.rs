//! One MCP tool as an `agent::Tool`: the model-facing name, the description and input for the
//! prompt and for native calling, and the call itself, which goes to the tool's server as
//! `tools/call`. Any strategy can use it: the text strategies get the input as a compact hint
//! and may send a string or an object, native calling gets the server's JSON schema.

use std::rc::Rc;

use serde_json::{Map, Value};

use super::client::{McpClient, McpErrorKind, Heard, ProgressFeed, Waited};
use crate::agent::time::{race, Either};
use super::result::observation;
use super::schema::{compact_description, function_parameters, input_hint, DESCRIPTION_LIMIT};
use super::settings::{McpServer, McpToolInfo};
use crate::agent::{LocalBoxFuture, Tool, ToolContext, ToolError};

pub struct McpTool {
    client: Rc<McpClient>,
    /// The name the model uses, unique among the run's tools.
    name: String,
    /// The server's own name for the tool.
    remote: String,
    description: String,
    hint: String,
    schema: Value,
    parameters: Value,
    origin: String,
    return_direct: bool,
    timeout_ms: Option<f64>,
    ask: bool,
    instructions: String,
    /// Its view's `ui://` resource (MCP Apps; empty: none), and the server's address as set.
    view: String,
    server: String,
}

impl McpTool {
    pub fn new(client: Rc<McpClient>, server: &McpServer, tool: &McpToolInfo, name: String) -> Self {
        let mut description = compact_description(&tool.description, DESCRIPTION_LIMIT);
        if description.is_empty() {
            description = if tool.title.is_empty() { format!("The tool {} of an MCP server.", tool.name) } else { tool.title.clone() };
        }
        McpTool {
            client,
            name,
            remote: tool.name.clone(),
            description,
            hint: input_hint(&tool.input_schema),
            parameters: function_parameters(&tool.input_schema),
            schema: tool.input_schema.clone(),
            origin: server.display_url(),
            return_direct: server.common.return_direct,
            timeout_ms: (server.common.timeout_s > 0.0).then_some(server.common.timeout_s * 1000.0),
            ask: tool.ask,
            instructions: server.instructions.clone(),
            view: tool.view.clone(),
            server: server.url.trim().to_string(),
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn needs_approval(&self) -> bool {
        self.ask
    }
    fn instructions(&self) -> Option<&str> {
        Some(self.instructions.as_str()).filter(|text| !text.trim().is_empty())
    }
    fn input_schema(&self) -> Option<Value> {
        Some(self.parameters.clone())
    }
    fn input_hint(&self) -> Option<&str> {
        Some(&self.hint)
    }
    fn origin(&self) -> Option<&str> {
        Some(&self.origin)
    }
    fn return_direct(&self) -> bool {
        self.return_direct
    }
    fn timeout_ms(&self) -> Option<f64> {
        self.timeout_ms
    }
    fn call<'a>(&'a self, input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let arguments = arguments(&self.schema, input).map_err(|why| ToolError::new(format!("{why} Its input: {}", self.hint)))?;
            let mut result = self.call_once(&arguments, cx).await;
            // A server that wants a sign-in: the run waits for the person (Stop still works),
            // saying so on the step, then calls once more.
            if let Err(e) = &result {
                if e.kind == McpErrorKind::SignIn {
                    let waiting = format!("Waiting for you to sign in to {} (Sign in, above the composer)…", self.origin);
                    cx.progress(&waiting);
                    loop {
                        match self.client.wait_for_sign_in().await {
                            Waited::SignedIn => break,
                            Waited::Refused(why) => return Err(ToolError::new(format!("{} The sign-in did not happen: {why}", e.message))),
                            Waited::Still => cx.progress(&waiting),
                        }
                    }
                    result = self.call_once(&arguments, cx).await;
                }
            }
            // A server that wants the person to visit an address first: asked, as any question
            // of a server's, then the call is sent once more.
            if let Err(e) = &result {
                if e.kind == McpErrorKind::VisitFirst {
                    result = self.visit_first(e.clone(), &arguments, cx).await;
                }
            }
            let result = result.map_err(|e| ToolError::new(e.message))?;
            // A tool with a view: the page shows it beside the answer, given the call's input
            // and its whole result (the model gets the text, as from any tool).
            if !self.view.is_empty() {
                cx.show_view(serde_json::json!({
                    "server": self.server,
                    "uri": self.view,
                    "tool": {"name": self.remote, "description": self.description, "inputSchema": self.schema},
                    "arguments": arguments,
                    "result": result,
                }));
            }
            observation(&result).map(|text| self.client.scrub(&text)).map_err(|text| {
                ToolError::new(format!("The MCP server {} reported an error: {}", self.origin, self.client.scrub(&text)))
            })
        })
    }
}

impl McpTool {
    /// Asks the person about each address the server named (`e.visits`); when they went to
    /// all, the call once more, else the call ends saying so.
    async fn visit_first(&self, e: super::McpError, arguments: &Value, cx: &ToolContext<'_>) -> Result<Value, super::McpError> {
        cx.progress(&format!("{} asks you to visit an address first (above the composer)…", self.origin));
        for asked in e.visits.clone() {
            cx.asking(true);
            let (answer, exchange) = self.client.ask_to_visit(asked).await;
            cx.asking(false);
            cx.asked(exchange);
            if !matches!(answer, super::elicit::Answer::Accept(_)) {
                return Err(super::McpError { message: format!("{} You did not go there, so the call was not sent again.", e.message), ..e });
            }
        }
        self.call_once(arguments, cx).await
    }

    /// One `tools/call`, its progress said on the step as it comes (which keeps the call alive).
    async fn call_once(&self, arguments: &Value, cx: &ToolContext<'_>) -> Result<Value, super::McpError> {
        let feed = ProgressFeed::default();
        let mut call = Box::pin(self.client.call_tool(&self.remote, arguments.clone(), Some(feed.clone())));
        loop {
            match race(&mut call, feed.next()).await {
                Either::Left(result) => {
                    // What the person was asked and answered just before the call's answer
                    // arrived is still a step of it.
                    for heard in feed.drain() {
                        if let Heard::Answered(exchange) = heard {
                            cx.asked(exchange);
                        }
                    }
                    return result;
                }
                Either::Right(Heard::Progress(text)) => cx.progress(&text),
                Either::Right(Heard::Answered(exchange)) => cx.asked(exchange),
                // An approved request of the server's to use the model: the run's model writes
                // it, a model call of this step's in the trace.
                Either::Right(Heard::Sample(job)) => {
                    cx.progress(&format!("Your model writes what {} asked for…", self.origin));
                    let answer = cx.ask_model(job.request()).await;
                    job.give(answer.map(|response| (response, cx.model_name().model)).map_err(|e| e.message));
                }
                Either::Right(Heard::Asking(on)) => {
                    cx.asking(on);
                    if on {
                        cx.progress(&format!("Waiting for your answer to {}'s question (above the composer)…", self.origin));
                    }
                }
            }
        }
    }
}

/// The `arguments` object for `tools/call` from what the model wrote. Text strategies often
/// send a plain string, or the object as JSON text: a string fills the only (or only required)
/// field, JSON text is read as the object.
pub fn arguments(schema: &Value, input: &Value) -> Result<Value, String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    // The field a lone value belongs to: the only field, else the only required one.
    let single = properties.and_then(|p| {
        if p.len() == 1 {
            p.keys().next().map(String::as_str)
        } else if required.len() == 1 {
            required.first().copied()
        } else {
            None
        }
    });
    let wrap = |value: Value| -> Result<Value, String> {
        match single {
            Some(field) => {
                let kind = properties.and_then(|p| p.get(field)).and_then(|f| f.get("type")).and_then(Value::as_str);
                // `insert`, not `from_iter`: collecting into the map would compile a sort in.
                let mut object = Map::new();
                object.insert(field.to_string(), coerce(kind, value));
                Ok(Value::Object(object))
            }
            None => Err("This tool takes a JSON object with named fields as its input.".into()),
        }
    };
    match input {
        Value::Object(_) => Ok(input.clone()),
        Value::Null if required.is_empty() => Ok(Value::Object(Map::new())),
        Value::Null => Err(format!("This tool needs an input (required: {}).", required.join(", "))),
        Value::String(text) => {
            let trimmed = text.trim();
            if trimmed.starts_with('{') {
                if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
                    return Ok(object);
                }
            }
            if trimmed.is_empty() && required.is_empty() {
                return Ok(Value::Object(Map::new()));
            }
            wrap(input.clone())
        }
        other => wrap(other.clone()),
    }
}

/// A string the model wrote for a number or boolean field, as that type when it reads as one.
fn coerce(kind: Option<&str>, value: Value) -> Value {
    let Value::String(text) = &value else { return value };
    let text = text.trim();
    let parsed = match kind {
        Some("integer") => text.parse::<i64>().ok().map(Value::from),
        Some("number") => crate::number::parse_f64(text).and_then(serde_json::Number::from_f64).map(Value::Number),
        Some("boolean") => text.parse::<bool>().ok().map(Value::Bool),
        _ => None,
    };
    parsed.unwrap_or(value)
}
