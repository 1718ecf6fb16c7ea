//! An evaluation's configurations: up to four ways of running every case, side by side. A
//! configuration names what it changes from the settings of the page (a provider preset, a
//! model, a strategy, a system prompt template) and whether the tools that ask for approval
//! are allowed for the evaluation. It holds no key: the key a run uses is the one entered in
//! Settings for that provider (`keys::switch_provider`), so a stored evaluation holds no
//! secret and a resumed one uses the keys of the page as it is.

use crate::agent::Strategy;
use crate::app::settings::keys::switch_provider;
use crate::app::settings::Settings;
use crate::llm::Preset;

/// The most configurations an evaluation runs side by side.
pub const MAX_CONFIGS: usize = 4;

/// What a configuration changes from the settings; `None` or empty keeps theirs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    pub name: String,
    pub preset: Option<Preset>,
    pub model: String,
    pub strategy: Option<Strategy>,
    pub template: String,
    /// Tools that ask before each call, and servers that ask for the model, run without asking,
    /// for this evaluation only. Without it, a call that needs approval waits for the person,
    /// and the evaluation says so.
    pub allow_tools: bool,
}

impl Config {
    /// The settings as they are: the first configuration of a new evaluation.
    pub fn settings_now() -> Config {
        Config { name: "Settings".into(), ..Config::default() }
    }

    /// The settings a case runs with under this configuration.
    pub fn apply(&self, base: &Settings) -> Settings {
        let mut settings = base.clone();
        if let Some(preset) = self.preset.filter(|p| *p != base.provider.preset) {
            switch_provider(&mut settings, preset, preset.base_url().to_string());
            settings.provider.model = preset.default_model().to_string();
        }
        if !self.model.trim().is_empty() {
            settings.provider.model = self.model.trim().to_string();
        }
        if let Some(strategy) = self.strategy {
            settings.agent.strategy = strategy;
        }
        if !self.template.trim().is_empty() {
            settings.agent.system_template = Some(self.template.clone());
        }
        if self.allow_tools {
            for server in &mut settings.tools.mcp.servers {
                server.resources_ask = false;
                server.sampling_ask = false;
                server.tools.iter_mut().for_each(|t| t.ask = false);
            }
        }
        settings
    }

    /// What it runs with, in a line: "OpenAI · gpt-4o-mini · ReAct".
    pub fn describe(&self, base: &Settings) -> String {
        let s = self.apply(base);
        let mut line = format!("{} · {} · {}", s.provider.preset.label(), s.provider.model, s.agent.strategy.label());
        if !self.template.trim().is_empty() {
            line.push_str(" · own prompt");
        }
        if self.allow_tools {
            line.push_str(" · tools allowed");
        }
        line
    }

    /// The name shown, never empty.
    pub fn label(&self, at: usize) -> String {
        if self.name.trim().is_empty() {
            format!("Configuration {}", at + 1)
        } else {
            self.name.trim().to_string()
        }
    }
}

/// A configuration to add next to `configs`: a copy of the last one under a new name, or none
/// when there are already `MAX_CONFIGS`.
pub fn another(configs: &[Config]) -> Option<Config> {
    (configs.len() < MAX_CONFIGS).then(|| {
        let mut next = configs.last().cloned().unwrap_or_else(Config::settings_now);
        next.name = format!("Configuration {}", configs.len() + 1);
        next
    })
}

#[cfg(test)]
mod tests;
