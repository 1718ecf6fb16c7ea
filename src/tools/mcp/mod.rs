//! Tools from MCP servers, over the Streamable HTTP transport, straight from the page: any
//! server that allows browser requests (CORS, with `Mcp-Session-Id` exposed) lends its tools to
//! the agent, in every strategy.
//!
//! Files of one job each: `jsonrpc.rs` (framing), `client.rs` (the transport: sessions,
//! protocol version, JSON and SSE answers, errors a person can act on), `tool.rs` (an MCP tool
//! as an `agent::Tool`), `result.rs` (a call's content as an observation), `schema.rs` (input
//! schemas said compactly for prompts), `names.rs` (unique model-facing names), `settings.rs`
//! (what is stored), `hub.rs` (the page's clients, shared across runs).

pub mod client;
pub mod hub;
pub mod jsonrpc;
pub mod names;
pub mod result;
pub mod schema;
pub mod settings;
pub mod tool;

pub use client::{ListenEnd, McpClient, McpError, McpErrorKind, McpState, ServerInfo};
pub use hub::McpHub;
pub use settings::{McpServer, McpSettings, McpToolInfo, RememberedSecret};

use crate::agent::Tool;

/// Tool names MCP tools must not take: the built-in tools and the agent's own `ask_person`.
pub const RESERVED_NAMES: [&str; 5] = ["wikipedia", "arxiv", "calculator", "web_search", crate::agent::prompt::ASK_PERSON];

/// The MCP tools the person switched on, ready for a run, each bound to its server's client.
pub fn build_tools(settings: &McpSettings, hub: &McpHub) -> Vec<Box<dyn Tool>> {
    let names = names::unique_names(settings, &RESERVED_NAMES);
    let mut tools: Vec<Box<dyn Tool>> = Vec::new();
    for (server, names) in settings.servers.iter().zip(names) {
        if server.url.trim().is_empty() || !server.common.enabled {
            continue;
        }
        let client = hub.client(server);
        for (info, name) in server.tools.iter().zip(names) {
            if let Some(name) = name {
                tools.push(Box::new(tool::McpTool::new(client.clone(), server, info, name)));
            }
        }
    }
    tools
}

/// The server and tool (indexes into `settings`) of the tool a run built from `settings` and
/// named `model_name` (`build_tools`).
pub fn tool_named(settings: &McpSettings, model_name: &str) -> Option<(usize, usize)> {
    let names = names::unique_names(settings, &RESERVED_NAMES);
    names.iter().enumerate().find_map(|(s, tools)| tools.iter().position(|n| n.as_deref() == Some(model_name)).map(|t| (s, t)))
}

#[cfg(test)]
mod tests;
