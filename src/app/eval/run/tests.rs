//! The evaluation's operations: concurrency, scoring, the judge, Stop, a reload, progress.

use super::*;
use crate::agent::EventKind;
use crate::app::eval::set::read_set;

fn set() -> Vec<Case> {
    read_set("{\"question\": \"Capital of France?\", \"expected\": \"Paris\", \"scorer\": \"contains\"}\n{\"question\": \"6*7?\", \"expected\": \"42\", \"scorer\": \"number+tool:calculator\"}\n{\"question\": \"Say hi\", \"scorer\": \"answered+judge\"}").cases
}

fn answer(text: &str) -> Outcome {
    Outcome::Answer(text.into())
}

fn called(tool: &str) -> Vec<Event> {
    vec![Event { index: 0, step: 1, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::ToolCall { tool: tool.into(), input: "6*7".into(), via: None } }]
}

#[test]
fn cells_start_by_concurrency_in_order_and_are_scored() {
    let mut e = Evaluation::new(set(), vec!["A".into(), "B".into()], 2);
    assert_eq!(e.next(0.0), Vec::<Job>::new(), "nothing before start");
    e.start();
    assert_eq!(e.state(), State::Running);
    let first = e.next(0.0);
    assert_eq!(first, [Job { case: 0, config: 0 }, Job { case: 0, config: 1 }]);
    assert!(e.next(0.0).is_empty(), "two at a time");
    assert!(!e.finished(first[0], answer("It is Paris."), &[], 1000.0));
    assert!(!e.finished(first[1], answer("Lyon"), &[], 3000.0));
    let Some(Cell::Done(a)) = e.cell(first[0]) else { panic!() };
    assert!(a.passed() && a.duration_ms == 1000.0);
    let Some(Cell::Done(b)) = e.cell(first[1]) else { panic!() };
    assert!(!b.passed() && b.verdicts[0].1.reason.contains("paris"));
    // The next two; a finished cell is never started again.
    let second = e.next(3000.0);
    assert_eq!(second, [Job { case: 1, config: 0 }, Job { case: 1, config: 1 }]);
    e.finished(second[0], answer("42"), &called("calculator"), 4000.0);
    e.finished(second[1], answer("42"), &[], 4000.0);
    let Some(Cell::Done(no_tool)) = e.cell(second[1]) else { panic!() };
    assert!(!no_tool.passed(), "all scorers must pass: it never called the calculator");
    let p = e.progress();
    assert_eq!((p.done, p.total, p.passed), (4, 6, 2));
    // Mean 1,500 ms a cell, two cells left, two at a time.
    assert_eq!(p.left_ms, Some(1500.0));
}

#[test]
fn the_judge_completes_a_case_and_a_run_without_an_answer_fails_it_with_the_reason() {
    let mut e = Evaluation::new(set(), vec!["A".into()], 3);
    e.start();
    let jobs = e.next(0.0);
    assert_eq!(jobs.len(), 3);
    assert!(e.finished(jobs[2], answer("Hi!"), &[], 10.0), "the judge is asked");
    assert!(matches!(e.cell(jobs[2]), Some(Cell::Judging(_))));
    assert!(e.next(10.0).is_empty(), "a cell being judged still takes its place");
    e.judged(jobs[2], Verdict { pass: true, reason: "It greets.".into() });
    let Some(Cell::Done(d)) = e.cell(jobs[2]) else { panic!() };
    assert!(d.passed());
    assert_eq!(d.verdicts.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(), ["answered", "judge"]);
    // Another evaluation: the run fails, so the judge is not asked and the case fails.
    let mut e = Evaluation::new(set(), vec!["A".into()], 3);
    e.start();
    let jobs = e.next(0.0);
    assert!(!e.finished(jobs[2], Outcome::Ended("The model call failed: 500".into()), &[], 10.0));
    let Some(Cell::Done(d)) = e.cell(jobs[2]) else { panic!() };
    assert!(!d.passed() && d.verdicts[1].1.reason.contains("500"));
}

#[test]
fn stop_and_a_reload_keep_what_finished_and_run_the_rest_once() {
    let mut e = Evaluation::new(set(), vec!["A".into()], 2);
    e.start();
    let jobs = e.next(0.0);
    e.finished(jobs[0], answer("Paris"), &[], 5.0);
    let stopped = e.stop();
    assert_eq!(stopped, [jobs[1]], "the run still going is stopped");
    assert_eq!(e.state(), State::Idle);
    assert!(!e.finished(jobs[1], answer("42"), &called("calculator"), 6.0), "a stopped cell takes no late result");
    assert_eq!(e.cell(jobs[1]), Some(&Cell::Waiting));
    // A reload while case 2 ran: it waits again; case 1 stays done.
    let mut running = e.clone();
    running.start();
    running.next(10.0);
    let back = Evaluation::resumed(running.cases.clone(), running.configs.clone(), running.cells().to_vec(), 2);
    assert_eq!(back.state(), State::Idle);
    assert!(matches!(back.cells()[0], Cell::Done(_)));
    assert_eq!(&back.cells()[1..], &[Cell::Waiting, Cell::Waiting]);
    let mut back = back;
    back.start();
    assert_eq!(back.next(20.0), [Job { case: 1, config: 0 }, Job { case: 2, config: 0 }]);
    back.finished(Job { case: 1, config: 0 }, answer("42"), &called("calculator"), 30.0);
    back.finished(Job { case: 2, config: 0 }, Outcome::Ended("x".into()), &[], 30.0);
    assert_eq!(back.state(), State::Finished);
    assert_eq!(back.progress().passed, 2);
}

#[test]
fn a_cell_that_could_not_start_waits_again_first_in_line() {
    let mut e = Evaluation::new(set(), vec!["A".into()], 1);
    e.start();
    let first = e.next(0.0);
    e.requeue(first[0]);
    assert_eq!(e.cell(first[0]), Some(&Cell::Waiting));
    assert_eq!(e.next(5.0), first, "the same cell, before the next case");
    e.finished(first[0], answer("Paris"), &[], 10.0);
    e.requeue(first[0]);
    assert!(matches!(e.cell(first[0]), Some(Cell::Done(_))), "a finished cell stays finished");
}

#[test]
fn a_judge_not_heard_runs_its_case_again() {
    let mut e = Evaluation::new(set(), vec!["A".into()], 1);
    e.start();
    e.next(0.0);
    e.finished(Job { case: 0, config: 0 }, answer("Paris"), &[], 1.0);
    e.next(1.0);
    e.finished(Job { case: 1, config: 0 }, answer("42"), &[], 2.0);
    let judged = e.next(2.0)[0];
    assert!(e.finished(judged, answer("Hi"), &[], 3.0), "asks the judge");
    e.requeue_judged(judged);
    assert_eq!(e.cell(judged), Some(&Cell::Waiting));
    assert_eq!(e.next(4.0), [judged]);
    assert_eq!(e.progress().done, 2, "counted once, when it is done");
}
