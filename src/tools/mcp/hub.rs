//! The page's MCP clients, one per configured server, shared by Connect in Settings, by every
//! run (the chat's and Compare's) and by the listener for tool-list changes, so a session is
//! started once and reused. A client whose address or secret changed is replaced.

use std::cell::RefCell;
use std::rc::Rc;

use super::client::McpClient;
use super::settings::McpServer;
use crate::net::Fetch;

pub struct McpHub {
    fetch: Rc<dyn Fetch>,
    clients: RefCell<Vec<Rc<McpClient>>>,
    /// Told the server's address whenever a server says its tool list changed.
    on_list_changed: Rc<dyn Fn(&str)>,
}

impl McpHub {
    pub fn new(fetch: Rc<dyn Fetch>, on_list_changed: Rc<dyn Fn(&str)>) -> Self {
        McpHub { fetch, clients: RefCell::new(Vec::new()), on_list_changed }
    }

    /// The client for `server` as configured now.
    pub fn client(&self, server: &McpServer) -> Rc<McpClient> {
        if let Some(client) = self.clients.borrow().iter().find(|c| c.serves(server)) {
            return client.clone();
        }
        let client = Rc::new(McpClient::new(server, self.fetch.clone()));
        let url = server.url.trim().to_string();
        let notify = self.on_list_changed.clone();
        client.set_on_list_changed(Rc::new(move || notify(&url)));
        let mut clients = self.clients.borrow_mut();
        // An older client for the same address (another secret) is no longer wanted.
        clients.retain(|c| !c.same_address(server));
        clients.push(client.clone());
        client
    }

    /// Whether `client` is still the one in use for its server (listeners stop when not).
    pub fn is_current(&self, client: &Rc<McpClient>) -> bool {
        self.clients.borrow().iter().any(|c| Rc::ptr_eq(c, client))
    }

    /// Drops the clients of servers that are no longer configured.
    pub fn keep_only(&self, servers: &[McpServer]) {
        self.clients.borrow_mut().retain(|c| servers.iter().any(|s| c.serves(s)));
    }
}
