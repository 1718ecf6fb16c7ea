use super::*;
use crate::tools::mcp::{McpServer, McpToolInfo};

fn base() -> Settings {
    let mut s = Settings::default();
    s.provider.preset = Preset::OpenAi;
    s.provider.base_url = Preset::OpenAi.base_url().into();
    s.provider.model = "gpt-4o-mini".into();
    s.provider.api_key = "sk-openai-key-1234567890".into();
    s.keys.put(crate::storage::keys::binding(Preset::Groq, Preset::Groq.base_url()), "gsk-groq-key-1234567890".into());
    let mut server = McpServer { url: "https://mcp.example/mcp".into(), resources_ask: true, ..Default::default() };
    server.tools.push(McpToolInfo { name: "write".into(), ask: true, enabled: true, ..Default::default() });
    s.tools.mcp.servers.push(server);
    s
}

#[test]
fn the_first_configuration_is_the_settings_as_they_are() {
    let base = base();
    assert_eq!(Config::settings_now().apply(&base), base);
    assert_eq!(Config::settings_now().describe(&base), "OpenAI · gpt-4o-mini · ReAct (text + JSON action)");
}

#[test]
fn a_configuration_changes_only_what_it_names_and_uses_that_providers_own_key() {
    let base = base();
    let groq = Config { preset: Some(Preset::Groq), strategy: Some(Strategy::ToolCalling), ..Config::default() };
    let s = groq.apply(&base);
    assert_eq!(s.provider.preset, Preset::Groq);
    assert_eq!(s.provider.model, Preset::Groq.default_model());
    assert_eq!(s.provider.api_key, "gsk-groq-key-1234567890", "the key entered for that provider, never another's");
    assert_eq!(s.agent.strategy, Strategy::ToolCalling);
    assert_eq!(s.agent.max_iterations, base.agent.max_iterations);
    let model = Config { model: " small-model ".into(), template: "Be brief. {tools}".into(), ..Config::default() }.apply(&base);
    assert_eq!((model.provider.model.as_str(), model.provider.api_key.as_str()), ("small-model", "sk-openai-key-1234567890"));
    assert_eq!(model.agent.system_template.as_deref(), Some("Be brief. {tools}"));
}

#[test]
fn allowing_tools_is_for_the_evaluation_only() {
    let base = base();
    let allowed = Config { allow_tools: true, ..Config::default() }.apply(&base);
    assert!(!allowed.tools.mcp.servers[0].tools[0].ask && !allowed.tools.mcp.servers[0].resources_ask);
    assert!(base.tools.mcp.servers[0].tools[0].ask, "the settings themselves are untouched");
    assert!(Config::default().apply(&base).tools.mcp.servers[0].tools[0].ask);
}

#[test]
fn at_most_four_configurations() {
    let mut configs = vec![Config::settings_now()];
    while let Some(next) = another(&configs) {
        configs.push(next);
    }
    assert_eq!(configs.len(), MAX_CONFIGS);
    assert_eq!(configs[3].label(3), "Configuration 4");
    assert_eq!(Config::default().label(1), "Configuration 2");
}
