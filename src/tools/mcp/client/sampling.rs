//! A server's request to use the model (`sampling/createMessage`), as the client carries it:
//! read and bounded (`sample`), reviewed by the page's `Sampler`, then handed to the call that
//! waits on the server as a `SampleJob`, which its run's model writes; the model's words, or
//! the refusal, go back to the server as the answer.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;

use super::{Heard, McpClient};
use crate::tools::mcp::jsonrpc::{self, RpcError};

impl McpClient {
    /// A server's request to use the model: shown to the person (or allowed by their rule),
    /// then run on the model of a run whose call waits on this server. The calls waiting pause
    /// their silence limits meanwhile, as for a question.
    pub(super) async fn sample(&self, params: &Value, from: Option<u64>) -> Result<Value, RpcError> {
        use crate::tools::mcp::sample::{Review, REFUSED};
        let Some(sampler) = self.sampler.borrow().clone() else {
            return Err(RpcError { code: jsonrpc::METHOD_NOT_FOUND, message: "This client does not offer sampling/createMessage.".into(), data: None });
        };
        let asked = crate::tools::mcp::sample::read(params).map_err(|why| RpcError { code: jsonrpc::INVALID_PARAMS, message: why, data: None })?;
        if !asked.tools.is_empty() {
            let refused = "Refused: it offered the model tools, which this page does not run for a server.";
            self.tell_calls(Heard::Answered(crate::agent::AskedYou { server: self.label.clone(), question: asked.summary(), answer: refused.into(), accepted: false }), from);
            return Err(RpcError { code: jsonrpc::INVALID_PARAMS, message: "This client does not offer tools in sampling (it declares no sampling.tools).".into(), data: None });
        }
        // No call waits on this server: no run's model could write it, so the person is not
        // asked about it.
        if self.waiting_call(from).is_none() {
            return Err(no_run());
        }
        let _asking = self.asking();
        let review = sampler.review(&self.label, asked.clone()).await;
        self.tell_calls(Heard::Answered(crate::tools::mcp::sample::exchange(&self.label, &asked, &review)), from);
        let Review::Approve { asked, .. } = review else {
            return Err(RpcError { code: REFUSED, message: "The person declined to let the server use their model.".into(), data: None });
        };
        // The call it came with (else the first waiting on this server) runs it on its run's
        // model.
        // (It may have ended while the person read the request.)
        let job = SampleJob::new(asked.request());
        let Some(feed) = self.waiting_call(from) else { return Err(no_run()) };
        feed.push(Heard::Sample(job.clone()));
        match job.answer().await {
            Some(Ok((response, model))) => Ok(crate::tools::mcp::sample::result(&response, &model)),
            Some(Err(why)) => Err(RpcError { code: jsonrpc::INTERNAL_ERROR, message: format!("The model could not write it: {}", self.scrub(&why)), data: None }),
            None => Err(RpcError { code: jsonrpc::INTERNAL_ERROR, message: "The call that would have run it ended first.".into(), data: None }),
        }
    }

    /// The feed of the call whose answer's stream carried the request (`from`), else of the
    /// first call waiting on this server, if any.
    fn waiting_call(&self, from: Option<u64>) -> Option<super::ProgressFeed> {
        self.feed_of(from).or_else(|| self.progress.try_borrow().ok()?.first().map(|(_, feed)| feed.clone()))
    }
}

/// Refusal of a sampling request that arrives when no call of a run waits on the server.
fn no_run() -> RpcError {
    RpcError { code: jsonrpc::INTERNAL_ERROR, message: "No run is using this server now, so there is no model to write it.".into(), data: None }
}

/// The model's reply and the model's name, or why it failed.
type Sampled = Result<(crate::agent::model::ChatResponse, String), String>;

/// An approved sampling request handed to the call that runs it: the request, and the slot its
/// answer goes in. The server's request waits on `answer`, which is `None` once every holder
/// of the job has let go of it unanswered (the call ended).
#[derive(Clone)]
pub struct SampleJob(Rc<RefCell<JobState>>, Rc<()>);

struct JobState {
    request: crate::agent::model::ChatRequest,
    answer: Option<Sampled>,
    waker: Option<std::task::Waker>,
}

impl SampleJob {
    fn new(request: crate::agent::model::ChatRequest) -> Self {
        SampleJob(Rc::new(RefCell::new(JobState { request, answer: None, waker: None })), Rc::new(()))
    }

    pub fn request(&self) -> crate::agent::model::ChatRequest {
        self.0.borrow().request.clone()
    }

    /// The model's reply (with the model's name), or why there is none.
    pub fn give(&self, answer: Sampled) {
        let waker = {
            let mut state = self.0.borrow_mut();
            state.answer = Some(answer);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Waits for the answer; `None` when nobody else holds the job any more.
    fn answer(self) -> impl std::future::Future<Output = Option<Sampled>> {
        let (state, holders) = (self.0.clone(), self.1.clone());
        drop(self);
        std::future::poll_fn(move |cx| {
            let mut s = state.borrow_mut();
            if let Some(answer) = s.answer.take() {
                return std::task::Poll::Ready(Some(answer));
            }
            if Rc::strong_count(&holders) == 1 {
                return std::task::Poll::Ready(None);
            }
            s.waker = Some(cx.waker().clone());
            std::task::Poll::Pending
        })
    }
}

impl Drop for SampleJob {
    fn drop(&mut self) {
        // The last holder but the waiter lets go: the waiter hears there is no answer coming.
        if Rc::strong_count(&self.1) == 2 {
            if let Ok(mut state) = self.0.try_borrow_mut() {
                if let Some(waker) = state.waker.take() {
                    drop(state);
                    waker.wake();
                }
            }
        }
    }
}

impl std::fmt::Debug for SampleJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SampleJob")
    }
}

impl PartialEq for SampleJob {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}
