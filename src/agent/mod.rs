//! The agent core: prompt, parser, loop and trace. It talks to a language model and to tools
//! only through the `ChatModel` and `Tool` traits, and to time through `Clock`.
//!
//! **Invariant:** nothing under `agent/` imports `leptos`, `web_sys` or any browser API, so the
//! whole core runs and is tested natively with `cargo test`, and compiles unchanged to wasm32.

pub mod change;
pub mod fork;
pub mod model;
pub mod parse;
pub mod plan;
pub mod prompt;
pub mod request_record;
pub mod run;
pub mod scope;
pub mod settings;
pub mod time;
pub mod tool;
pub mod trace;

#[cfg(test)]
mod tests;

pub use crate::base::LocalBoxFuture;

pub use model::{ChatModel, ChatRequest, ChatResponse, LlmError, LlmErrorKind, Message, ModelName, Progress, Role, Usage};
pub use prompt::Turn;
pub use run::{run_agent, AnsweredQuestion, RunInput, RunObserver};
pub use settings::{AgentSettings, EarlyStopping, Strategy};
pub use time::{CancelToken, Clock};
pub use tool::{AskedYou, Tool, ToolContext, ToolError};
pub use trace::{ApprovalChoice, Event, EventKind, ScopeVerdict, StopReason, Tone, Trace};
