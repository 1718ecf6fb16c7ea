//! Evaluations as stored: beside the chats in the same database, never in the chat list. An
//! evaluation's head (`evalhead:{id}`: its name, cases, configurations and whether it was
//! running) is written when it is made, started, stopped or finished; each cell's record
//! (`evalcell:{id}/{cell}`: its verdicts, its time and its run, whole, in the export's shape)
//! when that cell is done. So a case costs one record of its own size, whatever the number
//! of cases, and storage grows with the cases run.
//!
//! Reads are tolerant: a cell record that cannot be read is named and that cell counts as
//! not run (it runs again); an evaluation of a newer version is read but never written.

use serde::Serialize;
use serde_json::Value;

use super::error::StorageError;
use super::export::ExportedRun;
use super::store::RecordStore;
use crate::conversation::Run;
use crate::json_read::{self as read, boolean, float, size, string, strings, uint32, Fields, Read};

pub const EVAL_VERSION: u32 = 1;
const HEAD: &str = "evalhead:";
const CELL: &str = "evalcell:";

/// An evaluation's head.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StoredEval {
    pub version: u32,
    pub id: String,
    pub name: String,
    pub created_unix_ms: f64,
    pub updated_unix_ms: f64,
    pub concurrency: usize,
    /// It was running when last written: a page that opens it goes on.
    pub running: bool,
    pub cases: Vec<StoredCase>,
    pub configs: Vec<StoredConfig>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StoredCase {
    pub question: String,
    pub expected: Option<String>,
    /// The scorers' names as a set writes them (`contains`, `tool:NAME`, …).
    pub scorers: Vec<String>,
    pub tags: Vec<String>,
    /// Left out when empty: an older release reads the case as about every document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StoredConfig {
    pub name: String,
    /// A preset's id; `None` keeps the settings'.
    pub preset: Option<String>,
    pub model: String,
    /// A strategy's id; `None` keeps the settings'.
    pub strategy: Option<String>,
    pub template: String,
    pub allow_tools: bool,
}

/// One finished cell: case × configuration, by its index (case, then configuration).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredCell {
    pub at: usize,
    pub duration_ms: f64,
    pub verdicts: Vec<StoredVerdict>,
    pub run: ExportedRun,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct StoredVerdict {
    pub scorer: String,
    pub pass: bool,
    pub reason: String,
}

impl StoredCell {
    pub fn new(at: usize, duration_ms: f64, verdicts: Vec<StoredVerdict>, run: &Run) -> Self {
        StoredCell { at, duration_ms, verdicts, run: ExportedRun::of(run) }
    }

    /// The cell's run as the page holds runs.
    pub fn into_run(self) -> Run {
        self.run.into_run(&mut Vec::new())
    }
}

/// An evaluation read back: its head, its finished cells, and the records that could not be
/// read (their cells run again).
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedEval {
    pub head: StoredEval,
    pub cells: Vec<StoredCell>,
    pub problems: Vec<String>,
    /// Written by a newer release: shown, never written.
    pub newer: bool,
}

pub fn head_record(head: &StoredEval) -> (String, String) {
    (format!("{HEAD}{}", head.id), serde_json::to_string(head).unwrap_or_default())
}

pub fn cell_record(id: &str, cell: &StoredCell) -> (String, String) {
    // Zero-padded, so the records come back in the cells' order.
    (format!("{CELL}{id}/{:06}", cell.at), serde_json::to_string(cell).unwrap_or_default())
}

/// Every evaluation's head, newest first; a head that cannot be read is left out of the list
/// and named.
pub async fn list(backend: &dyn RecordStore) -> Result<(Vec<StoredEval>, Vec<String>), StorageError> {
    let mut heads = Vec::new();
    let mut problems = Vec::new();
    for (key, text) in backend.records(HEAD).await? {
        match read_head(&text) {
            Ok(head) => heads.push(head),
            Err(e) => problems.push(format!("The evaluation stored as {key} could not be read ({e}).")),
        }
    }
    crate::sort::sort_by(&mut heads, |a, b| b.created_unix_ms.total_cmp(&a.created_unix_ms));
    Ok((heads, problems))
}

/// Writes these records (a head and cells) in one transaction. An evaluation of a newer
/// release is never written.
pub async fn put(backend: &dyn RecordStore, records: Vec<(String, String)>) -> Result<(), StorageError> {
    backend.put_records(records).await
}

/// One evaluation with its finished cells; `None` when it is not stored.
pub async fn open(backend: &dyn RecordStore, id: &str) -> Result<Option<OpenedEval>, StorageError> {
    let key = format!("{HEAD}{id}");
    let Some(text) = backend.records(&key).await?.into_iter().find(|(k, _)| *k == key).map(|(_, t)| t) else { return Ok(None) };
    let head = read_head(&text).map_err(|e| StorageError::new(super::StorageErrorKind::Other, format!("the evaluation's record is damaged ({e})")))?;
    let mut cells = Vec::new();
    let mut problems = Vec::new();
    for (key, text) in backend.records(&format!("{CELL}{id}/")).await? {
        match read_cell(&text) {
            Ok(cell) if cell.at < head.cases.len() * head.configs.len() => cells.push(cell),
            Ok(cell) => problems.push(format!("A stored result names cell {} of an evaluation with fewer; it is left out.", cell.at + 1)),
            Err(e) => problems.push(format!("The result stored as {key} could not be read ({e}); that case runs again.")),
        }
    }
    Ok(Some(OpenedEval { newer: head.version > EVAL_VERSION, head, cells, problems }))
}

/// Deletes an evaluation: its cells, then its head (a head left by a failure stays listed).
pub async fn delete(backend: &dyn RecordStore, id: &str) -> Result<(), StorageError> {
    backend.delete_records(&format!("{CELL}{id}/")).await?;
    backend.delete_records(&format!("{HEAD}{id}")).await
}

fn read_head(text: &str) -> Read<StoredEval> {
    let value: Value = serde_json::from_str(text).map_err(|e| crate::json_read::ReadError::new(e.to_string()))?;
    stored_eval(&value)
}

fn read_cell(text: &str) -> Read<StoredCell> {
    let value: Value = serde_json::from_str(text).map_err(|e| crate::json_read::ReadError::new(e.to_string()))?;
    stored_cell(&value)
}

fn stored_eval(value: &Value) -> Read<StoredEval> {
    let f = Fields::of(value)?;
    Ok(StoredEval {
        version: f.get("version", uint32)?,
        id: f.get("id", string)?,
        name: f.or_default("name", string)?,
        created_unix_ms: f.or_default("created_unix_ms", float)?,
        updated_unix_ms: f.or_default("updated_unix_ms", float)?,
        concurrency: f.or("concurrency", size, 1)?,
        running: f.or_default("running", boolean)?,
        cases: f.get("cases", |v| read::list(v, stored_case))?,
        configs: f.get("configs", |v| read::list(v, stored_config))?,
    })
}

fn stored_case(value: &Value) -> Read<StoredCase> {
    let f = Fields::of(value)?;
    Ok(StoredCase {
        question: f.get("question", string)?,
        expected: f.option("expected", string)?,
        scorers: f.or_default("scorers", strings)?,
        tags: f.or_default("tags", strings)?,
        documents: f.or_default("documents", strings)?,
    })
}

fn stored_config(value: &Value) -> Read<StoredConfig> {
    let f = Fields::of(value)?;
    Ok(StoredConfig {
        name: f.or_default("name", string)?,
        preset: f.option("preset", string)?,
        model: f.or_default("model", string)?,
        strategy: f.option("strategy", string)?,
        template: f.or_default("template", string)?,
        allow_tools: f.or_default("allow_tools", boolean)?,
    })
}

fn stored_cell(value: &Value) -> Read<StoredCell> {
    let f = Fields::of(value)?;
    Ok(StoredCell {
        at: f.get("at", size)?,
        duration_ms: f.or_default("duration_ms", float)?,
        verdicts: f.or_default("verdicts", |v| read::list(v, stored_verdict))?,
        run: f.get("run", super::export::exported_run)?,
    })
}

fn stored_verdict(value: &Value) -> Read<StoredVerdict> {
    let f = Fields::of(value)?;
    Ok(StoredVerdict { scorer: f.get("scorer", string)?, pass: f.get("pass", boolean)?, reason: f.or_default("reason", string)? })
}

#[cfg(test)]
mod tests;
