use super::store::{self, Backend, Opened, Record};
use super::*;
use crate::agent::LocalBoxFuture;
use std::cell::RefCell;
use std::collections::BTreeMap;

fn with_key(remember: bool) -> Settings {
    let mut s = Settings::default();
    s.provider.api_key = "sk-live-abc".into();
    s.provider.model = "my-model".into();
    s.remember_key = remember;
    s.agent.temperature = 0.7;
    s
}

#[test]
fn key_is_not_stored_unless_remembered() {
    let json = settings_to_json(&with_key(false));
    assert!(!json.contains("sk-live-abc"), "{json}");
    let back = settings_from_json(&json);
    assert_eq!(back.provider.api_key, "");
    assert_eq!(back.provider.model, "my-model");
    assert_eq!(back.agent.temperature, 0.7);
}

#[test]
fn key_round_trips_when_remembered() {
    let s = with_key(true);
    assert_eq!(settings_from_json(&settings_to_json(&s)), s);
}

#[test]
fn exported_runs_round_trip_without_the_key() {
    use crate::agent::trace::{Event, EventKind, StopReason};
    let events = vec![
        Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::RunStarted { question: "Who?".into(), tools: vec![], history_turns: 0, started_unix_ms: 1.0, strategy: Default::default(), continues: false } },
        Event { index: 1, step: 1, started_ms: 1.0, ended_ms: 2.5, kind: EventKind::FinalAnswer { answer: "Ada".into(), source: crate::agent::trace::AnswerSource::Model } },
        Event { index: 2, step: 1, started_ms: 2.5, ended_ms: 2.5, kind: EventKind::RunStopped { reason: StopReason::Answered, message: "done".into() } },
    ];
    let trace = crate::agent::Trace { events };
    let json = export_run(&trace, &with_key(true), 1000.0);
    assert!(!json.contains("sk-live-abc"), "{json}");
    let back = import_run(&json).unwrap();
    assert_eq!(back.trace, trace);
    assert_eq!(back.question, "Who?");
    assert_eq!(back.answer.as_deref(), Some("Ada"));
    assert_eq!(back.settings.model, "my-model");
}

#[test]
fn importing_something_else_says_what_is_wrong() {
    assert!(import_run("nope").unwrap_err().contains("not a JSON object"));
    assert!(import_run("{\"a\": 1}").unwrap_err().contains("not a Thoughtline run export"));
    assert!(import_run(r#"{"format": "thoughtline.run", "version": 99}"#).unwrap_err().contains("newer"));
    assert!(import_run(r#"{"format": "thoughtline.run", "version": 1}"#).unwrap_err().contains("damaged"));
}

fn m(who: StoredWho, text: &str) -> StoredMessage {
    StoredMessage { who, text: text.into() }
}

#[test]
fn titles_come_from_the_first_question() {
    assert_eq!(chat_title(&[]), "New chat");
    assert_eq!(chat_title(&[m(StoredWho::User, "Who is Ada?\nMore detail")]), "Who is Ada?");
    let long = "Which were the most relevant publications about attention layers in neural networks in 2020?";
    assert_eq!(chat_title(&[m(StoredWho::User, long)]), "Which were the most relevant publications about attention…");
}

#[test]
fn an_interrupted_run_is_marked_once() {
    let mut chat = StoredChat { id: "a".into(), running: true, messages: vec![m(StoredWho::User, "q")], ..Default::default() };
    assert!(mark_interrupted(&mut chat));
    assert!(!chat.running);
    assert_eq!(chat.messages.last().unwrap().who, StoredWho::Problem);
    assert!(matches!(chat.trace.last().unwrap().kind, crate::agent::EventKind::RunStopped { reason: crate::agent::StopReason::Interrupted, .. }));
    assert!(!mark_interrupted(&mut chat));
    let back: StoredChat = serde_json::from_str(&serde_json::to_string(&chat).unwrap()).unwrap();
    assert_eq!(back, chat);
}

#[test]
fn garbage_falls_back_to_defaults() {
    assert_eq!(settings_from_json("{not json"), Settings::default());
    let partial = settings_from_json(r#"{"model": "x", "agent": {"max_iterations": 3}}"#);
    assert_eq!(partial.provider.model, "x");
    assert_eq!(partial.agent.max_iterations, 3);
    assert_eq!(partial.agent.observation_limit, 4000);
}

#[test]
fn one_unreadable_setting_costs_only_that_setting() {
    let mut s = with_key(true);
    s.agent.max_iterations = 7;
    s.connection.timeout_s = 33.0;
    let json = settings_to_json(&s);
    // A wrong type deep inside, and an enum value this release does not know.
    let damaged = json.replace("\"max_iterations\":7", "\"max_iterations\":\"seven\"").replace("\"strategy\":\"react\"", "\"strategy\":\"tree_of_thought\"");
    assert_ne!(damaged, json);
    let read = read_settings(&damaged);
    assert_eq!(read.settings.provider.api_key, "sk-live-abc", "the remembered key survives");
    assert_eq!(read.settings.provider.model, "my-model");
    assert_eq!(read.settings.connection.timeout_s, 33.0);
    assert_eq!(read.settings.agent.temperature, 0.7, "the neighbours of the bad field survive");
    assert_eq!(read.settings.agent.max_iterations, crate::agent::AgentSettings::default().max_iterations);
    assert_eq!(read.settings.agent.strategy, crate::agent::Strategy::React);
    assert_eq!(read.dropped, vec!["agent.max_iterations".to_string(), "agent.strategy".to_string()]);
    assert!(read.notice().unwrap().contains("agent.max_iterations"));
    assert!(!read.newer);
}

#[test]
fn settings_from_a_newer_release_are_used_but_flagged() {
    let json = settings_to_json(&with_key(true)).replace("\"version\":1", "\"version\":9");
    let read = read_settings(&json);
    assert!(read.newer);
    assert_eq!(read.settings.provider.model, "my-model");
    assert!(read.notice().unwrap().contains("newer version"));
}

#[test]
fn settings_writes_report_a_full_storage() {
    local::set_full(true);
    let result = save_settings(&Settings::default());
    local::set_full(false);
    assert_eq!(result.unwrap_err().kind, StorageErrorKind::Full);
    assert!(save_settings(&Settings::default()).is_ok());
}

#[test]
fn a_chat_with_one_bad_event_keeps_the_rest() {
    let chat = StoredChat {
        id: "c1".into(),
        title: "T".into(),
        messages: vec![m(StoredWho::User, "q"), m(StoredWho::Assistant, "a")],
        trace: vec![crate::agent::Event {
            index: 0,
            step: 1,
            started_ms: 0.0,
            ended_ms: 1.0,
            kind: crate::agent::EventKind::FinalAnswer { answer: "a".into(), source: crate::agent::trace::AnswerSource::Model },
        }],
        ..Default::default()
    };
    let json = serde_json::to_string(&chat).unwrap().replace("\"who\":\"assistant\"", "\"who\":\"robot\"");
    match chats::read_chat(&json) {
        chats::ReadChat::Chat { chat: back, note } => {
            assert_eq!(back.messages, vec![m(StoredWho::User, "q")]);
            assert_eq!(back.trace, chat.trace);
            assert!(note.unwrap().contains("messages[1]"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(chats::read_chat("{{{"), chats::ReadChat::Unreadable { .. }));
    assert!(matches!(chats::read_chat(r#"{"version": 99, "id": "x"}"#), chats::ReadChat::Unreadable { reason } if reason.contains("newer")));
}

/// A chat store in memory; `full` makes every write fail as a full browser storage would.
#[derive(Default)]
struct Memory {
    summaries: RefCell<BTreeMap<String, String>>,
    bodies: RefCell<BTreeMap<String, String>>,
    full: std::cell::Cell<bool>,
}

impl Backend for Memory {
    fn summaries(&self) -> LocalBoxFuture<'_, Result<Vec<(String, String)>, StorageError>> {
        Box::pin(async move { Ok(self.summaries.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()) })
    }
    fn body<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Option<String>, StorageError>> {
        Box::pin(async move { Ok(self.bodies.borrow().get(id).cloned()) })
    }
    fn put(&self, records: Vec<Record>) -> LocalBoxFuture<'_, Result<(), StorageError>> {
        Box::pin(async move {
            if self.full.get() {
                return Err(StorageError::from_dom("QuotaExceededError", "full"));
            }
            for r in records {
                self.summaries.borrow_mut().insert(r.id.clone(), r.summary);
                self.bodies.borrow_mut().insert(r.id, r.body);
            }
            Ok(())
        })
    }
    fn delete<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            self.summaries.borrow_mut().remove(id);
            self.bodies.borrow_mut().remove(id);
            Ok(())
        })
    }
}

fn chat(id: &str, question: &str) -> StoredChat {
    StoredChat { id: id.into(), title: title_from(question), messages: vec![m(StoredWho::User, question)], ..Default::default() }
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
    assert!(matches!(pollster::block_on(store::open(&db, "a")).unwrap(), Opened::Chat { chat, note: None } if chat.title == "First?"));
    assert_eq!(pollster::block_on(store::open(&db, "zzz")).unwrap(), Opened::Missing);
}

#[test]
fn a_failed_save_is_an_error_and_changes_nothing() {
    let db = Memory::default();
    pollster::block_on(store::save(&db, &chat("a", "First?"), 1.0)).unwrap();
    db.full.set(true);
    let mut changed = chat("a", "First?");
    changed.messages.push(m(StoredWho::Assistant, "answer"));
    let err = pollster::block_on(store::save(&db, &changed, 2.0)).unwrap_err();
    assert_eq!(err.kind, StorageErrorKind::Full);
    assert!(err.to_string().contains("delete old chats"), "{err}");
    assert!(matches!(pollster::block_on(store::open(&db, "a")).unwrap(), Opened::Chat { chat, .. } if chat.messages.len() == 1));
    db.full.set(false);
    pollster::block_on(store::save(&db, &changed, 3.0)).unwrap();
    assert!(matches!(pollster::block_on(store::open(&db, "a")).unwrap(), Opened::Chat { chat, .. } if chat.messages.len() == 2));
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
    let list = pollster::block_on(store::list(&db)).unwrap();
    assert_eq!(list.iter().map(|c| c.title.as_str()).collect::<Vec<_>>(), ["Who is Ada?", "Chat that could not be read"]);
    assert_eq!(list[0].updated_unix_ms, 1700000000000.0, "ordered by the time of its last run");
    match pollster::block_on(store::open(&db, "l1")).unwrap() {
        Opened::Chat { chat, note } => {
            assert_eq!(note, None);
            assert_eq!(chat.messages[1].text, "A mathematician.");
            assert_eq!(chat.trace.len(), 4);
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
    newer.messages.push(m(StoredWho::Assistant, "Changed since the move"));
    pollster::block_on(store::save(&db, &newer, 20.0)).unwrap();
    assert_eq!(pollster::block_on(store::migrate_legacy(&db, 30.0)).unwrap(), 1, "only l2 is new");
    assert!(matches!(pollster::block_on(store::open(&db, "l1")).unwrap(), Opened::Chat { chat, .. } if chat.messages[1].text == "Changed since the move"));
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

#[test]
fn mcp_secrets_are_stored_only_when_remembered_never_exported_and_masked() {
    use crate::tools::mcp::McpServer;
    let mut s = Settings::default();
    let server = |url: &str, secret: &str, remember| McpServer { url: url.into(), secret: secret.into(), remember_secret: remember, ..Default::default() };
    s.tools.mcp.servers = vec![server("https://a.test/mcp", "tok-kept-1", true), server("https://b.test/mcp", "tok-memory-2", false)];
    let json = settings_to_json(&s);
    assert!(json.contains("tok-kept-1") && !json.contains("tok-memory-2"), "{json}");
    let back = settings_from_json(&json);
    assert_eq!(back.tools.mcp.servers[0].secret, "tok-kept-1");
    assert_eq!(back.tools.mcp.servers[1].secret, "");
    assert_eq!(back.tools.mcp.servers[1].url, "https://b.test/mcp");
    let export = export_run(&crate::agent::Trace::default(), &s, 0.0);
    assert!(export.contains("https://a.test/mcp") && !export.contains("tok-kept-1") && !export.contains("tok-memory-2"), "{export}");
    let masked = crate::secrets::mask("server said tok-memory-2 and tok-kept-1", &crate::secrets::collect(&s));
    assert!(!masked.contains("tok-"), "{masked}");
}

mod trace_json {
    use crate::agent::{Event, EventKind};
    use crate::storage::chats::{read_chat, ReadChat};
    use crate::storage::trace_json::TraceJson;
    use crate::storage::{StoredChat, StoredMessage, StoredWho};

    fn event(index: u32, text: &str) -> Event {
        Event { index, step: 1, started_ms: index as f64, ended_ms: index as f64 + 0.5, kind: EventKind::ToolResult { tool: "wikipedia".into(), observation: text.into() } }
    }

    fn chat(trace: Vec<Event>) -> StoredChat {
        StoredChat {
            id: "c1".into(),
            title: "Growing \"run\"".into(),
            messages: vec![StoredMessage { who: StoredWho::User, text: "Why?\nBecause.".into() }],
            trace,
            running: true,
            ..Default::default()
        }
    }

    /// What a save writes is what the whole chat serialised reads back as, at every length.
    fn body_reads_as(cache: &TraceJson, events: &[Event]) {
        let head = chat(Vec::new());
        let ReadChat::Chat { chat: read, note } = read_chat(&cache.chat_body(&head)) else { panic!("unreadable body") };
        assert_eq!(note, None);
        assert_eq!(read, chat(events.to_vec()));
    }

    #[test]
    fn a_growing_trace_is_saved_as_the_whole_chat_would_be() {
        let mut events = Vec::new();
        let mut cache = TraceJson::default();
        cache.update("c1", &events);
        body_reads_as(&cache, &events);
        for i in 0..5 {
            events.push(event(i, &format!("observation {i} with \"quotes\" and é")));
            cache.update("c1", &events);
            body_reads_as(&cache, &events);
        }
        let head = chat(Vec::new());
        let whole = serde_json::to_string(&chat(events.clone())).unwrap();
        let written: serde_json::Value = serde_json::from_str(&cache.chat_body(&head)).unwrap();
        assert_eq!(written, serde_json::from_str::<serde_json::Value>(&whole).unwrap());
    }

    #[test]
    fn another_trace_is_serialised_from_its_start() {
        let mut cache = TraceJson::default();
        let first: Vec<Event> = (0..3).map(|i| event(i, "first run")).collect();
        cache.update("c1", &first);
        // A new run of the same chat: shorter, then longer than the last, never a continuation.
        let second: Vec<Event> = (0..2).map(|i| event(i, "second run")).collect();
        cache.update("c1", &second);
        body_reads_as(&cache, &second);
        let third: Vec<Event> = (0..6).map(|i| event(i, "third run")).collect();
        cache.update("c1", &third);
        body_reads_as(&cache, &third);
        cache.update("c1", &[]);
        body_reads_as(&cache, &[]);
        // Another chat whose trace ends with the same event at the same place (an import
        // opened twice) but differs before it: its text is its own from the start.
        let mut copy = third.clone();
        cache.update("c1", &third);
        copy[0].kind = EventKind::ToolResult { tool: "wikipedia".into(), observation: "another chat".into() };
        copy.push(event(6, "another chat"));
        cache.update("c2", &copy);
        body_reads_as(&cache, &copy);
    }
}

#[test]
fn structured_output_is_asked_for_only_where_the_api_takes_a_schema() {
    let mut s = Settings::default();
    assert!(!s.structured_output(), "off by default");
    s.agent.structured_output = true;
    assert!(s.structured_output(), "OpenAI takes a JSON schema");
    s.provider.preset = crate::llm::Preset::Anthropic;
    assert!(!s.structured_output(), "Anthropic's Messages API has no response_format");
    assert!(s.agent.structured_output_for(crate::agent::Strategy::React));
    assert!(!s.agent.structured_output_for(crate::agent::Strategy::PlanReact));
    // What a run with these settings does, as the Settings note and Compare say it.
    assert!(!s.uses_structured_output(), "not with Anthropic");
    s.provider.preset = crate::llm::Preset::OpenAi;
    s.agent.strategy = crate::agent::Strategy::React;
    assert!(s.uses_structured_output());
    s.agent.strategy = crate::agent::Strategy::ToolCalling;
    assert!(!s.uses_structured_output(), "ReAct only");
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
        event(0, EventKind::RunStarted { question: "Population?".into(), tools: vec!["wikipedia".into()], history_turns: 0, started_unix_ms: 1.0, strategy: Default::default(), continues: false }),
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
    let chats::ReadChat::Chat { chat, note } = chats::read_chat(&chat) else { panic!("the old chat does not read") };
    assert_eq!(note, None, "nothing was dropped");
    assert_eq!(chat.messages[1].who, StoredWho::AskedPerson);
    // Event by event, so a failure names the one that changed.
    let want = asked_and_answered();
    for (got, want) in chat.trace.iter().zip(&want) {
        assert_eq!(got, want);
    }
    assert_eq!(chat.trace.len(), want.len());

    let export = format!(
        r#"{{"format":"thoughtline.run","version":2,"exported_unix_ms":1,"question":"Population?","answer":null,"settings":{{"agent":{{"ask_clarifying":false}}}},"trace":{{"events":{ASKED_BEFORE_THE_RENAMES}}}}}"#
    );
    let run = import_run(&export).unwrap();
    assert_eq!(run.trace.events, want);
    assert!(!run.settings.agent.ask_person, "the old setting name is read");
    assert!(matches!(run.trace.events[2].kind, EventKind::AskedPerson { .. }));
}

#[test]
fn renamed_kinds_are_written_under_their_first_tags() {
    // Written as before, so a tab still on the previous release reads this release's chats
    // and exports whole (it would drop events it cannot read, and could then save the chat
    // without them).
    let written = serde_json::to_string(&asked_and_answered()).unwrap();
    for tag in ["\"parsed\"", "\"clarify\"", "\"needs_input\"", "\"person_replied\"", "\"reply\""] {
        assert!(written.contains(tag), "{tag} in {written}");
    }
    let mut settings = Settings::default();
    settings.agent.ask_person = false;
    assert!(settings_to_json(&settings).contains("\"ask_clarifying\":false"));
    assert_eq!(serde_json::to_string(&StoredWho::AskedPerson).unwrap(), "\"clarify\"");
}
