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
    assert_eq!(journal.stored(&Mark { chat: "c".into(), run: 0, replies: 0 }), Some("c".into()));
    chat.ask("second".into());
    let entry = journal.note(&chat, 30.0).unwrap();
    assert_eq!(entry.run, 1);
    assert_eq!(journal.stored(&Mark { chat: "c".into(), run: 0, replies: 0 }), None, "the save held only the first run");
    assert_eq!(journal.stored(&Mark { chat: "other".into(), run: 5, replies: 0 }), None);
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
    let chat = restore(None, &entry).expect("nothing stored: restored");
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
    let chat = restore(Some(stored.clone()), &entry).unwrap();
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
    assert_eq!(restore(Some(chat.clone()), &entry), None);
    // The chat went on past that run (another tab): the record is older than what is stored.
    let mut further = chat.clone();
    further.end(0, Outcome::Asks("which?".into()));
    further.reply("this".into());
    further.ask("two".into());
    assert_eq!(restore(Some(further), &entry), None);
}

#[test]
fn replies_the_database_did_not_get_are_restored_into_their_run() {
    let mut chat = asked("c", &["book"]);
    chat.end(0, Outcome::Asks("How many?".into()));
    let stored = chat.clone();
    chat.reply("Four".into());
    let entry = Journal::default().note(&chat, 1.0).unwrap();
    let restored = restore(Some(stored), &entry).unwrap();
    assert_eq!(restored.runs.len(), 1);
    assert_eq!(restored.runs[0].clarified.len(), 1);
    assert!(matches!(&restored.runs[0].outcome, Some(Outcome::Ended(_))), "cut off after the reply");
}

#[test]
fn another_question_in_that_run_s_place_is_kept_beside_the_journaled_one() {
    let stored = asked("c", &["asked in another tab"]);
    let entry = Journal::default().note(&asked("c", &["asked here"]), 1.0).unwrap();
    let restored = restore(Some(stored), &entry).unwrap();
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
