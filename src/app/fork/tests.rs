//! The fork editor and the settings a branch runs with.

use super::*;
use crate::agent::trace::AnswerSource;
use crate::storage::keys::binding;

fn ev(kind: EventKind, step: u32) -> Event {
    Event { index: 0, step, started_ms: 0.0, ended_ms: 0.0, kind }
}

/// A run with the recorded provider, model, strategy and tools.
fn events() -> Vec<Event> {
    let mut out = vec![
        ev(EventKind::RunStarted {
            question: "Q?".into(),
            tools: vec!["calculator".into()],
            history_turns: 0,
            started_unix_ms: 1.0,
            strategy: Strategy::PlanReact,
            continues: false,
            model: ModelName { provider: "anthropic".into(), model: "claude-x".into() },
        }, 0),
        ev(EventKind::ToolCall { tool: "calculator".into(), input: "6*7".into(), via: None }, 1),
        ev(EventKind::ToolResult { tool: "calculator".into(), observation: "42".into() }, 1),
        ev(EventKind::FinalAnswer { answer: "42".into(), source: AnswerSource::Model }, 2),
    ];
    for (i, e) in out.iter_mut().enumerate() {
        e.index = i as u32;
    }
    out
}

fn now() -> Settings {
    let mut s = Settings::default();
    s.provider.preset = Preset::OpenAi;
    s.provider.base_url = Preset::OpenAi.base_url().into();
    s.provider.model = "gpt-now".into();
    s.provider.api_key = "sk-openai-key".into();
    s.keys.put(binding(Preset::Anthropic, Preset::Anthropic.base_url()), "sk-ant-key".into());
    s.agent.strategy = Strategy::React;
    s
}

#[test]
fn the_editor_starts_from_the_steps_own_text_and_plans_the_branch() {
    let events = events();
    assert_eq!(ForkEditor::open(0, 0, &events, 3), None, "an answer offers nothing to change");
    let mut editor = ForkEditor::open(0, 0, &events, 2).expect("an observation can be changed");
    assert_eq!((editor.text.as_str(), editor.changed()), ("42", false));
    editor.text = "41".into();
    assert!(editor.changed());
    let plan = editor.plan(&now(), &keys(), &events).unwrap();
    assert_eq!(plan.ask.change, Change::Observation { tool: "calculator".into(), text: "41".into() });
    assert_eq!(plan.ask.event, 2);
    // An empty question or reply is refused; an empty observation is something a tool can say.
    let mut question = ForkEditor::open(0, 0, &events, 0).unwrap();
    question.text = "  ".into();
    assert!(question.plan(&now(), &keys(), &events).is_err());
    editor.text.clear();
    assert!(editor.plan(&now(), &keys(), &events).is_ok());
}

#[test]
fn the_runs_own_settings_are_its_recorded_model_strategy_and_tools_with_that_providers_own_key() {
    let events = events();
    let mut editor = ForkEditor::open(0, 0, &events, 2).unwrap();
    editor.settings = ForkSettings::Run;
    let mut plan = editor.plan(&now(), &keys(), &events).unwrap();
    assert_eq!(plan.settings.provider.preset, Preset::Anthropic);
    assert_eq!(plan.settings.provider.model, "claude-x");
    assert_eq!(plan.settings.provider.api_key, "sk-ant-key", "the key entered for that provider");
    assert_eq!(plan.settings.provider.base_url, Preset::Anthropic.base_url());
    assert_eq!(plan.settings.agent.strategy, Strategy::PlanReact);
    assert_eq!(plan.tools, Some(vec!["calculator".to_string()]));
    assert_eq!((plan.ask.model.provider.as_str(), plan.ask.model.model.as_str(), plan.ask.strategy), ("anthropic", "claude-x", Strategy::PlanReact));
    // The OpenAI key stays with OpenAI.
    assert_eq!(plan.settings.keys.take(&binding(Preset::OpenAi, Preset::OpenAi.base_url())), "sk-openai-key");
    // Settings as they are now: nothing replaced.
    editor.settings = ForkSettings::Now;
    let plan = editor.plan(&now(), &keys(), &events).unwrap();
    assert_eq!((plan.settings.clone(), plan.tools), (now(), None));
    assert_eq!((plan.ask.model.model.as_str(), plan.ask.strategy), ("gpt-now", Strategy::React));
}

#[test]
fn only_a_models_reply_can_be_asked_again() {
    let events = events();
    assert!(ask_again(0, &events, 2, ForkSettings::Now, &now(), &keys()).unwrap_err().contains("Only a model's reply"));
}

#[test]
fn a_key_pasted_into_the_edit_is_masked_before_it_reaches_the_record() {
    let events = events();
    let mut editor = ForkEditor::open(0, 0, &events, 2).unwrap();
    editor.text = "the key is sk-openai-key".into();
    let plan = editor.plan(&now(), &keys(), &events).unwrap();
    assert!(!plan.ask.change.text().contains("sk-openai-key"), "{:?}", plan.ask.change);
    let mut call = ForkEditor::open(0, 0, &events, 1).unwrap();
    call.text = "{\"q\": \"sk-openai-key\"}".into();
    let plan = call.plan(&now(), &keys(), &events).unwrap();
    assert!(!format!("{:?}", plan.ask.change).contains("sk-openai-key"));
}

/// The secrets a page with `now()`'s settings masks with.
fn keys() -> crate::secrets::Secrets {
    crate::app::settings::keys::collect(&now())
}
