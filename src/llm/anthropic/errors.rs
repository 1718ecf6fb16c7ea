//! Error bodies and statuses turned into an [`LlmError`] that says what to do.

use super::*;

/// Turns an HTTP error status and its body into a message that says what to do.
pub fn read_error(status: u16, body: &str) -> LlmError {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    describe(Some(status), &value, body)
}

/// The HTTP status Anthropic documents for each error type, for errors that arrive as a
/// stream event after the 200.
pub(super) fn status_for_type(error_type: &str) -> u16 {
    match error_type {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}

/// `http` is `None` for an `event: error` in a stream.
pub(super) fn describe(http: Option<u16>, value: &Value, raw: &str) -> LlmError {
    let error_type = value["error"]["type"].as_str().unwrap_or("");
    let detail = value["error"]["message"]
        .as_str()
        .or_else(|| value["message"].as_str())
        .or_else(|| value["error"].as_str())
        .map(str::to_string)
        // A body that is not JSON: quote it only if it is short text, not a proxy's HTML page.
        .or_else(|| (value.is_null() && !raw.trim_start().starts_with('<')).then(|| raw.to_string()))
        .unwrap_or_default();
    let status = http.unwrap_or_else(|| status_for_type(error_type));
    let when = match http {
        Some(s) => format!("(HTTP {s})"),
        None => "(in the middle of its reply)".to_string(),
    };
    let lower = detail.to_lowercase();
    let is = |t: &str, code: u16| error_type == t || status == code;
    let (kind, advice) = if status == 529 || error_type == "overloaded_error" {
        (LlmErrorKind::Server { status: 529 }, format!("Anthropic is overloaded {when}; try again shortly."))
    } else if is("authentication_error", 401) {
        if lower.contains("anthropic-dangerous-direct-browser-access") || lower.contains("cors") {
            (
                LlmErrorKind::Auth,
                format!(
                    "Anthropic refused the request from this page {when} because it arrived without the \"anthropic-dangerous-direct-browser-access: true\" header, Anthropic's opt-in for calls made directly from a browser. Thoughtline sends that header, so something in between removed it: if the base URL is a proxy, make it forward the header, or set the base URL back to https://api.anthropic.com."
                ),
            )
        } else {
            (LlmErrorKind::Auth, format!("Anthropic refused the API key {when}. Check the key in Settings (Anthropic keys start with \"sk-ant-\")."))
        }
    } else if is("permission_error", 403) {
        (
            LlmErrorKind::Auth,
            format!("Anthropic says this API key may not do that {when}. Check the key's workspace and model access in the Anthropic Console, or choose another model in Settings."),
        )
    } else if is("not_found_error", 404) {
        (
            LlmErrorKind::NotFound,
            format!("Anthropic answered Not Found {when}. Check the model name in Settings (for example claude-sonnet-4-5) and that the base URL is https://api.anthropic.com."),
        )
    } else if is("rate_limit_error", 429) {
        (
            LlmErrorKind::RateLimited,
            format!("Anthropic is rate-limiting requests {when}. Wait a minute and try again, or check your plan's limits in the Anthropic Console."),
        )
    } else if is("request_too_large", 413)
        || (status == 400 && ["prompt is too long", "context limit", "context window", "context length", "too many tokens"].iter().any(|w| lower.contains(w)))
    {
        (
            LlmErrorKind::ContextLength,
            format!("The prompt is longer than the model accepts {when}. Lower \"History budget\" or \"Observation length\" in Settings, or start a new chat."),
        )
    } else if is("billing_error", 402) {
        (
            LlmErrorKind::BadRequest { status },
            format!("Anthropic refused the request for a billing reason {when}. Check your plan and credit balance in the Anthropic Console."),
        )
    } else if (500..=599).contains(&status) || error_type == "api_error" {
        let status = if (500..=599).contains(&status) { status } else { 500 };
        (LlmErrorKind::Server { status }, format!("Anthropic had a server error {when}. Try again in a moment."))
    } else {
        (
            LlmErrorKind::BadRequest { status },
            format!("Anthropic rejected the request {when}. Check the model name and the generation settings (temperature, max tokens, stop sequences) in Settings."),
        )
    };
    LlmError::new(kind, format!("{advice}{}", said(&detail)))
}
