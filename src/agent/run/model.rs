//! Asking the model: one call with its stream, its first token and its latency timed, a reply
//! cut at an `Observation:` the model wrote itself, and the event that records the answer.

use super::*;

pub(super) fn to_micros(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// The reply with its text cut at any "Observation:" the model invented, and the text cut off.
pub(super) fn cut_reply(result: Result<ChatResponse, LlmError>) -> (Result<ChatResponse, LlmError>, Option<String>) {
    match result {
        Ok(mut resp) => {
            let (kept, discarded) = cut_at_observation(&resp.text);
            let (kept, discarded) = (kept.len(), discarded.map(str::to_string));
            resp.text.truncate(kept);
            (Ok(resp), discarded)
        }
        Err(e) => (Err(e), None),
    }
}

/// The event recording a reply already cut by `cut_reply`.
pub(super) fn response_event(result: &Result<ChatResponse, LlmError>, discarded: Option<String>, latency_ms: f64, first_token_ms: Option<f64>) -> EventKind {
    match result {
        Ok(resp) => EventKind::LlmResponse {
            text: resp.text.clone(),
            discarded,
            usage: resp.usage,
            latency_ms,
            first_token_ms,
            finish_reason: resp.finish_reason.clone(),
            incomplete: resp.incomplete,
            tool_calls: resp.tool_calls.clone(),
        },
        Err(error) => EventKind::LlmFailed { error: error.clone() },
    }
}

/// One model call of the loop: records request and response, streams deltas to the observer,
/// and returns the reply with its text cut at any invented "Observation:".
pub(super) async fn call_model(
    rec: &Recorder<'_>,
    input: &RunInput<'_>,
    step: u32,
    purpose: LlmPurpose,
    record: RequestRecord,
    request: &ChatRequest,
    run_left: Option<f64>,
    limit_ms: Option<f64>,
) -> Guarded<Result<ChatResponse, LlmError>> {
    let started = rec.now();
    rec.record(step, started, EventKind::LlmRequest { purpose, request: record });
    // When the first piece of the reply arrived (the timeline's time to first token).
    let first = Cell::new(None::<f64>);
    let heard = || {
        if first.get().is_none() {
            first.set(Some(to_micros(rec.now() - started)));
        }
    };
    let progress = |p: Progress<'_>| match p {
        Progress::Text(delta) => {
            heard();
            rec.observer.on_delta(step, delta)
        }
        Progress::Reasoning(delta) => {
            heard();
            rec.observer.on_reasoning(step, delta)
        }
        Progress::Retry { attempt, wait_ms, reason } => {
            rec.record(step, rec.now(), EventKind::LlmRetry { attempt, wait_ms, reason: reason.to_string() })
        }
    };
    let outcome = guarded(input.model.complete(request, &progress), input, run_left, limit_ms).await;
    let latency = to_micros(rec.now() - started);
    match outcome {
        Guarded::Done(result) => {
            let result = result.and_then(|resp| {
                if resp.text.trim().is_empty() && resp.tool_calls.is_empty() {
                    Err(LlmError::new(
                        LlmErrorKind::Empty,
                        "The model sent an empty reply. Try again, or pick a larger model in Settings.",
                    ))
                } else {
                    Ok(resp)
                }
            });
            let (result, discarded) = cut_reply(result);
            rec.record(step, started, response_event(&result, discarded, latency, first.get()));
            Guarded::Done(result)
        }
        Guarded::Cancelled => Guarded::Cancelled,
        Guarded::OutOfTime => Guarded::OutOfTime,
        Guarded::TimedOut => Guarded::TimedOut,
    }
}
