//! Several tabs of the page at once. Each tab tells the others when it saved or deleted a
//! chat (a `BroadcastChannel`), so their lists follow without a reload; and a tab running
//! a chat holds a Web Lock named after it, which the browser releases when the tab goes away,
//! so another tab can tell a live run from one a reload cut off.
//!
//! Natively (tests) there are no other tabs: announcing does nothing, and no lock is held.

/// What one tab tells the others.
#[derive(Debug, Clone, PartialEq)]
pub enum TabNews {
    Saved { id: String },
    Deleted { id: String },
}

impl TabNews {
    /// `saved:<id>` or `deleted:<id>`: plain text, so no serde code is compiled for it.
    pub fn to_text(&self) -> String {
        match self {
            TabNews::Saved { id } => format!("saved:{id}"),
            TabNews::Deleted { id } => format!("deleted:{id}"),
        }
    }

    /// Another tab's message is outside input too: anything else is ignored.
    pub fn from_text(text: &str) -> Option<TabNews> {
        let (kind, id) = text.split_once(':')?;
        let id = id.to_string();
        match kind {
            "saved" => Some(TabNews::Saved { id }),
            "deleted" => Some(TabNews::Deleted { id }),
            _ => None,
        }
    }
}

fn lock_name(chat_id: &str) -> String {
    format!("thoughtline.run.{chat_id}")
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use js_sys::{Function, Promise, Reflect};
    use std::cell::RefCell;
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};

    const CHANNEL: &str = "thoughtline";

    thread_local! {
        static CHANNEL_HANDLE: RefCell<Option<web_sys::BroadcastChannel>> = const { RefCell::new(None) };
    }

    fn channel() -> Option<web_sys::BroadcastChannel> {
        CHANNEL_HANDLE.with(|c| {
            let mut c = c.borrow_mut();
            if c.is_none() {
                *c = web_sys::BroadcastChannel::new(CHANNEL).ok();
            }
            c.clone()
        })
    }

    pub fn announce(news: &TabNews) {
        if let Some(channel) = channel() {
            let _ = channel.post_message(&JsValue::from_str(&news.to_text()));
        }
    }

    pub fn listen(on_news: impl Fn(TabNews) + 'static) {
        let Some(channel) = channel() else { return };
        let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            if let Some(news) = event.data().as_string().and_then(|t| TabNews::from_text(&t)) {
                on_news(news);
            }
        });
        channel.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        handler.forget();
    }

    fn locks() -> Option<JsValue> {
        let navigator = web_sys::window()?.navigator();
        Reflect::get(&navigator, &JsValue::from_str("locks")).ok().filter(|l| !l.is_undefined())
    }

    /// Held while a run goes on; dropping it releases the lock.
    pub struct RunLock {
        release: Option<Function>,
    }

    impl Drop for RunLock {
        fn drop(&mut self) {
            if let Some(release) = self.release.take() {
                let _ = release.call0(&JsValue::NULL);
            }
        }
    }

    pub fn hold_run_lock(chat_id: &str) -> RunLock {
        let Some(locks) = locks() else { return RunLock { release: None } };
        let mut release = None;
        let held = Promise::new(&mut |resolve: Function, _reject: Function| release = Some(resolve));
        // The lock lasts as long as the promise the callback returns stays pending.
        let callback = Closure::once_into_js(move |_lock: JsValue| -> JsValue { held.into() });
        let request = Reflect::get(&locks, &JsValue::from_str("request")).ok().and_then(|f| f.dyn_into::<Function>().ok());
        if let Some(request) = request {
            let _ = request.call2(&locks, &JsValue::from_str(&lock_name(chat_id)), &callback);
        }
        RunLock { release }
    }

    /// Whether some tab (this one included) holds the run lock of `chat_id`.
    pub async fn run_is_live(chat_id: &str) -> bool {
        let Some(locks) = locks() else { return false };
        let Some(query) = Reflect::get(&locks, &JsValue::from_str("query")).ok().and_then(|f| f.dyn_into::<Function>().ok()) else {
            return false;
        };
        let Ok(promise) = query.call0(&locks).and_then(|p| p.dyn_into::<Promise>()) else { return false };
        let Ok(snapshot) = wasm_bindgen_futures::JsFuture::from(promise).await else { return false };
        let name = lock_name(chat_id);
        Reflect::get(&snapshot, &JsValue::from_str("held"))
            .ok()
            .and_then(|held| held.dyn_into::<js_sys::Array>().ok())
            .is_some_and(|held| {
                held.iter().any(|lock| Reflect::get(&lock, &JsValue::from_str("name")).ok().and_then(|n| n.as_string()) == Some(name.clone()))
            })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;

    pub fn announce(_news: &TabNews) {}
    pub fn listen(_on_news: impl Fn(TabNews) + 'static) {}
    pub struct RunLock;
    pub fn hold_run_lock(chat_id: &str) -> RunLock {
        let _ = lock_name(chat_id);
        RunLock
    }
    pub async fn run_is_live(_chat_id: &str) -> bool {
        false
    }
}

pub use imp::{announce, hold_run_lock, listen, run_is_live, RunLock};
