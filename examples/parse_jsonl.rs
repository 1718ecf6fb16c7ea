//! The parser's command-line contract, for checks outside Rust:
//!
//!   cargo run --release --example parse_jsonl < replies.jsonl
//!
//! Reads JSON lines `{"text": "...", "tools": ["..."]}` and writes one JSON line per input:
//! `{"kind":"action","tool":"...","input":<string or JSON>}`, `{"kind":"final","answer":"..."}`
//! or `{"kind":"error","message":"..."}`. A line that is not valid JSON gets an error line too,
//! so output lines always match input lines one to one.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};
use thoughtline::agent::parse::{parse_reply, Reply};

fn answer(line: &str) -> Value {
    let input: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({"kind": "error", "message": format!("input line is not JSON: {e}")}),
    };
    let Some(text) = input["text"].as_str() else {
        return json!({"kind": "error", "message": "input line has no \"text\" string"});
    };
    let tools: Vec<&str> = input["tools"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    match parse_reply(text, &tools) {
        Ok(parsed) => match parsed.reply {
            Reply::Action { tool, input } => json!({"kind": "action", "tool": tool, "input": input}),
            Reply::Final { answer } => json!({"kind": "final", "answer": answer}),
        },
        Err(error) => json!({"kind": "error", "message": error.to_string()}),
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        writeln!(out, "{}", answer(&line))?;
    }
    out.flush()
}
