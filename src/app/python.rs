//! The page's Python interpreters: which run has which, which calls wait, when a call has run
//! past its time, and when an interpreter is ended. Plain state: the page service
//! (`ui/services/python.rs`) starts the workers, posts to them and keeps the timers, and tells
//! this what happened (`Msg`); this answers with what to do (`Do`).
//!
//! The rules:
//! - A run gets an interpreter of its own at its first call and keeps it until it ends, so
//!   what one call defines the next can use and no two runs share anything. When the run ends,
//!   its interpreter is ended.
//! - At most `Limits::workers` interpreters live at once (an evaluation runs up to 8 cases at
//!   a time); a run that finds them all taken waits, and is told so.
//! - A run that ends after using Python leaves one fresh interpreter started behind it (a
//!   spare, never used), so the next run's first call does not wait for a start.
//! - A call past its wall time is stopped: interrupted where the worker can be (the page is
//!   cross-origin isolated), the interpreter kept; else, or when the interrupt is not heard
//!   within `Limits::grace_ms`, the interpreter is ended with the run's variables.
//! - After each call, an interpreter whose memory has grown past `Limits::memory_bytes` is
//!   ended; the call's answer says so.

use std::collections::VecDeque;

use crate::tools::python::{bytes, Install, Ran};

pub type WorkerId = u32;
pub type CallId = u64;
/// The run a call belongs to (the page's run id).
pub type RunKey = u64;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// A call's wall time, in ms.
    pub wall_ms: f64,
    /// How long an interrupted call has to end before its interpreter is ended.
    pub grace_ms: f64,
    pub memory_bytes: u64,
    pub workers: usize,
}

/// 500 MB of memory per interpreter after a call (WebAssembly memory never shrinks, so one
/// large allocation would hold it until the interpreter ends; the worker lets it grow to 1 GB
/// during a call, past which an allocation is a MemoryError); three interpreters at once (each is about 30 MB started, see
/// `docs/performance.md`).
pub const MEMORY_BOUND: u64 = 500_000_000;
pub const WORKERS: usize = 3;

impl Default for Limits {
    fn default() -> Self {
        Limits { wall_ms: 10_000.0, grace_ms: 1_500.0, memory_bytes: MEMORY_BOUND, workers: WORKERS }
    }
}

/// What the page service tells the pool.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A run's tool call: run `code` (its wall time, `wall_ms`, and where its interpreter may
    /// install packages from, `install`, from the run's settings).
    Call { run: RunKey, call: CallId, code: String, wall_ms: f64, install: Option<Install> },
    /// The run ended (or its tools were dropped): its interpreter goes.
    RunEnded { run: RunKey },
    /// A worker loaded the runtime (its memory in bytes; whether it can be interrupted), or
    /// could not (why, a sentence).
    Started { worker: WorkerId, result: Result<(u64, bool), String> },
    /// A worker's download went on.
    Loading { worker: WorkerId, loaded: u64, total: u64 },
    /// A worker answered a call; `memory` is its memory after it.
    Answered { worker: WorkerId, call: CallId, ran: Ran, memory: u64 },
    /// A timer the pool asked for (`Do::Wake`) fired.
    TimeUp { worker: WorkerId, call: CallId },
    /// A worker failed on its own (crashed, or its script could not be loaded).
    Died { worker: WorkerId, why: String },
}

/// What the page service must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Do {
    /// Start a worker and load the runtime in it (allowed to install packages from `install`).
    Spawn { worker: WorkerId, install: Option<Install> },
    /// Post code to a started worker.
    Send { worker: WorkerId, call: CallId, code: String },
    /// Ask a running call to stop (the interrupt buffer).
    Interrupt { worker: WorkerId },
    /// End a worker at once (terminate).
    End { worker: WorkerId },
    /// Tell the pool `TimeUp { worker, call }` at `at` (ms, the clock `handle` is given).
    Wake { at: f64, worker: WorkerId, call: CallId },
    /// A call is over: its result, or why it did not run or was stopped.
    Answer { call: CallId, result: Result<Ran, String> },
    /// Tell a waiting call how its start goes.
    Progress { call: CallId, text: String },
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Starting { loaded: u64, total: u64 },
    Ready,
    Busy { call: CallId, interrupted: bool, wall_ms: f64 },
}

#[derive(Debug, Clone)]
struct Worker {
    id: WorkerId,
    phase: Phase,
    /// The run it belongs to; `None`: a spare, never used.
    owner: Option<RunKey>,
    interruptible: bool,
    memory: u64,
    /// Where it may install packages from: a run is given only a worker started as its
    /// settings say.
    install: Option<Install>,
}

#[derive(Debug, Clone)]
struct Waiting {
    run: RunKey,
    call: CallId,
    code: String,
    wall_ms: f64,
    install: Option<Install>,
    /// Told that every interpreter is taken.
    told_full: bool,
}

/// What Settings shows of the runtime (`python-status`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Status {
    /// Interpreters started or starting.
    pub workers: usize,
    pub busy: usize,
    /// Bytes fetched and known total of a start under way.
    pub loading: Option<(u64, u64)>,
    /// The largest memory of a started interpreter.
    pub memory: u64,
    /// Why the last start failed, until one succeeds.
    pub failed: Option<String>,
    /// Calls waiting for an interpreter.
    pub waiting: usize,
    /// Whether an interpreter was ever started in this page.
    pub started_once: bool,
}

impl Status {
    /// The line Settings shows.
    pub fn text(&self) -> String {
        if let Some(why) = &self.failed {
            return format!("Python could not start: {why}");
        }
        if let Some((loaded, total)) = self.loading {
            return if total > 0 { format!("Loading Python: {} of {}", bytes(loaded), bytes(total)) } else { format!("Loading Python: {}", bytes(loaded)) };
        }
        if self.workers == 0 {
            return if self.started_once { "Ready to start again (no interpreter running).".into() } else { "Not loaded: fetched from this site the first time the agent runs code.".into() };
        }
        let mut text = format!("Ready: {} interpreter{} ({} busy), about {} each", self.workers, if self.workers == 1 { "" } else { "s" }, self.busy, bytes(self.memory));
        if self.waiting > 0 {
            text.push_str(&format!(", {} call{} waiting", self.waiting, if self.waiting == 1 { "" } else { "s" }));
        }
        text
    }
}

#[derive(Debug, Default)]
pub struct Pool {
    limits: Limits,
    workers: Vec<Worker>,
    waiting: VecDeque<Waiting>,
    next_worker: WorkerId,
    failed: Option<String>,
    started_once: bool,
}

impl Pool {
    pub fn new(limits: Limits) -> Pool {
        Pool { limits, ..Pool::default() }
    }

    pub fn status(&self) -> Status {
        let loading = self.workers.iter().find_map(|w| match w.phase {
            Phase::Starting { loaded, total } => Some((loaded, total)),
            _ => None,
        });
        Status {
            workers: self.workers.len(),
            busy: self.workers.iter().filter(|w| matches!(w.phase, Phase::Busy { .. })).count(),
            loading,
            memory: self.workers.iter().map(|w| w.memory).max().unwrap_or(0),
            failed: self.failed.clone(),
            waiting: self.waiting.len(),
            started_once: self.started_once,
        }
    }

    pub fn handle(&mut self, msg: Msg, now: f64) -> Vec<Do> {
        let mut out = Vec::new();
        match msg {
            Msg::Call { run, call, code, wall_ms, install } => {
                self.waiting.push_back(Waiting { run, call, code, wall_ms, install, told_full: false });
            }
            Msg::RunEnded { run } => {
                let mut had = None;
                self.waiting.retain(|w| {
                    if w.run == run {
                        out.push(Do::Answer { call: w.call, result: Err("The run ended before this code ran.".into()) });
                    }
                    w.run != run
                });
                while let Some(at) = self.workers.iter().position(|w| w.owner == Some(run)) {
                    let worker = self.workers.remove(at);
                    if let Phase::Busy { call, .. } = worker.phase {
                        out.push(Do::Answer { call, result: Err("The run ended while this code ran: it was stopped.".into()) });
                    }
                    out.push(Do::End { worker: worker.id });
                    had = Some(worker.install);
                }
                // A fresh one for the next run (as this run's settings were), where there is
                // room and none is spare.
                if let Some(install) = had {
                    if self.workers.len() < self.limits.workers && !self.workers.iter().any(|w| w.owner.is_none()) && self.waiting.is_empty() {
                        self.spawn(None, install, &mut out);
                    }
                }
            }
            Msg::Started { worker, result } => match result {
                Ok((memory, interruptible)) => {
                    self.failed = None;
                    self.started_once = true;
                    if let Some(w) = self.worker(worker) {
                        w.phase = Phase::Ready;
                        w.memory = memory;
                        w.interruptible = interruptible;
                    }
                }
                Err(why) => {
                    let Some(at) = self.workers.iter().position(|w| w.id == worker) else { return out };
                    let gone = self.workers.remove(at);
                    self.failed = Some(why.clone());
                    // The calls that waited on this start hear why; no other call is failed by
                    // a start it did not ask for (a spare's failure fails none).
                    let owner = gone.owner;
                    self.waiting.retain(|w| {
                        let its = owner == Some(w.run);
                        if its {
                            out.push(Do::Answer { call: w.call, result: Err(format!("Python could not start: {why}")) });
                        }
                        !its
                    });
                }
            },
            Msg::Loading { worker, loaded, total } => {
                let owner = match self.worker(worker) {
                    Some(w) if matches!(w.phase, Phase::Starting { .. }) => {
                        w.phase = Phase::Starting { loaded, total };
                        w.owner
                    }
                    _ => return out,
                };
                let text = if total > 0 { format!("Starting Python: {} of {} fetched", bytes(loaded), bytes(total)) } else { format!("Starting Python: {} fetched", bytes(loaded)) };
                for w in self.waiting.iter().filter(|w| Some(w.run) == owner) {
                    out.push(Do::Progress { call: w.call, text: text.clone() });
                }
            }
            Msg::Answered { worker, call, mut ran, memory } => {
                let Some(at) = self.workers.iter().position(|w| w.id == worker && matches!(w.phase, Phase::Busy { call: c, .. } if c == call)) else {
                    return out;
                };
                let Phase::Busy { interrupted, wall_ms: wall, .. } = self.workers[at].phase else { return out };
                self.workers[at].phase = Phase::Ready;
                self.workers[at].memory = memory;
                let result = if interrupted {
                    Err(format!("Python stopped this code at its time limit ({}); this run's variables are kept.{}", seconds(wall), where_stopped(&ran)))
                } else {
                    if memory > self.limits.memory_bytes {
                        let gone = self.workers.remove(at);
                        out.push(Do::End { worker: gone.id });
                        ran.note = Some(format!(
                            "(Python's memory grew to {}, past its bound of {}: its interpreter was ended, so this run's variables are gone and the next call starts clean.)",
                            bytes(memory),
                            bytes(self.limits.memory_bytes)
                        ));
                    }
                    Ok(ran)
                };
                out.push(Do::Answer { call, result });
            }
            Msg::TimeUp { worker, call } => {
                let Some(at) = self.workers.iter().position(|w| w.id == worker && matches!(w.phase, Phase::Busy { call: c, .. } if c == call)) else {
                    return out;
                };
                let w = &mut self.workers[at];
                let Phase::Busy { interrupted, wall_ms, .. } = w.phase else { return out };
                if w.interruptible && !interrupted {
                    w.phase = Phase::Busy { call, interrupted: true, wall_ms };
                    out.push(Do::Interrupt { worker });
                    out.push(Do::Wake { at: now + self.limits.grace_ms, worker, call });
                } else {
                    let gone = self.workers.remove(at);
                    out.push(Do::End { worker: gone.id });
                    out.push(Do::Answer {
                        call,
                        result: Err(format!(
                            "Python was stopped: the code ran past its time limit ({}){}. Stopping it ended this run's interpreter, so its variables are gone; the next call starts clean.",
                            seconds(wall_ms),
                            if interrupted { " and did not stop when interrupted" } else { "" }
                        )),
                    });
                }
            }
            Msg::Died { worker, why } => {
                let Some(at) = self.workers.iter().position(|w| w.id == worker) else { return out };
                out.push(Do::End { worker });
                if matches!(self.workers[at].phase, Phase::Starting { .. }) {
                    // As a failed start: the calls that waited on it hear why.
                    out.extend(self.handle(Msg::Started { worker, result: Err(why) }, now));
                    return out;
                }
                if let Phase::Busy { call, .. } = self.workers.remove(at).phase {
                    out.push(Do::Answer {
                        call,
                        result: Err(format!("Python stopped unexpectedly ({why}). This run's variables are gone; the next call starts clean.")),
                    });
                }
            }
        }
        self.dispatch(now, &mut out);
        out
    }

    fn worker(&mut self, id: WorkerId) -> Option<&mut Worker> {
        self.workers.iter_mut().find(|w| w.id == id)
    }

    fn spawn(&mut self, owner: Option<RunKey>, install: Option<Install>, out: &mut Vec<Do>) -> WorkerId {
        let id = self.next_worker;
        self.next_worker += 1;
        self.workers.push(Worker { id, phase: Phase::Starting { loaded: 0, total: 0 }, owner, interruptible: false, memory: 0, install: install.clone() });
        out.push(Do::Spawn { worker: id, install });
        id
    }

    /// Gives waiting calls their interpreter: the run's own, else a spare, else a new one where
    /// there is room; the rest wait, told once why.
    fn dispatch(&mut self, now: f64, out: &mut Vec<Do>) {
        let mut i = 0;
        while i < self.waiting.len() {
            let run = self.waiting[i].run;
            let install = self.waiting[i].install.clone();
            let own = match self.workers.iter().position(|w| w.owner == Some(run)) {
                Some(at) => Some(at),
                None => match self.workers.iter().position(|w| w.owner.is_none() && w.install == install) {
                    Some(at) => {
                        self.workers[at].owner = Some(run);
                        Some(at)
                    }
                    None if self.workers.len() < self.limits.workers => {
                        self.spawn(Some(run), install, out);
                        Some(self.workers.len() - 1)
                    }
                    // A spare started with other settings gives way to one started as this
                    // run's say.
                    None => match self.workers.iter().position(|w| w.owner.is_none()) {
                        Some(at) => {
                            let gone = self.workers.remove(at);
                            out.push(Do::End { worker: gone.id });
                            self.spawn(Some(run), install, out);
                            Some(self.workers.len() - 1)
                        }
                        None => None,
                    },
                },
            };
            match own {
                Some(at) if self.workers[at].phase == Phase::Ready => {
                    let w = self.waiting.remove(i).expect("a waiting call at i");
                    let worker = self.workers[at].id;
                    self.workers[at].phase = Phase::Busy { call: w.call, interrupted: false, wall_ms: w.wall_ms };
                    out.push(Do::Send { worker, call: w.call, code: w.code });
                    out.push(Do::Wake { at: now + w.wall_ms, worker, call: w.call });
                }
                Some(_) => i += 1,
                None => {
                    let w = &mut self.waiting[i];
                    if !w.told_full {
                        w.told_full = true;
                        out.push(Do::Progress { call: w.call, text: format!("Waiting for a Python interpreter: all {} are in use by other runs", self.limits.workers) });
                    }
                    i += 1;
                }
            }
        }
    }
}

/// "10 s", "2.5 s".
fn seconds(ms: f64) -> String {
    let s = ms / 1000.0;
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// Where an interrupted call was: the traceback's last line of the person's code.
fn where_stopped(ran: &Ran) -> String {
    let Some(error) = &ran.error else { return String::new() };
    match error.traceback.lines().rev().find(|l| l.trim_start().starts_with("File \"<code>\"")) {
        Some(line) => format!(" It was at: {}.", line.trim()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
