//! The entries of a server's lists, read and bounded: a tool of `tools/list` (and why one the
//! model cannot be offered), a resource or prompt of `resources/list` and `prompts/list`.

use super::*;

/// One entry of `tools/list`, bounded; entries without a name are skipped.
pub(super) fn tool_info(tool: &Value) -> Option<McpToolInfo> {
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
    let view = crate::tools::mcp::app::tool_view(tool);
    Some(McpToolInfo {
        name: name.chars().take(128).collect(),
        title: jsonrpc::bounded(title),
        description: super::super::schema::compact_description(description, DESCRIPTION_LIMIT * 5),
        input_schema,
        enabled: true,
        // A tool a server lists asks before each call until the person says otherwise.
        ask: true,
        unavailable,
        view: view.uri,
        for_model: view.model,
        for_views: view.app,
    })
}

/// A resource (`uri_field` "uri"), a resource template ("uriTemplate") or a prompt ("") as
/// listed, bounded; `None` without a name (or, for a resource, a URI).
pub(super) fn item(value: &Value, uri_field: &str) -> Option<McpItem> {
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
        description: super::super::schema::compact_description(text("description"), DESCRIPTION_LIMIT),
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
