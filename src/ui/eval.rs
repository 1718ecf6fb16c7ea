//! Evaluations: a set of questions run under up to four configurations, each case an ordinary
//! run scored by its scorers, with pass rates per configuration and every case's run one click
//! away. A part of the page (`parts`), built the first time it is opened. The evaluation's
//! state is the app's (`app::eval`); the page service `ui::services::eval` carries it out, `new.rs` makes one,
//! `table.rs` shows one.

use leptos::prelude::*;

mod new;
mod table;

use crate::app::eval::config::Config;
use crate::app::settings::Settings;
use crate::conversation::Conversation;
use crate::ui::services::eval::Driver;

/// What a new evaluation's form starts from: empty, or an earlier evaluation's set and
/// configurations ("Run this set again").
#[derive(Debug, Clone, Default)]
pub struct Draft {
    pub name: String,
    pub text: String,
    pub configs: Vec<Config>,
    pub concurrency: usize,
}

#[component]
pub fn EvalPane(settings: ReadSignal<Settings>, chat: RwSignal<Conversation>) -> impl IntoView {
    let mcp = use_context::<crate::ui::services::mcp::Mcp>().unwrap_or_else(|| crate::ui::services::mcp::install(RwSignal::new(settings.get_untracked())));
    let driver = Driver::new(settings, mcp);
    // A new evaluation's form, until one is open.
    let making = RwSignal::new(true);
    let draft = RwSignal::new(Draft::default());
    Effect::new(move |first: Option<()>| {
        driver.shown.track();
        if first.is_some() {
            making.set(false);
        }
    });
    let open = move |id: String| {
        making.set(false);
        driver.open(id);
    };
    let list = move || {
        driver.list.get().into_iter().map(|head| {
            let id = head.id.clone();
            let (open_id, delete_id, current) = (id.clone(), id.clone(), id.clone());
            let when = when_text(head.created_unix_ms);
            let size = format!("{} case{} × {} configuration{}", head.cases.len(), plural(head.cases.len()), head.configs.len(), plural(head.configs.len()));
            view! {
                <li class="eval-listed" data-testid="eval-listed"
                    class:current=move || { driver.tick.track(); !making.get() && driver.with(|r| r.id == current).unwrap_or(false) }>
                    <button class="linkish" on:click=move |_| open(open_id.clone())>
                        <span class="eval-listed-name">{head.name.clone()}</span>
                        <span class="muted">{format!("{when} · {size}{}", if head.running { " · running" } else { "" })}</span>
                    </button>
                    <button class="ghost small" aria-label=format!("Delete the evaluation {}", head.name) title="Delete"
                        on:click=move |_| {
                            // Deleting the one shown goes back to a new evaluation's form.
                            if !making.get_untracked() && driver.with(|r| r.id == delete_id).unwrap_or(false) && !driver.running() {
                                making.set(true);
                            }
                            driver.delete(delete_id.clone())
                        }>"✕"</button>
                </li>
            }
        }).collect_view()
    };
    let on_made = Callback::new(move |record| {
        making.set(false);
        driver.create(record);
    });
    let on_again = Callback::new(move |again: Draft| {
        draft.set(again);
        making.set(true);
    });

    view! {
        // Its styles come with it: the first load carries none of them.
        <link rel="stylesheet" href="parts/evaluations.css"/>
        <section class="evals" aria-label="Evaluations" data-testid="evals">
            <aside class="eval-side">
                <button class="primary" data-testid="eval-new" disabled=move || { driver.tick.track(); driver.running() }
                    on:click=move |_| { draft.set(Draft::default()); making.set(true) }>"+ New evaluation"</button>
                <h2>"Earlier evaluations"</h2>
                <Show when=move || driver.list.with(|l| !l.is_empty()) fallback=|| view! { <p class="muted">"None yet."</p> }>
                    <ul class="eval-list">{list}</ul>
                </Show>
            </aside>
            <div class="eval-main">
                {move || driver.problem.get().map(|p| view! { <p class="notice error" role="alert" data-testid="eval-problem">{p}</p> })}
                <Show when=move || making.get() fallback=move || view! { <table::EvalView driver settings on_again/> }>
                    <new::NewEval settings chat on_made draft=draft.get_untracked()/>
                </Show>
            </div>
        </section>
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Milliseconds as a person reads them: "850 ms", "4.2 s", "3 min 5 s".
pub(crate) fn duration_text(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{} ms", ms.round())
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {} s", s / 60, s % 60)
    }
}

/// When something happened, in the person's own way of writing dates.
fn when_text(unix_ms: f64) -> String {
    crate::ui::services::page::local_time(unix_ms)
}
