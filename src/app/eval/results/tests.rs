//! Figures per configuration and the results files.

use super::*;
use crate::agent::Usage;
use crate::app::eval::run::Job;
use crate::app::eval::set::read_set;

/// Two configurations over four cases, with known times and tokens.
fn evaluation() -> Evaluation {
    let cases = read_set("{\"question\": \"q1\", \"expected\": \"a\", \"scorer\": \"exact\"}\n{\"question\": \"q2, \\\"quoted\\\"\", \"expected\": \"b\", \"scorer\": \"exact\"}\n{\"question\": \"q3\", \"expected\": \"c\", \"scorer\": \"exact\"}\n{\"question\": \"=1+1\", \"expected\": \"d\", \"scorer\": \"exact\"}").cases;
    let mut e = Evaluation::new(cases, vec!["small".into(), "large".into()], 8);
    e.start();
    let jobs = e.next(0.0);
    assert_eq!(jobs.len(), 8);
    let answers = [("a", "a"), ("x", "b"), ("c", "c"), ("d", "d")];
    for (case, (small, large)) in answers.iter().enumerate() {
        for (config, text) in [(0, small), (1, large)] {
            let outcome = if case == 1 && config == 0 { Outcome::Ended("The model call failed.".into()) } else { Outcome::Answer(text.to_string()) };
            let usage = Usage::new(100 * (config as u32 + 1), 10);
            let events = vec![crate::agent::Event {
                index: 0,
                step: 1,
                started_ms: 0.0,
                ended_ms: 1.0,
                kind: crate::agent::EventKind::LlmResponse { text: text.to_string(), discarded: None, usage: Some(usage), latency_ms: 1.0, first_token_ms: None, finish_reason: None, incomplete: false, tool_calls: vec![] },
            }];
            e.finished(Job { case, config }, outcome, &events, 1000.0 * (case as f64 + 1.0));
        }
    }
    e
}

#[test]
fn each_configuration_has_its_pass_rate_tokens_times_and_errors() {
    let s = summaries(&evaluation());
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].pass_text(), "3/4 passed");
    assert_eq!(s[1].pass_text(), "4/4 passed");
    assert_eq!((s[0].errors, s[1].errors), (1, 0));
    assert_eq!((s[0].tokens, s[1].tokens), (440, 840));
    assert_eq!(s[0].mean_tokens, 110.0);
    assert_eq!(s[0].mean_ms, 2500.0);
    assert_eq!(s[0].p95_ms, 4000.0);
    let none = summaries(&Evaluation::new(Vec::new(), vec!["only".into()], 1));
    assert_eq!((none[0].pass_text().as_str(), none[0].p95_ms), ("0/0 passed", 0.0));
}

#[test]
fn results_export_as_json_lines_and_csv() {
    let e = evaluation();
    let jsonl = results_jsonl(&e);
    let lines: Vec<serde_json::Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[2]["config"], "small");
    assert_eq!(lines[2]["outcome"], "ended");
    assert_eq!(lines[2]["pass"], false);
    assert_eq!(lines[0]["scores"][0]["scorer"], "exact");
    let csv = results_csv(&e);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 9);
    assert!(rows[0].starts_with("case,question,expected,config"));
    assert!(csv.contains("\"q2, \"\"quoted\"\"\""), "{csv}");
    assert!(csv.contains(",'=1+1,"), "a formula is not run by a spreadsheet: {csv}");
}

#[test]
fn rows_are_filtered_and_ordered_as_asked() {
    use crate::app::eval::run::Job;
    use crate::app::eval::set::read_set;
    let cases = read_set("{\"question\": \"b?\", \"expected\": \"x\", \"tags\": [\"Geo\"]}\n{\"question\": \"a?\", \"expected\": \"x\", \"tags\": \"math\"}\n{\"question\": \"c?\", \"expected\": \"x\"}").cases;
    let mut e = Evaluation::new(cases, vec!["A".into(), "B".into()], 1);
    e.start();
    // Case 0 fails in B, case 2 fails in A; case 1 passes in both.
    for (case, config, answer, ms) in [(0, 0, "x", 10.0), (0, 1, "y", 50.0), (1, 0, "x", 5.0), (1, 1, "x", 5.0), (2, 0, "y", 20.0), (2, 1, "x", 1.0)] {
        let jobs = e.next(0.0);
        assert_eq!(jobs, [Job { case, config }]);
        e.finished(jobs[0], Outcome::Answer(answer.into()), &[], ms);
    }
    let all = Filter::default();
    assert_eq!(ordered(&e, Order::Case, all), [0, 1, 2]);
    assert_eq!(ordered(&e, Order::Question, all), [1, 0, 2]);
    assert_eq!(ordered(&e, Order::FailuresFirst, all), [0, 2, 1]);
    assert_eq!(ordered(&e, Order::FailedIn(0), all), [2, 0, 1]);
    assert_eq!(ordered(&e, Order::FailedIn(1), all), [0, 1, 2]);
    assert_eq!(ordered(&e, Order::Case, Filter { only_failures: true, tag: "" }), [0, 2]);
    assert_eq!(ordered(&e, Order::Case, Filter { only_failures: false, tag: "geo" }), [0]);
    assert_eq!(ordered(&e, Order::Case, Filter { only_failures: true, tag: "MATH" }), Vec::<usize>::new());
}
