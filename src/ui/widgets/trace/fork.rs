//! Changing a step and running on from there, in the trace: a row's "Change" opens its editor
//! (the step's own text, which settings to run with, Run from here), a model reply's "Ask
//! again" runs the same request for a new reply, and the row where a run's branches part shows
//! "branch N of M" with a way to switch. The state is the app's (`app::fork::ForkEditor`,
//! `conversation::Run::fork`); this file shows it and hands the run to the chat's session.

use leptos::prelude::*;

use crate::agent::fork::{can_ask_again, Editable, ForkSettings};
use crate::agent::trace::LlmPurpose;
use crate::agent::{Event, EventKind};
use crate::app::fork::{ask_again, recorded, ForkEditor, ForkPlan};
use crate::conversation::Conversation;
use crate::ui::services::session::Session;

/// What the trace's rows share to change a step: the chat's session (which runs the branch; none
/// where nothing runs, as in a shared run's view, whose rows offer only the branch switcher),
/// the one editor open, and what went wrong last.
#[derive(Clone, Copy)]
pub struct Forking {
    pub session: Option<Session>,
    pub chat: RwSignal<Conversation>,
    pub running: ReadSignal<bool>,
    editor: RwSignal<Option<ForkEditor>>,
    error: RwSignal<Option<String>>,
    /// Where the shown run's branches part, and which one is shown: (event, line, lines).
    switcher: Memo<Option<(usize, usize, usize)>>,
}

impl Forking {
    pub fn new(session: Option<Session>, chat: RwSignal<Conversation>, running: ReadSignal<bool>) -> Self {
        let switcher = Memo::new(move |_| {
            chat.with(|c| {
                let run = c.shown_run()?;
                Some((run.switcher_at()?, run.shown_number(), run.lines()))
            })
        });
        Forking { session, chat, running, editor: RwSignal::new(None), error: RwSignal::new(None), switcher }
    }

    /// The shown run, its shown line, and whether its steps can be changed.
    fn shown(self) -> Option<(usize, usize)> {
        self.chat.with_untracked(|c| {
            let at = c.shown()?;
            let run = &c.runs[at];
            run.steps_kept.then(|| (at, run.shown_number()))
        })
    }

    /// Makes the branch and runs it; what stops it is shown by the row.
    fn run(self, plan: ForkPlan) {
        let ForkPlan { run, ask, settings, tools } = plan;
        let Some(session) = self.session else { return };
        match session.branch(run, settings, tools, move |c| c.fork(run, ask)) {
            Ok(()) => {
                self.editor.set(None);
                self.error.set(None);
            }
            Err(why) => self.error.set(Some(why)),
        }
    }
}

/// The controls a row of event `event` gets: Change (and its editor), Ask again, and the
/// branch switcher where the run's branches part. `None` for a row that offers none.
pub fn row_controls(forking: Forking, event: &Event) -> Option<AnyView> {
    let index = event.index as usize;
    let (Some(session), Some((run, line))) = (forking.session, forking.shown()) else { return switcher(forking, index) };
    let (editable, again) = forking.chat.with_untracked(|c| {
        let events = c.runs.get(run).map_or(&[][..], |r| r.shown_line().events);
        let at = events.iter().position(|e| e.index as usize == index).unwrap_or(usize::MAX);
        let editable = match &event.kind {
            // The decision repeats the reply it was read from: Change sits on the reply.
            EventKind::Decided { .. } => None,
            _ => Editable::at(events, at),
        };
        let again = matches!(event.kind, EventKind::LlmResponse { .. }) && can_ask_again(events, at) && step_call(events, at);
        (editable, again)
    });
    if editable.is_none() && !again {
        return switcher(forking, index);
    }
    let open = move || forking.editor.with(|e| e.as_ref().is_some_and(|e| (e.run, e.line, e.event) == (run, line, index)));
    let idle = move || !forking.running.get();
    let change = move |_| {
        let editor = forking.chat.with_untracked(|c| c.runs.get(run).and_then(|r| ForkEditor::open(run, line, r.shown_line().events, index)));
        forking.error.set(None);
        forking.editor.set(editor);
    };
    let ask = move |_| {
        let settings = session.settings().get_untracked();
        let plan = forking
            .chat
            .with_untracked(|c| c.runs.get(run).map(|r| ask_again(run, r.shown_line().events, index, ForkSettings::Run, &settings, &crate::ui::services::secrets::collect(&settings))))
            .unwrap_or_else(|| Err("That run is no longer in this chat.".into()));
        forking.editor.set(None);
        match plan {
            Ok(plan) => forking.run(plan),
            Err(why) => forking.error.set(Some(why)),
        }
    };
    let what = match &editable {
        Some(Editable::Question(_)) => "the question",
        Some(Editable::Reply(_)) => "the model's reply",
        Some(Editable::ToolInput { .. }) => "the tool's input",
        Some(Editable::Observation { .. }) => "what the tool answered",
        None => "",
    };
    Some(view! {
        <Show when=idle>
            <div class="fork-actions">
                {editable.is_some().then(|| view! {
                    <button class="link small" data-testid="fork-step" aria-expanded=move || open().to_string()
                        title=format!("Change {what} and run on from here; the run as it was stays") on:click=change>"✎ Change and run from here"</button>
                })}
                {again.then(|| view! {
                    <button class="link small" data-testid="ask-again" title="The same request again, for a new reply, in a branch of its own" on:click=ask>"↻ Ask this step again"</button>
                })}
            </div>
        </Show>
        <Show when=move || open() && idle()>
            {editor(forking, session, what)}
        </Show>
        {switcher(forking, index)}
    }
    .into_any())
}

/// Whether reply `at` answers one of the agent's own step requests (not a tool's own call).
fn step_call(events: &[Event], at: usize) -> bool {
    events.get(..at).unwrap_or_default().iter().rev().find_map(|e| match &e.kind {
        EventKind::LlmRequest { purpose, .. } => Some(*purpose == LlmPurpose::Step),
        _ => None,
    }) == Some(true)
}

/// The open editor: the step's text to change, which settings to run with, Run from here.
fn editor(forking: Forking, session: Session, what: &'static str) -> AnyView {
    let Forking { editor, error, chat, .. } = forking;
    let text = move || editor.with(|e| e.as_ref().map(|e| e.text.clone()).unwrap_or_default());
    let which = move || editor.with(|e| e.as_ref().map_or(ForkSettings::Run, |e| e.settings));
    let set_text = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        editor.update(|e| {
            if let Some(e) = e {
                e.text = value;
            }
        });
    };
    let choose = move |settings: ForkSettings| editor.update(|e| {
        if let Some(e) = e {
            e.settings = settings;
        }
    });
    // What each choice runs with, said plainly.
    let own = move || {
        editor
            .with(|e| {
                let e = e.as_ref()?;
                chat.with_untracked(|c| {
                    let line = c.runs.get(e.run)?.line(e.line)?;
                    recorded(line.events, e.event).map(|r| format!("{} · {}, {}", r.model.provider, r.model.model, r.strategy.label()))
                })
            })
            .unwrap_or_else(|| "as recorded".into())
    };
    let now = move || session.settings().with(|s| format!("{} · {}, {}", s.provider.preset.id(), s.provider.model, s.agent.strategy.label()));
    let run = move |_| {
        let Some(open) = editor.get_untracked() else { return };
        let settings = session.settings().get_untracked();
        let plan = chat.with_untracked(|c| c.runs.get(open.run).and_then(|r| r.line(open.line)).map(|l| open.plan(&settings, &crate::ui::services::secrets::collect(&settings), l.events)));
        match plan {
            Some(Ok(plan)) => forking.run(plan),
            Some(Err(why)) => error.set(Some(why)),
            None => error.set(Some("That run is no longer in this chat.".into())),
        }
    };
    view! {
        <link rel="stylesheet" href="parts/fork.css"/>
        <div class="fork-editor" data-testid="fork-editor">
            <label class="fork-label">
                {format!("Change {what}; the agent runs on from here in a new branch, and the run as it was stays.")}
                <textarea data-testid="fork-text" rows="6" prop:value=text on:input=set_text></textarea>
            </label>
            <fieldset class="fork-settings">
                <legend>"Run on with"</legend>
                <label>
                    <input type="radio" name="fork-settings" data-testid="fork-settings-run" prop:checked=move || which() == ForkSettings::Run on:change=move |_| choose(ForkSettings::Run)/>
                    " the run's own settings "<span class="hint">{own}</span>
                </label>
                <label>
                    <input type="radio" name="fork-settings" data-testid="fork-settings-now" prop:checked=move || which() == ForkSettings::Now on:change=move |_| choose(ForkSettings::Now)/>
                    " the settings as they are now "<span class="hint">{now}</span>
                </label>
            </fieldset>
            <div class="fork-buttons">
                <button class="primary small" data-testid="fork-run" on:click=run>"Run from here"</button>
                <button class="ghost small" data-testid="fork-cancel" on:click=move |_| { editor.set(None); error.set(None); }>"Cancel"</button>
            </div>
            {move || error.get().map(|why| view! { <p class="fork-error" role="alert" data-testid="fork-error">{why}</p> })}
        </div>
    }
    .into_any()
}

/// "Branch N of M" with the way to the others, on the row where the shown run's branches part.
fn switcher(forking: Forking, index: usize) -> Option<AnyView> {
    let here = move || forking.switcher.with(|s| s.is_some_and(|(at, _, _)| at == index));
    let label = move || forking.switcher.with(|s| s.map(|(_, n, of)| format!("branch {} of {of}", n + 1)).unwrap_or_default());
    let go = move |step: isize| {
        let Some((_, n, of)) = forking.switcher.get_untracked() else { return };
        let Some(run) = forking.chat.with_untracked(Conversation::shown) else { return };
        let next = (n as isize + step).rem_euclid(of as isize) as usize;
        match forking.session {
            Some(session) => session.show_branch(run, next),
            // Where nothing runs or is stored, switching only changes what is shown.
            None => {
                forking.chat.update(|c| {
                    c.show_branch(run, next);
                });
            }
        }
    };
    Some(view! {
        <Show when=here>
            <div class="branch-switcher" data-testid="branch-switcher" role="group" aria-label="Branches of this run">
                <button class="ghost small" data-testid="branch-prev" aria-label="Previous branch" disabled=move || forking.running.get() on:click=move |_| go(-1)>"‹"</button>
                <span data-testid="branch-label">{label}</span>
                <button class="ghost small" data-testid="branch-next" aria-label="Next branch" disabled=move || forking.running.get() on:click=move |_| go(1)>"›"</button>
            </div>
        </Show>
    }
    .into_any())
}

/// What went wrong with the last change or "ask again", under the trace's list.
pub fn fork_error(forking: Forking) -> impl IntoView {
    move || {
        let editing = forking.editor.with(Option::is_some);
        (!editing).then(|| forking.error.get().map(|why| view! { <p class="fork-error" role="alert" data-testid="fork-error">{why}</p> })).flatten()
    }
}
