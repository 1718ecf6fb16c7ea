//! Tolerant reading of stored JSON: one unreadable field costs that field, never the rest.
//!
//! `read_lenient::<T>` first reads the text as a whole. Only when that fails does it look at
//! each field (and each element of an array) on its own: a field is kept when a document that
//! holds just that field, at the same place, reads as `T`; a field that does not is read again
//! part by part, and what still fails is dropped, so `T`'s own defaults fill it. This needs no
//! per-type code: every shape whose reader fills missing fields with defaults gets it for free.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// A value read from stored text, with the fields that could not be read and fell back.
#[derive(Debug)]
pub struct Lenient<T> {
    pub value: T,
    /// Paths of the dropped parts, e.g. `agent.max_iterations` or `trace[3]`.
    pub dropped: Vec<String>,
}

/// Reads `json` as `T`, dropping only the parts that cannot be read. Fails when the text is
/// not a JSON object or array at all, or when even the kept parts do not make a `T`.
pub fn read_lenient<T: DeserializeOwned>(json: &str) -> Result<Lenient<T>, String> {
    let whole_error = match serde_json::from_str::<T>(json) {
        Ok(value) => return Ok(Lenient { value, dropped: Vec::new() }),
        Err(e) => e.to_string(),
    };
    let mut dropped = Vec::new();
    let mut path = Vec::new();
    let kept = keep_readable::<T>(&mut path, json, &mut dropped).ok_or(whole_error)?;
    serde_json::from_str::<T>(&kept).map(|value| Lenient { value, dropped }).map_err(|e| e.to_string())
}

/// The `version` a stored document says it has (0 when it says none, or is not a JSON object,
/// or its version is not a whole number).
pub fn stored_version(json: &str) -> u32 {
    // Only the top level is split, into raw text (the reader `keep_readable` uses too): a large
    // chat is not built into a whole tree just for its version, before it is read for real.
    let Ok(fields) = serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(json) else { return 0 };
    fields
        .get("version")
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        .and_then(|value| crate::json_read::uint32(&value).ok())
        .unwrap_or(0)
}

/// One step from the document's root to a part of it.
enum Step {
    Key(String),
    Index(usize),
}

/// `value` placed at `path` inside otherwise empty objects and one-element arrays.
fn wrap(path: &[Step], value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 16 * path.len());
    for step in path {
        match step {
            Step::Key(key) => {
                out.push('{');
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push(':');
            }
            Step::Index(_) => out.push('['),
        }
    }
    out.push_str(value);
    for step in path.iter().rev() {
        out.push(if matches!(step, Step::Key(_)) { '}' } else { ']' });
    }
    out
}

fn describe(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

fn readable_at<T: DeserializeOwned>(path: &[Step], value: &str) -> bool {
    serde_json::from_str::<T>(&wrap(path, value)).is_ok()
}

/// The readable parts of the object or array `raw` found at `path`, as JSON text; `None`
/// when `raw` is neither.
fn keep_readable<T: DeserializeOwned>(path: &mut Vec<Step>, raw: &str, dropped: &mut Vec<String>) -> Option<String> {
    let trimmed = raw.trim_start();
    if trimmed.starts_with('{') {
        let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_str(raw).ok()?;
        let mut out = String::from("{");
        for (key, value) in fields {
            path.push(Step::Key(key));
            if let Some(kept) = keep_part::<T>(path, value.get(), dropped) {
                if out.len() > 1 {
                    out.push(',');
                }
                if let Some(Step::Key(key)) = path.last() {
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                }
                out.push(':');
                out.push_str(&kept);
            }
            path.pop();
        }
        out.push('}');
        Some(out)
    } else if trimmed.starts_with('[') {
        let items: Vec<Box<RawValue>> = serde_json::from_str(raw).ok()?;
        let mut out = String::from("[");
        for (i, item) in items.iter().enumerate() {
            path.push(Step::Index(i));
            if let Some(kept) = keep_part::<T>(path, item.get(), dropped) {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&kept);
            }
            path.pop();
        }
        out.push(']');
        Some(out)
    } else {
        None
    }
}

/// The part at `path` as it can be kept: whole, with its unreadable insides dropped, or not at all.
fn keep_part<T: DeserializeOwned>(path: &mut Vec<Step>, value: &str, dropped: &mut Vec<String>) -> Option<String> {
    if readable_at::<T>(path, value) {
        return Some(value.to_string());
    }
    let mut inner = Vec::new();
    if let Some(kept) = keep_readable::<T>(path, value, &mut inner) {
        if readable_at::<T>(path, &kept) {
            dropped.append(&mut inner);
            return Some(kept);
        }
    }
    dropped.push(describe(path));
    None
}
