//! Finding your way in a long trace: which events a filter keeps, and which match a search.
//! Pure, so the trace view only draws what these decide.

use super::{Event, EventKind, Tone};

/// The kinds of step a person can narrow the trace to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    #[default]
    All,
    /// Red rows only.
    Errors,
    /// Tool calls, their observations and failures.
    Tools,
    /// Requests, replies and what was read from them.
    Model,
    /// Plans and their revisions.
    Plan,
}

impl Filter {
    pub const ALL: [Filter; 5] = [Filter::All, Filter::Errors, Filter::Tools, Filter::Model, Filter::Plan];

    pub fn id(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Errors => "errors",
            Filter::Tools => "tools",
            Filter::Model => "model",
            Filter::Plan => "plan",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "All steps",
            Filter::Errors => "Errors",
            Filter::Tools => "Tool calls",
            Filter::Model => "Model calls",
            Filter::Plan => "Plan",
        }
    }

    pub fn from_id(id: &str) -> Filter {
        Filter::ALL.into_iter().find(|f| f.id() == id).unwrap_or_default()
    }

    /// Whether a row of this kind stays shown.
    pub fn keeps(self, kind: &EventKind) -> bool {
        // A person's own change stays in view under every filter: the branch switcher sits there.
        if matches!(kind, EventKind::Forked(_)) {
            return true;
        }
        match self {
            Filter::All => true,
            Filter::Errors => kind.tone() == Tone::Error,
            Filter::Tools => matches!(
                kind,
                EventKind::ToolCall { .. }
                    | EventKind::ToolResult { .. }
                    | EventKind::ToolFailed { .. }
                    | EventKind::UnknownTool { .. }
                    | EventKind::RepeatedAction { .. }
                    | EventKind::ApprovalAsked { .. }
                    | EventKind::ApprovalGiven { .. }
                    | EventKind::ServerAsked { .. }
            ),
            Filter::Model => matches!(
                kind,
                EventKind::LlmRequest { .. }
                    | EventKind::LlmResponse { .. }
                    | EventKind::LlmFailed { .. }
                    | EventKind::LlmRetry { .. }
                    | EventKind::Decided { .. }
                    | EventKind::ParseFailed { .. }
                    | EventKind::StrategyFallback { .. }
            ),
            Filter::Plan => matches!(kind, EventKind::Plan { .. }),
        }
    }
}

/// The most characters of one event the search looks through: an observation is capped long
/// before this, and a crafted import must not make every keystroke slow.
pub const SEARCHED_CHARS: usize = 64 * 1024;

/// The shown trace's text, lower-cased once per event and kept beside the pane, so a keystroke
/// only scans it. Grows with a live run (`extend` indexes the events it has not seen).
#[derive(Debug, Default)]
pub struct SearchIndex {
    entries: Vec<Entry>,
    /// The trace the entries belong to, by its first event's identity.
    of: Option<(u32, u64)>,
}

#[derive(Debug)]
struct Entry {
    index: u32,
    kinds: [bool; 5],
    text: String,
}

impl SearchIndex {
    /// Indexes the events not indexed yet; another trace (a different first event) starts over.
    pub fn extend(&mut self, events: &[Event]) {
        self.extend_some(events, usize::MAX);
    }

    /// Indexes at most `most` more events (a long trace is indexed a slice at a time, ahead of
    /// the first keystroke); true once every event is indexed.
    pub fn extend_some(&mut self, events: &[Event], most: usize) -> bool {
        let of = events.first().map(|e| (e.index, e.started_ms.to_bits() ^ e.ended_ms.to_bits()));
        if of != self.of || events.len() < self.entries.len() {
            self.entries.clear();
            self.of = of;
        }
        let end = events.len().min(self.entries.len().saturating_add(most));
        for e in &events[self.entries.len()..end] {
            let mut text = e.kind.row().all_text();
            if text.len() > SEARCHED_CHARS {
                let cut = (0..=SEARCHED_CHARS).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                text.truncate(cut);
            }
            self.entries.push(Entry { index: e.index, kinds: Filter::ALL.map(|f| f.keeps(&e.kind)), text: text.to_lowercase() });
        }
        self.entries.len() == events.len()
    }

    /// The events (by index, in trace order) whose text holds `query`, ignoring case, among
    /// those `filter` keeps. An empty query matches nothing.
    pub fn find(&self, query: &str, filter: Filter) -> Vec<u32> {
        let query = query.trim().to_lowercase();
        if query.is_empty() {
            return Vec::new();
        }
        let slot = Filter::ALL.iter().position(|f| *f == filter).unwrap_or(0);
        self.entries.iter().filter(|e| e.kinds[slot] && e.text.contains(&query)).map(|e| e.index).collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Where a search goes next from match `at` of `count`: forward wraps to the first, backward
/// to the last.
pub fn step_match(at: Option<usize>, count: usize, forward: bool) -> Option<usize> {
    if count == 0 {
        return None;
    }
    Some(match (at, forward) {
        (None, true) => 0,
        (None, false) => count - 1,
        (Some(i), true) => (i + 1) % count,
        (Some(i), false) => (i + count - 1) % count,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(index: u32, kind: EventKind) -> Event {
        Event { index, step: 1, started_ms: index as f64, ended_ms: index as f64, kind }
    }

    fn trace() -> Vec<Event> {
        vec![
            event(0, EventKind::ToolCall { tool: "wikipedia".into(), input: json!("Ada Lovelace"), via: None }),
            event(1, EventKind::ToolResult { tool: "wikipedia".into(), observation: "Augusta Ada King, Countess of LOVELACE".into() }),
            event(2, EventKind::ToolFailed { tool: "arxiv".into(), message: "The server did not answer".into(), timed_out: true, fed_back: true }),
            event(3, EventKind::Plan { items: vec!["read about Lovelace".into()], version: 1, replan: false, observation: None }),
        ]
    }

    #[test]
    fn search_ignores_case_and_looks_through_whole_observations() {
        let mut index = SearchIndex::default();
        index.extend(&trace());
        assert_eq!(index.find("lovelace", Filter::All), vec![0, 1, 3]);
        assert_eq!(index.find("  COUNTESS ", Filter::All), vec![1]);
        assert_eq!(index.find("", Filter::All), Vec::<u32>::new());
        assert_eq!(index.find("lovelace", Filter::Tools), vec![0, 1], "only among the rows the filter keeps");
        assert_eq!(index.find("did not answer", Filter::Errors), vec![2]);
    }

    #[test]
    fn the_index_grows_with_a_live_run_and_starts_over_for_another_trace() {
        let events = trace();
        let mut index = SearchIndex::default();
        index.extend(&events[..2]);
        assert_eq!(index.len(), 2);
        index.extend(&events);
        assert_eq!(index.len(), 4);
        assert_eq!(index.find("plan", Filter::Plan), Vec::<u32>::new(), "the label is not the content");
        assert_eq!(index.find("read about", Filter::Plan), vec![3]);
        let mut sliced = SearchIndex::default();
        assert!(!sliced.extend_some(&events, 3));
        assert!(sliced.extend_some(&events, 3));
        assert_eq!(sliced.find("lovelace", Filter::All), index.find("lovelace", Filter::All));
        let other = vec![Event { started_ms: 99.0, ..events[1].clone() }];
        index.extend(&other);
        assert_eq!(index.len(), 1, "another trace is indexed from its start");
    }

    #[test]
    fn filters_keep_their_kinds() {
        let events = trace();
        let kept = |f: Filter| events.iter().filter(|e| f.keeps(&e.kind)).map(|e| e.index).collect::<Vec<_>>();
        assert_eq!(kept(Filter::All), vec![0, 1, 2, 3]);
        assert_eq!(kept(Filter::Errors), vec![2]);
        assert_eq!(kept(Filter::Tools), vec![0, 1, 2]);
        assert_eq!(kept(Filter::Plan), vec![3]);
        assert_eq!(kept(Filter::Model), Vec::<u32>::new());
        for f in Filter::ALL {
            assert_eq!(Filter::from_id(f.id()), f);
        }
        assert_eq!(Filter::from_id("nonsense"), Filter::All);
    }

    #[test]
    fn moving_between_matches_wraps_around() {
        assert_eq!(step_match(None, 0, true), None);
        assert_eq!(step_match(None, 3, true), Some(0));
        assert_eq!(step_match(None, 3, false), Some(2));
        assert_eq!(step_match(Some(2), 3, true), Some(0));
        assert_eq!(step_match(Some(0), 3, false), Some(2));
    }

    #[test]
    fn a_huge_event_is_searched_up_to_its_cap() {
        let mut index = SearchIndex::default();
        let big = format!("{}needle", "é".repeat(SEARCHED_CHARS));
        index.extend(&[event(0, EventKind::ToolResult { tool: "t".into(), observation: big })]);
        assert_eq!(index.find("needle", Filter::All), Vec::<u32>::new());
        assert_eq!(index.find("éé", Filter::All), vec![0]);
    }
}
