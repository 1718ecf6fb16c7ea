//! The agent's way to read a resource of an MCP server, for example one a tool result linked
//! to (`[link: name uri]` in the observation): a built-in action per server that listed
//! resources, beside its tools, asking before each read like them (`McpServer::resources_ask`).

use std::rc::Rc;

use serde_json::{json, Value};

use super::client::McpClient;
use super::settings::McpServer;
use crate::agent::{LocalBoxFuture, Tool, ToolContext, ToolError};

pub struct ReadResource {
    client: Rc<McpClient>,
    name: String,
    description: String,
    origin: String,
    ask: bool,
    timeout_ms: Option<f64>,
}

impl ReadResource {
    pub fn new(client: Rc<McpClient>, server: &McpServer, name: String) -> Self {
        let origin = server.display_url();
        ReadResource {
            client,
            name,
            description: format!("Reads a resource of the MCP server at {origin} by its URI, for example a link one of its tools gave."),
            origin,
            ask: server.resources_ask,
            timeout_ms: (server.common.timeout_s > 0.0).then_some(server.common.timeout_s * 1000.0),
        }
    }
}

/// The URI from what the model wrote: `{"uri": …}`, or the URI alone.
fn uri_of(input: &Value) -> Option<String> {
    let uri = match input {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(o)) => o.get("uri").and_then(Value::as_str).map(str::to_string),
            _ => Some(s.clone()),
        },
        Value::Object(o) => o.get("uri").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }?;
    let uri = uri.trim().trim_matches(|c| c == '<' || c == '>').to_string();
    (!uri.is_empty()).then_some(uri)
}

impl Tool for ReadResource {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Option<Value> {
        Some(json!({"type": "object", "properties": {"uri": {"type": "string", "description": "The resource's URI"}}, "required": ["uri"]}))
    }
    fn input_hint(&self) -> Option<&str> {
        Some("{\"uri\": \"<the resource's URI>\"}")
    }
    fn origin(&self) -> Option<&str> {
        Some(&self.origin)
    }
    fn needs_approval(&self) -> bool {
        self.ask
    }
    fn timeout_ms(&self) -> Option<f64> {
        self.timeout_ms
    }
    fn call<'a>(&'a self, input: &'a Value, _cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let uri = uri_of(input).ok_or_else(|| ToolError::new(format!("{} needs the resource's URI as its input: {{\"uri\": \"…\"}}.", self.name)))?;
            self.client.read_resource(&uri).await.map_err(|e| ToolError::new(e.message))
        })
    }
}

#[cfg(test)]
pub(super) fn uri_for_tests(input: &Value) -> Option<String> {
    uri_of(input)
}
