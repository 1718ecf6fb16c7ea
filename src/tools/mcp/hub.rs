//! The page's MCP clients, one per configured server, shared by Connect in Settings, by every
//! run (the chat's and Compare's) and by the listener for tool-list changes, so a session is
//! started once and reused. A client whose address or secret changed is replaced.

use std::cell::RefCell;
use std::rc::Rc;

use super::client::{Authorizer, McpClient, McpState};
use super::settings::McpServer;
use crate::net::Fetch;

pub struct McpHub {
    fetch: Rc<dyn Fetch>,
    clients: RefCell<Vec<Rc<McpClient>>>,
    /// Told the server's address whenever a server says its tool list changed.
    on_list_changed: Rc<dyn Fn(&str)>,
    /// Told the server's address and its connection's state whenever that changes.
    on_state: Rc<dyn Fn(&str, McpState)>,
    /// The page's sign-ins, given to every client (used by those with no secret of their own).
    authorizer: RefCell<Option<Rc<dyn Authorizer>>>,
    /// Who answers servers' questions (elicitation), given to every client.
    asker: RefCell<Option<Rc<dyn super::elicit::Asker>>>,
    /// Who reviews servers' requests to use the model (sampling), given to every client.
    sampler: RefCell<Option<Rc<dyn super::sample::Sampler>>>,
    /// The page's clock, given to every client (streams resumed after the wait they ask for).
    clock: RefCell<Option<Rc<dyn crate::agent::Clock>>>,
    /// The page shows tools' views (MCP Apps), as every client says.
    shows_views: std::cell::Cell<bool>,
}

impl McpHub {
    pub fn new(fetch: Rc<dyn Fetch>, on_list_changed: Rc<dyn Fn(&str)>, on_state: Rc<dyn Fn(&str, McpState)>) -> Self {
        McpHub { fetch, clients: RefCell::new(Vec::new()), on_list_changed, on_state, authorizer: RefCell::new(None), asker: RefCell::new(None), sampler: RefCell::new(None), clock: RefCell::new(None), shows_views: std::cell::Cell::new(false) }
    }

    /// The page's sign-ins, for the clients made from now on.
    pub fn set_authorizer(&self, authorizer: Rc<dyn Authorizer>) {
        *self.authorizer.borrow_mut() = Some(authorizer);
    }

    /// Who answers servers' questions, for the clients made from now on: they declare
    /// elicitation when they connect.
    pub fn set_asker(&self, asker: Rc<dyn super::elicit::Asker>) {
        *self.asker.borrow_mut() = Some(asker);
    }

    /// Who reviews servers' requests to use the model, for the clients made from now on:
    /// they declare sampling when they connect.
    pub fn set_sampler(&self, sampler: Rc<dyn super::sample::Sampler>) {
        *self.sampler.borrow_mut() = Some(sampler);
    }

    /// The page shows tools' views, for the clients made from now on.
    pub fn set_shows_views(&self) {
        self.shows_views.set(true);
    }

    /// The page's clock, for the clients made from now on.
    pub fn set_clock(&self, clock: Rc<dyn crate::agent::Clock>) {
        *self.clock.borrow_mut() = Some(clock);
    }

    /// The page's sign-ins, for Sign in and Sign out.
    pub fn authorizer(&self) -> Option<Rc<dyn Authorizer>> {
        self.authorizer.borrow().clone()
    }

    /// The client for `server` as configured now.
    pub fn client(&self, server: &McpServer) -> Rc<McpClient> {
        if let Some(client) = self.clients.borrow().iter().find(|c| c.serves(server)) {
            return client.clone();
        }
        let client = Rc::new(McpClient::new(server, self.fetch.clone()));
        if let Some(authorizer) = self.authorizer.borrow().clone() {
            client.set_authorizer(authorizer);
        }
        if let Some(asker) = self.asker.borrow().clone() {
            client.set_asker(asker);
        }
        if let Some(sampler) = self.sampler.borrow().clone() {
            client.set_sampler(sampler);
        }
        if let Some(clock) = self.clock.borrow().clone() {
            client.set_clock(clock);
        }
        if self.shows_views.get() {
            client.set_shows_views();
        }
        let url = server.url.trim().to_string();
        let notify = self.on_list_changed.clone();
        client.set_on_list_changed(Rc::new({
            let url = url.clone();
            move || notify(&url)
        }));
        let state = self.on_state.clone();
        client.set_on_state(Rc::new(move |now| state(&url, now)));
        // An older client for the same address (another secret) is no longer wanted.
        self.retire_where(|c| c.same_address(server));
        self.clients.borrow_mut().push(client.clone());
        client
    }

    /// Whether `client` is still the one in use for its server (listeners stop when not).
    pub fn is_current(&self, client: &Rc<McpClient>) -> bool {
        self.clients.borrow().iter().any(|c| Rc::ptr_eq(c, client))
    }

    /// Drops (and retires) the clients of servers that are no longer configured as they are
    /// now: a removed server, or one whose address or secret changed, is not listened to again.
    pub fn keep_only(&self, servers: &[McpServer]) {
        self.retire_where(|c| !servers.iter().any(|s| c.serves(s)));
    }

    /// The page is going away: every client is retired and its session ended now (the clients
    /// runs or listeners still hold would otherwise end theirs only when let go, too late).
    pub fn end_sessions(&self) {
        for client in self.clients.take() {
            client.retire();
            client.end_session();
        }
    }

    fn retire_where(&self, unwanted: impl Fn(&McpClient) -> bool) {
        self.clients.borrow_mut().retain(|c| {
            let keep = !unwanted(c);
            if !keep {
                c.retire();
            }
            keep
        });
    }
}
