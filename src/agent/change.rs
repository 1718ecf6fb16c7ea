//! What a person changed at a fork, as the trace records it: the `Forked` event's content
//! (`agent::trace::EventKind::Forked`). Plain data below both the trace and the fork's rules
//! (`agent::fork`), so neither has to reach back into the other.

use serde_json::Value;

use super::model::ModelName;
use super::settings::Strategy;

/// A tool input as text: a string as it is, any other value as compact JSON.
pub fn value_as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What the person changed at the fork.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The question: the branch is a new run of the changed question.
    Question { text: String },
    /// The model's reply (its thought and its action or answer): read as if the model wrote it.
    Reply { text: String },
    /// The input of a tool call: the call is made with it.
    ToolInput { tool: String, input: Value },
    /// What a tool answered: the model reads it as the tool's result.
    Observation { tool: String, text: String },
    /// Nothing: the same request goes to the model again for a new reply.
    AskAgain,
}

impl Change {
    /// The person's own words in the change (empty for "ask again").
    pub fn text(&self) -> String {
        match self {
            Change::Question { text } | Change::Reply { text } | Change::Observation { text, .. } => text.clone(),
            Change::ToolInput { input, .. } => value_as_text(input),
            Change::AskAgain => String::new(),
        }
    }

    /// What was changed, for a row's line and the transcript.
    pub fn what(&self) -> String {
        match self {
            Change::Question { .. } => "You changed the question".into(),
            Change::Reply { .. } => "You changed the model's reply".into(),
            Change::ToolInput { tool, .. } => format!("You changed the input of {tool}"),
            Change::Observation { tool, .. } => format!("You changed what {tool} answered"),
            Change::AskAgain => "You asked the model this step again".into(),
        }
    }

    /// The stored tag of the change.
    pub fn name(&self) -> &'static str {
        match self {
            Change::Question { .. } => "question",
            Change::Reply { .. } => "reply",
            Change::ToolInput { .. } => "tool_input",
            Change::Observation { .. } => "observation",
            Change::AskAgain => "ask_again",
        }
    }
}

/// Which settings a branch runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkSettings {
    /// The run's own: its model, strategy and tools as its trace recorded them.
    Run,
    /// The ones in Settings now.
    Now,
}

impl ForkSettings {
    pub fn name(self) -> &'static str {
        match self {
            ForkSettings::Run => "run",
            ForkSettings::Now => "now",
        }
    }
}

/// Everything the `Forked` event says: where the branch comes from, what changed and what it
/// runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Fork {
    /// The branch it was made from (0: the run as first asked).
    pub branch: u32,
    /// The index, in that branch, of the step changed or asked again.
    pub from: u32,
    pub change: Change,
    pub settings: ForkSettings,
    /// The model and strategy the branch runs with (said in the trace either way).
    pub model: ModelName,
    pub strategy: Strategy,
}

impl Fork {
    /// The trace row's line on the settings, said plainly.
    pub fn settings_text(&self) -> String {
        let which = match self.settings {
            ForkSettings::Run => "the run's own settings",
            ForkSettings::Now => "the settings as they are now",
        };
        let model = if self.model.model.is_empty() { self.model.provider.clone() } else { format!("{} · {}", self.model.provider, self.model.model) };
        format!("Runs on with {which}: {model}, {}", self.strategy.label())
    }
}
