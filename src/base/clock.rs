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
