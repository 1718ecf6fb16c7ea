//! Reading sets: JSON Lines and CSV, defaults, bad rows by line, limits.

use super::*;

#[test]
fn json_lines_read_every_field_and_name_bad_rows_by_line() {
    let text = r#"{"question": "Capital of France?", "expected": "Paris", "scorer": "exact+tool:wikipedia", "tags": ["geo", "easy"]}

{"question": "6*7?", "expected": 42, "scorer": "number"}
{"expected": "x"}
not json
{"question": "Anything?"}
{"question": "Pattern?", "expected": "(", "scorer": "regex"}
{"question": "Odd?", "scorer": "fuzzy"}
{"question": "Tags?", "tags": "a; b"}"#;
    let read = read_set(text);
    assert_eq!(read.cases.len(), 4);
    let first = &read.cases[0];
    assert_eq!((first.question.as_str(), first.expected.as_deref()), ("Capital of France?", Some("Paris")));
    assert_eq!(first.scorers, vec![Scorer::Exact, Scorer::Tool("wikipedia".into())]);
    assert_eq!(first.tags, ["geo", "easy"]);
    assert_eq!(read.cases[1].expected.as_deref(), Some("42"), "a number is read as its text");
    assert_eq!(read.cases[2].scorers, vec![Scorer::Answered], "no expected answer: any answer");
    assert_eq!(read.cases[3].tags, ["a", "b"]);
    let lines: Vec<usize> = read.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [4, 5, 7, 8]);
    assert!(read.problems[0].reason.contains("no \"question\""));
    assert!(read.problems[1].reason.contains("not a JSON object"));
    assert!(read.problems[2].reason.contains("regular expression"));
    assert!(read.problems[3].reason.contains("not a scorer"));
}

#[test]
fn csv_reads_quoted_fields_and_the_same_columns() {
    let text = "question,expected,scorer,tags\n\"Say \"\"hi\"\", twice\",\"hi, hi\",contains,greeting;short\r\nWho wrote it?,,answered,\n,orphan,exact,\n\"Two\nlines?\",yes,,\n";
    let read = read_set(text);
    assert_eq!(read.cases.len(), 3, "{:?}", read.problems);
    assert_eq!(read.cases[0].question, "Say \"hi\", twice");
    assert_eq!(read.cases[0].expected.as_deref(), Some("hi, hi"));
    assert_eq!(read.cases[0].tags, ["greeting", "short"]);
    assert_eq!(read.cases[1].expected, None);
    assert_eq!(read.cases[2].question, "Two\nlines?");
    assert_eq!(read.cases[2].scorers, vec![Scorer::Contains], "expected given: contained");
    assert_eq!(read.problems, vec![Problem { line: 4, reason: "no \"question\"".into() }]);
    assert_eq!(read_set("a,b\n1,2").problems[0].reason, "the first row names no \"question\" column");
    assert!(read_set("question\n\"open").problems[0].reason.contains("never closed"));
}

#[test]
fn a_set_is_bounded_and_says_so() {
    let many: String = (0..MAX_CASES + 5).map(|i| format!("{{\"question\": \"q{i}\"}}\n")).collect();
    let read = read_set(&many);
    assert_eq!(read.cases.len(), MAX_CASES);
    assert!(read.note.unwrap().contains(&MAX_CASES.to_string()));
    let long = format!("{{\"question\": \"{}\"}}", "x".repeat(MAX_FIELD_CHARS + 1));
    assert!(read_set(&long).problems[0].reason.contains("longer than"));
    let huge = "{\"question\": \"q\"}\n".repeat(MAX_BYTES / 17 + 10);
    let read = read_set(&huge);
    assert!(read.note.unwrap().contains("MB"));
    assert!(read_set("  \n ").note.unwrap().contains("no cases"));
}

#[test]
fn a_set_written_as_json_lines_reads_back_as_it_was() {
    let text = "question,expected,scorer,tags\n\"Capital, of France?\",Paris,exact+tool:wikipedia,\"geo, easy\"\nSay hi,,answered+judge,\n\"6*7?\",42,number:0.5,math\n";
    let read = read_set(text);
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    let written = set_jsonl(&read.cases);
    assert_eq!(written.lines().count(), 3);
    assert_eq!(read_set(&written).cases, read.cases);
}

#[test]
fn a_key_pasted_into_a_set_is_masked() {
    let secrets = crate::secrets::Secrets::new(["sk-live-abcdef1234567890"]);
    let read = read_set("{\"question\": \"Is sk-live-abcdef1234567890 valid?\", \"expected\": \"sk-live-abcdef1234567890\", \"tags\": [\"keys\"]}");
    let masked = masked(&read.cases, &secrets);
    assert!(!set_jsonl(&masked).contains("sk-live-abcdef1234567890"), "{masked:?}");
    assert_eq!(masked[0].scorers, read.cases[0].scorers);
}

#[test]
fn a_case_names_the_documents_it_is_asked_about() {
    let jsonl = "{\"question\":\"Where do herons nest?\",\"expected\":\"guide.pdf#2\",\"scorer\":\"cites\",\"documents\":[\"guide.pdf\",\"notes, old.md\"]}\n{\"question\":\"Q2\",\"documents\":\"a.md; b.md\"}\n{\"question\":\"Q3\",\"documents\":5}";
    let read = read_set(jsonl);
    assert_eq!(read.cases[0].documents, ["guide.pdf", "notes, old.md"]);
    assert_eq!(read.cases[0].scorers, [Scorer::Cites]);
    assert_eq!(read.cases[1].documents, ["a.md", "b.md"]);
    assert_eq!(read.problems[0].line, 3);
    assert!(read.problems[0].reason.contains("\"documents\""));
    let again = read_set(&set_jsonl(&read.cases));
    assert_eq!(again.cases, read.cases, "written and read back the same");
    let csv = read_set("question,expected,scorer,documents\nWhere?,guide.pdf#2,cites,guide.pdf;notes.md\nNone,,,\n");
    assert_eq!(csv.cases[0].documents, ["guide.pdf", "notes.md"]);
    assert!(csv.cases[1].documents.is_empty());
}
