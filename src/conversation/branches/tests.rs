//! A run's branches as the conversation holds them: forking from a line, what is shared and
//! what is the branch's own, switching, memory of later questions, Stop and refusals.

use super::super::*;
use crate::agent::fork::{Change, ForkSettings};
use crate::agent::trace::AnswerSource;
use crate::agent::{ModelName, Strategy};

fn ev(kind: EventKind, step: u32) -> Event {
    Event { index: 0, step, started_ms: 0.0, ended_ms: 1.0, kind }
}

fn started(question: &str) -> EventKind {
    EventKind::RunStarted { question: question.into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0, strategy: Strategy::React, continues: false, model: ModelName::default() }
}

/// A chat whose first run looked something up and answered.
fn chat() -> Conversation {
    let mut c = Conversation::new("c".into());
    let run = c.ask("Population of Oslo?".into());
    c.record(run, ev(started("Population of Oslo?"), 0));
    c.record(run, ev(EventKind::ToolCall { tool: "wikipedia".into(), input: "Oslo".into(), via: None }, 1));
    c.record(run, ev(EventKind::ToolResult { tool: "wikipedia".into(), observation: "Oslo has 700,000 people.".into() }, 1));
    c.record(run, ev(EventKind::FinalAnswer { answer: "About 700,000.".into(), source: AnswerSource::Model }, 2));
    c.end(run, Outcome::Answer("About 700,000.".into()));
    c
}

fn ask(event: usize, change: Change) -> ForkAsk {
    ForkAsk { event, change, settings: ForkSettings::Now, model: ModelName { provider: "openai".into(), model: "m".into() }, strategy: Strategy::React }
}

fn observation(text: &str) -> Change {
    Change::Observation { tool: "wikipedia".into(), text: text.into() }
}

#[test]
fn a_branch_shares_the_steps_before_the_fork_and_the_original_stays_as_it_was() {
    let mut c = chat();
    let before = c.runs[0].clone();
    assert_eq!(c.fork(0, ask(2, observation("Oslo has 1 person."))), Ok(1));
    let run = &c.runs[0];
    assert_eq!((run.lines(), run.shown_number()), (2, 1), "the new branch is shown");
    let line = run.shown_line();
    assert_eq!(line.events[..2], before.events[..2], "the steps before the fork are shared");
    assert!(matches!(&line.events[2].kind, EventKind::Forked(f) if f.change == observation("Oslo has 1 person.") && f.from == 2 && f.branch == 0));
    assert_eq!(line.events[2].index, 2);
    assert_eq!(line.outcome, None, "it runs");
    assert_eq!(c.running(), Some(0));
    // The run as first asked is untouched.
    assert_eq!((&run.events, &run.outcome), (&before.events, &before.outcome));
    // The branch's steps go into it, numbered after its own.
    c.record(0, ev(EventKind::FinalAnswer { answer: "One.".into(), source: AnswerSource::Model }, 2));
    assert_eq!(c.end(0, Outcome::Answer("One.".into())), Save::Now);
    assert_eq!(c.runs[0].shown_line().events[3].index, 3);
    assert_eq!(c.runs[0].events, before.events);
    // The chat shows the branch's answer, and later questions remember it.
    assert_eq!(c.messages().last().unwrap().text, "One.");
    assert_eq!(c.turns()[0].answer, "One.");
    // Switching back shows and remembers the original.
    assert_eq!(c.show_branch(0, 0), Save::Now);
    assert_eq!(c.messages().last().unwrap().text, "About 700,000.");
    assert_eq!(c.turns()[0].answer, "About 700,000.");
    assert_eq!(c.shown_events(), before.events.as_slice());
    assert_eq!(c.show_branch(0, 0), Save::No, "already shown");
    assert_eq!(c.show_branch(0, 9), Save::No, "no such branch");
}

#[test]
fn a_fork_of_a_fork_and_a_changed_question() {
    let mut c = chat();
    c.fork(0, ask(2, observation("one"))).unwrap();
    c.end(0, Outcome::Answer("1".into()));
    // From branch 2, a fork at the same observation.
    assert_eq!(c.fork(0, ask(2, observation("two"))), Ok(2));
    let b = &c.runs[0].branches[1];
    assert_eq!((b.parent, b.at), (1, 2));
    c.end(0, Outcome::Answer("2".into()));
    // A changed question shares nothing and asks the new question.
    c.show_branch(0, 0);
    assert_eq!(c.fork(0, ask(0, Change::Question { text: "Population of Bergen?".into() })), Ok(3));
    let line = c.runs[0].shown_line();
    assert_eq!((line.question, line.events.len()), ("Population of Bergen?", 1));
    assert_eq!(c.messages()[0].text, "Population of Bergen?", "the chat shows the branch's question");
    assert_eq!(c.title(), "Population of Oslo?", "the chat keeps its name");
    assert_eq!(c.runs[0].switcher_at(), Some(0));
}

#[test]
fn no_fork_while_a_run_goes_on_or_where_the_change_does_not_fit() {
    let mut c = chat();
    assert!(c.fork(0, ask(3, observation("x"))).unwrap_err().contains("cannot be changed"));
    assert!(c.fork(5, ask(2, observation("x"))).is_err());
    c.fork(0, ask(2, observation("x"))).unwrap();
    // Its branch runs: no other fork, no switch, and no fork of another run.
    assert!(c.fork(0, ask(2, observation("y"))).unwrap_err().contains("still going on"));
    assert_eq!(c.show_branch(0, 0), Save::No);
    let later = c.ask("Next?".into());
    c.end(later, Outcome::Answer("n".into()));
    assert!(c.fork(later, ask(0, Change::Question { text: "q".into() })).unwrap_err().contains("Question 1 is still running"));
    // Interrupted by a reload: the branch is marked, not the run as first asked.
    assert!(c.mark_interrupted());
    assert!(matches!(c.runs[0].shown_line().outcome, Some(Outcome::Ended(_))));
    assert!(matches!(c.runs[0].outcome, Some(Outcome::Answer(_))));
    // A run whose steps were not kept offers nothing to change.
    c.runs[1].steps_kept = false;
    assert!(c.fork(1, ask(0, Change::Question { text: "q".into() })).unwrap_err().contains("not kept"));
}

#[test]
fn an_earlier_run_forked_is_shown_and_a_question_in_its_branch_waits_for_the_reply() {
    let mut c = chat();
    let later = c.ask("Next?".into());
    c.end(later, Outcome::Answer("n".into()));
    c.fork(0, ask(2, observation("x"))).unwrap();
    assert_eq!(c.shown(), Some(0), "the forked run is shown while its branch runs");
    c.end(0, Outcome::Asks("Which Oslo?".into()));
    assert_eq!(c.waiting_run(), Some(0));
    assert_eq!(c.reply("Norway".into()), Some(0));
    assert_eq!(c.runs[0].shown_line().clarified, &[Clarification { asked: "Which Oslo?".into(), reply: "Norway".into() }]);
    assert!(c.runs[0].clarified.is_empty(), "the reply is the branch's");
}

#[test]
fn masking_reaches_every_branch() {
    let mut c = chat();
    c.fork(0, ask(2, observation("key sk-abcdefghijklmnopqrstuvwx"))).unwrap();
    c.end(0, Outcome::Answer("sk-abcdefghijklmnopqrstuvwx".into()));
    let secrets = crate::secrets::Secrets::new(["sk-abcdefghijklmnopqrstuvwx"]);
    c.mask(&secrets);
    let b = &c.runs[0].branches[0];
    assert!(!format!("{:?}", b).contains("sk-abcdefghijklmnopqrstuvwx"), "{b:?}");
}
