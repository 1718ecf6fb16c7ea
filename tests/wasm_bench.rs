//! The agent's overhead per step in WASM, in headless Chromium, compiled with the release
//! profile as the app is: the native bench's scripted model, instant tool and timing
//! (`benches/support`), timed with `performance.now()`. Prints figures and asserts nothing
//! about time, so it is no test: `Cargo.toml` keeps it out of `cargo test` (`test = false`) and
//! only `scripts/bench-wasm` runs it (see there for the method).
#![cfg(target_arch = "wasm32")]

#[path = "../benches/support/mod.rs"]
mod support;

use support::{big_observation, long_run, per_step, warm_up, LongRun, Now, SHORT_OBSERVATION};
use thoughtline::agent::Strategy;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

thread_local! {
    static PERFORMANCE: web_sys::Performance =
        web_sys::window().and_then(|w| w.performance()).expect("the bench runs in a page with window.performance");
}

fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.now())
}

const NOW: Now = now_ms;

/// The smallest step `performance.now()` takes here (µs): Chromium coarsens it, to 5 µs in a
/// cross-origin-isolated page and 100 µs otherwise, so the figures below are read against it.
fn clock_step_us() -> f64 {
    let mut smallest = f64::MAX;
    for _ in 0..200 {
        let start = now_ms();
        let mut next = now_ms();
        while next == start {
            next = now_ms();
        }
        smallest = smallest.min(next - start);
    }
    smallest * 1000.0
}

fn cross_origin_isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).map(|v| v.is_truthy()).unwrap_or(false)
}

/// Gives the page's event loop a turn between measurements, which otherwise hold it for seconds.
async fn yield_to_browser() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

#[wasm_bindgen_test]
async fn agent_overhead_per_step_in_wasm() {
    let big = big_observation();
    // V8 first runs WASM from a quick baseline compile and swaps in optimised code for hot
    // functions, compiled on background threads: in the first second here, runs took 2 to 5
    // times as long as after it.
    warm_up(2000.0, NOW).await;
    console_log!("agent overhead per step in WASM (headless Chromium, release profile; scripted model, instant tool)");
    let clock_step = clock_step_us();
    console_log!("  clock: performance.now() steps by {clock_step:.1} µs (crossOriginIsolated: {})", cross_origin_isolated());
    if clock_step > 10.0 {
        console_log!("  (a span of ten steps reads only to {:.0} µs/step with this clock: run through scripts/bench-wasm)", clock_step / 10.0);
    }

    // Short runs, timed in batches long enough for any clock step.
    for (label, obs) in [("short observations", SHORT_OBSERVATION), ("4 KB observations", big.as_str())] {
        let us = per_step(Strategy::React, 10, obs, 20, 50, NOW).await;
        console_log!("   10 steps, {label:<18}: {us:>8.2} µs/step (batches of 20 runs, best of 50)");
        yield_to_browser().await;
    }

    // Long runs: all steps, and is the cost flat as the run grows? Spans of ten steps, best of 40.
    let long = |label: String, run: LongRun| {
        console_log!(
            "  {label}: {:>8.2} µs/step; steps 2-11 {:>7.2} µs/step, steps 90-99 {:>7.2} µs/step (×{:.2})",
            run.all,
            run.early,
            run.late,
            run.late / run.early
        );
    };
    for (label, obs) in [("short observations", SHORT_OBSERVATION), ("4 KB observations", big.as_str())] {
        long(format!("100 steps, {label:<18}"), long_run(Strategy::React, 100, obs, 40, NOW).await);
        yield_to_browser().await;
    }
    for strategy in [Strategy::ToolCalling, Strategy::PlanReact] {
        let name = strategy.label().split(' ').next().unwrap_or("");
        long(format!("100 steps × 4 KB, {name:<11}"), long_run(strategy, 100, &big, 40, NOW).await);
        yield_to_browser().await;
    }

    console_log!("agent overhead per step by strategy (10 steps, short observations, batches of 20 runs, best of 50)");
    for strategy in Strategy::ALL {
        let us = per_step(strategy, 10, SHORT_OBSERVATION, 20, 50, NOW).await;
        console_log!("  {:<32}: {us:>8.2} µs/step", strategy.label());
        yield_to_browser().await;
    }
}
