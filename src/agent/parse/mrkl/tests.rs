//! MRKL `Action:` / `Action Input:` lines, through the whole parser, with the tool name on
//! the line after `Action:` (shape 6).

use super::super::tests::{case, table, Thought, Want::*, TOOLS};

// 6. MRKL Action / Action Input lines.
#[test]
fn mrkl() {
    table(TOOLS, vec![
        case("Thought: need facts\nAction: Wikipedia\nAction Input: Albert Einstein",
            Tool("Wikipedia", r#""Albert Einstein""#)).notes(&["MRKL-style Action / Action Input lines"]).thought(Thought::Is("need facts")),
        case("Action: web_search\nAction Input: {\"query\": \"x\", \"n\": 3}", Tool("web_search", r#"{"query": "x", "n": 3}"#)),
        case("Action: Wikipedia\nAction Input: \"quoted\"", Tool("Wikipedia", r#""quoted""#)),
        case("Action: Wikipedia\nAction Input: 'quoted'", Tool("Wikipedia", r#""quoted""#)),
        case("Action: python_repl\nAction Input: print(1)\nprint(2)\n", Tool("python_repl", r#""print(1)\nprint(2)""#)),
        case("Action: Wikipedia\nAction Input: Paris\nObservation: Paris is the capital of France.\nThought: done",
            Tool("Wikipedia", r#""Paris""#)),
        case("Action: Wikipedia[Albert Einstein]", Tool("Wikipedia", r#""Albert Einstein""#)).notes(&["Tool[input]"]),
        case("Action: Final Answer\nAction Input: 42", Answer("42")),
        case("**Action:** `Wikipedia`\n**Action Input:** Albert Einstein", Tool("Wikipedia", r#""Albert Einstein""#)),
        case("Action: Calculator\nAction Input:\n```\n2+2\n```", Tool("Calculator", r#""2+2""#)),
        case("Action: Calculator\nAction Input: `2+2`", Tool("Calculator", r#""2+2""#)),
        case("Action: web_search\nAction Input:\n```json\n{\"query\": \"x\"}\n```", Tool("web_search", r#"{"query": "x"}"#)),
        case("Action: web_search\n```json\n{\"query\": \"x\"}\n```", Tool("web_search", r#"{"query": "x"}"#)).notes(&["tool name taken from the Action: line"]),
        case("Action: web_search {\"query\": \"x\"}", Tool("web_search", r#"{"query": "x"}"#)),
        case("Action: wikipedia\nAction_Input: Bern", Tool("Wikipedia", r#""Bern""#)).notes(&["case-insensitively"]),
        case("Action: Calculator\nAction Input: {\"expr\": \"1+1\"", Tool("Calculator", r#"{"expr": "1+1"}"#)).notes(&["missing closing brace"]),
        case("Action: Calculator\nAction Input: {not json at all", Tool("Calculator", r#""{not json at all""#)).notes(&["passed on as plain text"]),
        case("Action: Calculator\nAction Input:", Tool("Calculator", r#""""#)),
        case("Action: web\\_search\nAction Input: x", Tool("web_search", r#""x""#)),
        case("Action: None\nFinal Answer: done", Answer("done")).notes(&["ignored the placeholder line"]),
        case("Action: Wikipedia", Fail("MissingActionInput")),
        case("Thought: x\nAction: Wikipedia\n\nI will now look it up.", Fail("MissingActionInput")),
        case("Action:\nHere is the call, with {braces} in prose:\n```json\n// search\n{\"action\": \"web_search\", \"action_input\": \"x\"}\n```",
            Tool("web_search", r#""x""#)).clean().thought(Thought::Absent),
        case("Action:\nThought: hmm\nFinal Answer: no tool needed", Answer("no tool needed")),
        case("Action: web_search\nI'll pass this:\n{\"query\": \"x\"}", Tool("web_search", r#"{"query": "x"}"#)),
        // The JSON blob names its own tool: it wins over the bare Action line.
        case("Action: Wikipedia\n```json\n{\"action\": \"Wikipedia\", \"action_input\": \"Bern\"}\n```", Tool("Wikipedia", r#""Bern""#)).clean().thought(Thought::Absent),
    ]);
}

// Shape 6: `Action:` with a line break after it, then the tool name, then `Action Input:`.
#[test]
fn tool_name_on_the_next_line() {
    table(TOOLS, vec![
        case("Thought: look it up\nAction:\nWikipedia\nAction Input: Lima", Tool("Wikipedia", r#""Lima""#))
            .notes(&["the tool name was on the line after \"Action:\"", "MRKL"]).thought(Thought::Is("look it up")),
        case("Action:\n\n  **calculator**\nAction Input:\n12*12", Tool("Calculator", r#""12*12""#)).notes(&["line after", "case-insensitively"]),
        case("Action:\nweb_search\nAction Input: {\"q\": \"tides\"}", Tool("web_search", r#"{"q": "tides"}"#)),
        case("Action:\nWikipedia[Lima]", Tool("Wikipedia", r#""Lima""#)).notes(&["Tool[input]"]),
        case("Action:\nweb_search(\"tides\")", Tool("web_search", r#""tides""#)).notes(&["read as 'web_search'"]),
        // Anything else on the next line is not taken for a name.
        case("Action:\nI will search the web.\nFinal Answer: unsure", Answer("unsure")),
        case("Action:\nWikipedia\nThe page about Lima.", Fail("IncompleteAction")),
        case("Action:\nWikipedia", Fail("IncompleteAction")),
        case("Action:\nThought: hmm\nAction Input: x", Fail("IncompleteAction")),
    ]);
}
