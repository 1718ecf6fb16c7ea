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

/// The answer to one approval, given once by the panel, awaited by the run.
#[derive(Clone, Default)]
pub struct Reply(Rc<RefCell<(Option<ApprovalChoice>, Option<Waker>)>>);

impl Reply {
    pub fn give(&self, choice: ApprovalChoice) {
        let waker = {
            let mut state = self.0.borrow_mut();
            if state.0.is_some() {
                return;
            }
            state.0 = Some(choice);
            state.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Future for Reply {
    type Output = ApprovalChoice;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ApprovalChoice> {
        let mut state = self.0.borrow_mut();
        match state.0 {
            Some(choice) => Poll::Ready(choice),
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
