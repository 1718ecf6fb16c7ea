use super::chats::{LegacyChat, ReadChat, StoredMessage, StoredWho};
use super::store::{self, Backend, Opened, Record, Stored};
use super::writer::ChatWriter;
use super::*;
use crate::conversation::{Conversation, Outcome};
use crate::agent::LocalBoxFuture;
use std::cell::RefCell;
use std::collections::BTreeMap;

fn ev(index: u32, kind: crate::agent::EventKind) -> crate::agent::Event {
    crate::agent::Event { index, step: index.min(1), started_ms: index as f64, ended_ms: index as f64 + 0.5, kind }
}

fn started(question: &str) -> crate::agent::EventKind {
    crate::agent::EventKind::RunStarted { question: question.into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0, strategy: Default::default(), continues: false, model: Default::default() }
}

/// A conversation of `n` answered runs, each with a few events, and its id.
pub(crate) fn conversation(id: &str, n: usize) -> Conversation {
    use crate::agent::trace::{AnswerSource, EventKind, StopReason};
    let mut c = Conversation::new(id.into());
    for r in 0..n {
        let run = c.ask(format!("Question {r}?"));
        c.record(run, ev(0, started(&format!("Question {r}?"))));
        c.record(run, ev(0, EventKind::ToolResult { tool: "calculator".into(), observation: format!("{r} \"quoted\" é") }));
        c.record(run, ev(0, EventKind::FinalAnswer { answer: format!("Answer {r}"), source: AnswerSource::Model }));
        c.record(run, ev(0, EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() }));
        c.end(run, Outcome::Answer(format!("Answer {r}")));
    }
    c
}

#[test]
fn exported_conversations_round_trip_every_run() {
    let mut chat = conversation("c1", 3);
    // The resources attached to a question are part of its run.
    chat.runs[1].attached = vec![crate::conversation::Attached { name: "Today's note".into(), uri: "note://today".into(), server: "http://127.0.0.1:9/mcp".into() }];
    let json = export_chat(&chat, &ExportedSettings::default(), 1000.0);
    assert!(json.contains(&format!("\"app_version\":\"{}\"", env!("CARGO_PKG_VERSION"))), "{json}");
    let back = import_chat(&json).unwrap();
    assert_eq!(back.runs, chat.runs, "every run, with its steps");
    assert_eq!(back.title(), "Question 0?");
    assert!(back.id.is_empty(), "the page gives an imported chat an id of its own");
}

#[test]
fn importing_something_else_says_what_is_wrong() {
    assert!(import_chat("nope").unwrap_err().contains("not a JSON object"));
    assert!(import_chat("{\"a\": 1}").unwrap_err().contains("not a Thoughtline export"));
    assert!(import_chat(r#"{"format": "thoughtline.run", "version": 99}"#).unwrap_err().contains("newer"));
    assert!(import_chat(r#"{"format": "thoughtline.run", "version": 1}"#).unwrap_err().contains("damaged"));
    assert!(import_chat(r#"{"format": "thoughtline.run", "version": 3}"#).unwrap_err().contains("damaged"));
}

#[test]
fn a_single_run_export_opens_as_a_one_run_chat() {
    use crate::agent::trace::{AnswerSource, EventKind, StopReason};
    let events = vec![
        ev(0, started("Who?")),
        ev(1, EventKind::FinalAnswer { answer: "Ada".into(), source: AnswerSource::Model }),
        ev(2, EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() }),
    ];
    let trace = event::trace_json(&crate::agent::Trace { events: events.clone() });
    let file = format!(r#"{{"format":"thoughtline.run","version":2,"exported_unix_ms":1,"question":"Who?","answer":"Ada","settings":{{}},"trace":{trace}}}"#);
    let chat = import_chat(&file).unwrap();
    assert_eq!(chat.runs.len(), 1);
    assert_eq!(chat.runs[0].question, "Who?");
    assert_eq!(chat.runs[0].events, events);
    assert_eq!(chat.runs[0].outcome, Some(Outcome::Answer("Ada".into())));
    assert!(chat.runs[0].steps_kept);
}

#[test]
fn a_chat_saved_while_running_by_the_last_release_reads_as_its_runs() {
    // As the previous release wrote it: messages, the last run's trace, the running flag.
    let legacy = LegacyChat {
        id: "a".into(),
        messages: vec![m(StoredWho::User, "q1"), m(StoredWho::Assistant, "a1"), m(StoredWho::User, "q2")],
        trace: vec![ev(0, started("q2"))],
        running: true,
        ..Default::default()
    };
    let json = serde_json::to_string(&legacy).unwrap();
    let ReadChat::Chat { mut chat, current, .. } = chats::read_chat("a", &json, &BTreeMap::new()) else { panic!() };
    assert!(!current, "an older version's record: written anew with the next change");
    assert_eq!(chat.runs.len(), 2);
    assert!(!chat.runs[0].steps_kept && chat.runs[1].steps_kept);
    assert_eq!(chat.running(), Some(1));
    assert!(chat.mark_interrupted());
    assert!(!chat.mark_interrupted(), "marked once");
    assert!(matches!(chat.runs[1].events.last().unwrap().kind, crate::agent::EventKind::RunStopped { reason: crate::agent::StopReason::Interrupted, .. }));
}

fn m(who: StoredWho, text: &str) -> StoredMessage {
    StoredMessage { who, text: text.into() }
}

fn read(id: &str, stored: &Stored) -> ReadChat {
    chats::read_chat(id, &stored.body, &stored.parts)
}

#[test]
fn a_chat_with_one_bad_event_or_record_keeps_the_rest() {
    let chat = conversation("c1", 2);
    let mut stored = stored_whole(&chat);
    // One event of run 2 damaged: that event is left out, and the note says where.
    let chunk = chats::chunk_key("c1", 1, 0);
    let damaged = stored.parts[&chunk].replacen("\"tool_result\"", "\"robot\"", 1);
    stored.parts.insert(chunk, damaged);
    match read("c1", &stored) {
        ReadChat::Chat { chat: back, note, current } => {
            assert!(current);
            assert_eq!(back.runs[0], chat.runs[0]);
            assert_eq!(back.runs[1].events.len(), chat.runs[1].events.len() - 1);
            assert!(note.unwrap().contains("run 2"));
        }
        other => panic!("{other:?}"),
    }
    // A run record missing: that run says it could not be read; the others are whole.
    stored.parts.remove(&chats::run_key("c1", 0));
    let ReadChat::Chat { chat: back, note, .. } = read("c1", &stored) else { panic!() };
    assert!(!back.runs[0].steps_kept && back.runs[1].question == "Question 1?");
    assert!(note.unwrap().contains("run 1"));
    assert!(matches!(chats::read_chat("x", "{{{", &BTreeMap::new()), ReadChat::Unreadable { .. }));
    assert!(matches!(chats::read_chat("x", r#"{"version": 99, "id": "x"}"#, &BTreeMap::new()), ReadChat::Unreadable { reason } if reason.contains("newer")));
}

/// Everything a save of the whole of `chat` stores.
#[test]
fn a_run_s_attached_resources_are_stored_with_it_and_read_back() {
    let mut chat = conversation("c1", 1);
    let attached = vec![
        crate::conversation::Attached { name: "Today's note".into(), uri: "note://today".into(), server: "http://127.0.0.1:9/mcp".into() },
        crate::conversation::Attached { name: "logo".into(), uri: "file://logo.png".into(), server: "http://127.0.0.1:9/mcp".into() },
    ];
    chat.ask_with("With resources?".into(), attached.clone());
    match read("c1", &stored_whole(&chat)) {
        ReadChat::Chat { chat: back, .. } => {
            assert_eq!(back.runs[1].attached, attached);
            assert!(back.runs[0].attached.is_empty());
            assert_eq!(back.messages().iter().find(|m| m.run == 1).unwrap().attached, ["Today's note", "logo"]);
        }
        other => panic!("{other:?}"),
    }
}

fn stored_whole(chat: &Conversation) -> Stored {
    let batch = ChatWriter::default().batch(chat, 1.0);
    Stored { body: batch.record.body.clone(), parts: batch.record.parts.iter().cloned().collect() }
}

/// A chat store in memory; `full` makes every write fail as a full browser storage would.
/// Heads and the records beside them share one map, as in IndexedDB's `bodies`.
#[derive(Default)]
pub(crate) struct Memory {
    summaries: RefCell<BTreeMap<String, String>>,
    bodies: RefCell<BTreeMap<String, String>>,
    pub full: std::cell::Cell<bool>,
    /// Bytes of every `put`, in order.
    pub written: RefCell<Vec<usize>>,
}

impl Backend for Memory {
    fn summaries(&self) -> LocalBoxFuture<'_, Result<Vec<(String, String)>, StorageError>> {
        Box::pin(async move { Ok(self.summaries.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()) })
    }
    fn chat<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<Stored>, StorageError>> {
        Box::pin(async move {
            let bodies = self.bodies.borrow();
            let Some(body) = bodies.get(id).cloned() else { return Ok(None) };
            let prefix = format!("{id}/");
            let parts = bodies.range(prefix.clone()..).take_while(|(k, _)| k.starts_with(&prefix)).map(|(k, v)| (k.clone(), v.clone())).collect();
            Ok(Some(Stored { body, parts }))
        })
    }
    fn put(&self, records: Vec<Record>) -> LocalBoxFuture<'_, Result<(), StorageError>> {
        Box::pin(async move {
            if self.full.get() {
                return Err(StorageError::from_dom("QuotaExceededError", "full"));
            }
            for r in records {
                let bytes = r.summary.len() + r.body.len() + r.parts.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
                self.written.borrow_mut().push(bytes);
                self.summaries.borrow_mut().insert(r.id.clone(), r.summary);
                self.bodies.borrow_mut().insert(r.id, r.body);
                self.bodies.borrow_mut().extend(r.parts);
            }
            Ok(())
        })
    }
    fn delete<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            self.summaries.borrow_mut().remove(id);
            let prefix = format!("{id}/");
            self.bodies.borrow_mut().retain(|k, _| k != id && !k.starts_with(&prefix));
            Ok(())
        })
    }
}

impl super::store::RecordStore for Memory {
    fn records<'a>(&'a self, prefix: &'a str) -> LocalBoxFuture<'a, Result<Vec<(String, String)>, StorageError>> {
        Box::pin(async move { Ok(self.bodies.borrow().iter().filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())).collect()) })
    }
    fn put_records(&self, records: Vec<(String, String)>) -> LocalBoxFuture<'_, Result<(), StorageError>> {
        Box::pin(async move {
            if self.full.get() {
                return Err(StorageError::from_dom("QuotaExceededError", "full"));
            }
            self.written.borrow_mut().push(records.iter().map(|(k, v)| k.len() + v.len()).sum());
            self.bodies.borrow_mut().extend(records);
            Ok(())
        })
    }
    fn delete_records<'a>(&'a self, prefix: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            self.bodies.borrow_mut().retain(|k, _| !k.starts_with(prefix));
            Ok(())
        })
    }
}

fn chat(id: &str, question: &str) -> Conversation {
    let mut c = Conversation::new(id.into());
    c.ask(question.into());
    c
}

#[test]
fn the_list_comes_from_the_store_newest_first_and_keeps_unreadable_chats() {
    let db = Memory::default();
    pollster::block_on(store::save(&db, &chat("a", "First?"), 1.0)).unwrap();
    pollster::block_on(store::save(&db, &chat("b", "Second?"), 2.0)).unwrap();
    db.summaries.borrow_mut().insert("broken".into(), "{not json".into());
    db.bodies.borrow_mut().insert("broken".into(), "{not json".into());
    let list = pollster::block_on(store::list(&db)).unwrap();
    let ids: Vec<&str> = list.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "broken"]);
    assert!(list[2].problem.is_some());
    match pollster::block_on(store::open(&db, "broken")).unwrap() {
        Opened::Unreadable { raw, .. } => assert_eq!(raw, "{not json"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(pollster::block_on(store::open(&db, "a")).unwrap(), Opened::Chat { chat, note: None, current: true } if chat.title() == "First?"));
    assert_eq!(pollster::block_on(store::open(&db, "zzz")).unwrap(), Opened::Missing);
}

#[test]
fn a_failed_save_is_an_error_and_changes_nothing() {
    let db = Memory::default();
    pollster::block_on(store::save(&db, &chat("a", "First?"), 1.0)).unwrap();
    db.full.set(true);
    let mut changed = chat("a", "First?");
    changed.end(0, Outcome::Answer("answer".into()));
    changed.ask("Second?".into());
    // The open chat's writer: a failed save marks nothing written, so the next one writes it all.
    let writer = RefCell::new(ChatWriter::default());
    let batch = writer.borrow().batch(&changed, 2.0);
    let err = pollster::block_on(store::save_changes(&db, &writer, batch)).unwrap_err();
    assert_eq!(err.kind, StorageErrorKind::Full);
    assert!(err.to_string().contains("delete old chats"), "{err}");
    assert!(matches!(pollster::block_on(store::open(&db, "a")).unwrap(), Opened::Chat { chat, .. } if chat.messages().len() == 1));
    db.full.set(false);
    let batch = writer.borrow().batch(&changed, 3.0);
    pollster::block_on(store::save_changes(&db, &writer, batch)).unwrap();
    assert!(matches!(pollster::block_on(store::open(&db, "a")).unwrap(), Opened::Chat { chat, .. } if chat == changed));
}

/// The chats of the release before IndexedDB, exactly as it wrote them (`localStorage`,
/// one key per chat and an index), including a full request in the trace.
const LEGACY_CHAT: &str = r#"{"version":1,"id":"l1","title":"Who is Ada?","messages":[{"who":"user","text":"Who is Ada?"},{"who":"assistant","text":"A mathematician."}],"trace":[{"index":0,"step":0,"started_ms":0.0,"ended_ms":0.0,"kind":{"run_started":{"question":"Who is Ada?","tools":["wikipedia"],"history_turns":0,"started_unix_ms":1700000000000.0,"strategy":"react"}}},{"index":1,"step":1,"started_ms":0.1,"ended_ms":0.1,"kind":{"llm_request":{"purpose":"step","request":{"messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"Who is Ada?"}],"stop":["Observation:"],"temperature":0.0}}}},{"index":2,"step":1,"started_ms":0.1,"ended_ms":5.0,"kind":{"final_answer":{"answer":"A mathematician.","source":"model"}}},{"index":3,"step":1,"started_ms":5.0,"ended_ms":5.0,"kind":{"run_stopped":{"reason":"answered","message":"done"}}}],"running":false}"#;

fn plant_legacy(index: &str) {
    for key in local::keys() {
        local::remove(&key);
    }
    local::write("thoughtline.chats", index).unwrap();
    local::write("thoughtline.chat.l1", LEGACY_CHAT).unwrap();
    local::write("thoughtline.chat.l2", "{damaged").unwrap();
    local::write("thoughtline.settings", "{}").unwrap();
}

#[test]
fn old_chats_move_into_the_store_and_only_then_leave_local_storage() {
    plant_legacy(r#"[{"id":"l1","title":"Who is Ada?","updated_unix_ms":5.0}]"#);
    assert!(store::has_legacy());
    let db = Memory::default();
    db.full.set(true);
    assert!(pollster::block_on(store::migrate_legacy(&db, 10.0)).is_err());
    assert!(local::read("thoughtline.chat.l1").is_some(), "nothing is removed when the move failed");
    assert!(local::read("thoughtline.chats").is_some());
    db.full.set(false);
    assert_eq!(pollster::block_on(store::migrate_legacy(&db, 10.0)).unwrap(), 2);
    assert_eq!(local::read("thoughtline.chat.l1"), None);
    assert_eq!(local::read("thoughtline.chats"), None);
    assert!(local::read("thoughtline.settings").is_some(), "settings stay where they are");
    assert!(!store::has_legacy(), "nothing left to move: the page fetches no code to move it");
    local::write("thoughtline.chat.", "{}").unwrap();
    assert!(!store::has_legacy(), "a key without a chat id is not a chat");
    local::write("thoughtline.chats", "[]").unwrap();
    assert!(store::has_legacy(), "an index alone is moved (removed) too");
    local::remove("thoughtline.chats");
    local::remove("thoughtline.chat.");
    let list = pollster::block_on(store::list(&db)).unwrap();
    assert_eq!(list.iter().map(|c| c.title.as_str()).collect::<Vec<_>>(), ["Who is Ada?", "Chat that could not be read"]);
    assert_eq!(list[0].updated_unix_ms, 1700000000000.0, "ordered by the time of its last run");
    match pollster::block_on(store::open(&db, "l1")).unwrap() {
        Opened::Chat { chat, note, current } => {
            assert_eq!((note, current), (None, false));
            assert_eq!(chat.messages()[1].text, "A mathematician.");
            assert_eq!(chat.runs[0].events.len(), 4);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(pollster::block_on(store::open(&db, "l2")).unwrap(), Opened::Unreadable { raw, .. } if raw == "{damaged"));
}

#[test]
fn a_damaged_old_index_orphans_nothing_and_a_repeated_move_overwrites_nothing() {
    plant_legacy("{not an index");
    let db = Memory::default();
    let mut newer = chat("l1", "Who is Ada?");
    newer.end(0, Outcome::Answer("Changed since the move".into()));
    pollster::block_on(store::save(&db, &newer, 20.0)).unwrap();
    assert_eq!(pollster::block_on(store::migrate_legacy(&db, 30.0)).unwrap(), 1, "only l2 is new");
    assert!(matches!(pollster::block_on(store::open(&db, "l1")).unwrap(), Opened::Chat { chat, .. } if chat.messages()[1].text == "Changed since the move"));
    assert_eq!(local::read("thoughtline.chat.l1"), None);
    let list = pollster::block_on(store::list(&db)).unwrap();
    assert_eq!(list.len(), 2);
}

#[test]
fn tab_news_is_plain_text_and_anything_else_is_ignored() {
    use super::tabs::TabNews;
    for news in [TabNews::Saved { id: "a:b".into() }, TabNews::Deleted { id: "x".into() }] {
        assert_eq!(TabNews::from_text(&news.to_text()), Some(news));
    }
    assert_eq!(TabNews::from_text("renamed:x"), None);
    assert_eq!(TabNews::from_text("nonsense"), None);
}

/// A conversation that asked the person a question, as the release before the renames wrote
/// it: `clarify`, `person_replied` with `reply`, `needs_input`, `parsed`, a `clarify` message
/// and the `ask_clarifying` setting.
const ASKED_BEFORE_THE_RENAMES: &str = r#"[
 {"index":0,"step":0,"started_ms":0,"ended_ms":0,"kind":{"run_started":{"question":"Population?","tools":["wikipedia"],"history_turns":0,"started_unix_ms":1}}},
 {"index":1,"step":1,"started_ms":0,"ended_ms":0,"kind":{"parsed":{"thought":"Which city?","decision":{"action":{"tool":"ask_person","input":"Which city?"}}}}},
 {"index":2,"step":1,"started_ms":0,"ended_ms":0,"kind":{"clarify":{"question":"Which city?"}}},
 {"index":3,"step":1,"started_ms":0,"ended_ms":0,"kind":{"run_stopped":{"reason":"needs_input","message":"Waiting for your answer"}}},
 {"index":4,"step":1,"started_ms":0,"ended_ms":0,"kind":{"person_replied":{"reply":"Oslo"}}}
]"#;

fn asked_and_answered() -> Vec<crate::agent::Event> {
    use crate::agent::trace::{Decision, Event, EventKind, StopReason};
    let event = |index: u32, kind: EventKind| Event { index, step: u32::from(index > 0), started_ms: 0.0, ended_ms: 0.0, kind };
    vec![
        event(0, EventKind::RunStarted { question: "Population?".into(), tools: vec!["wikipedia".into()], history_turns: 0, started_unix_ms: 1.0, strategy: Default::default(), continues: false, model: Default::default() }),
        event(1, EventKind::Decided { thought: Some("Which city?".into()), decision: Decision::Action { tool: "ask_person".into(), input: "Which city?".into() }, notes: vec![] }),
        event(2, EventKind::AskedPerson { question: "Which city?".into() }),
        event(3, EventKind::RunStopped { reason: StopReason::AskedPerson, message: "Waiting for your answer".into() }),
        event(4, EventKind::PersonAnswered { answer: "Oslo".into() }),
    ]
}

#[test]
fn chats_and_exports_written_before_the_renames_still_read() {
    use crate::agent::trace::EventKind;
    let chat = format!(
        r#"{{"version":2,"id":"c1","title":"Population?","messages":[{{"who":"user","text":"Population?"}},{{"who":"clarify","text":"Which city?"}}],"trace":{ASKED_BEFORE_THE_RENAMES}}}"#
    );
    let ReadChat::Chat { chat, note, .. } = chats::read_chat("c1", &chat, &BTreeMap::new()) else { panic!("the old chat does not read") };
    assert_eq!(note, None, "nothing was dropped");
    assert_eq!(chat.messages()[1].who, crate::conversation::Who::AskedPerson);
    // Event by event, so a failure names the one that changed.
    let want = asked_and_answered();
    let events = &chat.runs[0].events;
    for (got, want) in events.iter().zip(&want) {
        assert_eq!(got, want);
    }
    assert_eq!(events.len(), want.len());

    let export = format!(
        r#"{{"format":"thoughtline.run","version":2,"exported_unix_ms":1,"question":"Population?","answer":null,"settings":{{"agent":{{"ask_clarifying":false}}}},"trace":{{"events":{ASKED_BEFORE_THE_RENAMES}}}}}"#
    );
    let run = &import_chat(&export).unwrap().runs[0];
    assert_eq!(run.events, want);
    assert!(matches!(run.events[2].kind, EventKind::AskedPerson { .. }));
    assert_eq!(run.clarified, vec![crate::conversation::Clarification { asked: "Which city?".into(), reply: "Oslo".into() }]);
}

#[test]
fn renamed_kinds_are_written_under_their_first_tags() {
    // Written as before, so a tab still on the previous release reads this release's chats
    // and exports whole (it would drop events it cannot read, and could then save the chat
    // without them).
    let written = event::events_json(&asked_and_answered());
    for tag in ["\"parsed\"", "\"clarify\"", "\"needs_input\"", "\"person_replied\"", "\"reply\""] {
        assert!(written.contains(tag), "{tag} in {written}");
    }
    let mut stored = settings::StoredSettings::default();
    stored.agent.ask_person = false;
    assert!(settings::to_json(&stored).contains("\"ask_clarifying\":false"));
    assert_eq!(serde_json::to_string(&StoredWho::AskedPerson).unwrap(), "\"clarify\"");
}

/// A chat whose second run has two branches, the second made from the first, one shown.
pub(crate) fn branched() -> Conversation {
    use crate::agent::fork::{Change, ForkSettings};
    use crate::conversation::ForkAsk;
    let mut chat = conversation("c1", 2);
    let ask = |event: usize, text: &str| ForkAsk {
        event,
        change: Change::Observation { tool: "calculator".into(), text: text.into() },
        settings: ForkSettings::Run,
        model: crate::agent::ModelName { provider: "openai".into(), model: "m".into() },
        strategy: Default::default(),
    };
    chat.fork(1, ask(1, "seven")).unwrap();
    chat.record(1, ev(0, crate::agent::EventKind::FinalAnswer { answer: "7".into(), source: crate::agent::trace::AnswerSource::Model }));
    chat.end(1, Outcome::Answer("7".into()));
    chat.fork(1, ask(1, "eight")).unwrap();
    chat.end(1, Outcome::Answer("8".into()));
    chat
}

#[test]
fn branches_are_stored_as_their_own_steps_and_read_back_whole() {
    let chat = branched();
    let stored = stored_whole(&chat);
    assert!(stored.body.contains("\"version\":4"), "a chat with branches is version 4: {}", stored.body);
    // Only a branch's own steps are stored: the shared ones are not written twice.
    let own = &stored.parts[&chats::line_chunk_key("c1", 1, 1, 0)];
    assert!(own.starts_with("[{\"index\":1,") && own.contains("\"forked\"") && !own.contains("run_started"), "{own}");
    match read("c1", &stored) {
        ReadChat::Chat { chat: back, note, current } => {
            assert!(current && note.is_none(), "{note:?}");
            assert_eq!(back.runs, chat.runs, "every branch whole, and the one shown");
            assert_eq!(back.runs[1].shown_number(), 2);
        }
        other => panic!("{other:?}"),
    }
    // A chat without branches stays version 3, which the previous release reads.
    let plain = stored_whole(&conversation("c2", 1));
    assert!(plain.body.contains("\"version\":3"), "{}", plain.body);
    let summary = ChatWriter::default().batch(&conversation("c2", 1), 1.0).record.summary;
    assert!(summary.contains("\"version\":3"), "{summary}");
}

#[test]
fn a_save_writes_only_the_branch_that_grew() {
    let mut chat = branched();
    let mut writer = ChatWriter::default();
    let first = writer.batch(&chat, 1.0);
    writer.committed(&first);
    chat.show_branch(1, 0);
    chat.fork(1, crate::conversation::ForkAsk {
        event: 0,
        change: crate::agent::fork::Change::Question { text: "Another?".into() },
        settings: crate::agent::fork::ForkSettings::Now,
        model: Default::default(),
        strategy: Default::default(),
    })
    .unwrap();
    let next = writer.batch(&chat, 2.0);
    let keys: Vec<&str> = next.record.parts.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["c1/1", "c1/1/b3/0"], "the run's record and the new branch's first chunk");
}

/// `branched()`, stored, read back after its second run's record had `from` changed to `to`.
fn branched_read_with(from: &str, to: &str) -> (Conversation, Conversation, Option<String>) {
    let chat = branched();
    let mut stored = stored_whole(&chat);
    let key = chats::run_key("c1", 1);
    let record = stored.parts[&key].replacen(from, to, 1);
    assert_ne!(record, stored.parts[&key], "the test changes the record");
    stored.parts.insert(key, record);
    let ReadChat::Chat { chat: back, note, .. } = read("c1", &stored) else { panic!() };
    (chat, back, note)
}

#[test]
fn a_branch_that_cannot_stand_is_left_out_and_named() {
    // Branch 2 claims to fork past the end of the run.
    let (chat, back, note) = branched_read_with("\"at\":1", "\"at\":99");
    // It and the branch made from it are left out; the run as first asked is whole.
    assert_eq!(back.runs[1].lines(), 1);
    assert_eq!(back.runs[1].events, chat.runs[1].events);
    assert!(note.unwrap().contains("branch 2"));
}

#[test]
fn exports_carry_branches_and_read_back_whole() {
    let chat = branched();
    let json = export_chat(&chat, &ExportedSettings::default(), 1000.0);
    assert!(json.contains("\"version\":4") && json.contains("\"branches\""), "{json}");
    let back = import_chat(&json).unwrap();
    assert_eq!(back.runs, chat.runs);
    let plain = export_chat(&conversation("c2", 1), &ExportedSettings::default(), 1000.0);
    assert!(plain.contains("\"version\":3") && !plain.contains("branches"));
}

#[test]
fn a_record_claiming_billions_of_events_costs_only_the_records_there_are() {
    let (chat, back, note) = branched_read_with("\"events\":4", "\"events\":4000000000");
    assert_eq!(back.runs[1].events, chat.runs[1].events, "every event there is, read");
    assert!(note.unwrap().contains("run 2: events"));
}
