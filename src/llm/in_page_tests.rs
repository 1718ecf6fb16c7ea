//! The in-page model over a scripted engine.

use std::cell::RefCell;

use serde_json::json;

use super::*;
use crate::agent::model::{JsonFormat, Message, ToolSpec};

/// Answers with what it was given, streaming it in two pieces, and keeps the requests.
struct Scripted {
    replies: RefCell<Vec<Result<EngineReply, EngineError>>>,
    asked: RefCell<Vec<EngineRequest>>,
}

impl Scripted {
    fn new(replies: Vec<Result<EngineReply, EngineError>>) -> Self {
        Scripted { replies: RefCell::new(replies), asked: RefCell::new(Vec::new()) }
    }
}

impl Engine for &Scripted {
    fn chat<'a>(&'a self, request: EngineRequest, on_text: &'a dyn Fn(&str)) -> LocalBoxFuture<'a, Result<EngineReply, EngineError>> {
        self.asked.borrow_mut().push(request);
        let next = self.replies.borrow_mut().remove(0);
        Box::pin(async move {
            if let Ok(reply) = &next {
                let half = reply.text.len() / 2;
                on_text(&reply.text[..half]);
                on_text(&reply.text[half..]);
            }
            next
        })
    }
}

fn reply(text: &str, finish: Finish) -> Result<EngineReply, EngineError> {
    Ok(EngineReply { text: text.into(), finish, prompt_tokens: 40, completion_tokens: 7 })
}

fn request() -> ChatRequest {
    let mut r = ChatRequest::new(
        vec![Message { role: Role::System, content: "You are an agent.".into(), tool_calls: vec![], tool_call_id: None },
             Message { role: Role::User, content: "Question: 6*7?".into(), tool_calls: vec![], tool_call_id: None },
             Message { role: Role::Assistant, content: "Thought: multiply".into(), tool_calls: vec![], tool_call_id: None }],
        0.2,
        Some(300),
    );
    r.stop = vec!["Observation:".into()];
    r
}

#[test]
fn a_chat_goes_to_the_engine_in_its_terms_and_streams_back() {
    let engine = Scripted::new(vec![reply("Final Answer: 42", Finish::Stop)]);
    let model = InPage::new(&engine);
    let streamed = RefCell::new(String::new());
    let progress = |p: Progress<'_>| {
        if let Progress::Text(t) = p {
            streamed.borrow_mut().push_str(t);
        }
    };
    let got = pollster::block_on(model.complete(&request(), &progress)).expect("a reply");
    assert_eq!(got.text, "Final Answer: 42");
    assert_eq!(*streamed.borrow(), "Final Answer: 42");
    assert_eq!(got.usage, Some(Usage::new(40, 7)));
    assert!(!got.incomplete);
    let asked = engine.asked.borrow();
    assert_eq!(asked[0].messages.iter().map(|(r, _)| *r).collect::<Vec<_>>(), vec!["system", "user", "assistant"]);
    assert_eq!((asked[0].max_tokens, asked[0].temperature, asked[0].stop.clone()), (300, 0.2, vec!["Observation:".to_string()]));
    assert_eq!(asked[0].json_schema, None);
}

#[test]
fn structured_output_becomes_a_schema_and_a_cut_reply_says_so() {
    let engine = Scripted::new(vec![reply("{\"thought\":", Finish::Length)]);
    let mut r = request();
    r.json_format = Some(JsonFormat { name: "step".into(), schema: json!({"type": "object"}) });
    r.max_tokens = None;
    let got = pollster::block_on(InPage::new(&engine).complete(&r, &|_| {})).expect("a reply");
    assert!(got.incomplete, "a reply cut by the token limit is marked incomplete");
    let asked = engine.asked.borrow();
    assert_eq!(asked[0].json_schema, Some(json!({"type": "object"})));
    assert_eq!(asked[0].max_tokens, DEFAULT_MAX_TOKENS);
}

#[test]
fn native_tool_calls_are_refused_so_the_agent_falls_back() {
    let engine = Scripted::new(vec![]);
    let mut r = request();
    r.tools = vec![ToolSpec { name: "calculator".into(), description: "math".into(), parameters: json!({}) }];
    let err = pollster::block_on(InPage::new(&engine).complete(&r, &|_| {})).expect_err("no native tools");
    assert_eq!(err.kind, LlmErrorKind::ToolsUnsupported);
    assert!(engine.asked.borrow().is_empty(), "nothing reaches the engine");
}

#[test]
fn engine_failures_read_as_sentences_of_the_right_kind() {
    let cases = [
        ("context_full", "The prompt (5,000 tokens) does not fit the context (4,096 tokens).", LlmErrorKind::ContextLength),
        ("aborted", "Stopped.", LlmErrorKind::Cancelled),
        ("timeout", "The engine did not start within 60 s.", LlmErrorKind::Timeout),
        ("blocked", "The page's security policy refused huggingface.co.", LlmErrorKind::Network),
        ("out_of_memory", "Not enough memory for a 1.2 GB model with a 8,192-token context.", LlmErrorKind::BadResponse),
    ];
    for (kind, message, expected) in cases {
        let engine = Scripted::new(vec![Err(EngineError { kind: kind.into(), message: message.into() })]);
        let err = pollster::block_on(InPage::new(&engine).complete(&request(), &|_| {})).expect_err(kind);
        assert_eq!((err.kind, err.message.as_str()), (expected, message));
    }
    let bare = llm_error(EngineError { kind: "other".into(), message: " ".into() });
    assert_eq!(bare.message, "The model in this page failed (other).");
}

#[test]
fn an_empty_or_stopped_reply_is_an_error_not_an_answer() {
    let engine = Scripted::new(vec![reply("  ", Finish::Stop), reply("Thou", Finish::Aborted)]);
    let model = InPage::new(&engine);
    assert_eq!(pollster::block_on(model.complete(&request(), &|_| {})).expect_err("empty").kind, LlmErrorKind::Empty);
    assert_eq!(pollster::block_on(model.complete(&request(), &|_| {})).expect_err("stopped").kind, LlmErrorKind::Cancelled);
}
