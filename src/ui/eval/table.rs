//! An evaluation open: how far it is, its figures per configuration, a row per case with each
//! configuration's answer, verdict and reason, filters and sorting, the results as files, and a
//! case's run as a trace (live while it runs) or two configurations' runs of it side by side.

use leptos::prelude::*;

use crate::app::eval::record::{compare, Change, EvalRecord};
use crate::app::eval::results::{ordered, results_csv, results_jsonl, summaries, Filter, Order};
use crate::app::eval::run::{Cell, Job, State};
use crate::app::settings::Settings;
use crate::conversation::{Conversation, Run};
use crate::ui::widgets::trace::TracePane;

use crate::ui::services::eval::Driver;
use super::duration_text;

/// The orders every evaluation offers, by the id the select names them with; each
/// configuration adds "its failures first".
const ORDERS: [(Order, &str, &str); 5] = [
    (Order::Case, "case", "Case order"),
    (Order::Question, "question", "Question (A–Z)"),
    (Order::FailuresFirst, "failures", "Failures first"),
    (Order::Slowest, "slowest", "Slowest first"),
    (Order::Tokens, "tokens", "Most tokens first"),
];

fn order_of(id: &str) -> Order {
    if let Some(config) = id.strip_prefix("failed-in-").and_then(|n| n.parse::<usize>().ok()) {
        return Order::FailedIn(config);
    }
    ORDERS.iter().find(|(_, i, _)| *i == id).map_or(Order::Case, |o| o.0)
}

/// Per case (by index) of the open evaluation, what changed against the other one.
type Changes = Vec<(usize, Vec<Change>)>;

/// What is shown under the table.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Look {
    None,
    Trace(Job),
    Compare(usize),
}

#[component]
pub fn EvalView(driver: Driver, settings: ReadSignal<Settings>, on_again: Callback<super::Draft>) -> impl IntoView {
    let only_failures = RwSignal::new(false);
    let sort = RwSignal::new(Order::Case);
    let tag = RwSignal::new(String::new());
    let look = RwSignal::new(Look::None);
    let other = RwSignal::new_local(None::<EvalRecord>);
    let progress = Memo::new(move |_| {
        driver.tick.track();
        driver.with(|r| (r.eval.progress(), r.eval.state()))
    });
    // What each configuration runs with changes with the settings, not with each case.
    let described = Memo::new(move |_| {
        driver.shown.track();
        settings.with(|s| driver.with(|r| r.configs.iter().map(|c| c.describe(s)).collect::<Vec<_>>()).unwrap_or_default())
    });
    let figures = Memo::new(move |_| {
        driver.tick.track();
        described.with(|described| driver.with(|r| summaries(&r.eval).into_iter().zip(r.eval.configs.iter().cloned()).zip(described.iter().cloned()).map(|((s, n), d)| (s, n, d)).collect::<Vec<_>>()).unwrap_or_default())
    });
    let changes = Memo::new(move |_| {
        driver.tick.track();
        other.with(|o| o.as_ref().and_then(|o| driver.with(|r| compare(o, r)).flatten()))
    });
    let order = Memo::new(move |_| {
        driver.tick.track();
        let (sort, only_failures) = (sort.get(), only_failures.get());
        tag.with(|tag| driver.with(|r| ordered(&r.eval, sort, Filter { only_failures, tag })).unwrap_or_default())
    });
    let export = move |jsonl: bool| {
        let Some((name, text)) = driver.with(|r| (r.name.clone(), if jsonl { results_jsonl(&r.eval) } else { results_csv(&r.eval) })) else { return };
        let file = format!("{}.results.{}", file_stem(&name), if jsonl { "jsonl" } else { "csv" });
        if let Err(e) = crate::ui::services::page::download(&file, if jsonl { "application/x-ndjson" } else { "text/csv" }, &text) {
            driver.problem.set(Some(e));
        }
    };
    // Every finished case's run with its scores, for an OpenTelemetry backend.
    let export_otel = move || {
        let secrets = settings.with_untracked(crate::ui::services::secrets::collect);
        let Some((name, text)) = driver.with(|r| (r.name.clone(), crate::ui::services::otel::otlp_json(&r.traces(&secrets)))) else { return };
        if let Err(e) = crate::ui::services::page::download(&format!("{}.otlp.json", file_stem(&name)), "application/json", &text) {
            driver.problem.set(Some(e));
        }
    };
    let pick_other = move |id: String| {
        if id.is_empty() {
            other.set(None);
            return;
        }
        leptos::task::spawn_local(async move {
            match driver.read(&id).await {
                Ok(record) => other.set(Some(record)),
                Err(e) => driver.problem.set(Some(e)),
            }
        });
    };
    let configs = move || figures.with(Vec::len);

    view! {
        <div class="eval-view" data-testid="eval-view">
            <header class="eval-head">
                <h2>{move || { driver.tick.track(); driver.with(|r| r.name.clone()).unwrap_or_default() }}</h2>
                {move || driver.note.get().map(|n| view! { <p class="notice" role="status" data-testid="eval-note">{n}</p> })}
                <div class="eval-progress" data-testid="eval-progress" role="status">
                    {move || progress.get().map(|(p, state)| {
                        let rate = if p.done == 0 { String::new() } else { format!(" · {} passed ({:.0} %)", p.passed, 100.0 * p.passed as f64 / p.done as f64) };
                        let left = match (state, p.left_ms) {
                            (State::Running, Some(ms)) => format!(" · about {} left", duration_text(ms)),
                            (State::Finished, _) => " · finished".to_string(),
                            (State::Idle, _) if p.done < p.total => " · stopped".to_string(),
                            _ => String::new(),
                        };
                        view! {
                            <progress max=p.total.to_string() value=p.done.to_string()></progress>
                            <span>{format!("{} of {} done{rate}{left}", p.done, p.total)}</span>
                        }
                    })}
                </div>
                <div class="row">
                    <Show when=move || progress.get().is_some_and(|(_, s)| s == State::Running)
                        fallback=move || view! {
                            <Show when=move || { driver.tick.track(); progress.get().is_some_and(|(_, s)| s == State::Idle) && !driver.with(|r| r.newer).unwrap_or(true) }>
                                <button class="primary" data-testid="eval-run" on:click=move |_| driver.start()>"▶ Go on"</button>
                            </Show>
                        }>
                        <button class="danger" data-testid="eval-stop" on:click=move |_| driver.stop()>"■ Stop"</button>
                    </Show>
                    <button class="ghost" data-testid="eval-again" title="A new evaluation of the same cases, its configurations to change"
                        disabled=move || { driver.tick.track(); driver.running() }
                        on:click=move |_| if let Some(draft) = driver.with(|r| super::Draft {
                            name: r.name.clone(),
                            text: crate::app::eval::set::set_jsonl(&r.eval.cases),
                            configs: r.configs.clone(),
                            concurrency: r.eval.concurrency,
                        }) { on_again.run(draft) }>"↻ Run this set again"</button>
                    <button class="ghost" data-testid="eval-export" on:click=move |_| export(true)>"⬇ Results (JSON Lines)"</button>
                    <button class="ghost" data-testid="eval-export-csv" on:click=move |_| export(false)>"⬇ Results (CSV)"</button>
                    <button class="ghost" data-testid="eval-export-otel" title="Every case's run as an OpenTelemetry trace, its scores as gen_ai.evaluation.result events"
                        on:click=move |_| export_otel()>"⬇ OpenTelemetry"</button>
                    <label>"Compare with "
                        <select data-testid="eval-compare-with" on:change=move |ev| pick_other(event_target_value(&ev))>
                            <option value="">"—"</option>
                            {move || {
                                let current = driver.with(|r| r.id.clone()).unwrap_or_default();
                                driver.list.get().into_iter().filter(|h| h.id != current).map(|h| view! { <option value=h.id.clone()>{h.name.clone()}</option> }).collect_view()
                            }}
                        </select>
                    </label>
                </div>
                {move || changes.get().map(|rows| {
                    let count = |want: Change| rows.iter().map(|(_, c)| c.iter().filter(|x| **x == want).count()).sum::<usize>();
                    view! { <p class="muted" data-testid="eval-changes">{format!("Against the other evaluation: {} better, {} worse, {} the same.", count(Change::Better), count(Change::Worse), count(Change::Same))}</p> }
                })}
            </header>
            // A case waiting for the person's approval says so.
            {move || driver.workers.get().into_iter().map(|w| view! {
                <Show when=move || w.control.approval.with(Option::is_some)>
                    <p class="notice" role="status">{move || w.job().map(|j| format!("Case {} waits for your approval of a tool call:", j.case + 1))}</p>
                    <crate::ui::widgets::approval::ApprovalPanel pending=w.control.approval/>
                </Show>
            }).collect_view()}
            <table class="eval-summary" data-testid="eval-summary">
                <thead><tr><th scope="col">"Configuration"</th><th scope="col">"Passed"</th><th scope="col">"Errors"</th><th scope="col">"Tokens (mean / total)"</th><th scope="col">"Time (mean / p95)"</th><th scope="col">"Tool calls"</th></tr></thead>
                <tbody>
                    {move || figures.get().into_iter().map(|(s, name, describe)| view! {
                        <tr>
                            <th scope="row">{name}<span class="muted">{format!(" {describe}")}</span></th>
                            <td data-testid="eval-pass-rate">{s.pass_text()}</td>
                            <td>{s.errors}</td>
                            <td>{format!("{:.0} / {}", s.mean_tokens, s.tokens)}</td>
                            <td>{format!("{} / {}", duration_text(s.mean_ms), duration_text(s.p95_ms))}</td>
                            <td>{s.tool_calls}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <div class="row eval-filters">
                <label class="check"><input type="checkbox" data-testid="eval-only-failures" prop:checked=move || only_failures.get()
                    on:change=move |ev| only_failures.set(event_target_checked(&ev))/>"Only failures"</label>
                <label>"Sort by "
                    <select data-testid="eval-sort" on:change=move |ev| sort.set(order_of(&event_target_value(&ev)))>
                        {ORDERS.iter().map(|(o, id, label)| view! { <option value=*id selected=move || sort.get() == *o>{*label}</option> }).collect_view()}
                        {move || figures.get().into_iter().enumerate().map(|(i, (_, name, _))| view! {
                            <option value=format!("failed-in-{i}") selected=move || sort.get() == Order::FailedIn(i)>{format!("Failures of {name} first")}</option>
                        }).collect_view()}
                    </select>
                </label>
                <Show when=move || { driver.tick.track(); driver.with(|r| r.eval.cases.iter().any(|c| !c.tags.is_empty())).unwrap_or(false) }>
                    <label>"Tag "
                        <input type="search" data-testid="eval-tag" placeholder="any" prop:value=move || tag.get()
                            on:input=move |ev| tag.set(event_target_value(&ev))/>
                    </label>
                </Show>
            </div>
            <table class="eval-cases">
                <thead><tr>
                    <th scope="col">"#"</th><th scope="col">"Question"</th><th scope="col">"Expected"</th>
                    {move || figures.get().into_iter().map(|(_, name, _)| view! { <th scope="col">{name}</th> }).collect_view()}
                    <th scope="col"></th>
                </tr></thead>
                <tbody>
                    <For each=move || order.get() key=|case| *case let:case>
                        <CaseRow driver case configs=Signal::derive(configs) look changes/>
                    </For>
                </tbody>
            </table>
            {move || match look.get() {
                Look::None => None,
                Look::Trace(job) => Some(view! { <CaseTrace driver job look settings/> }.into_any()),
                Look::Compare(case) => Some(view! { <CaseCompare driver case look settings/> }.into_any()),
            }}
        </div>
    }
}

#[component]
fn CaseRow(driver: Driver, case: usize, configs: Signal<usize>, look: RwSignal<Look>, changes: Memo<Option<Changes>>) -> impl IntoView {
    let row = driver.row(case);
    let cells = Memo::new(move |_| {
        if let Some(row) = row {
            row.track();
        }
        driver.with(|r| (0..r.eval.configs.len()).map(|config| r.eval.cell(Job { case, config }).cloned().unwrap_or(Cell::Waiting)).collect::<Vec<_>>()).unwrap_or_default()
    });
    let (question, expected, tags) = driver.with(|r| {
        let c = &r.eval.cases[case];
        (c.question.clone(), c.expected.clone().unwrap_or_default(), c.tags.join(", "))
    }).unwrap_or_default();
    let ran = move || cells.with(|c| c.iter().filter(|c| matches!(c, Cell::Done(_))).count());
    view! {
        <tr data-testid="eval-case" data-case=case + 1>
            <td>{case + 1}</td>
            <td class="eval-question">{question}{(!tags.is_empty()).then(|| view! { <span class="muted eval-tags">{format!(" [{tags}]")}</span> })}</td>
            <td class="eval-expected">{expected}</td>
            {move || (0..configs.get()).map(|config| {
                let change = move || changes.with(|c| c.as_ref().and_then(|rows| rows.iter().find(|(i, _)| *i == case)).and_then(|(_, ch)| ch.get(config).copied()));
                view! {
                    <td class="eval-cell" data-testid="eval-cell">
                        {move || cells.with(|c| cell_view(c.get(config)))}
                        {move || match change() {
                            Some(Change::Better) => Some(view! { <span class="eval-change better" data-testid="eval-better">" ↑ better"</span> }.into_any()),
                            Some(Change::Worse) => Some(view! { <span class="eval-change worse" data-testid="eval-worse">" ↓ worse"</span> }.into_any()),
                            _ => None,
                        }}
                        <Show when=move || cells.with(|c| !matches!(c.get(config), Some(Cell::Waiting) | None))>
                            <button class="ghost small" data-testid="eval-trace" on:click=move |_| look.set(Look::Trace(Job { case, config }))>"Trace"</button>
                        </Show>
                    </td>
                }
            }).collect_view()}
            <td>
                <Show when=move || { ran() > 1 }>
                    <button class="ghost small" data-testid="eval-compare" on:click=move |_| look.set(Look::Compare(case))>"Compare runs"</button>
                </Show>
            </td>
        </tr>
    }
}

fn cell_view(cell: Option<&Cell>) -> AnyView {
    match cell {
        None | Some(Cell::Waiting) => view! { <span class="muted">"waiting"</span> }.into_any(),
        Some(Cell::Running { .. }) => view! { <span class="tone-pending" data-testid="eval-running">"running…"</span> }.into_any(),
        Some(Cell::Judging(_)) => view! { <span class="tone-pending">"the judge is asked…"</span> }.into_any(),
        Some(Cell::Done(d)) => {
            let pass = d.passed();
            let answer = short(d.outcome.text(), 240);
            let reasons = d.verdicts.iter().map(|(s, v)| format!("{s}: {}", v.reason)).collect::<Vec<_>>().join(" · ");
            view! {
                <span class=if pass { "verdict tone-success" } else { "verdict tone-error" } data-testid="eval-verdict">{if pass { "✓ passed" } else { "✗ failed" }}</span>
                <span class="eval-answer" data-testid="eval-answer">{answer}</span>
                <span class="muted eval-reason">{reasons}</span>
                <span class="muted">{format!(" {}", duration_text(d.duration_ms))}</span>
            }.into_any()
        }
    }
}

/// A case's run: the live one of the worker running it, or the one kept.
#[component]
fn CaseTrace(driver: Driver, job: Job, look: RwSignal<Look>, settings: ReadSignal<Settings>) -> impl IntoView {
    let title = driver.with(|r| format!("Case {} · {}", job.case + 1, r.eval.configs.get(job.config).cloned().unwrap_or_default())).unwrap_or_default();
    let label = title.clone();
    let live = driver.workers.with_untracked(|all| all.iter().find(|w| w.job() == Some(job)).copied());
    let body = match live {
        Some(w) => {
            let c = w.control;
            view! { <TracePane chat=c.chat streaming=c.streaming.read_only() running=c.running.read_only() progress=c.progress.read_only() sent=c.sent.read_only()><span class="side-name">{label}</span></TracePane> }.into_any()
        }
        None => {
            let run = driver.with(|r| r.run_of(job).cloned()).flatten();
            let chat = RwSignal::new(Conversation::with_runs(String::new(), label.clone(), run.into_iter().collect()));
            let still = |s: String| RwSignal::new(s).read_only();
            view! { <TracePane chat streaming=still(String::new()) running=RwSignal::new(false).read_only() progress=still(String::new()) sent=RwSignal::new(Vec::new()).read_only()><span class="side-name">{label}</span></TracePane> }.into_any()
        }
    };
    view! {
        <section class="eval-look" data-testid="eval-case-trace" aria-label=title.clone()>
            <div class="row">
                <button class="ghost small" data-testid="eval-look-close" on:click=move |_| look.set(Look::None)>"✕ Close"</button>
                <Show when=move || { driver.tick.track(); driver.with(|r| r.eval.index(job).is_some_and(|at| r.runs[at].is_some())).unwrap_or(false) }>
                    <button class="ghost small" data-testid="eval-otel" on:click=move |_| otel_of(driver, job, settings)>"⬇ OpenTelemetry"</button>
                </Show>
            </div>
            {body}
        </section>
    }
}

/// Two configurations' runs of a case, side by side (Compare runs).
#[component]
fn CaseCompare(driver: Driver, case: usize, look: RwSignal<Look>, settings: ReadSignal<Settings>) -> impl IntoView {
    let runs: Vec<Run> = driver
        .with(|r| (0..r.eval.configs.len()).filter_map(|config| {
            let mut run = r.run_of(Job { case, config })?.clone();
            // Named by configuration in the run pickers.
            run.question = format!("{} — {}", r.eval.configs[config], run.question);
            Some(run)
        }).collect())
        .unwrap_or_default();
    let chat = RwSignal::new(Conversation::with_runs(String::new(), format!("Case {}", case + 1), runs));
    let asked = RwSignal::new(1u32);
    view! {
        <section class="eval-look" data-testid="eval-case-compare">
            <button class="ghost small" data-testid="eval-look-close" on:click=move |_| look.set(Look::None)>"✕ Close"</button>
            <crate::ui::widgets::runs::RunsCompare chat settings asked=asked.read_only()/>
        </section>
    }
}

/// Downloads one case's run with its scores as an OpenTelemetry file.
fn otel_of(driver: Driver, job: Job, settings: ReadSignal<Settings>) {
    let secrets = settings.with_untracked(crate::ui::services::secrets::collect);
    let Some(Some((name, trace))) = driver.with(|r| r.eval.index(job).and_then(|at| r.traced(at, &secrets)).map(|t| (format!("{}-case-{}-{}", file_stem(&r.name), job.case + 1, job.config + 1), t))) else { return };
    if let Err(e) = crate::ui::services::page::download(&format!("{name}.otlp.json"), "application/json", &crate::ui::services::otel::otlp_json_of(Some(&trace))) {
        driver.problem.set(Some(e));
    }
}

fn short(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A name fit for a file.
pub(super) fn file_stem(name: &str) -> String {
    let stem: String = name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
    let stem = stem.trim_matches('-');
    if stem.is_empty() { "evaluation".into() } else { stem.chars().take(60).collect() }
}
