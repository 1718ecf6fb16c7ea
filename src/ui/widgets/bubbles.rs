//! The conversation's messages as bubbles, as the chat pane and a shared run's view draw them:
//! the person's questions, answers as sanitised Markdown (a part), a run's problem, and "Show
//! steps" on the message that ends a run.

use leptos::prelude::*;

use crate::conversation::{ChatMessage, Conversation, Who};

/// The chat's bubbles, as the chat pane and a shared run's view draw them.
pub fn bubbles(messages: Memo<Vec<ChatMessage>>, chat: RwSignal<Conversation>, running: ReadSignal<bool>) -> impl IntoView {
    // Keyed by position and text: switching conversations replaces rows whose text changed.
    view! {
        <For each=move || messages.get().into_iter().enumerate() key=|(i, m)| (*i, m.text.clone(), m.ends_run, m.branch.clone()) let:item>
            <Bubble message=item.1 chat running/>
        </For>
    }
}

/// Whether the Documents panel is open: a citation opens it at its passage (the shell provides
/// it; a shared run's view has none, and its citations stay text).
#[derive(Clone, Copy)]
pub struct OpenCitation(pub RwSignal<bool>);

#[component]
fn Bubble(message: ChatMessage, chat: RwSignal<Conversation>, running: ReadSignal<bool>) -> impl IntoView {
    let (class, label) = match message.who {
        Who::User => ("bubble user", "You"),
        Who::Assistant => ("bubble assistant", "Thoughtline"),
        Who::Problem => ("bubble problem", "⚠ Run ended"),
        Who::AskedPerson => ("bubble asked-person", "? Thoughtline asks"),
    };
    let copied = RwSignal::new(false);
    let text = message.text.clone();
    let copy = (message.who == Who::Assistant).then(|| {
        view! {
            <button class="ghost small copy" data-testid="copy-answer" aria-label="Copy the answer"
                on:click=move |_| copy_answer(text.clone(), copied)>
                {move || if copied.get() { "Copied ✓" } else { "Copy" }}
            </button>
        }
    });
    // The message that ends a run offers that run's steps in the trace pane.
    let run = message.run;
    let shown = move || chat.with(|c| c.shown() == Some(run));
    let steps = message.ends_run.then(|| {
        view! {
            <button class="ghost small show-steps" data-testid="show-steps" class:shown=shown
                aria-pressed=move || shown().to_string()
                disabled=move || running.get()
                title="Show how this was reached, in the trace pane"
                on:click=move |_| { chat.update(|c| { c.show(run); }); }>
                {move || if shown() { "Steps shown →" } else { "Show steps →" }}
            </button>
        }
    });
    view! {
        <li class=class data-testid="message">
            {copy}
            <span class="who">{label}</span>
            // Never raw HTML: answers come from a model and may quote tool output. The
            // person's own text and problems are plain text; answers are sanitised Markdown.
            {match message.who {
                // Drawn by a part (`markdown::answer`): a first visit has no answer to draw yet.
                Who::Assistant => {
                    // Its citations are read by the part: no reader of them in the first load.
                    let open = use_context::<OpenCitation>().map(|o| (o.0, run, chat));
                    let text = message.text;
                    let answer = crate::ui::services::parts::part_view("markdown", move || Box::pin(crate::ui::widgets::markdown::answer(text.clone(), open)), None, crate::ui::services::parts::Around::Nothing);
                    view! { <div class="text md">{answer}</div> }.into_any()
                }
                _ => view! { <div class="text">{message.text}</div> }.into_any(),
            }}
            // The resources that went with the question, as the run's record keeps them.
            {(!message.attached.is_empty()).then(|| {
                let names: Vec<String> = message.attached.iter().map(|name| format!("📎 {name}")).collect();
                view! { <div class="attached-to" data-testid="run-attached" title="Attached resources">{names.join(" · ")}</div> }
            })}
            {(!message.branch.is_empty()).then(|| view! { <div class="branch-note" data-testid="message-branch">{message.branch}</div> })}
            // Views of this run's tools' results (MCP Apps), while the page is open.
            {message.ends_run.then(|| view! { <crate::ui::widgets::views::RunViews chat run/> })}
            {steps}
        </li>
    }
}

fn copy_answer(text: String, copied: RwSignal<bool>) {
    leptos::task::spawn_local(async move {
        copied.set(crate::ui::services::page::copy_text(&text).await.is_ok());
    });
}
