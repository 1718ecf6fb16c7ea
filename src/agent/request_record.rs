//! How the trace records model requests, and how the exact request that was sent is rebuilt.
//!
//! A run's prompt grows step by step: the text strategies append to one user message, native
//! calling appends messages. Recorded whole, every request repeated all the ones before it, so a
//! trace grew with the square of its steps. A request event now holds a `RequestRecord`: what
//! the request adds to the one it builds on (an earlier request event of the same run), with the
//! replies and observations it repeats *quoted* from the events that hold them rather than
//! copied. `request_at` rebuilds the full request from the events.
//!
//! `GrowingRequest` is the only way the loop changes a request between steps (cut back, then
//! append), and it turns exactly those changes into the next record, so what the trace holds is
//! what was sent whatever the prompt looks like. A record with none of the delta fields is whole:
//! that is also how traces recorded before deltas (export version 1) read.

use serde::Serialize;

use super::model::{ChatRequest, JsonFormat, Message, ToolSpec};
use super::trace::{Event, EventKind};

/// A model request as the trace holds it: a superset of `ChatRequest`'s fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestRecord {
    /// How many events before this one the request it builds on was recorded; 0 when this
    /// record is whole. Relative, because a continued run's events are shown (and stored) after
    /// the earlier run's, renumbered.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub base_back: u32,
    /// Leading messages of the base sent unchanged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kept: u32,
    /// Bytes of the base's message number `kept` that the first of `messages` continues (the
    /// scratchpad message, grown by a step); 0 when the first of `messages` is whole.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kept_text: u32,
    /// `tools` and `json_format` are the base's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kept_tools: bool,
    /// The messages after the kept ones, without their quoted text.
    pub messages: Vec<Message>,
    /// Text an earlier event holds, left out of `messages`: `[message, at, back, len]` puts the
    /// first `len` bytes of the text (a `tool_result`'s observation, an `llm_response`'s text)
    /// of the event `back` events before this one at byte `at` of the new text of
    /// `messages[message]`. In order; `at` counts the quotes before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<[u32; 4]>,
    pub stop: Vec<String>,
    pub temperature: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_format: Option<JsonFormat>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The text of an event that a record may quote.
fn quotable(kind: &EventKind) -> Option<&str> {
    match kind {
        EventKind::ToolResult { observation, .. } => Some(observation),
        EventKind::LlmResponse { text, .. } => Some(text),
        _ => None,
    }
}

impl RequestRecord {
    /// A record of the whole request (a tool's own model call, say).
    pub fn whole(request: &ChatRequest) -> Self {
        RequestRecord {
            base_back: 0,
            kept: 0,
            kept_text: 0,
            kept_tools: false,
            messages: request.messages.clone(),
            quotes: Vec::new(),
            stop: request.stop.clone(),
            temperature: request.temperature,
            max_tokens: request.max_tokens,
            tools: request.tools.clone(),
            json_format: request.json_format.clone(),
        }
    }

    /// How many messages the full request has, without rebuilding it.
    pub fn message_count(&self) -> usize {
        self.kept as usize + self.messages.len()
    }

    /// Turns `request` (the base, rebuilt) into this record's request. `at` is this record's
    /// position in `events`, which its quotes count back from.
    fn apply(&self, request: &mut ChatRequest, events: &[Event], at: usize) -> Result<(), &'static str> {
        let kept = self.kept as usize;
        let kept_text = self.kept_text as usize;
        let continued = kept_text > 0;
        if kept + usize::from(continued) > request.messages.len() || (continued && self.messages.is_empty()) {
            return Err("it keeps messages the request it builds on does not have");
        }
        request.messages.truncate(kept + usize::from(continued));
        let mut quotes = self.quotes.iter().peekable();
        for (n, message) in self.messages.iter().enumerate() {
            let mut text = String::new();
            let mut from = 0;
            while let Some(&&[m, quote_at, back, len]) = quotes.peek() {
                if m as usize != n {
                    break;
                }
                quotes.next();
                let literal = (quote_at as usize).checked_sub(text.len()).ok_or("its quotes are out of order")?;
                text.push_str(message.content.get(from..from + literal).ok_or("a quote points past its message")?);
                from += literal;
                let quoted = at
                    .checked_sub(back as usize)
                    .filter(|_| back > 0)
                    .and_then(|i| events.get(i))
                    .and_then(|e| quotable(&e.kind))
                    .ok_or("a quote names an event without text")?;
                text.push_str(quoted.get(..len as usize).ok_or("a quote is longer than the text it quotes")?);
            }
            text.push_str(message.content.get(from..).ok_or("a quote points past its message")?);
            let content = if n == 0 && continued {
                // The base's message, cut to the bytes kept, then continued.
                let mut content = request.messages.pop().map(|m| m.content).unwrap_or_default();
                if !content.is_char_boundary(kept_text) {
                    return Err("it continues a message past its end");
                }
                content.truncate(kept_text);
                content.push_str(&text);
                content
            } else {
                text
            };
            request.messages.push(Message { role: message.role, content, tool_calls: message.tool_calls.clone(), tool_call_id: message.tool_call_id.clone() });
        }
        if quotes.next().is_some() {
            return Err("a quote names a message it does not have");
        }
        request.stop.clone_from(&self.stop);
        request.temperature = self.temperature;
        request.max_tokens = self.max_tokens;
        if !self.kept_tools {
            request.tools.clone_from(&self.tools);
            request.json_format.clone_from(&self.json_format);
        }
        Ok(())
    }
}

/// The exact request the model received for the `llm_request` event at `position` of `events`
/// (a run's events, or several runs' shown one after the other). It follows the records back to
/// a whole one and applies them forward, so it costs the size of those records.
pub fn request_at(events: &[Event], position: usize) -> Result<ChatRequest, String> {
    rebuild(events, position, &mut Vec::new())
}

/// Rebuilds the requests of one trace in order, each from the last ones rebuilt rather than
/// from the run's first: going through a whole run costs one step per request instead of the
/// whole chain each time (the OpenTelemetry export reads every request of a run).
#[derive(Default)]
pub struct Rebuilder {
    /// The latest requests rebuilt, by position: one per chain a run interleaves (the agent's
    /// own, a tool's model call, a plan's).
    known: Vec<(usize, ChatRequest)>,
}

impl Rebuilder {
    /// Chains kept: more than a run interleaves.
    const KEEP: usize = 4;

    /// The request at `position`, as `request_at` rebuilds it.
    pub fn request_at(&mut self, events: &[Event], position: usize) -> Result<&ChatRequest, String> {
        let request = rebuild(events, position, &mut self.known)?;
        if self.known.len() >= Self::KEEP {
            self.known.remove(0);
        }
        self.known.push((position, request));
        match self.known.last() {
            Some((_, request)) => Ok(request),
            None => Err(String::from("The request could not be kept.")),
        }
    }
}

/// Walks back from `position` to a request in `known` (taken out of it) or to a whole request,
/// then applies each record from there.
fn rebuild(events: &[Event], position: usize, known: &mut Vec<(usize, ChatRequest)>) -> Result<ChatRequest, String> {
    let damaged = |why: &str| {
        let index = events.get(position).map_or(position as u32, |e| e.index);
        format!("The request of event {index} cannot be rebuilt: {why}. The trace may be damaged or cut short.")
    };
    let mut chain = Vec::new();
    let mut at = position;
    let mut request = loop {
        if let Some(k) = known.iter().position(|(p, _)| *p == at) {
            break known.remove(k).1;
        }
        let Some(EventKind::LlmRequest { request, .. }) = events.get(at).map(|e| &e.kind) else {
            return Err(damaged(if at == position { "it is not a model request" } else { "it builds on an event that is not a model request" }));
        };
        chain.push((at, request));
        if request.base_back == 0 {
            break ChatRequest::new(Vec::new(), 0.0, None);
        }
        at = at.checked_sub(request.base_back as usize).ok_or_else(|| damaged("it builds on a request before the start of the trace"))?;
    };
    for (at, record) in chain.into_iter().rev() {
        record.apply(&mut request, events, at).map_err(damaged)?;
    }
    Ok(request)
}

/// A request that changes only by being cut back and appended to, remembering how much of it
/// is unchanged since it was last recorded. The loop keeps one per run and extends it step by
/// step; `record` turns exactly the changes made into the next `RequestRecord`.
pub struct GrowingRequest {
    request: ChatRequest,
    /// Position in the run's trace of the event it was last recorded as.
    recorded_at: Option<usize>,
    /// Messages unchanged since then, and bytes unchanged of the next one.
    kept: usize,
    kept_text: usize,
    kept_tools: bool,
    /// Appended text that an event holds: (message, byte in its content, event position, len).
    quotes: Vec<(usize, usize, usize, usize)>,
}

impl GrowingRequest {
    pub fn new(request: ChatRequest) -> Self {
        GrowingRequest { request, recorded_at: None, kept: 0, kept_text: 0, kept_tools: false, quotes: Vec::new() }
    }

    pub fn request(&self) -> &ChatRequest {
        &self.request
    }

    /// Keeps the first `len` messages.
    pub fn cut_messages(&mut self, len: usize) {
        if len >= self.request.messages.len() {
            return;
        }
        self.request.messages.truncate(len);
        if len <= self.kept {
            self.kept = len;
            self.kept_text = 0;
        }
        self.quotes.retain(|q| q.0 < len);
    }

    /// Keeps the first `len` bytes of the last message (`len` is on a char boundary).
    pub fn cut_text(&mut self, len: usize) {
        let last = self.request.messages.len().wrapping_sub(1);
        let Some(message) = self.request.messages.last_mut().filter(|m| len < m.content.len()) else {
            return;
        };
        message.content.truncate(len);
        if last < self.kept {
            (self.kept, self.kept_text) = (last, len);
        } else if last == self.kept {
            self.kept_text = self.kept_text.min(len);
        }
        self.quotes.retain_mut(|q| {
            if q.0 == last && q.1 + q.3 > len {
                q.3 = len.saturating_sub(q.1);
            }
            q.3 > 0
        });
    }

    pub fn push_message(&mut self, message: Message) {
        self.request.messages.push(message);
    }

    /// Appends to the last message.
    pub fn push_text(&mut self, text: &str) {
        self.push_from(text, None);
    }

    /// Appends to the last message text that may be the start of the text of the event at
    /// `source` (its position in the run's trace): then the record quotes it instead of
    /// copying it. Whether it is, is checked, not assumed: `text` must be that very string.
    pub fn push_from(&mut self, text: &str, source: Option<(usize, &EventKind)>) {
        let last = self.request.messages.len().wrapping_sub(1);
        let Some(message) = self.request.messages.last_mut() else { return };
        if text.is_empty() {
            return;
        }
        if last < self.kept {
            (self.kept, self.kept_text) = (last, message.content.len());
        }
        let quoted = source.filter(|(_, kind)| quotable(kind).is_some_and(|t| std::ptr::eq(t.as_ptr(), text.as_ptr()) && text.len() <= t.len()));
        if let Some((position, _)) = quoted {
            self.quotes.push((last, message.content.len(), position, text.len()));
        }
        message.content.push_str(text);
    }

    pub fn set_json_format(&mut self, json_format: Option<JsonFormat>) {
        if self.request.json_format != json_format {
            self.request.json_format = json_format;
            self.kept_tools = false;
        }
    }

    /// The record of the request as it is now, to be stored at `position` of the run's trace:
    /// what changed since it was last recorded, or all of it the first time.
    pub fn record(&mut self, position: usize) -> RequestRecord {
        let base_back = self.recorded_at.map_or(0, |at| position.saturating_sub(at)) as u32;
        if base_back == 0 {
            (self.kept, self.kept_text, self.kept_tools) = (0, 0, false);
        }
        let request = &self.request;
        let mut quotes = Vec::new();
        let messages = request.messages[self.kept..]
            .iter()
            .enumerate()
            .map(|(n, message)| {
                let start = if n == 0 { self.kept_text } else { 0 };
                let mut literal = String::with_capacity(message.content.len() - start);
                let mut from = start;
                for &(_, at, source, len) in self.quotes.iter().filter(|q| q.0 == self.kept + n && q.1 >= start) {
                    literal.push_str(&message.content[from..at]);
                    // `at` counts from the start of the new text, quotes included.
                    quotes.push([n as u32, (at - start) as u32, position.saturating_sub(source) as u32, len as u32]);
                    from = at + len;
                }
                literal.push_str(&message.content[from..]);
                Message { role: message.role, content: literal, tool_calls: message.tool_calls.clone(), tool_call_id: message.tool_call_id.clone() }
            })
            .collect();
        let record = RequestRecord {
            base_back,
            kept: self.kept as u32,
            kept_text: self.kept_text as u32,
            kept_tools: self.kept_tools,
            messages,
            quotes,
            stop: request.stop.clone(),
            temperature: request.temperature,
            max_tokens: request.max_tokens,
            tools: if self.kept_tools { Vec::new() } else { request.tools.clone() },
            json_format: if self.kept_tools { None } else { request.json_format.clone() },
        };
        self.recorded_at = Some(position);
        (self.kept, self.kept_text, self.kept_tools) = (request.messages.len(), 0, true);
        self.quotes.clear();
        record
    }
}
