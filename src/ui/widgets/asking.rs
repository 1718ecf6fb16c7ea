//! A server's question to the person (elicitation), above the composer: which server asks and
//! why; a form drawn from its schema, or the address it asks them to visit, with the address's
//! origin; Accept, Decline and Cancel. The state is `app::mcp::asking`, carried by the page
//! service `ui::services::asking`.

use leptos::prelude::*;

use crate::app::mcp::asking::{Asked, Entry, Field, Format, Kind, Msg, Question};
use crate::ui::services::asking::{questions, send};

/// The panel, while a question waits: drawn by the approval panel's part (`parts`), fetched when
/// a server first asks or a call first waits, so a page whose servers never ask does not load
/// it. One part for both: a part of its own would split the code they share into more pieces.
#[component]
pub fn AskingPanel() -> impl IntoView {
    let waiting: RwSignal<_> = questions().into();
    view! {
        <Show when=move || waiting.with(|q| q.shown().is_some())>
            {crate::ui::services::parts::part_view("approval", move || Box::pin(question_panel()), None, crate::ui::services::parts::Around::Nothing)}
        </Show>
    }
}

crate::ui::services::parts::part!(approval, preload = preload_question, pub fn question_panel() -> AnyView {
    view! { <link rel="stylesheet" href="parts/approval.css"/> <Panel/> }.into_any()
});

#[component]
fn Panel() -> impl IntoView {
    let waiting: RwSignal<_> = questions().into();
    // Drawn once per question, so typing never redraws the form (and never moves the focus).
    let shown = Memo::new(move |_| waiting.with(|q| q.shown().map(|q| q.id)));
    move || {
        shown.get()?;
        let question = waiting.with_untracked(|q| q.shown().cloned())?;
        let behind = waiting.with_untracked(|q| q.behind());
        Some(view! { <QuestionView question behind/> })
    }
}

#[component]
fn QuestionView(question: Question, behind: usize) -> impl IntoView {
    let server = question.server.clone();
    let warning = question.warning();
    let more = (behind > 0).then(|| format!("{behind} more waiting after this one."));
    let (message, body, accept) = match &question.asked {
        Asked::Form(form) => {
            let fields = form.fields.iter().enumerate().map(|(i, field)| field_view(i, field.clone(), question.entries.get(i).cloned().unwrap_or_else(|| field.start()))).collect_view();
            (form.message.clone(), view! { <div class="elicitation-fields">{fields}</div> }.into_any(), "Send".to_string())
        }
        Asked::Url { message, url, origin, .. } => (
            message.clone(),
            view! {
                <p class="hint">{format!("It asks you to open a page of {origin}. Nothing of this page goes with it; the server hears whether you agreed, not what you do there.")}</p>
                <pre class="approval-input" data-testid="elicitation-url">{url.clone()}</pre>
            }
            .into_any(),
            format!("Open {origin}"),
        ),
    };
    view! {
        <div class="approval elicitation" role="group" aria-label=format!("{server} asks") data-testid="elicitation">
            <p><strong>{format!("{server} asks:")}</strong>" "{message}</p>
            {warning.map(|w| view! { <p class="notice error" role="alert" data-testid="elicitation-warning">{w}</p> })}
            {body}
            {more.map(|m| view! { <p class="hint">{m}</p> })}
            <div class="approval-choices">
                <button class="primary" data-testid="elicitation-accept" on:click=move |_| send(Msg::Accept)>{accept}</button>
                <button class="ghost" data-testid="elicitation-decline" on:click=move |_| send(Msg::Decline)>"Decline"</button>
                <button class="ghost" data-testid="elicitation-cancel" on:click=move |_| send(Msg::Cancel)>"Cancel"</button>
            </div>
        </div>
    }
}

/// One field: its label, its control (holding `start`), and why it cannot be sent, if so.
fn field_view(index: usize, field: Field, start: Entry) -> AnyView {
    let waiting: RwSignal<_> = questions().into();
    let name = field.name.clone();
    let wrong = move || waiting.with(|q| q.shown().and_then(|q| q.wrong_with(&name)).map(str::to_string));
    let edit = move |entry: Entry| send(Msg::Edit { field: index, entry });
    let label = format!("{}{}", field.label(), if field.required { " *" } else { "" });
    let text_of = |e: &Entry| match e {
        Entry::Text(t) => t.clone(),
        _ => String::new(),
    };
    let control = match &field.kind {
        Kind::Text { format, .. } => {
            let kind = match format {
                Some(Format::Email) => "email",
                Some(Format::Uri) => "url",
                Some(Format::Date) => "date",
                _ => "text",
            };
            let hint = (*format == Some(Format::DateTime)).then_some("YYYY-MM-DDTHH:MM:SSZ");
            view! { <input type=kind placeholder=hint aria-label=label.clone() data-testid="elicitation-field" data-field=field.name.clone() prop:value=text_of(&start) on:input=move |ev| edit(Entry::Text(event_target_value(&ev)))/> }.into_any()
        }
        Kind::Number { integer, min, max, .. } => view! {
            <input type="number" step=if *integer { "1" } else { "any" } min=min.map(|m| m.to_string()) max=max.map(|m| m.to_string()) aria-label=label.clone()
                data-testid="elicitation-field" data-field=field.name.clone() prop:value=text_of(&start) on:input=move |ev| edit(Entry::Text(event_target_value(&ev)))/>
        }
        .into_any(),
        Kind::Flag { .. } => {
            let on = matches!(start, Entry::Flag(true));
            view! { <input type="checkbox" aria-label=label.clone() data-testid="elicitation-field" data-field=field.name.clone() prop:checked=on on:change=move |ev| edit(Entry::Flag(event_target_checked(&ev)))/> }.into_any()
        }
        Kind::One { choices, .. } => {
            let chosen = text_of(&start);
            let options = choices.iter().map(|c| view! { <option value=c.value.clone() selected=c.value == chosen>{c.title.clone()}</option> }).collect_view();
            let none = (!field.required).then(|| view! { <option value="" selected=chosen.is_empty()>"—"</option> });
            view! { <select aria-label=label.clone() data-testid="elicitation-field" data-field=field.name.clone() on:change=move |ev| edit(Entry::Text(event_target_value(&ev)))>{none}{options}</select> }.into_any()
        }
        Kind::Many { choices, .. } => {
            let boxes = choices
                .iter()
                .map(|c| {
                    let value = c.value.clone();
                    let on = matches!(&start, Entry::Many(m) if m.contains(&value));
                    view! {
                        <label class="elicitation-choice">
                            <input type="checkbox" prop:checked=on on:change=move |ev| {
                                let checked = event_target_checked(&ev);
                                let mut now = waiting.with_untracked(|q| match q.shown().and_then(|q| q.entries.get(index)) {
                                    Some(Entry::Many(m)) => m.clone(),
                                    _ => Vec::new(),
                                });
                                now.retain(|v| *v != value);
                                if checked {
                                    now.push(value.clone());
                                }
                                edit(Entry::Many(now));
                            }/>
                            {c.title.clone()}
                        </label>
                    }
                })
                .collect_view();
            view! { <div role="group" aria-label=label.clone() data-testid="elicitation-field" data-field=field.name.clone()>{boxes}</div> }.into_any()
        }
    };
    view! {
        <div class="elicitation-field">
            <span class="elicitation-label">{label}</span>
            {field.description.clone().map(|d| view! { <span class="hint">{d}</span> })}
            {control}
            {move || wrong().map(|w| view! { <span class="field-error" role="alert">{w}</span> })}
        </div>
    }
    .into_any()
}
