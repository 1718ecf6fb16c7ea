//! Reading the scope gate's verdict, and its request.

use super::*;

fn verdict(reply: &str) -> ScopeVerdict {
    read_verdict(reply).0
}

#[test]
fn one_line_verdicts_read_with_their_reason() {
    assert_eq!(read_verdict("IN: a question about arXiv papers"), (ScopeVerdict::InScope, "a question about arXiv papers".into()));
    assert_eq!(read_verdict("OUT: cooking is not arithmetic"), (ScopeVerdict::OutOfScope, "cooking is not arithmetic".into()));
    assert_eq!(read_verdict("**OUT** — about the weather"), (ScopeVerdict::OutOfScope, "about the weather".into()));
    assert_eq!(read_verdict("Verdict: out of scope. Not about papers."), (ScopeVerdict::OutOfScope, "Not about papers.".into()));
    assert_eq!(verdict("Sure.\nIN - homework"), ScopeVerdict::InScope, "a line of its own after prose");
    assert_eq!(verdict("in"), ScopeVerdict::InScope);
    assert_eq!(verdict("`OUT`"), ScopeVerdict::OutOfScope);
}

#[test]
fn json_verdicts_read_in_a_fence_or_after_prose() {
    assert_eq!(read_verdict(r#"{"in_scope": false, "reason": "a recipe"}"#), (ScopeVerdict::OutOfScope, "a recipe".into()));
    assert_eq!(verdict("Here you go:\n```json\n{\"in_scope\": true, \"reason\": \"maths\"}\n```"), ScopeVerdict::InScope);
    // Repaired as the ReAct reader repairs: a trailing comma.
    assert_eq!(verdict(r#"{"in_scope": false, "reason": "x",}"#), ScopeVerdict::OutOfScope);
}

#[test]
fn anything_else_is_unreadable_and_counts_as_in_scope() {
    for reply in ["", "I think so?", "Information about papers", "outline: none", r#"{"in_scope": "maybe"}"#, "INCOMING"] {
        let (v, why) = read_verdict(reply);
        assert_eq!(v, ScopeVerdict::Unreadable, "{reply:?}");
        assert!(why.contains("no verdict"), "{why}");
    }
    let long = "x".repeat(5000);
    assert!(read_verdict(&long).1.chars().count() < 500, "the reason is cut short");
}

#[test]
fn the_request_states_the_scope_and_asks_for_json_only_with_structured_output() {
    let mut settings = AgentSettings { scope: "Questions about our arXiv papers".into(), ..AgentSettings::default() };
    let request = scope_request("What is 2+2?", &settings);
    assert!(request.messages[0].content.contains("Questions about our arXiv papers"));
    assert_eq!(request.messages[1].content, "What is 2+2?");
    assert!(request.json_format.is_none() && request.tools.is_empty());
    settings.structured_output = true;
    assert!(scope_request("q", &settings).json_format.is_some());
}
