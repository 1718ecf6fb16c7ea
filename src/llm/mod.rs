//! Language-model providers over `fetch`: the only code that talks HTTP to a model. Each
//! provider implements `agent::ChatModel`; the agent never sees URLs, headers or keys.

pub mod openai;
pub mod presets;

pub use presets::{Preset, ProviderConfig};
