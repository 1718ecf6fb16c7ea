//! Compare: one question, two strategies (or two models) side by side, each with its own live
//! trace, and a summary of steps, model calls, tokens, wall time and answers. Both runs use
//! the current provider, tools and limits; only the strategy and, if given, the model differ.

use leptos::prelude::*;


use crate::agent::trace::{self, Totals};
use crate::agent::{Event, Strategy};
use crate::conversation::Conversation;
use crate::app::settings::Settings;

use crate::ui::services::run::{Ask, RunControl, Start};
use crate::ui::widgets::trace::TracePane;

#[derive(Clone, Copy)]
struct Side {
    name: &'static str,
    strategy: RwSignal<Strategy>,
    /// Empty: the model from Settings.
    model: RwSignal<String>,
    /// ReAct's structured output mode, so "with and without" can be compared.
    structured: RwSignal<bool>,
    run: RunControl,
}

impl Side {
    fn new(name: &'static str, strategy: Strategy, structured: bool, mcp: crate::ui::services::mcp::Mcp) -> Self {
        Side {
            name,
            strategy: RwSignal::new(strategy),
            model: RwSignal::new(String::new()),
            structured: RwSignal::new(structured),
            run: RunControl::new(RwSignal::new(Conversation::default()), None, mcp),
        }
    }

    /// The settings this side runs with.
    fn settings(self, base: &Settings) -> Settings {
        let mut settings = base.clone();
        settings.agent.strategy = self.strategy.get_untracked();
        settings.agent.structured_output = self.structured.get_untracked();
        let model = self.model.get_untracked();
        if !model.trim().is_empty() {
            settings.provider.model = model.trim().to_string();
        }
        settings
    }

    fn start(self, base: &Settings, question: String) {
        // Each side shows one run at a time, with no memory; the summary row reads the outcome
        // from the trace itself.
        self.run.chat.set(Conversation::default());
        self.run.start(Start { settings: self.settings(base), ask: Ask::Question(question) });
    }
}

/// One row of the summary: what a side did and how it ended.
pub fn summary_row(events: &[Event]) -> (Totals, String) {
    let outcome = match (trace::final_answer(events), trace::stop_reason(events)) {
        (Some(answer), _) => answer.to_string(),
        (None, Some(reason)) => reason.describe(),
        (None, None) if events.is_empty() => "—".to_string(),
        (None, None) => "running…".to_string(),
    };
    (Totals::of(events), outcome)
}

#[component]
pub fn ComparePane(settings: ReadSignal<Settings>, chat: RwSignal<Conversation>, asked: ReadSignal<u32>) -> impl IntoView {
    let question = RwSignal::new(String::new());
    let structured = settings.with_untracked(|s| s.agent.structured_output);
    // The page's MCP servers (`App` provides them); mounted on its own, Compare makes its own.
    let mcp = use_context::<crate::ui::services::mcp::Mcp>().unwrap_or_else(|| crate::ui::services::mcp::install(RwSignal::new(settings.get_untracked())));
    let sides = [Side::new("A", Strategy::React, structured, mcp), Side::new("B", Strategy::ToolCalling, structured, mcp)];
    let running = move || sides.iter().any(|s| s.run.running.get());
    let run = move || {
        let q = question.get_untracked();
        if q.trim().is_empty() || sides.iter().any(|s| s.run.running.get_untracked()) {
            return;
        }
        let base = settings.get_untracked();
        // The button says why it is disabled; Enter must not get around it.
        if crate::ui::services::session::missing_setting(&base).is_some() {
            return;
        }
        for side in sides {
            side.start(&base, q.trim().to_string());
        }
    };
    let missing = move || settings.with(crate::ui::services::session::missing_setting);

    view! {
        // Its styles come with it (the first load carries none of them).
        <link rel="stylesheet" href="parts/compare.css"/>
        <section class="compare" aria-label="Compare" data-testid="compare">
            <form class="compare-form" on:submit=move |ev| { ev.prevent_default(); run(); }>
                <label for="compare-question">"Question to run both ways"</label>
                <textarea id="compare-question" data-testid="compare-question" rows="2"
                    prop:value=move || question.get()
                    on:input=move |ev| question.set(event_target_value(&ev))></textarea>
                <div class="compare-sides">
                    {sides.into_iter().map(|side| view! { <SideChoice side/> }).collect_view()}
                </div>
                <p class="problems" role="status">{missing}</p>
                <Show when=running fallback=move || view! {
                    <button type="submit" class="primary" data-testid="compare-run"
                        disabled=move || question.with(|q| q.trim().is_empty()) || missing().is_some()>"Run both"</button>
                }>
                    <button type="button" class="danger" data-testid="compare-stop" on:click=move |_| sides.iter().for_each(|s| s.run.stop())>"■ Stop both"</button>
                </Show>
            </form>
            <table class="compare-summary" data-testid="compare-summary">
                <thead>
                    <tr><th scope="col">"Run"</th><th scope="col">"Strategy"</th><th scope="col">"Steps"</th><th scope="col">"Model calls"</th><th scope="col">"Tool calls"</th><th scope="col">"Tokens"</th><th scope="col">"Wall time"</th><th scope="col">"Answer"</th></tr>
                </thead>
                <tbody>
                    {sides.into_iter().map(|side| view! { <SummaryRow side settings/> }).collect_view()}
                </tbody>
            </table>
            <crate::ui::widgets::runs::RunsCompare chat settings asked/>
            <div class="compare-traces">
                {sides.into_iter().map(|side| view! {
                    <div class="compare-trace" data-testid=format!("compare-trace-{}", side.name.to_lowercase())>
                        // Each side asks for its own tool calls that need approval.
                        <crate::ui::widgets::approval::ApprovalPanel pending=side.run.approval/>
                        <TracePane chat=side.run.chat streaming=side.run.streaming.read_only() running=side.run.running.read_only() progress=side.run.progress.read_only() sent=side.run.sent.read_only()>
                            <span class="side-name">{move || format!("{}: {}", side.name, side.strategy.get().label())}</span>
                        </TracePane>
                    </div>
                }).collect_view()}
            </div>
        </section>
    }
}

#[component]
fn SideChoice(side: Side) -> impl IntoView {
    let id = side.name.to_lowercase();
    view! {
        <fieldset class="group">
            <legend>{format!("Run {}", side.name)}</legend>
            <label>
                "Strategy"
                <select data-testid=format!("compare-strategy-{id}") on:change=move |ev| {
                    side.strategy.set(Strategy::from_id(&event_target_value(&ev)).unwrap_or_default());
                }>
                    {Strategy::ALL.into_iter().map(|st| view! {
                        <option value=st.id() selected=move || side.strategy.get() == st>{st.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <label class="check">
                <input type="checkbox" data-testid=format!("compare-structured-{id}")
                    prop:checked=move || side.structured.get()
                    on:change=move |ev| side.structured.set(event_target_checked(&ev))/>
                "Structured output (ReAct)"
            </label>
            <label>
                "Model (empty: the one in Settings)"
                <input type="text" data-testid=format!("compare-model-{id}") spellcheck="false"
                    prop:value=move || side.model.get()
                    on:change=move |ev| side.model.set(event_target_value(&ev))/>
            </label>
        </fieldset>
    }
}

#[component]
fn SummaryRow(side: Side, settings: ReadSignal<Settings>) -> impl IntoView {
    let row = Memo::new(move |_| side.run.chat.with(|c| summary_row(c.shown_events())));
    view! {
        <tr data-testid="compare-row">
            <th scope="row">{side.name}</th>
            <td>{move || {
                let strategy = side.strategy.get();
                side.structured.track();
                // Said only when the run asks for it: on, ReAct, and a provider that takes a schema.
                if settings.with(|base| side.settings(base).uses_structured_output()) { format!("{} + structured output", strategy.label()) } else { strategy.label().to_string() }
            }}</td>
            <td data-testid="compare-steps">{move || row.get().0.steps}</td>
            <td data-testid="compare-llm-calls">{move || row.get().0.llm_calls}</td>
            <td>{move || row.get().0.tool_calls}</td>
            <td data-testid="compare-tokens">{move || { let t = row.get().0; t.usage.prompt_tokens.saturating_add(t.usage.completion_tokens) }}</td>
            <td>{move || format!("{:.1} s", row.get().0.duration_ms / 1000.0)}</td>
            <td class="compare-answer" data-testid="compare-answer">{move || row.get().1}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests;
