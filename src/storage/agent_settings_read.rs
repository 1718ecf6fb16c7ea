//! `AgentSettings` as stored settings and exports hold them: written through a borrowed
//! `StoredAgentSettings` (which keeps the stored names: `ask_person` is stored under its first
//! name, `ask_clarifying`), and read back by hand (see `crate::json_read` for why and for the
//! rules every reader keeps).
//!
//! A missing field takes its value from `AgentSettings::default()` (15 steps, not 0), `null`
//! is refused except for `Option`s.

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::agent::settings::{AgentSettings, EarlyStopping, Strategy};
use crate::json_read::{boolean, deserialize_via_value, float, float32, read_name, size, string, uint32, Fields, Read};

#[cfg(test)]
mod tests;

/// `AgentSettings` as written, field for field, under the stored names.
#[derive(Serialize)]
struct StoredAgentSettings<'a> {
    strategy: Strategy,
    structured_output: bool,
    ask_clarifying: bool,
    direct_answers: bool,
    max_iterations: u32,
    max_time_ms: Option<f64>,
    early_stopping: EarlyStopping,
    feed_back_parse_errors: bool,
    parse_error_message: &'a Option<String>,
    feed_back_tool_errors: bool,
    tool_timeout_ms: f64,
    observation_limit: usize,
    history_budget: usize,
    system_template: &'a Option<String>,
    temperature: f32,
    max_tokens: Option<u32>,
    repeat_limit: u32,
    scope: &'a str,
    decline_message: &'a str,
}

/// For `#[serde(serialize_with)]` on a field holding `AgentSettings`.
pub(crate) fn agent_settings_as_stored<S: Serializer>(a: &AgentSettings, serializer: S) -> Result<S::Ok, S::Error> {
    // Destructured whole: a new field does not compile until it is written here too.
    let AgentSettings {
        strategy,
        structured_output,
        ask_person,
        direct_answers,
        max_iterations,
        max_time_ms,
        early_stopping,
        feed_back_parse_errors,
        parse_error_message,
        feed_back_tool_errors,
        tool_timeout_ms,
        observation_limit,
        history_budget,
        system_template,
        temperature,
        max_tokens,
        repeat_limit,
        scope,
        decline_message,
    } = a;
    StoredAgentSettings {
        strategy: *strategy,
        structured_output: *structured_output,
        ask_clarifying: *ask_person,
        direct_answers: *direct_answers,
        max_iterations: *max_iterations,
        max_time_ms: *max_time_ms,
        early_stopping: *early_stopping,
        feed_back_parse_errors: *feed_back_parse_errors,
        parse_error_message,
        feed_back_tool_errors: *feed_back_tool_errors,
        tool_timeout_ms: *tool_timeout_ms,
        observation_limit: *observation_limit,
        history_budget: *history_budget,
        system_template,
        temperature: *temperature,
        max_tokens: *max_tokens,
        repeat_limit: *repeat_limit,
        scope,
        decline_message,
    }
    .serialize(serializer)
}

pub(crate) fn agent_settings(value: &Value) -> Read<AgentSettings> {
    let f = Fields::of(value)?;
    let d = AgentSettings::default();
    Ok(AgentSettings {
        strategy: f.or("strategy", strategy, d.strategy)?,
        structured_output: f.or("structured_output", boolean, d.structured_output)?,
        // Stored under its first name.
        ask_person: f.or("ask_clarifying", boolean, d.ask_person)?,
        direct_answers: f.or("direct_answers", boolean, d.direct_answers)?,
        max_iterations: f.or("max_iterations", uint32, d.max_iterations)?,
        max_time_ms: f.option_or("max_time_ms", float, d.max_time_ms)?,
        early_stopping: f.or("early_stopping", early_stopping, d.early_stopping)?,
        feed_back_parse_errors: f.or("feed_back_parse_errors", boolean, d.feed_back_parse_errors)?,
        parse_error_message: f.option_or("parse_error_message", string, d.parse_error_message)?,
        feed_back_tool_errors: f.or("feed_back_tool_errors", boolean, d.feed_back_tool_errors)?,
        tool_timeout_ms: f.or("tool_timeout_ms", float, d.tool_timeout_ms)?,
        observation_limit: f.or("observation_limit", size, d.observation_limit)?,
        history_budget: f.or("history_budget", size, d.history_budget)?,
        system_template: f.option_or("system_template", string, d.system_template)?,
        temperature: f.or("temperature", float32, d.temperature)?,
        max_tokens: f.option_or("max_tokens", uint32, d.max_tokens)?,
        repeat_limit: f.or("repeat_limit", uint32, d.repeat_limit)?,
        scope: f.or("scope", string, d.scope)?,
        decline_message: f.or("decline_message", string, d.decline_message)?,
    })
}

/// The strategy as the settings hold it (the trace reads it with `trace_read`, which may quote
/// an unknown name; stored settings hold secrets, so nothing is quoted here).
fn strategy(value: &Value) -> Read<Strategy> {
    read_name(value, Strategy::from_id, "strategy")
}

fn early_stopping(value: &Value) -> Read<EarlyStopping> {
    let named = |tag: &str| match tag {
        "force" => Some(EarlyStopping::Force),
        "generate" => Some(EarlyStopping::Generate),
        _ => None,
    };
    read_name(value, named, "early stopping")
}

deserialize_via_value! {
    AgentSettings => agent_settings,
    EarlyStopping => early_stopping,
}
