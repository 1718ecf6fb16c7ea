//! The knobs of a run. Plain data with defaults that match what a person expects from the
//! field's ReAct agents; stored and exported by the edge in its own versioned shape.

use serde::Serialize;

/// What to do when a limit (steps or time) is reached without a final answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EarlyStopping {
    /// Stop at once and say which limit was hit.
    #[default]
    Force,
    /// Make one last model call asking for the best final answer from what was found.
    Generate,
}

/// How the agent talks to the model. All strategies share the executor, tools and trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Text ReAct: `Thought:`, then `Action:` with a JSON blob, or `Final Answer:`.
    #[default]
    React,
    /// The provider's native function calling (OpenAI `tools`, Anthropic `tool_use`).
    ToolCalling,
    /// A numbered plan first, then tagged REASONING / ACTION sections, replanning on failure.
    PlanReact,
}

impl Strategy {
    pub const ALL: [Strategy; 3] = [Strategy::React, Strategy::ToolCalling, Strategy::PlanReact];

    pub fn id(self) -> &'static str {
        match self {
            Strategy::React => "react",
            Strategy::ToolCalling => "tool_calling",
            Strategy::PlanReact => "plan_react",
        }
    }

    pub fn from_id(id: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.id() == id)
    }

    pub fn label(self) -> &'static str {
        match self {
            Strategy::React => "ReAct (text + JSON action)",
            Strategy::ToolCalling => "Native tool calling",
            Strategy::PlanReact => "Plan-ReAct (plan, act, replan)",
        }
    }
}

/// Stored and exported by `storage` in its own shape; a missing field reads as `Default` below.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    pub strategy: Strategy,
    /// ReAct only: ask the provider for JSON matching a schema (`response_format`), so the
    /// action blob is always valid JSON. For servers that support it (OpenAI, llama.cpp, …).
    pub structured_output: bool,
    /// Give the agent its `ask_person` tool: it may end a run with a question back to the
    /// person when the request is ambiguous or a tool needs something the question does not
    /// give.
    pub ask_person: bool,
    /// When no tool fits, answer from the model's own knowledge (shown as a direct answer);
    /// when off, the model is told to say that the tools cannot answer.
    pub direct_answers: bool,
    /// ReAct steps (model calls) before early stopping applies.
    pub max_iterations: u32,
    /// Wall-clock limit for the whole run; `None` for no limit.
    pub max_time_ms: Option<f64>,
    pub early_stopping: EarlyStopping,
    /// Send the parser's complaint back to the model as the observation (else end the run).
    pub feed_back_parse_errors: bool,
    /// Replaces the parser's own explanation when set (the parser's is usually more helpful).
    pub parse_error_message: Option<String>,
    /// Show tool failures to the model as the observation (else end the run).
    pub feed_back_tool_errors: bool,
    /// Limit for one tool call, unless the tool sets its own.
    pub tool_timeout_ms: f64,
    /// Observations longer than this many characters are cut in the prompt, with a marker.
    pub observation_limit: usize,
    /// Characters of earlier turns (questions and answers) kept as memory, newest first.
    pub history_budget: usize,
    /// Replaces the built-in system prompt; `{tools}` and `{tool_names}` are filled in.
    pub system_template: Option<String>,
    pub temperature: f32,
    pub max_tokens: Option<u32>,
    /// The same action with the same input this many times in a row is refused.
    pub repeat_limit: u32,
    /// What this agent is for, in the person's words. When set, each new question first goes
    /// through one short model call that decides whether it is in scope; empty answers all.
    pub scope: String,
    /// What the agent says when it declines a question outside `scope`.
    pub decline_message: String,
}

/// Said when a question is outside the agent's scope, unless the settings say otherwise.
pub const DEFAULT_DECLINE: &str = "That question is outside what this assistant is set up for, so it will not try to answer it. Ask something within its purpose instead.";

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            strategy: Strategy::React,
            structured_output: false,
            ask_person: true,
            direct_answers: true,
            max_iterations: 15,
            max_time_ms: None,
            early_stopping: EarlyStopping::Force,
            feed_back_parse_errors: true,
            parse_error_message: None,
            feed_back_tool_errors: true,
            tool_timeout_ms: 15_000.0,
            observation_limit: 4000,
            history_budget: 6000,
            system_template: None,
            temperature: 0.0,
            max_tokens: None,
            repeat_limit: 3,
            scope: String::new(),
            decline_message: DEFAULT_DECLINE.to_string(),
        }
    }
}

impl AgentSettings {
    /// Whether a run with `strategy` asks the model for JSON matching the action schema: only
    /// ReAct has one. Where the provider's API cannot take a schema the caller clears
    /// `structured_output` first (`app::settings::Settings::structured_output`).
    pub fn structured_output_for(&self, strategy: Strategy) -> bool {
        self.structured_output && strategy == Strategy::React
    }
}
