//! Signing in to MCP servers that need it, in the page: each server's state and its Sign in /
//! Sign out in Settings (`mcp-auth-state`, `mcp-sign-in`), the line a waiting run shows above
//! the composer (`run-sign-in`), and the browser's side of `app::mcp::sign_in`: the window the
//! sign-in happens in (a full-page redirect when the browser blocks it), the callback page
//! (`www/signed-in.html`, beside the page, so it works under any sub-path), token requests,
//! refreshes, and keeping tokens on the device only with Remember.

use leptos::prelude::*;

use super::mcp::Mcp;
use crate::app::mcp::sign_in::AuthState;
use crate::tools::mcp::oauth::Challenge;
use crate::tools::mcp::Waited;

#[cfg(target_arch = "wasm32")]
mod io;

/// What the sign-in part is asked to do.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub enum Job {
    /// The access token for a server now (renewed first when due).
    Token(String),
    /// The server answered 401 to `sent`.
    Refused { server: String, sent: Option<String>, challenge: Option<Challenge> },
    /// A run waits a while for a sign-in.
    Wait(String),
    /// Sign in, in the window the click opened (none: the browser blocked it).
    Start { server: String, window: Option<web_sys::Window> },
    SignOut(String),
    /// Settings opened: take back what the device kept, and finish a sign-in the page went to.
    Resume,
    /// A server's Remember changed.
    Remembered,
}

/// What it answers.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub enum Done {
    Token(Option<String>),
    Again(bool),
    Waited(Waited),
    Nothing,
}

crate::ui::parts::part!(sign_in, preload = preload, pub fn signing(page: Mcp, job: Job) -> crate::agent::LocalBoxFuture<'static, Done> {
    work(page, job)
});

#[cfg(target_arch = "wasm32")]
fn work(page: Mcp, job: Job) -> crate::agent::LocalBoxFuture<'static, Done> {
    Box::pin(io::run(page, job))
}

/// Native builds (tests) have no window: nothing to sign in with.
#[cfg(not(target_arch = "wasm32"))]
fn work(page: Mcp, job: Job) -> crate::agent::LocalBoxFuture<'static, Done> {
    if let Job::Start { server, .. } = &job {
        page.sign_ins().update(|s| s.refused(server, "signing in needs a browser"));
    }
    Box::pin(async { Done::Nothing })
}

/// Asks the sign-in part, fetching it the first time; what it answered, or why not.
async fn ask(page: Mcp, job: Job) -> Result<Done, crate::ui::parts::PartMissing> {
    Ok(signing(page, job).await?.await)
}

/// `job`, on its own (a click's).
fn go(page: Mcp, job: Job) {
    let server = match &job {
        Job::Start { server, .. } | Job::SignOut(server) => Some(server.clone()),
        _ => None,
    };
    leptos::task::spawn_local(async move {
        if let (Err(missing), Some(server)) = (ask(page, job).await, server) {
            page.sign_ins().update(|s| s.refused(&server, &missing.message("Signing in to MCP servers")));
        }
    });
}

/// The page's sign-ins, as every MCP client asks them: through the sign-in part.
#[cfg(target_arch = "wasm32")]
pub struct PageAuthorizer(pub Mcp);

#[cfg(target_arch = "wasm32")]
impl crate::tools::mcp::Authorizer for PageAuthorizer {
    fn token<'a>(&'a self, server: &'a str) -> crate::agent::LocalBoxFuture<'a, Option<String>> {
        Box::pin(async move {
            match ask(self.0, Job::Token(server.to_string())).await {
                Ok(Done::Token(token)) => token,
                _ => None,
            }
        })
    }

    fn refused<'a>(&'a self, server: &'a str, sent: Option<&'a str>, challenge: Option<Challenge>) -> crate::agent::LocalBoxFuture<'a, bool> {
        Box::pin(async move {
            let job = Job::Refused { server: server.to_string(), sent: sent.map(str::to_string), challenge };
            matches!(ask(self.0, job).await, Ok(Done::Again(true)))
        })
    }

    fn wait<'a>(&'a self, server: &'a str) -> crate::agent::LocalBoxFuture<'a, Waited> {
        Box::pin(async move {
            match ask(self.0, Job::Wait(server.to_string())).await {
                Ok(Done::Waited(waited)) => waited,
                Ok(_) => Waited::Still,
                Err(missing) => Waited::Refused(missing.message("Signing in to MCP servers")),
            }
        })
    }
}

/// The sign-in window, opened in the click while the browser still allows one (at the callback
/// page, which waits; the part then sends it to the sign-in). `None`: blocked.
fn open_window() -> Option<web_sys::Window> {
    #[cfg(target_arch = "wasm32")]
    return web_sys::window()?.open_with_url_and_target_and_features("signed-in.html", "thoughtline-sign-in", "popup,width=520,height=720").ok().flatten();
    #[cfg(not(target_arch = "wasm32"))]
    None
}

/// Sign in to `server` (a click).
fn sign_in(page: Mcp, server: String) {
    let window = open_window();
    go(page, Job::Start { server, window });
}

thread_local! {
    /// The page's one sign-in state, made on first use (by a part: Settings, a run, the
    /// composer's line), never owned by a view that may go away.
    static STATE: std::cell::OnceCell<ArcRwSignal<crate::app::mcp::sign_in::SignIns>> = const { std::cell::OnceCell::new() };
}

/// The page's sign-ins.
pub fn state() -> ArcRwSignal<crate::app::mcp::sign_in::SignIns> {
    STATE.with(|s| s.get_or_init(|| ArcRwSignal::new(Default::default())).clone())
}

/// The address of server `index` in the settings.
fn server_url(page: Mcp, index: usize) -> String {
    page.settings().with(|s| s.tools.mcp.servers.get(index).map(|s| s.url.trim().to_string()).unwrap_or_default())
}

/// A server row's sign-in line: its state in words, and Sign in or Sign out when they apply.
pub fn auth_line(page: Mcp, index: usize) -> impl IntoView {
    let state = move || {
        let url = server_url(page, index);
        page.sign_ins().with(|s| s.state(&url))
    };
    let now = || crate::ui::page::now_ms() as u64;
    // Remember ticked or not: what the device keeps of this server's sign-in follows.
    let remember = Memo::new(move |_| page.settings().with(|s| s.tools.mcp.servers.get(index).is_some_and(|s| s.remember_secret)));
    Effect::new(move |before: Option<bool>| {
        let now = remember.get();
        if before.is_some_and(|b| b != now) {
            go(page, Job::Remembered);
        }
        now
    });
    view! {
        {move || {
            let state = state();
            let shown = !matches!(state, AuthState::Open);
            let signed_in = matches!(state, AuthState::SignedIn { .. });
            // While signing in too: a window closed half-way leaves nothing else to press.
            let can_sign_in = matches!(state, AuthState::NeedsSignIn(_) | AuthState::Refused(_) | AuthState::SigningIn);
            shown.then(|| view! {
                <div class="mcp-auth">
                    <p role="status" data-testid="mcp-auth-state" class:bad=matches!(state, AuthState::Refused(_))>{state.says(now())}</p>
                    {can_sign_in.then(|| view! {
                        <button type="button" class="primary small" data-testid="mcp-sign-in"
                            on:click=move |_| sign_in(page, server_url(page, index))>"Sign in"</button>
                    })}
                    {signed_in.then(|| view! {
                        <button type="button" class="ghost small" data-testid="mcp-sign-out"
                            on:click=move |_| go(page, Job::SignOut(server_url(page, index)))>"Sign out"</button>
                    })}
                </div>
            })
        }}
    }
}

/// Above the composer while a run waits for a sign-in: which server, and Sign in. Stop (the
/// composer's) ends the run.
#[component]
pub fn SignInWait(mcp: Mcp) -> impl IntoView {
    move || {
        let servers = mcp.sign_ins().with(|s| s.waited_on());
        servers
            .into_iter()
            .map(|server| {
                let shown = crate::tools::mcp::settings::display_url(&server);
                let state = mcp.sign_ins().with(|s| s.state(&server));
                let to = server.clone();
                view! {
                    <link rel="stylesheet" href="parts/approval.css"/>
                    <div class="approval" role="group" aria-label=format!("Sign in to {shown}") data-testid="sign-in-wait">
                        <p><strong>{format!("The agent waits for you to sign in to {shown}.")}</strong></p>
                        <p class="hint">{state.says(crate::ui::page::now_ms() as u64)}</p>
                        <div class="approval-choices">
                            <button class="primary" data-testid="run-sign-in" on:click=move |_| sign_in(mcp, to.clone())>"Sign in"</button>
                        </div>
                    </div>
                }
            })
            .collect_view()
    }
}


/// Settings opened: what the device kept comes back, and a sign-in the page went to finishes.
pub fn resume(page: Mcp) {
    go(page, Job::Resume);
}
