//! Servers' requests to use the person's model (sampling), waiting for their review: those
//! waiting, in the order asked; the draft of the one shown, when the person edits it; and the
//! review each gets (approved as asked or as edited, always allowed for its server, or denied).
//! Plain state: the page's sampling service holds one, draws the first request above the
//! composer, and hands each review back to the server's client.

use std::collections::VecDeque;

pub use crate::tools::mcp::sample::{Review, Sampling, Speaker};

/// One request waiting for the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: u64,
    /// How the page names the server asking.
    pub server: String,
    pub asked: Sampling,
    /// The texts as the person is editing them (`None` until they press Edit): the system
    /// prompt, then each message.
    pub draft: Option<Draft>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub system: String,
    pub messages: Vec<String>,
}

impl Request {
    /// The request as it would be run now: the draft's texts, if the person edited any.
    fn reviewed(&self) -> (Sampling, bool) {
        let Some(draft) = &self.draft else { return (self.asked.clone(), false) };
        let mut asked = self.asked.clone();
        asked.system = Some(draft.system.clone()).filter(|s| !s.trim().is_empty());
        for ((_, text), edited) in asked.messages.iter_mut().zip(&draft.messages) {
            text.clone_from(edited);
        }
        let edited = asked != self.asked;
        (asked, edited)
    }
}

/// What the page does for a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Do {
    /// Hand `review` to the server's client that asked request `id`.
    Answer { id: u64, review: Review },
    /// From now on, run this server's requests without asking (the person chose "Always
    /// allow"): the setting is the server's `sampling_ask`.
    AllowAlways { server: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A server asks; the new request's id is `Reviews::last_id` afterwards.
    Asked { server: String, asked: Sampling },
    /// The person opens the request's texts for editing.
    Edit,
    /// They change the system prompt (`at` 0) or message `at - 1`.
    Change { at: usize, text: String },
    Approve,
    /// Approve, and stop asking for this server.
    AlwaysAllow,
    Deny,
    /// The run was stopped, or the call that asked ended: its request is taken away.
    Ended { id: u64 },
}

#[derive(Debug, Default)]
pub struct Reviews {
    waiting: VecDeque<Request>,
    last: u64,
}

impl Reviews {
    /// The request shown: the first asked still waiting.
    pub fn shown(&self) -> Option<&Request> {
        self.waiting.front()
    }

    /// How many more wait behind it.
    pub fn behind(&self) -> usize {
        self.waiting.len().saturating_sub(1)
    }

    pub fn last_id(&self) -> u64 {
        self.last
    }

    pub fn handle(&mut self, msg: Msg) -> Vec<Do> {
        match msg {
            Msg::Asked { server, asked } => {
                self.last += 1;
                self.waiting.push_back(Request { id: self.last, server, asked, draft: None });
                Vec::new()
            }
            Msg::Edit => {
                if let Some(r) = self.waiting.front_mut() {
                    if r.draft.is_none() {
                        r.draft = Some(Draft { system: r.asked.system.clone().unwrap_or_default(), messages: r.asked.messages.iter().map(|(_, t)| t.clone()).collect() });
                    }
                }
                Vec::new()
            }
            Msg::Change { at, text } => {
                if let Some(draft) = self.waiting.front_mut().and_then(|r| r.draft.as_mut()) {
                    match at {
                        0 => draft.system = text,
                        n => {
                            if let Some(slot) = draft.messages.get_mut(n - 1) {
                                *slot = text;
                            }
                        }
                    }
                }
                Vec::new()
            }
            Msg::Approve | Msg::AlwaysAllow => {
                let Some(request) = self.waiting.pop_front() else { return Vec::new() };
                let (asked, edited) = request.reviewed();
                let mut todo = vec![Do::Answer { id: request.id, review: Review::Approve { asked, edited, always: false } }];
                if msg == Msg::AlwaysAllow {
                    todo.push(Do::AllowAlways { server: request.server });
                }
                todo
            }
            Msg::Deny => self.waiting.pop_front().map(|r| vec![Do::Answer { id: r.id, review: Review::Deny }]).unwrap_or_default(),
            Msg::Ended { id } => {
                self.waiting.retain(|r| r.id != id);
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::mcp::sample::read;

    fn asked(text: &str) -> Sampling {
        read(&json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "systemPrompt": "Be brief.", "maxTokens": 50})).unwrap()
    }

    #[test]
    fn a_request_is_approved_as_asked_or_denied_in_the_order_asked() {
        let mut r = Reviews::default();
        r.handle(Msg::Asked { server: "one".into(), asked: asked("first") });
        r.handle(Msg::Asked { server: "two".into(), asked: asked("second") });
        assert_eq!((r.shown().unwrap().server.as_str(), r.behind()), ("one", 1));
        assert_eq!(r.handle(Msg::Approve), vec![Do::Answer { id: 1, review: Review::Approve { asked: asked("first"), edited: false, always: false } }]);
        assert_eq!(r.handle(Msg::Deny), vec![Do::Answer { id: 2, review: Review::Deny }]);
        assert!(r.shown().is_none());
        assert_eq!(r.handle(Msg::Deny), vec![], "nothing waits");
    }

    #[test]
    fn an_edited_request_runs_as_edited_and_says_so() {
        let mut r = Reviews::default();
        r.handle(Msg::Asked { server: "one".into(), asked: asked("Write a poem.") });
        r.handle(Msg::Change { at: 1, text: "ignored before Edit".into() });
        r.handle(Msg::Edit);
        assert_eq!(r.shown().unwrap().draft.as_ref().unwrap().messages, vec!["Write a poem.".to_string()]);
        r.handle(Msg::Change { at: 1, text: "Write a haiku.".into() });
        r.handle(Msg::Change { at: 0, text: " ".into() });
        let done = r.handle(Msg::Approve);
        let [Do::Answer { review: Review::Approve { asked: run, edited: true, .. }, .. }] = done.as_slice() else { panic!("approved as edited") };
        assert_eq!((run.messages[0].1.as_str(), run.system.clone()), ("Write a haiku.", None));
        // Opened for editing but left as it was: approved as asked.
        r.handle(Msg::Asked { server: "one".into(), asked: asked("Same.") });
        r.handle(Msg::Edit);
        assert!(matches!(r.handle(Msg::Approve).as_slice(), [Do::Answer { review: Review::Approve { edited: false, .. }, .. }]));
    }

    #[test]
    fn always_allow_approves_and_keeps_the_rule_and_an_ended_call_takes_its_request_away() {
        let mut r = Reviews::default();
        r.handle(Msg::Asked { server: "one".into(), asked: asked("a") });
        r.handle(Msg::Asked { server: "two".into(), asked: asked("b") });
        r.handle(Msg::Ended { id: 1 });
        assert_eq!(r.shown().unwrap().server, "two");
        let done = r.handle(Msg::AlwaysAllow);
        assert_eq!(done[1], Do::AllowAlways { server: "two".into() });
        assert!(matches!(done[0], Do::Answer { id: 2, review: Review::Approve { .. } }));
    }
}
