//! The clock the edge provides: `performance.now` and `setTimeout` in the browser
//! (`browser::BrowserClock`), `Instant` and a thread natively (`agent::time`), a fake one in tests.

use super::LocalBoxFuture;

pub trait Clock {
    /// Milliseconds on a monotonic clock; only differences are meaningful.
    fn now_ms(&self) -> f64;
    /// Milliseconds since the Unix epoch, for the timestamp a person reads in an export.
    fn unix_ms(&self) -> f64;
    /// A future that resolves after `ms` milliseconds.
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()>;
}

/// Tests: a clock whose waits end at once, each recorded, so a request that never answers is
/// given up on without a test waiting for its limit.
#[cfg(test)]
#[derive(Default)]
pub struct Impatient(pub std::cell::RefCell<Vec<f64>>);

#[cfg(test)]
impl Clock for Impatient {
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn unix_ms(&self) -> f64 {
        0.0
    }
    fn sleep(&self, ms: f64) -> LocalBoxFuture<'static, ()> {
        self.0.borrow_mut().push(ms);
        Box::pin(async {})
    }
}
