//! An evaluation as it runs: every case under every configuration is a cell, run as an ordinary
//! run of the agent. The operations say which cells to start next (at most `concurrency` at
//! once), take each finished run's verdicts, stop, and resume after a reload (a cell that was
//! running starts again; a finished one is never run twice). Time is a number the caller
//! passes, so the estimate of what is left is tested with a clock the test moves.

use crate::agent::trace::Totals;
use crate::agent::Event;
use crate::conversation::Outcome;

use super::score::{Scorer, Verdict};
use super::set::Case;

/// Where a cell is.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Waiting,
    /// Started at this time (ms); its run goes on.
    Running { since_ms: f64 },
    /// Its run ended; the judge is asked (a case with a `judge` scorer).
    Judging(Box<Done>),
    Done(Box<Done>),
}

/// A cell whose run ended: what it answered and how it was judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    pub outcome: Outcome,
    /// One per scorer of the case, in its order (the judge's once it has spoken).
    pub verdicts: Vec<(String, Verdict)>,
    pub totals: Totals,
    /// How long the run took, ms.
    pub duration_ms: f64,
}

impl Done {
    /// A case passes when every scorer passes.
    pub fn passed(&self) -> bool {
        !self.verdicts.is_empty() && self.verdicts.iter().all(|(_, v)| v.pass)
    }
}

/// Whether the evaluation goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Made, or stopped: cells wait for `start`.
    Idle,
    Running,
    /// Every cell is done.
    Finished,
}

/// A cell to run: case `case` under configuration `config`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    pub case: usize,
    pub config: usize,
}

/// How far it is, for the progress bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub passed: usize,
    /// Estimated time left, ms, from the mean time of the runs so far; `None` before the first.
    pub left_ms: Option<f64>,
}

/// One configuration's running totals over its cells done, kept as each cell is done, so
/// the figures a page shows after every case cost the same at the 500th case as at the first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tally {
    pub done: usize,
    pub passed: usize,
    /// Runs that ended without an answer.
    pub errors: usize,
    pub tool_calls: u64,
    pub tokens: u64,
    pub total_ms: f64,
    /// The runs' times, sorted (for percentiles).
    pub times: Vec<f64>,
}

impl Tally {
    fn add(&mut self, d: &Done) {
        self.done += 1;
        self.passed += usize::from(d.passed());
        self.errors += usize::from(!matches!(d.outcome, Outcome::Answer(_)));
        self.tool_calls += u64::from(d.totals.tool_calls);
        self.tokens += u64::from(d.totals.usage.prompt_tokens) + u64::from(d.totals.usage.completion_tokens);
        self.total_ms += d.duration_ms;
        let at = self.times.partition_point(|t| *t <= d.duration_ms);
        self.times.insert(at, d.duration_ms);
    }
}

/// The cases, the configurations' names and every cell, by case then configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub cases: Vec<Case>,
    pub configs: Vec<String>,
    cells: Vec<Cell>,
    pub concurrency: usize,
    state: State,
    /// Per configuration, over its cells done.
    tallies: Vec<Tally>,
    /// No cell before this one waits (where `next` starts looking).
    cursor: usize,
}

impl Evaluation {
    /// Every case under every configuration, none run yet. At least one at a time.
    pub fn new(cases: Vec<Case>, configs: Vec<String>, concurrency: usize) -> Self {
        let cells = vec![Cell::Waiting; cases.len() * configs.len()];
        let tallies = vec![Tally::default(); configs.len()];
        Evaluation { cases, configs, cells, concurrency: concurrency.max(1), state: State::Idle, tallies, cursor: 0 }
    }

    /// An evaluation read back after a reload: a cell that was running is waiting again (its
    /// run went with the page), and it is idle until started.
    pub fn resumed(cases: Vec<Case>, configs: Vec<String>, cells: Vec<Cell>, concurrency: usize) -> Self {
        let mut e = Evaluation::new(cases, configs, concurrency);
        for (slot, cell) in e.cells.iter_mut().zip(cells) {
            *slot = match cell {
                Cell::Running { .. } | Cell::Judging(_) => Cell::Waiting,
                other => other,
            };
        }
        for at in 0..e.cells.len() {
            e.tally(at);
        }
        e.state = if e.cells.iter().all(|c| matches!(c, Cell::Done(_))) { State::Finished } else { State::Idle };
        e
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Each configuration's totals over its cells done.
    pub fn tallies(&self) -> &[Tally] {
        &self.tallies
    }

    /// Counts a cell that has just become done.
    fn tally(&mut self, at: usize) {
        if let Cell::Done(d) = &self.cells[at] {
            let config = at % self.configs.len().max(1);
            self.tallies[config].add(d);
        }
    }

    pub fn cell(&self, job: Job) -> Option<&Cell> {
        self.cells.get(self.at(job)?)
    }

    /// The index of a cell (case, then configuration).
    pub fn index(&self, job: Job) -> Option<usize> {
        self.at(job)
    }

    /// The cell at an index.
    pub fn job_at(&self, at: usize) -> Option<Job> {
        (at < self.cells.len()).then(|| self.job(at))
    }

    fn at(&self, job: Job) -> Option<usize> {
        (job.case < self.cases.len() && job.config < self.configs.len()).then(|| job.case * self.configs.len() + job.config)
    }

    fn job(&self, at: usize) -> Job {
        Job { case: at / self.configs.len(), config: at % self.configs.len() }
    }

    /// Starts (or goes on after Stop or a reload).
    pub fn start(&mut self) {
        if self.state == State::Idle && !self.cells.is_empty() {
            self.state = State::Running;
        }
        self.check_finished();
    }

    /// The cells to start now, marked running: as many as `concurrency` leaves room for, in
    /// order (every configuration of a case before the next case).
    pub fn next(&mut self, now_ms: f64) -> Vec<Job> {
        if self.state != State::Running {
            return Vec::new();
        }
        let busy = self.cells.iter().filter(|c| matches!(c, Cell::Running { .. } | Cell::Judging(_))).count();
        let room = self.concurrency.saturating_sub(busy);
        let mut jobs = Vec::new();
        // Cells before the cursor are all under way or done: the search starts there, so a
        // case costs the same however many came before it.
        while self.cursor < self.cells.len() && self.cells[self.cursor] != Cell::Waiting {
            self.cursor += 1;
        }
        for at in self.cursor..self.cells.len() {
            if jobs.len() >= room {
                break;
            }
            if self.cells[at] == Cell::Waiting {
                self.cells[at] = Cell::Running { since_ms: now_ms };
                jobs.push(self.job(at));
            }
        }
        jobs
    }

    /// A cell `next` gave that could not be started yet (nothing free to run it): it waits
    /// again, first in line.
    pub fn requeue(&mut self, job: Job) {
        if let Some(at) = self.at(job) {
            if matches!(self.cells[at], Cell::Running { .. }) {
                self.cells[at] = Cell::Waiting;
                self.cursor = self.cursor.min(at);
            }
        }
    }

    /// A cell whose judge could not be heard (the page went away): it runs again.
    pub fn requeue_judged(&mut self, job: Job) {
        if let Some(at) = self.at(job) {
            if matches!(self.cells[at], Cell::Judging(_)) {
                self.cells[at] = Cell::Waiting;
                self.cursor = self.cursor.min(at);
            }
        }
    }

    /// A cell's run ended with `outcome` after `events`: it is scored. Returns whether the judge
    /// must be asked now (`judged` then completes the cell). A cell not running (stopped
    /// meanwhile) takes nothing.
    pub fn finished(&mut self, job: Job, outcome: Outcome, events: &[Event], now_ms: f64) -> bool {
        let Some(at) = self.at(job) else { return false };
        let Cell::Running { since_ms } = self.cells[at] else { return false };
        let case = &self.cases[job.case];
        let verdicts: Vec<(String, Verdict)> =
            case.scorers.iter().filter_map(|s| s.score(case.expected.as_deref(), &outcome, events).map(|v| (s.name(), v))).collect();
        // Only an answer is worth a judge; a run without one fails it with its reason.
        let judge = case.scorers.contains(&Scorer::Judge);
        let done = Box::new(Done { outcome, verdicts, totals: Totals::of(events), duration_ms: (now_ms - since_ms).max(0.0) });
        let asks_judge = judge && matches!(done.outcome, Outcome::Answer(_));
        self.cells[at] = if asks_judge {
            Cell::Judging(done)
        } else {
            let mut done = done;
            if judge {
                let why = format!("The run ended without an answer to judge: {}", done.outcome.text());
                done.verdicts.push(("judge".into(), Verdict { pass: false, reason: why }));
            }
            Cell::Done(done)
        };
        self.tally(at);
        self.check_finished();
        asks_judge
    }

    /// The judge's verdict on a cell it was asked about.
    pub fn judged(&mut self, job: Job, verdict: Verdict) {
        let Some(at) = self.at(job) else { return };
        if let Cell::Judging(done) = &self.cells[at] {
            let mut done = done.clone();
            done.verdicts.push(("judge".into(), verdict));
            self.cells[at] = Cell::Done(done);
            self.tally(at);
        }
        self.check_finished();
    }

    /// Stop: the cells running wait again (their runs are stopped by the caller); the finished
    /// ones stay. Returns the cells whose runs to stop.
    pub fn stop(&mut self) -> Vec<Job> {
        let mut stopped = Vec::new();
        for at in 0..self.cells.len() {
            if matches!(self.cells[at], Cell::Running { .. } | Cell::Judging(_)) {
                self.cells[at] = Cell::Waiting;
                self.cursor = self.cursor.min(at);
                stopped.push(self.job(at));
            }
        }
        if self.state == State::Running {
            self.state = State::Idle;
        }
        stopped
    }

    fn check_finished(&mut self) {
        if self.state == State::Running && self.cells.iter().all(|c| matches!(c, Cell::Done(_))) {
            self.state = State::Finished;
        }
    }

    /// Cells done, passed, and the time left at the pace so far.
    pub fn progress(&self) -> Progress {
        let done: usize = self.tallies.iter().map(|t| t.done).sum();
        let passed = self.tallies.iter().map(|t| t.passed).sum();
        let total_ms: f64 = self.tallies.iter().map(|t| t.total_ms).sum();
        let total = self.cells.len();
        let left_ms = (done > 0).then(|| total_ms / done as f64 * (total - done) as f64 / self.concurrency as f64);
        Progress { done, total, passed, left_ms }
    }
}

#[cfg(test)]
mod tests;
