//! The pool replayed with a scripted worker: every message a worker could send, in the orders
//! the page can see them, with a clock the test moves.

use super::*;
use crate::tools::python::Raised;

fn pool() -> Pool {
    Pool::new(Limits { wall_ms: 10_000.0, grace_ms: 1_000.0, memory_bytes: 1_000_000_000, workers: 2 })
}

fn call(run: RunKey, call: CallId, code: &str) -> Msg {
    Msg::Call { run, call, code: code.into(), wall_ms: 10_000.0, install: None }
}

fn spawn(worker: WorkerId) -> Do {
    Do::Spawn { worker, install: None }
}

fn ready(worker: WorkerId) -> Msg {
    Msg::Started { worker, result: Ok((40_000_000, false)) }
}

fn printed(text: &str) -> Ran {
    Ran { stdout: text.into(), ..Ran::default() }
}

fn answered(worker: WorkerId, call: CallId, ran: Ran) -> Msg {
    Msg::Answered { worker, call, ran, memory: 50_000_000 }
}

fn answers(out: &[Do]) -> Vec<(CallId, Result<Ran, String>)> {
    out.iter().filter_map(|d| if let Do::Answer { call, result } = d { Some((*call, result.clone())) } else { None }).collect()
}

#[test]
fn a_run_s_first_call_starts_an_interpreter_and_runs_once_it_is_up() {
    let mut p = pool();
    assert_eq!(p.handle(call(1, 10, "x = 1"), 0.0), vec![spawn(0)]);
    assert_eq!(p.status().loading, Some((0, 0)));
    let out = p.handle(Msg::Loading { worker: 0, loaded: 3_000_000, total: 13_000_000 }, 5.0);
    assert_eq!(out, vec![Do::Progress { call: 10, text: "Starting Python: 3.0 MB of 13.0 MB fetched".into() }]);
    let out = p.handle(ready(0), 100.0);
    assert_eq!(out, vec![Do::Send { worker: 0, call: 10, code: "x = 1".into() }, Do::Wake { at: 10_100.0, worker: 0, call: 10 }]);
    let out = p.handle(answered(0, 10, Ran::default()), 150.0);
    assert_eq!(answers(&out), vec![(10, Ok(Ran::default()))]);
    assert!(p.status().text().starts_with("Ready: 1 interpreter (0 busy)"), "{}", p.status().text());
}

#[test]
fn calls_of_one_run_share_its_interpreter_and_another_run_gets_its_own() {
    let mut p = pool();
    p.handle(call(1, 10, "x = 41"), 0.0);
    p.handle(ready(0), 1.0);
    p.handle(answered(0, 10, Ran::default()), 2.0);
    // The same run: the same worker, no new start.
    let out = p.handle(call(1, 11, "print(x + 1)"), 3.0);
    assert_eq!(out[0], Do::Send { worker: 0, call: 11, code: "print(x + 1)".into() });
    // Another run while the first still lives: a worker of its own.
    let out = p.handle(call(2, 20, "print(x)"), 4.0);
    assert_eq!(out, vec![spawn(1)]);
    p.handle(answered(0, 11, printed("42\n")), 5.0);
    let out = p.handle(ready(1), 6.0);
    assert!(matches!(&out[0], Do::Send { worker: 1, call: 20, .. }), "{out:?}");
}

#[test]
fn a_second_call_of_a_run_waits_for_its_first() {
    let mut p = pool();
    p.handle(call(1, 10, "a"), 0.0);
    p.handle(ready(0), 1.0);
    let out = p.handle(call(1, 11, "b"), 2.0);
    assert!(out.is_empty(), "busy: the second waits, {out:?}");
    let out = p.handle(answered(0, 10, Ran::default()), 3.0);
    assert_eq!(answers(&out).len(), 1);
    assert!(out.contains(&Do::Send { worker: 0, call: 11, code: "b".into() }));
}

#[test]
fn past_the_bound_of_interpreters_a_run_waits_is_told_and_runs_when_one_ends() {
    let mut p = pool();
    p.handle(call(1, 10, "a"), 0.0);
    p.handle(call(2, 20, "b"), 0.0);
    let out = p.handle(call(3, 30, "c"), 0.0);
    assert_eq!(out, vec![Do::Progress { call: 30, text: "Waiting for a Python interpreter: all 2 are in use by other runs".into() }]);
    // Told once, not at every change.
    p.handle(ready(0), 1.0);
    let out = p.handle(ready(1), 1.0);
    assert!(!out.iter().any(|d| matches!(d, Do::Progress { call: 30, .. })), "{out:?}");
    assert_eq!(p.status().waiting, 1);
    // Run 1 ends: its interpreter goes, and run 3 gets a new one (no spare is kept while a
    // call waits).
    let out = p.handle(Msg::RunEnded { run: 1 }, 2.0);
    assert_eq!(answers(&out), vec![(10, Err("The run ended while this code ran: it was stopped.".into()))]);
    assert_eq!(out.iter().filter(|d| matches!(d, Do::End { worker: 0 })).count(), 1);
    assert!(out.contains(&spawn(2)), "{out:?}");
    let out = p.handle(ready(2), 3.0);
    assert!(matches!(&out[0], Do::Send { worker: 2, call: 30, .. }));
}

#[test]
fn a_run_that_used_python_leaves_a_fresh_interpreter_for_the_next() {
    let mut p = pool();
    p.handle(call(1, 10, "secret = 7"), 0.0);
    p.handle(ready(0), 1.0);
    p.handle(answered(0, 10, Ran::default()), 2.0);
    let out = p.handle(Msg::RunEnded { run: 1 }, 3.0);
    assert_eq!(out, vec![Do::End { worker: 0 }, spawn(1)], "the used one ends, a spare starts");
    p.handle(ready(1), 4.0);
    // The next run takes the spare at once: no start to wait for, and nothing of run 1.
    let out = p.handle(call(2, 20, "print(secret)"), 5.0);
    assert_eq!(out[0], Do::Send { worker: 1, call: 20, code: "print(secret)".into() });
    // A run that never used Python leaves nothing behind.
    assert!(p.handle(Msg::RunEnded { run: 9 }, 6.0).is_empty());
}

#[test]
fn a_call_past_its_time_ends_the_interpreter_when_it_cannot_be_interrupted_and_the_next_call_starts_clean() {
    let mut p = pool();
    p.handle(call(1, 10, "while True: pass"), 0.0);
    p.handle(ready(0), 0.0);
    let out = p.handle(Msg::TimeUp { worker: 0, call: 10 }, 10_000.0);
    assert_eq!(out[0], Do::End { worker: 0 });
    let (_, result) = &answers(&out)[0];
    let why = result.clone().unwrap_err();
    assert!(why.contains("time limit (10 s)") && why.contains("variables are gone"), "{why}");
    // A late answer of the ended worker is ignored; the next call gets a new interpreter.
    assert!(p.handle(answered(0, 10, Ran::default()), 10_001.0).is_empty());
    assert_eq!(p.handle(call(1, 11, "print(1)"), 10_002.0), vec![spawn(1)]);
    // A timer for a call that already ended does nothing.
    assert!(p.handle(Msg::TimeUp { worker: 1, call: 10 }, 20_000.0).is_empty());
}

#[test]
fn an_interruptible_call_is_interrupted_first_and_keeps_its_variables() {
    let mut p = pool();
    p.handle(call(1, 10, "while True: pass"), 0.0);
    p.handle(Msg::Started { worker: 0, result: Ok((1, true)) }, 0.0);
    let out = p.handle(Msg::TimeUp { worker: 0, call: 10 }, 10_000.0);
    assert_eq!(out, vec![Do::Interrupt { worker: 0 }, Do::Wake { at: 11_000.0, worker: 0, call: 10 }]);
    let ran = Ran { error: Some(Raised { name: "KeyboardInterrupt".into(), traceback: "Traceback (most recent call last):\n  File \"<code>\", line 1, in <module>\nKeyboardInterrupt".into() }), ..Ran::default() };
    let out = p.handle(answered(0, 10, ran), 10_050.0);
    let why = answers(&out)[0].1.clone().unwrap_err();
    assert!(why.contains("time limit (10 s)") && why.contains("variables are kept") && why.contains("line 1"), "{why}");
    // The grace timer then finds nothing to end; the worker serves the next call.
    assert!(p.handle(Msg::TimeUp { worker: 0, call: 10 }, 11_000.0).is_empty());
    assert_eq!(p.handle(call(1, 11, "x"), 11_001.0)[0], Do::Send { worker: 0, call: 11, code: "x".into() });
}

#[test]
fn an_interrupt_not_heard_within_the_grace_ends_the_interpreter() {
    let mut p = pool();
    p.handle(call(1, 10, "time.sleep(100)"), 0.0);
    p.handle(Msg::Started { worker: 0, result: Ok((1, true)) }, 0.0);
    p.handle(Msg::TimeUp { worker: 0, call: 10 }, 10_000.0);
    let out = p.handle(Msg::TimeUp { worker: 0, call: 10 }, 11_000.0);
    assert_eq!(out[0], Do::End { worker: 0 });
    assert!(answers(&out)[0].1.clone().unwrap_err().contains("did not stop when interrupted"));
}

#[test]
fn an_interpreter_past_its_memory_bound_is_ended_after_the_call_which_says_so() {
    let mut p = pool();
    p.handle(call(1, 10, "big = bytearray(2**31)"), 0.0);
    p.handle(ready(0), 0.0);
    let out = p.handle(Msg::Answered { worker: 0, call: 10, ran: Ran::default(), memory: 2_200_000_000 }, 1.0);
    assert_eq!(out[0], Do::End { worker: 0 });
    let ran = answers(&out)[0].1.clone().unwrap();
    assert!(ran.note.unwrap().contains("grew to 2.2 GB, past its bound of 1.0 GB"));
    assert_eq!(p.status().workers, 0);
}

#[test]
fn a_failed_start_answers_the_calls_that_waited_on_it_and_the_next_call_tries_again() {
    let mut p = pool();
    p.handle(call(1, 10, "a"), 0.0);
    let out = p.handle(Msg::Started { worker: 0, result: Err("the runtime's files could not be fetched (offline?)".into()) }, 1.0);
    assert_eq!(answers(&out), vec![(10, Err("Python could not start: the runtime's files could not be fetched (offline?)".into()))]);
    assert_eq!(p.status().text(), "Python could not start: the runtime's files could not be fetched (offline?)");
    assert_eq!(p.handle(call(1, 11, "a"), 2.0), vec![spawn(1)]);
    p.handle(ready(1), 3.0);
    assert_eq!(p.status().failed, None, "a later start clears the failure");
}

#[test]
fn a_worker_that_dies_during_a_call_answers_it_and_one_that_dies_starting_fails_its_calls() {
    let mut p = pool();
    p.handle(call(1, 10, "a"), 0.0);
    p.handle(ready(0), 0.0);
    let out = p.handle(Msg::Died { worker: 0, why: "out of memory".into() }, 1.0);
    assert!(answers(&out)[0].1.clone().unwrap_err().contains("stopped unexpectedly (out of memory)"));
    p.handle(call(2, 20, "b"), 2.0);
    let out = p.handle(Msg::Died { worker: 1, why: "the worker's script failed to load".into() }, 3.0);
    assert_eq!(answers(&out), vec![(20, Err("Python could not start: the worker's script failed to load".into()))]);
    assert_eq!(p.status().workers, 0);
}

#[test]
fn a_run_that_ends_with_a_call_still_waiting_answers_it_and_starts_nothing_for_it() {
    let mut p = pool();
    p.handle(call(1, 10, "a"), 0.0);
    let out = p.handle(Msg::RunEnded { run: 1 }, 1.0);
    assert_eq!(answers(&out), vec![(10, Err("The run ended before this code ran.".into()))]);
    assert!(out.contains(&Do::End { worker: 0 }));
    // The starting worker was the run's: ended; its late start is ignored.
    assert!(p.handle(ready(0), 2.0).iter().all(|d| !matches!(d, Do::Send { .. })));
}

#[test]
fn a_run_allowed_to_install_packages_gets_a_worker_started_so_and_a_spare_of_other_settings_gives_way() {
    let pypi = Install { index_urls: vec!["https://pypi.org/simple".into()], hosts: vec!["https://pypi.org".into(), "https://files.pythonhosted.org".into()] };
    let mut p = Pool::new(Limits { workers: 1, ..Limits::default() });
    p.handle(call(1, 10, "a"), 0.0);
    p.handle(ready(0), 0.0);
    p.handle(answered(0, 10, Ran::default()), 0.0);
    // The run ends: a spare without network starts, as that run's settings were.
    assert_eq!(p.handle(Msg::RunEnded { run: 1 }, 1.0), vec![Do::End { worker: 0 }, spawn(1)]);
    p.handle(ready(1), 2.0);
    // A run allowed to install never gets that spare: it is ended for one started as its
    // settings say (the bound of one worker holds).
    let out = p.handle(Msg::Call { run: 2, call: 20, code: "import micropip".into(), wall_ms: 10_000.0, install: Some(pypi.clone()) }, 3.0);
    assert_eq!(out, vec![Do::End { worker: 1 }, Do::Spawn { worker: 2, install: Some(pypi.clone()) }]);
    assert_eq!(p.status().workers, 1);
}

#[test]
fn a_spare_that_fails_to_start_fails_no_call_of_another_run() {
    let pypi = Install { index_urls: vec!["https://pypi.org/simple".into()], hosts: vec!["https://pypi.org".into()] };
    let mut p = pool();
    p.handle(call(1, 10, "a"), 0.0);
    p.handle(ready(0), 0.0);
    p.handle(answered(0, 10, Ran::default()), 0.0);
    // Run 1 ends and leaves a spare starting (worker 1, no installs).
    assert_eq!(p.handle(Msg::RunEnded { run: 1 }, 1.0), vec![Do::End { worker: 0 }, spawn(1)]);
    // A run allowed to install does not take it: a worker of its own starts (worker 2).
    let out = p.handle(Msg::Call { run: 2, call: 20, code: "b".into(), wall_ms: 10_000.0, install: Some(pypi.clone()) }, 2.0);
    assert_eq!(out, vec![Do::Spawn { worker: 2, install: Some(pypi) }]);
    // The spare fails: run 2's call still waits on its own start.
    assert_eq!(answers(&p.handle(Msg::Started { worker: 1, result: Err("no memory".into()) }, 3.0)), vec![]);
    let out = p.handle(ready(2), 4.0);
    assert!(matches!(&out[0], Do::Send { worker: 2, call: 20, .. }), "{out:?}");
}
