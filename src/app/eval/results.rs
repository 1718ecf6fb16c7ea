//! What an evaluation found: per configuration its pass rate, tokens, time, errors and tool
//! calls; and the results as files, one line (or row) per case and configuration.

use serde_json::json;

use super::run::{Cell, Done, Evaluation};
use crate::conversation::Outcome;

/// One configuration's figures over the cells done.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    pub passed: usize,
    /// Cells done.
    pub done: usize,
    /// Cells in all.
    pub total: usize,
    /// Runs that ended without an answer.
    pub errors: usize,
    pub tool_calls: u64,
    /// Tokens the provider reported, prompt and reply, over the runs done.
    pub tokens: u64,
    pub mean_tokens: f64,
    pub mean_ms: f64,
    /// The 95th percentile of the runs' times (nearest rank).
    pub p95_ms: f64,
}

impl Summary {
    /// "N/M passed", over the cells done.
    pub fn pass_text(&self) -> String {
        format!("{}/{} passed", self.passed, self.done)
    }
}

/// The figures of each configuration, in order, from its running totals (`run::Tally`).
pub fn summaries(e: &Evaluation) -> Vec<Summary> {
    let per_config = e.cases.len();
    e.tallies()
        .iter()
        .map(|t| {
            let count = t.done.max(1) as f64;
            Summary {
                passed: t.passed,
                done: t.done,
                total: per_config,
                errors: t.errors,
                tool_calls: t.tool_calls,
                tokens: t.tokens,
                mean_tokens: t.tokens as f64 / count,
                mean_ms: t.total_ms / count,
                p95_ms: nearest_rank(&t.times, 0.95),
            }
        })
        .collect()
}

/// How the rows of an evaluation's cases are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Case,
    /// By question, A to Z.
    Question,
    /// Cases any configuration failed first.
    FailuresFirst,
    /// Cases this configuration failed first.
    FailedIn(usize),
    /// The slowest run of the case first.
    Slowest,
    /// The most tokens over the case's runs first.
    Tokens,
}

/// Which cases are shown: only those a configuration failed, only those with a tag that holds
/// `tag` (any case, when empty).
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    pub only_failures: bool,
    pub tag: &'a str,
}

/// The cases to show, in order (a stable sort: ties keep the cases' order).
pub fn ordered(e: &Evaluation, order: Order, filter: Filter<'_>) -> Vec<usize> {
    let n = e.configs.len();
    let done = |case: usize, config: usize| match e.cell(super::run::Job { case, config }) {
        Some(Cell::Done(d)) => Some(d.as_ref()),
        _ => None,
    };
    let all_done = |case: usize| (0..n).filter_map(move |config| done(case, config));
    let failed = |case: usize| all_done(case).any(|d| !d.passed());
    let failed_in = |case: usize, config: usize| done(case, config).is_some_and(|d| !d.passed());
    let tag = filter.tag.trim().to_lowercase();
    let mut cases: Vec<usize> = (0..e.cases.len())
        .filter(|c| !filter.only_failures || failed(*c))
        .filter(|c| tag.is_empty() || e.cases[*c].tags.iter().any(|t| t.to_lowercase().contains(&tag)))
        .collect();
    match order {
        Order::Case => {}
        Order::Question => crate::sort::sort_by(&mut cases, |a, b| e.cases[*a].question.to_lowercase().cmp(&e.cases[*b].question.to_lowercase())),
        Order::FailuresFirst => crate::sort::sort_by(&mut cases, |a, b| failed(*b).cmp(&failed(*a))),
        Order::FailedIn(config) => crate::sort::sort_by(&mut cases, |a, b| failed_in(*b, config).cmp(&failed_in(*a, config))),
        Order::Slowest => {
            let time = |c: usize| all_done(c).map(|d| d.duration_ms).fold(0.0, f64::max);
            crate::sort::sort_by(&mut cases, |a, b| time(*b).total_cmp(&time(*a)))
        }
        Order::Tokens => {
            let tokens = |c: usize| all_done(c).map(|d| u64::from(d.totals.usage.prompt_tokens) + u64::from(d.totals.usage.completion_tokens)).sum::<u64>();
            crate::sort::sort_by(&mut cases, |a, b| tokens(*b).cmp(&tokens(*a)))
        }
    }
    cases
}

fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Each done cell: its case, configuration and what it found.
fn rows(e: &Evaluation) -> impl Iterator<Item = (usize, usize, &Done)> {
    let n = e.configs.len().max(1);
    e.cells().iter().enumerate().filter_map(move |(at, c)| match c {
        Cell::Done(d) => Some((at / n, at % n, d.as_ref())),
        _ => None,
    })
}

fn outcome_kind(o: &Outcome) -> &'static str {
    match o {
        Outcome::Answer(_) => "answer",
        Outcome::Asks(_) => "asks",
        Outcome::Ended(_) => "ended",
    }
}

/// The results as JSON Lines: one object per case and configuration done.
pub fn results_jsonl(e: &Evaluation) -> String {
    let mut out = String::new();
    for (case, config, d) in rows(e) {
        let c = &e.cases[case];
        let line = json!({
            "case": case + 1,
            "question": c.question,
            "expected": c.expected,
            "tags": c.tags,
            "config": e.configs[config],
            "outcome": outcome_kind(&d.outcome),
            "answer": d.outcome.text(),
            "pass": d.passed(),
            "scores": d.verdicts.iter().map(|(s, v)| json!({"scorer": s, "pass": v.pass, "reason": v.reason})).collect::<Vec<_>>(),
            "tokens": u64::from(d.totals.usage.prompt_tokens) + u64::from(d.totals.usage.completion_tokens),
            "duration_ms": d.duration_ms.round(),
            "tool_calls": d.totals.tool_calls,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// The results as CSV, the same fields (the scores as one cell of "scorer: pass/fail, reason").
pub fn results_csv(e: &Evaluation) -> String {
    let mut out = String::from("case,question,expected,config,outcome,answer,pass,scores,tokens,duration_ms,tool_calls\n");
    for (case, config, d) in rows(e) {
        let c = &e.cases[case];
        let scores = d.verdicts.iter().map(|(s, v)| format!("{s}: {}, {}", if v.pass { "pass" } else { "fail" }, v.reason)).collect::<Vec<_>>().join(" | ");
        let fields = [
            (case + 1).to_string(),
            c.question.clone(),
            c.expected.clone().unwrap_or_default(),
            e.configs[config].clone(),
            outcome_kind(&d.outcome).to_string(),
            d.outcome.text().to_string(),
            d.passed().to_string(),
            scores,
            (u64::from(d.totals.usage.prompt_tokens) + u64::from(d.totals.usage.completion_tokens)).to_string(),
            format!("{}", d.duration_ms.round()),
            d.totals.tool_calls.to_string(),
        ];
        out.push_str(&fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break; a field a spreadsheet
/// would run as a formula is prefixed with a quote mark.
fn csv_field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) && crate::number::parse_f64(text).is_none() { format!("'{text}") } else { text.to_string() };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

#[cfg(test)]
mod tests;
