//! The page's MCP hub at work: made on first use (by Settings or a run, both parts fetched on
//! use, so the client's code is not in the first load), Connect, refreshes on a changed tool
//! list, listeners, and the page's sign-ins reached through the hub's authorizer.

use crate::ui::services::mcp::Mcp;

/// `act` on the page's sign-ins, reached through its MCP hub (made if need be): the sign-in code
/// is then one piece with the hub's, whichever part draws the button.
pub fn with_sign_ins(page: Mcp, act: impl FnOnce(&dyn crate::tools::mcp::Authorizer)) {
    #[cfg(target_arch = "wasm32")]
    if let Some(authorizer) = hub(page).authorizer() {
        act(authorizer.as_ref());
    }
    // Native builds (tests) have no hub: nothing to sign in with.
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (page, act);
}

/// The browser side: the page's hub, Connect, refreshes and listeners.
#[cfg(target_arch = "wasm32")]
mod io {
    use std::rc::Rc;

    use leptos::prelude::*;

    use crate::ui::services::mcp::Page;
    use crate::agent::time::{race, Either};
    use crate::agent::Clock;
    use crate::browser::BrowserClock;
    use crate::net::browser::BrowserFetch;
    use crate::tools::mcp::settings::merge_tools;
    use crate::tools::mcp::{McpClient, McpError, McpHub, McpServer, McpState, McpToolInfo};

    /// The page's MCP clients, made on first use: by Settings or a run, both parts fetched on
    /// use (`parts`), so the client's code is not in the first load.
    pub fn hub(page: Page) -> Rc<McpHub> {
        let make = move || {
            let hub = McpHub::new(
                Rc::new(BrowserFetch),
                Rc::new(move |url: &str| refresh(page, url.to_string())),
                Rc::new(move |url: &str, state: McpState| show_state(page, url, state)),
            );
            // Servers the person signs in to: the tokens kept with Remember come back first, and
            // a sign-in the page went to itself finishes.
            crate::ui::services::sign_in::restore(page);
            hub.set_authorizer(Rc::new(crate::ui::services::sign_in::PageAuthorizer { page, reconnect: connect }));
            // Servers may ask the person (elicitation): the panel above the composer answers.
            hub.set_asker(Rc::new(crate::ui::services::asking::PageAsker));
            // Servers may ask for the model (sampling): the person reviews each request, or
            // always allows a server.
            hub.set_sampler(Rc::new(crate::ui::services::sampling::PageSampler::new(page)));
            // A stream a server closes before its answer is resumed after the wait it asks for.
            hub.set_clock(Rc::new(BrowserClock));
            // Tools' views (MCP Apps) are shown under the answer.
            hub.set_shows_views();
            crate::ui::services::sign_in::resume(page, connect);
            hub
        };
        page.hub.try_update_value(|life| life.hub(make)).unwrap_or_else(|| Rc::new(make()))
    }

    /// What the server's row says when its connection changes, whoever used it (Connect, a
    /// run, the listener): Settings never says "Connected" about a session the server forgot.
    fn show_state(page: Page, url: &str, state: McpState) {
        page.status.update(|lines| {
            lines.connection(url, state);
        });
    }

    use crate::app::mcp::CONNECTING;

    fn plural(n: usize, what: &str) -> String {
        format!("{n} {what}{}", if n == 1 { "" } else { "s" })
    }

    fn timeout_ms(server: &McpServer) -> f64 {
        server.common.timeout_s.max(1.0) * 1000.0
    }

    /// `work`, or an error naming the time limit when the server takes longer.
    pub async fn within<T>(server: &McpServer, work: impl std::future::Future<Output = Result<T, McpError>>) -> Result<T, String> {
        match race(work, BrowserClock.sleep(timeout_ms(server))).await {
            Either::Left(result) => result.map_err(|e| e.message),
            Either::Right(()) => Err(format!(
                "The MCP server {} did not answer within {:.0} s. Check that it is running, or raise its time limit.",
                server.display_url(),
                server.common.timeout_s
            )),
        }
    }

    /// Keeps what Connect learnt, in one change of the settings (one save): the server's name,
    /// instructions and other offers (`learnt`, on Connect only) and its tools.
    fn store_tools(page: Page, url: &str, learnt: Option<(&crate::tools::mcp::ServerInfo, String)>, tools: Vec<McpToolInfo>) -> usize {
        let count = tools.len();
        page.settings.update(|s| {
            if let Some(server) = s.tools.mcp.servers.iter_mut().find(|server| server.url.trim() == url) {
                if let Some((info, offers)) = learnt {
                    server.name = info.name.clone();
                    server.instructions = info.instructions.clone();
                    server.offers = offers;
                }
                server.tools = merge_tools(&server.tools, tools);
            }
        });
        count
    }

    pub fn connect(page: Page, index: usize) {
        let Some(server) = page.server(index) else { return };
        let url = server.url.trim().to_string();
        if url.is_empty() {
            page.set_status(&url, false, "Enter the server's address first.".into());
            return;
        }
        page.set_status(&url, true, CONNECTING.into());
        let client = hub(page).client(&server);
        leptos::task::spawn_local(async move {
            let work = async {
                let info = client.connect().await?;
                let tools = client.list_tools().await?;
                Ok((info, tools))
            };
            match within(&server, work).await {
                Ok((info, tools)) => {
                    let name = if info.name.is_empty() { "the server".to_string() } else { info.name.clone() };
                    // What else it offers; a list that fails is said, and Connect still stands.
                    let mut more = Vec::new();
                    let mut problems = Vec::new();
                    let (mut resources, mut templates, mut prompts) = (Vec::new(), Vec::new(), Vec::new());
                    if info.offers_resources {
                        match within(&server, client.list_resources()).await {
                            Ok((r, t)) => {
                                more.push(plural(r.len(), "resource"));
                                if !t.is_empty() {
                                    more.push(plural(t.len(), "resource template"));
                                }
                                (resources, templates) = (r, t);
                            }
                            Err(why) => problems.push(format!(" Its resources could not be listed: {why}")),
                        }
                    }
                    if info.offers_prompts {
                        match within(&server, client.list_prompts()).await {
                            Ok(p) => {
                                more.push(plural(p.len(), "prompt"));
                                prompts = p;
                            }
                            Err(why) => problems.push(format!(" Its prompts could not be listed: {why}")),
                        }
                    }
                    let offers = crate::tools::mcp::McpOffers { resources, templates, prompts }.to_text();
                    let count = store_tools(page, &url, Some((&info, offers)), tools);
                    let more = more.iter().map(|m| format!(", {m}")).collect::<String>();
                    page.set_status(&url, true, format!("Connected to {name} (MCP {}): {}{more}.{}", info.protocol, plural(count, "tool"), problems.concat()));
                    // Its stream carries list changes, and may carry its questions to the person.
                    listen(client, info.lists_changes);
                }
                Err(message) => page.set_status(&url, false, message),
            }
        });
    }

    /// The server said its tool list changed: read it again.
    fn refresh(page: Page, url: String) {
        let Some(server) = page.settings.with_untracked(|s| s.tools.mcp.servers.iter().find(|s| s.url.trim() == url).cloned()) else { return };
        let client = hub(page).client(&server);
        leptos::task::spawn_local(async move {
            match within(&server, client.list_tools()).await {
                Ok(tools) => {
                    let count = store_tools(page, &url, None, tools);
                    page.set_status(&url, true, format!("The server's tool list changed; it now has {count} tool{}.", if count == 1 { "" } else { "s" }));
                }
                Err(message) => page.set_status(&url, false, message),
            }
        });
    }

    /// Keeps the server's event stream open while this client is the one in use, so list
    /// changes and the server's questions arrive (`McpClient::keep_listening`).
    fn listen(client: Rc<McpClient>, announced: bool) {
        leptos::task::spawn_local(client.keep_listening(&BrowserClock, announced));
    }
}

/// Native builds (tests) have no fetch: the panel renders, Connect says it needs a browser.
#[cfg(not(target_arch = "wasm32"))]
mod io {
    use crate::ui::services::mcp::Page;

    pub fn connect(page: Page, index: usize) {
        let url = page.server(index).map(|s| s.url).unwrap_or_default();
        page.set_status(&url, false, "Connecting needs a browser.".into());
    }
}

#[cfg(target_arch = "wasm32")]
pub use io::{hub, within};

/// Connect server `index` (after a sign-in too).
pub fn connect(page: Mcp, index: usize) {
    io::connect(page, index);
}

/// Makes the page's hub now (Settings opening): remembered sign-ins are read as it is made, so
/// the rows say them at once, and a sign-in the page went to itself finishes.
pub fn make(page: Mcp) {
    #[cfg(target_arch = "wasm32")]
    hub(page);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = page;
}
