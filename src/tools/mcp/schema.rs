//! An MCP tool's input schema and description, said compactly for the text strategies' tool
//! list, where every character costs prompt budget that small models do not have:
//! `{"city": string (City name), "days"?: integer}` instead of the whole JSON schema.
//! Also the schema as sent for native tool calling, with the parts providers choke on removed.

use serde_json::{Map, Value};

/// The longest input hint; past it the rendering ends with `…`.
const HINT_LIMIT: usize = 400;
/// The longest description kept for a tool.
pub const DESCRIPTION_LIMIT: usize = 400;
/// Property descriptions are cut to this many characters.
const FIELD_NOTE_LIMIT: usize = 60;
/// Enum values listed before `…`.
const ENUM_LIMIT: usize = 8;

/// The input of a tool in one line: a JSON object template with types, `?` marking optional
/// fields, enums as `"a" | "b"`, and each field's description cut short.
pub fn input_hint(schema: &Value) -> String {
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    let mut out = match schema.get("properties").and_then(Value::as_object) {
        Some(props) if !props.is_empty() => object(props, &required(schema), 0),
        // `{"type": "object"}` with no fields: the tool takes nothing (or anything).
        _ if is_object => "{} (no input)".to_string(),
        _ => type_of(schema, 0),
    };
    if out.chars().count() > HINT_LIMIT {
        out = out.chars().take(HINT_LIMIT).collect();
        out.push('…');
    }
    out
}

/// A description for the prompt: whitespace collapsed, cut at a sentence end within the limit.
pub fn compact_description(text: &str, limit: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= limit {
        return line;
    }
    let cut: String = line.chars().take(limit).collect();
    match cut.rfind(". ") {
        Some(end) if end > limit / 3 => cut[..=end].to_string(),
        _ => format!("{}…", cut.trim_end()),
    }
}

/// The schema as native tool calling sends it: an object schema (MCP requires one; a server
/// that sent something else gets "any object"), without `$schema`, which some APIs reject.
pub fn function_parameters(schema: &Value) -> Value {
    match schema {
        Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => {
            let mut map = map.clone();
            map.remove("$schema");
            Value::Object(map)
        }
        _ => serde_json::json!({"type": "object"}),
    }
}

fn required(schema: &Value) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

fn object(props: &Map<String, Value>, required: &[&str], depth: usize) -> String {
    let fields: Vec<String> = props
        .iter()
        .map(|(name, field)| {
            let mark = if required.contains(&name.as_str()) { "" } else { "?" };
            let note = field
                .get("description")
                .and_then(Value::as_str)
                .map(|d| compact_description(d, FIELD_NOTE_LIMIT))
                .filter(|d| !d.is_empty())
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            format!("{}{mark}: {}{note}", Value::String(name.clone()), type_of(field, depth + 1))
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

fn type_of(schema: &Value, depth: usize) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let mut shown: Vec<String> = values.iter().take(ENUM_LIMIT).map(Value::to_string).collect();
        if values.len() > ENUM_LIMIT {
            shown.push("…".into());
        }
        return shown.join(" | ");
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let mut shown: Vec<String> = options.iter().take(4).map(|o| type_of(o, depth)).collect();
            shown.dedup();
            return shown.join(" | ");
        }
    }
    match schema.get("type") {
        Some(Value::String(kind)) => named(kind, schema, depth),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).map(|k| named(k, schema, depth)).collect::<Vec<_>>().join(" | "),
        _ if schema.get("properties").is_some() => named("object", schema, depth),
        _ => "any".into(),
    }
}

fn named(kind: &str, schema: &Value, depth: usize) -> String {
    match kind {
        "object" => match schema.get("properties").and_then(Value::as_object) {
            Some(props) if depth < 2 && !props.is_empty() => object(props, &required(schema), depth),
            _ => "object".into(),
        },
        "array" => match schema.get("items") {
            Some(items) => format!("[{}]", type_of(items, depth + 1)),
            None => "array".into(),
        },
        other => other.to_string(),
    }
}
