//! Sending finished runs to an OpenTelemetry collector (OTLP/HTTP JSON, `POST …/v1/traces`):
//! where to, and the one header that authorises it. The header's value is a secret like an API
//! key (`storage::keys` lists it: masked everywhere, kept only with "Remember", never exported)
//! and belongs to the endpoint's origin: pointing the endpoint at another origin forgets it.
//! A redirect is never followed, since the browser would carry the header along.

use crate::agent::time::{race, Either};
use crate::agent::Clock;
use crate::net::{Fetch, HttpRequest, Redirects};
use crate::secrets::{mask, Secrets};
pub use crate::base::Collector;

/// How long a collector may take to answer before the send counts as failed.
pub const SEND_TIMEOUT_MS: f64 = 30_000.0;

/// Posts one OTLP JSON body. The error is a sentence a person can act on, with every secret
/// masked (a collector may echo the header back).
pub async fn send(fetch: &dyn Fetch, clock: &dyn Clock, collector: &Collector, body: &str, secrets: &Secrets) -> Result<(), String> {
    let url = collector.url();
    let secrets = secrets.with(&Secrets::new([collector.header_value.as_str()]));
    let headers = collector.headers();
    let request = HttpRequest { method: "POST", url: &url, headers: &headers, body: Some(body), redirects: Redirects::Refuse };
    let shown = mask(&url, &secrets);
    let mut opened = match race(fetch.open(request), clock.sleep(SEND_TIMEOUT_MS)).await {
        Either::Left(Ok(opened)) => opened,
        Either::Left(Err(_)) => {
            return Err(format!("Could not reach the collector at {shown}. Check that it is running and allows requests from this page (CORS); the endpoint is in Settings."))
        }
        Either::Right(()) => return Err(format!("The collector at {shown} did not answer within {} s.", SEND_TIMEOUT_MS / 1000.0)),
    };
    if opened.is_redirect() {
        return Err(format!("The collector at {shown} answered with a redirect, which is not followed with your header attached. Put the address it points to in Settings."));
    }
    let status = opened.status();
    if (200..300).contains(&status) {
        return Ok(());
    }
    // The first part of the body says why; a body that stalls adds nothing.
    let said = match race(opened.chunk(), clock.sleep(2_000.0)).await {
        Either::Left(Ok(Some(bytes))) => String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).trim().to_string(),
        _ => String::new(),
    };
    let said = if said.is_empty() { String::new() } else { format!(" It said: \"{}\"", mask(&said, &secrets)) };
    let hint = match status {
        401 | 403 => " Check the header in Settings.",
        404 => " Check the endpoint's path (…/v1/traces).",
        _ => "",
    };
    Err(format!("The collector at {shown} refused the run: HTTP {status}.{hint}{said}"))
}

#[cfg(test)]
mod tests;
