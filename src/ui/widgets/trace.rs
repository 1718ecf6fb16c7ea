//! The trace column: every event of the run shown (the latest, or an earlier one the person
//! picked with "Show steps"), as it happens. Blue while in progress,
//! green for success, red for errors, each with an icon and a label so colour is never the
//! only signal. Each row shows what its event says (`trace::row`): long texts open whole with
//! Show all, and a request opens to the messages it sent. The bar above finds steps in a long
//! trace (`trace::find`).

use leptos::prelude::*;

pub mod find;
pub mod fork;
pub mod row;
pub mod steps;
pub mod timeline;
pub mod tools;

use crate::agent::{Event, EventKind, Tone};
use crate::conversation::Conversation;

use self::find::{find_bar, Beside, Look};
use self::row::{EventRow, LiveRow};
use self::steps::{Steps, MAX_ROWS};

#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
pub use rows::preload as preload_rows;

#[component]
pub fn TracePane(
    chat: RwSignal<Conversation>,
    streaming: ReadSignal<String>,
    running: ReadSignal<bool>,
    /// What the tool call in progress last said of how far it is.
    progress: ReadSignal<String>,
    /// Finished runs sent to the OpenTelemetry collector, and how that went.
    sent: ReadSignal<Vec<crate::ui::services::otel::Sent>>,
    /// The chat's session: runs a branch made from a step (none in Compare, whose runs are
    /// not kept).
    #[prop(optional)]
    session: Option<crate::ui::services::session::Session>,
    /// Opens this conversation's runs side by side (offered in the toolbar's menu when given).
    #[prop(optional)]
    on_compare_runs: Option<Callback<()>>,
    children: Children,
) -> impl IntoView {
    let pane = NodeRef::<leptos::html::Section>::new();
    // The pane's keys (`find::Look::on_key`), once its body has arrived.
    let keys = StoredValue::new(None::<Callback<leptos::ev::KeyboardEvent>>);
    let scrolled = Trigger::new();
    // Follow the run to the bottom, until the person scrolls up to read; scrolling back to
    // the bottom resumes following.
    let follow = StoredValue::new(true);
    let last_top = StoredValue::new(0);
    let on_scroll = move |_| {
        if let Some(el) = pane.get_untracked() {
            let top = el.scroll_top();
            // Scroll events arrive a frame late, when more may already have been appended:
            // only an upward move means the person is reading, never "not at the bottom".
            if top + el.client_height() >= el.scroll_height() - 40 {
                follow.set_value(true);
            } else if top < last_top.get_value() {
                follow.set_value(false);
            }
            last_top.set_value(top);
        }
        scrolled.notify();
    };
    let on_key = move |ev| {
        if let Some(keys) = keys.get_value() {
            keys.try_run(ev);
        }
    };
    // A chat with no run yet shows what will be here and nothing else; the body of the pane
    // (steps, timeline, find bar, totals) is a part of the page, which a first screen without
    // steps does not wait for.
    let has_runs = move || running.get() || chat.with(|c| !c.runs.is_empty());
    let body = Body { chat, streaming, running, progress, sent, pane, keys, scrolled, follow, session, on_compare_runs };
    view! {
        <section class="trace" aria-label="Agent trace" node_ref=pane on:scroll=on_scroll on:keydown=on_key>
            <div class="trace-head">
                <h2>"Trace"</h2>
                {children()}
            </div>
            <Show when=has_runs fallback=|| view! { <p class="placeholder">"Each step of the agent appears here: the model's thoughts, tool calls and observations."</p> }>
                {crate::ui::services::parts::part_view("trace_rows", move || Box::pin(rows::rows(Shown::Body(body))), None, crate::ui::services::parts::Around::Nothing)}
            </Show>
        </section>
    }
}

/// What the pane's body works with: the pane's own signals and the page's.
#[derive(Clone, Copy)]
pub struct Body {
    chat: RwSignal<Conversation>,
    streaming: ReadSignal<String>,
    running: ReadSignal<bool>,
    progress: ReadSignal<String>,
    sent: ReadSignal<Vec<crate::ui::services::otel::Sent>>,
    pane: NodeRef<leptos::html::Section>,
    keys: StoredValue<Option<Callback<leptos::ev::KeyboardEvent>>>,
    scrolled: Trigger,
    follow: StoredValue<bool>,
    session: Option<crate::ui::services::session::Session>,
    on_compare_runs: Option<Callback<()>>,
}

/// The body of the pane, drawn by the trace part: every step of the run shown, the timeline,
/// the find bar, the live reply and the totals.
fn pane_body(b: Body) -> AnyView {
    let Body { chat, streaming, running, progress, sent, pane, keys, scrolled, follow, session, on_compare_runs } = b;
    let trace = Steps(chat);
    let forking = Some(self::fork::Forking::new(session, chat, running));
    let look = Look::new(scrolled);
    keys.set_value(Some(Callback::new(move |ev| look.on_key(ev))));
    // The body goes when the chat shown has no run (another chat opened): its keys go with it,
    // so a key pressed in the pane's head never reaches what was disposed.
    on_cleanup(move || keys.set_value(None));
    // The find bar is fetched once the first screen is up and the page is idle (`parts`);
    // without it the trace still reads.
    let idle = RwSignal::new(cfg!(not(target_arch = "wasm32")));
    crate::ui::services::page::when_idle(move || idle.set(true));
    // One scroll per frame, however many tokens arrive in it: reading `scroll_height` forces a
    // layout, which a burst of tokens must not repeat.
    let scroll_queued = StoredValue::new(false);
    Effect::new(move |_| {
        trace.track();
        streaming.track();
        if follow.get_value() && !scroll_queued.get_value() {
            if let Some(el) = pane.get_untracked() {
                scroll_queued.set_value(true);
                // Checked again at the frame: the person may have scrolled up in between.
                crate::ui::services::page::next_frame(move || {
                    scroll_queued.set_value(false);
                    if follow.get_value() {
                        el.set_scroll_top(el.scroll_height());
                    }
                });
            }
        }
    });
    // How many of the events have rows. Events arriving a few at a time (a live run) get theirs
    // at once; a whole trace at once (an import, a reopened long chat) is drawn a screenful
    // per frame, so a thousand rows never freeze the page in one task. Only the last
    // `MAX_ROWS` events get rows at all (a note says how many are left out).
    let drawn = RwSignal::new(0usize);
    let catching_up = StoredValue::new(false);
    // The trace whose rows are drawn, by its first event: another one (a new run, another chat,
    // an import) is drawn from its start, not all at once up to the count of the last one.
    let drawn_of = StoredValue::new(None::<RowKey>);
    Effect::new(move |_| {
        let (len, first) = trace.with(|events| (events.len().min(MAX_ROWS), events.first().map(|e| row_key(0, e))));
        let mut now = drawn.get();
        if first != drawn_of.get_value() {
            drawn_of.set_value(first);
            now = 0;
        }
        let target = if len <= now || len - now <= ROWS_PER_FRAME { len } else { now };
        if target != drawn.get_untracked() {
            drawn.set(target);
        }
        if target < len && !catching_up.get_value() {
            catching_up.set_value(true);
            crate::ui::services::page::next_frame(move || {
                catching_up.set_value(false);
                drawn.update(|d| *d += ROWS_PER_FRAME);
            });
        }
    });
    // The one step still in progress, if any: blue means "happening now", so a model call or
    // tool call whose answer has arrived is drawn as done. Scans back from the end only.
    let open = Memo::new(move |_| {
        if !running.get() {
            return None;
        }
        // Retries are announced while their request is still going.
        trace.with(|events| {
            events
                .iter()
                .rev()
                .find(|e| !matches!(e.kind, EventKind::LlmRetry { .. }))
                .filter(|e| e.kind.tone() == Tone::Pending)
                .map(|e| e.index)
        })
    });
    // The reply being written has its live row while its request is the step in progress.
    let writing = Memo::new(move |_| {
        open.get().is_some() && trace.with(|events| events.iter().rev().find(|e| !matches!(e.kind, EventKind::LlmRetry { .. })).is_some_and(|e| matches!(e.kind, EventKind::LlmRequest { .. })))
    });
    // What a screen reader hears of a live run: a line per tool call, error and answer, not
    // every row and never the streaming text.
    let announced = Memo::new(move |_| {
        if !running.get() {
            return String::new();
        }
        trace.with(|events| {
            events.iter().rev().find_map(|e| match &e.kind {
                EventKind::ToolCall { tool, .. } => Some(format!("Step {}: calling {tool}", e.step)),
                EventKind::ApprovalAsked { tool, .. } => Some(format!("Step {}: {tool} waits for your approval", e.step)),
                EventKind::FinalAnswer { .. } => Some("The answer is ready".to_string()),
                EventKind::RunStopped { message, .. } => Some(message.clone()),
                kind if kind.tone() == Tone::Error => Some(format!("Step {}: {}", e.step, kind.label())),
                _ => None,
            })
        }).unwrap_or_default()
    });
    // The timeline, shown above the step list (which stays: hiding thousands of rows and
    // showing them again would lay them all out anew) when the find bar's menu asks for it; a
    // bar clicked there opens its step.
    let as_timeline = RwSignal::new(false);
    let on_open = Callback::new(move |index: u32| match crate::ui::services::dom::open_row(pane, index) {
        Ok(()) => None,
        Err(crate::ui::services::dom::RowNotShown::NotDrawn) => Some(format!("That step is not in the list below, which draws a run's last {MAX_ROWS} events; Export → Export JSON has every event.")),
        Err(crate::ui::services::dom::RowNotShown::Hidden) => Some("That step is hidden by the list's filter; choose “All steps” to see it.".to_string()),
    });
    view! {
        <div class="trace-body">
            <Show when=move || as_timeline.get() && !trace.with(<[Event]>::is_empty)>
                <self::timeline::TimelineView trace on_open/>
            </Show>
            <Show when=move || idle.get()>
                {crate::ui::services::parts::part_view("find_bar", move || Box::pin(find_bar(trace, look, Beside { pane, as_timeline, on_compare_runs })), None, crate::ui::services::parts::Around::Nothing)}
            </Show>
            <ShownRun chat/>
            <Show when=move || trace.with(<[Event]>::is_empty) && !running.get() && chat.with(|c| c.shown_run().is_none_or(|r| r.steps_kept))>
                <p class="placeholder">"Each step of the agent appears here: the model's thoughts, tool calls and observations."</p>
            </Show>
            <Show when=move || trace.with(|events| events.len() > MAX_ROWS)>
                <p class="placeholder" data-testid="trace-cut">
                    {move || format!(
                        "The first {} events are not shown: this pane draws the last {MAX_ROWS}. Export → Export JSON has every event.",
                        trace.with(|events| events.len().saturating_sub(MAX_ROWS))
                    )}
                </p>
            </Show>
            <p class="visually-hidden" aria-live="polite" data-testid="trace-announce">{move || announced.get()}</p>
            // `data-events`: how many rows the list has once drawn (they arrive a screenful per
            // frame), for whoever waits on them.
            <ol class="events" data-testid="trace" data-events=move || trace.with(|events| events.len().min(MAX_ROWS).to_string()) tabindex="0" aria-label="Steps: j and k move between them, / searches">
                // Keyed by the events' identities only: an update copies no event, and each row
                // reads its event once, when it is first drawn (events never change afterwards).
                // A branch's own rows are its own: switching branches draws them anew, and keeps
                // the rows of the steps the branches share.
                <For each=move || chat.with(|c| {
                    let (run, line) = c.shown_run().map_or((None, 0), |r| (Some(r), r.shown_number()));
                    let events = c.shown_events();
                    let window = &events[events.len().saturating_sub(MAX_ROWS)..];
                    let origin = |e: &Event| run.map_or(0, |r| r.origin_of(line, e.index as usize)) as u32;
                    window.iter().take(drawn.get()).map(|e| row_key(origin(e), e)).collect::<Vec<_>>()
                }) key=|k| *k let:key>
                    {event_for(trace, key).map(|event| view! { <EventRow event open trace look forking/> })}
                </For>
            </ol>
            {forking.map(self::fork::fork_error)}
            <Show when=move || writing.get()>
                <LiveRow streaming/>
            </Show>
            // The open tool call's progress, as the server reports it.
            <Show when=move || open.get().is_some() && !progress.with(String::is_empty)>
                <div class="event tone-pending live" data-testid="tool-progress" role="status">
                    <div class="event-head">
                        <span class="icon" aria-hidden="true">"◔"</span>
                        <span class="label">"Progress"</span>
                    </div>
                    <p class="part note">{move || progress.get()}</p>
                </div>
            </Show>
            <Show when=move || !trace.with(<[Event]>::is_empty)>
                {foot(chat, sent)}
            </Show>
        </div>
    }
    .into_any()
}

/// Which question's steps the pane shows, once a conversation has more than one run, with the
/// way back to the latest; and a plain note for a run whose steps were not kept.
#[component]
fn ShownRun(chat: RwSignal<Conversation>) -> impl IntoView {
    let line = move || {
        chat.with(|c| {
            let at = c.shown()?;
            (c.runs.len() > 1).then(|| (at + 1, c.runs.len(), c.runs[at].shown_line().question.to_string(), c.shows_earlier()))
        })
    };
    let not_kept = move || chat.with(|c| c.shown_run().is_some_and(|r| !r.steps_kept));
    view! {
        {move || line().map(|(number, of, question, earlier)| view! {
            <p class="shown-run" class:earlier=earlier data-testid="shown-run">
                <span data-testid="shown-question">{format!("Question {number} of {of}: “{question}”")}</span>
                {earlier.then(|| view! {
                    <button class="ghost small" data-testid="show-latest" on:click=move |_| { chat.update(|c| { c.show_latest(); }); }>"Back to latest"</button>
                })}
            </p>
        })}
        <Show when=not_kept>
            <p class="placeholder" data-testid="steps-not-kept">
                "The steps of this run were not kept: it was saved by an earlier version of Thoughtline, which kept only the last run of a chat. Its question and answer are all there is."
            </p>
        </Show>
    }
}

/// A row's identity: the line of its run that recorded it, its index and its timing. Index
/// alone is not unique across conversations and imports; timing makes it so.
type RowKey = (u32, u32, u64, u64);

/// Rows drawn per frame while a whole trace arrives at once: more than a screenful, and about
/// 10 ms of work.
const ROWS_PER_FRAME: usize = 60;


fn row_key(origin: u32, e: &Event) -> RowKey {
    (origin, e.index, e.started_ms.to_bits(), e.ended_ms.to_bits())
}


/// What the trace's part draws: the pane's body, or the run's controls in the pane's toolbar.
/// One feature, the trace of a chat's runs, needed only once a chat has one.
pub(crate) enum Shown {
    Body(Body),
    Tools(self::tools::Toolbar),
}

mod rows {
    use leptos::prelude::*;

    use super::Shown;

    crate::ui::services::parts::part!(trace_rows, preload = preload, pub fn rows(what: Shown) -> AnyView {
        match what {
            Shown::Body(body) => super::pane_body(body),
            Shown::Tools(toolbar) => super::tools::run_tools(toolbar),
        }
    });
}

pub(crate) use rows::rows as rows_part;

/// The line under the trace (drawn by the trace part).
fn foot(chat: RwSignal<Conversation>, sent: ReadSignal<Vec<crate::ui::services::otel::Sent>>) -> AnyView {
    let trace = Steps(chat);
    let totals = move || {
        let t = trace.with(|events| crate::agent::trace::Totals::of(events));
        let count = |n: u32, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        format!(
            "{} · {} · {} · {} · {:.1} s{}",
            count(t.steps, "step"),
            count(t.llm_calls, "model call"),
            count(t.tool_calls, "tool call"),
            t.tokens_text(),
            t.duration_ms / 1000.0,
            if t.errors > 0 { format!(" · {}", count(t.errors, "error")) } else { String::new() }
        )
    };
    // Whether the run shown reached the OpenTelemetry collector.
    let sent_note = move || {
        let (id, at) = chat.with(|c| (c.id.clone(), c.shown()));
        let at = at?;
        sent.with(|sent| sent.iter().find(|s| s.chat == id && s.run == at).map(|s| match &s.result {
            Ok(()) => (true, "Sent to the OpenTelemetry collector.".to_string()),
            Err(why) => (false, format!("Not sent to the OpenTelemetry collector: {why}")),
        }))
    };
    // The whole conversation's tokens, once it has more than one run.
    let conversation_tokens = move || {
        // Every line of every run, each event once (a branch's shared steps are its parent's).
        chat.with(|c| {
            (c.runs.len() > 1 || c.runs.iter().any(|r| r.lines() > 1)).then(|| {
                let lines = c.runs.iter().flat_map(|r| (0..r.lines()).filter_map(move |n| r.traced(n).map(|(own, _)| own)));
                format!("This conversation: {}", crate::agent::trace::Totals::tokens_of(lines).tokens_text())
            })
        })
    };
    view! {
        <p class="trace-totals" data-testid="trace-totals">{totals}</p>
        {move || conversation_tokens().map(|text| view! { <p class="trace-totals" data-testid="chat-totals">{text}</p> })}
        {move || sent_note().map(|(ok, text)| view! { <p class="collector-note" class:bad=!ok role="status" data-testid="collector-status">{text}</p> })}
    }
    .into_any()
}

/// The event a row stands for: at its index as a rule, searched for if a damaged stored trace
/// lost an event before it.
fn event_for(trace: Steps, key: RowKey) -> Option<Event> {
    trace.with_untracked(|events| {
        let same = |e: &&Event| row_key(key.0, e) == key;
        let at = events.get(key.1 as usize).filter(same);
        at.or_else(|| events.iter().find(same)).cloned()
    })
}
