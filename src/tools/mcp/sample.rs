//! Sampling (`sampling/createMessage`, MCP 2025-11-25): in the middle of a call, a server asks
//! the host's model to write something. No I/O here: the request read and bounded (its messages,
//! system prompt and token limit); the review the person gives it (approved as asked, approved
//! after they edited it, or denied); the request as the model gets it; the result as the
//! specification words it; and the exchange as the trace keeps it. The page shows the request
//! and asks; the call that waits on the server runs it on the run's model.

use serde_json::{json, Value};

use crate::agent::model::{ChatRequest, ChatResponse, Message};
use crate::agent::LocalBoxFuture;

/// Who reviews a server's request to use the model: the page, which shows it to the person
/// (unless they always allow that server) and hands back their choice. A client with one
/// declares sampling when it connects.
pub trait Sampler {
    /// `server` is how the page names the server asking.
    fn review(&self, server: &str, asked: Sampling) -> LocalBoxFuture<'static, Review>;
}

/// Messages read of one request: more is refused, not cut.
const MESSAGE_COUNT_LIMIT: usize = 50;
/// Characters kept of one message, and of the system prompt.
const TEXT_LIMIT: usize = 20_000;
/// The most tokens a server may ask for, whatever it asks: the page's own limit.
pub const MAX_TOKENS_LIMIT: u32 = 4096;

/// Who wrote a message of the conversation the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

impl Speaker {
    pub fn as_str(self) -> &'static str {
        match self {
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
        }
    }
}

/// A server's request to the model, as read and bounded.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    pub system: Option<String>,
    pub messages: Vec<(Speaker, String)>,
    /// What the server asked for, and what the model will be allowed (at most the page's limit).
    pub asked_tokens: u64,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    pub stop: Vec<String>,
    /// The models the server would like, by name (hints only: the person's model answers).
    pub hints: Vec<String>,
    /// The tools the server offers the model inside the request (2025-11-25): shown, and the
    /// request refused, since this page does not run a server's tools inside sampling.
    pub tools: Vec<String>,
    /// Content the page does not send a model (images, audio), said once per kind.
    pub left_out: Vec<String>,
}

/// The person's choice about a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Review {
    /// Run it: as asked, or as the person edited it (`edited`). `always`: by their standing
    /// rule for this server, without asking.
    Approve { asked: Sampling, edited: bool, always: bool },
    Deny,
}

/// Reads a `sampling/createMessage` request's params; the error says what is wrong, for the
/// server (an invalid-params answer).
pub fn read(params: &Value) -> Result<Sampling, String> {
    let raw = params.get("messages").and_then(Value::as_array).ok_or("The request has no messages.")?;
    if raw.is_empty() {
        return Err("The request has no messages.".into());
    }
    if raw.len() > MESSAGE_COUNT_LIMIT {
        return Err(format!("The request has {} messages; this client takes at most {MESSAGE_COUNT_LIMIT}.", raw.len()));
    }
    let mut left_out: Vec<String> = Vec::new();
    let mut messages = Vec::with_capacity(raw.len());
    for message in raw {
        let speaker = match message.get("role").and_then(Value::as_str) {
            Some("user") => Speaker::User,
            Some("assistant") => Speaker::Assistant,
            other => return Err(format!("A message has the role {}; only user and assistant are allowed.", other.unwrap_or("(none)"))),
        };
        // One content block, or (2025-11-25) a list of them.
        let blocks: Vec<&Value> = match message.get("content") {
            Some(Value::Array(list)) => list.iter().collect(),
            Some(block @ Value::Object(_)) => vec![block],
            _ => return Err("A message has no content.".into()),
        };
        let mut text = String::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(block.get("text").and_then(Value::as_str).unwrap_or_default());
                }
                Some(kind @ ("image" | "audio")) => {
                    let said = format!("{kind} content");
                    if !left_out.contains(&said) {
                        left_out.push(said);
                    }
                }
                Some(kind @ ("tool_use" | "tool_result")) => return Err(format!("A message holds {kind} content, which this client does not offer in sampling.")),
                other => return Err(format!("A message holds content of type {}, which this client cannot read.", other.unwrap_or("(none)"))),
            }
        }
        messages.push((speaker, cut(&text)));
    }
    let asked_tokens = params.get("maxTokens").and_then(Value::as_u64).ok_or("The request has no maxTokens.")?;
    if asked_tokens == 0 {
        return Err("The request asks for 0 tokens.".into());
    }
    let system = params.get("systemPrompt").and_then(Value::as_str).map(cut).filter(|s| !s.trim().is_empty());
    let temperature = params.get("temperature").and_then(Value::as_f64).filter(|t| (0.0..=2.0).contains(t)).map(|t| t as f32);
    let stop = params.get("stopSequences").and_then(Value::as_array).map(|s| s.iter().filter_map(Value::as_str).take(8).map(|s| s.chars().take(100).collect()).collect()).unwrap_or_default();
    let hints = params
        .pointer("/modelPreferences/hints")
        .and_then(Value::as_array)
        .map(|h| h.iter().filter_map(|h| h.get("name").and_then(Value::as_str)).take(8).map(|s| s.chars().take(100).collect()).collect())
        .unwrap_or_default();
    let tools = params
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().map(|t| t.get("name").and_then(Value::as_str).unwrap_or("(unnamed)").chars().take(100).collect()).take(50).collect())
        .unwrap_or_default();
    Ok(Sampling { system, messages, asked_tokens, max_tokens: asked_tokens.min(MAX_TOKENS_LIMIT as u64) as u32, temperature, stop, hints, tools, left_out })
}

fn cut(text: &str) -> String {
    if text.chars().count() <= TEXT_LIMIT {
        return text.to_string();
    }
    let mut kept: String = text.chars().take(TEXT_LIMIT).collect();
    kept.push('…');
    kept
}

impl Sampling {
    /// The request as the model gets it.
    pub fn request(&self) -> ChatRequest {
        let mut messages = Vec::with_capacity(self.messages.len() + 1);
        if let Some(system) = &self.system {
            messages.push(Message::system(system.clone()));
        }
        for (speaker, text) in &self.messages {
            messages.push(match speaker {
                Speaker::User => Message::user(text.clone()),
                Speaker::Assistant => Message::assistant(text.clone()),
            });
        }
        let mut request = ChatRequest::new(messages, self.temperature.unwrap_or(0.7), Some(self.max_tokens));
        request.stop = self.stop.clone();
        request
    }

    /// What the person should know besides the messages: the limit cut, content left out,
    /// tools asked for.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.asked_tokens > self.max_tokens as u64 {
            notes.push(format!("It asked for up to {} tokens; this page allows {}.", self.asked_tokens, self.max_tokens));
        }
        if !self.left_out.is_empty() {
            notes.push(format!("It sent {}, which is left out: the model gets the text only.", self.left_out.join(" and ")));
        }
        if !self.hints.is_empty() {
            notes.push(format!("It would like {}; your model in Settings answers.", self.hints.join(", ")));
        }
        if !self.tools.is_empty() {
            notes.push(format!(
                "It offers the model tools ({}), which this page does not run for a server: the request is refused.",
                self.tools.join(", ")
            ));
        }
        notes
    }

    /// The request in words, for the trace: the system prompt, the last message, the limit.
    pub fn summary(&self) -> String {
        let last = self.messages.last().map(|(_, text)| text.as_str()).unwrap_or_default();
        let mut said = format!("Wants your model to write (at most {} tokens): {}", self.max_tokens, super::jsonrpc::bounded(last));
        if let Some(system) = &self.system {
            said.push_str(&format!(" — with the instructions: {}", super::jsonrpc::bounded(system)));
        }
        said
    }
}

/// The answer to an approved request, as the specification words it.
pub fn result(response: &ChatResponse, model: &str) -> Value {
    let stop = match response.finish_reason.as_deref() {
        Some("length" | "max_tokens" | "max_output_tokens") => "maxTokens",
        Some("stop_sequence") => "stopSequence",
        _ => "endTurn",
    };
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": response.text},
        "model": if model.is_empty() { "unknown" } else { model },
        "stopReason": stop,
    })
}

/// The error code a refused request gets (the specification's example of a person's refusal).
pub const REFUSED: i64 = -1;

/// The exchange as the trace keeps it (a step of the call, like a server's question): what was
/// asked, and what the person decided.
pub fn exchange(server: &str, asked: &Sampling, review: &Review) -> crate::agent::AskedYou {
    let answer = match review {
        Review::Approve { always: true, .. } => "Allowed by your rule for this server; your model writes it.",
        Review::Approve { edited: true, .. } => "Approved after you edited it; your model writes it.",
        Review::Approve { .. } => "Approved; your model writes it.",
        Review::Deny => "Denied: the server was told you refused.",
    };
    crate::agent::AskedYou { server: server.to_string(), question: asked.summary(), answer: answer.to_string(), accepted: matches!(review, Review::Approve { .. }) }
}

#[cfg(test)]
mod tests;
