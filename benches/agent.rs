//! `cargo bench`: the agent's own overhead per ReAct step (a scripted model that answers at
//! once and an instant tool, so all the time measured is ours: prompt building, parsing,
//! tracing), how the cost and the stored trace grow over a long run, and the parser's
//! throughput on realistic replies. Prints figures; the only check is on stored size (bytes,
//! not time): a long run's trace stays within twice the new text of the run.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

use support::{big_observation, long_run, per_step, run_scripted, warm_up, SHORT_OBSERVATION};
use thoughtline::agent::parse::parse_reply;
use thoughtline::agent::Strategy;

/// Milliseconds since the bench started: `support`'s clock.
fn now_ms() -> f64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// Bytes the trace of a 100-step run with 4 KB observations takes as JSON (as exported and
/// saved): per step early and late, and in all against the text that is new in the run.
fn stored_size(observation: &str) {
    use thoughtline::agent::EventKind;
    let trace = pollster::block_on(run_scripted(Strategy::React, 100, observation, now_ms, &()));
    let mut per_step = vec![0usize; 101];
    for event in &trace.events {
        per_step[event.step as usize] += thoughtline::storage::event::event_json(event).len();
    }
    let mean = |r: std::ops::RangeInclusive<usize>| r.clone().map(|i| per_step[i]).sum::<usize>() as f64 / 10.0;
    let stored = thoughtline::storage::event::trace_json(&trace).len();
    let first_request = trace.events.iter().position(|e| matches!(e.kind, EventKind::LlmRequest { .. })).unwrap_or(0);
    let system = thoughtline::agent::trace::request_at(&trace.events, first_request).map_or(0, |r| r.messages[0].content.len());
    let new_text: usize = system
        + trace
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::LlmResponse { text, .. } => text.len(),
                EventKind::ToolResult { observation, .. } => observation.len(),
                _ => 0,
            })
            .sum::<usize>();
    let ratio = stored as f64 / new_text as f64;
    println!("stored trace (JSON), 100 steps, 4 KB observations");
    println!("  steps 1-10 {:>8.0} B/step, steps 91-100 {:>8.0} B/step", mean(1..=10), mean(91..=100));
    println!(
        "  total {stored} B = {ratio:.2}× the new text ({new_text} B: system prompt, replies, observations): {}",
        if ratio <= 2.0 { "within 2×" } else { "OVER 2×" }
    );
    assert!(ratio <= 2.0, "the stored trace grew beyond twice the new text");
}

fn main() {
    let small = SHORT_OBSERVATION;
    let big = big_observation();
    // Code, caches and the heap as a long session has them (see `warm_up`).
    pollster::block_on(warm_up(1000.0, now_ms));
    println!("agent overhead per ReAct step (scripted model, instant tool)");
    for (label, obs) in [("short observations", small), ("4 KB observations", big.as_str())] {
        let us = pollster::block_on(per_step(Strategy::React, 10, obs, 1, 200, now_ms));
        println!("   10 steps, {label:<18}: {us:>8.2} µs/step (best of 200 runs)");
    }
    // All steps, and is the cost flat as the run grows? Spans of ten steps, best of 40 runs.
    let long = |label: String, strategy: Strategy, obs: &str| {
        let run = pollster::block_on(long_run(strategy, 100, obs, 40, now_ms));
        println!(
            "  {label}: {:>8.2} µs/step; steps 2-11 {:>7.2} µs/step, steps 90-99 {:>7.2} µs/step (×{:.2})",
            run.all,
            run.early,
            run.late,
            run.late / run.early
        );
    };
    for (label, obs) in [("short observations", small), ("4 KB observations", big.as_str())] {
        long(format!("100 steps, {label:<18}"), Strategy::React, obs);
    }
    for strategy in [Strategy::ToolCalling, Strategy::PlanReact] {
        long(format!("100 steps × 4 KB, {:<11}", strategy.label().split(' ').next().unwrap_or("")), strategy, &big);
    }
    stored_size(&big);

    println!("agent overhead per step by strategy (10 steps, short observations, best of 200 runs)");
    for strategy in Strategy::ALL {
        let us = pollster::block_on(per_step(strategy, 10, small, 1, 200, now_ms));
        println!("  {:<32}: {us:>8.2} µs/step", strategy.label());
    }

    println!("parser throughput on realistic replies");
    let replies = [
        "Thought: I should look this up on Wikipedia.\nAction:\n```json\n{\"action\": \"wikipedia\", \"action_input\": \"Albert Einstein\"}\n```",
        "I will search for it. {\"action\": \"search\", \"action_input\": {\"query\": \"attention layers 2020\", \"max_results\": 3}} Let me know.",
        "Thought: Let me compute.\nAction: calculator\nAction Input: 25% of 300",
        "Thought: I now know the final answer.\nFinal Answer: Albert Einstein (1879–1955) was a German-born theoretical physicist who developed the theory of relativity, one of the two pillars of modern physics. He received the 1921 Nobel Prize in Physics for his services to theoretical physics, and especially for his discovery of the law of the photoelectric effect.",
        "```json\n{'action': 'Wikipedia', 'action_input': 'Transformer (machine learning)',}\n```",
    ];
    let tools = ["wikipedia", "search", "calculator", "arxiv"];
    let bytes: usize = replies.iter().map(|r| r.len()).sum();
    let rounds = 20_000;
    let start = Instant::now();
    for _ in 0..rounds {
        for r in &replies {
            black_box(parse_reply(black_box(r), &tools).ok());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "  {:.1} MB/s, {:.2} µs per reply ({} replies of {} bytes on average)",
        (bytes * rounds) as f64 / secs / 1e6,
        secs / (rounds * replies.len()) as f64 * 1e6,
        rounds * replies.len(),
        bytes / replies.len()
    );
}
