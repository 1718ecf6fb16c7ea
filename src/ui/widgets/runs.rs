//! Compare two runs that already happened: any two runs of the open conversation, or a run
//! and one from an exported file, side by side with their steps aligned by step number and
//! what differs marked (`agent::trace::align`). Nothing is re-run. Part of Compare, so it is
//! fetched with it.

use leptos::prelude::*;

use crate::agent::trace::align::{align, Aligned, StepView};
use crate::agent::trace::row::{characters, preview};
use crate::agent::Event;
use crate::conversation::Conversation;
use crate::app::settings::Settings;

/// Where a run a person can pick is: a run of the open conversation, or one from a file.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    /// A run of the conversation and one of its lines (0: the run as first asked).
    Chat(usize, usize),
    File(usize),
}

#[derive(Clone, PartialEq)]
struct Choice {
    label: String,
    source: Source,
    /// How many events it holds: an identity cheap to compare while a run elsewhere goes on.
    len: usize,
}

/// A run from a file: its label and its events.
type FileRun = (String, Vec<Event>);

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn file_runs(chat: &Conversation, from: &str) -> Vec<FileRun> {
    chat.runs.iter().enumerate().filter(|(_, r)| r.steps_kept && !r.events.is_empty()).map(|(i, r)| (format!("{from}{}: {}", i + 1, r.question), r.events.clone())).collect()
}

#[component]
pub fn RunsCompare(chat: RwSignal<Conversation>, settings: ReadSignal<Settings>, asked: ReadSignal<u32>) -> impl IntoView {
    let files = RwSignal::new(Vec::<FileRun>::new());
    let status = RwSignal::new(String::new());
    // The runs that have ended, by label; no event is copied, so a live run elsewhere costs a
    // look at each run's outcome per event, nothing more.
    // Every branch of a run is a run to compare.
    let choices = Memo::new(move |_| {
        let mut all: Vec<Choice> = chat.with(|c| {
            c.runs
                .iter()
                .enumerate()
                .filter(|(_, r)| r.steps_kept)
                .flat_map(|(i, r)| (0..r.lines()).filter_map(move |n| r.line(n).map(|line| (i, r.lines(), line))))
                .filter(|(_, _, line)| line.outcome.is_some() && !line.events.is_empty())
                .map(|(i, lines, line)| {
                    let label = if lines > 1 { format!("Question {}, branch {}: {}", i + 1, line.number + 1, line.question) } else { format!("Question {}: {}", i + 1, line.question) };
                    Choice { label, source: Source::Chat(i, line.number), len: line.events.len() }
                })
                .collect()
        });
        files.with(|f| all.extend(f.iter().enumerate().map(|(i, (label, events))| Choice { label: label.clone(), source: Source::File(i), len: events.len() })));
        all
    });
    // A branch shown in the chat and the line it came from; else the two latest runs. Until
    // the person picks others.
    let a = RwSignal::new(None::<usize>);
    let b = RwSignal::new(None::<usize>);
    let branch_pair = Memo::new(move |_| {
        let (run, line, parent) = chat.with(|c| {
            let run = c.shown()?;
            let line = c.runs[run].shown_line();
            Some((run, line.number, line.fork?.0))
        })?;
        choices.with(|all| {
            let at = |n: usize| all.iter().position(|c| c.source == Source::Chat(run, n));
            Some((at(parent)?, at(line)?))
        })
    });
    let picked = move |side: RwSignal<Option<usize>>, fallback_back: usize| {
        let n = choices.with(Vec::len);
        let default = branch_pair.get().map(|(p, l)| if fallback_back == 2 { p } else { l });
        side.get().filter(|i| *i < n).or(default).or_else(|| n.checked_sub(fallback_back))
    };
    let pair = Memo::new(move |_| {
        let (l, r) = (picked(a, 2), picked(b, 1));
        choices.with(|all| Some((all.get(l?)?.clone(), all.get(r?)?.clone())))
    });
    // Aligned again only when the pair changes.
    let aligned = Memo::new(move |_| {
        let (x, y) = pair.get()?;
        let events = |c: &Choice| match c.source {
            Source::Chat(i, n) => chat.with_untracked(|chat| chat.runs.get(i).and_then(|r| r.line(n)).map(|l| l.events.to_vec()).unwrap_or_default()),
            Source::File(i) => files.with_untracked(|f| f.get(i).map(|(_, e)| e.clone()).unwrap_or_default()),
        };
        // A branch and the line it came from are aligned from the fork on: before it they are
        // the same steps.
        let from = match (x.source, y.source) {
            (Source::Chat(i, p), Source::Chat(j, l)) if i == j => chat.with_untracked(|c| {
                let fork = |child: usize, parent: usize| c.runs[i].line(child).and_then(|line| line.fork).filter(|(of, _)| *of == parent).map(|(_, at)| at);
                fork(l, p).or_else(|| fork(p, l)).unwrap_or(0)
            }),
            _ => 0,
        };
        let (x, y) = (events(&x), events(&y));
        Some(align(&x[from.min(x.len())..], &y[from.min(y.len())..]))
    });
    let section = NodeRef::<leptos::html::Section>::new();
    // Opened from the trace's "Compare runs": brought into view.
    Effect::new(move |first: Option<()>| {
        asked.track();
        if first.is_some() || asked.get_untracked() > 0 {
            if let Some(el) = section.get() {
                el.scroll_into_view();
            }
        }
    });
    let add_file = move |ev: leptos::ev::Event| {
        let input = crate::ui::services::page::chosen(&ev);
        read_file(input, files, status, settings);
    };
    let select = move |side: RwSignal<Option<usize>>, back: usize, id: &'static str| {
        view! {
            <select data-testid=id on:change=move |ev| side.set(event_target_value(&ev).parse().ok())>
                {move || choices.with(|all| all.iter().enumerate().map(|(i, c)| {
                    view! { <option value=i.to_string() selected=picked(side, back) == Some(i)>{c.label.clone()}</option> }
                }).collect_view())}
            </select>
        }
    };
    view! {
        // Its styles come with it (the first load carries none of them).
        <link rel="stylesheet" href="parts/compare.css"/>
        <section class="runs-compare" aria-labelledby="runs-compare-title" data-testid="runs-compare" node_ref=section>
            <h2 id="runs-compare-title">"Compare two runs that happened"</h2>
            <p class="hint">"Pick two answers of this conversation, or add the runs of an exported file. Steps are aligned by number; what differs is marked ≠."</p>
            <div class="runs-pick">
                <label>"Run A" {select(a, 2, "runs-compare-a")}</label>
                <label>"Run B" {select(b, 1, "runs-compare-b")}</label>
                <label class="ghost small file-button">
                    "Add runs from a file…"
                    <input type="file" accept="application/json,.json" data-testid="runs-compare-file" class="visually-hidden" on:change=add_file/>
                </label>
                <span class="status" role="status" data-testid="runs-compare-status">{move || status.get()}</span>
            </div>
            {move || match aligned.get() {
                None => view! { <p class="placeholder" data-testid="runs-compare-empty">"Two runs with their steps are needed: ask a second question, or add a file."</p> }.into_any(),
                Some(steps) => view! { <AlignedTable steps/> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn AlignedTable(steps: Vec<Aligned>) -> impl IntoView {
    let differing: Vec<String> = steps.iter().filter(|s| s.differs.any()).map(|s| format!("step {} ({})", s.step, s.differs.names().collect::<Vec<_>>().join(", "))).collect();
    let verdict = if differing.is_empty() { "The two runs did the same in every step.".to_string() } else { format!("They differ in {}.", differing.join("; ")) };
    view! {
        <p data-testid="runs-compare-verdict">{verdict}</p>
        <div class="aligned-wrap">
            <table class="aligned" data-testid="runs-compare-table">
                <thead><tr><th scope="col">"Step"</th><th scope="col">"Run A"</th><th scope="col">"Run B"</th></tr></thead>
                <tbody>
                    {steps.into_iter().map(|s| {
                        let d = s.differs;
                        view! {
                            <tr data-testid="aligned-step" class:differs=d.any() data-step=s.step>
                                <th scope="row">{s.step}</th>
                                <td>{side(s.a.as_ref(), d)}</td>
                                <td>{side(s.b.as_ref(), d)}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// One run's step as a list of fields, each marked when it differs from the other run's.
fn side(step: Option<&StepView>, d: crate::agent::trace::align::Differs) -> AnyView {
    let Some(s) = step else { return view! { <span class="hint">"(no such step)"</span> }.into_any() };
    let short = |t: &str| {
        let p = preview(t);
        if p.is_cut() { format!("{} … ({})", p.shown, characters(t.chars().count())) } else { t.to_string() }
    };
    let mut fields: Vec<(&'static str, &'static str, String, bool)> = Vec::new();
    if let Some(t) = &s.thought {
        fields.push(("thought", "Thought", short(t), false));
    }
    if let Some(t) = &s.tool {
        fields.push(("tool", "Tool", t.clone(), d.tool));
    }
    if let Some(i) = &s.input {
        fields.push(("input", "Input", short(i), d.input));
    }
    if let Some(o) = &s.observation {
        fields.push(("observation", "Observation", short(o), d.observation));
    }
    if let Some(a) = &s.answer {
        fields.push(("answer", "Answer", short(a), d.answer));
    }
    for e in &s.errors {
        fields.push(("error", "Error", e.clone(), false));
    }
    fields.push(("tokens", "Tokens", format!("{} + {}", s.prompt_tokens, s.completion_tokens), d.tokens));
    fields.push(("time", "Time", format!("{:.0} ms", s.ms), d.time));
    view! {
        <dl class="aligned-fields">
            {fields.into_iter().map(|(id, label, text, differs)| view! {
                <div class="field" class:differs=differs data-field=id data-differs=differs.to_string()>
                    <dt>{label}{differs.then(|| view! { <span class="differs-mark" title="differs from the other run">" ≠"</span><span class="visually-hidden">" (differs)"</span> })}</dt>
                    <dd>{text}</dd>
                </div>
            }).collect_view()}
        </dl>
    }
    .into_any()
}

#[cfg(target_arch = "wasm32")]
fn read_file(input: crate::ui::services::page::Chosen, files: RwSignal<Vec<FileRun>>, status: RwSignal<String>, settings: ReadSignal<Settings>) {
    leptos::task::spawn_local(async move {
        let name = input.name();
        let result = match input.read(crate::ui::services::files::IMPORT_LIMIT_BYTES).await {
            Ok(text) => crate::ui::services::files::import_text(text).await.unwrap_or_else(|missing| Err(missing.message("Import"))),
            Err(e) => Err(e),
        };
        input.clear();
        match result {
            Ok(mut chat) => {
                // Masked like any import: a key of ours in a shared file is never shown.
                chat.mask(&settings.with_untracked(crate::ui::services::secrets::collect));
                let added = file_runs(&chat, &format!("{name} · run "));
                status.set(format!("Added {} run{} from {name}.", added.len(), if added.len() == 1 { "" } else { "s" }));
                files.update(|f| f.extend(added));
            }
            Err(e) => status.set(e),
        }
    });
}

#[cfg(not(target_arch = "wasm32"))]
fn read_file(_input: crate::ui::services::page::Chosen, _files: RwSignal<Vec<FileRun>>, status: RwSignal<String>, _settings: ReadSignal<Settings>) {
    status.set("Reading a file needs a browser.".into());
}
