use super::*;
use crate::agent::trace::{AnswerSource, EventKind, StopReason};
use crate::agent::Event;
use crate::app::eval::config::Config;
use crate::app::eval::run::{Cell, State};
use crate::app::eval::set::read_set;
use crate::conversation::Outcome;

fn record(concurrency: usize) -> EvalRecord {
    let cases = read_set("question,expected,scorer\nCapital of France?,Paris,contains\n6*7?,42,number\nSay hi,,answered").cases;
    let configs = vec![Config { name: "C0".into(), model: "m0".into(), ..Config::default() }];
    EvalRecord::new("e1".into(), "Geography".into(), cases, configs, concurrency, 1000.0)
}

fn answered(question: &str, answer: &str) -> Run {
    let ev = |index: u32, kind| Event { index, step: 1, started_ms: 0.0, ended_ms: 1.0, kind };
    let mut run = Run::new(question.into());
    run.events.push(ev(0, EventKind::FinalAnswer { answer: answer.into(), source: AnswerSource::Model }));
    run.events.push(ev(1, EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() }));
    run.outcome = Some(Outcome::Answer(answer.into()));
    run
}

fn started(concurrency: usize) -> Drive {
    let mut d = Drive::new(MAX_CONCURRENCY);
    let mut r = record(concurrency);
    r.start();
    d.show(r);
    d
}

#[test]
fn cells_go_only_to_free_workers_within_the_concurrency_and_the_rest_wait_first_in_line() {
    let mut d = started(2);
    // Worker 0 is still ending a run Stop cut: only worker 1 takes a cell.
    let first = d.next(0.0, &[false, true, true]);
    assert_eq!(first, [(1, Job { case: 0, config: 0 })]);
    assert_eq!(d.record.as_ref().unwrap().eval.cells()[1], Cell::Waiting, "the second cell waits again");
    let second = d.next(1.0, &[true, false, true]);
    assert_eq!(second, [(0, Job { case: 1, config: 0 })], "worker 2 is past the concurrency");
}

#[test]
fn a_run_cut_because_the_page_leaves_waits_again_and_runs_if_the_page_stays() {
    let mut d = started(1);
    let [(w, job)] = d.next(0.0, &[true])[..] else { panic!("one cell starts") };
    d.leaving();
    assert_eq!(d.ended(w), Ended::Cut(job), "not a result");
    assert!(d.next(1.0, &[true]).is_empty(), "nothing starts while the page leaves");
    assert_eq!(d.record.as_ref().unwrap().eval.cells()[0], Cell::Waiting);
    // A judge heard while leaving is not a verdict either.
    assert!(d.stayed(), "the page stayed: the cells go on");
    assert_eq!(d.next(2.0, &[true]), [(0, job)]);
}

#[test]
fn a_verdict_heard_while_the_page_leaves_sends_the_cell_back() {
    let mut d = Drive::new(1);
    let mut r = record(1);
    r.eval.cases[2].scorers = vec![crate::app::eval::score::Scorer::parse("judge").expect("the judge scorer")];
    r.start();
    d.show(r);
    // Cases 0 and 1 finish; case 2 asks the judge.
    for (case, answer) in [(0, "Paris"), (1, "42")] {
        let [(w, job)] = d.next(case as f64, &[true])[..] else { panic!("a cell starts") };
        assert_eq!(d.ended(w), Ended::Cell(job));
        d.finished(job, answered("q", answer), 10.0);
    }
    let [(w, job)] = d.next(20.0, &[true])[..] else { panic!("the judged cell starts") };
    assert_eq!(d.ended(w), Ended::Cell(job));
    let (judge, _) = d.finished(job, answered("Say hi", "hi"), 30.0);
    assert!(judge);
    d.leaving();
    assert_eq!(d.judged(job, Verdict { pass: true, reason: String::new() }), None);
    assert_eq!(d.record.as_ref().unwrap().eval.cells()[2], Cell::Waiting, "it runs again");
}

#[test]
fn a_failed_write_stays_and_is_written_with_the_next_once() {
    let mut d = started(1);
    assert_eq!(d.writes(vec![Write::Head]), [Write::Head]);
    d.write_failed(vec![Write::Head]);
    let next = d.writes(vec![Write::Cell(0), Write::Head]);
    assert_eq!(next, [Write::Head, Write::Cell(0)], "the failed one first, each once");
    assert!(d.writes(Vec::new()).is_empty(), "nothing is written twice once it held");
}

#[test]
fn an_evaluation_resumed_after_a_reload_goes_on_with_the_cells_not_done() {
    let mut d = started(1);
    let [(w, job)] = d.next(0.0, &[true])[..] else { panic!("one cell starts") };
    assert_eq!(d.ended(w), Ended::Cell(job));
    d.finished(job, answered("Capital of France?", "Paris"), 5.0);
    let r = d.record.as_ref().unwrap();
    let (head, cells) = (r.stored_head(6.0), (0..3).filter_map(|at| r.stored_cell(at)).collect::<Vec<_>>());
    assert!(head.running);
    // The page goes away; the next one reads the evaluation back and goes on.
    let (back, running) = EvalRecord::from_stored(head, cells, false);
    assert!(running);
    let mut again = Drive::new(1);
    let mut back = back;
    back.start();
    again.show(back);
    assert_eq!(again.next(7.0, &[true]), [(0, Job { case: 1, config: 0 })], "the done case is not run again");
    assert_eq!(again.record.as_ref().unwrap().eval.state(), State::Running);
}

#[test]
fn a_newer_page_s_evaluation_is_never_written() {
    let mut d = Drive::new(1);
    let mut r = record(1);
    r.newer = true;
    d.show(r);
    assert!(d.writes(vec![Write::Head, Write::Cell(0)]).is_empty());
}

#[test]
fn stop_frees_the_workers_of_the_cells_it_stopped() {
    let mut d = started(2);
    let two = d.next(0.0, &[true, true]);
    assert_eq!(two.len(), 2);
    let (workers, writes) = d.stop();
    assert_eq!(workers, [0, 1]);
    assert_eq!(writes, [Write::Head]);
    assert_eq!(d.ended(0), Ended::Free, "a run Stop cut is no result");
    assert!(!d.running());
}
