//! An incremental Server-Sent Events (`text/event-stream`) decoder. It owns only the framing:
//! bytes in, `SseEvent`s out, following the WHATWG "interpreting an event stream" rules, so the
//! readers (`llm/stream.rs`, `llm/anthropic/`, the MCP client) never see line endings or chunk boundaries.
//! It does no I/O: the fetch loop feeds it whatever chunks the body reader yields.
//!
//! Hand-written rather than a crate: `sse-codec` wants `futures_codec`/`bytes`/`futures-io`,
//! `eventsource-stream` wants `futures-core`/`nom`/`pin-project-lite` and a byte `Stream`,
//! while this needs nothing but `std` and is small enough to read in one sitting.

/// One dispatched event. `data` lines are joined with `\n`; `id` is the stream's last event ID
/// (it persists across events, as in the spec), `None` while it is empty.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
    pub id: Option<String>,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line being read. Kept as bytes, not text, because a chunk may end inside a
    /// multi-byte UTF-8 character; line terminators never occur inside one, so decoding a whole
    /// line at a time is always correct.
    line: Vec<u8>,
    /// The previous chunk ended with `\r`: a `\n` opening the next chunk belongs to that line end.
    after_cr: bool,
    /// Past the first line; before it, a UTF-8 byte order mark must be dropped.
    past_first_line: bool,
    event_type: String,
    data: String,
    last_id: String,
    /// The reconnection time the stream asked for (`retry:`), in milliseconds.
    retry: Option<u64>,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next chunk of the body and returns the events it completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut rest = bytes;
        if self.after_cr {
            self.after_cr = false;
            if let Some((b'\n', tail)) = rest.split_first() {
                rest = tail;
            }
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..end]);
            self.end_line(&mut out);
            let was_cr = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if was_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
        }
        self.line.extend_from_slice(rest);
        out
    }

    /// The stream's last event ID so far, priming events (an ID and no data) included: what a
    /// reconnecting reader sends as `Last-Event-ID`.
    pub fn last_id(&self) -> Option<&str> {
        Some(self.last_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The reconnection time the stream asked for, in milliseconds, if it did.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry
    }

    /// Ends the body. Unlike a browser `EventSource`, which drops an unterminated last event,
    /// this dispatches it: bodies read whole or cut by a proxy often lack the final blank line,
    /// and losing the last chunk would lose `[DONE]` or the usage numbers.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut out);
        }
        self.after_cr = false;
        self.dispatch(&mut out);
        out
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let mut raw = std::mem::take(&mut self.line);
        if !self.past_first_line {
            self.past_first_line = true;
            if raw.starts_with(BOM) {
                raw.drain(..BOM.len());
            }
        }
        let line = String::from_utf8_lossy(&raw);
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            // Comments: llama.cpp's keep-alive pings, DashScope's `:HTTP_STATUS/200`.
            return;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "event" => self.event_type = value.to_string(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.last_id = value.to_string(),
            // Older llama.cpp servers wrote mid-stream failures as an `error: {json}` line,
            // a field the spec would ignore, silently losing the reason the reply stopped.
            // Surfacing it as an `error` event lets the readers report it.
            "error" => {
                self.event_type = "error".to_string();
                self.data.push_str(value);
                self.data.push('\n');
            }
            // Kept for a reader that reconnects (an MCP client resuming a stream); a chat
            // request ignores it.
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => self.retry = value.parse().ok(),
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event_type = std::mem::take(&mut self.event_type);
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        out.push(SseEvent {
            event: if event_type.is_empty() { None } else { Some(event_type) },
            data,
            id: if self.last_id.is_empty() { None } else { Some(self.last_id.clone()) },
        });
    }
}

#[cfg(test)]
mod tests;
