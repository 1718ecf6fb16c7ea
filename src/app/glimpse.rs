//! The glimpse: a few lines of the open chat kept beside it in `localStorage`, so that the
//! first screen (`www/index.html`, drawn by `www/early.js` before the WebAssembly has arrived)
//! shows a returning person the chat they left, in the place the app then draws it.
//!
//! Only what the first screen shows: the title and the last messages, each cut short, as plain
//! text (`early.js` sets it with `textContent`). Keys never reach it: the conversation's
//! messages are already masked as they are recorded.

use serde::Serialize;

use crate::conversation::{Conversation, Who};

/// The `localStorage` key `www/early.js` reads.
pub const KEY: &str = "thoughtline.glimpse";
/// The last messages kept, and the characters kept of each.
const MESSAGES: usize = 4;
const CHARS: usize = 280;

#[derive(Serialize)]
struct Glimpse<'a> {
    /// The chat's id: the first screen shows the glimpse only while it is the chat to open.
    id: &'a str,
    title: String,
    messages: Vec<(&'a str, String)>,
}

/// The glimpse of `chat` as stored; `None` for an empty chat (nothing to show: the first
/// screen's own empty chat is right).
pub fn of(chat: &Conversation) -> Option<String> {
    let messages = chat.messages();
    if messages.is_empty() {
        return None;
    }
    let from = messages.len().saturating_sub(MESSAGES);
    let messages = messages[from..]
        .iter()
        .map(|m| {
            let who = match m.who {
                Who::User => "user",
                Who::Assistant => "assistant",
                Who::Problem => "problem",
                Who::AskedPerson => "asked-person",
            };
            (who, cut(&m.text))
        })
        .collect();
    serde_json::to_string(&Glimpse { id: &chat.id, title: cut(&chat.title()), messages }).ok()
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(question: &str, answer: &str) -> Conversation {
        let mut chat = Conversation::new("c1".into());
        chat.refuse(question.into(), answer.into());
        chat
    }

    #[test]
    fn an_empty_chat_has_no_glimpse() {
        assert_eq!(of(&Conversation::new("c".into())), None);
    }

    #[test]
    fn the_glimpse_holds_the_title_and_the_messages_as_text() {
        let glimpse: serde_json::Value = serde_json::from_str(&of(&answered("What is 2+2?", "No model is set.")).unwrap()).unwrap();
        assert_eq!(glimpse["id"], "c1");
        assert_eq!(glimpse["title"], "What is 2+2?");
        assert_eq!(glimpse["messages"][0], serde_json::json!(["user", "What is 2+2?"]));
        assert_eq!(glimpse["messages"][1][0], "problem");
        assert_eq!(glimpse["messages"][1][1], "No model is set.");
    }

    #[test]
    fn long_messages_are_cut_and_only_the_last_are_kept() {
        let mut chat = answered(&"é".repeat(1000), "first");
        for n in 0..5 {
            chat.refuse(format!("question {n}"), "no".into());
        }
        let glimpse: serde_json::Value = serde_json::from_str(&of(&chat).unwrap()).unwrap();
        let messages = glimpse["messages"].as_array().unwrap();
        assert_eq!(messages.len(), MESSAGES);
        assert_eq!(messages[MESSAGES - 1], serde_json::json!(["problem", "no"]));
        assert_eq!(glimpse["title"].as_str().unwrap().chars().count() <= CHARS + 1, true);
    }
}
