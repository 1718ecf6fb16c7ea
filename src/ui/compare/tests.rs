//! Tests of the Compare summary rows.

use super::*;
use crate::agent::trace::{AnswerSource, StopReason};
use crate::agent::EventKind;

fn event(index: u32, step: u32, ended_ms: f64, kind: EventKind) -> Event {
    Event { index, step, started_ms: 0.0, ended_ms, kind }
}

#[test]
fn summary_rows_say_what_each_run_did() {
    assert_eq!(summary_row(&[]).1, "—");
    let events = [
        event(0, 0, 0.0, EventKind::RunStarted { question: "q".into(), tools: vec![], history_turns: 0, started_unix_ms: 0.0, strategy: Strategy::React, continues: false, model: Default::default() }),
        event(1, 1, 1200.0, EventKind::FinalAnswer { answer: "42".into(), source: AnswerSource::Direct }),
        event(2, 1, 1200.0, EventKind::RunStopped { reason: StopReason::Answered, message: String::new() }),
    ];
    let (totals, answer) = summary_row(&events);
    assert_eq!((totals.steps, totals.duration_ms, answer.as_str()), (1, 1200.0, "42"));
    assert_eq!(summary_row(&events[..1]).1, "running…");
    let stopped = [events[0].clone(), event(1, 3, 9.0, EventKind::RunStopped { reason: StopReason::MaxIterations { limit: 3 }, message: String::new() })];
    assert!(summary_row(&stopped).1.contains("Max iterations"));
}
