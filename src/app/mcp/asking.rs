//! The questions MCP servers ask the person in the middle of a call (elicitation): those
//! waiting, in the order asked; what the person has entered in the one shown; and the answer
//! each gets. Plain state: the page's MCP service holds one, draws the first question above the
//! composer, and sends each answer back to its server through the call that waits on it.

use std::collections::VecDeque;

pub use crate::tools::mcp::elicit::{Answer, Asked, Entry, Field, Format, Kind};

/// One question waiting for the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub id: u64,
    /// How the page names the server asking.
    pub server: String,
    pub asked: Asked,
    /// What the form holds, one entry per field (a URL request has none).
    pub entries: Vec<Entry>,
    /// Why the entries could not be sent, per field name, after the last Accept.
    pub wrong: Vec<(String, String)>,
}

impl Question {
    /// A warning above a form that seems to ask for a secret, which a server must not do in a
    /// form: it names the fields.
    pub fn warning(&self) -> Option<String> {
        let Asked::Form(form) = &self.asked else { return None };
        let secret: Vec<&str> = form.secret_fields().iter().map(|f| f.label()).collect();
        (!secret.is_empty()).then(|| {
            format!(
                "{} seems to ask for a secret ({}). A server must not ask for passwords, keys or tokens in a form; if you do not trust it, decline.",
                self.server,
                secret.join(", ")
            )
        })
    }

    /// Why `field` cannot be sent, after the last Accept.
    pub fn wrong_with(&self, field: &str) -> Option<&str> {
        self.wrong.iter().find(|(name, _)| name == field).map(|(_, why)| why.as_str())
    }
}

/// What the page does for a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Do {
    /// Send `answer` to the server that asked question `id`.
    Answer { id: u64, answer: Answer },
    /// Open `url` in a new window, with nothing of the page (the person agreed to a URL request).
    Open { url: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A server asks; the new question's id is `Asking::last_id` afterwards.
    Asked { server: String, asked: Asked },
    /// The person changed field `field` of the question shown.
    Edit { field: usize, entry: Entry },
    Accept,
    Decline,
    Cancel,
    /// The run was stopped, or the call that asked ended: its questions are cancelled.
    Ended { id: u64 },
}

#[derive(Debug, Default)]
pub struct Asking {
    waiting: VecDeque<Question>,
    last: u64,
}

impl Asking {
    /// The question shown: the first asked still waiting.
    pub fn shown(&self) -> Option<&Question> {
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
                let entries = match &asked {
                    Asked::Form(form) => form.start(),
                    Asked::Url { .. } => Vec::new(),
                };
                self.waiting.push_back(Question { id: self.last, server, asked, entries, wrong: Vec::new() });
                Vec::new()
            }
            Msg::Edit { field, entry } => {
                if let Some(q) = self.waiting.front_mut() {
                    if let Some(slot) = q.entries.get_mut(field) {
                        *slot = entry;
                    }
                }
                Vec::new()
            }
            Msg::Accept => {
                let Some(q) = self.waiting.front_mut() else { return Vec::new() };
                match &q.asked {
                    Asked::Form(form) => match form.check(&q.entries) {
                        Ok(content) => {
                            let id = q.id;
                            self.waiting.pop_front();
                            vec![Do::Answer { id, answer: Answer::Accept(content) }]
                        }
                        Err(wrong) => {
                            q.wrong = wrong;
                            Vec::new()
                        }
                    },
                    Asked::Url { url, .. } => {
                        let todo = vec![Do::Open { url: url.clone() }, Do::Answer { id: q.id, answer: Answer::Accept(Default::default()) }];
                        self.waiting.pop_front();
                        todo
                    }
                }
            }
            Msg::Decline | Msg::Cancel => {
                let answer = if msg == Msg::Decline { Answer::Decline } else { Answer::Cancel };
                self.waiting.pop_front().map(|q| vec![Do::Answer { id: q.id, answer }]).unwrap_or_default()
            }
            Msg::Ended { id } => {
                self.waiting.retain(|q| q.id != id);
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::mcp::elicit::read;

    fn form(properties: serde_json::Value) -> Asked {
        read(&json!({"message": "Tell me", "requestedSchema": {"type": "object", "properties": properties, "required": ["n"]}})).unwrap()
    }

    #[test]
    fn a_form_is_answered_with_what_the_person_entered_once_it_is_valid() {
        let mut a = Asking::default();
        a.handle(Msg::Asked { server: "shop".into(), asked: form(json!({"n": {"type": "integer", "default": 2}, "gift": {"type": "boolean"}})) });
        let id = a.last_id();
        let q = a.shown().unwrap();
        assert_eq!(q.entries.len(), 2);
        // Fields sorted by name: gift, n.
        a.handle(Msg::Edit { field: 1, entry: Entry::Text("two".into()) });
        assert_eq!(a.handle(Msg::Accept), vec![]);
        assert_eq!(a.shown().unwrap().wrong_with("n"), Some("A number."));
        a.handle(Msg::Edit { field: 1, entry: Entry::Text("3".into()) });
        a.handle(Msg::Edit { field: 0, entry: Entry::Flag(true) });
        let done = a.handle(Msg::Accept);
        assert_eq!(done, vec![Do::Answer { id, answer: Answer::Accept(serde_json::Map::from_iter([("gift".to_string(), json!(true)), ("n".to_string(), json!(3))])) }]);
        assert!(a.shown().is_none());
    }

    #[test]
    fn questions_wait_in_the_order_asked_and_decline_and_cancel_answer_as_such() {
        let mut a = Asking::default();
        a.handle(Msg::Asked { server: "one".into(), asked: form(json!({"n": {"type": "string"}})) });
        a.handle(Msg::Asked { server: "two".into(), asked: form(json!({"n": {"type": "string"}})) });
        assert_eq!((a.shown().unwrap().server.as_str(), a.behind()), ("one", 1));
        assert_eq!(a.handle(Msg::Decline), vec![Do::Answer { id: 1, answer: Answer::Decline }]);
        assert_eq!(a.shown().unwrap().server, "two");
        assert_eq!(a.handle(Msg::Cancel), vec![Do::Answer { id: 2, answer: Answer::Cancel }]);
        assert_eq!(a.handle(Msg::Cancel), vec![]);
    }

    #[test]
    fn a_url_opens_only_when_the_person_agrees() {
        let mut a = Asking::default();
        let asked = read(&json!({"mode": "url", "message": "Pay", "url": "https://pay.example/x", "elicitationId": "e"})).unwrap();
        a.handle(Msg::Asked { server: "shop".into(), asked: asked.clone() });
        a.handle(Msg::Asked { server: "shop".into(), asked });
        assert_eq!(a.handle(Msg::Decline), vec![Do::Answer { id: 1, answer: Answer::Decline }], "declined: nothing opens");
        assert_eq!(a.handle(Msg::Accept), vec![Do::Open { url: "https://pay.example/x".into() }, Do::Answer { id: 2, answer: Answer::Accept(Default::default()) }]);
    }

    #[test]
    fn a_call_that_ends_takes_its_question_away_and_a_secret_field_is_warned_of() {
        let mut a = Asking::default();
        a.handle(Msg::Asked { server: "vault".into(), asked: form(json!({"n": {"type": "string", "title": "API key"}})) });
        assert!(a.shown().unwrap().warning().unwrap().contains("vault seems to ask for a secret (API key)"));
        a.handle(Msg::Asked { server: "shop".into(), asked: form(json!({"n": {"type": "string"}})) });
        a.handle(Msg::Ended { id: 1 });
        assert_eq!(a.shown().unwrap().server, "shop");
        assert_eq!(a.shown().unwrap().warning(), None);
    }
}
