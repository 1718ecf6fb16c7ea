//! The run export: one run as a JSON file a person can keep, share and open again without
//! any key. Import reads every version this release knows and refuses newer ones.

use serde::Serialize;
use serde_json::Value;

use super::read::{export_header, exported_run};
use super::settings::Settings;
use crate::agent::{AgentSettings, Trace};
use crate::llm::Connection;
use crate::tools::ToolSettings;

pub const EXPORT_FORMAT: &str = "thoughtline.run";
/// Version 2 records each model request as what it adds to the previous one; version 1 files
/// (whole requests) read the same way.
const EXPORT_VERSION: u32 = 2;

/// The settings a run used, as exported: everything but the secrets. Read by hand
/// (`read.rs`): a missing field takes its value from `Default` below.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedSettings {
    pub preset: String,
    pub base_url: String,
    pub model: String,
    pub connection: Connection,
    pub agent: AgentSettings,
    pub tools: ToolSettings,
}

impl Default for ExportedSettings {
    fn default() -> Self {
        ExportedSettings::from(&Settings::default())
    }
}

impl From<&Settings> for ExportedSettings {
    fn from(s: &Settings) -> Self {
        let s = &crate::secrets::strip(s);
        ExportedSettings {
            preset: s.provider.preset.id().into(),
            base_url: s.provider.base_url.clone(),
            model: s.provider.model.clone(),
            connection: s.connection.clone(),
            agent: s.agent.clone(),
            tools: s.tools.clone(),
        }
    }
}

/// One run as a file a person can keep, share and open again without any key. Read by hand
/// (`read.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportedRun {
    pub format: String,
    pub version: u32,
    pub exported_unix_ms: f64,
    pub question: String,
    pub answer: Option<String>,
    pub settings: ExportedSettings,
    pub trace: Trace,
}

pub fn export_run(trace: &Trace, settings: &Settings, now_unix_ms: f64) -> String {
    let question = crate::agent::trace::question(&trace.events).unwrap_or_default().to_string();
    let run = ExportedRun {
        format: EXPORT_FORMAT.into(),
        version: EXPORT_VERSION,
        exported_unix_ms: now_unix_ms.round(),
        question,
        answer: trace.final_answer().map(str::to_string),
        settings: ExportedSettings::from(settings),
        trace: trace.clone(),
    };
    // Compact like every other write: a pretty printer would compile every serializer twice.
    serde_json::to_string(&run).unwrap_or_default()
}

/// Reads an exported run, saying what is wrong with a file that is not one.
pub fn import_run(json: &str) -> Result<ExportedRun, String> {
    // Read once; the header first, so a file that is not an export is named as such.
    let not_an_object = |e: &dyn std::fmt::Display| format!("This file is not a JSON object ({e}).");
    let value: Value = serde_json::from_str(json).map_err(|e| not_an_object(&e))?;
    let (format, version) = export_header(&value).map_err(|e| not_an_object(&e))?;
    if format != EXPORT_FORMAT {
        return Err("This JSON file is not a Thoughtline run export (its \"format\" is not \"thoughtline.run\").".into());
    }
    if version > EXPORT_VERSION {
        return Err("This run was exported by a newer Thoughtline; update the page to open it.".into());
    }
    exported_run(&value).map_err(|e| format!("This run export is damaged: {e}."))
}
