//! The stored JSON of a run's trace, kept between the saves of a run in progress. A run only
//! ever appends events, and a recorded event never changes, so each save serialises just the
//! events added since the last one instead of the whole run again: saving a chat costs the
//! same at step 200 as at step 2 (apart from handing the text to the database).

use serde::Serialize;

use super::chats::{StoredChat, StoredMessage};
use crate::agent::Event;

/// `[` and the events so far, comma separated (the `]` is added when a body is written).
#[derive(Debug, Default)]
pub struct TraceJson {
    /// The chat whose trace this is.
    chat: String,
    json: String,
    count: usize,
    /// The last event serialised. A trace that no longer holds it at the same place (a new run
    /// started) is serialised again from its start, as is another chat's.
    last: Option<Event>,
}

/// A chat as written, all but its trace, in the field order `StoredChat` has.
#[derive(Serialize)]
struct ChatHead<'a> {
    version: u32,
    id: &'a str,
    title: &'a str,
    messages: &'a [StoredMessage],
    running: bool,
}

impl TraceJson {
    /// Catches up with `events`, the trace of chat `chat`: only those after the ones already
    /// serialised are read.
    pub fn update(&mut self, chat: &str, events: &[Event]) {
        let continues = self.chat == chat
            && match self.count.checked_sub(1) {
                None => true,
                Some(i) => events.get(i).is_some_and(|e| Some(e) == self.last.as_ref()),
            };
        if !continues {
            *self = TraceJson { chat: chat.to_string(), ..TraceJson::default() };
        }
        for event in &events[self.count..] {
            // Cannot fail for these types (every map key is a string). Should it, the event is
            // written as `null`, which reading drops alone and names in the chat's note.
            let json = serde_json::to_string(event).unwrap_or_else(|_| "null".into());
            self.json.push(if self.count == 0 { '[' } else { ',' });
            self.json.push_str(&json);
            self.count += 1;
        }
        self.last = events.last().cloned();
    }

    /// The stored text of `chat` with this trace. `chat.trace` itself is not read: pass the
    /// chat without it, so the run is not copied to be saved.
    pub fn chat_body(&self, chat: &StoredChat) -> String {
        let head = ChatHead { version: chat.version, id: &chat.id, title: &chat.title, messages: &chat.messages, running: chat.running };
        let mut body = serde_json::to_string(&head).unwrap_or_else(|_| "{}".into());
        body.pop(); // the closing brace
        body.reserve(self.json.len() + 12);
        body.push_str(",\"trace\":");
        body.push_str(if self.count == 0 { "[" } else { &self.json });
        body.push_str("]}");
        body
    }
}
