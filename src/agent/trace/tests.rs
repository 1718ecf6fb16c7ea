//! Readings of a trace that came from outside: an imported file may claim any numbers, and
//! nothing computed from them may panic (debug builds check overflow) or wrap.

use super::*;
use crate::agent::model::{ChatModel, ChatRequest, ChatResponse, Progress};
use crate::agent::time::SystemClock;
use crate::agent::{run_agent, AgentSettings, CancelToken, LocalBoxFuture, AnsweredQuestion, RunInput};

/// A trace as a crafted file would hold it: two replies each claiming the largest counts.
fn crafted() -> Trace {
    let response = |index: u32| {
        format!(
            r#"{{"index":{index},"step":4294967295,"started_ms":0,"ended_ms":1e308,"kind":{{"llm_response":{{"text":"x","usage":{{"prompt_tokens":4294967295,"completion_tokens":4294967295}},"latency_ms":1}}}}}}"#
        )
    };
    let json = format!(
        r#"{{"events":[{},{},{{"index":2,"step":4294967295,"started_ms":0,"ended_ms":0,"kind":{{"clarify":{{"question":"Which one?"}}}}}},{{"index":3,"step":4294967295,"started_ms":0,"ended_ms":0,"kind":{{"run_stopped":{{"reason":"needs_input","message":"waiting"}}}}}}]}}"#,
        response(0),
        response(1)
    );
    serde_json::from_str(&json).expect("the crafted trace is well-formed")
}

#[test]
fn totals_of_a_crafted_import_saturate_instead_of_overflowing() {
    let trace = crafted();
    let totals = trace.totals();
    assert_eq!(totals.usage.prompt_tokens, u32::MAX);
    assert_eq!(totals.usage.completion_tokens, u32::MAX);
    assert_eq!(totals.steps, u32::MAX);
    assert!(trace.to_markdown().contains("Which one?"));
}

struct Answers;

impl ChatModel for Answers {
    fn complete<'a>(&'a self, _request: &'a ChatRequest, _progress: &'a dyn Fn(Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        Box::pin(async { Ok(ChatResponse { text: "Final Answer: the second one".into(), ..Default::default() }) })
    }
}

#[test]
fn continuing_a_crafted_import_counts_on_without_overflow() {
    // The imported run ended with a question at step u32::MAX; the person replies.
    let earlier = crafted().events;
    let settings = AgentSettings::default();
    let clock = SystemClock::default();
    let cancel = CancelToken::new();
    let input = RunInput {
        question: "q",
        history: &[],
        model: &Answers,
        tools: &[],
        settings: &settings,
        clock: &clock,
        cancel: &cancel,
        answered: Some(AnsweredQuestion { earlier: &earlier, answer: "the second" }),
        fork: None,
    };
    let trace = pollster::block_on(run_agent(input, &()));
    assert_eq!(trace.final_answer(), Some("the second one"));
}
