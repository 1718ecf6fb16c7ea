//! The page's side of an evaluation: it carries out what the app decides (`app::eval::drive`:
//! which worker runs which cell, a page that leaves, the writes not held yet; and
//! `app::eval::record`: scoring and what to store). Each case runs as an ordinary run of the
//! agent in one of a few workers (a `RunControl` each, as many as the evaluation's
//! concurrency), into a conversation of its own. A write that fails is shown and tried again
//! with the next one: what is in memory stays until a write holds it.

use std::rc::Rc;

use leptos::prelude::*;

use crate::app::eval::drive::{Drive, Ended};
use crate::app::eval::record::{EvalRecord, Write};
use crate::app::eval::run::Job;
use crate::app::settings::Settings;
use crate::conversation::{Conversation, Outcome, Run, Save};
use crate::storage::evals::{self, StoredEval};
use crate::storage::store::RecordStore;
use crate::ui::services::page;
use crate::ui::services::run::{Ask, RunControl, Start};

/// One run at a time: the cell it runs, if any.
#[derive(Clone, Copy)]
pub struct Worker {
    pub control: RunControl,
    job: RwSignal<Option<Job>>,
}

impl Worker {
    /// The cell this worker runs now.
    pub fn job(self) -> Option<Job> {
        self.job.get()
    }
}

/// An evaluation as the page drives it. `Copy`: handlers capture it freely.
#[derive(Clone, Copy)]
pub struct Driver {
    settings: ReadSignal<Settings>,
    store: StoredValue<Option<Rc<dyn RecordStore>>, LocalStorage>,
    /// The evaluation open, its workers' cells, its writes not held yet (`app::eval::drive`).
    drive: StoredValue<Drive, LocalStorage>,
    /// Bumped when anything of the open evaluation changed (progress, figures).
    pub tick: RwSignal<u64>,
    /// One per case, bumped when one of its cells changed: a row redraws only for its own.
    rows: StoredValue<Vec<RwSignal<u64>>>,
    pub workers: RwSignal<Vec<Worker>, LocalStorage>,
    /// What failed, in words: a write, the database, a read.
    pub problem: RwSignal<Option<String>>,
    /// Said once about the open evaluation ("Resumed after a reload…").
    pub note: RwSignal<Option<String>>,
    /// Earlier evaluations, newest first.
    pub list: RwSignal<Vec<StoredEval>>,
    /// Bumped when an evaluation is shown (made, or opened).
    pub shown: RwSignal<u64>,
    /// The pane's owner: signals made later (a row per case) belong to it.
    owner: StoredValue<Option<Owner>, LocalStorage>,
}

pub use crate::app::eval::drive::MAX_CONCURRENCY;

impl Driver {
    pub fn new(settings: ReadSignal<Settings>, mcp: crate::ui::services::mcp::Mcp) -> Self {
        let driver = Driver {
            settings,
            store: StoredValue::new_local(None),
            drive: StoredValue::new_local(Drive::new(MAX_CONCURRENCY)),
            tick: RwSignal::new(0),
            rows: StoredValue::new(Vec::new()),
            workers: RwSignal::new_local(Vec::new()),
            problem: RwSignal::new(None),
            note: RwSignal::new(None),
            list: RwSignal::new(Vec::new()),
            shown: RwSignal::new(0),
            owner: StoredValue::new_local(Owner::current()),
        };
        // The page starts to go away: runs end because their requests are cut, so none of it
        // is a result; their cases wait again (the stored head still says it runs, so the next
        // page goes on with them).
        page::on_leaving(move || {
            driver.drive.update_value(Drive::leaving);
            // A timer never fires once the page is gone: if it does, the page stayed.
            page::after(std::time::Duration::from_secs(2), move || {
                if driver.drive.try_update_value(Drive::stayed).unwrap_or(false) {
                    driver.pump();
                }
            });
        });
        // Made with the pane, so each run controller finds the page's contexts (the model in
        // the page, the MCP servers) and is disposed with it.
        driver.workers.set((0..MAX_CONCURRENCY).map(|w| driver.worker(w, mcp)).collect());
        leptos::task::spawn_local(async move {
            match crate::storage::open_records().await {
                Ok(store) => {
                    driver.store.set_value(Some(store));
                    driver.refresh_list().await;
                    // One that was running when its page went away goes on as soon as the
                    // person comes back to evaluations.
                    let running = driver.list.with_untracked(|l| l.iter().find(|h| h.running).map(|h| h.id.clone()));
                    if let Some(id) = running.filter(|_| !driver.running()) {
                        driver.open(id);
                    }
                }
                Err(e) => driver.problem.set(Some(format!("Evaluations cannot be kept in this browser: {e} {}", e.advice()))),
            }
        });
        driver
    }

    /// Reads the open evaluation; `None` when none is open. Call inside a reactive scope that
    /// tracked `tick` or a row.
    pub fn with<T>(self, f: impl FnOnce(&EvalRecord) -> T) -> Option<T> {
        self.drive.with_value(|d| d.record.as_ref().map(f))
    }

    /// The signal of case `case`'s row.
    pub fn row(self, case: usize) -> Option<RwSignal<u64>> {
        self.rows.with_value(|r| r.get(case).copied())
    }

    fn changed(self, case: Option<usize>) {
        if let Some(row) = case.and_then(|c| self.row(c)) {
            row.update(|n| *n += 1);
        }
        self.tick.update(|n| *n += 1);
    }

    async fn refresh_list(self) {
        let Some(store) = self.store.get_value() else { return };
        match evals::list(store.as_ref()).await {
            Ok((heads, problems)) => {
                self.list.set(heads);
                if !problems.is_empty() {
                    self.problem.set(Some(problems.join(" ")));
                }
            }
            Err(e) => self.problem.set(Some(format!("The evaluations could not be listed: {e} {}", e.advice()))),
        }
    }

    fn show(self, record: EvalRecord) {
        let cases = record.eval.cases.len();
        // Workers of an earlier evaluation stop with it.
        self.workers.with_untracked(|w| w.iter().for_each(|w| {
            w.job.set(None);
            w.control.stop();
        }));
        self.drive.update_value(|d| d.show(record));
        let rows = move || (0..cases).map(|_| RwSignal::new(0)).collect();
        self.rows.set_value(match self.owner.get_value() {
            Some(owner) => owner.with(rows),
            None => rows(),
        });
        self.note.set(None);
        self.changed(None);
        self.shown.update(|n| *n += 1);
    }

    /// Makes an evaluation and starts it.
    pub fn create(self, record: EvalRecord) {
        if self.running() {
            return;
        }
        self.show(record);
        self.start();
    }

    /// Opens a stored evaluation; one that was running when its page went away goes on.
    pub fn open(self, id: String) {
        if self.running() {
            return;
        }
        leptos::task::spawn_local(async move {
            let Some(store) = self.store.get_value() else { return };
            match evals::open(store.as_ref(), &id).await {
                Ok(Some(opened)) => {
                    let problems = opened.problems.join(" ");
                    let (record, go_on) = EvalRecord::from_stored(opened.head, opened.cells, opened.newer);
                    let newer = record.newer;
                    self.show(record);
                    self.problem.set((!problems.is_empty()).then_some(problems));
                    if newer {
                        self.note.set(Some("This evaluation was saved by a newer Thoughtline: it is shown as it is and cannot be run here.".into()));
                    } else if go_on {
                        self.note.set(Some("This evaluation was running when its page went away: it goes on, and the cases that had finished are kept.".into()));
                        self.start();
                    }
                }
                Ok(None) => self.problem.set(Some("That evaluation is no longer stored (another tab may have deleted it).".into())),
                Err(e) => self.problem.set(Some(format!("The evaluation could not be read: {e} {}", e.advice()))),
            }
        });
    }

    /// Another stored evaluation, read to compare with the open one.
    pub async fn read(self, id: &str) -> Result<EvalRecord, String> {
        let store = self.store.get_value().ok_or("Evaluations cannot be read in this browser.")?;
        match evals::open(store.as_ref(), id).await {
            Ok(Some(opened)) => Ok(EvalRecord::from_stored(opened.head, opened.cells, true).0),
            Ok(None) => Err("That evaluation is no longer stored.".into()),
            Err(e) => Err(format!("The evaluation could not be read: {e} {}", e.advice())),
        }
    }

    /// Deletes a stored evaluation (not the one running).
    pub fn delete(self, id: String) {
        if self.running() && self.with(|r| r.id == id).unwrap_or(false) {
            return;
        }
        leptos::task::spawn_local(async move {
            let Some(store) = self.store.get_value() else { return };
            if let Err(e) = evals::delete(store.as_ref(), &id).await {
                self.problem.set(Some(format!("The evaluation could not be deleted: {e} {}", e.advice())));
            }
            if self.with(|r| r.id == id).unwrap_or(false) {
                self.drive.update_value(|d| d.record = None);
                self.changed(None);
            }
            self.refresh_list().await;
        });
    }

    /// Whether the open evaluation runs.
    pub fn running(self) -> bool {
        self.drive.with_value(Drive::running)
    }

    /// Starts the open evaluation, or goes on after Stop.
    pub fn start(self) {
        let Some(writes) = self.drive.try_update_value(Drive::start).flatten() else { return };
        self.write(writes);
        self.changed(None);
        self.pump();
    }

    /// A worker: a run controller whose end is reported to the driver.
    fn worker(self, w: usize, mcp: crate::ui::services::mcp::Mcp) -> Worker {
        let on_change = Callback::new(move |_: Save| {
            let Some(worker) = self.workers.with_untracked(|all| all.get(w).copied()) else { return };
            if !worker.control.running.get_untracked() {
                // Carried out after the run controller is done ending the run.
                leptos::task::spawn_local(async move { self.ended(worker, w) });
            }
        });
        Worker { control: RunControl::new(RwSignal::new(Conversation::default()), Some(on_change), mcp), job: RwSignal::new(None) }
    }

    /// Stop: the runs going on are stopped and their cells wait for the next start.
    pub fn stop(self) {
        let Some((stopped, writes)) = self.drive.try_update_value(Drive::stop) else { return };
        let workers = self.workers.get_untracked();
        for worker in stopped.into_iter().filter_map(|w| workers.get(w)) {
            let case = worker.job.get_untracked().map(|j| j.case);
            worker.job.set(None);
            worker.control.stop();
            self.changed(case);
        }
        self.write(writes);
    }

    /// Starts the cells there is room for, each on a worker whose run has ended.
    fn pump(self) {
        let now = page::now_ms();
        let base = self.settings.get_untracked();
        let workers = self.workers.get_untracked();
        // Only a worker whose run has ended: one that Stop cut may still be ending.
        let free: Vec<bool> = workers.iter().map(|w| !w.control.running.get_untracked()).collect();
        let started = self.drive.try_update_value(|d| d.next(now, &free)).unwrap_or_default();
        for (w, job) in started {
            let Some(worker) = workers.get(w).copied() else { continue };
            let Some((id, question, settings, documents)) = self.with(|r| (format!("{}-{}", r.id, r.eval.index(job).unwrap_or(0)), r.eval.cases[job.case].question.clone(), r.configs[job.config].apply(&base), r.eval.cases[job.case].documents.clone())) else { return };
            self.changed(Some(job.case));
            if let Some(missing) = crate::ui::services::session::missing_setting(&settings) {
                // A case that cannot start fails with the reason, as a run that failed would.
                self.drive.update_value(|d| d.release(w));
                let mut run = Run::new(question);
                run.outcome = Some(Outcome::Ended(missing));
                self.done(job, run);
                continue;
            }
            worker.job.set(Some(job));
            worker.control.chat.set(Conversation::new(id));
            worker.control.start_about(Start { settings, ask: Ask::Question(question) }, documents);
        }
    }

    /// A worker's run ended.
    fn ended(self, worker: Worker, w: usize) {
        worker.job.set(None);
        match self.drive.try_update_value(|d| d.ended(w)).unwrap_or(Ended::Free) {
            // Cut by the page going away: the case waits again.
            Ended::Cut(job) => self.changed(Some(job.case)),
            // A run Stop cut has ended: its worker is free for what waits.
            Ended::Free => {
                if self.running() {
                    self.pump();
                }
            }
            Ended::Cell(job) => {
                let Some(run) = worker.control.chat.with_untracked(|c| c.runs.first().cloned()) else { return };
                self.done(job, run);
            }
        }
    }

    fn done(self, job: Job, run: Run) {
        let now = page::now_ms();
        let answer = match &run.outcome {
            Some(Outcome::Answer(a)) => Some(a.clone()),
            _ => None,
        };
        let Some((judge, writes)) = self.drive.try_update_value(|d| d.finished(job, run, now)) else { return };
        self.write(writes);
        self.changed(Some(job.case));
        if judge {
            self.judge(job, answer.unwrap_or_default());
        }
        if self.running() {
            self.pump();
        } else {
            leptos::task::spawn_local(async move { self.refresh_list().await });
        }
    }

    /// Asks the model of the settings as they are to judge a case's answer.
    fn judge(self, job: Job, answer: String) {
        let Some((question, expected)) = self.with(|r| (r.eval.cases[job.case].question.clone(), r.eval.cases[job.case].expected.clone())) else { return };
        let settings = self.settings.get_untracked();
        leptos::task::spawn_local(async move {
            let verdict = judged(&settings, &question, expected.as_deref(), &answer).await;
            // Heard while the page goes away: the case runs again (`Drive::judged`).
            let Some(writes) = self.drive.try_update_value(|d| d.judged(job, verdict)).flatten() else { return };
            self.write(writes);
            self.changed(Some(job.case));
            if self.running() {
                self.pump();
            }
        });
    }

    /// Writes `writes` (already merged with what failed before); a failure is said and they
    /// are written with the next ones.
    fn write(self, writes: Vec<Write>) {
        if writes.is_empty() {
            return;
        }
        let Some(store) = self.store.get_value() else {
            self.drive.update_value(|d| d.write_failed(writes));
            return;
        };
        let now = page::now_ms();
        let Some(records) = self.with(|r| writes.iter().filter_map(|w| match w {
            Write::Head => Some(evals::head_record(&r.stored_head(now))),
            Write::Cell(at) => r.stored_cell(*at).map(|c| evals::cell_record(&r.id, &c)),
        }).collect::<Vec<_>>()) else { return };
        let head = writes.contains(&Write::Head);
        leptos::task::spawn_local(async move {
            match evals::put(store.as_ref(), records).await {
                Ok(()) => {
                    self.problem.set(None);
                    if head {
                        self.refresh_list().await;
                    }
                }
                Err(e) => {
                    self.drive.update_value(|d| d.write_failed(writes));
                    self.problem.set(Some(format!("The evaluation's results are not saved: {e} {} They stay on this page and are saved with the next result.", e.advice())));
                }
            }
        });
    }
}

/// The judge's verdict: the model's reply read leniently, or a failed verdict saying why it
/// could not be asked.
#[cfg(target_arch = "wasm32")]
async fn judged(settings: &Settings, question: &str, expected: Option<&str>, answer: &str) -> crate::app::eval::score::Verdict {
    use crate::agent::ChatModel;
    use crate::app::eval::score::{judge_request, read_judge, Verdict, DEFAULT_RUBRIC};
    let secrets = crate::ui::services::secrets::collect(settings);
    let provider = crate::ui::services::run::provider(settings, &secrets);
    let request = judge_request(question, expected, answer, DEFAULT_RUBRIC);
    match provider.complete(&request, &|_| {}).await {
        Ok(reply) => {
            let verdict = read_judge(&reply.text);
            Verdict { pass: verdict.pass, reason: crate::secrets::mask(&verdict.reason, &secrets) }
        }
        Err(e) => Verdict { pass: false, reason: crate::secrets::mask(&format!("The judge could not be asked: {}", e.message), &secrets) },
    }
}

#[cfg(not(target_arch = "wasm32"))]
async fn judged(_: &Settings, _: &str, _: Option<&str>, _: &str) -> crate::app::eval::score::Verdict {
    crate::app::eval::score::Verdict { pass: false, reason: "The judge needs a browser.".into() }
}
