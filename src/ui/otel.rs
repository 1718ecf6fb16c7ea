//! OpenTelemetry in the page: the shown run written as an OTLP JSON file ("⬇ OpenTelemetry"),
//! and each finished run sent to the collector named in Settings. Writing and sending are one
//! part of the page (`parts`), fetched the first time either is needed.

use crate::agent::{Event, LocalBoxFuture};
use crate::otel::Collector;
use crate::secrets::Secrets;

/// What the OpenTelemetry part is asked to do with one run's events.
pub enum OtelJob {
    /// The run as an OTLP JSON file's text.
    File { conversation_id: String, events: Vec<Event>, secrets: Secrets },
    /// The run posted to the collector.
    Send { conversation_id: String, events: Vec<Event>, secrets: Secrets, collector: Collector },
}

/// Whether a finished run reached the collector: the run's place, and what happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub chat: String,
    pub run: usize,
    pub result: Result<(), String>,
}

super::parts::part!(otel_file, preload = preload_otel, pub fn otel(job: OtelJob) -> LocalBoxFuture<'static, Result<String, String>> {
    let text = |conversation_id: &str, events: &[Event], secrets: &Secrets| {
        let run = crate::otel::run_trace(&crate::otel::RunSource { conversation_id, events }, secrets);
        crate::otel::otlp_json_of(run.as_ref())
    };
    match job {
        OtelJob::File { conversation_id, events, secrets } => {
            let json = text(&conversation_id, &events, &secrets);
            Box::pin(async move { Ok(json) })
        }
        OtelJob::Send { conversation_id, events, secrets, collector } => {
            let json = text(&conversation_id, &events, &secrets);
            Box::pin(async move { post(&collector, &json, &secrets).await.map(|()| String::new()) })
        }
    }
});

#[cfg(target_arch = "wasm32")]
async fn post(collector: &Collector, json: &str, secrets: &Secrets) -> Result<(), String> {
    crate::otel::send::send(&crate::net::browser::BrowserFetch, &crate::browser::BrowserClock, collector, json, secrets).await
}

#[cfg(not(target_arch = "wasm32"))]
async fn post(_collector: &Collector, _json: &str, _secrets: &Secrets) -> Result<(), String> {
    Err("Sending to a collector needs a browser.".into())
}
