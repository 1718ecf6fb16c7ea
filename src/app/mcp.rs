//! The page's MCP servers over their lifetime: one hub of clients for the whole page (made on
//! first use, by Connect or a run; every server removed or given another address or secret
//! loses its client; every session ended when the page goes away), the line each server's row
//! says, and "Always allow" turning a tool's approval off in the settings as they are now.
//!
//! Plain state: the page's `ui::services::mcp::Mcp` holds one of these, mirrors the status lines in a
//! signal and carries out the browser's side (fetch, timers, the page going away).

use std::rc::Rc;

use crate::tools::mcp::{read_actions, tool_named, McpHub, McpServer, McpSettings, McpState};

/// What a server's row says while Connect waits for the server.
pub const CONNECTING: &str = "Connecting…";
/// What it says while a session the server forgot is being started again.
pub const RECONNECTING: &str = "Reconnecting: the server no longer knows this page's session (it may have restarted)…";

/// Each server's line, by its address: whether all is well, and the words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusLines(Vec<(String, (bool, String))>);

impl StatusLines {
    pub fn of(&self, url: &str) -> Option<(bool, String)> {
        self.0.iter().find(|(u, _)| u == url).map(|(_, s)| s.clone())
    }

    pub fn set(&mut self, url: &str, ok: bool, text: String) {
        self.0.retain(|(u, _)| u != url);
        self.0.push((url.to_string(), (ok, text)));
    }

    /// A server's connection changed, whoever used it (Connect, a run, the listener): the row
    /// never says "Connected" about a session the server forgot. Whether the line changed.
    pub fn connection(&mut self, url: &str, state: McpState) -> bool {
        let now = self.of(url);
        let says = |text: &str| now.as_ref().is_some_and(|(_, t)| t == text);
        match state {
            // Connect says it all once the tools are listed too.
            McpState::Connected(_) if says(CONNECTING) => return false,
            McpState::Connected(info) => {
                let name = if info.name.is_empty() { "the server".to_string() } else { info.name.clone() };
                let text = if says(RECONNECTING) {
                    format!("Reconnected to {name} (MCP {}) in a new session.", info.protocol)
                } else {
                    format!("Connected to {name} (MCP {}).", info.protocol)
                };
                self.set(url, true, text);
            }
            McpState::Reconnecting => self.set(url, true, RECONNECTING.into()),
            McpState::Failed(message) => self.set(url, false, message),
        }
        true
    }
}

/// What the page does with its hub's sessions without knowing the hub: the first screen holds
/// the hub through this (and `Any`), so none of the MCP client's code, not even what drops it,
/// is in the first load; the parts that make the hub bring it.
pub trait Sessions {
    /// Clients of servers no longer configured as they are now are let go.
    fn keep_only(&self, servers: &[McpServer]);
    /// The page is going away: every session ends now.
    fn end_sessions(&self);
}

impl Sessions for McpHub {
    fn keep_only(&self, servers: &[McpServer]) {
        McpHub::keep_only(self, servers);
    }

    fn end_sessions(&self) {
        McpHub::end_sessions(self);
    }
}

/// The page's hub, from its first use to the page going away. A clone shares the hub.
#[derive(Clone, Default)]
pub struct HubLife {
    /// The `McpHub`, as `Any`, and its sessions.
    hub: Option<(Rc<dyn std::any::Any>, Rc<dyn Sessions>)>,
}

impl HubLife {
    /// The hub, made by `make` the first time it is needed.
    pub fn hub(&mut self, make: impl FnOnce() -> McpHub) -> Rc<McpHub> {
        if let Some(hub) = self.made() {
            return hub;
        }
        let hub = Rc::new(make());
        self.hub = Some((hub.clone(), hub.clone()));
        hub
    }

    /// The hub if anything made it (nothing to let go of otherwise).
    pub fn made(&self) -> Option<Rc<McpHub>> {
        self.hub.as_ref().and_then(|(any, _)| any.clone().downcast::<McpHub>().ok())
    }

    /// The settings changed: a removed server, or one with another address or secret, loses its
    /// client and listener.
    pub fn servers_now(&self, servers: &[McpServer]) {
        if let Some((_, sessions)) = &self.hub {
            sessions.keep_only(servers);
        }
    }

    /// The page is going away: every session it had ends now.
    pub fn page_gone(&self) {
        if let Some((_, sessions)) = &self.hub {
            sessions.end_sessions();
        }
    }
}

/// "Always allow", chosen while a run waited: the tool that run knew as `model_name` (its tools
/// were built from `run`) stops asking, in the settings as they are now (`now`). Whether
/// anything changed.
pub fn allow_always(now: &mut McpSettings, run: &McpSettings, model_name: &str) -> bool {
    if let Some((at, _)) = read_actions(run).into_iter().find(|(_, name)| name == model_name) {
        let url = run.servers[at].url.trim().to_string();
        let mut changed = false;
        for server in now.servers.iter_mut().filter(|s| s.url.trim() == url) {
            changed |= server.resources_ask;
            server.resources_ask = false;
        }
        return changed;
    }
    let Some((s, t)) = tool_named(run, model_name) else { return false };
    let (url, name) = (run.servers[s].url.trim().to_string(), run.servers[s].tools[t].name.clone());
    let mut changed = false;
    for server in now.servers.iter_mut().filter(|server| server.url.trim() == url) {
        for tool in server.tools.iter_mut().filter(|tool| tool.name == name) {
            changed |= tool.ask;
            tool.ask = false;
        }
    }
    changed
}

pub mod asking;
pub mod sampling;
pub mod views;
pub mod sign_in;

#[cfg(test)]
mod tests;
