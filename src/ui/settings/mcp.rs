//! Settings → Tools → MCP servers: add a server by address (with an optional token or header
//! secret), Connect (initialize, then list its tools), switch each tool on or off. While a
//! server that announced list changes is connected, its event stream is listened to, and its
//! tool list is read again whenever it says the list changed.
//!
//! The page's clients live in one `McpHub`, held by the page's `Mcp` (made by `App` with
//! `install`, handed to the runs and provided to Settings as context), so Connect, runs and the
//! listener use one session per server. No thread-local holds it: whatever needs the hub is
//! given the `Mcp`.

use leptos::prelude::*;

use crate::app::mcp::sign_in::SignIns;
use crate::app::mcp::{HubLife, StatusLines};
use crate::app::settings::Settings;
use crate::tools::mcp::McpServer;

/// What the panel says under a server: `Some((ok, text))` once something happened.
type Status = Option<(bool, String)>;

/// MCP as the page holds it: the settings, what each server's row says, and the page's hub
/// (made on first use, by Settings or a run: both parts fetched on use, so the client's code is
/// not in the first load). `Copy`: handed to whatever needs it.
#[derive(Clone, Copy)]
pub struct Mcp {
    settings: RwSignal<Settings>,
    /// By server address (`app::mcp`).
    status: RwSignal<StatusLines>,
    /// Native builds (tests) never make one: they have no fetch.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    hub: StoredValue<HubLife, LocalStorage>,
    /// How many runs wait for a sign-in (the composer then says which servers, with Sign in).
    waiting: RwSignal<u32>,
}

type Page = Mcp;

impl Mcp {
    /// The page's settings, which hold the servers.
    pub fn settings(self) -> RwSignal<Settings> {
        self.settings
    }

    /// The page's sign-ins (`sign_in.rs`): made when a part first needs them, so the first
    /// load carries none of it.
    pub fn sign_ins(self) -> ArcRwSignal<SignIns> {
        super::sign_in::state()
    }

    /// Whether a run waits for a sign-in (the composer then shows which, with Sign in).
    pub fn waits_sign_in(self) -> bool {
        self.waiting.get() > 0
    }

    /// A run starts (`true`) or stops waiting for a sign-in.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(super) fn waits(self, starts: bool) {
        self.waiting.try_update(|n| *n = if starts { *n + 1 } else { n.saturating_sub(1) });
    }

    /// Whether the server's row says it is connected.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(super) fn connected(self, url: &str) -> bool {
        self.status_of(url).is_some_and(|(ok, text)| ok && text.starts_with("Connected"))
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(super) fn set_status_line(self, url: &str, ok: bool, text: String) {
        self.status.update(|lines| lines.set(url, ok, text));
    }

    fn status_of(self, url: &str) -> Status {
        self.status.with(|lines| lines.of(url))
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    fn set_status(self, url: &str, ok: bool, text: String) {
        self.status.update(|lines| lines.set(url, ok, text));
    }

    fn server(self, index: usize) -> Option<McpServer> {
        self.settings.with_untracked(|s| s.tools.mcp.servers.get(index).cloned())
    }

    /// "Always allow" chosen while a run waited: the tool that run knew as `model_name` (its
    /// tools were built from `run`) stops asking, in the settings as they are now.
    pub fn allow_always(self, run: &crate::tools::mcp::McpSettings, model_name: &str) {
        self.settings.update(|settings| {
            crate::app::mcp::allow_always(&mut settings.tools.mcp, run, model_name);
        });
    }

    fn update_server(self, index: usize, change: impl FnOnce(&mut McpServer)) {
        self.settings.update(|s| {
            if let Some(server) = s.tools.mcp.servers.get_mut(index) {
                change(server);
            }
        });
    }
}

/// Sets up MCP for the page. Called once by `App`, so the status lines belong to the app and
/// outlive the Settings panel (a listener may report while it is closed).
pub fn install(settings: RwSignal<Settings>) -> Mcp {
    let mcp = Mcp { settings, status: RwSignal::new(StatusLines::default()), hub: StoredValue::new_local(HubLife::default()), waiting: RwSignal::new(0) };
    // A server removed, or given another address or secret, loses its client and listener.
    #[cfg(target_arch = "wasm32")]
    Effect::new(move |_| settings.with(|s| mcp.hub.get_value().servers_now(&s.tools.mcp.servers)));
    // The page going away (closed, reloaded, navigated from) ends every session it had.
    crate::ui::page::on_gone(move || mcp.hub.get_value().page_gone());
    mcp
}


#[component]
pub fn McpServersPanel(settings: RwSignal<Settings>) -> impl IntoView {
    // `App` provides the page's; a panel mounted on its own (the browser tests) makes one.
    let page = use_context::<Mcp>().unwrap_or_else(|| install(settings));
    // Back from a sign-in the page went to itself: it finishes here (the page opened Settings).
    // Remembered sign-ins are read as the hub is made: made here, the rows say them at once.
    #[cfg(target_arch = "wasm32")]
    hub(page);
    let count = move || settings.with(|s| s.tools.mcp.servers.len());
    let add = move |_| settings.update(|s| s.tools.mcp.servers.push(McpServer::default()));
    // Open from the start when servers are set up; after that the person decides.
    let open_at_first = count() != 0;
    view! {
        <details data-testid="mcp-servers" open=open_at_first>
            <summary>"MCP servers"</summary>
            <p class="hint">
                "Tools from any MCP server that speaks Streamable HTTP. The server must allow this page's origin (CORS) and expose the "
                <code>"Mcp-Session-Id"</code>" header. A token is sent only to its own server; it stays in memory unless you tick Remember."
            </p>
            <For each=move || 0..count() key=|i| *i let:index>
                <ServerRow page index/>
            </For>
            <button type="button" class="ghost" data-testid="mcp-add" on:click=add>"+ Add MCP server"</button>
        </details>
    }
}

#[component]
fn ServerRow(page: Page, index: usize) -> impl IntoView {
    let settings = page.settings;
    let id = move |what: &str| format!("mcp-{what}-{index}");
    let url = move || settings.with(|s| s.tools.mcp.servers.get(index).map(|s| s.url.clone()).unwrap_or_default());
    let connect = move |_| io::connect(page, index);
    let remove = move |_| settings.update(|s| {
        if index < s.tools.mcp.servers.len() {
            s.tools.mcp.servers.remove(index);
        }
    });
    view! {
        <div class="mcp-server" data-testid=id("server")>
            {text_field(page, index, "Server address (Streamable HTTP endpoint)", "url", "https://example.org/mcp", |s| s.url.clone(), |s, v| s.url = v)}
            {text_field(page, index, "Header for the secret (empty: Authorization: Bearer …)", "header", "Authorization", |s| s.header.clone(), |s, v| s.header = v)}
            {text_field(page, index, "Token or header value", "secret", "optional", |s| s.secret.clone(), |s, v| s.secret = v)}
            {check_field(page, index, "Remember the secret on this device (stored in this browser's localStorage)", "remember", |s| s.remember_secret, |s, v| s.remember_secret = v)}
            {check_field(page, index, "Use this server's tools", "enabled", |s| s.common.enabled, |s, v| s.common.enabled = v)}
            {text_field(page, index, "Client ID for its sign-in (only when its authorization server registers no clients itself)", "client-id", "registered on sign-in", |s| s.client_id.clone(), |s, v| s.client_id = v)}
            {super::sign_in::auth_line(page, index)}
            <label>
                "Time limit per call (seconds)"
                <input type="number" min="1" max="600" step="1" data-testid=id("timeout")
                    prop:value=move || settings.with(|s| s.tools.mcp.servers.get(index).map(|s| s.common.timeout_s).unwrap_or(30.0).to_string())
                    on:change=move |ev| {
                        if let Some(v) = crate::number::parse_f64(&event_target_value(&ev)) {
                            page.update_server(index, |s| s.common.timeout_s = v.clamp(1.0, 600.0));
                        }
                    }/>
            </label>
            <div class="connection-test">
                <span>
                    <button type="button" class="ghost" data-testid=id("connect") on:click=connect>"Connect"</button>
                    " "
                    <button type="button" class="ghost" data-testid=id("remove") on:click=remove>"Remove"</button>
                </span>
                <p role="status" data-testid=id("status")
                    class=move || match page.status_of(&url()) { Some((true, _)) => "ok", Some((false, _)) => "bad", None => "" }>
                    {move || page.status_of(&url()).map(|(ok, text)| format!("{} {text}", if ok { "✓" } else { "✗" }))}
                </p>
            </div>
            {move || {
                let instructions = settings.with(|s| s.tools.mcp.servers.get(index).map(|s| s.instructions.clone()).unwrap_or_default());
                (!instructions.trim().is_empty()).then(|| view! {
                    <details class="mcp-instructions" data-testid=id("instructions")>
                        <summary>"This server's instructions (added to the agent's system prompt, marked as the server's)"</summary>
                        <pre>{instructions}</pre>
                    </details>
                })
            }}
            <ToolList page index/>
            <Offers page index/>
        </div>
    }
}

/// The resources, resource templates and prompts the server listed on Connect: resources are
/// attached to a question from the composer, prompts become questions there.
#[component]
fn Offers(page: Page, index: usize) -> impl IntoView {
    let offers = move || {
        page.settings.with(|s| s.tools.mcp.servers.get(index).map(|s| {
            let offers = s.offers();
            (offers.resources, offers.templates, offers.prompts)
        }).unwrap_or_default())
    };
    let line = |item: &crate::tools::mcp::McpItem, detail: String| {
        let about = if item.description.is_empty() { String::new() } else { format!(": {}", item.description) };
        view! { <li><code>{item.name.clone()}</code>" "<span class="hint">{format!("{detail}{about}")}</span></li> }
    };
    move || {
        let (resources, templates, prompts) = offers();
        let listed = resources.len() + templates.len();
        view! {
            {(listed > 0).then(|| view! {
                <details class="mcp-offers" data-testid=format!("mcp-resources-{index}")>
                    <summary>{format!("Resources: {} (attach them to a question with 📎 beside the composer)", listed)}</summary>
                    <label>
                        "When the agent reads one itself (read_resource) "
                        <select class="small" data-testid=format!("mcp-resources-ask-{index}")
                            on:change=move |ev| page.update_server(index, |s| s.resources_ask = event_target_value(&ev) == "ask")>
                            <option value="ask" selected=move || page.settings.with(|s| s.tools.mcp.servers.get(index).is_some_and(|s| s.resources_ask))>"Ask each time"</option>
                            <option value="allow" selected=move || page.settings.with(|s| s.tools.mcp.servers.get(index).is_some_and(|s| !s.resources_ask))>"Always allow"</option>
                        </select>
                    </label>
                    <ul>
                        {resources.iter().map(|r| line(r, format!("{}{}", r.uri, if r.mime_type.is_empty() { String::new() } else { format!(" · {}", r.mime_type) }))).collect_view()}
                        {templates.iter().map(|t| line(t, format!("template {}", t.uri))).collect_view()}
                    </ul>
                </details>
            })}
            {(!prompts.is_empty()).then(|| view! {
                <details class="mcp-offers" data-testid=format!("mcp-prompts-{index}")>
                    <summary>{format!("Prompts: {} (pick one with ✦ beside the composer)", prompts.len())}</summary>
                    <ul>
                        {prompts.iter().map(|p| {
                            let arguments = p.arguments.iter().map(|a| if a.required { format!("{}*", a.name) } else { a.name.clone() }).collect::<Vec<_>>().join(", ");
                            line(p, if arguments.is_empty() { String::new() } else { format!("({arguments})") })
                        }).collect_view()}
                    </ul>
                </details>
            })}
        }
    }
}

/// A text field of server `index`, as plain `fn` pointers so one compiled copy serves all
/// (see `fields.rs`). The secret's field is a password field.
fn text_field(
    page: Page,
    index: usize,
    label: &'static str,
    what: &'static str,
    placeholder: &'static str,
    get: fn(&McpServer) -> String,
    set: fn(&mut McpServer, String),
) -> impl IntoView {
    let kind = match what {
        "secret" => "password",
        "url" => "url",
        _ => "text",
    };
    view! {
        <label>
            {label}
            <input type=kind data-testid=format!("mcp-{what}-{index}") placeholder=placeholder spellcheck="false" autocomplete="off"
                prop:value=move || page.settings.with(|s| s.tools.mcp.servers.get(index).map(get).unwrap_or_default())
                on:change=move |ev| page.update_server(index, |s| set(s, event_target_value(&ev).trim().to_string()))/>
        </label>
    }
}

fn check_field(page: Page, index: usize, label: &'static str, what: &'static str, get: fn(&McpServer) -> bool, set: fn(&mut McpServer, bool)) -> impl IntoView {
    view! {
        <label class="check">
            <input type="checkbox" data-testid=format!("mcp-{what}-{index}")
                prop:checked=move || page.settings.with(|s| s.tools.mcp.servers.get(index).is_some_and(get))
                on:change=move |ev| page.update_server(index, |s| set(s, event_target_checked(&ev)))/>
            {label}
        </label>
    }
}

/// The server's tools with an on/off each, and the name the model sees when it differs.
#[component]
fn ToolList(page: Page, index: usize) -> impl IntoView {
    let settings = page.settings;
    let rows = move || {
        settings.with(|s| {
            let names = crate::tools::mcp::names::unique_names(&s.tools.mcp, &crate::tools::mcp::RESERVED_NAMES);
            let Some(server) = s.tools.mcp.servers.get(index) else { return Vec::new() };
            server
                .tools
                .iter()
                .enumerate()
                .map(|(t, tool)| {
                    let unique = names.get(index).and_then(|n| n.get(t)).cloned().flatten().filter(|n| *n != tool.name);
                    (t, tool.name.clone(), tool.description.clone(), tool.enabled, unique, tool.unavailable.clone(), tool.ask)
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <ul class="mcp-tools" data-testid=format!("mcp-tools-{index}")>
            {move || rows().into_iter().map(|(t, name, description, enabled, unique, unavailable, ask)| {
                let toggle = move |ev| page.update_server(index, |s| {
                    if let Some(tool) = s.tools.get_mut(t) {
                        tool.enabled = event_target_checked(&ev);
                    }
                });
                let approval = move |ev| page.update_server(index, |s| {
                    if let Some(tool) = s.tools.get_mut(t) {
                        tool.ask = event_target_value(&ev) == "ask";
                    }
                });
                // A tool the page cannot call is greyed, says why, and is never offered.
                let servable = unavailable.is_empty();
                let (select_id, select_label) = (format!("mcp-approval-{index}-{name}"), format!("Before each call of {name}"));
                view! {
                    <li data-testid="mcp-tool" class:unavailable=!servable>
                        <label class="check">
                            <input type="checkbox" data-testid=format!("mcp-tool-{index}-{name}") prop:checked=enabled && servable disabled=!servable on:change=toggle/>
                            <code>{name}</code>
                            {unique.map(|u| view! { <span class="hint">{format!(" (the model sees it as {u})")}</span> })}
                        </label>
                        <select class="small" data-testid=select_id aria-label=select_label
                            disabled=!(enabled && servable) on:change=approval>
                            <option value="ask" selected=ask>"Ask each time"</option>
                            <option value="allow" selected=!ask>"Always allow"</option>
                        </select>
                        {(!servable).then(|| view! { <p class="hint" data-testid="mcp-tool-unavailable">{format!("Not offered to the model: {unavailable}")}</p> })}
                        <p class="hint">{description}</p>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// The browser side: the page's hub, Connect, refreshes and listeners.
#[cfg(target_arch = "wasm32")]
mod io {
    use std::rc::Rc;

    use leptos::prelude::*;

    use super::Page;
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
            super::super::sign_in::restore(page);
            hub.set_authorizer(Rc::new(super::super::sign_in::PageAuthorizer(page)));
            super::super::sign_in::resume(page);
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
                    if info.lists_changes {
                        listen(client);
                    }
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

    /// Keeps the server's event stream open while this client is the one in use, so tool-list
    /// changes arrive (`McpClient::keep_listening`).
    fn listen(client: Rc<McpClient>) {
        leptos::task::spawn_local(client.keep_listening(&BrowserClock));
    }
}

/// Native builds (tests) have no fetch: the panel renders, Connect says it needs a browser.
#[cfg(not(target_arch = "wasm32"))]
mod io {
    use super::Page;

    pub fn connect(page: Page, index: usize) {
        let url = page.server(index).map(|s| s.url).unwrap_or_default();
        page.set_status(&url, false, "Connecting needs a browser.".into());
    }
}

#[cfg(target_arch = "wasm32")]
pub use io::{hub, within};

/// Connect server `index` (after a sign-in too).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(super) fn connect(page: Mcp, index: usize) {
    io::connect(page, index);
}
