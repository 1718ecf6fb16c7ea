//! Waiting with limits: a model call or a tool call waits for its work unless Stop is pressed,
//! the run's own time limit passes, or its own limit passes (a limit of silence for a tool
//! that reports progress, which each report starts again).

use super::*;

/// How a guarded wait ended.
pub(super) enum Guarded<T> {
    Done(T),
    Cancelled,
    /// The run's own time limit passed.
    OutOfTime,
    /// The per-call limit (e.g. a tool's timeout) passed.
    TimedOut,
}

/// Waits for `work`, unless Stop is pressed, the run's deadline passes, or `limit_ms` passes.
pub(super) async fn guarded<T>(
    work: impl std::future::Future<Output = T>,
    input: &RunInput<'_>,
    run_left_ms: Option<f64>,
    limit_ms: Option<f64>,
) -> Guarded<T> {
    // A limit nothing starts again is a limit of silence heard once, at the start.
    let heard = Cell::new(input.clock.now_ms());
    guarded_quiet(work, input, run_left_ms, limit_ms, &heard, &Cell::new(false)).await
}

/// Like `guarded`, with `quiet_ms` a limit of silence: it runs from the last moment `heard`
/// was set (the call's start, then each progress report), and waits while `paused` (the call
/// waits on the person).
pub(super) async fn guarded_quiet<T>(work: impl std::future::Future<Output = T>, input: &RunInput<'_>, run_left_ms: Option<f64>, quiet_ms: Option<f64>, heard: &Cell<f64>, paused: &Cell<bool>) -> Guarded<T> {
    let clock = input.clock;
    let silence = async {
        let Some(quiet_ms) = quiet_ms else { return std::future::pending::<()>().await };
        loop {
            if paused.get() {
                clock.sleep(quiet_ms).await;
                continue;
            }
            let left = heard.get() + quiet_ms - clock.now_ms();
            if left <= 0.0 {
                return;
            }
            clock.sleep(left).await;
        }
    };
    let run_left = async {
        match run_left_ms {
            Some(ms) => clock.sleep(ms).await,
            None => std::future::pending::<()>().await,
        }
    };
    match race(input.cancel.cancelled(), race(work, race(run_left, silence))).await {
        Either::Left(()) => Guarded::Cancelled,
        Either::Right(Either::Left(out)) => Guarded::Done(out),
        Either::Right(Either::Right(Either::Left(()))) => Guarded::OutOfTime,
        Either::Right(Either::Right(Either::Right(()))) => Guarded::TimedOut,
    }
}
