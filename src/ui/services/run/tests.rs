//! Tests of the run controller with a scripted model: what reaches the conversation (masked,
//! numbered after the events of a run it continues), what each change asks of storage, the
//! outcome read from the trace, and Stop.

use std::cell::RefCell;

use super::*;
use crate::agent::time::SystemClock;
use crate::agent::{ChatRequest, ChatResponse, LlmError, LlmErrorKind, LocalBoxFuture, Progress, StopReason};

const KEY: &str = "sk-test-0123456789abcdef0123";

/// Answers each call with the next reply, streaming its text first; records what it was sent.
struct Script {
    replies: RefCell<Vec<Result<&'static str, LlmError>>>,
    requests: RefCell<Vec<ChatRequest>>,
}

impl Script {
    fn new(mut replies: Vec<Result<&'static str, LlmError>>) -> Self {
        replies.reverse();
        Script { replies: RefCell::new(replies), requests: RefCell::default() }
    }
}

impl ChatModel for Script {
    fn complete<'a>(&'a self, request: &'a ChatRequest, progress: &'a dyn Fn(Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        self.requests.borrow_mut().push(request.clone());
        let reply = self.replies.borrow_mut().pop().unwrap_or(Ok("Final Answer: (script ran out)"));
        Box::pin(async move {
            let text = reply?;
            progress(Progress::Text(text));
            Ok(ChatResponse { text: text.to_string(), ..Default::default() })
        })
    }
}

fn settings() -> Settings {
    let mut settings = Settings::default();
    settings.provider.api_key = KEY.into();
    settings
}

fn masked(text: &str) -> String {
    mask(text, &crate::ui::services::secrets::collect(&settings()))
}

fn question(text: &str) -> Start {
    Start { settings: settings(), ask: Ask::Question(text.into()) }
}

/// A run controller over a new conversation, and what its changes asked of storage.
fn control() -> (RunControl, std::sync::Arc<std::sync::Mutex<Vec<Save>>>) {
    let saves = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = saves.clone();
    let mcp = crate::ui::services::mcp::install(RwSignal::new(Settings::default()));
    let control = RunControl::new(RwSignal::new(Conversation::new("c".into())), Some(Callback::new(move |save| seen.lock().unwrap().push(save))), mcp);
    (control, saves)
}

/// Starts `start` on `control` and drives it to its end with `model`, as the page does; the
/// outcome the conversation holds for that run.
fn run(control: RunControl, start: Start, model: &Script) -> Outcome {
    let job = control.begin(start);
    let at = job.run;
    assert!(control.running.get_untracked());
    let clock = SystemClock::default();
    let outcome = pollster::block_on(control.drive(job, Env { model, tools: &[], clock: &clock }));
    control.end(at, outcome);
    assert!(!control.running.get_untracked());
    control.chat.with_untracked(|c| c.runs[at].outcome.clone()).expect("the run has ended")
}

/// The events of the latest run.
fn latest(control: RunControl) -> Vec<Event> {
    control.chat.with_untracked(|c| c.runs.last().map(|r| r.events.clone()).unwrap_or_default())
}

fn indexes(control: RunControl) -> Vec<u32> {
    latest(control).iter().map(|e| e.index).collect()
}

#[test]
fn an_answer_is_the_outcome_and_every_event_is_shown_masked() {
    let (control, saves) = control();
    let model = Script::new(vec![Ok("Final Answer: the key is sk-test-0123456789abcdef0123")]);
    let outcome = run(control, question(&format!("Is {KEY} my key?")), &model);
    assert_eq!(outcome, Outcome::Answer(masked("the key is sk-test-0123456789abcdef0123")));
    assert!(!format!("{outcome:?}").contains(KEY));
    // The model saw the question as typed; nothing in the page holds the key.
    assert!(model.requests.borrow()[0].messages.iter().any(|m| m.content.contains(KEY)));
    let shown = crate::storage::event::events_json(&latest(control));
    assert!(!shown.contains(KEY) && shown.contains("final_answer"), "{shown}");
    assert!(!control.chat.with_untracked(|c| c.runs[0].question.contains(KEY)), "the question is shown masked");
    assert!(!control.streaming.get_untracked().contains(KEY));
    assert_eq!(indexes(control), (0..latest(control).len() as u32).collect::<Vec<_>>());
    // Saving is called: at the start and the end at once, every event soon.
    let saves = saves.lock().unwrap();
    assert_eq!((saves.first(), saves.last()), (Some(&Save::Now), Some(&Save::Now)));
    assert_eq!(saves.iter().filter(|s| **s == Save::Soon).count(), latest(control).len());
}

#[test]
fn a_new_question_is_a_new_run_and_the_earlier_one_is_kept() {
    let (control, _) = control();
    run(control, question("first"), &Script::new(vec![Ok("Final Answer: zebra-42")]));
    let first = latest(control);
    let model = Script::new(vec![Ok("Final Answer: two")]);
    run(control, question("second"), &model);
    control.chat.with_untracked(|c| {
        assert_eq!(c.runs.len(), 2);
        assert_eq!(c.runs[0].events, first, "the first run's steps stay");
        assert_eq!(crate::agent::trace::question(&c.runs[1].events), Some("second"));
        assert_eq!(c.shown(), Some(1), "the latest run is shown");
    });
    assert_eq!(indexes(control)[0], 0);
    // The first run is the second's memory.
    assert!(model.requests.borrow()[0].messages.iter().any(|m| m.content.contains("zebra-42")));
}

#[test]
fn a_reply_continues_the_run_that_asked_after_its_events() {
    let (control, _) = control();
    let asks = r#"Thought: I need the city.
Action: {"action": "ask_person", "action_input": "Which city?"}"#;
    let outcome = run(control, question("Weather?"), &Script::new(vec![Ok(asks)]));
    assert_eq!(outcome, Outcome::Asks("Which city?".into()));
    let asked = latest(control).len();

    let model = Script::new(vec![Ok("Final Answer: Rain in Oslo.")]);
    let reply = Start { settings: settings(), ask: Ask::Answer("Oslo".into()) };
    assert_eq!(run(control, reply, &model), Outcome::Answer("Rain in Oslo.".into()));
    assert_eq!(control.chat.with_untracked(|c| c.runs.len()), 1, "the reply continues the run, it is not a run of its own");
    let events = latest(control);
    // One story: the run that asked, then the continued run, numbered on.
    assert_eq!(indexes(control), (0..events.len() as u32).collect::<Vec<_>>());
    assert!(matches!(&events[asked].kind, EventKind::RunStarted { question, continues: true, .. } if question == "Weather?"));
    assert!(matches!(&events[asked + 1].kind, EventKind::PersonAnswered { answer } if answer == "Oslo"));
    let prompt = &model.requests.borrow()[0].messages;
    assert!(prompt.iter().any(|m| m.content.contains("Which city?")), "the earlier run is part of the prompt");
}

#[test]
fn a_failed_model_call_explains_itself_masked() {
    let (control, _) = control();
    let error = LlmError::new(LlmErrorKind::Auth, format!("The provider rejected the key {KEY}: check it in Settings."));
    let outcome = run(control, question("q"), &Script::new(vec![Err(error)]));
    assert_eq!(outcome, Outcome::Ended(masked(&format!("The provider rejected the key {KEY}: check it in Settings."))));
    assert!(!format!("{outcome:?}").contains(KEY));
}

#[test]
fn stop_ends_the_run_as_cancelled() {
    let (control, _) = control();
    let job = control.begin(question("q"));
    let at = job.run;
    control.stop();
    let model = Script::new(vec![]);
    let clock = SystemClock::default();
    let outcome = pollster::block_on(control.drive(job, Env { model: &model, tools: &[], clock: &clock }));
    assert_eq!(outcome, Outcome::Ended(StopReason::Cancelled.describe()));
    assert!(model.requests.borrow().is_empty(), "nothing is sent after Stop");
    control.end(at, outcome);
    // The token is gone with the run: Stop after the end changes nothing.
    control.stop();
    assert!(!control.running.get_untracked());
}

#[test]
fn structured_output_is_asked_for_only_where_the_api_has_it() {
    let asks_for_json = |preset| {
        let mut start = question("q");
        start.settings.agent.structured_output = true;
        start.settings.provider.preset = preset;
        let model = Script::new(vec![Ok("Final Answer: a")]);
        run(control().0, start, &model);
        let json = model.requests.borrow()[0].json_format.is_some();
        json
    };
    assert!(asks_for_json(crate::llm::Preset::OpenAi));
    assert!(!asks_for_json(crate::llm::Preset::Anthropic));
}

#[test]
fn attached_resources_go_with_a_new_question_and_wait_through_a_reply() {
    let (control, _) = control();
    let note = crate::app::run::Attachment { server: "http://127.0.0.1:1/mcp".into(), uri: "note://today".into(), name: "Today".into() };
    let asks = r#"Thought: I need the city.
Action: {"action": "ask_person", "action_input": "Which city?"}"#;
    run(control, question("Weather?"), &Script::new(vec![Ok(asks)]));
    // Attached while the agent waits for a reply: the reply does not take them.
    control.attach(note.clone(), true);
    let job = control.begin(Start { settings: settings(), ask: Ask::Answer("Oslo".into()) });
    assert!(job.attachments.is_empty());
    assert_eq!(control.attached.get_untracked(), [note.clone()]);
    control.end(job.run, Outcome::Ended("set aside".into()));
    // The next question takes them, and the composer's list is empty again.
    let job = control.begin(question("What is on today?"));
    assert_eq!(job.attachments, [note]);
    assert!(control.attached.get_untracked().is_empty());
    control.end(job.run, Outcome::Ended("set aside".into()));
}

#[test]
fn a_run_that_ends_before_the_agent_starts_shows_its_start_and_its_failure_as_steps() {
    let (control, _) = control();
    // Natively there is no engine to fetch: the run ends before the agent records anything,
    // as it does in the page when the engine or the model in the page cannot be loaded.
    control.start(question(&format!("Use {KEY} please")));
    let events = latest(control);
    assert_eq!(events.len(), 2);
    let EventKind::RunStarted { question, model, .. } = &events[0].kind else { panic!("{:?}", events[0].kind) };
    assert!(!question.contains(KEY) && question.starts_with("Use "), "masked: {question}");
    assert_eq!(model.provider, settings().provider.preset.id());
    assert!(matches!(&events[1].kind, EventKind::RunStopped { reason: StopReason::ModelFailed, message } if message.contains("needs a browser")));
    assert_eq!(events[1].kind.tone(), crate::agent::Tone::Error);
    assert_eq!(indexes(control), [0, 1]);
    assert!(!control.running.get_untracked());
}

#[test]
fn stop_before_the_engine_arrived_is_a_cancelled_step_and_a_reply_keeps_the_events_before_it() {
    let (control, _) = control();
    let asks = r#"Thought: I need the city.
Action: {"action": "ask_person", "action_input": "Which city?"}"#;
    run(control, question("Weather?"), &Script::new(vec![Ok(asks)]));
    let before = latest(control).len();
    let job = control.begin(Start { settings: settings(), ask: Ask::Answer("Oslo".into()) });
    control.end(job.run, Outcome::Ended(StopReason::Cancelled.describe()));
    let events = latest(control);
    assert_eq!(events.len(), before + 2, "the earlier events stay, the start and the stop follow");
    assert!(matches!(&events[before].kind, EventKind::RunStarted { continues: true, .. }));
    assert!(matches!(&events[before + 1].kind, EventKind::RunStopped { reason: StopReason::Cancelled, .. }));
}
