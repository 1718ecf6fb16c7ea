//! The pure parts of Anthropic's Messages API client (`POST {base}/v1/messages`): endpoint and
//! headers, request body, the non-streaming reply, the streamed events and the error bodies.
//! Anthropic is not OpenAI-compatible: the system prompt is a top-level field, roles must
//! alternate, `max_tokens` is required, and the stream is a sequence of typed events rather
//! than chunk deltas. Everything here is a pure function or accumulator with no I/O, tested
//! natively against the recorded bodies in tests/fixtures/anthropic.
//!
//! Inside: `request` writes the request body from a [`ChatRequest`] (here: endpoint and
//! headers); the answer comes back either whole, read by `reply`, or as a stream of events fed
//! one by one into `events::AnthropicStream`, which yields [`StreamStep`]s and finally a
//! [`ChatResponse`]; an HTTP error body goes to `errors` for a message that says what to do.

mod request;
mod reply;
mod events;
mod errors;
pub use request::*;
pub use reply::*;
pub use events::*;
pub use errors::*;

use serde_json::{json, Value};

use crate::agent::model::ToolCall;
use crate::agent::{ChatRequest, ChatResponse, LlmError, LlmErrorKind, Role, Usage};

use crate::net::sse::SseEvent;
use super::stream::{count, said, StreamStep};

pub const API_VERSION: &str = "2023-06-01";

/// Anthropic requires `max_tokens`; this is used when the settings leave it unset.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// Stands in for the first user turn when a conversation would otherwise open with the
/// assistant (or be empty): the API rejects both.
const OPENING_USER_TURN: &str = "(continue)";

/// Accepts the base URL with or without `/v1`, or already the full endpoint.
pub fn endpoint(base_url: &str) -> String {
    let base = base_url.trim().trim_end_matches('/');
    if base.ends_with("/v1/messages") {
        base.to_string()
    } else if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

/// The request headers. `anthropic-dangerous-direct-browser-access` is Anthropic's opt-in for
/// calls made from a web page: without it every browser (CORS) request is refused with 401.
/// The key header is left out when empty, for a proxy that adds the key itself.
pub fn headers(api_key: &str) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("content-type", "application/json".to_string()),
        ("anthropic-version", API_VERSION.to_string()),
        ("anthropic-dangerous-direct-browser-access", "true".to_string()),
    ];
    if !api_key.trim().is_empty() {
        headers.push(("x-api-key", api_key.trim().to_string()));
    }
    headers
}

#[cfg(test)]
mod tests;
