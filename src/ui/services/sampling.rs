//! Servers' requests to use the person's model (sampling), as a page service: the page's
//! `Sampler`, given to every MCP client the hub makes. A request from a server the person
//! always allows is approved at once; any other joins `app::mcp::sampling` (the state the panel
//! above the composer draws, `ui::widgets::sampling`), and the server's client waits on the
//! review. Stop, or the call's end, drops the wait, which takes the request away.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;

use crate::app::mcp::sampling::{Do, Msg, Reviews};
use crate::tools::mcp::sample::{Review, Sampler, Sampling};
use crate::ui::services::approval::Reply;
use crate::ui::services::mcp::Mcp;

thread_local! {
    /// The requests waiting, made on first use, never owned by a view that may go away.
    static REVIEWS: std::cell::OnceCell<ArcRwSignal<Reviews>> = const { std::cell::OnceCell::new() };
    /// The clients waiting, by request id.
    static WAITING: RefCell<Vec<(u64, Reply<Review>)>> = const { RefCell::new(Vec::new()) };
    /// The page's MCP settings, which keep each server's rule (set with the page's sampler).
    static PAGE: Cell<Option<Mcp>> = const { Cell::new(None) };
}

/// The requests waiting, for the views.
pub fn reviews() -> ArcRwSignal<Reviews> {
    REVIEWS.with(|r| r.get_or_init(|| ArcRwSignal::new(Reviews::default())).clone())
}

/// What the person did in the panel.
pub fn send(msg: Msg) {
    let todo = reviews().try_update(|reviews| reviews.handle(msg)).unwrap_or_default();
    for step in todo {
        match step {
            Do::Answer { id, review } => {
                let reply = WAITING.with(|w| {
                    let mut waiting = w.borrow_mut();
                    waiting.iter().position(|(i, _)| *i == id).map(|at| waiting.remove(at).1)
                });
                if let Some(reply) = reply {
                    reply.give(review);
                }
            }
            Do::AllowAlways { server } => {
                if let Some(page) = PAGE.with(Cell::get) {
                    page.settings().update(|s| {
                        for kept in s.tools.mcp.servers.iter_mut().filter(|kept| kept.display_url() == server) {
                            kept.sampling_ask = false;
                        }
                    });
                }
            }
        }
    }
}

/// The page as the one who reviews servers' requests to use the model.
pub struct PageSampler;

impl PageSampler {
    pub fn new(page: Mcp) -> Self {
        PAGE.with(|p| p.set(Some(page)));
        PageSampler
    }
}

impl Sampler for PageSampler {
    fn review(&self, server: &str, asked: Sampling) -> crate::agent::LocalBoxFuture<'static, Review> {
        // The person's rule for this server: run it without asking.
        let always = PAGE.with(Cell::get).is_some_and(|page| {
            page.settings().with_untracked(|s| s.tools.mcp.servers.iter().any(|kept| kept.display_url() == server && !kept.sampling_ask))
        });
        if always {
            return Box::pin(async move { Review::Approve { asked, edited: false, always: true } });
        }
        let reviews = reviews();
        let id = reviews.try_update(|r| {
            r.handle(Msg::Asked { server: server.to_string(), asked });
            r.last_id()
        });
        let reply = Reply::default();
        if let Some(id) = id {
            WAITING.with(|w| w.borrow_mut().push((id, reply.clone())));
        }
        // However the wait ends (reviewed, or dropped by Stop or the call's end), the request
        // leaves the panel and nothing waits on it any more.
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
        reviews().try_update(|r| r.handle(Msg::Ended { id }));
    }
}
