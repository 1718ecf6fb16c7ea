//! How a case's answer is judged. Every scorer but the judge reads the run's answer and steps
//! and says pass or fail with a reason a person can check; the judge is a model asked with a
//! rubric (`judge_request`, `read_judge`), whose call is a run of its own.

use crate::agent::{ChatRequest, Event, EventKind, Message};
use crate::conversation::Outcome;

/// What a scorer's name in a set says.
#[derive(Debug, Clone, PartialEq)]
pub enum Scorer {
    /// The answer is the expected one, compared normalised (case, spacing, end punctuation).
    Exact,
    /// The answer holds the expected one, normalised.
    Contains,
    /// The answer matches the expected text read as a regular expression.
    Regex,
    /// A number in the answer is the expected number, within `tolerance` (absolute; by default
    /// a millionth of the expected value).
    Number { tolerance: Option<f64> },
    /// The run called this tool.
    Tool(String),
    /// The run ended with an answer.
    Answered,
    /// A model judges the answer against the question, the expected answer and a rubric.
    Judge,
    /// The answer cites (`[n]`) a passage of the expected document, on the expected page when
    /// one is given: `expected` is `file` or `file#page`, several separated by `;` (any one
    /// will do).
    Cites,
}

/// A scorer's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    pub reason: String,
}

impl Verdict {
    fn new(pass: bool, reason: impl Into<String>) -> Self {
        Verdict { pass, reason: reason.into() }
    }
}

impl Scorer {
    /// A scorer from its name in a set: `exact`, `contains`, `regex`, `number` (or
    /// `number:0.5`), `tool:NAME`, `answered`, `judge`, `cites`.
    pub fn parse(name: &str) -> Result<Scorer, String> {
        let name = name.trim();
        let (head, arg) = name.split_once(':').map_or((name, None), |(h, a)| (h, Some(a.trim())));
        Ok(match (head.to_ascii_lowercase().as_str(), arg) {
            ("exact", None) => Scorer::Exact,
            ("contains", None) => Scorer::Contains,
            ("regex", None) => Scorer::Regex,
            ("number", None) => Scorer::Number { tolerance: None },
            ("number", Some(t)) => match crate::number::parse_f64(t).ok_or(()) {
                Ok(t) if t.is_finite() && t >= 0.0 => Scorer::Number { tolerance: Some(t) },
                _ => return Err(format!("the tolerance in \"{name}\" is not a number of zero or more")),
            },
            ("tool", Some(tool)) if !tool.is_empty() => Scorer::Tool(tool.to_string()),
            ("answered", None) => Scorer::Answered,
            ("judge", None) => Scorer::Judge,
            ("cites", None) => Scorer::Cites,
            _ => return Err(format!("\"{name}\" is not a scorer (exact, contains, regex, number, tool:NAME, answered, judge or cites)")),
        })
    }

    /// The name it is written as in a set.
    pub fn name(&self) -> String {
        match self {
            Scorer::Exact => "exact".into(),
            Scorer::Contains => "contains".into(),
            Scorer::Regex => "regex".into(),
            Scorer::Number { tolerance: None } => "number".into(),
            Scorer::Number { tolerance: Some(t) } => format!("number:{t}"),
            Scorer::Tool(tool) => format!("tool:{tool}"),
            Scorer::Answered => "answered".into(),
            Scorer::Judge => "judge".into(),
            Scorer::Cites => "cites".into(),
        }
    }

    /// Whether the scorer can judge a case with this expected answer.
    pub fn fits(&self, expected: Option<&str>) -> Result<(), String> {
        match (self, expected) {
            (Scorer::Cites, None) => Err("the scorer \"cites\" needs an \"expected\" passage, like \"notes.md\" or \"guide.pdf#3\"".into()),
            (Scorer::Cites, Some(places)) => cited_places(places).map(drop),
            (Scorer::Exact | Scorer::Contains | Scorer::Regex | Scorer::Number { .. }, None) => Err(format!("the scorer \"{}\" needs an \"expected\" answer", self.name())),
            (Scorer::Regex, Some(pattern)) => regex_lite::Regex::new(pattern).map(drop).map_err(|e| format!("\"expected\" is not a regular expression ({e})")),
            (Scorer::Number { .. }, Some(n)) => number(n).map(drop).ok_or_else(|| format!("\"expected\" is not a number: {n}")),
            _ => Ok(()),
        }
    }

    /// The verdict on a run that ended with `outcome` after `events`; `None` for the judge,
    /// which needs a model (`judge_request`).
    pub fn score(&self, expected: Option<&str>, outcome: &Outcome, events: &[Event]) -> Option<Verdict> {
        let answer = match outcome {
            Outcome::Answer(a) => Some(a.as_str()),
            _ => None,
        };
        let needs = |what: &str| Verdict::new(false, format!("The run ended without an answer, so {what}."));
        Some(match self {
            Scorer::Answered => match outcome {
                Outcome::Answer(_) => Verdict::new(true, "The run ended with an answer."),
                other => Verdict::new(false, format!("The run ended without an answer: {}", other.text())),
            },
            Scorer::Tool(tool) => {
                let called = events.iter().any(|e| matches!(&e.kind, EventKind::ToolCall { tool: t, .. } if t == tool));
                Verdict::new(called, if called { format!("It called {tool}.") } else { format!("It never called {tool}.") })
            }
            Scorer::Judge => return None,
            _ if answer.is_none() => needs("there is nothing to compare"),
            Scorer::Cites => {
                let places = match cited_places(expected.unwrap_or_default()) {
                    Ok(p) => p,
                    Err(why) => return Some(Verdict::new(false, why)),
                };
                let given = crate::documents::cited::given_in(events);
                let cited: Vec<&crate::documents::cited::Source> = crate::documents::cited::cited_numbers(answer.unwrap_or_default()).into_iter().filter_map(|n| given.iter().find(|s| s.number == n)).collect();
                let hit = cited.iter().find(|s| places.iter().any(|(file, page)| s.name.eq_ignore_ascii_case(file) && page.is_none_or(|p| s.page == Some(p))));
                let said = |s: &crate::documents::cited::Source| s.page.map_or(s.name.clone(), |p| format!("{}#{p}", s.name));
                match hit {
                    Some(s) => Verdict::new(true, format!("The answer cites [{}], {}.", s.number, said(s))),
                    None if cited.is_empty() => Verdict::new(false, "The answer cites no passage the run was given."),
                    None => Verdict::new(false, format!("The answer cites {}, not {}.", cited.iter().map(|s| said(s)).collect::<Vec<_>>().join(", "), expected.unwrap_or_default())),
                }
            }
            Scorer::Exact => {
                let (a, e) = (normalise(answer.unwrap_or_default()), normalise(expected.unwrap_or_default()));
                Verdict::new(a == e, if a == e { "The answer is the one expected.".to_string() } else { format!("Expected \"{e}\", the answer is \"{}\".", short(&a)) })
            }
            Scorer::Contains => {
                let (a, e) = (normalise(answer.unwrap_or_default()), normalise(expected.unwrap_or_default()));
                let pass = a.contains(&e);
                Verdict::new(pass, if pass { format!("The answer holds \"{e}\".") } else { format!("The answer does not hold \"{e}\".") })
            }
            Scorer::Regex => match regex_lite::Regex::new(expected.unwrap_or_default()) {
                Ok(re) => {
                    let pass = re.is_match(answer.unwrap_or_default());
                    Verdict::new(pass, if pass { "The answer matches the pattern." } else { "The answer does not match the pattern." })
                }
                Err(e) => Verdict::new(false, format!("The expected pattern is not a regular expression ({e}).")),
            },
            Scorer::Number { tolerance } => {
                let Some(want) = expected.and_then(number) else { return Some(Verdict::new(false, "The expected answer is not a number.")) };
                let within = tolerance.unwrap_or(want.abs() * 1e-6);
                let found = numbers(answer.unwrap_or_default());
                match found.iter().find(|n| (**n - want).abs() <= within) {
                    Some(n) => Verdict::new(true, format!("The answer says {n}, within {within} of {want}.")),
                    None if found.is_empty() => Verdict::new(false, "The answer holds no number."),
                    None => Verdict::new(false, format!("No number in the answer is within {within} of {want} (it says {}).", found.iter().map(f64::to_string).collect::<Vec<_>>().join(", "))),
                }
            }
        })
    }
}

/// The places a `cites` case expects: (file, page) from `file` or `file#page`, `;` between.
fn cited_places(text: &str) -> Result<Vec<(String, Option<u32>)>, String> {
    let mut out = Vec::new();
    for place in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        match place.rsplit_once('#') {
            Some((file, page)) => match page.trim().parse::<u32>() {
                Ok(page) if !file.trim().is_empty() => out.push((file.trim().to_string(), Some(page))),
                _ => return Err(format!("\"{place}\" is not a passage: write file#page, like guide.pdf#3")),
            },
            None => out.push((place.to_string(), None)),
        }
    }
    if out.is_empty() {
        return Err("\"expected\" names no passage: write file or file#page".into());
    }
    Ok(out)
}

/// Lower case, spacing collapsed, quotes and end punctuation dropped.
pub fn normalise(text: &str) -> String {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let joined = words.join(" ");
    joined.trim_matches(|c: char| matches!(c, '.' | '!' | '?' | '"' | '\'' | '“' | '”' | '`') || c.is_whitespace()).to_string()
}

fn short(text: &str) -> String {
    let cut: String = text.chars().take(120).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// A number as a person writes one: thousands separators and a leading plus allowed.
fn number(text: &str) -> Option<f64> {
    let cleaned: String = text.trim().chars().filter(|c| !matches!(c, ',' | '_' | ' ')).collect();
    crate::number::parse_f64(cleaned.trim_start_matches('+')).filter(|n| n.is_finite())
}

/// Every number written in a text, in order.
fn numbers(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<f64>| {
        let t = current.trim_end_matches([',', '.']);
        if t.chars().any(|c| c.is_ascii_digit()) {
            if let Some(n) = number(t) {
                out.push(n);
            }
        }
        current.clear();
    };
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let part = c.is_ascii_digit()
            || (matches!(c, '.' | ',') && !current.is_empty() && next_digit)
            || (c == '-' && current.is_empty() && next_digit && !chars.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric()))
            || (matches!(c, 'e' | 'E') && !current.is_empty() && (next_digit || (chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(char::is_ascii_digit))));
        if part || (c == '-' && matches!(current.chars().last(), Some('e' | 'E'))) {
            current.push(c);
        } else {
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    out
}

/// The rubric the judge is given when the set names none.
pub const DEFAULT_RUBRIC: &str = "The answer passes when it answers the question correctly and agrees with the expected answer where one is given; wording may differ. It fails when it is wrong, evades the question or contradicts the expected answer.";

/// The judge's request: the question, the expected answer if any, the answer, the rubric; the
/// verdict asked for as one line.
pub fn judge_request(question: &str, expected: Option<&str>, answer: &str, rubric: &str) -> ChatRequest {
    let system = "You grade answers. Read the question, the expected answer if there is one, the answer to grade and the rubric. Reply with exactly one line: PASS or FAIL, a colon, and one sentence saying why.";
    let mut user = format!("Question:\n{question}\n\n");
    if let Some(expected) = expected {
        user.push_str(&format!("Expected answer:\n{expected}\n\n"));
    }
    user.push_str(&format!("Answer to grade:\n{answer}\n\nRubric:\n{rubric}"));
    ChatRequest::new(vec![Message::system(system), Message::user(user)], 0.0, Some(200))
}

/// The judge's verdict from its reply: a line starting with PASS or FAIL (a label before it,
/// Markdown emphasis and case are forgiven). A reply with neither is a failed case that says so.
pub fn read_judge(reply: &str) -> Verdict {
    for line in reply.lines() {
        let plain: String = line.trim().trim_start_matches(['*', '#', '-', '>', ' ']).to_string();
        let upper = plain.to_ascii_uppercase();
        let body = upper.strip_prefix("VERDICT").map(|r| r.trim_start_matches([':', ' ', '*'])).unwrap_or(&upper);
        for (word, pass) in [("PASS", true), ("FAIL", false)] {
            if body.starts_with(word) {
                let at = plain.len() - body.len() + word.len();
                let why = plain.get(at..).unwrap_or_default().trim_start_matches(['*', ':', '-', '—', ' ', '.']).trim();
                return Verdict::new(pass, if why.is_empty() { format!("The judge said {word} without a reason.") } else { why.to_string() });
            }
        }
    }
    Verdict::new(false, format!("The judge's reply held no PASS or FAIL: \"{}\".", short(reply.trim())))
}

#[cfg(test)]
mod tests;
