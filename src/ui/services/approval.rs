//! The approval channel: a tool call waiting for the person's approval
//! (`RunObserver::approve`). The run's side sets what is asked and waits for the answer; the
//! panel (`ui::widgets::approval`) gives it. Stop ends the wait from the run's side (the
//! waiting future is dropped, which takes the panel away).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;

use crate::agent::ApprovalChoice;

/// The answer to one question the run waits on (an approval, a server's question), given once
/// by the panel, awaited by the run.
pub struct Reply<T = ApprovalChoice>(Rc<RefCell<(Option<T>, Option<Waker>)>>);

impl<T> Default for Reply<T> {
    fn default() -> Self {
        Reply(Rc::new(RefCell::new((None, None))))
    }
}

impl<T> Clone for Reply<T> {
    fn clone(&self) -> Self {
        Reply(self.0.clone())
    }
}

impl<T> Reply<T> {
    pub fn give(&self, answer: T) {
        let waker = {
            let mut state = self.0.borrow_mut();
            if state.0.is_some() {
                return;
            }
            state.0 = Some(answer);
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Reply<T> {
    type Output = T;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.0.borrow_mut();
        match state.0.take() {
            Some(answer) => Poll::Ready(answer),
            None => {
                state.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// What the panel asks about.
#[derive(Clone)]
pub struct Asked {
    /// The tool as the model named it.
    pub tool: String,
    /// Where it runs when not in this page (an MCP server's address).
    pub via: Option<String>,
    /// Its input, pretty JSON, masked.
    pub input: String,
    pub reply: Reply,
}

/// The open question of one run controller, if any.
pub type Pending = RwSignal<Option<Asked>, LocalStorage>;
