use super::*;
use crate::agent::trace::{AnswerSource, EventKind, StopReason};
use crate::agent::Event;
use crate::app::eval::set::read_set;
use crate::conversation::Outcome;

fn record(configs: usize) -> EvalRecord {
    let cases = read_set("question,expected,scorer\nCapital of France?,Paris,contains\n6*7?,42,number\nSay hi,,answered").cases;
    let configs = (0..configs).map(|i| Config { name: format!("C{i}"), model: format!("m{i}"), ..Config::default() }).collect();
    EvalRecord::new("e1".into(), "Geography".into(), cases, configs, 1, 1000.0)
}

/// A finished run answering `answer` (or ending without one when `None`).
fn ran(question: &str, answer: Option<&str>) -> Run {
    let ev = |index: u32, kind| Event { index, step: 1, started_ms: 0.0, ended_ms: 1.0, kind };
    let mut run = Run::new(question.into());
    match answer {
        Some(a) => {
            run.events.push(ev(0, EventKind::FinalAnswer { answer: a.into(), source: AnswerSource::Model }));
            run.events.push(ev(1, EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() }));
            run.outcome = Some(Outcome::Answer(a.into()));
        }
        None => {
            run.events.push(ev(0, EventKind::RunStopped { reason: StopReason::Cancelled, message: "stopped".into() }));
            run.outcome = Some(outcome(&run.events));
        }
    }
    run
}

#[test]
fn each_finished_case_writes_its_own_record_and_the_head_only_when_the_state_changes() {
    let mut r = record(2);
    assert_eq!(r.start(), [Write::Head]);
    let first = r.eval.next(0.0);
    assert_eq!(first, [Job { case: 0, config: 0 }]);
    assert_eq!(r.finished(first[0], ran("Capital of France?", Some("Paris.")), 50.0), (false, vec![Write::Cell(0)]));
    let mut writes = Vec::new();
    let mut t = 50.0;
    while let Some(job) = r.eval.next(t).first().copied() {
        t += 10.0;
        let answer = if job.config == 0 { Some("42, hi") } else { None };
        writes.push(r.finished(job, ran("q", answer), t).1);
    }
    // One record per case, whatever the number of cases; the head once, at the end.
    assert!(writes[..writes.len() - 1].iter().all(|w| w.len() == 1), "{writes:?}");
    assert_eq!(writes.last().unwrap(), &vec![Write::Cell(5), Write::Head]);
    assert_eq!(r.eval.state(), State::Finished);
    assert!(r.run_of(Job { case: 2, config: 1 }).is_some());
    let cell = r.stored_cell(1).unwrap();
    assert_eq!((cell.at, cell.verdicts[0].pass), (1, false), "a run without an answer fails its case, with its reason");
    assert!(cell.verdicts[0].reason.contains("without an answer"), "{:?}", cell.verdicts);
}

#[test]
fn a_reload_keeps_finished_cases_and_goes_on_with_the_rest() {
    let mut r = record(2);
    r.start();
    let jobs = r.eval.next(0.0);
    r.finished(jobs[0], ran("Capital of France?", Some("Paris")), 100.0);
    // The next cell was running when the page went away.
    let running = r.eval.next(100.0);
    assert_eq!(running, [Job { case: 0, config: 1 }]);
    let head = r.stored_head(200.0);
    assert!(head.running);
    let cells = vec![r.stored_cell(0).unwrap()];
    let (back, go_on) = EvalRecord::from_stored(head, cells, false);
    assert!(go_on, "it was running: the page goes on");
    assert_eq!(back.configs, r.configs);
    assert_eq!(back.eval.cases, r.eval.cases);
    assert_eq!(back.runs[0], r.runs[0], "the finished case's run is kept whole");
    assert!(matches!(back.eval.cells()[0], Cell::Done(_)));
    assert_eq!(back.eval.cells()[1], Cell::Waiting, "the one running starts again");
    assert_eq!(crate::app::eval::results::summaries(&back.eval), crate::app::eval::results::summaries(&r.eval), "the figures read back are the ones kept as it ran");
    assert_eq!(back.eval.progress(), r.eval.progress());
    let mut back = back;
    back.start();
    assert_eq!(back.eval.next(0.0), [Job { case: 0, config: 1 }], "never the finished one again");
    // A newer release's evaluation is shown, never run or written.
    let (newer, go_on) = EvalRecord::from_stored(r.stored_head(1.0), vec![], true);
    assert!(!go_on);
    let mut newer = newer;
    assert!(newer.start().is_empty());
}

#[test]
fn stop_forgets_the_runs_it_cut_and_stores_the_head() {
    let mut r = record(1);
    r.eval.concurrency = 2;
    r.start();
    let jobs = r.eval.next(0.0);
    assert_eq!(jobs.len(), 2);
    r.finished(jobs[0], ran("Capital of France?", Some("Paris")), 10.0);
    let (stopped, writes) = r.stop();
    assert_eq!((stopped, writes), (vec![jobs[1]], vec![Write::Head]));
    assert!(!r.stored_head(0.0).running);
    // The run Stop cut ends later: it is not the case's result.
    assert_eq!(r.finished(jobs[1], ran("6*7?", None), 20.0), (false, vec![]));
    assert!(r.runs[1].is_none());
}

#[test]
fn each_finished_case_is_a_trace_carrying_its_scores() {
    let mut r = record(1);
    r.start();
    let job = r.eval.next(0.0)[0];
    let mut run = ran("Capital of France?", Some("Paris"));
    run.events.insert(0, Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::RunStarted { question: "Capital of France?".into(), tools: vec![], history_turns: 0, started_unix_ms: 5.0, strategy: Default::default(), continues: false, model: Default::default() } });
    r.finished(job, run, 10.0);
    let secrets = crate::secrets::Secrets::default();
    assert!(r.traced(1, &secrets).is_none(), "a case not run has no trace");
    let traces = r.traces(&secrets);
    assert_eq!(traces.len(), 1);
    let json = crate::otel::otlp_json(&traces);
    assert!(json.contains("gen_ai.evaluation.result") && json.contains("contains") && json.contains("Geography"), "{json}");
}

#[test]
fn the_judge_completes_the_cell_that_waited_for_it() {
    let cases = read_set("{\"question\": \"Say hi\", \"scorer\": \"judge\"}").cases;
    let mut r = EvalRecord::new("e".into(), "n".into(), cases, vec![Config::settings_now()], 1, 0.0);
    r.start();
    let job = r.eval.next(0.0)[0];
    assert_eq!(r.finished(job, ran("Say hi", Some("Hi!")), 5.0), (true, vec![]), "nothing stored until the judge has spoken");
    assert_eq!(r.judged(job, Verdict { pass: true, reason: "A greeting.".into() }), [Write::Cell(0), Write::Head]);
    assert_eq!(r.stored_cell(0).unwrap().verdicts[0].reason, "A greeting.");
}

#[test]
fn two_evaluations_of_a_set_say_what_got_better_and_worse() {
    let mut before = record(1);
    let mut after = record(1);
    for (r, answers) in [(&mut before, ["Paris", "41", "hi"]), (&mut after, ["Lyon", "42", "hi"])] {
        r.start();
        while let Some(job) = r.eval.next(0.0).first().copied() {
            r.finished(job, ran("q", Some(answers[job.case])), 1.0);
        }
    }
    let rows = compare(&before, &after).unwrap();
    assert_eq!(rows, vec![(0, vec![Change::Worse]), (1, vec![Change::Better]), (2, vec![Change::Same])]);
    let other = EvalRecord::new("x".into(), "x".into(), read_set("question\nSomething else?").cases, vec![Config::default()], 1, 0.0);
    assert_eq!(compare(&before, &other), None);
}
