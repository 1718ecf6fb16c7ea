//! Settings for the agent loop: what it is for (the scope gate), limits, early stopping, what the model is told about its own
//! mistakes, prompt budgets, and the system prompt template (with a reset to the built-in one).

use leptos::prelude::*;

use crate::agent::prompt::{template_problems, DEFAULT_SYSTEM_TEMPLATE};
use crate::agent::{EarlyStopping, Strategy};
use crate::app::settings::Settings;

use super::fields::{check_field, number_field};

#[component]
pub fn AgentSettingsPanel(settings: RwSignal<Settings>) -> impl IntoView {
    let template = move || settings.with(|s| s.agent.system_template.clone().unwrap_or_else(|| DEFAULT_SYSTEM_TEMPLATE.to_string()));
    let problems = move || settings.with(|s| s.agent.system_template.as_deref().map(template_problems).unwrap_or_default());
    view! {
        <fieldset class="group" data-testid="agent-settings">
            <legend>"Agent"</legend>
            <label>
                "Strategy"
                <select data-testid="strategy" on:change=move |ev| {
                    let strategy = Strategy::from_id(&event_target_value(&ev)).unwrap_or_default();
                    settings.update(|s| s.agent.strategy = strategy);
                }>
                    {Strategy::ALL.into_iter().map(|st| view! {
                        <option value=st.id() selected=move || settings.with(|s| s.agent.strategy == st)>{st.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>
                "What this agent is for (empty: it answers every question). When set, each new question is first checked against it in one short model call, and one outside it is declined at once."
                <textarea rows="2" data-testid="scope" placeholder="e.g. questions about our papers on arXiv"
                    prop:value=move || settings.with(|s| s.agent.scope.clone())
                    on:change=move |ev| settings.update(|s| s.agent.scope = event_target_value(&ev).trim().to_string())></textarea>
            </label>
            <label>
                "What it says when it declines"
                <textarea rows="2" data-testid="decline-message"
                    prop:value=move || settings.with(|s| s.agent.decline_message.clone())
                    on:change=move |ev| settings.update(|s| s.agent.decline_message = event_target_value(&ev).trim().to_string())></textarea>
            </label>
            {check_field(settings, "Structured output: ask the server for JSON that matches the action schema (ReAct; OpenAI, llama.cpp, Ollama, vLLM)", "structured-output".into(), |s| s.agent.structured_output, |s, v| s.agent.structured_output = v)}
            <Show when=move || settings.with(|s| s.agent.structured_output && !s.uses_structured_output())>
                <p class="hint" data-testid="structured-note">"Structured output applies to the ReAct strategy on OpenAI-compatible servers; it is not used with this strategy or provider."</p>
            </Show>
            {check_field(settings, "Let the agent ask you a question instead of guessing", "ask-person".into(), |s| s.agent.ask_person, |s, v| s.agent.ask_person = v)}
            {check_field(settings, "Answer directly, without tools, when no tool fits", "direct-answers".into(), |s| s.agent.direct_answers, |s, v| s.agent.direct_answers = v)}
            {number_field(settings, "Max iterations (model calls per question)", "max-iterations".into(), (1.0, 100.0, 1.0), |s| s.agent.max_iterations as f64, |s, v| s.agent.max_iterations = v as u32)}
            {number_field(settings, "Max time per question (seconds, 0 = no limit)", "max-time".into(), (0.0, 3600.0, 5.0), |s| s.agent.max_time_ms.map(|ms| ms / 1000.0).unwrap_or(0.0), |s, v| s.agent.max_time_ms = (v > 0.0).then_some(v * 1000.0))}
            <label>
                "When a limit is reached"
                <select data-testid="early-stopping" on:change=move |ev| {
                    let mode = if event_target_value(&ev) == "generate" { EarlyStopping::Generate } else { EarlyStopping::Force };
                    settings.update(|s| s.agent.early_stopping = mode);
                }>
                    <option value="force" selected=move || settings.with(|s| s.agent.early_stopping == EarlyStopping::Force)>"Stop and say which limit was hit"</option>
                    <option value="generate" selected=move || settings.with(|s| s.agent.early_stopping == EarlyStopping::Generate)>"Ask the model for a last answer"</option>
                </select>
            </label>
            {check_field(settings, "Send format errors back to the model so it can correct itself", "feed-parse-errors".into(), |s| s.agent.feed_back_parse_errors, |s, v| s.agent.feed_back_parse_errors = v)}
            {check_field(settings, "Show tool errors to the model (else a failing tool ends the run)", "feed-tool-errors".into(), |s| s.agent.feed_back_tool_errors, |s, v| s.agent.feed_back_tool_errors = v)}
            {number_field(settings, "Observation length (characters shown to the model)", "observation-limit".into(), (200.0, 100000.0, 100.0), |s| s.agent.observation_limit as f64, |s, v| s.agent.observation_limit = v as usize)}
            {number_field(settings, "History budget (characters of earlier turns)", "history-budget".into(), (0.0, 200000.0, 500.0), |s| s.agent.history_budget as f64, |s, v| s.agent.history_budget = v as usize)}
            <label>
                "System prompt of the ReAct strategy ({tools}, {tool_names} and {extra_rules} are filled in)"
                <textarea rows="8" data-testid="system-template" spellcheck="false"
                    prop:value=template
                    on:change=move |ev| {
                        let text = event_target_value(&ev);
                        // The built-in text is stored as "no override", so it follows later improvements.
                        settings.update(|s| s.agent.system_template = (text != DEFAULT_SYSTEM_TEMPLATE).then_some(text));
                    }></textarea>
            </label>
            <ul class="problems" data-testid="template-problems">
                {move || problems().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
            </ul>
            <button type="button" class="ghost" data-testid="reset-template"
                disabled=move || settings.with(|s| s.agent.system_template.is_none())
                on:click=move |_| settings.update(|s| s.agent.system_template = None)>
                "Reset to the built-in prompt"
            </button>
        </fieldset>
    }
}
