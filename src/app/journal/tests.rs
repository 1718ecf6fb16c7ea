use super::*;
use crate::conversation::Outcome;
use crate::storage::journal::{entry_from_json, entry_to_json};

fn asked(id: &str, questions: &[&str]) -> Conversation {
    let mut c = Conversation::new(id.into());
    for q in questions {
        c.ask(q.to_string());
    }
    c
}

#[test]
fn a_question_is_journaled_once_and_cleared_by_the_save_that_holds_it() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["first"]);
    let entry = journal.note(&chat, 10.0).expect("a new question is journaled");
    assert_eq!((entry.chat.as_str(), entry.run, entry.question.as_str()), ("c", 0, "first"));
    // Steps of the run change nothing the person wrote.
    chat.record(0, crate::agent::Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind: crate::agent::EventKind::RunStopped { reason: crate::agent::StopReason::Interrupted, message: "x".into() } });
    assert_eq!(journal.note(&chat, 20.0), None);
    // A save of an older state does not clear it.
    assert_eq!(journal.stored(&Mark { chat: "c".into(), run: 0, replies: 0, events: 0 }), Some("c".into()));
    chat.ask("second".into());
    let entry = journal.note(&chat, 30.0).unwrap();
    assert_eq!(entry.run, 1);
    assert_eq!(journal.stored(&Mark { chat: "c".into(), run: 0, replies: 0, events: 0 }), None, "the save held only the first run");
    assert_eq!(journal.stored(&Mark { chat: "other".into(), run: 5, replies: 0, events: 0 }), None);
    assert_eq!(journal.stored(&Mark::of(&chat).unwrap()), Some("c".into()));
}

#[test]
fn a_reply_to_the_agent_is_journaled_with_the_run_it_continues() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["book a table"]);
    journal.note(&chat, 1.0).unwrap();
    chat.end(0, Outcome::Asks("For how many?".into()));
    assert_eq!(journal.note(&chat, 2.0), None);
    chat.reply("Four".into());
    let entry = journal.note(&chat, 3.0).expect("the reply is new");
    assert_eq!(entry.clarified.len(), 1);
    assert_eq!((entry.clarified[0].asked.as_str(), entry.clarified[0].reply.as_str()), ("For how many?", "Four"));
}

#[test]
fn a_failed_write_is_tried_again_with_the_next_change() {
    let mut journal = Journal::default();
    let chat = asked("c", &["q"]);
    assert!(journal.note(&chat, 1.0).is_some());
    journal.failed("c");
    assert!(journal.note(&chat, 2.0).is_some());
}

#[test]
fn a_question_lost_before_any_save_comes_back_as_a_new_chat_marked_interrupted() {
    let mut journal = Journal::default();
    let entry = journal.note(&asked("c", &["What is the capital of France?"]), 1.0).unwrap();
    // Through its stored text, as the next load reads it.
    let entry = entry_from_json(&entry_to_json(&entry)).unwrap();
    let chat = restore(None, &entry, &[]).expect("nothing stored: restored");
    assert_eq!(chat.id, "c");
    assert_eq!(chat.runs.len(), 1);
    assert_eq!(chat.runs[0].question, "What is the capital of France?");
    assert!(matches!(&chat.runs[0].outcome, Some(Outcome::Ended(why)) if why.contains("interrupted")));
    assert_eq!(chat.title(), "What is the capital of France?");
}

#[test]
fn a_question_lost_after_earlier_runs_were_stored_is_added_to_them() {
    let mut stored = asked("c", &["one"]);
    stored.end(0, Outcome::Answer("1".into()));
    let mut journal = Journal::default();
    let entry = journal.note(&asked("c", &["one", "two"]), 1.0).unwrap();
    let chat = restore(Some(stored.clone()), &entry, &[]).unwrap();
    assert_eq!(chat.runs.len(), 2);
    assert_eq!(chat.runs[0], stored.runs[0], "the earlier run is as it was");
    assert_eq!(chat.runs[1].question, "two");
    assert!(chat.running().is_none());
}

#[test]
fn a_record_the_database_already_holds_restores_nothing() {
    let mut journal = Journal::default();
    let chat = asked("c", &["one"]);
    let entry = journal.note(&chat, 1.0).unwrap();
    assert_eq!(restore(Some(chat.clone()), &entry, &[]), None);
    // The chat went on past that run (another tab): the record is older than what is stored.
    let mut further = chat.clone();
    further.end(0, Outcome::Asks("which?".into()));
    further.reply("this".into());
    further.ask("two".into());
    assert_eq!(restore(Some(further), &entry, &[]), None);
}

#[test]
fn replies_the_database_did_not_get_are_restored_into_their_run() {
    let mut chat = asked("c", &["book"]);
    chat.end(0, Outcome::Asks("How many?".into()));
    let stored = chat.clone();
    chat.reply("Four".into());
    let entry = Journal::default().note(&chat, 1.0).unwrap();
    let restored = restore(Some(stored), &entry, &[]).unwrap();
    assert_eq!(restored.runs.len(), 1);
    assert_eq!(restored.runs[0].clarified.len(), 1);
    assert!(matches!(&restored.runs[0].outcome, Some(Outcome::Ended(_))), "cut off after the reply");
}

#[test]
fn another_question_in_that_run_s_place_is_kept_beside_the_journaled_one() {
    let stored = asked("c", &["asked in another tab"]);
    let entry = Journal::default().note(&asked("c", &["asked here"]), 1.0).unwrap();
    let restored = restore(Some(stored), &entry, &[]).unwrap();
    let questions: Vec<_> = restored.runs.iter().map(|r| r.question.as_str()).collect();
    assert_eq!(questions, ["asked in another tab", "asked here"]);
}

#[test]
fn a_record_is_bounded_and_says_where_it_was_cut() {
    let long = "é".repeat(MAX_TEXT + 10);
    let mut chat = asked("c", &[&long]);
    chat.end(0, Outcome::Asks("?".into()));
    for i in 0..MAX_REPLIES + 5 {
        chat.reply(format!("reply {i}"));
        chat.end(0, Outcome::Asks("?".into()));
    }
    let entry = Journal::default().note(&chat, 1.0).unwrap();
    assert!(entry.question.starts_with(&"é".repeat(MAX_TEXT)));
    assert!(entry.question.contains("[Cut at"));
    assert!(!entry.question.starts_with(&"é".repeat(MAX_TEXT + 1)));
    assert_eq!(entry.clarified.len(), MAX_REPLIES);
    assert_eq!(entry.clarified.last().unwrap().reply, format!("reply {}", MAX_REPLIES + 4), "the latest replies are kept");
}

// Steps not stored yet when the page is hidden.

fn step(index: u32, kind: crate::agent::EventKind) -> crate::agent::Event {
    crate::agent::Event { index, step: 1, started_ms: index as f64, ended_ms: index as f64, kind }
}

fn thought(index: u32, text: &str) -> crate::agent::Event {
    step(index, crate::agent::EventKind::PersonAnswered { answer: text.into() })
}

/// The steps written ahead as the page does it while a run goes on (`ui/chats`).
fn kept(journal: &Journal, chat: &Conversation) -> Option<KeptSteps> {
    let (mark, from) = journal.steps_to_keep(chat)?;
    let text = bounded_events(&chat.runs[mark.run].events[from..mark.events], crate::storage::event::events_json);
    Some(KeptSteps { mark, text })
}

#[test]
fn steps_not_stored_when_the_page_is_hidden_are_journaled_once_and_come_back_after_the_stored_ones() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["q"]);
    journal.note(&chat, 1.0).unwrap();
    chat.record(0, thought(0, "first"));
    // The question and the first step were stored; two more steps were not.
    let stored = chat.clone();
    assert_eq!(journal.stored(&Mark::of(&stored).unwrap()), Some("c".into()));
    chat.record(0, thought(0, "second"));
    chat.record(0, thought(0, "third"));
    let entry = journal.unsaved(&chat, 2.0, kept(&journal, &chat).as_ref()).expect("unstored steps are journaled");
    assert_eq!(journal.unsaved(&chat, 3.0, kept(&journal, &chat).as_ref()), None, "once");
    assert_eq!(journal.steps_to_keep(&chat), None, "nothing more to write ahead");
    assert_eq!(through_text_of(&entry.events).len(), 2, "only the steps no save holds");
    let entry = entry_from_json(&entry_to_json(&entry)).unwrap();
    let value: serde_json::Value = serde_json::from_str(&entry.events).unwrap();
    let events = crate::storage::trace_read::events(&value).unwrap();
    let restored = restore(Some(stored), &entry, &events).expect("steps the database lacks");
    let run = &restored.runs[0];
    let answers: Vec<_> = run.events.iter().filter_map(|e| match &e.kind {
        crate::agent::EventKind::PersonAnswered { answer } => Some(answer.as_str()),
        _ => None,
    }).collect();
    assert_eq!(answers, ["first", "second", "third"], "each once, in order");
    assert!(run.events.iter().enumerate().all(|(i, e)| e.index as usize == i), "numbered in order");
    assert!(matches!(&run.outcome, Some(Outcome::Ended(why)) if why.contains("interrupted")));
}

#[test]
fn a_hidden_page_whose_steps_are_all_stored_writes_nothing() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["q"]);
    chat.record(0, thought(0, "one"));
    journal.loaded(&chat);
    assert_eq!(journal.steps_to_keep(&chat), None, "as read from the database");
    chat.record(0, thought(0, "two"));
    let ahead = kept(&journal, &chat);
    // A step recorded after the text was written ahead: the record holds what the text holds.
    chat.record(0, thought(0, "three"));
    let entry = journal.unsaved(&chat, 2.0, ahead.as_ref()).unwrap();
    assert_eq!(through_text_of(&entry.events).len(), 1);
    // A save holding them clears the record, and the next hiding writes nothing.
    assert_eq!(journal.stored(&Mark::of(&chat).unwrap()), Some("c".into()));
    assert_eq!(journal.unsaved(&chat, 3.0, kept(&journal, &chat).as_ref()), None);
    // Text written ahead for another run is not this run's.
    chat.ask("next".into());
    chat.record(1, thought(0, "other"));
    assert_eq!(journal.unsaved(&chat, 4.0, ahead.as_ref()), None);
}

#[test]
fn a_run_whose_last_step_ended_it_comes_back_ended_as_it_did() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["q"]);
    chat.record(0, step(0, crate::agent::EventKind::FinalAnswer { answer: "42".into(), source: crate::agent::trace::AnswerSource::Model }));
    chat.record(0, step(0, crate::agent::EventKind::RunStopped { reason: crate::agent::trace::StopReason::Answered, message: String::new() }));
    let entry = journal.unsaved(&chat, 1.0, kept(&journal, &chat).as_ref()).unwrap();
    let restored = restore(None, &entry, &through_text_of(&entry.events)).unwrap();
    assert_eq!(restored.runs[0].outcome, Some(Outcome::Answer("42".into())));
    assert_eq!(restored.runs[0].events.len(), 2, "not marked interrupted");
}

#[test]
fn a_record_keeps_the_latest_steps_that_fit_its_bound() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["q"]);
    let big = "x".repeat(MAX_EVENTS_BYTES / 6);
    for i in 0..12 {
        chat.record(0, thought(0, &format!("{i} {big}")));
    }
    let entry = journal.unsaved(&chat, 1.0, kept(&journal, &chat).as_ref()).unwrap();
    assert!(entry.events.len() <= MAX_EVENTS_BYTES, "{}", entry.events.len());
    let events = through_text_of(&entry.events);
    assert!(!events.is_empty() && events.len() < 12);
    assert_eq!(events.last().unwrap().index, 11, "the latest are kept");
}

fn through_text_of(text: &str) -> Vec<crate::agent::Event> {
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    crate::storage::trace_read::events(&value).unwrap()
}

#[test]
fn once_a_save_holds_the_question_the_run_s_steps_write_no_record_of_it() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["q"]);
    assert!(journal.note(&chat, 1.0).is_some());
    assert_eq!(journal.stored(&Mark::of(&chat).unwrap()), Some("c".into()));
    chat.record(0, thought(0, "a step"));
    assert_eq!(journal.note(&chat, 2.0), None, "the question is stored: no record again at each step");
    // A reply is new, and is journaled.
    chat.end(0, Outcome::Asks("?".into()));
    chat.reply("yes".into());
    assert!(journal.note(&chat, 3.0).is_some());
}

#[test]
fn a_run_that_failed_as_the_page_went_away_comes_back_cut_off_with_its_steps() {
    let mut journal = Journal::default();
    let mut chat = asked("c", &["q"]);
    chat.record(0, thought(0, "a step"));
    // Going away cut the model request off: the run failed on that just before the page went.
    chat.record(0, step(0, crate::agent::EventKind::RunStopped { reason: crate::agent::trace::StopReason::ModelFailed, message: "Could not reach the model.".into() }));
    let entry = journal.unsaved(&chat, 1.0, kept(&journal, &chat).as_ref()).unwrap();
    let restored = restore(None, &entry, &through_text_of(&entry.events)).unwrap();
    assert!(matches!(&restored.runs[0].outcome, Some(Outcome::Ended(why)) if why.contains("interrupted")), "{:?}", restored.runs[0].outcome);
    assert_eq!(restored.runs[0].events.len(), 3, "its steps, then the mark");
}
