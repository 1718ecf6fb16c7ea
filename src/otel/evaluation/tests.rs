use super::*;
use crate::agent::trace::{AnswerSource, EventKind, StopReason};
use crate::agent::Event;
use crate::otel::{otlp_json_of, run_trace, RunSource};

#[test]
fn each_score_is_an_evaluation_result_on_the_root_span_it_judges_masked() {
    let ev = |index: u32, kind| Event { index, step: 1, started_ms: index as f64 * 10.0, ended_ms: index as f64 * 10.0 + 5.0, kind };
    let events = vec![
        ev(0, EventKind::RunStarted { question: "Q?".into(), tools: vec![], history_turns: 0, started_unix_ms: 1_700_000_000_000.0, strategy: Default::default(), continues: false, model: Default::default() }),
        ev(1, EventKind::FinalAnswer { answer: "42".into(), source: AnswerSource::Model }),
        ev(2, EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() }),
    ];
    let secrets = Secrets::new(["sk-secret-value-123456".to_string()]);
    let mut trace = run_trace(&RunSource { conversation_id: "e1-0", events: &events, parent: None }, &secrets).unwrap();
    let scores = [
        Score { name: "number", pass: true, explanation: "The answer says 42." },
        Score { name: "judge", pass: false, explanation: "It quoted sk-secret-value-123456." },
    ];
    add_scores(&mut trace, "Smoke set", &scores, &secrets);
    let root = trace.spans.iter().find(|s| s.parent.is_none()).unwrap();
    let results: Vec<&SpanEvent> = root.events.iter().filter(|e| e.name == EVALUATION_RESULT).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].unix_ns, root.end_ns, "scored when the run ended");
    let attr = |e: &SpanEvent, k: &str| e.attributes.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
    assert_eq!(attr(results[0], "gen_ai.evaluation.name"), Some(Attr::Str("number".into())));
    assert_eq!(attr(results[0], "gen_ai.evaluation.score.value"), Some(Attr::Float(1.0)));
    assert_eq!(attr(results[1], "gen_ai.evaluation.score.label"), Some(Attr::Str("fail".into())));
    let json = otlp_json_of(Some(&trace));
    assert!(json.contains("gen_ai.evaluation.result") && json.contains("Smoke set"), "{json}");
    assert!(!json.contains("sk-secret-value-123456"), "the explanation is masked");
    // Nothing else of the trace changed: only the root span gained events.
    assert!(trace.spans.iter().filter(|s| s.parent.is_some()).all(|s| s.events.iter().all(|e| e.name != EVALUATION_RESULT)));
}
