//! The browser's side of signing in to MCP servers (`app::mcp::sign_in` holds the rules): the
//! window the sign-in happens in (a full-page redirect when the browser blocks it), the
//! callback page (`www/signed-in.html`, beside the page, so it works under any sub-path), token
//! requests, refreshes, and keeping tokens on the device only with Remember. The hub
//! (`services::hub`) hands in how to connect a server once it is signed in to.

#[cfg(target_arch = "wasm32")]
pub use io::{restore, resume, Page as PageAuthorizer};

/// Connects server `index` (`services::hub::connect`), for a server signed in to.
pub type Reconnect = fn(crate::ui::services::mcp::Mcp, usize);

/// The browser's side.
#[cfg(target_arch = "wasm32")]
mod io {
    use std::cell::Cell;

    use leptos::prelude::*;
    use wasm_bindgen::{closure::Closure, JsCast};

    use super::Reconnect;
    use crate::ui::services::mcp::Mcp;
    use crate::agent::Clock;
    use crate::app::mcp::sign_in::{After401, AuthState, Begin, Pending, SignIns};
    use crate::browser::BrowserClock;
    use crate::net::browser::BrowserFetch;
    use crate::tools::mcp::oauth::{discover, redeem, register, revoke, Challenge, Client, Grant};
    use crate::tools::mcp::{Authorizer, Waited};

    /// Where remembered sign-ins are kept (`SignIns::kept`).
    const KEPT: &str = "thoughtline.mcp.sign-ins";
    /// The tab's session storage while the page is away at a sign-in: the sign-in under way,
    /// and the callback's query once it is back (written by `signed-in.js`).
    const AWAY: &str = "thoughtline.sign-in.pending";
    const RETURNED: &str = "thoughtline.sign-in.return";
    /// The channel the callback window tells the page on.
    const CHANNEL: &str = "thoughtline-sign-in";
    /// The callback page, and where a client ID metadata document would be, beside the page.
    const CALLBACK: &str = "signed-in.html";
    const CLIENT_DOCUMENT: &str = "oauth-client.json";

    fn now() -> u64 {
        js_sys::Date::now() as u64
    }

    fn remembered(page: Mcp) -> impl Fn(&str) -> bool {
        let servers = page.settings().with_untracked(|s| s.tools.mcp.servers.iter().filter(|s| s.remember_secret).map(|s| s.url.trim().to_string()).collect::<Vec<_>>());
        move |server: &str| servers.iter().any(|s| crate::tools::mcp::oauth::canonical_resource(s) == crate::tools::mcp::oauth::canonical_resource(server))
    }

    thread_local! {
        /// The callback window's channel is listened to (once per page).
        static LISTENING: Cell<bool> = const { Cell::new(false) };
    }

    /// The sign-ins changed: what masks the page's output learns the tokens, and the remembered
    /// ones are kept on the device (a failed write is said on the server's row).
    fn changed(page: Mcp) {
        let (secrets, kept) = page.sign_ins().with_untracked(|s| (s.secrets(), s.kept(remembered(page))));
        crate::ui::services::secrets::hold(secrets);
        // A newer page's record is never written over (`SignIns::kept`).
        let Some(kept) = kept else { return };
        if let Err(e) = crate::storage::local::write(KEPT, &kept) {
            let servers = page.settings().with_untracked(|s| s.tools.mcp.servers.iter().filter(|s| s.remember_secret).map(|s| s.url.trim().to_string()).collect::<Vec<_>>());
            for url in servers {
                page.set_status_line(&url, false, format!("The sign-in could not be kept on this device ({e}); it holds while this page is open."));
            }
        }
    }

    /// Takes back the remembered sign-ins (once, as the page's MCP clients are made).
    pub fn restore(page: Mcp) {
        let Some(text) = crate::storage::local::read(KEPT) else { return };
        let remember = remembered(page);
        // A record that does not read, or a newer page's (kept from then on), gives nothing.
        let _ = page.sign_ins().try_update(|s| s.restore(&text, remember));
        let secrets = page.sign_ins().with_untracked(SignIns::secrets);
        crate::ui::services::secrets::hold(secrets);
    }

    /// The page's sign-ins, as every MCP client asks them.
    pub struct Page {
        pub page: Mcp,
        /// How a server signed in to is connected (`services::hub::connect`).
        pub reconnect: Reconnect,
    }

    impl Authorizer for Page {
        fn token<'a>(&'a self, server: &'a str) -> crate::agent::LocalBoxFuture<'a, Option<String>> {
            Box::pin(async move {
                let page = self.page;
                if let Some(grant) = page.sign_ins().with_untracked(|s| s.due(server, now())) {
                    refresh(page, server, &grant).await;
                }
                page.sign_ins().with_untracked(|s| s.bearer_for(server, server).map(str::to_string))
            })
        }

        fn refused<'a>(&'a self, server: &'a str, sent: Option<&'a str>, challenge: Option<Challenge>) -> crate::agent::LocalBoxFuture<'a, bool> {
            Box::pin(async move {
                let page = self.page;
                match page.sign_ins().try_update(|s| s.after_401(server, sent, challenge)) {
                    Some(After401::Again) => true,
                    Some(After401::Refresh(grant)) => refresh(page, server, &grant).await,
                    _ => {
                        changed(page);
                        false
                    }
                }
            })
        }

        fn sign_in(&self, server: &str) {
            start(self.page, server.to_string(), self.reconnect);
        }

        fn sign_out(&self, server: &str) {
            sign_out(self.page, server.to_string());
        }

        fn settings_changed(&self) {
            changed(self.page);
        }

        fn wait<'a>(&'a self, server: &'a str) -> crate::agent::LocalBoxFuture<'a, Waited> {
            Box::pin(async move {
                let page = self.page;
                /// The run stops waiting however the wait ends (Stop drops it).
                struct Waiting(Mcp, String);
                impl Drop for Waiting {
                    fn drop(&mut self) {
                        let server = self.1.clone();
                        self.0.sign_ins().try_update(|s| s.waiting(&server, false));
                        self.0.waits(false);
                    }
                }
                page.sign_ins().update(|s| s.waiting(server, true));
                page.waits(true);
                let _waiting = Waiting(page, server.to_string());
                // A refusal from before this wait is not this sign-in's.
                let was = page.sign_ins().with_untracked(|s| s.state(server));
                for _ in 0..10 {
                    BrowserClock.sleep(500.0).await;
                    match page.sign_ins().with_untracked(|s| s.state(server)) {
                        AuthState::SignedIn { .. } => return Waited::SignedIn,
                        AuthState::Refused(why) if AuthState::Refused(why.clone()) != was => return Waited::Refused(why),
                        _ => {}
                    }
                }
                Waited::Still
            })
        }
    }

    /// Renews `grant`'s tokens: whether it worked (else the server needs a sign-in again, and
    /// its row says why).
    async fn refresh(page: Mcp, server: &str, grant: &Grant) -> bool {
        let signed_in = |page: Mcp| matches!(page.sign_ins().with_untracked(|s| s.state(server)), AuthState::SignedIn { .. });
        // One renewal at a time per server: a refresh token serves once, so a second request
        // that finds the token due waits for the first renewal instead of spending it again.
        if page.sign_ins().try_update(|s| s.begin_renewal(server)) != Some(true) {
            for _ in 0..100 {
                BrowserClock.sleep(100.0).await;
                if !page.sign_ins().with_untracked(|s| s.renewing(server)) {
                    break;
                }
            }
            return signed_in(page);
        }
        /// The renewal ends however the call does (a dropped run included).
        struct Renewing(Mcp, String);
        impl Drop for Renewing {
            fn drop(&mut self) {
                let server = self.1.clone();
                self.0.sign_ins().try_update(|s| s.end_renewal(&server));
            }
        }
        let _renewing = Renewing(page, server.to_string());
        let Some(body) = SignIns::refresh_body(grant) else { return false };
        let outcome = redeem(&BrowserFetch, &BrowserClock, &grant.token_endpoint, &grant.client(), &body, now(), grant.tokens.refresh.as_deref()).await;
        match outcome {
            Ok(tokens) => page.sign_ins().update(|s| s.refreshed(server, tokens)),
            Err(e) => page.sign_ins().update(|s| s.needs(server, &format!("renewing the access failed: {e}"))),
        }
        changed(page);
        signed_in(page)
    }

    fn window() -> Option<web_sys::Window> {
        web_sys::window()
    }

    /// The callback page's address: beside the page, whatever path it is served under.
    fn callback_address() -> String {
        let here = crate::ui::services::page::address();
        web_sys::Url::new_with_base(CALLBACK, &here).map(|u| u.href()).unwrap_or_default()
    }

    /// `crypto.getRandomValues`, and `sessionStorage` below, reached by name: their bindings
    /// would weigh on the first load, which never uses them.
    fn random() -> Option<[u8; 48]> {
        use js_sys::{Function, Reflect, Uint8Array};
        let window: wasm_bindgen::JsValue = window()?.into();
        let crypto = Reflect::get(&window, &"crypto".into()).ok()?;
        let fill: Function = Reflect::get(&crypto, &"getRandomValues".into()).ok()?.unchecked_into();
        let array = Uint8Array::new_with_length(48);
        fill.call1(&crypto, &array).ok()?;
        let mut bytes = [0u8; 48];
        array.copy_to(&mut bytes);
        Some(bytes)
    }

    fn session() -> Option<web_sys::Storage> {
        let window: wasm_bindgen::JsValue = window()?.into();
        let storage = js_sys::Reflect::get(&window, &"sessionStorage".into()).ok()?;
        (!storage.is_null() && !storage.is_undefined()).then(|| storage.unchecked_into())
    }

    /// Sign in to `server`: a window opens at once (while the click still allows one), then the
    /// page finds where to sign in and sends the window there; when the browser allows no
    /// window, the page itself goes, and comes back to the callback.
    fn start(page: Mcp, server: String, reconnect: Reconnect) {
        if server.is_empty() {
            return;
        }
        // Blank at first: a window opened at an address would still be loading it when the page
        // sends it on, and that first load can win over the sign-in's address.
        let popup = window().and_then(|w| w.open_with_url_and_target_and_features("", "thoughtline-sign-in", "popup,width=520,height=720").ok().flatten());
        page.sign_ins().update(|s| s.set_signing_in(&server));
        listen_for_returns(page, reconnect);
        leptos::task::spawn_local(async move {
            match prepare(page, &server, popup.is_none()).await {
                Ok(address) => match popup {
                    Some(popup) => {
                        if popup.location().set_href(&address).is_err() {
                            page.sign_ins().update(|s| s.refused(&server, "the sign-in window could not be sent to the sign-in page"));
                        }
                    }
                    None => leave_for(page, &server, &address),
                },
                Err(why) => {
                    if let Some(popup) = popup {
                        let _ = popup.close();
                    }
                    page.sign_ins().update(|s| s.refused(&server, &why));
                    changed(page);
                }
            }
        });
    }

    /// Discovery, the client ID, and the sign-in's address (the sign-in is then under way).
    async fn prepare(page: Mcp, server: &str, leaves: bool) -> Result<String, String> {
        let challenge = page.sign_ins().with_untracked(|s| s.challenge(server));
        let found = discover(&BrowserFetch, server, challenge.as_ref()).await.map_err(|e| e.0)?;
        let redirect_uri = callback_address();
        let (entered, entered_secret) = page.settings().with_untracked(|s| {
            s.tools.mcp.servers.iter().find(|s| s.url.trim() == server).map(|s| (s.client_id.trim().to_string(), s.client_secret.clone())).unwrap_or_default()
        });
        // The order the specification gives: a client ID entered for the server, the page's
        // client ID metadata document where the authorization server takes one, registration
        // (where the page registered already, for the grant it holds, that client again).
        let registered = page.sign_ins().with_untracked(|s| s.registered(server, &found.server.issuer));
        let document = match found.server.client_documents {
            true => client_document(&redirect_uri).await,
            false => None,
        };
        let client = if !entered.is_empty() {
            Client::entered(&entered, &entered_secret, &found.server.auth_methods)
        } else if let Some(document) = document {
            Client::public(document)
        } else if let Some(client) = registered {
            client
        } else if let Some(endpoint) = &found.server.registration_endpoint {
            register(&BrowserFetch, &BrowserClock, endpoint, &redirect_uri, &found.server.auth_methods).await.map_err(|e| e.0)?
        } else {
            return Err(format!(
                "{} registers no clients itself: enter the client ID it issued for this page (redirect address {redirect_uri}) under the server in Settings → Tools → MCP servers.",
                found.server.issuer
            ));
        };
        let random = random().ok_or("this browser gave no random numbers for the sign-in")?;
        Ok(page.sign_ins().try_update(|s| s.begin(server, &found, Begin { client: &client, redirect_uri: &redirect_uri, leaves }, &random, now())).unwrap_or_default())
    }

    /// The address of the page's client ID metadata document (`oauth-client.json` beside the
    /// page, published by whoever hosts it), when there is one that serves as a client ID.
    async fn client_document(redirect_uri: &str) -> Option<String> {
        let url = web_sys::Url::new_with_base(CLIENT_DOCUMENT, &crate::ui::services::page::address()).ok()?.href();
        let answer = crate::net::Fetch::get(&BrowserFetch, &url, &[]).await.ok().filter(|a| a.status == 200)?;
        crate::tools::mcp::oauth::read_client_document(&answer.body, &url, redirect_uri).ok()
    }

    /// No window could open: the page goes to the sign-in, keeping the sign-in under way in the
    /// tab's session storage (the chat is saved as the page goes, like any reload).
    fn leave_for(page: Mcp, server: &str, address: &str) {
        let pending = page.sign_ins().with_untracked(|s| s.pending(server).cloned());
        let kept = pending.and_then(|p| serde_json::to_string(&p).ok()).and_then(|text| session()?.set_item(AWAY, &text).ok());
        match (kept, window()) {
            (Some(()), Some(w)) => {
                let _ = w.location().set_href(address);
            }
            _ => page.sign_ins().update(|s| s.refused(server, "the browser blocked the sign-in window, and this tab cannot keep the sign-in while it goes: allow pop-ups for this page")),
        }
    }

    /// The callback window tells the page what the sign-in came back with.
    fn listen_for_returns(page: Mcp, reconnect: Reconnect) {
        if LISTENING.with(|l| l.replace(true)) {
            return;
        }
        let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) else { return };
        let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            if let Some(query) = event.data().as_string() {
                leptos::task::spawn_local(finish(page, query, reconnect));
            }
        });
        channel.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        handler.forget();
        std::mem::forget(channel);
    }

    /// The page came back from a full-page sign-in: the sign-in it kept, finished with the
    /// callback's query. Called as Settings opens (the page opens it for this).
    pub fn resume(page: Mcp, reconnect: Reconnect) {
        let Some(storage) = session() else { return };
        let (Ok(Some(query)), Ok(Some(kept))) = (storage.get_item(RETURNED), storage.get_item(AWAY)) else { return };
        let _ = storage.remove_item(RETURNED);
        let _ = storage.remove_item(AWAY);
        if let Ok(pending) = serde_json::from_str::<Pending>(&kept) {
            page.sign_ins().update(|s| s.start(pending));
            leptos::task::spawn_local(finish(page, query, reconnect));
        }
    }

    /// Redeems the code the sign-in came back with; Connect runs again for a server Settings
    /// shows as not connected, and a waiting run goes on.
    async fn finish(page: Mcp, query: String, reconnect: Reconnect) {
        let Some(back) = page.sign_ins().try_update(|s| s.came_back(&query, now())) else { return };
        let Ok((pending, code)) = back else {
            changed(page);
            return;
        };
        match redeem(&BrowserFetch, &BrowserClock, &pending.token_endpoint, &pending.client(), &pending.code_body(&code), now(), None).await {
            Ok(tokens) => page.sign_ins().update(|s| s.signed_in(&pending.server, pending.grant(tokens))),
            Err(e) => page.sign_ins().update(|s| s.refused(&pending.server, &e.0)),
        }
        changed(page);
        if matches!(page.sign_ins().with_untracked(|s| s.state(&pending.server)), AuthState::SignedIn { .. }) {
            let index = page.settings().with_untracked(|s| s.tools.mcp.servers.iter().position(|s| s.url.trim() == pending.server));
            if let Some(index) = index {
                if !page.connected(&pending.server) {
                    reconnect(page, index);
                }
            }
        }
    }

    /// Sign out: the tokens are forgotten here, then revoked where the server offers it.
    fn sign_out(page: Mcp, server: String) {
        let Some(grant) = page.sign_ins().try_update(|s| s.sign_out(&server)).flatten() else { return };
        changed(page);
        leptos::task::spawn_local(async move {
            if let Err(e) = revoke(&BrowserFetch, &BrowserClock, &grant).await {
                page.set_status_line(&server, false, format!("Signed out here, but {e}"));
            }
        });
    }
}
