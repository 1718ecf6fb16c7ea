//! A tool call waiting for the person's approval (`RunObserver::approve`): the run's side sets
//! what is asked and waits for the answer; the panel shows the tool, where it runs and its
//! input, with Allow once, Always allow and Deny. Stop ends the wait from the run's side (the
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

/// The panel, where the run's side has set a question: a part of the page (`parts`), fetched
/// when a call first waits for approval (and ahead of that when the page is idle and a server
/// asks before calls), so a page that never asks does not load it.
#[component]
pub fn ApprovalPanel(pending: Pending) -> impl IntoView {
    view! {
        <Show when=move || pending.with(Option::is_some)>
            {crate::ui::parts::part_view("approval", move || Box::pin(panel(pending)), None, crate::ui::parts::Around::Nothing)}
        </Show>
    }
}

crate::ui::parts::part!(approval, preload = preload, pub fn panel(pending: Pending) -> AnyView {
    view! { <link rel="stylesheet" href="parts/approval.css"/> <Panel pending/> }.into_any()
});

#[component]
fn Panel(pending: Pending) -> impl IntoView {
    let choose = move |choice: ApprovalChoice| {
        if let Some(asked) = pending.get_untracked() {
            asked.reply.give(choice);
        }
    };
    move || {
        pending.get().map(|asked| {
            let where_ = asked.via.clone().map(|v| format!(" on the MCP server at {v}")).unwrap_or_default();
            let tool = asked.tool.clone();
            view! {
                // A group of controls in the page, not a modal: the run waits, the page does not
                // (the trace's announcer says a call waits). Labelled by text, not by an id, since
                // Compare shows two at once.
                <div class="approval" role="group" aria-label=format!("Allow the agent to call {tool}?") data-testid="approval">
                    <p><strong>{format!("Allow the agent to call {tool}?")}</strong></p>
                    <p class="hint">{format!("It runs{where_} with this input. Nothing is sent until you choose.")}</p>
                    <pre class="approval-input" data-testid="approval-input">{asked.input.clone()}</pre>
                    <div class="approval-choices">
                        <button class="primary" data-testid="approval-once" on:click=move |_| choose(ApprovalChoice::Once)>"Allow once"</button>
                        <button class="ghost" data-testid="approval-always" on:click=move |_| choose(ApprovalChoice::Always)>{format!("Always allow {tool}")}</button>
                        <button class="ghost" data-testid="approval-deny" on:click=move |_| choose(ApprovalChoice::Denied)>"Deny"</button>
                    </div>
                </div>
            }
        })
    }
}
