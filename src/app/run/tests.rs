use super::*;
use crate::agent::{ModelName, Strategy};

fn started(continues: bool) -> EventKind {
    EventKind::RunStarted {
        question: "q".into(),
        tools: Vec::new(),
        history_turns: 0,
        started_unix_ms: 0.0,
        strategy: Strategy::default(),
        continues,
        model: ModelName::default(),
    }
}

fn note(uri: &str) -> Attachment {
    Attachment { server: "http://127.0.0.1:1/mcp".into(), uri: uri.into(), name: uri.into() }
}

#[test]
fn one_run_at_a_time_and_its_end_says_which_run_ended() {
    let mut session = RunSession::default();
    assert!(!session.running());
    session.begin(3, 0, started(false)).unwrap();
    assert!(session.running());
    assert_eq!(session.begin(4, 0, started(false)), Err(AlreadyRunning));
    let (run, steps) = session.end(5, &Outcome::Answer("a".into())).unwrap();
    assert_eq!((run, steps.len()), (3, 0), "the agent recorded its own steps");
    assert!(!session.running());
    assert_eq!(session.end(5, &Outcome::Answer("a".into())), None, "ended once");
}

#[test]
fn a_run_that_ends_before_the_agent_recorded_anything_gets_its_start_and_its_failure_as_steps() {
    let mut session = RunSession::default();
    session.begin(0, 0, started(false)).unwrap();
    let (_, steps) = session.end(0, &Outcome::Ended("The agent could not be loaded: …".into())).unwrap();
    assert!(matches!(steps[0], EventKind::RunStarted { .. }));
    assert!(matches!(&steps[1], EventKind::RunStopped { reason: StopReason::ModelFailed, message } if message.starts_with("The agent could not")));
    assert_eq!(steps[1].tone(), crate::agent::Tone::Error);
    // Stop while the engine was on its way.
    session.begin(1, 7, started(true)).unwrap();
    let (_, steps) = session.end(7, &Outcome::Ended(StopReason::Cancelled.describe())).unwrap();
    assert!(matches!(steps[1], EventKind::RunStopped { reason: StopReason::Cancelled, .. }));
    // A continued run that recorded steps of its own needs none.
    session.begin(1, 7, started(true)).unwrap();
    assert_eq!(session.end(9, &Outcome::Ended("x".into())).unwrap().1, Vec::new());
}

#[test]
fn attachments_go_with_a_new_question_and_wait_through_a_reply() {
    let mut session = RunSession::default();
    session.attach(note("a://1"), true);
    session.attach(note("a://1"), true);
    session.attach(note("a://2"), true);
    session.attach(note("a://2"), false);
    assert_eq!(session.attached(), [note("a://1")], "once per resource; taken off");
    assert_eq!(session.begin(0, 4, started(true)).unwrap(), Vec::new(), "a reply leaves them");
    session.end(5, &Outcome::Answer("a".into()));
    assert_eq!(session.begin(1, 0, started(false)).unwrap(), [note("a://1")]);
    assert!(session.attached().is_empty());
}

#[test]
fn an_event_ends_the_live_texts_it_replaces() {
    let none = RunSession::clears(&EventKind::Plan { items: Vec::new(), version: 1, replan: false, observation: None });
    assert_eq!(none, Clears { streaming: false, progress: false });
    let stopped = RunSession::clears(&EventKind::RunStopped { reason: StopReason::Cancelled, message: String::new() });
    assert_eq!(stopped, Clears { streaming: false, progress: true });
}

#[test]
fn the_collector_is_told_of_each_finished_run_once_and_the_latest_word_stays() {
    assert!(!RunSession::finished_for_sending(&Outcome::Asks("which?".into())));
    assert!(RunSession::finished_for_sending(&Outcome::Ended("x".into())));
    let mut session = RunSession::default();
    session.sent(Sent { chat: "c".into(), run: 0, result: Err("401".into()) });
    session.sent(Sent { chat: "c".into(), run: 1, result: Ok(()) });
    session.sent(Sent { chat: "c".into(), run: 0, result: Ok(()) });
    assert_eq!(session.sent_list().len(), 2);
    assert!(session.sent_list().iter().all(|s| s.result.is_ok()));
}
