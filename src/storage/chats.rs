//! The stored shapes of a conversation, apart from the record itself (`crate::conversation`),
//! and the rules for reading them back: tolerant, and every earlier version. Written by serde,
//! read by hand (`read.rs`): a missing field takes its value from its struct's `Default`.
//!
//! Version 3 stores a chat as several records, so a save during a run writes only what changed:
//! - the **head**, under the chat's id: version, id, title and how many runs it has;
//! - one **run** record per run, under `{id}/{run}`: question, clarifications, outcome, whether
//!   its steps were kept and how many events it has;
//! - its events in **chunks** of `CHUNK` events, under `{id}/{run}/{chunk}`.
//!
//! Version 4 is version 3 with branches (`conversation::Branch`): a run's record lists them, and
//! each branch's own events (from its `Forked` event on; the ones it shares with the line it
//! came from are not stored twice) go in chunks under `{id}/{run}/b{branch}/{chunk}`. A chat
//! is written as version 4 only when it has a branch, so a page of the previous release still
//! opens every other chat (and refuses, without touching, one with branches).
//!
//! Versions 1 (the `localStorage` release) and 2 kept one record per chat: its messages and
//! the trace of its latest run only. They read as runs: the messages give each run's question
//! and outcome, the trace goes to the run it belongs to, and the other runs say their steps
//! were not kept.

use std::collections::BTreeMap;

use serde::Serialize;

use super::lenient::{read_lenient, stored_version};
use crate::agent::trace::question;
use crate::agent::{Event, EventKind};
use crate::conversation::{Attached, Branch, Clarification, Conversation, Outcome, Run};

pub const CHAT_VERSION: u32 = 4;
/// The version of a chat without branches, which the previous release reads too.
pub const PLAIN_VERSION: u32 = 3;

/// The version `chat` is written as: the oldest that holds all of it.
pub fn version_of(chat: &Conversation) -> u32 {
    if chat.runs.iter().any(|r| !r.branches.is_empty()) {
        CHAT_VERSION
    } else {
        PLAIN_VERSION
    }
}
/// Events per stored chunk: a save rewrites at most the chunk still filling.
pub const CHUNK: usize = 8;

/// The key of run `run`'s record.
pub fn run_key(id: &str, run: usize) -> String {
    format!("{id}/{run}")
}

/// The key of chunk `chunk` of run `run`'s events.
pub fn chunk_key(id: &str, run: usize, chunk: usize) -> String {
    format!("{id}/{run}/{chunk}")
}

/// The key of chunk `chunk` of line `line`'s own events (line 0: the run as first asked).
pub fn line_chunk_key(id: &str, run: usize, line: usize, chunk: usize) -> String {
    match line {
        0 => chunk_key(id, run, chunk),
        _ => format!("{id}/{run}/b{line}/{chunk}"),
    }
}

/// The head record of a version 3 chat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredHead {
    pub version: u32,
    pub id: String,
    /// Empty when the person never named it: the first question's title is used.
    pub title: String,
    pub runs: u32,
}

impl Default for StoredHead {
    fn default() -> Self {
        StoredHead { version: CHAT_VERSION, id: String::new(), title: String::new(), runs: 0 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Answer,
    Asks,
    Ended,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredOutcome {
    pub kind: OutcomeKind,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredClarification {
    pub asked: String,
    pub reply: String,
}

/// A run as stored (its events apart) and as exported (its events inline, `trace`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredRun {
    pub question: String,
    pub clarified: Vec<StoredClarification>,
    /// The MCP resources attached to the question (none for most runs, and for every run
    /// written before they were kept).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<StoredAttached>,
    pub steps_kept: bool,
    /// `None` while the run goes on.
    pub outcome: Option<StoredOutcome>,
    /// How many events the run has (stored in chunks beside it).
    pub events: u32,
    /// Its branches, in the order they were made (version 4).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<StoredBranch>,
    /// The line shown and remembered (0: the run as first asked).
    #[serde(skip_serializing_if = "is_zero")]
    pub shown: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for StoredRun {
    fn default() -> Self {
        StoredRun { question: String::new(), clarified: Vec::new(), attached: Vec::new(), steps_kept: true, outcome: None, events: 0, branches: Vec::new(), shown: 0 }
    }
}

/// A branch as stored: where it was made, and how many events of its own it has (stored in
/// chunks beside it, `line_chunk_key`). Read by hand (`read.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StoredBranch {
    pub parent: u32,
    pub at: u32,
    pub question: String,
    pub clarified: Vec<StoredClarification>,
    pub outcome: Option<StoredOutcome>,
    pub events: u32,
}

impl StoredBranch {
    fn of(b: &Branch) -> Self {
        StoredBranch {
            parent: b.parent as u32,
            at: b.at as u32,
            question: b.question.clone(),
            clarified: clarifications(&b.clarified),
            outcome: b.outcome.as_ref().map(StoredOutcome::from),
            events: b.events.len().saturating_sub(b.at) as u32,
        }
    }
}

fn clarifications(list: &[Clarification]) -> Vec<StoredClarification> {
    list.iter().map(|c| StoredClarification { asked: c.asked.clone(), reply: c.reply.clone() }).collect()
}

impl From<&Outcome> for StoredOutcome {
    fn from(o: &Outcome) -> Self {
        let kind = match o {
            Outcome::Answer(_) => OutcomeKind::Answer,
            Outcome::Asks(_) => OutcomeKind::Asks,
            Outcome::Ended(_) => OutcomeKind::Ended,
        };
        StoredOutcome { kind, text: o.text().to_string() }
    }
}

impl From<StoredOutcome> for Outcome {
    fn from(o: StoredOutcome) -> Self {
        match o.kind {
            OutcomeKind::Answer => Outcome::Answer(o.text),
            OutcomeKind::Asks => Outcome::Asks(o.text),
            OutcomeKind::Ended => Outcome::Ended(o.text),
        }
    }
}

/// An MCP resource attached to a question, as stored and exported. Read by hand (`read.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredAttached {
    pub name: String,
    pub uri: String,
    pub server: String,
}

impl StoredRun {
    pub fn of(run: &Run) -> Self {
        StoredRun {
            question: run.question.clone(),
            clarified: clarifications(&run.clarified),
            attached: run.attached.iter().map(|a| StoredAttached { name: a.name.clone(), uri: a.uri.clone(), server: a.server.clone() }).collect(),
            steps_kept: run.steps_kept,
            outcome: run.outcome.as_ref().map(StoredOutcome::from),
            events: run.events.len() as u32,
            branches: run.branches.iter().map(StoredBranch::of).collect(),
            shown: run.shown_number() as u32,
        }
    }

    /// The run, with the events of the run as first asked and each branch's own events
    /// (`own[i]` for branch `i + 1`). A branch that cannot stand (it names a later line, or
    /// forks past the end of its parent) is left out and named in `dropped`.
    pub fn into_run(self, events: Vec<Event>, own: Vec<Vec<Event>>, dropped: &mut Vec<String>) -> Run {
        let mut run = Run {
            question: self.question,
            clarified: self.clarified.into_iter().map(|c| Clarification { asked: c.asked, reply: c.reply }).collect(),
            attached: self.attached.into_iter().map(|a| Attached { name: a.name, uri: a.uri, server: a.server }).collect(),
            events,
            steps_kept: self.steps_kept,
            outcome: self.outcome.map(Outcome::from),
            branches: Vec::new(),
            shown: 0,
        };
        // Numbers of the stored branches as kept here (one left out renumbers the later ones).
        let mut kept: Vec<Option<usize>> = vec![Some(0)];
        for (i, (b, own)) in self.branches.into_iter().zip(own.into_iter().chain(std::iter::repeat_with(Vec::new))).enumerate() {
            let parent = kept.get(b.parent as usize).copied().flatten().filter(|_| (b.parent as usize) <= i);
            let shared = parent.and_then(|p| run.line(p)).and_then(|line| line.events.get(..b.at as usize)).map(<[Event]>::to_vec);
            let (Some(parent), Some(mut whole)) = (parent, shared) else {
                dropped.push(format!("branch {}", i + 2));
                kept.push(None);
                continue;
            };
            whole.extend(own);
            run.branches.push(Branch {
                parent,
                at: b.at as usize,
                question: if b.question.is_empty() { run.question.clone() } else { b.question },
                clarified: b.clarified.into_iter().map(|c| Clarification { asked: c.asked, reply: c.reply }).collect(),
                events: whole,
                outcome: b.outcome.map(Outcome::from),
            });
            kept.push(Some(run.branches.len()));
        }
        run.shown = kept.get(self.shown as usize).copied().flatten().unwrap_or(0);
        run
    }
}

/// Who wrote a message of a version 1 or 2 chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredWho {
    User,
    Assistant,
    Problem,
    /// The agent asked the person a question (stored under its first tag).
    #[serde(rename = "clarify")]
    AskedPerson,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredMessage {
    pub who: StoredWho,
    pub text: String,
}

/// A chat as versions 1 and 2 stored it: its messages and the trace of its latest run.
/// Only read (and written by the tests, as those releases did).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegacyChat {
    pub version: u32,
    pub id: String,
    pub title: String,
    pub messages: Vec<StoredMessage>,
    #[serde(serialize_with = "super::event::events_as_stored")]
    pub trace: Vec<Event>,
    pub running: bool,
}

impl Default for LegacyChat {
    fn default() -> Self {
        LegacyChat { version: 2, id: String::new(), title: String::new(), messages: Vec::new(), trace: Vec::new(), running: false }
    }
}

/// The runs of a version 1 or 2 chat. Its messages give each run's question, the agent's
/// questions with the replies, and the outcome; its trace goes to the latest run that asked
/// the trace's question, and the other runs' steps were not kept.
pub fn runs_of_legacy(chat: LegacyChat) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for m in chat.messages {
        let waiting = runs.last().is_some_and(Run::waiting);
        match m.who {
            StoredWho::User if waiting => {
                let run = runs.last_mut().expect("a waiting run");
                if let Some(Outcome::Asks(asked)) = run.outcome.take() {
                    run.clarified.push(Clarification { asked, reply: m.text });
                }
            }
            StoredWho::User => runs.push(Run { steps_kept: false, ..Run::new(m.text) }),
            StoredWho::Assistant => end_last(&mut runs, Outcome::Answer(m.text)),
            StoredWho::AskedPerson => end_last(&mut runs, Outcome::Asks(m.text)),
            StoredWho::Problem => end_last(&mut runs, Outcome::Ended(m.text)),
        }
    }
    // A chat saved while running: its latest run had not ended. Every other run without an
    // outcome ended in a way the messages do not tell.
    let count = runs.len();
    for (i, run) in runs.iter_mut().enumerate() {
        if run.outcome.is_none() && !(chat.running && i + 1 == count) {
            run.outcome = Some(Outcome::Ended("This run ended without an answer.".into()));
        }
    }
    if !chat.trace.is_empty() {
        let asked = question(&chat.trace).unwrap_or_default();
        let owner = runs.iter().rposition(|r| r.question == asked).or(runs.len().checked_sub(1));
        match owner {
            Some(i) => {
                runs[i].events = chat.trace;
                runs[i].steps_kept = true;
            }
            None => {
                let mut run = Run::new(asked.to_string());
                run.outcome = Some(crate::conversation::outcome(&chat.trace));
                run.events = chat.trace;
                runs.push(run);
            }
        }
    }
    runs
}

/// An outcome message ends the latest run, or is a run of its own when none is open (a
/// message whose question was lost).
fn end_last(runs: &mut Vec<Run>, outcome: Outcome) {
    match runs.last_mut().filter(|r| r.outcome.is_none()) {
        Some(run) => run.outcome = Some(outcome),
        None => runs.push(Run { steps_kept: false, outcome: Some(outcome), ..Run::new(String::new()) }),
    }
}

/// A line of the chat list. Stored beside the chat, in the same transaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatSummary {
    pub version: u32,
    pub id: String,
    pub title: String,
    pub updated_unix_ms: f64,
    /// Not stored: why this chat cannot be opened (unreadable, or saved by a newer release).
    #[serde(skip)]
    pub problem: Option<String>,
}

impl Default for ChatSummary {
    fn default() -> Self {
        ChatSummary { version: CHAT_VERSION, id: String::new(), title: String::new(), updated_unix_ms: 0.0, problem: None }
    }
}

impl ChatSummary {
    pub fn of(chat: &Conversation, updated_unix_ms: f64) -> Self {
        ChatSummary { version: version_of(chat), id: chat.id.clone(), title: chat.title(), updated_unix_ms, problem: None }
    }
}

/// Why a record written by a newer release is not opened here.
pub const SAVED_BY_NEWER: &str = "saved by a newer version of Thoughtline; reload to get the newer page (this one never overwrites it)";

/// What reading a stored chat gave.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadChat {
    /// The chat, and a note when some parts could not be read and were left out.
    /// `current` says it was read from the current version's records (nothing to move).
    Chat { chat: Conversation, note: Option<String>, current: bool },
    /// Nothing usable: the reason. The stored text stays as it is, for download.
    Unreadable { reason: String },
}

/// Reads a stored chat: its head record `body` and the records beside it (`parts`, by key),
/// keeping every part that can be read. `id` is the record's key, which wins over the id
/// written inside.
pub fn read_chat(id: &str, body: &str, parts: &BTreeMap<String, String>) -> ReadChat {
    let version = stored_version(body);
    if version > CHAT_VERSION {
        return ReadChat::Unreadable { reason: SAVED_BY_NEWER.into() };
    }
    let mut dropped = Vec::new();
    let chat = if version >= PLAIN_VERSION {
        let head = match read_lenient::<StoredHead>(body) {
            Ok(read) => {
                dropped.extend(read.dropped);
                read.value
            }
            Err(e) => return ReadChat::Unreadable { reason: format!("the stored text is damaged ({e})") },
        };
        let runs = (0..head.runs as usize).map(|r| read_run(id, r, parts, &mut dropped)).collect();
        Conversation::with_runs(id.to_string(), head.title, runs)
    } else {
        match read_lenient::<LegacyChat>(body) {
            Ok(read) if read.value.id.is_empty() && read.value.messages.is_empty() && read.value.trace.is_empty() => {
                return ReadChat::Unreadable { reason: "the stored record holds no conversation".into() };
            }
            Ok(read) => {
                dropped.extend(read.dropped);
                let title = read.value.title.clone();
                Conversation::with_runs(id.to_string(), title, runs_of_legacy(read.value))
            }
            Err(e) => return ReadChat::Unreadable { reason: format!("the stored text is damaged ({e})") },
        }
    };
    let note = (!dropped.is_empty())
        .then(|| format!("Parts of this chat could not be read and are left out ({}); the rest is shown.", dropped.join(", ")));
    ReadChat::Chat { chat, note, current: version >= PLAIN_VERSION }
}

/// Run `run` of a version 3 chat, with every event that can be read. A missing or damaged
/// record costs only its part, named in `dropped`.
fn read_run(id: &str, run: usize, parts: &BTreeMap<String, String>, dropped: &mut Vec<String>) -> Run {
    let key = run_key(id, run);
    let stored = match parts.get(&key).map(|text| read_lenient::<StoredRun>(text)) {
        Some(Ok(read)) => {
            dropped.extend(read.dropped.into_iter().map(|d| format!("run {}: {d}", run + 1)));
            read.value
        }
        _ => {
            dropped.push(format!("run {}", run + 1));
            return Run { steps_kept: false, outcome: Some(Outcome::Ended("This run could not be read.".into())), ..Run::new(String::new()) };
        }
    };
    let events = read_chunks(id, run, 0, stored.events as usize, parts, dropped);
    let own = stored.branches.iter().enumerate().map(|(b, branch)| read_chunks(id, run, b + 1, branch.events as usize, parts, dropped)).collect();
    let mut gone = Vec::new();
    let read = stored.into_run(events, own, &mut gone);
    dropped.extend(gone.into_iter().map(|g| format!("run {}: {g}", run + 1)));
    read
}

/// The `count` events of line `line` of run `run` that can be read.
fn read_chunks(id: &str, run: usize, line: usize, count: usize, parts: &BTreeMap<String, String>, dropped: &mut Vec<String>) -> Vec<Event> {
    let whose = if line == 0 { format!("run {}", run + 1) } else { format!("run {}, branch {}", run + 1, line + 1) };
    // A damaged record may claim any count: no more chunks are looked for than the chat has
    // records.
    let count = count.min(parts.len().saturating_mul(CHUNK));
    let mut events = Vec::with_capacity(count.min(4096));
    for chunk in 0..count.div_ceil(CHUNK) {
        match parts.get(&line_chunk_key(id, run, line, chunk)).map(|text| read_lenient::<Vec<Event>>(text)) {
            Some(Ok(read)) => {
                if !read.dropped.is_empty() {
                    dropped.push(format!("{whose}: {} of its events", read.dropped.len()));
                }
                events.extend(read.value);
            }
            _ => dropped.push(format!("{whose}: events {} to {}", chunk * CHUNK + 1, ((chunk + 1) * CHUNK).min(count))),
        }
    }
    events
}

/// When the chat's latest run started (for ordering a list whose times were not kept).
pub fn last_started(chat: &Conversation) -> Option<f64> {
    chat.runs.iter().rev().flat_map(|r| r.events.iter().rev()).find_map(|e| match e.kind {
        EventKind::RunStarted { started_unix_ms, .. } => Some(started_unix_ms),
        _ => None,
    })
}
