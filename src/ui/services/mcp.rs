//! The page's MCP servers as a page service: the hub of clients, Connect (initialize, then
//! list its tools and offers), and, while a server that announced list changes is connected,
//! its event stream, its tool list read again whenever it says the list changed. Settings
//! (`ui::settings::mcp`) draws the rows; runs take their tools from here.
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

/// What the views draw of a server: its resources and prompts, and the names its tools get.
pub use crate::tools::mcp::settings::display_url;
pub use crate::tools::mcp::{names::unique_names, McpItem, RESERVED_NAMES};

thread_local! {
    /// The page's one sign-in state, made on first use (by a part: Settings, a run, the
    /// composer's line), never owned by a view that may go away.
    static SIGN_INS: std::cell::OnceCell<ArcRwSignal<SignIns>> = const { std::cell::OnceCell::new() };
}

/// What the panel says under a server: `Some((ok, text))` once something happened.
pub type Status = Option<(bool, String)>;

/// MCP as the page holds it: the settings, what each server's row says, and the page's hub
/// (made on first use, by Settings or a run: both parts fetched on use, so the client's code is
/// not in the first load). `Copy`: handed to whatever needs it.
#[derive(Clone, Copy)]
pub struct Mcp {
    pub settings: RwSignal<Settings>,
    /// By server address (`app::mcp`).
    pub status: RwSignal<StatusLines>,
    /// Native builds (tests) never make one: they have no fetch.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub hub: StoredValue<HubLife, LocalStorage>,
    /// How many runs wait for a sign-in (the composer then says which servers, with Sign in).
    waiting: RwSignal<u32>,
}

pub type Page = Mcp;

impl Mcp {
    /// The page's settings, which hold the servers.
    pub fn settings(self) -> RwSignal<Settings> {
        self.settings
    }

    /// The page's sign-ins (`sign_in.rs`): made when a part first needs them, so the first
    /// load carries none of it.
    pub fn sign_ins(self) -> ArcRwSignal<SignIns> {
        SIGN_INS.with(|s| s.get_or_init(|| ArcRwSignal::new(Default::default())).clone())
    }

    /// Whether a run waits for a sign-in (the composer then shows which, with Sign in).
    pub fn waits_sign_in(self) -> bool {
        self.waiting.get() > 0
    }

    /// A run starts (`true`) or stops waiting for a sign-in.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn waits(self, starts: bool) {
        self.waiting.try_update(|n| *n = if starts { *n + 1 } else { n.saturating_sub(1) });
    }

    /// Whether the server's row says it is connected.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn connected(self, url: &str) -> bool {
        self.status_of(url).is_some_and(|(ok, text)| ok && text.starts_with("Connected"))
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn set_status_line(self, url: &str, ok: bool, text: String) {
        self.status.update(|lines| lines.set(url, ok, text));
    }

    pub fn status_of(self, url: &str) -> Status {
        self.status.with(|lines| lines.of(url))
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn set_status(self, url: &str, ok: bool, text: String) {
        self.status.update(|lines| lines.set(url, ok, text));
    }

    pub fn server(self, index: usize) -> Option<McpServer> {
        self.settings.with_untracked(|s| s.tools.mcp.servers.get(index).cloned())
    }

    /// "Always allow" chosen while a run waited: the tool that run knew as `model_name` (its
    /// tools were built from `run`) stops asking, in the settings as they are now.
    pub fn allow_always(self, run: &crate::tools::mcp::McpSettings, model_name: &str) {
        self.settings.update(|settings| {
            crate::app::mcp::allow_always(&mut settings.tools.mcp, run, model_name);
        });
    }

    pub fn update_server(self, index: usize, change: impl FnOnce(&mut McpServer)) {
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
    crate::ui::services::page::on_gone(move || mcp.hub.get_value().page_gone());
    mcp
}
