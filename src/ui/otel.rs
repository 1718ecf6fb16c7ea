//! OpenTelemetry in the page: each finished run sent to the collector named in Settings, and
//! whether it arrived. The writing and the sending run in the export part (`trace_tools`),
//! which also saves the run as a file ("⬇ OpenTelemetry").

use crate::otel::Collector;
use crate::secrets::Secrets;

/// Whether a finished run reached the collector: the run's place, and what happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub chat: String,
    pub run: usize,
    pub result: Result<(), String>,
}

#[cfg(target_arch = "wasm32")]
pub(super) async fn post(collector: &Collector, json: &str, secrets: &Secrets) -> Result<(), String> {
    crate::otel::send::send(&crate::net::browser::BrowserFetch, &crate::browser::BrowserClock, collector, json, secrets).await
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) async fn post(_collector: &Collector, _json: &str, _secrets: &Secrets) -> Result<(), String> {
    Err("Sending to a collector needs a browser.".into())
}
