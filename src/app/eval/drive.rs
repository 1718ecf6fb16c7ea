//! An evaluation as the page drives it: which worker runs which cell, what a page that starts
//! to leave does to the cells under way, and the writes not held yet. Plain state: the page
//! service (`ui::services::eval`) starts the runs, asks the judge and writes the records, and
//! tells this what happened; what it returns is what to do next.

use super::record::{EvalRecord, Write};
use super::run::Job;
use super::score::Verdict;
use crate::conversation::Run;

/// The most cases run at once.
pub const MAX_CONCURRENCY: usize = 8;

/// What a worker's ended run means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It ran a cell, and ended on its own: score it (`finished`).
    Cell(Job),
    /// The page is going away and cut it: the cell waits again, for this page if it stays or
    /// for the next one (the stored head still says the evaluation runs).
    Cut(Job),
    /// A run Stop cut: its worker is free again.
    Free,
}

/// The open evaluation, its workers' cells, and its writes.
#[derive(Debug, Default)]
pub struct Drive {
    /// The evaluation open, with its runs.
    pub record: Option<EvalRecord>,
    /// The cell each worker runs, by worker.
    jobs: Vec<Option<Job>>,
    /// Writes not held yet: a failed one is tried again with the next.
    unsaved: Vec<Write>,
    /// The page has started to go away: runs end because their requests are cut, so none of
    /// it is a result.
    leaving: bool,
}

impl Drive {
    pub fn new(workers: usize) -> Self {
        Drive { jobs: vec![None; workers], ..Drive::default() }
    }

    /// Shows `record` (made, or opened): no worker runs any of its cells yet.
    pub fn show(&mut self, record: EvalRecord) {
        self.jobs.iter_mut().for_each(|j| *j = None);
        self.record = Some(record);
    }

    /// The cells to start now, each given a worker: one whose run has ended (`free`, by worker)
    /// among the first `concurrency`. A cell with no such worker waits again, first in line.
    /// Nothing starts while the page leaves.
    pub fn next(&mut self, now_ms: f64, free: &[bool]) -> Vec<(usize, Job)> {
        let Some(record) = self.record.as_mut().filter(|_| !self.leaving) else { return Vec::new() };
        let concurrency = record.eval.concurrency.clamp(1, MAX_CONCURRENCY);
        let mut started = Vec::new();
        for job in record.eval.next(now_ms) {
            let worker = (0..concurrency.min(self.jobs.len())).find(|&w| self.jobs[w].is_none() && free.get(w).copied().unwrap_or(false));
            match worker {
                Some(w) => {
                    self.jobs[w] = Some(job);
                    started.push((w, job));
                }
                None => record.eval.requeue(job),
            }
        }
        started
    }

    /// A cell given by `next` that could not start after all (it failed at once): its worker
    /// is free; the cell's result comes through `finished`.
    pub fn release(&mut self, w: usize) {
        if let Some(job) = self.jobs.get_mut(w) {
            *job = None;
        }
    }

    /// Worker `w`'s run ended.
    pub fn ended(&mut self, w: usize) -> Ended {
        let Some(job) = self.jobs.get_mut(w).and_then(Option::take) else { return Ended::Free };
        if self.leaving {
            if let Some(record) = self.record.as_mut() {
                record.eval.requeue(job);
            }
            return Ended::Cut(job);
        }
        Ended::Cell(job)
    }

    /// A cell's run ended on its own: it is scored. Whether the judge must be asked, and what
    /// to write now (`writes`).
    pub fn finished(&mut self, job: Job, run: Run, now_ms: f64) -> (bool, Vec<Write>) {
        let Some(record) = self.record.as_mut() else { return (false, Vec::new()) };
        let (judge, writes) = record.finished(job, run, now_ms);
        (judge, self.writes(writes))
    }

    /// The judge's verdict on a cell: what to write. A verdict heard while the page leaves is
    /// not one: the cell runs again (`None`).
    pub fn judged(&mut self, job: Job, verdict: Verdict) -> Option<Vec<Write>> {
        let record = self.record.as_mut()?;
        if self.leaving {
            record.eval.requeue_judged(job);
            return None;
        }
        let writes = record.judged(job, verdict);
        Some(self.writes(writes))
    }

    /// Stop: the workers whose runs to stop (their cells wait for the next start), and what to
    /// write.
    pub fn stop(&mut self) -> (Vec<usize>, Vec<Write>) {
        let Some(record) = self.record.as_mut() else { return (Vec::new(), Vec::new()) };
        let (jobs, writes) = record.stop();
        let mut stopped = Vec::new();
        for (w, job) in self.jobs.iter_mut().enumerate() {
            if job.is_some_and(|j| jobs.contains(&j)) {
                *job = None;
                stopped.push(w);
            }
        }
        (stopped, self.writes(writes))
    }

    /// Starts the open evaluation, or goes on after Stop: what to write.
    pub fn start(&mut self) -> Option<Vec<Write>> {
        let writes = self.record.as_mut()?.start();
        Some(self.writes(writes))
    }

    /// The page has started to go away.
    pub fn leaving(&mut self) {
        self.leaving = true;
    }

    /// The page stayed after all (its timer fired): whether cells should start again.
    pub fn stayed(&mut self) -> bool {
        let was = std::mem::replace(&mut self.leaving, false);
        was && self.running()
    }

    /// Whether the open evaluation runs.
    pub fn running(&self) -> bool {
        self.record.as_ref().is_some_and(|r| r.eval.state() == super::run::State::Running)
    }

    /// `new` with every write an earlier failure left: what to write now, in order, once
    /// each. A record of a newer page is never written: its writes are dropped.
    pub fn writes(&mut self, new: Vec<Write>) -> Vec<Write> {
        for w in new {
            if !self.unsaved.contains(&w) {
                self.unsaved.push(w);
            }
        }
        if self.record.as_ref().is_none_or(|r| r.newer) {
            self.unsaved.clear();
            return Vec::new();
        }
        std::mem::take(&mut self.unsaved)
    }

    /// `writes` failed: they are written with the next ones. What is in memory stays.
    pub fn write_failed(&mut self, writes: Vec<Write>) {
        for w in writes {
            if !self.unsaved.contains(&w) {
                self.unsaved.push(w);
            }
        }
    }
}

#[cfg(test)]
mod tests;
