//! The conversation export: every run of a chat, with its steps, as one JSON file a person can
//! keep, share and open again without any key. Import reads every version this release knows
//! (a single-run file of versions 1 and 2 becomes a one-run chat) and refuses newer ones.

use serde::Serialize;
use serde_json::Value;

use super::chats::{StoredAttached, StoredBranch, StoredClarification, StoredOutcome, StoredRun};
use super::read::{stored_attached, stored_branch, stored_clarification, stored_outcome};
use super::settings::connection;
use crate::storage::agent_settings_read::agent_settings;
use crate::storage::trace_read::trace;
use crate::agent::{AgentSettings, Event, Trace};
use crate::json_read::{boolean, deserialize_via_value, float, list, string, uint32, Fields, Read};
use crate::conversation::{clarified_of, outcome, Conversation, Outcome, Run};
use crate::llm::Connection;
use crate::storage::tool_settings_read::tool_settings;
use crate::tools::ToolSettings;

pub const EXPORT_FORMAT: &str = "thoughtline.run";
/// Version 4 is version 3 with branches: a run lists them, each with its own events (from its
/// `Forked` event on). A file is written as version 4 only when a run has a branch. Version 3
/// holds every run of a conversation; versions 1 and 2 held one run (2 records each model
/// request as what it adds to the previous one; 1 whole requests, read the same way).
pub const EXPORT_VERSION: u32 = 4;
const PLAIN_EXPORT_VERSION: u32 = 3;

/// The settings a run used, as exported: everything but the secrets. Read by hand
/// (`read.rs`): a missing field takes its value from `Default` below.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedSettings {
    pub preset: String,
    pub base_url: String,
    pub model: String,
    pub connection: Connection,
    #[serde(serialize_with = "super::agent_settings_read::agent_settings_as_stored")]
    pub agent: AgentSettings,
    pub tools: ToolSettings,
}

/// What a file that names no settings (or some of them) reads as: each part's own default.
impl Default for ExportedSettings {
    fn default() -> Self {
        let provider = crate::llm::ProviderConfig::default();
        ExportedSettings {
            preset: provider.preset.id().into(),
            base_url: provider.base_url,
            model: provider.model,
            connection: Connection::default(),
            agent: AgentSettings::default(),
            tools: ToolSettings::default(),
        }
    }
}

/// One run in an export: what the stored run record says, and its events inline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedRun {
    pub question: String,
    pub clarified: Vec<StoredClarification>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<StoredAttached>,
    pub steps_kept: bool,
    pub outcome: Option<StoredOutcome>,
    #[serde(serialize_with = "super::event::trace_as_stored")]
    pub trace: Trace,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<ExportedBranch>,
    #[serde(skip_serializing_if = "is_zero")]
    pub shown: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A branch in an export: the stored branch record, and its own events inline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedBranch {
    pub parent: u32,
    pub at: u32,
    pub question: String,
    pub clarified: Vec<StoredClarification>,
    pub outcome: Option<StoredOutcome>,
    #[serde(serialize_with = "super::event::trace_as_stored")]
    pub trace: Trace,
}

/// A conversation as a file. Read by hand (`read.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedChat {
    pub format: String,
    pub version: u32,
    /// The release that wrote it (Cargo's version).
    pub app_version: String,
    pub exported_unix_ms: f64,
    pub title: String,
    pub settings: ExportedSettings,
    pub runs: Vec<ExportedRun>,
}

/// A run exported by versions 1 and 2 (one run per file).
#[derive(Debug, Clone, PartialEq)]
pub struct SingleRun {
    pub question: String,
    pub answer: Option<String>,
    pub trace: Trace,
}

impl ExportedRun {
    pub(crate) fn of(run: &Run) -> Self {
        let StoredRun { question, clarified, attached, steps_kept, outcome, branches, shown, .. } = StoredRun::of(run);
        let branches = branches
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                let own = run.line(i + 1).map(|line| line.own().to_vec()).unwrap_or_default();
                ExportedBranch { parent: b.parent, at: b.at, question: b.question, clarified: b.clarified, outcome: b.outcome, trace: Trace { events: own } }
            })
            .collect();
        ExportedRun { question, clarified, attached, steps_kept, outcome, trace: Trace { events: run.events.clone() }, branches, shown }
    }

    pub(crate) fn into_run(self, dropped: &mut Vec<String>) -> Run {
        let (records, own): (Vec<StoredBranch>, Vec<Vec<Event>>) = self
            .branches
            .into_iter()
            .map(|b| (StoredBranch { parent: b.parent, at: b.at, question: b.question, clarified: b.clarified, outcome: b.outcome, events: 0 }, b.trace.events))
            .unzip();
        let stored = StoredRun { question: self.question, clarified: self.clarified, attached: self.attached, steps_kept: self.steps_kept, outcome: self.outcome, events: 0, branches: records, shown: self.shown };
        let mut run = stored.into_run(self.trace.events, own, dropped);
        // A file cut off mid-run has no outcome: it is not running here (any line of it).
        if run.outcome.is_none() {
            run.outcome = Some(outcome(&run.events));
        }
        for b in &mut run.branches {
            if b.outcome.is_none() {
                b.outcome = Some(outcome(&b.events));
            }
        }
        run
    }
}

/// The whole conversation, every run with its steps, as export text, with the settings as
/// exported (`ExportedSettings::from(&Settings)` in `app::settings`: without their secrets).
pub fn export_chat(chat: &Conversation, settings: &ExportedSettings, now_unix_ms: f64) -> String {
    let branched = chat.runs.iter().any(|r| !r.branches.is_empty());
    let file = ExportedChat {
        format: EXPORT_FORMAT.into(),
        version: if branched { EXPORT_VERSION } else { PLAIN_EXPORT_VERSION },
        app_version: env!("CARGO_PKG_VERSION").into(),
        exported_unix_ms: now_unix_ms.round(),
        title: chat.title(),
        settings: settings.clone(),
        runs: chat.runs.iter().map(ExportedRun::of).collect(),
    };
    // Compact like every other write: a pretty printer would compile every serializer twice.
    serde_json::to_string(&file).unwrap_or_default()
}

/// The run of a version 1 or 2 file as a run of a conversation.
fn single_run(file: SingleRun) -> Run {
    let events: Vec<Event> = file.trace.events;
    let ended = match file.answer {
        Some(answer) => Outcome::Answer(answer),
        None => outcome(&events),
    };
    Run { clarified: clarified_of(&events), events, outcome: Some(ended), ..Run::new(file.question) }
}

/// Reads an export as a conversation (its id empty: the caller gives it one), saying what is
/// wrong with a file that is not one.
pub fn import_chat(json: &str) -> Result<Conversation, String> {
    // Read once; the header first, so a file that is not an export is named as such.
    let value: Value = serde_json::from_str(json).map_err(|e| format!("This file is not a JSON object ({e})."))?;
    import_value(&value)
}

/// `import_chat` of a file already parsed (a share link's record).
pub fn import_value(value: &Value) -> Result<Conversation, String> {
    let not_an_object = |e: &dyn std::fmt::Display| format!("This file is not a JSON object ({e}).");
    let (format, version) = export_header(value).map_err(|e| not_an_object(&e))?;
    if format != EXPORT_FORMAT {
        return Err("This JSON file is not a Thoughtline export (its \"format\" is not \"thoughtline.run\").".into());
    }
    if version > EXPORT_VERSION {
        return Err("This file was exported by a newer Thoughtline; update the page to open it.".into());
    }
    let damaged = |e: crate::json_read::ReadError| format!("This export is damaged: {e}.");
    if version >= 3 {
        let file = exported_chat(value).map_err(damaged)?;
        let mut dropped = Vec::new();
        let runs = file.runs.into_iter().enumerate().map(|(i, r)| {
            let mut gone = Vec::new();
            let run = r.into_run(&mut gone);
            dropped.extend(gone.into_iter().map(|g| format!("run {}: {g}", i + 1)));
            run
        }).collect();
        if !dropped.is_empty() {
            return Err(format!("This export is damaged: {} cannot be placed in the run it belongs to.", dropped.join(", ")));
        }
        Ok(Conversation::with_runs(String::new(), file.title, runs))
    } else {
        let run = single_run(exported_single_run(value).map_err(damaged)?);
        Ok(Conversation::with_runs(String::new(), String::new(), vec![run]))
    }
}

// ---- Reading a file back, by hand (`crate::json_read`) ----

fn exported_settings(value: &Value) -> Read<ExportedSettings> {
    let f = Fields::of(value)?;
    let d = ExportedSettings::default();
    Ok(ExportedSettings {
        preset: f.or("preset", string, d.preset)?,
        base_url: f.or("base_url", string, d.base_url)?,
        model: f.or("model", string, d.model)?,
        connection: f.or("connection", connection, d.connection)?,
        agent: f.or("agent", agent_settings, d.agent)?,
        tools: f.or("tools", tool_settings, d.tools)?,
    })
}

/// What an export says it is before it is read whole: `format` and `version`, each `""` or 0
/// when missing.
pub(crate) fn export_header(value: &Value) -> Read<(String, u32)> {
    let f = Fields::of(value)?;
    Ok((f.or_default("format", string)?, f.or_default("version", uint32)?))
}

/// A run of a version 1 or 2 export. No defaults but for `answer` (an `Option`).
fn exported_single_run(value: &Value) -> Read<SingleRun> {
    let f = Fields::of(value)?;
    Ok(SingleRun { question: f.get("question", string)?, answer: f.option("answer", string)?, trace: f.get("trace", trace)? })
}

/// A version 3 export. No defaults but for `title` and `app_version`.
pub(crate) fn exported_chat(value: &Value) -> Read<ExportedChat> {
    let f = Fields::of(value)?;
    Ok(ExportedChat {
        format: f.get("format", string)?,
        version: f.get("version", uint32)?,
        app_version: f.or_default("app_version", string)?,
        exported_unix_ms: f.get("exported_unix_ms", float)?,
        title: f.or_default("title", string)?,
        settings: f.get("settings", exported_settings)?,
        runs: f.get("runs", |v| list(v, exported_run))?,
    })
}

pub(crate) fn exported_run(value: &Value) -> Read<ExportedRun> {
    let f = Fields::of(value)?;
    Ok(ExportedRun {
        question: f.get("question", string)?,
        clarified: f.or_default("clarified", |v| list(v, stored_clarification))?,
        attached: f.or_default("attached", |v| list(v, stored_attached))?,
        steps_kept: f.or("steps_kept", boolean, true)?,
        outcome: f.option("outcome", stored_outcome)?,
        trace: f.get("trace", trace)?,
        branches: f.or_default("branches", |v| list(v, exported_branch))?,
        shown: f.or_default("shown", uint32)?,
    })
}

/// A branch of an export: the stored branch's fields (read as storage reads them), its events
/// inline.
fn exported_branch(value: &Value) -> Read<ExportedBranch> {
    let StoredBranch { parent, at, question, clarified, outcome, .. } = stored_branch(value)?;
    Ok(ExportedBranch { parent, at, question, clarified, outcome, trace: Fields::of(value)?.get("trace", trace)? })
}

deserialize_via_value! {
    ExportedSettings => exported_settings,
    ExportedChat => exported_chat,
}
