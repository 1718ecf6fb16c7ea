//! The `parse_jsonl` example's contract, run as a real process.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn parse_jsonl_answers_one_line_per_input() {
    let exe = env!("CARGO_BIN_EXE_thoughtline");
    // The example sits next to the binary cargo built for this test run.
    let dir = std::path::Path::new(exe).parent().unwrap().join("examples");
    let example = dir.join(format!("parse_jsonl{}", std::env::consts::EXE_SUFFIX));
    assert!(example.exists(), "build the example first: cargo test builds examples ({})", example.display());
    let mut child = Command::new(example).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let input = concat!(
        r#"{"text": "Thought: look it up\nAction:\n```json\n{\"action\": \"wikipedia\", \"action_input\": \"Einstein\"}\n```", "tools": ["Wikipedia"]}"#, "\n",
        r#"{"text": "Final Answer: 42", "tools": []}"#, "\n",
        r#"{"text": "Action: calculator\nAction Input: {\"expression\": \"2+2\"}", "tools": ["calculator"]}"#, "\n",
        r#"{"text": "", "tools": []}"#, "\n",
        "not json\n",
    );
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0], serde_json::json!({"kind": "action", "tool": "Wikipedia", "input": "Einstein"}));
    assert_eq!(lines[1], serde_json::json!({"kind": "final", "answer": "42"}));
    assert_eq!(lines[2], serde_json::json!({"kind": "action", "tool": "calculator", "input": {"expression": "2+2"}}));
    assert_eq!(lines[3]["kind"], "error");
    assert_eq!(lines[4]["kind"], "error");
}
