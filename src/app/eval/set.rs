//! A set of cases for an evaluation, read from what a person pastes or imports: JSON Lines (one
//! object per line) or CSV with the same column names. Each case is a question, optionally the
//! answer expected, the scorers that judge it and tags. A bad row is named by its line with
//! the reason, and the rest is kept; a set is bounded in cases and bytes, and says when it was
//! cut.

use serde_json::Value;

use super::score::Scorer;

/// The most cases a set holds.
pub const MAX_CASES: usize = 1000;
/// The most text a set is read from, in bytes.
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// The longest question or expected answer, in characters.
pub const MAX_FIELD_CHARS: usize = 16 * 1024;

/// One case: a question and how its answer is judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub question: String,
    /// The answer expected, for the scorers that compare with one.
    pub expected: Option<String>,
    /// Every one must pass for the case to pass. Never empty.
    pub scorers: Vec<Scorer>,
    pub tags: Vec<String>,
    /// The person's documents the case is asked about, by name: its run searches only these,
    /// and fails saying so when one is missing. Empty: all of them.
    pub documents: Vec<String>,
}

/// A row that could not be read: its line in the text (from 1) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub line: usize,
    pub reason: String,
}

/// What reading a set gave: the cases, the rows left out, and a note when a limit was reached.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReadSet {
    pub cases: Vec<Case>,
    pub problems: Vec<Problem>,
    pub note: Option<String>,
}

/// Reads a set, as JSON Lines when its first non-empty line is an object, as CSV otherwise.
pub fn read_set(text: &str) -> ReadSet {
    let (text, cut) = bounded(text);
    let mut read = match text.lines().find(|l| !l.trim().is_empty()) {
        Some(first) if first.trim_start().starts_with('{') => read_jsonl(text),
        Some(_) => read_csv(text),
        None => ReadSet { note: Some("The text holds no cases.".into()), ..ReadSet::default() },
    };
    if read.cases.len() > MAX_CASES {
        read.cases.truncate(MAX_CASES);
        read.note = Some(format!("Only the first {MAX_CASES} cases were kept: a set holds at most {MAX_CASES}."));
    }
    if cut {
        read.note = Some(format!("Only the first {} MB of the text were read: a set is read from at most that much.", MAX_BYTES / (1024 * 1024)));
    }
    read
}

/// The cases with every secret of the settings masked out of their text (a key pasted into a
/// set is never stored, shown or exported, as a question's is not).
pub fn masked(cases: &[Case], secrets: &crate::secrets::Secrets) -> Vec<Case> {
    use crate::secrets::mask;
    cases
        .iter()
        .map(|c| Case {
            question: mask(&c.question, secrets),
            expected: c.expected.as_deref().map(|e| mask(e, secrets)),
            scorers: c.scorers.clone(),
            tags: c.tags.iter().map(|t| mask(t, secrets)).collect(),
            documents: c.documents.clone(),
        })
        .collect()
}

/// A set as JSON Lines, the way `read_set` reads it back: to export a set, or to run it again.
pub fn set_jsonl(cases: &[Case]) -> String {
    let mut out = String::new();
    for c in cases {
        let mut line = serde_json::Map::new();
        line.insert("question".into(), Value::String(c.question.clone()));
        if let Some(expected) = &c.expected {
            line.insert("expected".into(), Value::String(expected.clone()));
        }
        line.insert("scorer".into(), Value::String(c.scorers.iter().map(Scorer::name).collect::<Vec<_>>().join("+")));
        if !c.tags.is_empty() {
            line.insert("tags".into(), Value::Array(c.tags.iter().cloned().map(Value::String).collect()));
        }
        if !c.documents.is_empty() {
            line.insert("documents".into(), Value::Array(c.documents.iter().cloned().map(Value::String).collect()));
        }
        out.push_str(&Value::Object(line).to_string());
        out.push('\n');
    }
    out
}

/// The text up to `MAX_BYTES`, cut at the end of a line; and whether it was cut.
fn bounded(text: &str) -> (&str, bool) {
    if text.len() <= MAX_BYTES {
        return (text, false);
    }
    let end = text[..MAX_BYTES].rfind('\n').unwrap_or(0);
    (&text[..end], true)
}

fn read_jsonl(text: &str) -> ReadSet {
    let mut read = ReadSet::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row = serde_json::from_str::<Value>(line).map_err(|e| format!("not a JSON object ({e})")).and_then(|value| case_of_json(&value));
        push(&mut read, i + 1, row);
    }
    read
}

fn push(read: &mut ReadSet, line: usize, row: Result<Case, String>) {
    match row {
        Ok(case) => read.cases.push(case),
        Err(reason) => read.problems.push(Problem { line, reason }),
    }
}

fn case_of_json(value: &Value) -> Result<Case, String> {
    let Value::Object(fields) = value else { return Err("not a JSON object".into()) };
    let text = |name: &str| -> Result<Option<String>, String> {
        match fields.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(format!("\"{name}\" is not text")),
        }
    };
    let list = |name: &str, split: fn(&str) -> Vec<String>| -> Result<Vec<String>, String> {
        match fields.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items.iter().map(|t| t.as_str().map(|t| t.trim().to_string()).ok_or(format!("\"{name}\" holds something that is not text"))).collect(),
            Some(Value::String(s)) => Ok(split(s)),
            Some(_) => Err(format!("\"{name}\" is neither a list nor text")),
        }
    };
    let mut case = case(text("question")?, text("expected")?, text("scorer")?, list("tags", split_tags)?)?;
    case.documents = list("documents", split_names)?;
    Ok(case)
}

/// A case from its fields, checked: a question, scorers that fit what is expected.
fn case(question: Option<String>, expected: Option<String>, scorer: Option<String>, tags: Vec<String>) -> Result<Case, String> {
    let question = question.map(|q| q.trim().to_string()).filter(|q| !q.is_empty()).ok_or("no \"question\"")?;
    let expected = expected.filter(|e| !e.trim().is_empty());
    for (name, value) in [("question", Some(&question)), ("expected", expected.as_ref())] {
        if value.is_some_and(|v| v.chars().count() > MAX_FIELD_CHARS) {
            return Err(format!("\"{name}\" is longer than {MAX_FIELD_CHARS} characters"));
        }
    }
    let scorers = match scorer.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(names) => names.split('+').map(Scorer::parse).collect::<Result<Vec<_>, _>>()?,
        // Without a scorer: the expected answer within the answer, or any answer at all.
        None if expected.is_some() => vec![Scorer::Contains],
        None => vec![Scorer::Answered],
    };
    for s in &scorers {
        s.fits(expected.as_deref())?;
    }
    Ok(Case { question, expected, scorers, tags, documents: Vec::new() })
}

fn split_tags(text: &str) -> Vec<String> {
    text.split([',', ';']).map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect()
}

/// Document names, `;` between (a file's name may hold a comma).
fn split_names(text: &str) -> Vec<String> {
    text.split(';').map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect()
}

/// CSV (RFC 4180: quoted fields may hold commas, quotes doubled, line breaks), its first row
/// naming the columns. Unknown columns are ignored; `question` is required.
fn read_csv(text: &str) -> ReadSet {
    let mut read = ReadSet::default();
    let mut rows = csv_rows(text).into_iter();
    let header = match rows.next() {
        None => return read,
        Some((_, Ok(header))) => header,
        Some((line, Err(reason))) => {
            read.problems.push(Problem { line, reason });
            return read;
        }
    };
    let column = |name: &str| header.iter().position(|h| h.trim().eq_ignore_ascii_case(name));
    let Some(question) = column("question") else {
        read.problems.push(Problem { line: 1, reason: "the first row names no \"question\" column".into() });
        return read;
    };
    let (expected, scorer, tags, documents) = (column("expected"), column("scorer"), column("tags"), column("documents"));
    for (line, row) in rows {
        match row {
            Err(reason) => read.problems.push(Problem { line, reason }),
            Ok(fields) if fields.iter().all(|f| f.trim().is_empty()) => {}
            Ok(fields) => {
                let get = |at: Option<usize>| at.and_then(|i| fields.get(i)).cloned();
                let row = case(get(Some(question)), get(expected), get(scorer), get(tags).map(|t| split_tags(&t)).unwrap_or_default())
                    .map(|c| Case { documents: get(documents).map(|d| split_names(&d)).unwrap_or_default(), ..c });
                push(&mut read, line, row);
            }
        }
    }
    read
}

/// The rows of a CSV text, each with the line it starts on, or why it cannot be read.
fn csv_rows(text: &str) -> Vec<(usize, Result<Vec<String>, String>)> {
    let mut rows = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while chars.peek().is_some() {
        let start = line;
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        let mut error = None;
        loop {
            match chars.next() {
                None if quoted => {
                    error = Some("a quoted field is never closed".to_string());
                    break;
                }
                None => break,
                Some('"') if quoted => {
                    if chars.peek() == Some(&'"') {
                        chars.next();
                        field.push('"');
                    } else {
                        quoted = false;
                    }
                }
                Some('"') if field.is_empty() => quoted = true,
                Some(',') if !quoted => fields.push(std::mem::take(&mut field)),
                Some('\r') if !quoted && chars.peek() == Some(&'\n') => {}
                Some('\n') if !quoted => {
                    line += 1;
                    break;
                }
                Some(c) => {
                    if c == '\n' {
                        line += 1;
                    }
                    field.push(c);
                }
            }
        }
        fields.push(field);
        rows.push((start, error.map_or(Ok(fields), Err)));
    }
    rows
}

#[cfg(test)]
mod tests;
