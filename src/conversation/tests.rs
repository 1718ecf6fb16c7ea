//! The conversation model's operations, and what is derived from its runs.

use super::*;
use crate::agent::trace::AnswerSource;

fn event(kind: EventKind) -> Event {
    Event { index: 99, step: 1, started_ms: 0.0, ended_ms: 1.0, kind }
}

fn answered(c: &mut Conversation, question: &str, answer: &str) -> usize {
    let run = c.ask(question.into());
    c.record(run, event(EventKind::FinalAnswer { answer: answer.into(), source: AnswerSource::Model }));
    c.end(run, Outcome::Answer(answer.into()));
    run
}

fn who(c: &Conversation) -> Vec<(Who, String, usize, bool)> {
    c.messages().into_iter().map(|m| (m.who, m.text, m.run, m.ends_run)).collect()
}

#[test]
fn every_question_is_a_run_and_every_run_is_kept() {
    let mut c = Conversation::new("c".into());
    assert_eq!(c.shown(), None);
    assert_eq!(answered(&mut c, "q1", "a1"), 0);
    assert_eq!(answered(&mut c, "q2", "a2"), 1);
    assert_eq!(c.runs.len(), 2);
    assert_eq!(c.runs[0].events.len(), 1, "the first run's steps stay after the second question");
    assert_eq!(c.runs[1].events[0].index, 0, "events are numbered in their run");
    assert_eq!(
        who(&c),
        vec![
            (Who::User, "q1".into(), 0, false),
            (Who::Assistant, "a1".into(), 0, true),
            (Who::User, "q2".into(), 1, false),
            (Who::Assistant, "a2".into(), 1, true),
        ]
    );
    assert_eq!(c.title(), "q1");
    assert_eq!(c.rename("  Named  "), Save::Now);
    assert_eq!(c.title(), "Named");
    assert_eq!(c.rename("  "), Save::No, "an empty name changes nothing");
}

#[test]
fn any_run_can_be_shown_and_a_new_or_live_run_shows_the_latest() {
    let mut c = Conversation::new("c".into());
    answered(&mut c, "q1", "a1");
    answered(&mut c, "q2", "a2");
    assert_eq!((c.shown(), c.shows_earlier()), (Some(1), false));
    assert_eq!(c.show(0), Save::No, "what is shown is not stored");
    assert_eq!((c.shown(), c.shows_earlier()), (Some(0), true));
    assert_eq!(c.shown_events(), c.runs[0].events.as_slice());
    c.show_latest();
    assert_eq!(c.shown(), Some(1));
    c.show(0);
    let live = c.ask("q3".into());
    assert_eq!(c.shown(), Some(live), "a new question shows its own run");
    c.show(0);
    assert_eq!(c.shown(), Some(live), "while a run is live the pane stays on it");
    c.end(live, Outcome::Ended("stopped".into()));
    c.show(7);
    assert_eq!(c.shown(), Some(live), "a run that does not exist is not shown");
}

#[test]
fn a_reply_continues_the_waiting_run_and_memory_folds_it_in() {
    let mut c = Conversation::new("c".into());
    answered(&mut c, "q1", "a1");
    let run = c.ask("Weather?".into());
    c.end(run, Outcome::Asks("Which city?".into()));
    assert!(c.waiting());
    assert_eq!(c.turns(), vec![Turn { question: "q1".into(), answer: "a1".into() }], "a question still being asked about is not memory");
    assert_eq!(c.reply("Oslo".into()), Some(run));
    assert!(!c.waiting() && c.running() == Some(run));
    assert_eq!(c.reply("again".into()), None, "nothing waits any more");
    c.end(run, Outcome::Answer("Rain.".into()));
    assert_eq!(
        c.turns()[1],
        Turn { question: "Weather?\n(Asked \"Which city?\", the person replied: Oslo)".into(), answer: "Rain.".into() }
    );
    assert_eq!(
        who(&c)[2..],
        [
            (Who::User, "Weather?".into(), 1, false),
            (Who::AskedPerson, "Which city?".into(), 1, false),
            (Who::User, "Oslo".into(), 1, false),
            (Who::Assistant, "Rain.".into(), 1, true),
        ]
    );
}

#[test]
fn a_refused_question_is_a_run_that_ended_and_is_not_memory() {
    let mut c = Conversation::new("c".into());
    answered(&mut c, "q1", "a1");
    c.refuse("q2".into(), "Add your API key.".into());
    answered(&mut c, "q3", "a3");
    assert_eq!(c.turns(), vec![Turn { question: "q1".into(), answer: "a1".into() }, Turn { question: "q3".into(), answer: "a3".into() }]);
    assert_eq!(who(&c)[3], (Who::Problem, "Add your API key.".into(), 1, true));
    assert!(c.running().is_none());
}

#[test]
fn a_run_cut_off_by_a_reload_is_marked_interrupted_once() {
    let mut c = Conversation::new("c".into());
    let run = c.ask("q".into());
    c.record(run, event(EventKind::ToolResult { tool: "t".into(), observation: "o".into() }));
    assert!(c.mark_interrupted());
    assert!(!c.mark_interrupted());
    assert!(matches!(&c.runs[0].outcome, Some(Outcome::Ended(text)) if text.contains("interrupted")));
    let last = c.runs[0].events.last().unwrap();
    assert_eq!(last.index, 1);
    assert!(matches!(last.kind, EventKind::RunStopped { reason: StopReason::Interrupted, .. }));
    assert!(!Conversation::new("d".into()).mark_interrupted(), "nothing to mark in an empty chat");
}

#[test]
fn clarifications_are_read_from_a_trace_that_asked_and_was_answered() {
    let events = [
        event(EventKind::AskedPerson { question: "Which city?".into() }),
        event(EventKind::PersonAnswered { answer: "Oslo".into() }),
        event(EventKind::AskedPerson { question: "Which day?".into() }),
    ];
    assert_eq!(clarified_of(&events), vec![Clarification { asked: "Which city?".into(), reply: "Oslo".into() }]);
}

#[test]
fn masking_covers_every_text_the_conversation_holds() {
    let mut settings = crate::app::settings::Settings::default();
    settings.provider.api_key = "sk-test-0123456789abcdef0123".into();
    let key = settings.provider.api_key.clone();
    let mut c = Conversation::new("c".into());
    let run = c.ask(format!("is {key} ok?"));
    c.end(run, Outcome::Asks(format!("{key}?")));
    c.reply(key.clone());
    c.record(run, event(EventKind::ToolResult { tool: "t".into(), observation: key.clone() }));
    c.end(run, Outcome::Answer(key.clone()));
    c.mask(&crate::app::settings::keys::collect(&settings));
    let all = format!("{c:?}");
    assert!(!all.contains(&key), "{all}");
}

#[test]
fn outcome_reads_the_end_of_a_trace() {
    let stopped = |reason| event(EventKind::RunStopped { reason, message: String::new() });
    assert_eq!(outcome(&[]), Outcome::Ended("The run ended without an answer.".into()));
    let limit = StopReason::MaxIterations { limit: 3 };
    assert_eq!(outcome(&[stopped(limit.clone())]), Outcome::Ended(limit.describe()));
    let asked = [event(EventKind::AskedPerson { question: "Which?".into() }), stopped(StopReason::AskedPerson)];
    assert_eq!(outcome(&asked), Outcome::Asks("Which?".into()));
}
