//! Whole-parser tests, table-driven: each case is one reply and what it must read as,
//! checked by [`check`]. The tests beside each module (`json/tests.rs`, `mrkl/tests.rs`,
//! `tools/tests.rs`, `input/tests.rs`, `labels/tests.rs`) share these helpers. The
//! robustness tests (random and hostile replies) are at the end.

use serde_json::{json, Value};

use crate::test_support::Rng;

use super::*;

pub(super) const TOOLS: &[&str] = &["Wikipedia", "Calculator", "web_search", "python_repl"];

/// The expected outcome of one reply.
#[derive(Debug, Clone, Copy)]
pub(super) enum Want {
    /// Action with this tool and this input (written as JSON text).
    Tool(&'static str, &'static str),
    Answer(&'static str),
    /// Error of this kind (variant name).
    Fail(&'static str),
}
pub(super) use Want::*;

/// What the thought of a reply must be.
#[derive(Debug, Clone, Copy)]
pub(super) enum Thought {
    Any,
    Is(&'static str),
    Absent,
}

pub(super) struct Case {
    input: &'static str,
    want: Want,
    /// Substrings that must each appear in some note.
    notes: &'static [&'static str],
    /// When true, the notes must be empty.
    clean: bool,
    thought: Thought,
    /// Whether the reply must be read as a direct answer (plain prose).
    direct: bool,
}

pub(super) fn case(input: &'static str, want: Want) -> Case {
    Case { input, want, notes: &[], clean: false, thought: Thought::Any, direct: false }
}

impl Case {
    pub(super) fn notes(mut self, n: &'static [&'static str]) -> Case {
        self.notes = n;
        self
    }
    pub(super) fn clean(mut self) -> Case {
        self.clean = true;
        self
    }
    pub(super) fn thought(mut self, t: Thought) -> Case {
        self.thought = t;
        self
    }
    pub(super) fn direct(mut self) -> Case {
        self.direct = true;
        self
    }
}

pub(super) fn kind_name(k: &ParseErrorKind) -> &'static str {
    match k {
        ParseErrorKind::Empty => "Empty",
        ParseErrorKind::NoActionOrAnswer => "NoActionOrAnswer",
        ParseErrorKind::IncompleteAction => "IncompleteAction",
        ParseErrorKind::InvalidJson { .. } => "InvalidJson",
        ParseErrorKind::MissingActionKey => "MissingActionKey",
        ParseErrorKind::InvalidActionName { .. } => "InvalidActionName",
        ParseErrorKind::MissingActionInput { .. } => "MissingActionInput",
        ParseErrorKind::EmptyFinalAnswer => "EmptyFinalAnswer",
        ParseErrorKind::AmbiguousToolName { .. } => "AmbiguousToolName",
        ParseErrorKind::UnknownTool { .. } => "UnknownTool",
    }
}

/// Parses `input` with `tools` and asserts the reply or error kind.
pub(super) fn check(input: &str, tools: &[&str], expected: Want) -> Result<Parsed, ParseError> {
    let got = parse_reply(input, tools);
    let ctx = || format!("\ninput: {input:?}\ngot: {got:#?}");
    match (expected, &got) {
        (Tool(tool, json_text), Ok(p)) => {
            let input_v: Value = serde_json::from_str(json_text).expect("test JSON");
            assert_eq!(p.reply, Reply::Action { tool: tool.to_string(), input: input_v }, "{}", ctx());
        }
        (Answer(a), Ok(p)) => {
            assert_eq!(p.reply, Reply::Final { answer: a.to_string() }, "{}", ctx());
        }
        (Fail(kind), Err(e)) => {
            assert_eq!(kind_name(&e.kind), kind, "{}", ctx());
            let msg = e.to_string();
            assert!(msg.len() > 40, "message too short: {msg}");
            assert!(e.excerpt.chars().count() <= 201, "{}", ctx());
        }
        _ => panic!("expected {expected:?}{}", ctx()),
    }
    got
}

/// Checks every case against `tools`, with its notes, thought and direct flag.
pub(super) fn table(tools: &[&str], cases: Vec<Case>) {
    for c in cases {
        let got = check(c.input, tools, c.want);
        if let Ok(p) = &got {
            for n in c.notes {
                assert!(p.notes.iter().any(|x| x.contains(n)), "note {n:?} missing for {:?}: {:?}", c.input, p.notes);
            }
            if c.clean {
                assert!(p.notes.is_empty(), "unexpected notes for {:?}: {:?}", c.input, p.notes);
            }
            match c.thought {
                Thought::Any => {}
                Thought::Is(t) => assert_eq!(p.thought.as_deref(), Some(t), "thought of {:?}", c.input),
                Thought::Absent => assert_eq!(p.thought, None, "thought of {:?}", c.input),
            }
            assert_eq!(p.direct, c.direct, "direct answer or not: {:?}", c.input);
        } else {
            assert!(c.notes.is_empty(), "notes expected but parse failed for {:?}", c.input);
        }
    }
}

// 1. Canonical format.
#[test]
fn canonical() {
    table(TOOLS, vec![
        case("Thought: I should look this up.\nAction:\n```json\n{\"action\": \"Wikipedia\", \"action_input\": \"Albert Einstein\"}\n```",
            Tool("Wikipedia", r#""Albert Einstein""#)).clean().thought(Thought::Is("I should look this up.")),
        case("Thought: compute\r\nAction:\r\n```json\r\n{\"action\": \"Calculator\", \"action_input\": {\"expr\": \"2+2\"}}\r\n```\r\n",
            Tool("Calculator", r#"{"expr": "2+2"}"#)).clean().thought(Thought::Is("compute")),
        case("Action:\n```json\n{\n  \"action\": \"web_search\",\n  \"action_input\": \"rust wasm\"\n}\n```",
            Tool("web_search", r#""rust wasm""#)).clean().thought(Thought::Absent),
        case("  Thought:   multi\n  line thought  \nAction:\n```json\n{\"action\": \"Wikipedia\", \"action_input\": \"x\"}\n```",
            Tool("Wikipedia", r#""x""#)).thought(Thought::Is("multi\n  line thought")),
        case("**Thought:** bold\n**Action:**\n```json\n{\"action\": \"Wikipedia\", \"action_input\": \"x\"}\n```",
            Tool("Wikipedia", r#""x""#)).clean().thought(Thought::Is("bold")),
    ]);
}

// 2. Fence variants.
#[test]
fn fence_variants() {
    table(TOOLS, vec![
        case("Action:\n```\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}\n```", Tool("Calculator", r#""2+2""#)).clean(),
        case("Action:\n```JSON\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}\n```", Tool("Calculator", r#""2+2""#)).clean(),
        case("Action:\n```javascript\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}\n```", Tool("Calculator", r#""2+2""#)).clean(),
        case("Action: ```json {\"action\": \"Calculator\", \"action_input\": \"2+2\"}```", Tool("Calculator", r#""2+2""#)).clean().thought(Thought::Absent),
        case("Thought: t\nAction:\n```json\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}```", Tool("Calculator", r#""2+2""#)).clean().thought(Thought::Is("t")),
        case("Thought: t\n```json\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}\n```", Tool("Calculator", r#""2+2""#)).clean().thought(Thought::Is("t")),
        case("Action:\n````json\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}\n````", Tool("Calculator", r#""2+2""#)).clean(),
        case("Action:```json{\"action\":\"Calculator\",\"action_input\":\"2+2\"}```", Tool("Calculator", r#""2+2""#)).clean(),
        case("Action:\n`{\"action\": \"Calculator\", \"action_input\": \"2+2\"}`", Tool("Calculator", r#""2+2""#)).clean(),
        case("```tool_code\n{\"name\": \"Calculator\", \"arguments\": {\"expr\": \"2+2\"}}\n```", Tool("Calculator", r#"{"expr": "2+2"}"#)),
        case("~~~\n{\"action\": \"Calculator\", \"action_input\": \"2+2\"}\n~~~", Tool("Calculator", r#""2+2""#)).clean(),
    ]);
}

// 3. Unfenced JSON in prose.
#[test]
fn unfenced_json() {
    table(TOOLS, vec![
        case("I will search. {\"action\": \"web_search\", \"action_input\": \"rust wasm\"} Let me know",
            Tool("web_search", r#""rust wasm""#)).clean().thought(Thought::Is("I will search.")),
        case("{\"action\": \"Wikipedia\", \"action_input\": \"Bern\"}", Tool("Wikipedia", r#""Bern""#)).clean().thought(Thought::Absent),
        case("Thought: I'll use {braces} and } stray ones { too.\n{\"action\": \"Wikipedia\", \"action_input\": \"Bern\"}",
            Tool("Wikipedia", r#""Bern""#)),
        case("<tool_call>{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\"}}</tool_call>",
            Tool("web_search", r#"{"query": "x"}"#)).notes(&["accepted \"name\" as \"action\" and \"arguments\" as \"action_input\""]),
    ]);
}

// 4. Unclosed fence.
#[test]
fn unclosed_fence() {
    table(TOOLS, vec![
        case("Thought: x\nAction:\n```json\n{\"action\": \"Calculator\", \"action_input\": \"2*3\"}\n",
            Tool("Calculator", r#""2*3""#)).notes(&["unclosed code fence"]).thought(Thought::Is("x")),
        case("Action:\n```json\n{\"action\": \"Calculator\", \"action_input\": \"2*3\"}",
            Tool("Calculator", r#""2*3""#)).notes(&["unclosed code fence"]),
        // The brace was forgotten, and the fence closes the blob.
        case("Action:\n```json\n{\"action\": \"web_search\", \"action_input\": {\"query\": \"x\"}\n```\nI'll wait.",
            Tool("web_search", r#"{"query": "x"}"#)).notes(&["added 1 missing closing brace"]),
        // Forgotten brace at the very end of the reply.
        case("Action: {\"action\": \"web_search\", \"action_input\": {\"query\": \"x\"",
            Tool("web_search", r#"{"query": "x"}"#)).notes(&["added 2 missing closing braces"]),
    ]);
}

// 5. Prose before and after.
#[test]
fn prose_around() {
    table(TOOLS, vec![
        case("Sure! Let me check that for you.\n\n```json\n{\"action\": \"Wikipedia\", \"action_input\": \"Bern\"}\n```\n\nI'll wait for the result.",
            Tool("Wikipedia", r#""Bern""#)).clean().thought(Thought::Is("Sure! Let me check that for you.")),
        case("Thought: Let me think.\nI need the population.\nAction:\n```json\n{\"action\": \"web_search\", \"action_input\": \"Bern population\"}\n```\nThis should give the number.",
            Tool("web_search", r#""Bern population""#)).clean().thought(Thought::Is("Let me think.\nI need the population.")),
    ]);
}

// 7. JSON action named "Final Answer".
#[test]
fn json_final_answer() {
    table(TOOLS, vec![
        case("```json\n{\"action\": \"Final Answer\", \"action_input\": \"Paris\"}\n```", Answer("Paris")).clean(),
        case("Thought: done\n{\"action\": \"final_answer\", \"action_input\": \"Paris\"}", Answer("Paris")).thought(Thought::Is("done")),
        case("{\"action\": \"Final_Answer\", \"action_input\": \"Paris\"}", Answer("Paris")),
        case("{\"action\": \"FINAL ANSWER\", \"action_input\": \"Paris\"}", Answer("Paris")),
        case("{\"action\": \"Final Answer\", \"action_input\": \"  spaced  \"}", Answer("  spaced  ")),
        case("{\"action\": \"Final Answer\", \"action_input\": {\"city\": \"Paris\", \"pop\": 2}}", Answer(r#"{"city":"Paris","pop":2}"#)),
        case("{\"action\": \"Final Answer\", \"action_input\": 42}", Answer("42")),
        case("{\"action\": \"Final Answer\", \"action_input\": [1, 2]}", Answer("[1,2]")),
        case("{\"action\": \"Final Answer\", \"action_input\": \"\"}", Fail("EmptyFinalAnswer")),
        case("{\"action\": \"Final Answer\", \"action_input\": null}", Fail("EmptyFinalAnswer")),
        case("{\"action\": \"Final Answer\"}", Fail("MissingActionInput")),
    ]);
}

// 8. Several actions.
#[test]
fn several_actions() {
    table(TOOLS, vec![
        case("```json\n[{\"action\": \"web_search\", \"action_input\": \"a\"}, {\"action\": \"Calculator\", \"action_input\": \"1+1\"}, {\"action\": \"wikipedia\", \"action_input\": \"b\"}]\n```",
            Tool("web_search", r#""a""#)).notes(&["3 actions were given; only the first was used (ignored: Calculator, Wikipedia)"]),
        case("Action:\n```json\n{\"action\": \"web_search\", \"action_input\": \"a\"}\n```\nAction:\n```json\n{\"action\": \"Calculator\", \"action_input\": \"1+1\"}\n```",
            Tool("web_search", r#""a""#)).notes(&["2 actions were given; only the first was used (ignored: Calculator)"]),
        case("Action:\n```json\n{\"action\": \"web_search\", \"action_input\": \"a\"}\n```\nAction:\n```json\n{\"action\": \"Calculator\", \"action_input\": [1}\n```",
            Tool("web_search", r#""a""#)).notes(&["a later part of the reply looked like another tool call"]),
        case("Action: Wikipedia\nAction Input: a\nAction: Calculator\nAction Input: 1+1",
            Tool("Wikipedia", r#""a""#)).notes(&["2 actions were given; only the first was used (ignored: Calculator)"]),
    ]);
}

// 9. Types of action_input.
#[test]
fn input_types() {
    table(TOOLS, vec![
        case(r#"{"action": "Calculator", "action_input": "2+2"}"#, Tool("Calculator", r#""2+2""#)).clean(),
        case(r#"{"action": "Calculator", "action_input": {"a": 1, "b": [true, null]}}"#, Tool("Calculator", r#"{"a": 1, "b": [true, null]}"#)).clean(),
        case(r#"{"action": "Calculator", "action_input": 42}"#, Tool("Calculator", "42")).clean(),
        case(r#"{"action": "Calculator", "action_input": -1.5e3}"#, Tool("Calculator", "-1500.0")).clean(),
        case(r#"{"action": "Calculator", "action_input": [1, 2]}"#, Tool("Calculator", "[1, 2]")).clean(),
        case(r#"{"action": "Calculator", "action_input": false}"#, Tool("Calculator", "false")).clean(),
        case(r#"{"action": "Calculator", "action_input": null}"#, Tool("Calculator", r#""""#)).notes(&["action_input was null"]),
        case(r#"{"action": "Calculator", "action_input": ""}"#, Tool("Calculator", r#""""#)).clean(),
        case(r#"{"action": "Calculator"}"#, Fail("MissingActionInput")),
        case("Action:\n```json\n{\"action\": \"Calculator\"}\n```", Fail("MissingActionInput")),
    ]);
    let e = parse_reply(r#"{"action": "Calculator"}"#, TOOLS).unwrap_err();
    assert!(e.to_string().contains("\"action_input\""), "{e}");
    assert!(e.to_string().contains("Calculator"), "{e}");
}

// 11. An action and a final answer in one reply.
#[test]
fn action_and_final() {
    table(TOOLS, vec![
        case("Thought: search\nAction:\n```json\n{\"action\": \"web_search\", \"action_input\": \"x\"}\n```\nObservation: results\nThought: done\nFinal Answer: 42",
            Tool("web_search", r#""x""#)).notes(&["the reply had both an action and a final answer; the action came first, so it was used"]).thought(Thought::Is("search")),
        case("Final Answer: 42\n\nAction:\n```json\n{\"action\": \"web_search\", \"action_input\": \"x\"}\n```",
            Answer("42")).notes(&["the final answer came first", "left out"]),
        case("Action: Wikipedia\nAction Input: Paris\nFinal Answer: Paris", Tool("Wikipedia", r#""Paris""#)).notes(&["both an action and a final answer"]),
        // "Final Answer:" inside the JSON is content, not a rival answer.
        case(r#"{"action": "Wikipedia", "action_input": "Final Answer: trick"}"#, Tool("Wikipedia", r#""Final Answer: trick""#)).clean(),
        // An inline format example naming no real tool does not beat the answer after it.
        case("Thought: The format is {\"action\": \"tool name\", \"action_input\": \"x\"}. I can answer directly.\nFinal Answer: 42",
            Answer("42")).notes(&["ignored an inline JSON object naming the unknown tool 'tool name'"]),
        // ... but a fenced or labelled call is never taken for an example.
        case("```json\n{\"action\": \"tool name\", \"action_input\": \"x\"}\n```\nFinal Answer: 42", Tool("tool name", r#""x""#)),
        // ... and an inline call to a known tool is a call.
        case("I'll use {\"action\": \"Wikipedia\", \"action_input\": \"x\"}\nFinal Answer: 42", Tool("Wikipedia", r#""x""#)).notes(&["both"]),
        // A lowercase "final answer:" in mid-sentence is not a label.
        case("Thought: to get the final answer: I search.\nAction:\n```json\n{\"action\": \"web_search\", \"action_input\": \"x\"}\n```",
            Tool("web_search", r#""x""#)).clean(),
    ]);
}

// 12. Plain final answers.
#[test]
fn final_answers() {
    table(TOOLS, vec![
        case("Final Answer: 42", Answer("42")).clean().thought(Thought::Absent),
        case("Thought: I now know the final answer\nFinal Answer: The capital is **Paris**.\n\n- a\n- b\n",
            Answer("The capital is **Paris**.\n\n- a\n- b")).clean().thought(Thought::Is("I now know the final answer")),
        case("**Final Answer:** Paris", Answer("Paris")),
        case("**Final Answer**: Paris", Answer("Paris")),
        case("final answer: paris", Answer("paris")),
        case("FINAL ANSWER: PARIS", Answer("PARIS")),
        case("Final_Answer: x", Answer("x")),
        case("## Final Answer\nParis is the capital.", Answer("Paris is the capital.")),
        case("Thought: done. Final Answer: 42", Answer("42")).thought(Thought::Is("done.")),
        case("Final Answer:   \n  multi\n  line  ", Answer("multi\n  line")),
        case("Final Answer: ```python\nprint({'a': 1})\n```", Answer("```python\nprint({'a': 1})\n```")).clean(),
        case("Final Answer: {\"name\": \"Bob\", \"age\": 3}", Answer("{\"name\": \"Bob\", \"age\": 3}")).clean(),
        case("Final Answer: first\nFinal Answer: second", Answer("first\nFinal Answer: second")),
        case("> Final Answer: quoted", Answer("quoted")),
    ]);
}

// 13. Errors and key synonyms.
#[test]
fn errors_and_synonyms() {
    table(TOOLS, vec![
        case("", Fail("Empty")),
        case("   \n\t ", Fail("Empty")),
        case("Thought: I think the answer might be 42 but I'm not sure.", Fail("NoActionOrAnswer")),
        case("Thought: I need to search for the population of Bern.", Fail("NoActionOrAnswer")),
        case("Here is data: {\"name\": \"Bob\", \"age\": 3}", Fail("NoActionOrAnswer")),
        case("Action:\n```json\n{\"action\": \"Calculator\", \"action_input\": [1, 2}\n```", Fail("InvalidJson")),
        case("{\"action\": \"Calculator\" \"action_input\": \"2\" \"x\"}", Fail("InvalidJson")),
        case("Action:\n```json\n{\"action\": \"web_search\", \"act", Fail("InvalidJson")),
        case("Action:\n```json\n{\"query\": \"x\"}\n```", Fail("MissingActionKey")),
        case("```json\n{\"query\": \"x\"}\n```", Fail("MissingActionKey")),
        case("```json\n{\"query\": \"x\"}\n```\nFinal Answer: done", Answer("done")),
        case("```json\n{broken\n```\nFinal Answer: done", Answer("done")),
        case(r#"{"tool": "Calculator", "tool_input": "1+1"}"#, Tool("Calculator", r#""1+1""#))
            .notes(&["accepted \"tool\" as \"action\" and \"tool_input\" as \"action_input\""]),
        case(r#"{"name": "web_search", "arguments": "{\"query\": \"x\"}"}"#, Tool("web_search", r#"{"query": "x"}"#))
            .notes(&["\"arguments\" string was decoded as JSON"]),
        case(r#"{"name": "Calculator", "parameters": {"expr": "1+1"}}"#, Tool("Calculator", r#"{"expr": "1+1"}"#)),
        case(r#"{"type": "function", "function": {"name": "web_search", "arguments": {"query": "x"}}}"#, Tool("web_search", r#"{"query": "x"}"#))
            .notes(&["nested under \"function\""]),
        case(r#"{"action": {"tool": "Calculator", "input": "1+1"}}"#, Tool("Calculator", r#""1+1""#)),
        case(r#"{"action": 42, "action_input": "x"}"#, Fail("InvalidActionName")),
        case(r#"{"action": "", "action_input": "x"}"#, Fail("InvalidActionName")),
        case("Thought: hmm\nAction:", Fail("IncompleteAction")),
        case("Thought: hmm\nAction:\nAction Input: x", Fail("IncompleteAction")),
        case("Final Answer:", Fail("EmptyFinalAnswer")),
        case("Thought: done\nFinal Answer:   \n", Fail("EmptyFinalAnswer")),
    ]);
    // Messages are instructions that name the fix.
    let e = parse_reply("Thought: just chatting", TOOLS).unwrap_err();
    assert!(e.to_string().contains("Final Answer:") && e.to_string().contains("\"action_input\""), "{e}");
    let e = parse_reply("Action:\n```json\n{\"action\": \"Calculator\", \"action_input\": [1, 2}\n```", TOOLS).unwrap_err();
    assert!(e.to_string().contains("column"), "reason should quote the parser: {e}");
    assert!(e.excerpt.contains("[1, 2}"), "{:?}", e.excerpt);
    let e = parse_reply("```json\n{\"query\": \"x\"}\n```", TOOLS).unwrap_err();
    assert!(e.to_string().contains("\"action\""), "{e}");
}

#[test]
fn display_messages_are_instructions() {
    let kinds = vec![
        ParseErrorKind::Empty,
        ParseErrorKind::NoActionOrAnswer,
        ParseErrorKind::IncompleteAction,
        ParseErrorKind::InvalidJson { reason: "expected `,` at line 1 column 5".into() },
        ParseErrorKind::MissingActionKey,
        ParseErrorKind::InvalidActionName { found: "42".into() },
        ParseErrorKind::MissingActionInput { tool: "Calculator".into() },
        ParseErrorKind::MissingActionInput { tool: "Final Answer".into() },
        ParseErrorKind::EmptyFinalAnswer,
        ParseErrorKind::AmbiguousToolName { name: "x".into(), candidates: vec!["x_1".into(), "x-1".into()] },
    ];
    for kind in kinds {
        let msg = ParseError { kind: kind.clone(), excerpt: "{oops".into() }.to_string();
        assert!(msg.len() > 50 && !msg.contains('\n'), "{kind:?}: {msg}");
    }
}

// Shape 7: Plan-ReAct section tags in a ReAct reply are read as what they say.
#[test]
fn section_tags_in_a_react_reply() {
    table(TOOLS, vec![
        case("/*REASONING*/ The capital of Peru is well known.\n/*FINAL_ANSWER*/ Lima.", Answer("Lima."))
            .thought(Thought::Is("The capital of Peru is well known.")).notes(&["section tags"]),
        case("Thought: I need a number.\n/*ACTION*/\n```json\n{\"action\": \"Calculator\", \"action_input\": \"12*12\"}\n```",
            Tool("Calculator", r#""12*12""#)).thought(Thought::Is("I need a number.")),
        case("<REASONING>Look it up.</REASONING>\n<ACTION>{\"action\": \"wikipedia\", \"action_input\": \"Lima\"}</ACTION>",
            Tool("Wikipedia", r#""Lima""#)).notes(&["case-insensitively"]).thought(Thought::Is("Look it up.")),
        case("/* FINAL_ANSWER */\nThe river is 6,400 km long.", Answer("The river is 6,400 km long.")),
        case("/*PLANNING*/\n1. Search.\n/*REASONING*/ go\n/*ACTION*/ {\"action\": \"web_search\", \"action_input\": \"river length\"}",
            Tool("web_search", r#""river length""#)).thought(Thought::Is("go")),
        // A tag inside the JSON input is content: the ReAct reading still applies.
        case("{\"action\": \"python_repl\", \"action_input\": \"print('/*ACTION*/')\"}", Tool("python_repl", r#""print('/*ACTION*/')""#)),
        // Tags with nothing to act on are words of a format, not prose: the reply goes back.
        case("/*REASONING*/ I still have to think.", Fail("NoActionOrAnswer")),
        case("/*ACTION*/ I will look it up on the web.", Fail("NoActionOrAnswer")),
    ]);
}

// Shape 8: a final answer followed by stray action lines is the text before them.
#[test]
fn final_answer_then_stray_action_lines() {
    table(TOOLS, vec![
        case("Final Answer: Lima is the capital of Peru.\nAction: None\nAction Input: None", Answer("Lima is the capital of Peru."))
            .notes(&["left out"]),
        case("Thought: done\nFinal Answer: 144\nAction: Calculator\nAction Input: 12*12", Answer("144"))
            .notes(&["left out", "the action was not run"]).thought(Thought::Is("done")),
        case("Final Answer: It rains.\n{\"action\": \"Wikipedia\", \"action_input\": \"rain\"}", Answer("It rains.")),
        case("**Final Answer:** two lines\nof answer\n**Action:** Final Answer", Answer("two lines\nof answer")),
        // JSON data inside the answer is no action line.
        case("Final Answer: {\"name\": \"Bob\"}\nThat is all.", Answer("{\"name\": \"Bob\"}\nThat is all.")).clean(),
        // Nothing before the action lines: there is no answer to give, so it goes back.
        case("Final Answer:\nAction: Calculator\nAction Input: 2+2", Fail("EmptyFinalAnswer")),
    ]);
}

// Shape 9: plain prose without any format word is a direct answer; a reply that uses the
// format (a Thought, say) without an action or answer is still a format error.
#[test]
fn plain_prose_is_a_direct_answer() {
    table(TOOLS, vec![
        case("Lima is the capital of Peru.", Answer("Lima is the capital of Peru.")).direct().notes(&["direct answer"]).thought(Thought::Absent),
        case("Hello! How can I help you today?", Answer("Hello! How can I help you today?")).direct(),
        case("  The answer is 144.\n\nIt is 12 squared.  ", Answer("The answer is 144.\n\nIt is 12 squared.")).direct(),
        case("I think the answer might be 42 but I'm not sure.", Answer("I think the answer might be 42 but I'm not sure.")).direct(),
        case("Use f(x) = {x} to see why; the final answer is 3.", Answer("Use f(x) = {x} to see why; the final answer is 3.")).direct(),
        case("Here is the code:\n```python\nprint(1)\n```", Answer("Here is the code:\n```python\nprint(1)\n```")).direct(),
        case("Paris.\nObs", Answer("Paris.")).direct().notes(&["cut short"]),
        // Words of the format make it an attempt at the format, not prose.
        case("Thought: I need to search for the population of Bern.", Fail("NoActionOrAnswer")),
        case("I will now think. Thought: nothing yet", Fail("NoActionOrAnswer")),
        case("Here is data: {\"name\": \"Bob\", \"age\": 3}", Fail("NoActionOrAnswer")),
        case("The Final Answer will come later.", Fail("NoActionOrAnswer")),
        case("My action: none yet.", Fail("NoActionOrAnswer")),
        case("```json\n{\"query\": \"x\"}\n```", Fail("MissingActionKey")),
        case("Here: {\"broken\": [1}", Fail("NoActionOrAnswer")),
        case("}}} ... ]]", Fail("NoActionOrAnswer")),
    ]);
}

// ---- robustness ----

const TOKENS: &[&str] = &[
    "```", "```json", "json", "{", "}", "\"", "'", "Action:", "Action Input:", "Final Answer:",
    "Observation:", "Thought:", ",", ":", "\\", "[", "]", "\n", "\r\n", " ", "\t", "\"action\"",
    "\"action_input\"", "'action'", "action\\_input", "Wikipedia", "web search", "null", "True",
    "//", "/*", "*/", "**", "\\u00e9", "\\ud800", "é", "東京", "🙂", "\u{0}", "\u{feff}", "\u{2028}",
    "{{", "}}", "final_answer", "Final Answer", "[x]", "-1e9", "tool", "arguments", "name",
    "/*ACTION*/", "/*FINAL_ANSWER*/", "<REASONING>", "</ACTION>", "(", ")", "Calculator(", "Obs", "\n\\_",
    "I will use the search tool", "functions.web_search(",
];

const SEEDS: &[&str] = &[
    "Thought: look it up\nAction:\n```json\n{\"action\": \"Wikipedia\", \"action_input\": \"Einstein's \\\"theory\\\"\"}\n```\n",
    "Action: web_search\nAction Input: {\"query\": \"x\", \"n\": [1, 2]}\nObservation: y\nFinal Answer: z",
    "{'action': 'Calculator', 'action_input': {'a': True, 'b': None,},}",
    "Thought: done\n**Final Answer:** The answer is {x}.\n```python\nprint('hi')\n```",
    "```json\n[{\"tool\": \"python_repl\", \"tool_input\": \"f(x) = {x}\"}, {\"name\": \"a\", \"arguments\": \"{\\\"q\\\": 1}\"}]\n```",
];

/// A canonical-ish reply with random bytes deleted, duplicated or swapped in.
fn mutated_input(rng: &mut Rng) -> String {
    let mut bytes = SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len().max(1);
        let at = rng.below(len).min(bytes.len());
        let span = rng.below(6).min(bytes.len() - at);
        match rng.below(4) {
            0 => {
                bytes.drain(at..at + span);
            }
            1 => {
                let copy = bytes[at..at + span].to_vec();
                bytes.splice(at..at, copy);
            }
            2 => {
                let tok = TOKENS[rng.below(TOKENS.len())].as_bytes().to_vec();
                bytes.splice(at..at, tok);
            }
            _ => {
                if at < bytes.len() {
                    bytes[at] = rng.next() as u8;
                }
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn random_input(rng: &mut Rng) -> String {
    if rng.below(2) == 0 {
        return mutated_input(rng);
    }
    let mut bytes = Vec::new();
    let pieces = rng.below(40);
    for _ in 0..pieces {
        match rng.below(10) {
            0 => {
                for _ in 0..rng.below(6) {
                    bytes.push(rng.next() as u8);
                }
            }
            1 | 2 => bytes.push(b' ' + rng.below(95) as u8),
            _ => bytes.extend_from_slice(TOKENS[rng.below(TOKENS.len())].as_bytes()),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn fuzz(iterations: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..iterations {
        let s = random_input(&mut rng);
        let (kept, cut) = cut_at_observation(&s);
        assert_eq!(kept.len() + cut.map_or(0, str::len), s.len());
        if let Some(c) = cut {
            assert!(c.starts_with("Observation:"));
        }
        match parse_reply(&s, TOOLS) {
            Ok(p) => {
                assert!(!p.direct || matches!(p.reply, Reply::Final { .. }), "{s:?}");
                match &p.reply {
                    Reply::Final { answer } => assert!(!answer.trim().is_empty(), "{s:?}"),
                    Reply::Action { tool, .. } => assert!(!tool.is_empty() && tool.trim() == tool, "{s:?}"),
                }
                if let Some(t) = &p.thought {
                    assert!(!t.is_empty() && t.trim() == t, "{s:?}");
                }
            }
            Err(e) => {
                let _ = e.to_string();
                assert!(e.excerpt.chars().count() <= 201);
            }
        }
    }
}

/// 100k random replies on every run (about 2 s in a debug build).
#[test]
fn fuzz_no_panic_100k() {
    fuzz(100_000, 0x9E37_79B9_7F4A_7C15);
}

/// The full million, too slow for every debug run (about 20 s there, 5 s in
/// release): `cargo test --release -- --ignored fuzz_no_panic_1m`.
#[test]
#[ignore]
fn fuzz_no_panic_1m() {
    fuzz(1_000_000, 0xD1B5_4A32_D192_ED03);
}

/// Canonical replies built from random pieces must read back exactly.
#[test]
fn round_trip() {
    const PIECES: &[&str] = &[
        "a", "Z", " ", "\"", "'", "{", "}", "[", "]", "\\", "\n", "\t", "```", "é", "🙂", "Final Answer: ",
        "Observation: ", "Action: ", ",", ":", "//", "\u{0}",
    ];
    const THOUGHT_PIECES: &[&str] = &["I", " think", " it's", " done.", " {", "}", " 🙂", ",", " (x)"];
    let mut rng = Rng::new(42);
    for _ in 0..20_000 {
        let mut s = String::new();
        for _ in 0..rng.below(12) {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
        let mut thought = String::from("T");
        for _ in 0..rng.below(6) {
            thought.push_str(THOUGHT_PIECES[rng.below(THOUGHT_PIECES.len())]);
        }
        let input = if rng.below(2) == 0 { json!(s) } else { json!({ "q": s, "n": rng.below(100) }) };
        let tool = TOOLS[rng.below(TOOLS.len())];
        let blob = json!({ "action": tool, "action_input": input });
        let blob = if rng.below(2) == 0 { serde_json::to_string(&blob) } else { serde_json::to_string_pretty(&blob) }.unwrap();
        let reply = format!("Thought: {thought}\nAction:\n```json\n{blob}\n```");
        let p = parse_reply(&reply, TOOLS).unwrap_or_else(|e| panic!("{reply:?}: {e}"));
        assert_eq!(p.reply, Reply::Action { tool: tool.into(), input }, "{reply:?}");
        assert_eq!(p.thought.as_deref(), Some(thought.trim()), "{reply:?}");
        assert!(p.notes.is_empty(), "{reply:?}: {:?}", p.notes);

        // An `Action:` line would end the answer (it is read as a stray action), so the
        // answer has none.
        let answer = format!("A{}", s.replace("Action: ", "Act: "));
        let reply = format!("Thought: {thought}\nFinal Answer: {answer}");
        let p = parse_reply(&reply, TOOLS).unwrap_or_else(|e| panic!("{reply:?}: {e}"));
        assert_eq!(p.reply, Reply::Final { answer: answer.trim().to_string() }, "{reply:?}");
    }
}

/// Megabyte-sized hostile replies must finish (no quadratic time, no stack
/// overflow). Timings are printed, not asserted.
#[test]
fn pathological_megabyte_inputs() {
    const MB: usize = 1 << 20;
    let rep = |s: &str| s.repeat(MB / s.len());
    let blob = r#"{"action": "Calculator", "action_input": "1+1"}"#;
    let cases: Vec<(&str, String)> = vec![
        ("open braces", rep("{")),
        ("close braces", rep("}")),
        ("brackets", rep("[")),
        ("balanced nesting", format!("{}{}", "{\"a\":".repeat(MB / 10), "}".repeat(MB / 10))),
        ("nested arrays in object", format!("{{\"action\": \"x\", \"action_input\": {}}}", "[".repeat(MB))),
        ("fences", rep("```")),
        ("fence json brace", rep("```json\n{")),
        ("quotes", rep("\"")),
        ("apostrophes in braces", format!("{{{}", rep("'{"))),
        ("empty objects", rep("{}")),
        ("many blobs", rep(blob)),
        ("many labels", rep("Action:\n")),
        ("mrkl pairs", rep("Action: Wikipedia\nAction Input: x\n")),
        ("final labels", rep("Final Answer: ")),
        ("observations", rep("Observation:")),
        ("backslashes", format!("{{\"action\": \"{}", rep("\\"))),
        ("unterminated string", format!("{{\"action\": \"x\", \"action_input\": \"{}", rep("a"))),
        ("commas", format!("{{{}}}", rep(","))),
        ("comments", format!("{{{}", rep(",/*"))),
        ("quote space", format!("{{\"a\": {}", rep("\" "))),
        ("single quote pairs", format!("{{'a': {}}}", rep("'x' "))),
        ("prose", rep("The quick brown fox's {jumps} over \"the\" lazy dog. ")),
        ("doubled", format!("{{{}}}", rep(blob))),
        ("whitespace then labels", format!("{}{}", rep("Action:\n").get(..MB / 2).unwrap_or(""), " ".repeat(MB / 2))),
    ];
    for (name, text) in &cases {
        let t0 = std::time::Instant::now();
        let r = parse_reply(text, TOOLS);
        let (kept, _) = cut_at_observation(text);
        let elapsed = t0.elapsed();
        println!("{name:>26}: {:>8.1} ms  {}", elapsed.as_secs_f64() * 1e3, match &r {
            Ok(p) => format!("ok {:?}", std::mem::discriminant(&p.reply)),
            Err(e) => format!("err {}", kind_name(&e.kind)),
        });
        assert!(kept.len() <= text.len());
    }
}
