//! An evaluation as the page keeps it: its cases, configurations and cells (`run.rs`), each
//! finished cell's run whole (a run like any chat's: trace, usage, timeline), and what to store
//! after each operation. Operations return the records to write (`Write`): the head when the
//! evaluation is made, started, stopped or finished, a cell's record when that cell is done.
//! Nothing is written per step, and a case costs the same whatever the number of cases.

use crate::agent::trace::Totals;
use crate::agent::Strategy;
use crate::conversation::{outcome, Run};
use crate::llm::Preset;
use crate::storage::evals::{StoredCase, StoredCell, StoredConfig, StoredEval, StoredVerdict, EVAL_VERSION};

use super::config::Config;
use super::run::{Cell, Done, Evaluation, Job, State};
use super::score::{Scorer, Verdict};
use super::set::Case;

/// What to store after an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    Head,
    /// The cell at this index (case, then configuration).
    Cell(usize),
}

/// An evaluation with its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalRecord {
    pub id: String,
    pub name: String,
    pub created_unix_ms: f64,
    pub configs: Vec<Config>,
    pub eval: Evaluation,
    /// Each cell's run, by cell, once it ended.
    pub runs: Vec<Option<Run>>,
    /// Read from a newer release's record: shown, never run or written.
    pub newer: bool,
}

impl EvalRecord {
    pub fn new(id: String, name: String, cases: Vec<Case>, configs: Vec<Config>, concurrency: usize, now_unix_ms: f64) -> Self {
        let names = configs.iter().enumerate().map(|(i, c)| c.label(i)).collect();
        let eval = Evaluation::new(cases, names, concurrency);
        let runs = vec![None; eval.cells().len()];
        EvalRecord { id, name, created_unix_ms: now_unix_ms, configs, eval, runs, newer: false }
    }

    /// Starts or goes on: the head says it runs, so a reload goes on too.
    pub fn start(&mut self) -> Vec<Write> {
        if self.newer {
            return Vec::new();
        }
        self.eval.start();
        vec![Write::Head]
    }

    /// A cell's run ended: it is scored and kept. Returns whether the judge must be asked, and
    /// what to store (nothing while the judge is asked: the cell is stored with its verdict).
    pub fn finished(&mut self, job: Job, run: Run, now_ms: f64) -> (bool, Vec<Write>) {
        let Some(at) = self.eval.index(job) else { return (false, Vec::new()) };
        let ended = run.outcome.clone().unwrap_or_else(|| outcome(&run.events));
        let was = self.eval.state();
        let judge = self.eval.finished(job, ended, &run.events, now_ms);
        if !matches!(self.eval.cells()[at], Cell::Judging(_) | Cell::Done(_)) {
            // Stopped meanwhile: the run is not this cell's result.
            return (false, Vec::new());
        }
        self.runs[at] = Some(run);
        (judge, self.after(at, was))
    }

    /// The judge's verdict on a cell.
    pub fn judged(&mut self, job: Job, verdict: Verdict) -> Vec<Write> {
        let Some(at) = self.eval.index(job) else { return Vec::new() };
        let was = self.eval.state();
        self.eval.judged(job, verdict);
        self.after(at, was)
    }

    fn after(&self, at: usize, was: State) -> Vec<Write> {
        let mut writes = Vec::new();
        if matches!(self.eval.cells()[at], Cell::Done(_)) {
            writes.push(Write::Cell(at));
        }
        if was != self.eval.state() {
            writes.push(Write::Head);
        }
        writes
    }

    /// Stop: the cells whose runs to stop, and the head to store (it no longer runs).
    pub fn stop(&mut self) -> (Vec<Job>, Vec<Write>) {
        let jobs = self.eval.stop();
        for job in &jobs {
            if let Some(at) = self.eval.index(*job) {
                self.runs[at] = None;
            }
        }
        (jobs, if self.newer { Vec::new() } else { vec![Write::Head] })
    }

    /// A finished cell's run, for its trace.
    pub fn run_of(&self, job: Job) -> Option<&Run> {
        self.runs.get(self.eval.index(job)?)?.as_ref()
    }

    /// A finished cell's run as an OpenTelemetry trace, each score a `gen_ai.evaluation.result`
    /// event on its root span (`otel::evaluation`).
    pub fn traced(&self, at: usize, secrets: &crate::secrets::Secrets) -> Option<crate::otel::RunTrace> {
        use crate::otel::evaluation::{add_scores, Score};
        let Cell::Done(done) = self.eval.cells().get(at)? else { return None };
        let run = self.runs.get(at)?.as_ref()?;
        let id = format!("{}-{at}", self.id);
        let mut trace = crate::otel::run_trace(&crate::otel::RunSource { conversation_id: &id, events: &run.events, parent: None }, secrets)?;
        let scores: Vec<Score<'_>> = done.verdicts.iter().map(|(name, v)| Score { name, pass: v.pass, explanation: &v.reason }).collect();
        add_scores(&mut trace, &self.name, &scores, secrets);
        Some(trace)
    }

    /// Every finished cell's trace, in order.
    pub fn traces(&self, secrets: &crate::secrets::Secrets) -> Vec<crate::otel::RunTrace> {
        (0..self.runs.len()).filter_map(|at| self.traced(at, secrets)).collect()
    }

    /// The head as stored.
    pub fn stored_head(&self, now_unix_ms: f64) -> StoredEval {
        StoredEval {
            version: EVAL_VERSION,
            id: self.id.clone(),
            name: self.name.clone(),
            created_unix_ms: self.created_unix_ms,
            updated_unix_ms: now_unix_ms,
            concurrency: self.eval.concurrency,
            running: self.eval.state() == State::Running,
            cases: self.eval.cases.iter().map(|c| StoredCase { question: c.question.clone(), expected: c.expected.clone(), scorers: c.scorers.iter().map(Scorer::name).collect(), tags: c.tags.clone(), documents: c.documents.clone() }).collect(),
            configs: self.configs.iter().map(|c| StoredConfig {
                name: c.name.clone(),
                preset: c.preset.map(|p| p.id().to_string()),
                model: c.model.clone(),
                strategy: c.strategy.map(|s| s.id().to_string()),
                template: c.template.clone(),
                allow_tools: c.allow_tools,
            }).collect(),
        }
    }

    /// A done cell's record as stored.
    pub fn stored_cell(&self, at: usize) -> Option<StoredCell> {
        let Cell::Done(done) = self.eval.cells().get(at)? else { return None };
        let run = self.runs.get(at)?.as_ref()?;
        let verdicts = done.verdicts.iter().map(|(scorer, v)| StoredVerdict { scorer: scorer.clone(), pass: v.pass, reason: v.reason.clone() }).collect();
        Some(StoredCell::new(at, done.duration_ms, verdicts, run))
    }

    /// An evaluation read back: finished cells keep their results, the rest wait; `running`
    /// says whether it was going on when the page went away.
    pub fn from_stored(head: StoredEval, cells: Vec<StoredCell>, newer: bool) -> (EvalRecord, bool) {
        let cases: Vec<Case> = head.cases.into_iter().map(|c| {
            let mut scorers: Vec<Scorer> = c.scorers.iter().filter_map(|s| Scorer::parse(s).ok()).collect();
            if scorers.is_empty() {
                scorers.push(if c.expected.is_some() { Scorer::Contains } else { Scorer::Answered });
            }
            Case { question: c.question, expected: c.expected, scorers, tags: c.tags, documents: c.documents }
        }).collect();
        let configs: Vec<Config> = head.configs.into_iter().map(|c| Config {
            name: c.name,
            preset: c.preset.as_deref().and_then(Preset::from_id),
            model: c.model,
            strategy: c.strategy.as_deref().and_then(Strategy::from_id),
            template: c.template,
            allow_tools: c.allow_tools,
        }).collect();
        let mut record = EvalRecord::new(head.id, head.name, cases, configs, head.concurrency, head.created_unix_ms);
        record.newer = newer;
        let mut states = vec![Cell::Waiting; record.runs.len()];
        for cell in cells {
            let Some(slot) = states.get_mut(cell.at) else { continue };
            let at = cell.at;
            let duration_ms = cell.duration_ms;
            let verdicts = cell.verdicts.iter().map(|v| (v.scorer.clone(), Verdict { pass: v.pass, reason: v.reason.clone() })).collect();
            let run = cell.into_run();
            let ended = run.outcome.clone().unwrap_or_else(|| outcome(&run.events));
            *slot = Cell::Done(Box::new(Done { outcome: ended, verdicts, totals: Totals::of(&run.events), duration_ms }));
            record.runs[at] = Some(run);
        }
        let names = record.eval.configs.clone();
        record.eval = Evaluation::resumed(record.eval.cases.clone(), names, states, head.concurrency);
        (record, head.running && !newer)
    }
}

/// How a case fared in a later evaluation of the same set, per configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Better,
    Worse,
    Same,
    /// Not run in one of the two.
    Missing,
}

/// Two evaluations of the same set, case by case: for each case of `after` (matched by its
/// question) and each configuration the two share by position, what changed. `None` when
/// they share no question.
pub fn compare(before: &EvalRecord, after: &EvalRecord) -> Option<Vec<(usize, Vec<Change>)>> {
    let configs = before.eval.configs.len().min(after.eval.configs.len());
    let passed = |r: &EvalRecord, case: usize, config: usize| match r.eval.cell(Job { case, config }) {
        Some(Cell::Done(d)) => Some(d.passed()),
        _ => None,
    };
    // Each question's first case in `before`, looked up once per case of `after`.
    let mut earlier: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, b) in before.eval.cases.iter().enumerate() {
        earlier.entry(b.question.as_str()).or_insert(i);
    }
    let rows: Vec<(usize, Vec<Change>)> = after
        .eval
        .cases
        .iter()
        .enumerate()
        .filter_map(|(case, c)| {
            let old = *earlier.get(c.question.as_str())?;
            Some((case, (0..configs).map(|config| match (passed(before, old, config), passed(after, case, config)) {
                (Some(false), Some(true)) => Change::Better,
                (Some(true), Some(false)) => Change::Worse,
                (Some(_), Some(_)) => Change::Same,
                _ => Change::Missing,
            }).collect()))
        })
        .collect();
    (!rows.is_empty()).then_some(rows)
}

#[cfg(test)]
mod tests;
