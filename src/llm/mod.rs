//! Language-model providers over `fetch`: the only code that talks HTTP to a model. `client.rs`
//! implements `agent::ChatModel` for every preset (streaming, retries, time limits); the
//! per-API modules (`openai.rs`, `anthropic/`) and the stream reader (`stream.rs`, fed by the
//! SSE decoder in `net/sse.rs`) are pure and tested natively against recorded provider responses.

pub mod anthropic;
pub mod client;
pub mod embeddings;
pub mod in_page;
pub mod in_page_models;
pub mod openai;
pub mod presets;
pub mod retry;
pub mod stream;
pub mod tool_calls;

pub use client::{Connection, Provider};
pub use presets::{Api, Preset, ProviderConfig};
