//! OpenTelemetry in the page: each finished run sent to the collector named in Settings, and
//! whether it arrived. The sending is a part of its own (`otel_send`), fetched at idle by a
//! page that names a collector; the export part (`trace::tools`) saves a run as a file
//! ("⬇ OpenTelemetry") with the same writer (`otlp`).

use crate::agent::{Event, LocalBoxFuture};
use crate::otel::Collector;
use crate::secrets::Secrets;

pub use crate::app::run::Sent;
pub use crate::otel::{otlp_json, otlp_json_of};

/// A run's events (or a branch's own, linked to `parent`'s) as an OTLP JSON file's text, masked.
pub fn otlp(conversation_id: &str, events: &[Event], parent: Option<&[Event]>, secrets: &Secrets) -> String {
    let run = crate::otel::run_trace(&crate::otel::RunSource { conversation_id, events, parent }, secrets);
    crate::otel::otlp_json_of(run.as_ref())
}

/// What line `line` of a run is traced as: its events, and its parent's (`Run::traced`).
pub fn trace_of(run: &crate::conversation::Run, line: usize) -> (Vec<Event>, Option<Vec<Event>>) {
    run.traced(line).map(|(own, parent)| (own.to_vec(), parent.map(<[Event]>::to_vec))).unwrap_or_default()
}

crate::ui::services::parts::part!(otel_send, preload = preload_send, pub fn sending(conversation_id: String, events: Vec<Event>, parent: Option<Vec<Event>>, secrets: Secrets, collector: Collector) -> LocalBoxFuture<'static, Result<(), String>> {
    let json = otlp(&conversation_id, &events, parent.as_deref(), &secrets);
    Box::pin(async move { post(&collector, &json, &secrets).await })
});

/// Sends a finished run to the collector; the error says what went wrong, a part that did
/// not arrive included.
pub async fn send(conversation_id: String, events: Vec<Event>, parent: Option<Vec<Event>>, secrets: Secrets, collector: Collector) -> Result<(), String> {
    match sending(conversation_id, events, parent, secrets, collector).await {
        Ok(sent) => sent.await,
        Err(missing) => Err(missing.message(crate::ui::services::parts::what("otel_send"))),
    }
}

#[cfg(target_arch = "wasm32")]
pub async fn post(collector: &Collector, json: &str, secrets: &Secrets) -> Result<(), String> {
    crate::otel::send::send(&crate::net::browser::BrowserFetch, &crate::browser::BrowserClock, collector, json, secrets).await
}

#[cfg(not(target_arch = "wasm32"))]
pub async fn post(_collector: &Collector, _json: &str, _secrets: &Secrets) -> Result<(), String> {
    Err("Sending to a collector needs a browser.".into())
}
