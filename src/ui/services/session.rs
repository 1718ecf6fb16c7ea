//! The chat's side of a run: a message from the composer becomes a question (or the reply to
//! the agent's question), run by the `RunControl` into the open conversation, or a run refused
//! at once when a setting is missing. Also what must be set before anything is sent.

use leptos::prelude::*;

use crate::conversation::Save;
use crate::secrets::mask;
use crate::app::settings::Settings;

use crate::ui::services::chats::Chats;
use crate::ui::services::run::{Ask, RunControl, Start};

#[derive(Clone, Copy)]
pub struct Session {
    settings: ReadSignal<Settings>,
    chats: Chats,
    run: RunControl,
}

/// What must be set (or agreed to) before a request can be sent, as a sentence naming the
/// setting. Every request to the model (a run, Compare, Test connection) checks this first.
pub fn missing_setting(settings: &Settings) -> Option<String> {
    let p = &settings.provider;
    if p.preset.in_page() {
        return p.model.trim().is_empty().then(|| "Choose a model file for the model in this page in Settings (⚙) first.".into());
    }
    if p.base_url.trim().is_empty() {
        Some("Set the provider's base URL in Settings (⚙) first.".into())
    } else if p.model.trim().is_empty() {
        Some("Set the model name in Settings (⚙) first.".into())
    } else if p.preset.needs_key() && p.api_key.trim().is_empty() {
        Some("Add your API key in Settings (⚙) first. It stays in this browser and is sent only to the provider.".into())
    } else {
        crate::app::settings::keys::plain_http_warning(settings)
    }
}

impl Session {
    pub fn new(settings: ReadSignal<Settings>, chats: Chats, run: RunControl) -> Self {
        Session { settings, chats, run }
    }

    pub fn ask(self, text: String) {
        let settings = self.settings.get_untracked();
        if let Some(problem) = missing_setting(&settings) {
            // A key pasted into the question is never shown or stored.
            let question = mask(&text, &crate::ui::services::secrets::collect(&settings));
            self.chats.chat.update(|c| c.refuse(question, problem));
            self.chats.changed(Save::Now);
            return;
        }
        // The latest run ended asking the person something: this message answers it, and
        // that run goes on.
        let waiting = self.chats.chat.with_untracked(|c| c.waiting());
        let ask = if waiting { Ask::Answer(text) } else { Ask::Question(text) };
        self.chats.run_starting();
        self.run.start(Start { settings, ask });
    }
}

impl Session {
    /// A changed step run on from there: `make` makes the branch in the open chat
    /// (`Conversation::fork`), then the agent goes on in it with `settings`, using only `tools`
    /// when they are named. `Err` says why nothing was run (a run going on, a setting missing,
    /// the change not fitting the step).
    pub fn branch(self, run: usize, settings: Settings, tools: Option<Vec<String>>, make: impl FnOnce(&mut crate::conversation::Conversation) -> Result<usize, String>) -> Result<(), String> {
        if self.run.running.get_untracked() {
            return Err("A run is going on: stop it or wait for it to end first.".into());
        }
        if let Some(problem) = missing_setting(&settings) {
            return Err(problem);
        }
        self.chats.run_starting();
        self.chats.chat.try_update(make).unwrap_or_else(|| Err("This chat is gone.".into()))?;
        self.run.start(Start { settings, ask: Ask::Branch { run, tools } });
        Ok(())
    }

    /// Shows line `line` of run `run` (its branch switcher), saved: later questions remember it.
    pub fn show_branch(self, run: usize, line: usize) {
        if self.run.running.get_untracked() {
            return;
        }
        let save = self.chats.chat.try_update(|c| c.show_branch(run, line)).unwrap_or(Save::No);
        self.chats.changed(save);
    }

    pub fn settings(self) -> ReadSignal<Settings> {
        self.settings
    }
}

#[cfg(test)]
mod tests;
