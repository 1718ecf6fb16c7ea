//! Time and cancellation for the run loop, without a runtime: a `Clock` the edge provides
//! (performance.now + setTimeout in the browser, `Instant` + a thread natively), a
//! `CancelToken` the Stop button trips, and `race`, which lets whichever future finishes first win.
//! Losing futures are dropped, which is how an in-flight fetch gets aborted.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

pub use crate::base::Clock;
#[cfg(not(target_arch = "wasm32"))]
use crate::base::LocalBoxFuture;


#[derive(Default)]
struct CancelState {
    cancelled: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

/// A shared flag that wakes everything waiting on it when tripped. Cloning shares the flag.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<CancelState>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.cancelled.set(true);
        for waker in self.0.wakers.borrow_mut().drain(..) {
            waker.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.get()
    }

    /// Whether both share one flag (one is a clone of the other).
    pub fn same_as(&self, other: &CancelToken) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// Resolves once `cancel` has been called.
    pub fn cancelled(&self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| {
            if self.is_cancelled() {
                Poll::Ready(())
            } else {
                let mut wakers = self.0.wakers.borrow_mut();
                if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        })
    }
}

pub enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Polls both futures and returns the output of the first to finish; `left` is polled first,
/// so when both are ready at once the left one wins.
pub async fn race<A: Future, B: Future>(left: A, right: B) -> Either<A::Output, B::Output> {
    let mut left = pin!(left);
    let mut right = pin!(right);
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(out) = left.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(out));
        }
        if let Poll::Ready(out) = right.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(out));
        }
        Poll::Pending
    })
    .await
}

/// A clock for native use (tests, benchmarks, the CLI examples): `Instant` for time and a
/// short-lived thread per sleep, which is fine for the few timers a run starts.
#[cfg(not(target_arch = "wasm32"))]
pub struct SystemClock {
    start: std::time::Instant,
}

#[cfg(not(target_arch = "wasm32"))]
impl Default for SystemClock {
    fn default() -> Self {
        SystemClock { start: std::time::Instant::now() }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    fn unix_ms(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    }

    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::{Arc, Mutex};
        let shared: Arc<(AtomicBool, Mutex<Option<Waker>>)> = Default::default();
        let timer = shared.clone();
        let micros = (ms.max(0.0) * 1000.0) as u64;
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_micros(micros));
            timer.0.store(true, Ordering::SeqCst);
            if let Some(waker) = timer.1.lock().ok().and_then(|mut slot| slot.take()) {
                waker.wake();
            }
        });
        Box::pin(std::future::poll_fn(move |cx| {
            if let Ok(mut slot) = shared.1.lock() {
                *slot = Some(cx.waker().clone());
            }
            // Checked after storing the waker, so a timer firing in between is not missed.
            if shared.0.load(Ordering::SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }))
    }
}
