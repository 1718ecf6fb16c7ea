//! Showing a run to someone: the Share panel that makes a link carrying it, and the read-only
//! view a page opened with such a link shows. Both are drawn by the Compare part (`ui::Drawn`):
//! someone who never compares, shares or opens a link fetches neither. What is shared and how a link is read is
//! `app::share`; packing it is the browser's (`page::pack`, `page::unpack`).

use leptos::prelude::*;

use crate::app::settings::Settings;
use crate::app::share::{Choice, Fit, Observations, Opened, Scope, Sharing, CUT_CHARS};
use crate::conversation::Conversation;

/// A shared run's own toolbar shares from here: this code is already in the page.
const HERE: crate::ui::widgets::trace::tools::ShareWith = crate::ui::widgets::trace::tools::ShareWith { panel: |chat, settings, on_close| Box::pin(async move { Ok(share_panel(chat, settings, on_close)) }), fetch: || {} };

/// The Share panel (drawn by the Compare part, `ui::Drawn`).
pub fn share_panel(chat: RwSignal<Conversation>, settings: ReadSignal<Settings>, on_close: Callback<()>) -> AnyView {
    view! { <SharePanel chat settings on_close/> }.into_any()
}

/// The page opened with a share link (drawn by the Compare part, `ui::Drawn`).
pub fn shared_page(fragment: String, on_keep: fn(Conversation)) -> AnyView {
    view! { <SharedView fragment on_keep/> }.into_any()
}

/// Has the record for the choice now made (by the export part) and packed, and makes it the
/// panel's link when it is still the choice then.
fn make_link(sharing: RwSignal<Sharing>, chat: RwSignal<Conversation>, settings: ReadSignal<Settings>) {
    let Some(ticket) = sharing.try_update(Sharing::ask) else { return };
    let (whole, choice) = (chat.get_untracked(), sharing.with_untracked(|s| s.choice));
    let secrets = settings.with_untracked(crate::ui::services::secrets::collect);
    leptos::task::spawn_local(async move {
        use crate::ui::services::files::{exported, Export};
        let packed = match exported(Export::ShareRecord { chat: whole, choice, secrets, now_ms: crate::ui::services::page::now_ms() }, "Share").await {
            Ok(record) => crate::ui::services::page::pack(record.as_bytes()).await,
            Err(why) => Err(why),
        };
        sharing.update(|s| s.packed(ticket, &crate::ui::services::page::address(), packed));
    });
}

#[component]
fn SharePanel(chat: RwSignal<Conversation>, settings: ReadSignal<Settings>, on_close: Callback<()>) -> impl IntoView {
    let sharing = RwSignal::new(Sharing::default());
    let copied = RwSignal::new(String::new());
    make_link(sharing, chat, settings);
    let choose = move |change: fn(&mut Choice)| {
        let mut choice = sharing.with_untracked(|s| s.choice);
        change(&mut choice);
        if sharing.try_update(|s| s.choose(choice)).unwrap_or(false) {
            copied.set(String::new());
            make_link(sharing, chat, settings);
        }
    };
    let runs = move || chat.with(|c| c.runs.len());
    let is = move |scope: Scope, observations: Option<Observations>| sharing.with(|s| s.choice.scope == scope && observations.is_none_or(|o| o == s.choice.observations));
    let copy = move |_| {
        let Some(link) = sharing.with_untracked(|s| s.offered().map(str::to_string)) else { return };
        leptos::task::spawn_local(async move {
            copied.set(match crate::ui::services::page::copy_text(&link).await {
                Ok(()) => "Copied the link.".into(),
                Err(_) => "The browser refused the clipboard: select the link and copy it.".into(),
            });
        });
    };
    view! {
        <link rel="stylesheet" href="parts/share.css"/>
        <div class="share-panel" role="group" aria-label="Share" data-testid="share-panel">
            <fieldset>
                <legend>"The link holds"</legend>
                <label><input type="radio" name="share-scope" data-testid="share-scope-run" prop:checked=move || is(Scope::Run, None)
                    on:change=move |_| choose(|c| c.scope = Scope::Run)/>" the run shown"</label>
                <label><input type="radio" name="share-scope" data-testid="share-scope-conversation" prop:checked=move || is(Scope::Conversation, None)
                    on:change=move |_| choose(|c| c.scope = Scope::Conversation)/>{move || format!(" the whole conversation ({} run{})", runs(), if runs() == 1 { "" } else { "s" })}</label>
            </fieldset>
            <fieldset>
                <legend>"Observations"</legend>
                <label><input type="radio" name="share-observations" data-testid="share-whole" prop:checked=move || sharing.with(|s| s.choice.observations == Observations::Whole)
                    on:change=move |_| choose(|c| c.observations = Observations::Whole)/>" whole"</label>
                <label><input type="radio" name="share-observations" data-testid="share-cut" prop:checked=move || sharing.with(|s| s.choice.observations == Observations::Cut)
                    on:change=move |_| choose(|c| c.observations = Observations::Cut)/>{format!(" cut to {} characters each (the requests sent to the model are left out)", crate::agent::trace::row::grouped(CUT_CHARS))}</label>
            </fieldset>
            {move || sharing.with(|s| match (&s.link, s.fit()) {
                (None, _) => view! { <p class="share-size" role="status">"Making the link…"</p> }.into_any(),
                (Some(Err(why)), _) => view! { <p class="share-size error" role="alert" data-testid="share-error">{why.clone()}</p> }.into_any(),
                (Some(Ok(link)), Some((chars, fit))) => {
                    let says = fit.says(chars);
                    if fit == Fit::TooLong {
                        view! { <p class="share-size too-long" role="status" data-testid="share-size">{says}</p> }.into_any()
                    } else {
                        let link = link.clone();
                        view! {
                            <p class="share-size" role="status" data-testid="share-size">{says}</p>
                            <div class="share-row">
                                <input type="text" readonly=true data-testid="share-link" aria-label="The link" prop:value=link on:focus=select_all/>
                                <button class="primary small" data-testid="share-copy" on:click=copy>"Copy link"</button>
                            </div>
                        }.into_any()
                    }
                }
                (Some(Ok(_)), None) => ().into_any(),
            })}
            <p class="share-copied" role="status">{move || copied.get()}</p>
            <p class="hint">"Keys are masked, as in an export. The run travels in the link itself, on no server: anyone who has the link can read it. Too long to send? Save as HTML or Export JSON send it as a file."</p>
            <button class="ghost small" data-testid="share-close" on:click=move |_| on_close.run(())>"Close"</button>
        </div>
    }
}

fn select_all(ev: leptos::ev::FocusEvent) {
    crate::ui::services::dom::select_all(&ev);
}

/// What the page opened with a link shows while it reads it, and then.
#[derive(Clone)]
enum Reading {
    Unpacking,
    Read(Opened),
    Failed(String),
}

/// Reads a link's fragment: its envelope, then the browser's unpacking (bounded), then the
/// record, as an export file is read (by the import part).
async fn read_link(fragment: &str) -> Result<Opened, String> {
    use crate::app::share::{cut_at, opened, unreadable, LinkError};
    let packed = crate::app::share::read_fragment(fragment).map_err(|e| e.message())?;
    let text = crate::ui::services::page::unpack(&packed).await.map_err(|e| e.message())?;
    let text = String::from_utf8(text).map_err(|_| LinkError::Altered.message())?;
    let cut = cut_at(&text);
    let read = crate::ui::services::files::import_text(text).await.map_err(|missing| missing.message("The shared run"))?;
    Ok(opened(read.map_err(unreadable)?, cut))
}

/// A shared run, read-only: the conversation, its trace with the timeline, Compare runs, Copy as
/// Markdown and the OpenTelemetry file. Nothing runs, no model is asked, no key is needed and
/// nothing is stored, until "Keep a copy" imports it as a chat of this browser.
#[component]
fn SharedView(fragment: String, on_keep: fn(Conversation)) -> impl IntoView {
    let reading = RwSignal::new(Reading::Unpacking);
    // Kept: this view's page goes, and the app comes with the copy. Its nodes are taken out,
    // but what drives them is not disposed: a step still being drawn or indexed for the find
    // bar (timers, frames) would otherwise reach signals that are gone, and stop the page.
    let root = NodeRef::<leptos::html::Div>::new();
    let on_keep = Callback::new(move |copy: Conversation| {
        if let Some(root) = root.get_untracked() {
            root.remove();
        }
        crate::ui::services::page::forget_fragment();
        on_keep(copy);
    });
    leptos::task::spawn_local(async move {
        reading.set(match read_link(&fragment).await {
            Ok(opened) => Reading::Read(opened),
            Err(why) => Reading::Failed(why),
        });
    });
    let plain = crate::ui::services::page::address().split('#').next().unwrap_or("").to_string();
    view! {
        <link rel="stylesheet" href="parts/share.css"/>
        <div class="app shared" data-testid="shared-view" node_ref=root>
            <header class="topbar">
                <div class="brand">
                    <img src="icons/logo.svg" alt="" width="28" height="28"/>
                    <h1>"Thoughtline"</h1>
                    <span class="tagline">"A shared run, read-only"</span>
                </div>
                <div class="topbar-actions">
                    <a class="ghost button-link" href=plain data-testid="shared-leave">"Open my own chats"</a>
                </div>
            </header>
            {move || match reading.get() {
                Reading::Unpacking => view! { <p class="shared-status" role="status">"Opening the shared run…"</p> }.into_any(),
                Reading::Failed(why) => view! {
                    <div class="shared-status notice error" role="alert" data-testid="shared-error">{why}</div>
                }.into_any(),
                Reading::Read(opened) => view! { <SharedRun opened on_keep/> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn SharedRun(opened: Opened, on_keep: Callback<Conversation>) -> impl IntoView {
    let note = opened.note();
    let chat = RwSignal::new(opened.chat);
    let running = RwSignal::new(false).read_only();
    let (streaming, progress) = (RwSignal::new(String::new()).read_only(), RwSignal::new(String::new()).read_only());
    let sent = RwSignal::new(Vec::new()).read_only();
    // The settings a shared run's tools read: the defaults, with no key (a link never changes the
    // person's settings, nor reads them).
    let settings = RwSignal::new(Settings::default()).read_only();
    let status = RwSignal::new(String::new());
    let comparing = RwSignal::new(false);
    let asked = RwSignal::new(0u32);
    let on_compare_runs = Callback::new(move |_: ()| {
        comparing.set(true);
        asked.update(|n| *n += 1);
    });
    let toolbar = crate::ui::widgets::trace::tools::Toolbar::new(chat, settings, running, status, HERE);
    let messages = Memo::new(move |_| chat.with(Conversation::messages));
    let keep = move |_| on_keep.run(chat.get_untracked());
    let runs = chat.with_untracked(|c| c.runs.len());
    view! {
        <div class="shared-bar">
            <p>{format!("{}: {runs} run{} shared with you. Nothing here runs or is stored.", chat.with_untracked(Conversation::title), if runs == 1 { "" } else { "s" })}</p>
            {note.map(|note| view! { <p class="shared-note" data-testid="shared-note">{note}</p> })}
            <button class="primary small" data-testid="keep-copy" on:click=keep title="Import it as a chat of this browser, beside your own">"Keep a copy"</button>
            <button class="ghost small" aria-pressed=move || comparing.get().to_string() on:click=move |_| comparing.update(|c| *c = !*c)>
                {move || if comparing.get() { "← The run" } else { "⇆ Compare runs" }}
            </button>
        </div>
        <main class="layout shared-layout" hidden=move || comparing.get()>
            <section class="chat" aria-label="Chat">
                <ol class="messages" data-testid="messages">{crate::ui::widgets::bubbles::bubbles(messages, chat, running)}</ol>
            </section>
            <crate::ui::widgets::trace::TracePane chat streaming running progress sent on_compare_runs>
                <div class="trace-tools" role="toolbar" aria-label="Trace actions">
                    {crate::ui::services::parts::part_view("trace_rows", move || Box::pin(crate::ui::widgets::trace::rows_part(crate::ui::widgets::trace::Shown::Tools(toolbar))), None, crate::ui::services::parts::Around::Nothing)}
                    <span class="status" role="status" data-testid="trace-status">{move || status.get()}</span>
                </div>
            </crate::ui::widgets::trace::TracePane>
        </main>
        <div class="compare-view" hidden=move || !comparing.get()>
            <Show when=move || comparing.get()>
                <crate::ui::widgets::runs::RunsCompare chat settings asked=asked.read_only()/>
            </Show>
        </div>
    }
}
