//! OpenTelemetry in the page: each finished run sent to the collector named in Settings, and
//! whether it arrived. The writing and the sending run in the export part (`trace::tools`),
//! which also saves the run as a file ("⬇ OpenTelemetry").

use crate::otel::Collector;
use crate::secrets::Secrets;

pub use crate::app::run::Sent;

#[cfg(target_arch = "wasm32")]
pub(in crate::ui) async fn post(collector: &Collector, json: &str, secrets: &Secrets) -> Result<(), String> {
    crate::otel::send::send(&crate::net::browser::BrowserFetch, &crate::browser::BrowserClock, collector, json, secrets).await
}

#[cfg(not(target_arch = "wasm32"))]
pub(in crate::ui) async fn post(_collector: &Collector, _json: &str, _secrets: &Secrets) -> Result<(), String> {
    Err("Sending to a collector needs a browser.".into())
}
