//! Servers' questions to the person (elicitation), as a page service: the page's `Asker`, given
//! to every MCP client the hub makes. A question joins `app::mcp::asking` (the state the panel
//! above the composer draws, `ui::widgets::asking`); the call that asked waits on its answer.
//! Stop, or the call's time limit, drops the wait, which takes the question away.

use std::cell::RefCell;

use leptos::prelude::*;

use crate::app::mcp::asking::{Asking, Do, Msg};
use crate::tools::mcp::elicit::{Answer, Asked, Asker};
use crate::ui::services::approval::Reply;

thread_local! {
    /// The page's questions, made on first use (by the hub, in a part, or by the chat asking
    /// whether one waits), never owned by a view that may go away.
    static QUESTIONS: std::cell::OnceCell<ArcRwSignal<Asking>> = const { std::cell::OnceCell::new() };
    /// The calls waiting, by question id.
    static WAITING: RefCell<Vec<(u64, Reply<Answer>)>> = const { RefCell::new(Vec::new()) };
}

/// The questions waiting, for the views.
pub fn questions() -> ArcRwSignal<Asking> {
    QUESTIONS.with(|q| q.get_or_init(|| ArcRwSignal::new(Asking::default())).clone())
}

/// What the person did in the panel.
pub fn send(msg: Msg) {
    let todo = questions().try_update(|asking| asking.handle(msg)).unwrap_or_default();
    for step in todo {
        match step {
            Do::Answer { id, answer } => {
                let reply = WAITING.with(|w| {
                    let mut waiting = w.borrow_mut();
                    waiting.iter().position(|(i, _)| *i == id).map(|at| waiting.remove(at).1)
                });
                if let Some(reply) = reply {
                    reply.give(answer);
                }
            }
            Do::Open { url } => crate::ui::services::page::open_apart(&url),
        }
    }
}

/// The page as the one who answers servers' questions.
pub struct PageAsker;

impl Asker for PageAsker {
    fn ask(&self, server: &str, asked: Asked) -> crate::agent::LocalBoxFuture<'static, Answer> {
        let questions = questions();
        let id = questions.try_update(|asking| {
            asking.handle(Msg::Asked { server: server.to_string(), asked });
            asking.last_id()
        });
        let reply = Reply::default();
        if let Some(id) = id {
            WAITING.with(|w| w.borrow_mut().push((id, reply.clone())));
        }
        // However the wait ends (answered, or dropped by Stop or a time limit, even before it
        // began), the question leaves the panel and nothing waits on it any more.
        let gone = Gone(id.unwrap_or(0));
        Box::pin(async move {
            let _gone = gone;
            reply.await
        })
    }
}

struct Gone(u64);

impl Drop for Gone {
    fn drop(&mut self) {
        let id = self.0;
        WAITING.with(|w| w.borrow_mut().retain(|(i, _)| *i != id));
        questions().try_update(|asking| asking.handle(Msg::Ended { id }));
    }
}
