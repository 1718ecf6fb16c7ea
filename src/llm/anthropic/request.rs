//! The request body: system prompt apart, alternating roles, tool calls and results as
//! content blocks.

use super::*;

pub fn request_body(model: &str, request: &ChatRequest, stream: bool) -> Value {
    let system: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System && !m.content.trim().is_empty())
        .map(|m| m.content.as_str())
        .collect();

    // The API wants user/assistant strictly alternating and refuses empty turns, while the
    // agent's history may hold two user messages in a row (e.g. a note after an observation).
    // Tool results travel as `tool_result` blocks of a user turn, tool calls as `tool_use`
    // blocks of an assistant turn.
    let mut turns: Vec<(Role, Vec<Block>)> = Vec::new();
    for m in request.messages.iter().filter(|m| m.role != Role::System) {
        let mut blocks = Vec::new();
        if m.role == Role::Tool {
            blocks.push(Block::Result(m.tool_call_id.clone().unwrap_or_default(), m.content.clone()));
        } else if !m.content.trim().is_empty() {
            blocks.push(Block::Text(m.content.clone()));
        }
        for call in &m.tool_calls {
            // Anthropic wants the input as an object; a call with broken arguments is sent
            // with an empty one (its parse error already went back as the result).
            let input = serde_json::from_str::<Value>(&call.arguments).ok().filter(Value::is_object).unwrap_or_else(|| json!({}));
            blocks.push(Block::Use(call.id.clone(), call.name.clone(), input));
        }
        if blocks.is_empty() {
            continue;
        }
        let role = if m.role == Role::Assistant { Role::Assistant } else { Role::User };
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    if turns.first().map(|t| t.0) != Some(Role::User) {
        turns.insert(0, (Role::User, vec![Block::Text(OPENING_USER_TURN.to_string())]));
    }
    let last = turns.len() - 1;
    let messages: Vec<Value> = turns
        .into_iter()
        .enumerate()
        .map(|(i, (role, blocks))| {
            let role_name = if role == Role::Assistant { "assistant" } else { "user" };
            json!({ "role": role_name, "content": content_json(blocks, role == Role::Assistant && i == last) })
        })
        .collect();

    let mut body = json!({
        "model": model,
        "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(1),
        "messages": messages,
        "stream": stream,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    let stops: Vec<&String> = request.stop.iter().filter(|s| !s.trim().is_empty()).collect();
    if !stops.is_empty() {
        body["stop_sequences"] = json!(stops);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> =
            request.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})).collect();
        body["tools"] = json!(tools);
    }
    if request.temperature.is_finite() {
        // Anthropic accepts 0..=1 where OpenAI accepts 0..=2, and a setting carried over from
        // another provider should not turn into a 400. Rounded so 0.7f32 is sent as 0.7.
        let t = f64::from(request.temperature.clamp(0.0, 1.0));
        body["temperature"] = json!((t * 1000.0).round() / 1000.0);
    }
    body
}

/// A piece of a turn's content.
pub(super) enum Block {
    Text(String),
    /// `tool_use`: id, name, input.
    Use(String, String, Value),
    /// `tool_result`: the id of the call it answers, its text.
    Result(String, String),
}

/// A turn of plain text stays a string (the common case); a turn with tool blocks becomes a
/// list, tool results first as the API requires. A final assistant turn is a prefill the model
/// continues, and Anthropic rejects one that ends in whitespace.
pub(super) fn content_json(blocks: Vec<Block>, prefill: bool) -> Value {
    if blocks.iter().all(|b| matches!(b, Block::Text(_))) {
        let mut text = blocks.into_iter().map(|b| if let Block::Text(t) = b { t } else { String::new() }).collect::<Vec<_>>().join("\n\n");
        if prefill {
            text.truncate(text.trim_end().len());
        }
        return json!(text);
    }
    let (results, others): (Vec<Block>, Vec<Block>) = blocks.into_iter().partition(|b| matches!(b, Block::Result(..)));
    results
        .into_iter()
        .chain(others)
        .map(|b| match b {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::Use(id, name, input) => json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            Block::Result(id, text) => json!({"type": "tool_result", "tool_use_id": id, "content": text}),
        })
        .collect()
}
