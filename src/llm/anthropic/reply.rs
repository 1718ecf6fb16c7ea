//! A successful non-streaming reply, read into a [`ChatResponse`].

use super::*;

/// Reads a successful (2xx) non-streaming body.
pub fn read_message(body: &str) -> Result<ChatResponse, LlmError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        LlmError::new(
            LlmErrorKind::BadResponse,
            format!("Anthropic's reply is not valid JSON ({e}). Check that the base URL points at the Anthropic API (https://api.anthropic.com)."),
        )
    })?;
    if value["type"] == "error" {
        return Err(describe(None, &value, body));
    }
    let Some(content) = value["content"].as_array() else {
        return Err(LlmError::new(
            LlmErrorKind::BadResponse,
            "Anthropic's reply has no content list. Check that the base URL points at the Anthropic API (https://api.anthropic.com).",
        ));
    };
    let text = content.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
    let tool_calls = content
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| ToolCall {
            id: b["id"].as_str().unwrap_or_default().to_string(),
            name: b["name"].as_str().unwrap_or_default().to_string(),
            arguments: b.get("input").filter(|i| !i.is_null()).map_or_else(|| "{}".to_string(), Value::to_string),
        })
        .collect();
    let usage = value.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        cached_tokens: cached_tokens(u),
        ..Usage::new(input_tokens(u).unwrap_or(0), count(&u["output_tokens"]))
    });
    let finish_reason = value["stop_reason"].as_str().map(str::to_string);
    Ok(ChatResponse { text, usage, incomplete: false, tool_calls, finish_reason })
}

/// The whole prompt: Anthropic counts cached prompt tokens separately from `input_tokens`,
/// while `Usage::prompt_tokens` (like OpenAI's) means all of them. `None` if none is given.
pub(super) fn input_tokens(u: &Value) -> Option<u32> {
    let keys = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"];
    if keys.iter().all(|k| u[k].as_u64().is_none()) {
        return None;
    }
    Some(keys.iter().map(|k| count(&u[k])).fold(0u32, u32::saturating_add).min(i32::MAX as u32))
}

/// The prompt tokens read from Anthropic's cache, when it says.
pub(super) fn cached_tokens(u: &Value) -> Option<u32> {
    u["cache_read_input_tokens"].as_u64().map(|_| count(&u["cache_read_input_tokens"]))
}
