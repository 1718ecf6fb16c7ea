//! The run shown as a timeline beside the step list (`agent::trace::timeline` lays it out): a
//! row per bar on one time axis, drawn only where the list is scrolled to, so a 600-step run
//! costs the same few dozen rows as a short one. Each bar is a button: hovering or focusing it
//! shows its figures, arrow keys move between bars, and a click opens its step in the list.
//! Drawn by the trace part (`trace::rows`), fetched once a trace has events.

use leptos::prelude::*;

use crate::agent::trace::timeline::{timeline, BarKind, Timeline};

use super::steps::Steps;

/// A row's height in pixels (the CSS's `.tl-row` height).
const ROW: f64 = 24.0;
/// Rows drawn above and below the visible ones, so a quick scroll shows no gap.
const MARGIN: usize = 8;

#[component]
pub fn TimelineView(trace: Steps, on_open: Callback<u32, Option<String>>) -> impl IntoView {
    let laid = Memo::new(move |_| trace.with(timeline));
    let top = RwSignal::new(0.0f64);
    let height = RwSignal::new(360.0f64);
    let shown = RwSignal::new(None::<usize>);
    // Why the step of the bar last clicked could not be opened in the list; until another bar
    // is shown.
    let unopened = RwSignal::new(None::<String>);
    let list = NodeRef::<leptos::html::Div>::new();
    let on_scroll = move |_| {
        if let Some(el) = list.get_untracked() {
            top.set(el.scroll_top() as f64);
            height.set(el.client_height().max(1) as f64);
        }
    };
    let window = move || {
        let n = laid.with(|t| t.bars.len());
        let first = ((top.get() / ROW) as usize).saturating_sub(MARGIN).min(n);
        let last = (((top.get() + height.get()) / ROW).ceil() as usize + MARGIN).min(n);
        first..last
    };
    // Arrow keys move between bars; the list scrolls to keep the focused one in view.
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let step: isize = match ev.key().as_str() {
            "ArrowDown" => 1,
            "ArrowUp" => -1,
            "Home" => isize::MIN,
            "End" => isize::MAX,
            _ => return,
        };
        ev.prevent_default();
        let n = laid.with_untracked(|t| t.bars.len());
        if n == 0 {
            return;
        }
        let now = shown.get_untracked().unwrap_or(0);
        let next = match step {
            isize::MIN => 0,
            isize::MAX => n - 1,
            s => now.saturating_add_signed(s).min(n - 1),
        };
        focus_bar(list, next, top);
    };
    let summary = move || {
        laid.with(|t: &Timeline| {
            let share = if t.span_ms > 0.0 { t.agent_ms / t.span_ms * 100.0 } else { 0.0 };
            format!(
                "{} bar{} over {:.2} s · the agent's own time (no bar) {:.0} ms, {share:.1} %",
                t.bars.len(),
                if t.bars.len() == 1 { "" } else { "s" },
                t.span_ms / 1000.0,
                t.agent_ms
            )
        })
    };
    let figures = move || match (unopened.get(), shown.get()) {
        (Some(why), _) => why,
        (None, Some(i)) => laid.with(|t| t.bars.get(i).map(|b| b.describe())).unwrap_or_default(),
        (None, None) => summary(),
    };
    let ticks = move || {
        let span = laid.with(|t| t.span_ms).max(1.0);
        (0..=4).map(|i| view! { <span class="tl-tick" style:left=format!("{}%", i * 25)>{format!("{:.1} s", span * i as f64 / 4000.0)}</span> }).collect_view()
    };
    view! {
        <link rel="stylesheet" href="parts/timeline.css"/>
        <div class="timeline" data-testid="timeline">
            <p class="tl-figures" role="status" data-testid="timeline-figures">{figures}</p>
            <div class="tl-legend" aria-hidden="true">
                <span class="tl-key tl-wait-key"></span>"waiting for the first token "
                <span class="tl-key tl-model-key"></span>"model writing "
                <span class="tl-key tl-tool-key"></span>"tool "
                <span class="tl-key tl-retry-key"></span>"retry wait "
                <span class="tl-key tl-approval-key"></span>"your approval"
            </div>
            <div class="tl-axis" aria-hidden="true">{ticks}</div>
            <div class="tl-rows" node_ref=list on:scroll=on_scroll on:keydown=on_key role="list"
                aria-label="Timeline: a bar per model call, tool call and wait. Arrow keys move between bars; Enter opens the step.">
                <div class="tl-space" style:height=move || format!("{}px", laid.with(|t| t.bars.len()) as f64 * ROW)>
                    // Keyed by the bar's place and its end, so a call that finishes redraws its row.
                    <For each=move || laid.with(|t| window().map(|i| (i, t.bars[i].event, t.bars[i].end_ms.to_bits())).collect::<Vec<_>>()) key=|k| *k let:key>
                        {bar_row(laid, key.0, shown, unopened, on_open)}
                    </For>
                </div>
            </div>
            <Show when=move || laid.with(|t| t.bars.is_empty())>
                <p class="placeholder">"No model or tool calls in this run yet."</p>
            </Show>
        </div>
    }
}

fn bar_row(laid: Memo<Timeline>, i: usize, shown: RwSignal<Option<usize>>, unopened: RwSignal<Option<String>>, on_open: Callback<u32, Option<String>>) -> Option<AnyView> {
    let show = move || {
        unopened.set(None);
        shown.set(Some(i));
    };
    let (bar, span) = laid.with_untracked(|t| t.bars.get(i).cloned().map(|b| (b, t.span_ms.max(1.0))))?;
    let pct = |ms: f64| ms / span * 100.0;
    let left = pct(bar.start_ms);
    let width = pct(bar.end_ms - bar.start_ms).max(0.4);
    // The wait for the first token, as a share of the bar.
    let wait = bar.first_token_ms.filter(|_| bar.kind == BarKind::Model).map(|t| if bar.end_ms > bar.start_ms { (t - bar.start_ms) / (bar.end_ms - bar.start_ms) * 100.0 } else { 0.0 });
    let label = if bar.step > 0 { format!("{} · {}", bar.step, bar.label) } else { bar.label.clone() };
    let event = bar.event;
    Some(
        view! {
            <div class="tl-row" role="listitem" style:top=format!("{}px", i as f64 * ROW)>
                <span class="tl-label" aria-hidden="true">{label}</span>
                <span class="tl-track">
                    <button class=format!("tl-bar tl-{}", bar.kind.as_str()) class:tl-failed=bar.failed
                        style:left=format!("{left:.3}%") style:width=format!("{width:.3}%") data-testid="timeline-bar" data-kind=bar.kind.as_str()
                        data-event=event data-bar=i aria-label=bar.describe()
                        on:mouseenter=move |_| show() on:focus=move |_| show()
                        on:click=move |_| unopened.set(on_open.run(event))>
                        {wait.map(|w| view! { <span class="tl-wait" style:width=format!("{:.1}%", w.clamp(0.0, 100.0))></span> })}
                    </button>
                </span>
            </div>
        }
        .into_any(),
    )
}

/// Scrolls the list to bar `i` and focuses it once it is drawn.
fn focus_bar(list: NodeRef<leptos::html::Div>, i: usize, top: RwSignal<f64>) {
    let Some(el) = list.get_untracked() else { return };
    let y = i as f64 * ROW;
    let (scroll, h) = (el.scroll_top() as f64, el.client_height() as f64);
    if y < scroll || y + ROW > scroll + h {
        let to = (y - h / 2.0).max(0.0);
        el.set_scroll_top(to as i32);
        top.set(to);
    }
    crate::ui::services::page::next_frame(move || {
        // The timeline may be gone by the next frame (closed, another chat opened).
        if let Some(el) = list.try_get_untracked().flatten() {
            crate::ui::services::dom::focus_within(&el, &format!("button[data-bar=\"{i}\"]"));
        }
    });
}
