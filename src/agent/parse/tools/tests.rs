//! Tool-name resolution, through the whole parser and directly: spelling variants,
//! decorated names (shape 1), and the names that are refused (shape 10).

use super::super::tests::{case, check, table, Want::*};
use super::super::{parse_reply, ParseErrorKind};
use super::resolve_tool;

// 14. Tool-name matching.
#[test]
fn tool_names() {
    let tools = &["Wikipedia", "web_search", "Calculator"];
    table(tools, vec![
        case(r#"{"action": "Wikipedia", "action_input": "x"}"#, Tool("Wikipedia", r#""x""#)).clean(),
        case(r#"{"action": "wikipedia", "action_input": "x"}"#, Tool("Wikipedia", r#""x""#))
            .notes(&["tool name matched case-insensitively: 'wikipedia' -> 'Wikipedia'"]),
        case(r#"{"action": "web search", "action_input": "x"}"#, Tool("web_search", r#""x""#)).notes(&["'web search' -> 'web_search'"]),
        case(r#"{"action": "Web-Search", "action_input": "x"}"#, Tool("web_search", r#""x""#)),
        case(r#"{"action": "WEB_SEARCH", "action_input": "x"}"#, Tool("web_search", r#""x""#)).notes(&["case-insensitively"]),
        case(r#"{"action": " Calculator ", "action_input": "x"}"#, Tool("Calculator", r#""x""#)),
        case(r#"{"action": "wiki", "action_input": "x"}"#, Tool("wiki", r#""x""#)).clean(),
        case(r#"{"action": "search wikipedia", "action_input": "x"}"#, Tool("search wikipedia", r#""x""#)).clean(),
        case(r#"{"action": "  Unknown Tool ", "action_input": "x"}"#, Tool("Unknown Tool", r#""x""#)),
    ]);
    table(&["web_search", "websearch"], vec![case(r#"{"action": "Web Search", "action_input": "x"}"#, Fail("AmbiguousToolName"))]);
    let e = parse_reply(r#"{"action": "Web Search", "action_input": "x"}"#, &["web_search", "websearch"]).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::AmbiguousToolName { name: "Web Search".into(), candidates: vec!["web_search".into(), "websearch".into()] }
    );
    assert!(e.to_string().contains("\"web_search\", \"websearch\""), "{e}");
    table(&["Search", "search"], vec![
        case(r#"{"action": "SEARCH", "action_input": "x"}"#, Fail("AmbiguousToolName")),
        case(r#"{"action": "search", "action_input": "x"}"#, Tool("search", r#""x""#)).clean(),
    ]);
}

#[test]
fn resolve_tool_direct() {
    let tools = &["Wikipedia", "web_search", "Calculator"];
    assert_eq!(resolve_tool("Wikipedia", tools), Ok(Some("Wikipedia")));
    assert_eq!(resolve_tool("wikipedia", tools), Ok(Some("Wikipedia")));
    assert_eq!(resolve_tool(" WIKIPEDIA ", tools), Ok(Some("Wikipedia")));
    assert_eq!(resolve_tool("web search", tools), Ok(Some("web_search")));
    assert_eq!(resolve_tool("Web-Search", tools), Ok(Some("web_search")));
    assert_eq!(resolve_tool("websearch", tools), Ok(Some("web_search")));
    assert_eq!(resolve_tool("wiki", tools), Ok(None));
    assert_eq!(resolve_tool("search wikipedia", tools), Ok(None));
    assert_eq!(resolve_tool("", tools), Ok(None));
    assert_eq!(resolve_tool("- _", tools), Ok(None));
    assert_eq!(resolve_tool("x", &[]), Ok(None));
    assert_eq!(resolve_tool("a b", &["a_b", "A-B", "ab"]), Err(vec!["a_b", "A-B", "ab"]));
    assert_eq!(resolve_tool("a_b", &["a_b", "A-B", "ab"]), Ok(Some("a_b")));
    assert_eq!(resolve_tool("x", &["x", "x"]), Ok(Some("x")));
    assert_eq!(resolve_tool("X", &["x", "x"]), Ok(Some("x")));
    assert_eq!(resolve_tool("ÜBER", &["über"]), Ok(Some("über")));
}

// Shape 1: a known tool with decoration after it. The input comes from the JSON when it
// has one, else from the decoration; the repair is noted.
#[test]
fn decorated_tool_names() {
    let tools = &["search", "list_tables", "add", "lookup", "Wikipedia"];
    table(tools, vec![
        case(r#"{"action": "search(query)", "action_input": "tides"}"#, Tool("search", r#""tides""#))
            .notes(&["tool name 'search(query)' read as 'search'; what followed the name was ignored"]),
        case(r#"{"action": "list_tables, ''", "action_input": ""}"#, Tool("list_tables", r#""""#)).notes(&["read as 'list_tables'"]),
        case(r#"{"action": "add (adds two numbers)", "action_input": {"a": 1, "b": 2}}"#, Tool("add", r#"{"a": 1, "b": 2}"#)),
        case(r#"{"action": "lookup (", "action_input": "Lima"}"#, Tool("lookup", r#""Lima""#)),
        case(r#"{"action": "Wikipedia: the free encyclopedia", "action_input": "Lima"}"#, Tool("Wikipedia", r#""Lima""#)),
        // No input in the JSON: what follows the name is the input.
        case(r#"{"action": "search(\"tides in Brest\")"}"#, Tool("search", r#""tides in Brest""#))
            .notes(&["with what followed the name as the input"]),
        case(r#"{"action": "list_tables, ''"}"#, Tool("list_tables", r#""""#)),
        case(r#"{"action": "add({\"a\": 1, \"b\": 2})"}"#, Tool("add", r#"{"a": 1, "b": 2}"#)),
        case("Action: search(tides)\nAction Input: tides in Brest", Tool("search", r#""tides in Brest""#)),
        case("Action: lookup[Lima]", Tool("lookup", r#""Lima""#)),
        // Decoration with nothing in it and no input anywhere: the input is missing.
        case(r#"{"action": "lookup ("}"#, Fail("MissingActionInput")),
        // The part before the decoration must be a tool: no guessing from the rest.
        case(r#"{"action": "use(search)", "action_input": "x"}"#, Tool("use(search)", r#""x""#)),
        case(r#"{"action": "searching(web)", "action_input": "x"}"#, Tool("searching(web)", r#""x""#)),
    ]);
    // Two tools fit the part before the decoration: not resolved, passed on as written.
    table(&["web_search", "websearch"], vec![case(r#"{"action": "Web Search(x)", "action_input": "x"}"#, Tool("Web Search(x)", r#""x""#))]);
}

// Shape 10: a sentence that is no tool and not close to one, or a name with "Final Answer:"
// in it, is refused with the list of tools; never guessed.
#[test]
fn names_that_are_refused() {
    let tools = &["Wikipedia", "web_search", "get_current_weather"];
    table(tools, vec![
        case(r#"{"action": "I will look this up on Wikipedia", "action_input": "Lima"}"#, Fail("UnknownTool")),
        case("Action: Search the web for the answer\nAction Input: tides", Fail("UnknownTool")),
        case("Action: I should use a tool to find this", Fail("UnknownTool")),
        case(r#"{"action": "Final Answer: Lima", "action_input": ""}"#, Fail("UnknownTool")),
        case("Action: Final Answer: Lima is the capital", Fail("UnknownTool")),
        case("Action: final_answer: 42\nAction Input: 42", Fail("UnknownTool")),
        // Close to a tool's name: passed on, and the executor answers it with the list.
        case(r#"{"action": "get the current weather", "action_input": "Brest"}"#, Tool("get the current weather", r#""Brest""#)),
        // Short unknown names go on too.
        case(r#"{"action": "google", "action_input": "x"}"#, Tool("google", r#""x""#)),
        // The name "Final Answer" itself is the answer.
        case(r#"{"action": "Final Answer:", "action_input": "Lima"}"#, Answer("Lima")),
        // An example that names no tool, followed by an answer, is still only an example.
        case("Thought: the format is {\"action\": \"the name of the tool you pick\", \"action_input\": \"x\"}.\nFinal Answer: Lima", Answer("Lima")),
    ]);
    let e = parse_reply("Action: Search the web for the answer\nAction Input: tides", tools).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::UnknownTool {
            requested: "Search the web for the answer".into(),
            valid: vec!["Wikipedia".into(), "web_search".into(), "get_current_weather".into()]
        }
    );
    let message = e.to_string();
    assert!(message.contains(r#""Wikipedia", "web_search", "get_current_weather""#) && message.contains("Final Answer:"), "{message}");
    let e = parse_reply("Action: Final Answer: Lima\nAction Input: Lima", tools).unwrap_err();
    assert!(e.to_string().contains("inside the tool name"), "{e}");
    // Without tools the message says so, instead of an empty list.
    let e = check("Action: I should use a tool to find this", &[], Fail("UnknownTool")).unwrap_err();
    assert!(e.to_string().contains("No tools are available"), "{e}");
}
