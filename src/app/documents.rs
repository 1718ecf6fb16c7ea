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
use crate::documents::{passages, Index, Kind, Page, ReadError, Vectors};

/// The store holds at most this much of the person's files together.
pub const MAX_TOTAL_BYTES: u64 = 500 * 1024 * 1024;
/// Passages indexed per step: a few milliseconds of work.
pub const STEP: usize = 48;
/// Bytes of text cut into passages per step: a few milliseconds of work.
pub const CUT_BYTES: usize = 64 * 1024;
/// Bytes of a text file decoded per step: a few milliseconds of work.
pub const DECODE_BYTES: usize = 1024 * 1024;

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

/// Where a document stands with meaning search.
#[derive(Debug, Clone, PartialEq)]
pub enum Meaning {
    /// Passages sent to be embedded of all.
    Embedding(usize, usize),
    /// Its passages have vectors of this model.
    Ready(String),
    Failed(String),
}

/// One row of the panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub meta: Meta,
    pub pages: usize,
    pub passages: usize,
    pub state: State,
    /// `None` while meaning search is off, or before its turn.
    pub meaning: Option<Meaning>,
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

    /// What the row says of meaning search, if anything.
    pub fn meaning_text(&self) -> Option<String> {
        Some(match self.meaning.as_ref()? {
            Meaning::Embedding(done, of) => format!("Finding meaning: {done} of {of} passages"),
            Meaning::Ready(model) => format!("Searchable by meaning ({model})"),
            Meaning::Failed(why) => format!("Not searchable by meaning: {why}"),
        })
    }
}

pub use crate::documents::Kept;

/// Passages sent to the embedding model per call.
pub const EMBED_BATCH: usize = crate::llm::embeddings::BATCH;

/// What happens to the panel and the index.
#[derive(Debug)]
pub enum Msg {
    /// Documents stored earlier, read back as the panel first opens.
    Loaded(Vec<Kept>),
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
    /// Meaning search turned on with this embedding model, or off (`None`). On, every
    /// document without vectors of the model is embedded, one batch at a time.
    Meaning(Option<String>),
    /// A batch of document `id`'s passages, from `from` on, came back from the embedding model.
    Embedded { id: String, from: usize, result: Result<Vec<Vec<f32>>, String> },
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
    /// Embed these passages of document `id`, from `from` on (`Msg::Embedded`).
    Embed { id: String, from: usize, texts: Vec<String> },
}

/// The work on one document.
enum Work {
    Reading(String),
    /// A text file's bytes, decoded a slice a step.
    Decoding { id: String, decoder: read::Decoder },
    Cutting { id: String, pages: Vec<Page>, cutter: passages::Cutter },
    Indexing { id: String, pages: Vec<Page>, builder: Builder },
}

impl Work {
    fn id(&self) -> &str {
        match self {
            Work::Reading(id) | Work::Decoding { id, .. } | Work::Cutting { id, .. } | Work::Indexing { id, .. } => id,
        }
    }
}

#[derive(Default)]
pub struct Library {
    rows: Vec<Row>,
    index: Rc<RefCell<Index>>,
    /// Each indexed document's pages, for its text view.
    pages: Vec<(String, Vec<Page>)>,
    queue: VecDeque<String>,
    work: Option<Work>,
    asked_to_keep: bool,
    /// The embedding model, while meaning search is on.
    model: Option<String>,
    /// Documents waiting to be embedded, and the one being embedded with its vectors so far.
    to_embed: VecDeque<String>,
    embedding: Option<(String, Vec<Vec<f32>>)>,
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
        self.work.is_some() || !self.queue.is_empty() || self.embedding.is_some()
    }

    /// The embedding model, while meaning search is on.
    pub fn meaning_model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Bytes of all documents held.
    pub fn total_bytes(&self) -> u64 {
        self.rows.iter().filter(|r| !matches!(r.state, State::Failed(_))).map(|r| r.meta.size).sum()
    }

    pub fn pages_of(&self, id: &str) -> Option<&[Page]> {
        self.pages.iter().find(|(d, _)| d == id).map(|(_, p)| p.as_slice())
    }

    /// What a write of document `id` stores: its description, pages and share of the index.
    pub fn stored(&self, id: &str) -> Option<Kept> {
        let row = self.rows.iter().find(|r| r.meta.id == id)?;
        let pages = self.pages_of(id)?.to_vec();
        let index = self.index.borrow();
        let indexed = index.documents().find(|d| d.doc == id)?.clone();
        Some((row.meta.clone(), pages, indexed, index.vectors(id).cloned()))
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
                let mut out = Vec::new();
                for (meta, pages, indexed, vectors) in stored {
                    if self.rows.iter().any(|r| r.meta.id == meta.id) {
                        continue;
                    }
                    let meaning = vectors.as_ref().map(|v| Meaning::Ready(v.model.clone()));
                    self.rows.push(Row { pages: pages.len(), passages: indexed.passages.len(), meta: meta.clone(), state: State::Ready, meaning });
                    self.pages.push((meta.id.clone(), pages));
                    let mut index = self.index.borrow_mut();
                    index.add(indexed);
                    if let Some(vectors) = vectors {
                        index.set_vectors(&meta.id, vectors);
                    }
                    drop(index);
                    out.extend(self.embed_if_needed(&meta.id));
                }
                self.rows.sort_by(|a, b| a.meta.added_ms.total_cmp(&b.meta.added_ms));
                self.asked_to_keep |= !self.rows.is_empty();
                out
            }
            Msg::Added { meta, mime } => self.added(meta, &mime),
            Msg::Bytes { id, bytes } => {
                if !matches!(&self.work, Some(Work::Reading(r)) if *r == id) {
                    return Vec::new();
                }
                let kind = self.rows.iter().find(|r| r.meta.id == id).map(|r| r.meta.kind);
                match kind {
                    // Plain text is decoded a slice a step; HTML and JSON are read whole.
                    Some(Kind::Text | Kind::Markdown | Kind::Csv) => match read::Decoder::new(bytes) {
                        Ok(decoder) => {
                            self.work = Some(Work::Decoding { id, decoder });
                            vec![Do::Yield]
                        }
                        Err(e) => self.pages_read(id, Err(e)),
                    },
                    Some(kind) => self.pages_read(id, read::read(kind, &bytes)),
                    None => self.pages_read(id, Err(ReadError::Unknown)),
                }
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
                self.rows.push(Row { meta, pages: 0, passages: 0, state: State::Failed(why.message()), meaning: None });
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
                self.to_embed.retain(|q| *q != id);
                if self.embedding.as_ref().is_some_and(|(e, _)| *e == id) {
                    self.embedding = None;
                    out.extend(self.next_embedding());
                }
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
                self.stop_embedding();
                out
            }
            Msg::Meaning(model) => {
                let model = model.map(|m| m.trim().to_string()).filter(|m| !m.is_empty());
                if model == self.model {
                    return Vec::new();
                }
                self.stop_embedding();
                self.model = model;
                let ids: Vec<String> = self.rows.iter().map(|r| r.meta.id.clone()).collect();
                let mut out = Vec::new();
                for id in ids {
                    let ready = self.model.as_ref().and_then(|m| self.index.borrow().vectors(&id).filter(|v| v.model == *m).map(|v| v.model.clone()));
                    if let Some(row) = self.row(&id) {
                        row.meaning = ready.map(Meaning::Ready);
                    }
                    out.extend(self.embed_if_needed(&id));
                }
                out
            }
            Msg::Embedded { id, from, result } => self.embedded(id, from, result),
        }
    }

    /// Queues document `id` for embedding when meaning search is on and it has no vectors of
    /// the model yet.
    fn embed_if_needed(&mut self, id: &str) -> Vec<Do> {
        let Some(model) = self.model.clone() else { return Vec::new() };
        let indexed = self.rows.iter().any(|r| r.meta.id == id && matches!(r.state, State::Ready | State::NotSaved(_) | State::Indexing(..)) && r.passages > 0);
        let has = self.index.borrow().vectors(id).is_some_and(|v| v.model == model);
        let waiting = self.to_embed.iter().any(|q| q == id) || self.embedding.as_ref().is_some_and(|(e, _)| e == id);
        if !indexed || has || waiting {
            return Vec::new();
        }
        let of = self.row(id).map_or(0, |r| r.passages);
        if let Some(row) = self.row(id) {
            row.meaning = Some(Meaning::Embedding(0, of));
        }
        self.to_embed.push_back(id.to_string());
        if self.embedding.is_some() {
            return Vec::new();
        }
        self.next_embedding()
    }

    fn stop_embedding(&mut self) {
        let left: Vec<String> = self.to_embed.drain(..).chain(self.embedding.take().map(|(id, _)| id)).collect();
        for id in left {
            if let Some(row) = self.row(&id) {
                row.meaning = None;
            }
        }
    }

    /// Asks for the next batch of the document being embedded, or starts the next document.
    fn next_embedding(&mut self) -> Vec<Do> {
        if self.embedding.is_none() {
            let Some(id) = self.to_embed.pop_front() else { return Vec::new() };
            self.embedding = Some((id, Vec::new()));
        }
        let Some((id, done)) = &self.embedding else { return Vec::new() };
        let (id, from) = (id.clone(), done.len());
        let texts: Vec<String> = self.index.borrow().documents().find(|d| d.doc == id).map(|d| d.passages.iter().skip(from).take(EMBED_BATCH).map(|p| p.text.clone()).collect()).unwrap_or_default();
        if texts.is_empty() {
            // Gone from the index meanwhile.
            self.embedding = None;
            return self.next_embedding();
        }
        vec![Do::Embed { id, from, texts }]
    }

    fn embedded(&mut self, id: String, from: usize, result: Result<Vec<Vec<f32>>, String>) -> Vec<Do> {
        let current = matches!(&self.embedding, Some((e, done)) if *e == id && done.len() == from);
        if !current {
            return Vec::new();
        }
        let vectors = match result {
            Ok(v) => v,
            Err(why) => {
                // The same endpoint would fail the same way for the rest: they wait for the
                // person to turn meaning search on again.
                self.embedding = None;
                if let Some(row) = self.row(&id) {
                    row.meaning = Some(Meaning::Failed(why.clone()));
                }
                self.stop_embedding();
                self.model = None;
                return Vec::new();
            }
        };
        let Some((_, done)) = self.embedding.as_mut() else { return Vec::new() };
        done.extend(vectors);
        let count = done.len();
        let of = self.row(&id).map_or(0, |r| r.passages);
        if count < of {
            if let Some(row) = self.row(&id) {
                row.meaning = Some(Meaning::Embedding(count, of));
            }
            return self.next_embedding();
        }
        let Some((_, rows)) = self.embedding.take() else { return Vec::new() };
        let model = self.model.clone().unwrap_or_default();
        let kept = Vectors::new(model.clone(), &rows).is_some_and(|v| self.index.borrow_mut().set_vectors(&id, v));
        if let Some(row) = self.row(&id) {
            row.meaning = Some(if kept { Meaning::Ready(model) } else { Meaning::Failed("the embedding model gave vectors that do not fit the passages.".into()) });
        }
        let mut out = if kept { vec![Do::Store(id)] } else { Vec::new() };
        out.extend(self.next_embedding());
        out
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
        self.rows.push(Row { meta, pages: 0, passages: 0, state: State::Queued, meaning: None });
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
        if let Some(Work::Decoding { decoder, .. }) = &mut self.work {
            let done = match decoder.step(DECODE_BYTES) {
                Ok(false) => return vec![Do::Yield],
                Ok(true) => Ok(()),
                Err(e) => Err(e),
            };
            let Some(Work::Decoding { id, decoder }) = self.work.take() else { return Vec::new() };
            return self.pages_read(id, done.and_then(|()| decoder.finish()));
        }
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
        let mut out = vec![Do::Store(id.clone())];
        out.extend(self.next());
        out.extend(self.embed_if_needed(&id));
        out
    }
}

#[cfg(test)]
mod tests;
