//! Finding your way in a long trace: a search over the shown steps (matches marked, next and
//! previous, a count), a filter by kind, "Expand all"/"Collapse all", "Next error", and keys
//! to move between steps. What matches and what a filter keeps is decided by
//! `agent::trace::find`; this file only wires it to the pane.
//!
//! Keys, when the focus is in the trace and not in a text field (so the composer never sees
//! them): `/` search, `j`/`↓` next step, `k`/`↑` previous step, `Home`/`End` first and last,
//! `Enter` show all or less of the step, `e` next error, `n`/`N` next and previous match,
//! `Esc` (in the search box) clears it.

use leptos::prelude::*;

use crate::agent::trace::find::{step_match, Filter, SearchIndex};

use super::steps::Steps;
use crate::ui::services::dom::{focus_search, highlight, move_focus, next_error, row_element, scroll_to, toggle_focused, typing};

/// What the pane shows of its steps, shared by the toolbar and the rows.
/// Events indexed per task ahead of a search: about 10 ms of work.
const INDEX_SLICE: usize = 250;

#[derive(Clone, Copy)]
pub struct Look {
    pub filter: RwSignal<Filter>,
    pub query: RwSignal<String>,
    /// The matching events, by index, in trace order.
    pub matches: RwSignal<Vec<u32>>,
    /// Which match is current (a position in `matches`).
    pub at: RwSignal<Option<usize>>,
    /// The current match's event.
    pub current_event: Memo<Option<u32>>,
    /// Bumped by "Expand all"/"Collapse all": (how many times, whether open).
    pub expand: RwSignal<(u32, bool)>,
    /// Bumped when the pane scrolls: the marks follow what is on screen.
    pub scrolled: Trigger,
    /// The pane's keys, once the find bar (a part of the page fetched after the first screen)
    /// has arrived.
    pub keys: StoredValue<Option<Callback<leptos::ev::KeyboardEvent>>>,
    index: StoredValue<SearchIndex, LocalStorage>,
    marks: StoredValue<std::collections::HashMap<u32, Marks>, LocalStorage>,
}

/// Whether a row matches the search, and whether it is the current match.
#[derive(Clone, Copy, PartialEq)]
pub struct Marks {
    pub hit: RwSignal<bool>,
    pub current: RwSignal<bool>,
}

impl Look {
    /// `scrolled` is notified when the pane scrolls (the marks follow what is on screen).
    pub fn new(scrolled: Trigger) -> Look {
        let matches = RwSignal::new(Vec::new());
        let at = RwSignal::new(None::<usize>);
        let current_event = Memo::new(move |_| at.get().and_then(|i| matches.with(|m| m.get(i).copied())));
        Look {
            filter: RwSignal::new(Filter::All),
            query: RwSignal::new(String::new()),
            matches,
            at,
            current_event,
            expand: RwSignal::new((0, false)),
            scrolled,
            keys: StoredValue::new(None),
            index: StoredValue::new_local(SearchIndex::default()),
            marks: StoredValue::new_local(Default::default()),
        }
    }

    /// A row's marks, kept up to date by the find bar. Each row has its own pair of signals, so
    /// a keystroke touches only the rows whose marks change (thousands of rows all reading the
    /// matches would each be checked at every keystroke).
    pub fn marks_for(self, index: u32) -> Marks {
        let marks = Marks {
            hit: RwSignal::new(self.matches.with_untracked(|m| m.binary_search(&index).is_ok())),
            current: RwSignal::new(self.current_event.get_untracked() == Some(index)),
        };
        self.marks.update_value(|all| {
            all.insert(index, marks);
        });
        let registry = self.marks;
        on_cleanup(move || {
            // Another trace's row of the same index may have taken the slot meanwhile.
            registry.update_value(|all| {
                if all.get(&index) == Some(&marks) {
                    all.remove(&index);
                }
            });
        });
        marks
    }

    fn mark(self, index: u32, f: impl FnOnce(Marks)) {
        if let Some(marks) = self.marks.with_value(|all| all.get(&index).copied()) {
            f(marks);
        }
    }

    /// Searches the shown steps again: after a keystroke, a filter change, or new events.
    fn search(self, trace: Steps) {
        let query = self.query.get_untracked();
        if query.trim().is_empty() {
            if self.matches.with_untracked(|m| !m.is_empty()) {
                self.matches.set(Vec::new());
            }
            self.at.set(None);
            return;
        }
        let found = trace.with_untracked(|events| {
            // Only the steps that have rows (the pane draws the last `MAX_ROWS`).
            let events = &events[events.len().saturating_sub(crate::ui::widgets::trace::steps::MAX_ROWS)..];
            self.index.update_value(|index| index.extend(events));
            self.index.with_value(|index| index.find(&query, self.filter.get_untracked()))
        });
        // Stay on the same event when it still matches (a live run adds events; the filter
        // changed); otherwise start at the first.
        let keep = self.current_event.get_untracked().and_then(|e| found.iter().position(|i| *i == e));
        let changed = self.matches.with_untracked(|m| *m != found);
        if changed {
            self.matches.set(found);
        }
        let at = keep.or(if self.matches.with_untracked(Vec::is_empty) { None } else { Some(0) });
        if at != self.at.get_untracked() || changed {
            self.at.set(at);
        }
    }

    /// Indexes the shown steps a slice per task, so the first keystroke in a long trace does
    /// not pay for all of them at once.
    fn prepare(self, trace: Steps) {
        let done = trace.with_untracked(|events| {
            let events = &events[events.len().saturating_sub(crate::ui::widgets::trace::steps::MAX_ROWS)..];
            let mut done = false;
            self.index.update_value(|index| done = index.extend_some(events, INDEX_SLICE));
            done
        });
        if !done {
            crate::ui::services::page::after(std::time::Duration::ZERO, move || self.prepare(trace));
        }
    }

    fn step(self, forward: bool) {
        let count = self.matches.with_untracked(Vec::len);
        self.at.set(step_match(self.at.get_untracked(), count, forward));
    }

    /// The pane's keydown: handled by the find bar once it is there.
    pub fn on_key(self, ev: leptos::ev::KeyboardEvent) {
        if let Some(keys) = self.keys.get_value() {
            keys.run(ev);
        }
    }
}

/// What the find bar works with beside the steps: the pane, its timeline switch, and the way to
/// Compare runs when the pane's owner offers one.
#[derive(Clone, Copy)]
pub struct Beside {
    pub pane: NodeRef<leptos::html::Section>,
    pub as_timeline: RwSignal<bool>,
    pub on_compare_runs: Option<Callback<()>>,
}

crate::ui::services::parts::part!(find_bar, preload = preload_find_bar, pub fn find_bar(trace: Steps, look: Look, beside: Beside) -> AnyView {
    let pane = beside.pane;
    look.keys.set_value(Some(Callback::new(move |ev: leptos::ev::KeyboardEvent| on_pane_key(&ev, pane, look))));
    // In the toolbar, so the pane keeps one row above its first step.
    match crate::ui::services::dom::find_bar_place(pane) {
        Some(place) => {
            crate::ui::services::dom::draw_in(place, move || view! { <FindBar trace look beside/> }.into_any());
            ().into_any()
        }
        None => view! { <FindBar trace look beside/> }.into_any(),
    }
});

#[component]
fn FindBar(trace: Steps, look: Look, beside: Beside) -> impl IntoView {
    let Beside { pane, as_timeline, on_compare_runs } = beside;
    let input = NodeRef::<leptos::html::Input>::new();
    // Searched again when the query, the filter or the trace changes.
    Effect::new(move |_| {
        look.query.track();
        look.filter.track();
        trace.track();
        look.search(trace);
    });
    // The rows whose marks changed are told so, and only they.
    Effect::new(move |before: Option<Vec<u32>>| {
        let now = look.matches.get();
        let before = before.unwrap_or_default();
        for index in before.iter().filter(|i| now.binary_search(i).is_err()) {
            look.mark(*index, |m| m.hit.set(false));
        }
        for index in now.iter().filter(|i| before.binary_search(i).is_err()) {
            look.mark(*index, |m| m.hit.set(true));
        }
        now
    });
    Effect::new(move |before: Option<Option<u32>>| {
        let now = look.current_event.get();
        if let Some(old) = before.flatten().filter(|old| Some(*old) != now) {
            look.mark(old, |m| m.current.set(false));
        }
        if let Some(new) = now {
            look.mark(new, |m| m.current.set(true));
        }
        now
    });
    // The current match is brought into view (and, being current, shown whole).
    Effect::new(move |_| {
        if let Some(index) = look.current_event.get() {
            crate::ui::services::page::next_frame(move || {
                if let Some(row) = row_element(pane, index) {
                    scroll_to(&row);
                }
            });
        }
    });
    // Matched words are marked once typing pauses (`highlight`).
    let marked = StoredValue::new(0u32);
    Effect::new(move |_| {
        look.matches.track();
        look.at.track();
        look.scrolled.track();
        let query = look.query.get_untracked();
        let ticket = marked.get_value().wrapping_add(1);
        marked.set_value(ticket);
        crate::ui::services::page::after(std::time::Duration::from_millis(120), move || {
            // The find bar may be gone by then (another chat opened): nothing to mark.
            if marked.try_get_value() == Some(ticket) {
                highlight(pane, &query);
            }
        });
    });
    let count = move || {
        let (n, at) = (look.matches.with(Vec::len), look.at.get());
        match (look.query.with(|q| q.trim().is_empty()), n, at) {
            (true, _, _) => String::new(),
            (false, 0, _) => "No match".to_string(),
            (false, n, Some(i)) => format!("{} of {n}", i + 1),
            (false, n, None) => format!("{n} matches"),
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            look.step(!ev.shift_key());
        }
        "Escape" => {
            ev.prevent_default();
            look.query.set(String::new());
            if let Some(el) = input.get_untracked() {
                el.set_value("");
            }
        }
        _ => {}
    };
    let no_matches = move || look.matches.with(Vec::is_empty);
    // A choice closes the menu, as does a press anywhere outside it; its filter stays open while
    // it is chosen.
    let menu = NodeRef::<leptos::html::Details>::new();
    let close = move |ev: leptos::ev::MouseEvent| {
        if let Some(menu) = menu.get_untracked() {
            crate::ui::services::dom::close_menu_after_choice(&ev, &menu);
        }
    };
    crate::ui::services::dom::close_menu_from_outside(menu);
    let import = crate::ui::services::dom::has_import(pane);
    view! {
        <link rel="stylesheet" href="parts/find.css"/>
        // Fetched ahead of the Timeline its menu opens.
        <link rel="stylesheet" href="parts/timeline.css"/>
        <div class="trace-find" role="search" aria-label="Find in the trace">
            <span class="find-field">
                <input type="search" class="find-input" data-testid="trace-search" node_ref=input placeholder="Search the steps  /"
                    aria-label="Search the steps" aria-keyshortcuts="/" autocomplete="off" spellcheck="false"
                    on:focus=move |_| look.prepare(trace) on:input=move |ev| look.query.set(event_target_value(&ev)) on:keydown=on_key/>
                <span class="find-count" data-testid="trace-search-count" role="status">{count}</span>
            </span>
            <button class="ghost small" data-testid="search-prev" aria-label="Previous match" title="Previous match (N)" disabled=no_matches on:click=move |_| look.step(false)>"↑"</button>
            <button class="ghost small" data-testid="search-next" aria-label="Next match" title="Next match (n)" disabled=no_matches on:click=move |_| look.step(true)>"↓"</button>
        </div>
        // What is used less often: one menu, at the end of the row.
        <details class="menu trace-more" data-testid="trace-more" node_ref=menu>
            <summary class="ghost small" aria-label="More: compare runs, import, timeline, filter" title="Compare runs, import, timeline, filter, expand and collapse">"⋯"</summary>
            <div class="menu-items" role="group" aria-label="More" on:click=close>
                {on_compare_runs.map(|compare| view! {
                    <button class="ghost small" data-testid="compare-runs" on:click=move |_| compare.run(())
                        title="This conversation's runs side by side, step by step">"⇆ Compare runs"</button>
                })}
                {import.then(|| view! {
                    <button class="ghost small" data-testid="import-more" on:click=move |_| crate::ui::services::dom::choose_import(pane)
                        title="Open an exported conversation to look at it again">"⬆ Import…"</button>
                })}
                <button class="ghost small" data-testid="view-timeline" aria-pressed=move || as_timeline.get().to_string()
                    title="The run on one time axis, above its steps" on:click=move |_| as_timeline.update(|on| *on = !*on)>
                    {move || if as_timeline.get() { "✓ Timeline" } else { "Timeline" }}
                </button>
                <label class="menu-field">"Show "
                    <select class="small" data-testid="trace-filter" aria-label="Show" on:change=move |ev| {
                        look.filter.set(Filter::from_id(&event_target_value(&ev)));
                        if let Some(menu) = menu.get_untracked() {
                            crate::ui::services::dom::close_menu(&menu);
                        }
                    }>
                        {Filter::ALL.into_iter().map(|f| view! { <option value=f.id() selected=move || look.filter.get() == f>{f.label()}</option> }).collect_view()}
                    </select>
                </label>
                <button class="ghost small" data-testid="next-error" title="Next error (e)" on:click=move |_| { next_error(pane); }>"Next error"</button>
                <button class="ghost small" data-testid="expand-all" on:click=move |_| look.expand.update(|(n, on)| { *n += 1; *on = true; })>"Expand all"</button>
                <button class="ghost small" data-testid="collapse-all" on:click=move |_| look.expand.update(|(n, on)| { *n += 1; *on = false; })>"Collapse all"</button>
                <p class="keys">"Keys, with the focus in the trace: " <kbd>"/"</kbd> " search · " <kbd>"j"</kbd> " " <kbd>"k"</kbd> " next and previous step · " <kbd>"Enter"</kbd> " show all · " <kbd>"e"</kbd> " next error · " <kbd>"n"</kbd> " " <kbd>"N"</kbd> " next and previous match."</p>
            </div>
        </details>
    }
}

/// The pane's keys (see the module's comment). Keys typed into a field are the field's.
fn on_pane_key(ev: &leptos::ev::KeyboardEvent, pane: NodeRef<leptos::html::Section>, look: Look) {
    if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing(ev) {
        return;
    }
    let key = ev.key();
    let handled = match key.as_str() {
        "/" => focus_search(pane),
        "j" | "ArrowDown" => move_focus(pane, 1),
        "k" | "ArrowUp" => move_focus(pane, -1),
        "Home" => move_focus(pane, i32::MIN),
        "End" => move_focus(pane, i32::MAX),
        "e" => next_error(pane),
        "n" => {
            look.step(true);
            true
        }
        "N" => {
            look.step(false);
            true
        }
        "Enter" | " " => toggle_focused(ev),
        _ => false,
    };
    if handled {
        ev.prevent_default();
    }
}
