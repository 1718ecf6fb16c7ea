//! Cleaning the tool input, through the whole parser: a call wrapped around it (shape 2),
//! Markdown escapes (shape 3), and junk around it (shape 4).

use super::super::tests::{case, table, Want::*, TOOLS};

// Shape 2: the input written as a call of the same tool is that call's argument.
#[test]
fn input_wrapped_in_a_call() {
    table(TOOLS, vec![
        case(r#"{"action": "web_search", "action_input": "web_search({\"query\": \"tides\", \"n\": 3})"}"#,
            Tool("web_search", r#"{"query": "tides", "n": 3}"#)).notes(&["written as a call web_search(...)"]),
        case(r#"{"action": "Calculator", "action_input": "calculator(\"12*12\")"}"#, Tool("Calculator", r#""12*12""#)),
        case(r#"{"action": "Wikipedia", "action_input": "functions.Wikipedia('Lima')"}"#, Tool("Wikipedia", r#""Lima""#)),
        case("Action: web_search\nAction Input: web_search({'query': 'tides'})", Tool("web_search", r#"{"query": "tides"}"#)),
        case(r#"{"action": "web_search", "action_input": "WebSearch({\"query\": \"tides\"})"}"#, Tool("web_search", r#"{"query": "tides"}"#)),
        // A call of anything else is the input itself: code for a Python tool, say.
        case(r#"{"action": "python_repl", "action_input": "print({\"a\": 1})"}"#, Tool("python_repl", r#""print({\"a\": 1})""#)).clean(),
        case(r#"{"action": "web_search", "action_input": "Calculator({\"x\": 1})"}"#, Tool("web_search", r#""Calculator({\"x\": 1})""#)).clean(),
        case(r#"{"action": "Calculator", "action_input": "sqrt(144)"}"#, Tool("Calculator", r#""sqrt(144)""#)).clean(),
        // The call's argument must read; otherwise the text stays as it was.
        case(r#"{"action": "web_search", "action_input": "web_search(tides)"}"#, Tool("web_search", r#""web_search(tides)""#)).clean(),
    ]);
}

// Shape 3: Markdown escapes in an input mean the character itself, outside code.
#[test]
fn markdown_escapes_in_the_input() {
    table(TOOLS, vec![
        case("Action: python_repl\nAction Input: SELECT sales\\_price FROM orders", Tool("python_repl", r#""SELECT sales_price FROM orders""#))
            .notes(&["Markdown escapes"]),
        case(r#"{"action": "Calculator", "action_input": "2 \\* 3"}"#, Tool("Calculator", r#""2 * 3""#)).notes(&["Markdown escapes"]),
        case(r#"{"action": "web_search", "action_input": {"query": "my\\_table", "tags": ["a\\_b"]}}"#,
            Tool("web_search", r#"{"query": "my_table", "tags": ["a_b"]}"#)),
        case("Action: web_search\nAction Input: {\"query\": \"first\\\\_name\"}", Tool("web_search", r#"{"query": "first_name"}"#)),
        // Inside code the backslash stays.
        case(r#"{"action": "python_repl", "action_input": "run `re.sub(r'\\_', '', s)` now"}"#,
            Tool("python_repl", r#""run `re.sub(r'\\_', '', s)` now""#)).clean(),
        // Other backslashes are not Markdown escapes.
        case(r#"{"action": "python_repl", "action_input": "a\\nb \\d"}"#, Tool("python_repl", r#""a\\nb \\d""#)).clean(),
    ]);
}

// Shape 4: marks around the input are not part of it.
#[test]
fn junk_around_the_input() {
    table(TOOLS, vec![
        case("Action: web_search\nAction Input: ** {\"q\": \"x\"}", Tool("web_search", r#"{"q": "x"}"#)).notes(&["ignored \"**\" before the JSON input"]),
        case("Action: web_search\nAction Input: > {\"q\": \"x\"}", Tool("web_search", r#"{"q": "x"}"#)),
        case("Action: web_search\nAction Input: {'pages': ['a']} /* note */, or so", Tool("web_search", r#"{"pages": ["a"]}"#))
            .notes(&["ignored the text after the JSON input: /* note */, or so"]),
        case("Action: web_search\nAction Input: [\"a\", \"b\"] (both)", Tool("web_search", r#"["a", "b"]"#)).notes(&["text after the JSON input"]),
        case("Action: Wikipedia\nAction Input: the tides of Brest\nObs", Tool("Wikipedia", r#""the tides of Brest""#)).notes(&["cut short"]),
        case("Action: Wikipedia\nAction Input: Lima\nObserv", Tool("Wikipedia", r#""Lima""#)),
        case("Final Answer: Lima\nObs", Answer("Lima")).notes(&["cut short"]),
        case("Action: Wikipedia\nAction Input: \"what is a tide?", Tool("Wikipedia", r#""what is a tide?""#)).notes(&["unmatched opening quote"]),
        case("Action: Wikipedia\nAction Input: 'Albert Einstein", Tool("Wikipedia", r#""Albert Einstein""#)).notes(&["unmatched opening quote"]),
        case("Action: Wikipedia\nAction Input: “Lima", Tool("Wikipedia", r#""Lima""#)),
        // A quote closed later in the input is part of it.
        case("Action: web_search\nAction Input: \"tides\" in Brest", Tool("web_search", r#""\"tides\" in Brest""#)).notes(&["MRKL"]),
        // What is not junk stays.
        case("Action: web_search\nAction Input: {\"q\": \"x\"} and {\"q\": \"y\"}", Tool("web_search", r#""{\"q\": \"x\"} and {\"q\": \"y\"}""#))
            .notes(&["passed on as plain text"]),
        case("Action: Wikipedia\nAction Input: Lima\nObservatories", Tool("Wikipedia", r#""Lima\nObservatories""#)),
        case("Action: Calculator\nAction Input: -3 * 4", Tool("Calculator", r#""-3 * 4""#)).notes(&["MRKL"]),
    ]);
}
