//! The ground floor: the few types every layer above shares and none of them owns. The agent
//! core, the HTTP seam (`net`), the browser glue (`browser`), storage and telemetry all stand
//! on it, so none of them has to import another for a future's type, the clock, a URL's
//! origin or where finished runs are sent.
//!
//! - `LocalBoxFuture`: a boxed future that need not be `Send` (browser futures are not).
//! - `clock.rs`: the `Clock` the run loop, the HTTP seam and the page's timers share.
//! - `url.rs`: origins and percent-encoding, plain string functions.
//! - `collector.rs`: where finished runs go (an OpenTelemetry collector's endpoint and header),
//!   a setting that storage keeps and `otel` sends to.

use std::future::Future;
use std::pin::Pin;

pub mod clock;
pub mod collector;
pub mod url;

/// A boxed future that need not be `Send`: browser futures (fetch, timers) are not.
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

pub use clock::Clock;
pub use collector::Collector;
