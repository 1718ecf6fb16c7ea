//! The person's documents: what the Documents panel lists, and what the page must do as files
//! arrive. A file is taken in (its bytes kept by the page), read (a PDF's pages by the PDF
//! library), cut into passages and indexed a few passages at a time, each step a task of its
//! own so the page never waits; then stored. One document at a time, the others queued; Stop
//! ends the work and says so on each row it left.
//!
//! Nothing is lost silently: a file that cannot be read says why on its own row and the others
//! stay; a document indexed but not stored stays searchable in this page, its row saying it is
//! not saved, until a write succeeds. Plain state: `handle` returns what the page must do.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::documents::index::Builder;
use crate::documents::read::{self, MAX_FILE_BYTES};
pub use crate::documents::Meta;
use crate::documents::{passages, Index, Indexed, Kind, Page, ReadError};

/// The store holds at most this much of the person's files together.
pub const MAX_TOTAL_BYTES: u64 = 500 * 1024 * 1024;
/// Passages indexed per step: a few milliseconds of work.
pub const STEP: usize = 48;
/// Bytes of text cut into passages per step: a few milliseconds of work.
pub const CUT_BYTES: usize = 64 * 1024;

/// What a row says of its document.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Waiting for its turn.
    Queued,
    Reading,
    /// Passages indexed of all.
    Indexing(usize, usize),
    Ready,
    /// Searchable here, but the write failed: why.
    NotSaved(String),
    /// Could not be read: why (the file's own sentence).
    Failed(String),
    /// Stopped before it was indexed.
    Stopped,
}

/// One row of the panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub meta: Meta,
    pub pages: usize,
    pub passages: usize,
    pub state: State,
}

impl Row {
    /// What the row says after the name.
    pub fn state_text(&self) -> String {
        match &self.state {
            State::Queued => "Waiting to be read".into(),
            State::Reading => "Reading…".into(),
            State::Indexing(done, of) => format!("Indexing: {done} of {of} passages"),
            State::Ready => "Ready".into(),
            State::NotSaved(why) => format!("Searchable on this page until it is closed, but not saved: {why} Save again once there is room."),
            State::Failed(why) => why.clone(),
            State::Stopped => "Stopped before it was indexed: Re-read to index it.".into(),
        }
    }
}

/// What happens to the panel and the index.
#[derive(Debug)]
pub enum Msg {
    /// Documents stored earlier, read back as the panel first opens.
    Loaded(Vec<(Meta, Vec<Page>, Indexed)>),
    /// A file was picked, dropped or pasted: the page keeps its bytes under `meta.id`.
    Added { meta: Meta, mime: String },
    /// The bytes of a text file, asked for by `Do::Read`.
    Bytes { id: String, bytes: Vec<u8> },
    /// A PDF's pages as its library read them, or why it could not.
    PdfRead { id: String, pages: Result<Vec<String>, ReadError> },
    /// File `id` could not be read at all (its bytes are gone, the PDF reader is missing).
    Unreadable { id: String, why: ReadError },
    /// A file refused before it was read (a kind not read here, bytes the browser would not
    /// give): it gets a row saying why.
    Refused { meta: Meta, why: ReadError },
    /// The next step of the work (after the page had its turn).
    Step,
    /// A write of document `id` ended.
    Stored { id: String, result: Result<(), String> },
    Remove(String),
    /// Try the write of a document that was not saved once more.
    SaveAgain(String),
    /// Read the stored file again and index it anew.
    Reread(String),
    Stop,
}

/// What the page must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Do {
    /// Hand over the bytes of file `0` (`Msg::Bytes`).
    Read(String),
    /// Read PDF `0`'s pages with the PDF library (`Msg::PdfRead`).
    ReadPdf(String),
    /// Send `Msg::Step` in a task of its own.
    Yield,
    /// Write document `0` (`stored`), with its file.
    Store(String),
    /// Delete document `0` and its file.
    Delete(String),
    /// Forget the bytes of file `0` held for reading (a failed or stopped read).
    DropBytes(String),
    /// The first document arrived: ask the browser to keep the site's data.
    AskToKeep,
}

/// The work on one document.
enum Work {
    Reading(String),
    Cutting { id: String, pages: Vec<Page>, cutter: passages::Cutter },
    Indexing { id: String, pages: Vec<Page>, builder: Builder },
}

impl Work {
    fn id(&self) -> &str {
        match self {
            Work::Reading(id) | Work::Cutting { id, .. } | Work::Indexing { id, .. } => id,
        }
    }
}

pub struct Library {
    rows: Vec<Row>,
    index: Rc<RefCell<Index>>,
    /// Each indexed document's pages, for its text view.
    pages: Vec<(String, Vec<Page>)>,
    queue: VecDeque<String>,
    work: Option<Work>,
    asked_to_keep: bool,
}

impl Default for Library {
    fn default() -> Self {
        Library { rows: Vec::new(), index: Rc::default(), pages: Vec::new(), queue: VecDeque::new(), work: None, asked_to_keep: false }
    }
}

impl Library {
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The index, shared with the `documents` tool of each run.
    pub fn shelf(&self) -> Rc<RefCell<Index>> {
        self.index.clone()
    }

    /// Whether work goes on (Stop is offered).
    pub fn busy(&self) -> bool {
        self.work.is_some() || !self.queue.is_empty()
    }

    /// Bytes of all documents held.
    pub fn total_bytes(&self) -> u64 {
        self.rows.iter().filter(|r| !matches!(r.state, State::Failed(_))).map(|r| r.meta.size).sum()
    }

    pub fn pages_of(&self, id: &str) -> Option<&[Page]> {
        self.pages.iter().find(|(d, _)| d == id).map(|(_, p)| p.as_slice())
    }

    /// What a write of document `id` stores: its description, pages and share of the index.
    pub fn stored(&self, id: &str) -> Option<(Meta, Vec<Page>, Indexed)> {
        let row = self.rows.iter().find(|r| r.meta.id == id)?;
        let pages = self.pages_of(id)?.to_vec();
        let indexed = self.index.borrow().documents().find(|d| d.doc == id)?.clone();
        Some((row.meta.clone(), pages, indexed))
    }

    fn row(&mut self, id: &str) -> Option<&mut Row> {
        self.rows.iter_mut().find(|r| r.meta.id == id)
    }

    fn set(&mut self, id: &str, state: State) {
        if let Some(row) = self.row(id) {
            row.state = state;
        }
    }

    pub fn handle(&mut self, msg: Msg) -> Vec<Do> {
        match msg {
            Msg::Loaded(stored) => {
                for (meta, pages, indexed) in stored {
                    if self.rows.iter().any(|r| r.meta.id == meta.id) {
                        continue;
                    }
                    self.rows.push(Row { pages: pages.len(), passages: indexed.passages.len(), meta: meta.clone(), state: State::Ready });
                    self.pages.push((meta.id.clone(), pages));
                    self.index.borrow_mut().add(indexed);
                }
                self.rows.sort_by(|a, b| a.meta.added_ms.total_cmp(&b.meta.added_ms));
                self.asked_to_keep |= !self.rows.is_empty();
                Vec::new()
            }
            Msg::Added { meta, mime } => self.added(meta, &mime),
            Msg::Bytes { id, bytes } => {
                if !matches!(&self.work, Some(Work::Reading(r)) if *r == id) {
                    return Vec::new();
                }
                let kind = self.rows.iter().find(|r| r.meta.id == id).map(|r| r.meta.kind);
                let pages = kind.map_or(Err(ReadError::Unknown), |kind| read::read(kind, &bytes));
                self.pages_read(id, pages)
            }
            Msg::PdfRead { id, pages } => {
                if !matches!(&self.work, Some(Work::Reading(r)) if *r == id) {
                    return Vec::new();
                }
                self.pages_read(id, pages.and_then(read::pdf_pages))
            }
            Msg::Unreadable { id, why } => {
                if !matches!(&self.work, Some(Work::Reading(r)) if *r == id) {
                    return Vec::new();
                }
                self.pages_read(id, Err(why))
            }
            Msg::Refused { meta, why } => {
                self.rows.push(Row { meta, pages: 0, passages: 0, state: State::Failed(why.message()) });
                self.rows.sort_by(|a, b| a.meta.added_ms.total_cmp(&b.meta.added_ms));
                Vec::new()
            }
            Msg::Step => self.step(),
            Msg::Stored { id, result } => {
                match result {
                    Ok(()) => self.set(&id, State::Ready),
                    Err(why) => self.set(&id, State::NotSaved(why)),
                }
                Vec::new()
            }
            Msg::Remove(id) => {
                let mut out = Vec::new();
                if self.work.as_ref().is_some_and(|w| w.id() == id) {
                    self.work = None;
                    out.extend(self.next());
                }
                self.queue.retain(|q| *q != id);
                self.rows.retain(|r| r.meta.id != id);
                self.pages.retain(|(d, _)| *d != id);
                self.index.borrow_mut().remove(&id);
                out.insert(0, Do::Delete(id));
                out
            }
            Msg::SaveAgain(id) => match self.rows.iter().find(|r| r.meta.id == id) {
                Some(Row { state: State::NotSaved(_), .. }) => vec![Do::Store(id)],
                _ => Vec::new(),
            },
            Msg::Reread(id) => {
                if self.work_on(&id) || !self.rows.iter().any(|r| r.meta.id == id) {
                    return Vec::new();
                }
                self.set(&id, State::Queued);
                self.queue.push_back(id);
                self.next()
            }
            Msg::Stop => {
                let mut out = Vec::new();
                if let Some(work) = self.work.take() {
                    let id = work.id().to_string();
                    self.set(&id, State::Stopped);
                    out.push(Do::DropBytes(id));
                }
                for id in std::mem::take(&mut self.queue) {
                    self.set(&id, State::Stopped);
                    out.push(Do::DropBytes(id));
                }
                out
            }
        }
    }

    fn work_on(&self, id: &str) -> bool {
        self.queue.iter().any(|q| q == id) || self.work.as_ref().is_some_and(|w| w.id() == id)
    }

    fn added(&mut self, meta: Meta, _mime: &str) -> Vec<Do> {
        let id = meta.id.clone();
        let too_much = self.total_bytes() + meta.size > MAX_TOTAL_BYTES;
        let failed = if meta.size > MAX_FILE_BYTES {
            Some(ReadError::TooLarge { size: meta.size }.message())
        } else if meta.size == 0 {
            Some(ReadError::Empty.message())
        } else if too_much {
            Some(format!(
                "The documents already take {} MB of the {} MB kept for them: remove some to make room for this one.",
                self.total_bytes() / (1024 * 1024),
                MAX_TOTAL_BYTES / (1024 * 1024)
            ))
        } else {
            None
        };
        self.rows.push(Row { meta, pages: 0, passages: 0, state: State::Queued });
        // Listed in the order added, whichever file's bytes arrived first.
        self.rows.sort_by(|a, b| a.meta.added_ms.total_cmp(&b.meta.added_ms));
        let mut out = Vec::new();
        if let Some(why) = failed {
            self.set(&id, State::Failed(why));
            return vec![Do::DropBytes(id)];
        }
        if !self.asked_to_keep {
            self.asked_to_keep = true;
            out.push(Do::AskToKeep);
        }
        self.queue.push_back(id);
        out.extend(self.next());
        out
    }

    /// Starts on the next queued document, if nothing is under way.
    fn next(&mut self) -> Vec<Do> {
        if self.work.is_some() {
            return Vec::new();
        }
        let Some(id) = self.queue.pop_front() else { return Vec::new() };
        let kind = self.rows.iter().find(|r| r.meta.id == id).map(|r| r.meta.kind);
        self.set(&id, State::Reading);
        self.work = Some(Work::Reading(id.clone()));
        vec![if kind == Some(Kind::Pdf) { Do::ReadPdf(id) } else { Do::Read(id) }]
    }

    fn pages_read(&mut self, id: String, pages: Result<Vec<Page>, ReadError>) -> Vec<Do> {
        match pages {
            Err(e) => {
                self.set(&id, State::Failed(e.message()));
                self.work = None;
                let mut out = vec![Do::DropBytes(id)];
                out.extend(self.next());
                out
            }
            Ok(pages) => {
                let kind = self.rows.iter().find(|r| r.meta.id == id).map_or(Kind::Text, |r| r.meta.kind);
                self.work = Some(Work::Cutting { id, pages, cutter: passages::Cutter::new(kind) });
                vec![Do::Yield]
            }
        }
    }

    fn step(&mut self) -> Vec<Do> {
        if let Some(Work::Cutting { pages, cutter, .. }) = &mut self.work {
            if !cutter.step(pages, CUT_BYTES) {
                return vec![Do::Yield];
            }
            let Some(Work::Cutting { id, pages, cutter }) = self.work.take() else { return Vec::new() };
            let cut = cutter.finish();
            let name = self.rows.iter().find(|r| r.meta.id == id).map(|r| r.meta.name.clone()).unwrap_or_default();
            if let Some(row) = self.row(&id) {
                row.pages = pages.len();
                row.passages = cut.len();
                row.state = State::Indexing(0, cut.len());
            }
            self.work = Some(Work::Indexing { builder: Builder::new(id.clone(), name, cut), id, pages });
            return vec![Do::Yield];
        }
        let Some(Work::Indexing { id, builder, .. }) = &mut self.work else { return Vec::new() };
        let done = builder.step(STEP);
        let (n, of) = builder.progress();
        let id = id.clone();
        if !done {
            self.set(&id, State::Indexing(n, of));
            return vec![Do::Yield];
        }
        let Some(Work::Indexing { id, pages, builder }) = self.work.take() else { return Vec::new() };
        self.index.borrow_mut().add(builder.finish());
        self.pages.retain(|(d, _)| *d != id);
        self.pages.push((id.clone(), pages));
        self.set(&id, State::Indexing(of, of));
        let mut out = vec![Do::Store(id)];
        out.extend(self.next());
        out
    }
}

#[cfg(test)]
mod tests;
