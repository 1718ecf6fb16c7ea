//! The secrets the page masks with: every one the settings hold (`app::settings::keys`), and
//! those the page holds beside them, the tokens of MCP servers signed in to, which the sign-in
//! service hands in whenever they change (`hold`). Views and services mask with `collect`.

use std::cell::RefCell;

use crate::app::settings::{keys, Settings};
use crate::secrets::Secrets;

thread_local! {
    static HELD: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The secrets held outside the settings now (the sign-ins' tokens).
pub fn hold(values: Vec<String>) {
    HELD.with(|held| *held.borrow_mut() = values);
}

/// Every secret of `settings`, and those held beside them.
pub fn collect(settings: &Settings) -> Secrets {
    HELD.with(|held| keys::collect_with(settings, &held.borrow()))
}
