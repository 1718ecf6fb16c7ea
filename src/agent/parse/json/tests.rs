//! JSON repair, through the whole parser: near-JSON, strings with braces and quotes, and a
//! value cut off at the end of the reply (shape 5).

use super::super::tests::{case, table, Thought, Want::*, TOOLS};

// 10. Near-JSON repairs.
#[test]
fn json_repairs() {
    table(TOOLS, vec![
        case("{'action': 'Calculator', 'action_input': '2+2'}", Tool("Calculator", r#""2+2""#)).notes(&["JSON repaired: single quotes"]),
        case("{'action': 'web_search', 'action_input': {'query': 'x', 'safe': True, 'page': None, 'exact': False}}",
            Tool("web_search", r#"{"query": "x", "safe": true, "page": null, "exact": false}"#)).notes(&["single quotes", "Python literals"]),
        case(r#"{"action": "Wikipedia", "action\_input": "Bern"}"#, Tool("Wikipedia", r#""Bern""#)).notes(&["Markdown backslash escapes"]),
        case(r#"{"action": "final\_answer", "action\_input": "42"}"#, Answer("42")),
        case(r#"{"action": "Calculator", "action_input": "1+1",}"#, Tool("Calculator", r#""1+1""#)).notes(&["JSON repaired: trailing comma"]),
        case("{\"action\": \"web_search\", \"action_input\": {\"q\": [1, 2,],},\n}", Tool("web_search", r#"{"q": [1, 2]}"#)).notes(&["trailing comma"]),
        case("{\"action\": \"Calculator\", // the tool\n \"action_input\": \"1+1\" /* sum */}", Tool("Calculator", r#""1+1""#)).notes(&["comments removed"]),
        case(r#"{"action": "Wikipedia", "action_input": "Einstein's theory"}"#, Tool("Wikipedia", r#""Einstein's theory""#)).clean(),
        case(r#"{"action": "Wikipedia", "action_input": "Einstein's theory",}"#, Tool("Wikipedia", r#""Einstein's theory""#)).notes(&["trailing comma"]),
        case(r#"{'action': 'python_repl', 'action_input': 'print("hi")'}"#, Tool("python_repl", r#""print(\"hi\")""#)).notes(&["single quotes"]),
        case(r#"{'action': 'Wikipedia', 'action_input': 'Einstein's theory'}"#, Tool("Wikipedia", r#""Einstein's theory""#)),
        case(r#"{'action': 'Wikipedia', 'action_input': 'it\'s'}"#, Tool("Wikipedia", r#""it's""#)),
        case(r#"{action: "Calculator", action_input: "3*3"}"#, Tool("Calculator", r#""3*3""#)).notes(&["unquoted keys"]),
        case("{\"action\": \"python_repl\", \"action_input\": \"for i in range(3):\n    print(i)\"}",
            Tool("python_repl", r#""for i in range(3):\n    print(i)""#)).notes(&["raw line breaks"]),
        case(r#"{"action": "python_repl", "action_input": "print("hi")"}"#, Tool("python_repl", r#""print(\"hi\")""#)).notes(&["unescaped double quotes"]),
        case("{\"action\": \"Calculator\"\n \"action_input\": \"1+1\"}", Tool("Calculator", r#""1+1""#)).notes(&["missing comma"]),
        case(r#"{{"action": "Calculator", "action_input": "1+1"}}"#, Tool("Calculator", r#""1+1""#)).notes(&["doubled braces"]),
        case(r#"{\"action\": \"Calculator\", \"action_input\": \"1+1\"}"#, Tool("Calculator", r#""1+1""#)).notes(&["backslash-escaped"]),
        case(r#"{'action': 'python_repl', 'action_input': 'open("C:\data\x.txt")'}"#, Tool("python_repl", r#""open(\"C:\\data\\x.txt\")""#)).notes(&["literal backslashes"]),
        case(r#"{'action': 'Wikipedia', 'action_input': "Einstein's"}"#, Tool("Wikipedia", r#""Einstein's""#)).notes(&["single quotes"]),
        case("{\"action\": \"Calculator\", \"action_input\": +5}", Tool("Calculator", "5")),
        case("{\"action\": \"Calculator\",, \"action_input\": \"1\"}", Tool("Calculator", r#""1""#)).notes(&["extra comma"]),
    ]);
}

// 15. Braces and quotes inside strings, unicode.
#[test]
fn tricky_strings() {
    table(TOOLS, vec![
        case(r#"{"action": "python_repl", "action_input": "f(x) = {x}"}"#, Tool("python_repl", r#""f(x) = {x}""#)).clean(),
        case(r#"{"action": "python_repl", "action_input": "d = {'a': {'b': 1}}"}"#, Tool("python_repl", r#""d = {'a': {'b': 1}}""#)).clean(),
        case(r#"{"action": "python_repl", "action_input": "}}}{{{"}"#, Tool("python_repl", r#""}}}{{{""#)).clean(),
        case(r#"{"action": "Wikipedia", "action_input": "the \"best\" city \\ ok"}"#, Tool("Wikipedia", r#""the \"best\" city \\ ok""#)).clean(),
        case(r#"{"action": "Wikipedia", "action_input": "Zürich 東京 🙂 \u00e9"}"#, Tool("Wikipedia", r#""Zürich 東京 🙂 é""#)).clean(),
        case("Thought: ünïcödé 🙂\n{\"action\": \"Wikipedia\", \"action_input\": \"x\"}", Tool("Wikipedia", r#""x""#)).thought(Thought::Is("ünïcödé 🙂")),
        case("Action:\n```json\n{\"action\": \"python_repl\", \"action_input\": \"```python\\nprint(1)\\n```\"}\n```",
            Tool("python_repl", r#""```python\nprint(1)\n```""#)).clean(),
        case(r#"{"action": "web_search", "action_input": {"query": {"deep": [1, {"x": "}"}]}}}"#,
            Tool("web_search", r#"{"query": {"deep": [1, {"x": "}"}]}}"#)).clean(),
        case(r#"{'action': 'python_repl', 'action_input': 'f(x) = {x}'}"#, Tool("python_repl", r#""f(x) = {x}""#)),
    ]);
}

// Shape 5: a JSON value cut off at the end is closed and read when only its end is missing.
#[test]
fn cut_off_json_is_closed() {
    table(TOOLS, vec![
        case("Action:\n```json\n{\"action\": \"web_search\", \"action_input\": {\"q\": \"tides\", \"source\": \"rep",
            Tool("web_search", r#"{"q": "tides", "source": "rep"}"#)).notes(&["closed with \"}}", "may be cut short"]),
        case("{\"action\": \"web_search\", \"action_input\": \"abc", Tool("web_search", r#""abc""#)).notes(&["closed with \"}"]),
        case("{\"action\": \"Calculator\", \"action_input\": {\"terms\": [1, 2", Tool("Calculator", r#"{"terms": [1, 2]}"#)).notes(&["closed with ]}}"]),
        case("{'action': 'Wikipedia', 'action_input': 'Lima", Tool("Wikipedia", r#""Lima""#)).notes(&["single quotes", "closed with '}"]),
        case("Action: web_search\nAction Input: {\"q\": \"x\", \"lang\": \"e", Tool("web_search", r#"{"q": "x", "lang": "e"}"#)).notes(&["closed with \"}"]),
        // A backslash at the cut does not escape the added quote.
        case("{\"action\": \"python_repl\", \"action_input\": \"a\\", Tool("python_repl", r#""a""#)),
        // More than the end is missing: a key cut in half, a key without its value.
        case("Action:\n{\"action\": \"web_search\", \"action_input\": {\"q\": \"x\", \"sou", Fail("InvalidJson")),
        case("Action:\n{\"action\": \"web_search\", \"action_input\": {\"q\": \"x\", \"source\": ", Fail("InvalidJson")),
        case("Action:\n{\"action\": \"web_search\", \"act", Fail("InvalidJson")),
        // Too deep to guess where it ended.
        case("Action:\n{\"action\": \"web_search\", \"action_input\": [[[[[\"x", Fail("InvalidJson")),
    ]);
}
