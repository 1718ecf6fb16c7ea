//! Tests of the run controller with a scripted model: what reaches the signals (masked,
//! renumbered after a run it continues), the outcome read from the trace, and Stop.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::agent::time::SystemClock;
use crate::agent::{ChatRequest, ChatResponse, LlmError, LlmErrorKind, LocalBoxFuture, Progress};

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
    mask(text, &crate::secrets::collect(&settings()))
}

fn question(text: &str) -> Start {
    Start { settings: settings(), ask: Ask::Question(text.into()), history: Vec::new() }
}

/// Starts `start` on `control` and drives it to its end with `model`, as the page does.
fn run(control: RunControl, start: Start, model: &Script) -> Outcome {
    let job = control.begin(start);
    assert!(control.running.get_untracked());
    let clock = SystemClock::default();
    let outcome = pollster::block_on(control.drive(job, Env { model, tools: &[], clock: &clock }));
    let ended = Rc::new(RefCell::new(None));
    let seen = ended.clone();
    control.end(
        outcome,
        Box::new(move |o| {
            // The outcome is delivered while the run still counts as running, so the chat saves
            // the answer together with the end of the run.
            assert!(control.running.get_untracked());
            *seen.borrow_mut() = Some(o);
        }),
    );
    assert!(!control.running.get_untracked());
    ended.take().expect("on_end is called")
}

fn indexes(control: RunControl) -> Vec<u32> {
    control.trace.with_untracked(|events| events.iter().map(|e| e.index).collect())
}

#[test]
fn an_answer_is_the_outcome_and_every_event_is_shown_masked() {
    let control = RunControl::new();
    let model = Script::new(vec![Ok("Final Answer: the key is sk-test-0123456789abcdef0123")]);
    let outcome = run(control, question(&format!("Is {KEY} my key?")), &model);
    assert_eq!(outcome, Outcome::Answer(masked("the key is sk-test-0123456789abcdef0123")));
    assert!(!format!("{outcome:?}").contains(KEY));
    // The model saw the question as typed; nothing in the page holds the key.
    assert!(model.requests.borrow()[0].messages.iter().any(|m| m.content.contains(KEY)));
    let shown = control.trace.with_untracked(|events| serde_json::to_string(events).unwrap());
    assert!(!shown.contains(KEY) && shown.contains("final_answer"), "{shown}");
    assert!(!control.streaming.get_untracked().contains(KEY));
    assert_eq!(indexes(control), (0..control.trace.with_untracked(Vec::len) as u32).collect::<Vec<_>>());
}

#[test]
fn a_new_question_replaces_the_shown_run() {
    let control = RunControl::new();
    run(control, question("first"), &Script::new(vec![Ok("Final Answer: one")]));
    run(control, question("second"), &Script::new(vec![Ok("Final Answer: two")]));
    assert_eq!(crate::agent::trace::question(&control.trace.get_untracked()), Some("second"));
    assert_eq!(indexes(control)[0], 0);
}

#[test]
fn a_reply_continues_the_run_that_asked_after_its_events() {
    let control = RunControl::new();
    let asks = r#"Thought: I need the city.
Action: {"action": "ask_person", "action_input": "Which city?"}"#;
    let outcome = run(control, question("Weather?"), &Script::new(vec![Ok(asks)]));
    assert_eq!(outcome, Outcome::Asks("Which city?".into()));
    let asked = control.trace.with_untracked(Vec::len);

    let model = Script::new(vec![Ok("Final Answer: Rain in Oslo.")]);
    let reply = Start { settings: settings(), ask: Ask::Answer("Oslo".into()), history: Vec::new() };
    assert_eq!(run(control, reply, &model), Outcome::Answer("Rain in Oslo.".into()));
    let events = control.trace.get_untracked();
    // One story: the run that asked, then the continued run, numbered on.
    assert_eq!(indexes(control), (0..events.len() as u32).collect::<Vec<_>>());
    assert!(matches!(&events[asked].kind, EventKind::RunStarted { question, continues: true, .. } if question == "Weather?"));
    assert!(matches!(&events[asked + 1].kind, EventKind::PersonAnswered { answer } if answer == "Oslo"));
    let prompt = &model.requests.borrow()[0].messages;
    assert!(prompt.iter().any(|m| m.content.contains("Which city?")), "the earlier run is part of the prompt");
}

#[test]
fn a_failed_model_call_explains_itself_masked() {
    let control = RunControl::new();
    let error = LlmError::new(LlmErrorKind::Auth, format!("The provider rejected the key {KEY}: check it in Settings."));
    let outcome = run(control, question("q"), &Script::new(vec![Err(error)]));
    assert_eq!(outcome, Outcome::Ended(masked(&format!("The provider rejected the key {KEY}: check it in Settings."))));
    assert!(!format!("{outcome:?}").contains(KEY));
}

#[test]
fn stop_ends_the_run_as_cancelled() {
    let control = RunControl::new();
    let job = control.begin(question("q"));
    control.stop();
    let model = Script::new(vec![]);
    let clock = SystemClock::default();
    let outcome = pollster::block_on(control.drive(job, Env { model: &model, tools: &[], clock: &clock }));
    assert_eq!(outcome, Outcome::Ended(StopReason::Cancelled.describe()));
    assert!(model.requests.borrow().is_empty(), "nothing is sent after Stop");
    control.end(outcome, Box::new(|_| {}));
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
        run(RunControl::new(), start, &model);
        let json = model.requests.borrow()[0].json_format.is_some();
        json
    };
    assert!(asks_for_json(crate::llm::Preset::OpenAi));
    assert!(!asks_for_json(crate::llm::Preset::Anthropic));
}

#[test]
fn outcome_reads_the_end_of_a_trace() {
    let event = |index, kind| Event { index, step: 1, started_ms: 0.0, ended_ms: 0.0, kind };
    let stopped = |reason| EventKind::RunStopped { reason, message: String::new() };
    assert_eq!(outcome(&[]), Outcome::Ended("The run ended without an answer.".into()));
    let limit = StopReason::MaxIterations { limit: 3 };
    assert_eq!(outcome(&[event(0, stopped(limit.clone()))]), Outcome::Ended(limit.describe()));
    let asked = [event(0, EventKind::AskedPerson { question: "Which?".into() }), event(1, stopped(StopReason::AskedPerson))];
    assert_eq!(outcome(&asked), Outcome::Asks("Which?".into()));
}
