//! `cargo bench --bench eval`: what each case of an evaluation costs the page, as the page
//! does it when a case's run ends (`app::eval::record`: score it and keep its run, the record to
//! store, the progress line and the figures per configuration), for sets of 50 and 500 cases
//! under two configurations; and the bytes stored per case. The per-case time must not grow
//! with the set (docs/performance.md, "Evaluations").

#[path = "support/mod.rs"]
mod support;

use std::time::Instant;

use support::run_scripted;
use thoughtline::agent::Strategy;
use thoughtline::app::eval::config::Config;
use thoughtline::app::eval::record::{EvalRecord, Write};
use thoughtline::app::eval::results::summaries;
use thoughtline::app::eval::set::read_set;
use thoughtline::conversation::{outcome, Run};
use thoughtline::storage::evals::{cell_record, head_record};

fn now_ms() -> f64 {
    0.0
}

/// The page's work for a whole evaluation of `cases` cases: µs per cell, bytes per cell, and
/// the head's bytes.
fn evaluate(cases: usize, run: &Run) -> (f64, f64, usize) {
    let set: String = (0..cases).map(|i| format!("{{\"question\": \"Question {i}?\", \"expected\": \"the answer\", \"scorer\": \"contains+tool:calculator\"}}\n")).collect();
    let configs = vec![Config::settings_now(), Config { name: "Other".into(), model: "other".into(), ..Config::default() }];
    let mut record = EvalRecord::new("bench".into(), "Bench".into(), read_set(&set).cases, configs, 2, 0.0);
    record.start();
    let head = head_record(&record.stored_head(0.0)).1.len();
    let mut bytes = 0usize;
    let mut cells = 0usize;
    let started = Instant::now();
    let mut t = 0.0;
    loop {
        let jobs = record.eval.next(t);
        if jobs.is_empty() {
            break;
        }
        for job in jobs {
            t += 1.0;
            let (_, writes) = record.finished(job, run.clone(), t);
            for w in writes {
                if let Write::Cell(at) = w {
                    bytes += record.stored_cell(at).map_or(0, |c| cell_record("bench", &c).1.len());
                }
            }
            // What the open evaluation redraws after each case: the progress line and figures.
            std::hint::black_box((record.eval.progress(), summaries(&record.eval)));
            cells += 1;
        }
    }
    let us = started.elapsed().as_secs_f64() * 1e6 / cells as f64;
    (us, bytes as f64 / cells as f64, head)
}

fn main() {
    let events = pollster::block_on(run_scripted(Strategy::React, 3, "6*7 = 42", now_ms, &())).events;
    let mut run = Run::new("Question?".into());
    run.events = events;
    run.outcome = Some(outcome(&run.events));
    // Warm up, then each size three times, the best kept.
    evaluate(50, &run);
    for cases in [50, 500] {
        let best = (0..3).map(|_| evaluate(cases, &run)).min_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
        println!("{cases} cases × 2 configurations: {:.1} µs of the page's work per case, {:.0} bytes stored per case, a head of {} bytes", best.0, best.1, best.2);
    }
}
