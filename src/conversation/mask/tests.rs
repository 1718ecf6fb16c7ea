//! Events masked in every text they hold, and a masked trace that still rebuilds its requests.

use super::*;
use crate::agent::trace::{AnswerSource, LlmPurpose};
use crate::agent::{ChatRequest, LlmError, LlmErrorKind, Message};
use crate::secrets::tests::secrets;

fn event(kind: EventKind) -> Event {
    Event { index: 0, step: 1, started_ms: 0.0, ended_ms: 0.0, kind }
}

#[test]
fn events_are_masked_in_every_text_they_hold() {
    let key = "tl-event-secret-7";
    let s = secrets(&[key]);
    let mut request = RequestRecord::whole(&ChatRequest::new(vec![Message::system("rules"), Message::user(format!("my key is {key}"))], 0.0, None));
    request.messages.push(Message::assistant_calls("", vec![crate::agent::model::ToolCall { id: "c".into(), name: "t".into(), arguments: format!("{{\"k\":\"{key}\"}}") }]));
    let mut events = vec![
        event(EventKind::RunStarted { question: key.into(), tools: vec![], history_turns: 0, started_unix_ms: 0.0, strategy: Default::default(), continues: false, model: Default::default() }),
        event(EventKind::LlmRequest { purpose: LlmPurpose::Step, request }),
        event(EventKind::LlmFailed { error: LlmError::new(LlmErrorKind::Auth, format!("The provider said: \"bad key {key}\"")) }),
        event(EventKind::Decided { thought: Some(key.into()), decision: Decision::Action { tool: "t".into(), input: serde_json::json!({"q": [key]}) }, notes: vec![key.into()] }),
        event(EventKind::ToolResult { tool: "t".into(), observation: format!("…{key}…") }),
        event(EventKind::ToolFailed { tool: "t".into(), message: key.into(), timed_out: false, fed_back: true }),
        event(EventKind::FinalAnswer { answer: key.into(), source: AnswerSource::Model }),
    ];
    mask_events(&mut events, &s);
    let json = crate::storage::event::events_json(&events);
    assert!(!json.contains(key), "{json}");
    assert!(json.contains("my key is *****************"), "{json}");
    assert!(json.contains("rules"), "the rest is untouched: {json}");
}

/// A model that calls the tool once, then answers.
struct TwoSteps(std::cell::Cell<u32>);

impl crate::agent::ChatModel for TwoSteps {
    fn complete<'a>(
        &'a self,
        _request: &'a ChatRequest,
        _progress: &'a dyn Fn(crate::agent::Progress<'_>),
    ) -> crate::agent::LocalBoxFuture<'a, Result<crate::agent::ChatResponse, LlmError>> {
        let n = self.0.get();
        self.0.set(n + 1);
        let text = if n == 0 { "Thought: look.\nAction:\n```json\n{\"action\": \"lookup\", \"action_input\": \"x\"}\n```" } else { "Final Answer: done" };
        Box::pin(async move { Ok(crate::agent::ChatResponse { text: text.into(), ..Default::default() }) })
    }
}

/// A tool whose answer quotes a key, as a tool error quoting its own URL would.
struct Leaky;

impl crate::agent::Tool for Leaky {
    fn name(&self) -> &str {
        "lookup"
    }
    fn description(&self) -> &str {
        "looks things up"
    }
    fn call<'a>(&'a self, _input: &'a serde_json::Value, _cx: &'a crate::agent::ToolContext<'a>) -> crate::agent::LocalBoxFuture<'a, Result<String, crate::agent::ToolError>> {
        Box::pin(async { Ok("found it with api_key=tl-tool-key-99, schlüssel ok".to_string()) })
    }
}

#[test]
fn a_masked_trace_still_rebuilds_every_request_it_sent() {
    use crate::agent::trace::request_at;
    let key = "tl-tool-key-99";
    let (settings, clock, cancel) = (crate::agent::AgentSettings::default(), crate::agent::time::SystemClock::default(), crate::agent::CancelToken::new());
    let tools: Vec<&dyn crate::agent::Tool> = vec![&Leaky];
    let model = TwoSteps(std::cell::Cell::new(0));
    let input = crate::agent::RunInput { question: "q", history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered: None, fork: None };
    let mut events = pollster::block_on(crate::agent::run_agent(input, &())).events;
    let requests: Vec<usize> = events.iter().enumerate().filter(|(_, e)| matches!(e.kind, EventKind::LlmRequest { .. })).map(|(i, _)| i).collect();
    let last = *requests.last().unwrap();
    assert!(request_at(&events, last).unwrap().messages.iter().any(|m| m.content.contains(key)), "the second request quotes the observation");
    mask_events(&mut events, &secrets(&[key]));
    for at in requests {
        let rebuilt = request_at(&events, at).unwrap_or_else(|e| panic!("request {at}: {e}"));
        let text: String = rebuilt.messages.iter().map(|m| m.content.as_str()).collect();
        assert!(!text.contains(key), "{text}");
        if at == last {
            assert!(text.contains("api_key=**************, schlüssel ok"), "{text}");
        }
    }
}
