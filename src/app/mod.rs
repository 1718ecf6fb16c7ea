//! The app: plain Rust state between the core (the agent, the conversation record, storage's
//! shapes) and the views. It decides what must happen (what to write, when, what to restore)
//! and returns it; the views carry it out with the browser and mirror the state in signals.
//! No Leptos and no browser types here (`lints.rs`), so every rule is tested natively, faults
//! replayed as sequences of operations with a clock the test moves.
//!
//! - `chats.rs`: the chat list the sidebar shows, and which read of a stored chat may still
//!   show it (what the person does meanwhile wins).
//! - `documents.rs`: the person's documents: files read, indexed in steps, stored, removed,
//!   and what each row of the Documents panel says.
//! - `eval/`: evaluations: sets of cases read from JSON Lines or CSV, and the scorers that
//!   judge each case's answer.
//! - `fork.rs`: changing a step and running on from there: a trace row's editor, and the
//!   branch, settings and tools a change runs with.
//! - `glimpse.rs`: the few lines of the open chat the first screen shows a returning person
//!   before the app has arrived.
//! - `journal.rs`: what a person typed, kept synchronously until the chat is stored, and
//!   turned back into the chat on the next load.
//! - `mcp.rs`: the page's MCP hub from first use to the page going away, each server's status
//!   line, and "Always allow"; `mcp/asking.rs`, the questions servers ask the person
//!   (elicitation) waiting for an answer.
//! - `python.rs`: the page's Python interpreters: one per run, a bounded number at once, the
//!   calls that wait, a call stopped at its time limit, an interpreter ended for its memory.
//! - `run.rs`: the run this page drives: the one answer to "is a run going on", what goes
//!   with the next question, what an event ends, and what reached the collector.
//! - `settings.rs`: the settings model (what a person can set, its secrets' rules in
//!   `settings/keys.rs`) and how it meets its stored and exported shapes.
//! - `share.rs`: a run shown to someone: the link that carries it (what is chosen, the
//!   fragment's envelope, what is wrong with a bad link), and the page "Save as HTML" writes.
//! - `saves.rs`: when the open chat is saved: the queued save and the chat it belongs to, a
//!   save in flight, a failed save keeping the chat in memory, a chat running in another tab.

pub mod chats;
pub mod documents;
pub mod eval;
pub mod fork;
pub mod glimpse;
pub mod journal;
pub mod mcp;
pub mod python;
pub mod run;
pub mod saves;
pub mod settings;
pub mod share;
