//! A `tools/call` result as an observation: the text content as it is, every other kind of
//! content (images, audio, resources, links) summarised in a bracketed line, never rendered or
//! passed on as markup. `isError: true` makes the text the tool's error message.

use serde_json::Value;

/// The longest observation kept from one call (the prompt cuts further, per settings).
const OBSERVATION_LIMIT: usize = 100_000;

/// The observation, or the error message when the server flagged the result as an error.
pub fn observation(result: &Value) -> Result<String, String> {
    let mut parts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(content_item).filter(|p| !p.is_empty()).collect())
        .unwrap_or_default();
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
            parts.push(structured.to_string());
        }
    }
    let mut text = if parts.is_empty() { "(the tool returned no content)".to_string() } else { parts.join("\n") };
    if text.chars().count() > OBSERVATION_LIMIT {
        text = text.chars().take(OBSERVATION_LIMIT).collect();
        text.push_str("\n[… cut: the tool's answer was longer]");
    }
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        Err(text)
    } else {
        Ok(text)
    }
}

fn content_item(item: &Value) -> String {
    let field = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "text" => field("text").to_string(),
        kind @ ("image" | "audio") => format!("[{kind}: {}, {} — not shown]", or_unknown(field("mimeType")), size(field("data"))),
        "resource_link" => {
            let about = field("description");
            let about = if about.is_empty() { String::new() } else { format!(" — {}", super::schema::compact_description(about, 200)) };
            format!("[link: {} {}{about}]", field("name"), field("uri"))
        }
        "resource" => {
            let resource = item.get("resource").unwrap_or(&Value::Null);
            let get = |name: &str| resource.get(name).and_then(Value::as_str).unwrap_or("");
            if resource.get("text").is_some() {
                format!("[resource {}]\n{}", get("uri"), get("text"))
            } else {
                format!("[resource {}: {}, {} — not shown]", get("uri"), or_unknown(get("mimeType")), size(get("blob")))
            }
        }
        "" => String::new(),
        other => format!("[{} content — not shown]", other.chars().take(40).collect::<String>()),
    }
}

fn or_unknown(mime: &str) -> &str {
    if mime.is_empty() {
        "unknown type"
    } else {
        mime
    }
}

/// The decoded size of base64 data, in words.
fn size(base64: &str) -> String {
    let bytes = base64.trim_end_matches('=').len() * 3 / 4;
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}
