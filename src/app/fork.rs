//! Changing a step and running on from there, as the page offers it: the editor a trace row
//! opens (`ForkEditor`: the step, the text it starts from, which settings to run with), and
//! what running it asks for (`ForkPlan`: the branch to make, the settings the run uses, the
//! tools it may use). The record's side is `conversation::Run::fork`; the loop's is
//! `agent::fork`.

use crate::agent::fork::{can_ask_again, Change, Editable, ForkSettings};
use crate::agent::{Event, EventKind, ModelName, Strategy};
use crate::conversation::ForkAsk;
use crate::llm::Preset;
use crate::secrets::{mask, mask_value, Secrets};

use super::settings::keys::switch_provider;
use super::settings::Settings;

/// A trace row's editor: which step of which run, what it offers, the text as the person has
/// it now, and the settings to run with.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkEditor {
    pub run: usize,
    /// The line of the run the step is in (0: the run as first asked).
    pub line: usize,
    /// The step's index in that line.
    pub event: usize,
    pub editable: Editable,
    pub text: String,
    pub settings: ForkSettings,
}

/// What running a change asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkPlan {
    pub run: usize,
    pub ask: ForkAsk,
    /// The settings the branch runs with.
    pub settings: Settings,
    /// The tools it may use, by name (the run's own, for its own settings); `None` for the
    /// ones the settings enable now.
    pub tools: Option<Vec<String>>,
}

impl ForkEditor {
    /// The editor for event `event` of a run's line, if that step can be changed.
    pub fn open(run: usize, line: usize, events: &[Event], event: usize) -> Option<ForkEditor> {
        let editable = Editable::at(events, event)?;
        let text = editable.text().to_string();
        Some(ForkEditor { run, line, event, editable, text, settings: ForkSettings::Run })
    }

    /// Whether the edited text differs from the step's own.
    pub fn changed(&self) -> bool {
        self.text != self.editable.text()
    }

    /// The branch for the edited text, with the settings it runs with (`line_events`: the
    /// line the editor was opened in, as it is now).
    pub fn plan(&self, now: &Settings, secrets: &Secrets, line_events: &[Event]) -> Result<ForkPlan, String> {
        if self.text.trim().is_empty() && !matches!(self.editable, Editable::Observation { .. }) {
            return Err("Write something in place of the step, or close the editor.".into());
        }
        plan(self.run, self.event, self.editable.change(&self.text), self.settings, now, secrets, line_events)
    }
}

/// "Ask this step again" for event `event` of a run's line: the same request, a new reply.
pub fn ask_again(run: usize, line_events: &[Event], event: usize, settings: ForkSettings, now: &Settings, secrets: &Secrets) -> Result<ForkPlan, String> {
    if !can_ask_again(line_events, event) {
        return Err("Only a model's reply to a step can be asked again.".into());
    }
    plan(run, event, Change::AskAgain, settings, now, secrets, line_events)
}

fn plan(run: usize, event: usize, change: Change, which: ForkSettings, now: &Settings, secrets: &Secrets, line_events: &[Event]) -> Result<ForkPlan, String> {
    // The person's words are masked like any input (with every secret the page holds, which the
    // caller passes): a key pasted in never reaches the record.
    let change = match change {
        Change::Question { text } => Change::Question { text: mask(&text, secrets) },
        Change::Reply { text } => Change::Reply { text: mask(&text, secrets) },
        Change::Observation { tool, text } => Change::Observation { tool, text: mask(&text, secrets) },
        Change::ToolInput { tool, mut input } => {
            mask_value(&mut input, secrets);
            Change::ToolInput { tool, input }
        }
        Change::AskAgain => Change::AskAgain,
    };
    let (settings, tools) = match which {
        ForkSettings::Now => (now.clone(), None),
        ForkSettings::Run => run_settings(now, line_events, event),
    };
    let model = ModelName { provider: settings.provider.preset.id().to_string(), model: settings.provider.model.clone() };
    let strategy = settings.agent.strategy;
    Ok(ForkPlan { run, ask: ForkAsk { event, change, settings: which, model, strategy }, settings, tools })
}

/// The run's own settings as its trace recorded them up to step `event` (its latest start up to
/// there, `recorded`): its provider and model (the key kept for that provider, never another's),
/// its strategy, its tools; everything else as the settings are now.
fn run_settings(now: &Settings, events: &[Event], event: usize) -> (Settings, Option<Vec<String>>) {
    let mut settings = now.clone();
    let Some(Recorded { tools, strategy, model }) = recorded(events, event) else { return (settings, None) };
    apply_model(&mut settings, model);
    settings.agent.strategy = strategy;
    (settings, Some(tools.to_vec()))
}

/// Points the settings at a recorded provider and model. Another provider than the current one
/// takes its own base URL and its own kept key.
fn apply_model(settings: &mut Settings, model: &ModelName) {
    if let Some(preset) = Preset::from_id(&model.provider) {
        if preset != settings.provider.preset {
            switch_provider(settings, preset, preset.base_url().to_string());
        }
    }
    if !model.model.is_empty() {
        settings.provider.model = model.model.clone();
    }
}

/// What a line's latest start up to step `event` (that step included) recorded: the settings
/// "the run's own" means there, and what the editor says of them.
pub struct Recorded<'a> {
    pub tools: &'a [String],
    pub strategy: Strategy,
    pub model: &'a ModelName,
}

pub fn recorded(events: &[Event], event: usize) -> Option<Recorded<'_>> {
    events.get(..=event.min(events.len().saturating_sub(1)))?.iter().rev().find_map(|e| match &e.kind {
        EventKind::RunStarted { tools, strategy, model, .. } => Some(Recorded { tools, strategy: *strategy, model }),
        _ => None,
    })
}

#[cfg(test)]
mod tests;
