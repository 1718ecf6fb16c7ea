//! Page services: the only code of the page that touches the browser (`web_sys`, `js_sys`,
//! `wasm_bindgen`), storage, the HTTP seam, the tools' clients and the in-page engine
//! (`lints.rs` holds this). They carry out what the app's models decide, and hold what a
//! view must never hold: queues, locks, timers, retries, workers, windows.
//!
//! - `page.rs`: the browser for views (the time, timers, downloads, the clipboard, files
//!   picked, the address, leaving), and `parts.rs`, the loader of the parts fetched on use;
//! - `chats.rs`: the conversation list and the open chat kept saved (`app::saves`,
//!   `app::journal`, `app::chats`), across tabs;
//! - `run.rs`: a run of the agent into a conversation, its provider and tools; `session.rs`,
//!   the chat's side of it (asking, branches); `approval.rs`, the channel a waiting call asks on;
//! - `mcp.rs`, `hub.rs`, `sign_in.rs`: the page's MCP servers, their clients and sign-ins;
//!   `asking.rs`, the questions servers ask the person (elicitation) and the calls waiting on them;
//!   `sampling.rs`, servers' requests to use the model, reviewed by the person or their rule;
//! - `in_page.rs`: the model in the page as the page shares it;
//! - `documents.rs`: the person's documents: files in, PDFs read, indexing in steps, their
//!   database, and the index each run's `documents` tool searches;
//! - `python.rs`: Python in the page: Pyodide's workers, started, posted to, timed and ended
//!   as `app::python`'s pool decides, and each run's interpreter (`Session`);
//! - `eval.rs`: an evaluation's workers, saves and resume;
//! - `otel.rs`, `files.rs`: runs sent to a collector, and files in and out;
//! - `theme.rs`: the colour theme, kept and applied.

pub mod approval;
pub mod asking;
pub mod chats;
pub mod documents;
pub mod dom;
pub mod eval;
pub mod files;
pub mod hub;
pub mod in_page;
pub mod mcp;
pub mod models;
pub mod otel;
pub mod page;
pub mod parts;
pub mod python;
pub mod run;
pub mod sampling;
pub mod secrets;
pub mod session;
pub mod settings;
pub mod sign_in;
pub mod theme;
pub mod views;
