//! The tool with a scripted interpreter: what reaches it from each shape of model output, and
//! how every kind of answer reads as an observation.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Value};

use super::*;
use crate::agent::parse::{parse_reply, Reply};
use crate::agent::ChatModel;

/// Answers each call from a script and keeps the code it was given.
struct Scripted {
    answers: RefCell<Vec<Result<Ran, String>>>,
    seen: RefCell<Vec<String>>,
}

impl Interpreter for Scripted {
    fn run<'a>(&'a self, code: &'a str, progress: &'a dyn Fn(&str)) -> LocalBoxFuture<'a, Result<Ran, String>> {
        Box::pin(async move {
            progress("Starting Python: 1.0 MB fetched");
            self.seen.borrow_mut().push(code.to_string());
            self.answers.borrow_mut().remove(0)
        })
    }
}

struct NoModel;
impl ChatModel for NoModel {
    fn complete<'a>(&'a self, _: &'a crate::agent::ChatRequest, _: &'a dyn Fn(crate::agent::Progress<'_>)) -> LocalBoxFuture<'a, Result<crate::agent::ChatResponse, crate::agent::LlmError>> {
        unreachable!("the python tool asked the model")
    }
}

fn tool(answers: Vec<Result<Ran, String>>) -> (Python, Rc<Scripted>) {
    let scripted = Rc::new(Scripted { answers: RefCell::new(answers), seen: RefCell::new(Vec::new()) });
    (Python::new(scripted.clone(), PythonSettings::default()), scripted)
}

fn call(tool: &Python, input: Value) -> Result<String, ToolError> {
    pollster::block_on(crate::agent::tool::call_with_model(tool, &input, &NoModel))
}

/// The input a text ReAct reply gives the tool.
fn react_input(reply: &str) -> Value {
    match parse_reply(reply, &["python", "calculator"]).expect("the reply reads").reply {
        Reply::Action { tool, input } => {
            assert_eq!(tool, "python");
            input
        }
        other => panic!("not an action: {other:?}"),
    }
}

#[test]
fn the_code_reaches_the_interpreter_from_every_shape_a_model_writes() {
    let shapes = [
        // Native tool calling: the arguments as the schema asks.
        json!({"code": "print(sum(range(101)))"}),
        // A bare string.
        json!("print(sum(range(101)))"),
        // A fenced block inside the string, with and without its language.
        json!("```python\nprint(sum(range(101)))\n```"),
        json!("```\nprint(sum(range(101)))\n```"),
        json!({"code": "```py\nprint(sum(range(101)))\n```"}),
        // Another single field name.
        json!({"script": "print(sum(range(101)))"}),
    ];
    for input in shapes {
        let (t, seen) = tool(vec![Ok(Ran { stdout: "5050\n".into(), ..Ran::default() })]);
        assert_eq!(call(&t, input.clone()).unwrap(), "5050", "{input}");
        assert_eq!(seen.seen.borrow()[0], "print(sum(range(101)))", "{input}");
    }
}

#[test]
fn text_react_replies_give_the_code_from_the_json_blob_or_a_fenced_block_in_action_input() {
    // The blob with the code as an escaped JSON string (as instruction-tuned models write it).
    let blob = "Thought: I will add the numbers with Python.\nAction:\n```json\n{\n  \"action\": \"python\",\n  \"action_input\": {\"code\": \"total = 0\\nfor n in range(101):\\n    total += n\\nprint(total)\"}\n}\n```";
    assert_eq!(code_input(&react_input(blob)), "total = 0\nfor n in range(101):\n    total += n\nprint(total)");
    // action_input as a string holding a fenced python block.
    let fenced = "Thought: Python can count this.\nAction:\n```\n{\"action\": \"python\", \"action_input\": \"```python\\nwords = 'a b c'.split()\\nprint(len(words))\\n```\"}\n```";
    assert_eq!(code_input(&react_input(fenced)), "words = 'a b c'.split()\nprint(len(words))");
    // The MRKL form some models fall back to, the code on the lines after Action Input.
    let mrkl = "Thought: compute it\nAction: python\nAction Input: print(2 ** 10)";
    assert_eq!(code_input(&react_input(mrkl)), "print(2 ** 10)");
}

#[test]
fn an_observation_gives_stdout_stderr_the_value_and_a_traceback_each_bounded() {
    assert_eq!(observation(&Ran { stdout: "5050\n".into(), ..Ran::default() }), "5050");
    assert_eq!(observation(&Ran { value: Some("42".into()), ..Ran::default() }), "Out: 42");
    assert_eq!(observation(&Ran::default()), "(The code ran and printed nothing. print() what you need to see.)");
    let both = Ran { stdout: "a\n".into(), stderr: "careful\n".into(), value: Some("'x'".into()), ..Ran::default() };
    assert_eq!(observation(&both), "a\nstderr:\ncareful\nOut: 'x'");
    let raised = Ran {
        stdout: "before\n".into(),
        error: Some(Raised { name: "ZeroDivisionError".into(), traceback: "Traceback (most recent call last):\n  File \"<code>\", line 2, in <module>\nZeroDivisionError: division by zero\n".into() }),
        ..Ran::default()
    };
    assert_eq!(observation(&raised), "before\nTraceback (most recent call last):\n  File \"<code>\", line 2, in <module>\nZeroDivisionError: division by zero");
    // 50 MB printed: the worker kept 64 KB and dropped the rest; the model sees 8,000
    // characters and how much was left out.
    let flood = Ran { stdout: "x".repeat(OUTPUT_KEPT), stdout_cut: 50_000_001 - OUTPUT_KEPT as u64, ..Ran::default() };
    let text = observation(&flood);
    assert!(text.starts_with(&"x".repeat(OUTPUT_SHOWN)) && !text.starts_with(&"x".repeat(OUTPUT_SHOWN + 1)));
    assert!(text.ends_with("… (output cut: 50.0 MB more left out)"), "{}", &text[text.len() - 60..]);
    // A long traceback keeps its end, where the error is named.
    let deep = format!("Traceback (most recent call last):\n{}RecursionError: maximum recursion depth exceeded", "  File \"<code>\", line 1, in f\n".repeat(1000));
    let text = observation(&Ran { error: Some(Raised { name: "RecursionError".into(), traceback: deep }), ..Ran::default() });
    assert!(text.starts_with("… (") && text.ends_with("RecursionError: maximum recursion depth exceeded") && text.chars().count() < OUTPUT_SHOWN + 100);
    // A note from the pool comes last.
    let noted = Ran { stdout: "ok\n".into(), note: Some("(ended)".into()), ..Ran::default() };
    assert_eq!(observation(&noted), "ok\n(ended)");
}

#[test]
fn a_stopped_call_is_a_tool_error_with_its_reason_and_empty_or_huge_code_is_refused() {
    let (t, seen) = tool(vec![Err("Python was stopped: the code ran past its time limit (10 s).".into())]);
    assert_eq!(call(&t, json!({"code": "while True: pass"})).unwrap_err().message, "Python was stopped: the code ran past its time limit (10 s).");
    assert!(call(&t, json!({"code": "  "})).unwrap_err().message.starts_with("No code was given"));
    assert!(call(&t, json!({"code": "x".repeat(CODE_MOST + 1)})).unwrap_err().message.contains("over the 100000"));
    assert_eq!(seen.seen.borrow().len(), 1, "refused code never reaches the interpreter");
}

#[test]
fn the_tool_is_approved_as_set_and_its_silence_limit_outlasts_its_wall_time() {
    let (mut t, _) = tool(vec![]);
    assert!(!t.needs_approval());
    t.settings.approve = true;
    assert!(t.needs_approval());
    assert_eq!(t.timeout_ms(), Some(70_000.0));
    assert_eq!(t.input_schema().unwrap()["required"], json!(["code"]));
}

#[test]
fn installs_reach_only_the_index_the_person_allowed_and_every_request_is_said() {
    let mut settings = PythonSettings::default();
    assert_eq!(settings.install(), None, "off unless turned on");
    let (t, _) = tool(vec![]);
    assert!(t.description().contains("There is no network and nothing can be installed."));
    settings.install_packages = true;
    assert_eq!(
        settings.install(),
        Some(Install { index_urls: vec!["https://pypi.org/simple".into()], hosts: vec!["https://pypi.org".into(), "https://files.pythonhosted.org".into()] })
    );
    assert!(Python::new(Rc::new(Scripted { answers: RefCell::new(vec![]), seen: RefCell::new(vec![]) }), settings.clone()).description().contains("micropip.install"));
    // A mirror: its own origin only.
    settings.package_index = "http://127.0.0.1:8123/simple/".into();
    assert_eq!(settings.install(), Some(Install { index_urls: vec!["http://127.0.0.1:8123/simple".into()], hosts: vec!["http://127.0.0.1:8123".into()] }));
    // Not an http(s) address: nothing is allowed.
    settings.package_index = "file:///etc".into();
    assert_eq!(settings.install(), None);
    let ran = Ran { stdout: "hello\n".into(), network: vec!["GET https://pypi.org/simple/tlhello/ → 200".into()], ..Ran::default() };
    assert_eq!(observation(&ran), "hello\nNetwork (installing packages is allowed in Settings):\n  GET https://pypi.org/simple/tlhello/ → 200");
}
