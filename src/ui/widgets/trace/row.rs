//! One trace row: what the event says (`EventKind::row`: the thought, the action and its input,
//! the observation's first lines, the answer as sanitised Markdown, the plan as a checklist),
//! its counts as secondary text, and "Show all" where a part is longer than its preview. The
//! live row of a reply being written looks the same, so nothing moves when the reply ends.

use leptos::prelude::*;

use crate::agent::trace::row::{characters, preview, Part, PREVIEW_CHARS};
use crate::agent::{Event, EventKind, Tone};

use crate::ui::widgets::markdown::Markdown;
use super::find::Look;
use super::steps::Steps;

fn icon(tone: Tone) -> &'static str {
    match tone {
        Tone::Pending => "◔",
        Tone::Success => "✓",
        Tone::Error => "✗",
        Tone::Neutral => "•",
    }
}

/// The passages a `documents` call gave the model, each with its source and score, read back
/// from the observation (`documents::cited`): what the model saw, never more.
fn passages(kind: &EventKind) -> Option<AnyView> {
    let EventKind::ToolResult { tool, observation } = kind else { return None };
    if tool != "documents" {
        return None;
    }
    let found = crate::documents::cited::parse(observation);
    (!found.is_empty()).then(|| {
        let items = found
            .into_iter()
            .map(|source| {
                let page = source.page.map(|p| format!(" · page {p}")).unwrap_or_default();
                let heading = if source.heading.is_empty() { String::new() } else { format!(" · § {}", source.heading) };
                view! {
                    <li class="passage" data-testid="passage" data-number=source.number data-page=source.page.unwrap_or(0)>
                        <div class="passage-source">{format!("[{}] {}{page}{heading}", source.number, source.name)}<span class="meta">{format!("score {}", source.score)}</span></div>
                        <div class="passage-text">{{
                            let shown = preview(&source.text);
                            if shown.is_cut() { format!("{}…", shown.shown) } else { shown.shown.to_string() }
                        }}</div>
                    </li>
                }
            })
            .collect_view();
        // Their look is fetched with the first of them: most pages never show one.
        view! { <link rel="stylesheet" href="parts/passages.css"/><ol class="passages">{items}</ol> }.into_any()
    })
}

#[component]
pub fn EventRow(event: Event, open: Memo<Option<u32>>, trace: Steps, look: Look, forking: Option<super::fork::Forking>) -> impl IntoView {
    let tone = event.kind.tone();
    let index = event.index;
    // A pending event that is no longer the open one has finished (its result follows it).
    let done = move || tone == Tone::Pending && open.get() != Some(index);
    let row = event.kind.row();
    let more = row.has_more();
    // "Show all" for this row: its own choice since the last "Expand all"/"Collapse all", and
    // always while it holds the current search match (which may sit past the preview).
    let chosen = RwSignal::new(None::<(u32, bool)>);
    let marks = look.marks_for(index);
    let full: Signal<bool> = Signal::from(Memo::new(move |_| {
        let (generation, all) = look.expand.get();
        let own = chosen.get().filter(|(g, _)| *g == generation).map(|(_, on)| on);
        own.unwrap_or(all) || marks.current.get()
    }));
    let toggle = move |_| {
        let generation = look.expand.get_untracked().0;
        let on = !full.get_untracked();
        chosen.set(Some((generation, on)));
    };
    let kind = event.kind.clone();
    let kept = move || look.filter.get().keeps(&kind);
    let (hit, current) = (marks.hit, marks.current);
    let timing = if event.step > 0 { format!("step {} · {:.0} ms", event.step, event.ended_ms - event.started_ms) } else { String::new() };
    let request = matches!(event.kind, EventKind::LlmRequest { .. });
    let parts = row.parts.iter().map(|part| show_part(part, &event, trace, full)).collect_view();
    view! {
        <li class=format!("event tone-{}", tone.as_str()) class:done=done class:hit=hit class:current-hit=current
            hidden=move || !kept() tabindex="-1"
            data-tone=tone.as_str() data-kind=event.kind.name() data-index=index data-testid="event">
            <div class="event-head">
                <span class="icon" aria-hidden="true">{icon(tone)}</span>
                <span class="label">{event.kind.label()}</span>
                <span class="meta">{timing}</span>
            </div>
            {(!row.summary.is_empty()).then(|| view! { <div class="event-summary">{row.summary.clone()}</div> })}
            {parts}
            {passages(&event.kind)}
            {(more || !row.meta.is_empty()).then(|| view! {
                <div class="event-foot">
                    <span class="counts" data-testid="event-counts">{row.meta.clone()}</span>
                    {more.then(|| view! {
                        <button class="link small" data-testid="show-all" aria-expanded=move || full.get().to_string() on:click=toggle>
                            {move || if full.get() { "Show less" } else { "Show all" }}
                        </button>
                    })}
                </div>
            })}
            {request.then(|| view! {
                <details on:toggle=move |ev| show_request(&ev, trace, index)>
                    <summary>"Messages sent"</summary>
                    <pre></pre>
                </details>
            })}
            {view_link(forking, &event)}
            {forking.and_then(|forking| super::fork::row_controls(forking, &event))}
        </li>
    }
}

/// On a tool's result that came with a view (MCP Apps): a link to it, under the answer, while
/// the view lives.
fn view_link(forking: Option<super::fork::Forking>, event: &Event) -> Option<AnyView> {
    if !matches!(event.kind, EventKind::ToolResult { .. }) {
        return None;
    }
    let chat = forking?.chat;
    let step = event.step;
    let view = move || chat.with(|c| c.shown().and_then(|run| crate::ui::services::views::view_of(&c.id, run, step)));
    Some(
        view! {
            {move || view().map(|id| view! {
                <button class="link small" data-testid="row-view" on:click=move |_| crate::ui::services::views::scroll_to_view(id)>
                    "▣ This call has a view, under the answer"
                </button>
            })}
        }
        .into_any(),
    )
}

/// A long text as a row shows it: its preview with a mark where it was cut, or all of it.
fn shown(text: String, full: Signal<bool>) -> impl Fn() -> String {
    move || {
        let p = preview(&text);
        if full.get() || !p.is_cut() {
            text.clone()
        } else {
            format!("{} …", p.shown)
        }
    }
}

fn show_part(part: &Part, event: &Event, trace: Steps, full: Signal<bool>) -> AnyView {
    match part.clone() {
        Part::Thought(t) => view! {
            <p class="part thought" data-testid="thought"><span class="part-label">"Thought"</span>" "<span class="part-body">{shown(t, full)}</span></p>
        }
        .into_any(),
        Part::Action { tool, input } => view! {
            <p class="part action" data-testid="action">
                <span class="part-label">"Action"</span>" "<code class="tool">{tool}</code>
                {(!input.is_empty()).then(|| view! { " ← " <code class="input" data-testid="action-input">{shown(input, full)}</code> })}
            </p>
        }
        .into_any(),
        Part::Call { name, arguments } => view! {
            <p class="part action" data-testid="call">
                <span class="part-label">"Call"</span>" "<code class="tool">{name}</code>" "<code class="input">{shown(arguments, full)}</code>
            </p>
        }
        .into_any(),
        Part::Text(t) => view! { <pre class="part text" data-testid="part-text">{shown(t, full)}</pre> }.into_any(),
        Part::Code(code) => view! { <pre class="part code" data-testid="code"><code>{shown(code, full)}</code></pre> }.into_any(),
        Part::Output(t) => view! { <pre class="part text output" data-testid="code-output">{shown(t, full)}</pre> }.into_any(),
        Part::Answer(a) => view! { <div class="part answer" data-testid="row-answer"><Markdown text=a/></div> }.into_any(),
        Part::Items(_) => plan_checklist(event, trace).into_any(),
        Part::Note(n) => view! { <p class="part note">{shown(n, full)}</p> }.into_any(),
    }
}

/// Fills an opened request's details with the messages it sent, rebuilt from the trace: the
/// trace records each request as what it adds to the one before, and rebuilding every row's at
/// once would cost the whole run per row. Set as text, once (recorded requests never change).
fn show_request(ev: &leptos::ev::Event, trace: Steps, index: u32) {
    crate::ui::services::dom::fill_once(ev, || trace.with_untracked(|events| {
        let position = events.iter().position(|e| e.index == index).unwrap_or(events.len());
        match crate::agent::trace::request_at(events, position) {
            Ok(request) => request.messages.iter().map(|m| format!("[{:?}]\n{}", m.role, m.content)).collect::<Vec<_>>().join("\n\n"),
            Err(problem) => problem,
        }
    }));
}

/// A plan as a checklist whose items tick as the tool calls after it succeed.
fn plan_checklist(event: &Event, trace: Steps) -> impl IntoView {
    let EventKind::Plan { items, .. } = &event.kind else { return None };
    let index = event.index;
    let ticks = Memo::new(move |_| {
        trace.with(|events| events.iter().position(|e| e.index == index).map_or(0, |at| crate::agent::trace::plan_ticks(events, at)))
    });
    let rows = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let done = move || ticks.get() > i;
            view! {
                <li class:done=done data-testid="plan-item" data-done=move || done().to_string()>
                    <span class="check" aria-hidden="true">{move || if done() { "☑" } else { "☐" }}</span>
                    <span class="visually-hidden">{move || if done() { "done: " } else { "to do: " }}</span>
                    {item.clone()}
                </li>
            }
        })
        .collect_view();
    // A plan the model revised stays as it was when it was replaced.
    let replaced_by = Memo::new(move |_| {
        trace.with(|events| {
            events.iter().skip_while(|e| e.index != index).skip(1).find_map(|e| match e.kind {
                EventKind::Plan { version, .. } => Some(version),
                _ => None,
            })
        })
    });
    Some(view! {
        <ol class="plan part" data-testid="plan">{rows}</ol>
        {move || replaced_by.get().map(|v| view! { <p class="hint" data-testid="plan-replaced">{format!("Replaced by version {v}.")}</p> })}
    })
}

/// The reply being written, drawn as its row will be: the same preview of its first lines,
/// grown token by token, and its size so far. Each update appends only the text that is new,
/// as a text node, and stops at the preview's end: setting the whole text again for every
/// token would copy it each time, quadratic in the length of the reply.
#[component]
pub fn LiveRow(streaming: ReadSignal<String>) -> impl IntoView {
    let pre = NodeRef::<leptos::html::Pre>::new();
    // Bytes of the preview already in the element, and the first of them: a new model call
    // starts the text over, which shows as a shorter text or a different start.
    let shown = StoredValue::new((0usize, String::new()));
    let cut = RwSignal::new(false);
    Effect::new(move |_| {
        let Some(el) = pre.get() else { return };
        streaming.with(|text| {
            let p = preview(text);
            let (from, head) = shown.get_value();
            let from = if p.shown.len() < from || !text.starts_with(&head) || !p.shown.is_char_boundary(from) {
                el.set_text_content(None);
                0
            } else {
                from
            };
            if from < p.shown.len() {
                let _ = el.append_with_str_1(&p.shown[from..]);
            }
            let head_end = (0..=text.len().min(64)).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            shown.set_value((p.shown.len(), text[..head_end].to_string()));
            if cut.get_untracked() != p.is_cut() {
                cut.set(p.is_cut());
            }
        });
    });
    // The size, by bytes until the preview is full (counting characters at every token would
    // read the whole reply each time).
    let size = move || {
        streaming.with(|text| {
            if text.len() <= PREVIEW_CHARS {
                format!("{} so far", characters(text.chars().count()))
            } else {
                format!("about {} so far", characters(text.len()))
            }
        })
    };
    let empty = move || streaming.with(String::is_empty);
    view! {
        <div class="event tone-pending live" data-testid="streaming">
            <div class="event-head">
                <span class="icon" aria-hidden="true">"◔"</span>
                <span class="label">"Model reply"</span>
                <span class="meta">{move || if empty() { "waiting for the model…" } else { "writing…" }}</span>
            </div>
            <pre class="part text stream" data-testid="stream-text" node_ref=pre hidden=empty></pre>
            <div class="event-foot" hidden=empty>
                <span class="counts">{size}</span>
                <span class="hint" hidden=move || !cut.get()>"the rest when it is done"</span>
            </div>
        </div>
    }
}
