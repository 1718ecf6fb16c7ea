//! Branches of a run: a run holds the line it was first asked in and every branch a person made
//! from one of its steps (`agent::fork`). A branch is whole in memory (the steps it shares with
//! the line it came from, its `Forked` event, then its own), so every reader of a line reads
//! one list of events; storage and exports keep only its own part (`storage::chats`).
//!
//! One line of a run is shown: the trace pane shows its steps, the chat shows its outcome, and
//! later questions remember its answer. Only the shown line can be running, since a run that
//! goes on cannot be forked or switched.

use crate::agent::fork::{fork_point, forked_event, Change, Fork, ForkSettings};
use crate::agent::{Event, EventKind, ModelName, Strategy};

use super::{clarified_of, Clarification, Outcome, Run};

/// A branch of a run: made from line `parent` at its event `at`, which it replaces.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    /// The line it was made from (0: the run as first asked).
    pub parent: usize,
    /// How many events it shares with that line: its `Forked` event's index.
    pub at: usize,
    /// The question it runs for (a changed one, or the run's).
    pub question: String,
    /// The agent's questions to the person answered in this branch, the shared ones included.
    pub clarified: Vec<Clarification>,
    /// Whole: the shared events, the `Forked` event, then its own.
    pub events: Vec<Event>,
    /// `None` while it runs.
    pub outcome: Option<Outcome>,
}

/// One line of a run, as the page reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line<'a> {
    /// 0 for the run as first asked, then the branches in the order they were made.
    pub number: usize,
    pub question: &'a str,
    pub clarified: &'a [Clarification],
    pub events: &'a [Event],
    pub outcome: Option<&'a Outcome>,
    /// For a branch: the line it came from and where (`Branch::parent`, `Branch::at`).
    pub fork: Option<(usize, usize)>,
}

/// What the person asked for at a step: the change, and the settings to run on with.
#[derive(Debug, Clone, PartialEq)]
pub struct ForkAsk {
    /// The step, by its index in the line shown.
    pub event: usize,
    pub change: Change,
    pub settings: ForkSettings,
    /// The model and strategy the branch will run with (said in its `Forked` event).
    pub model: ModelName,
    pub strategy: Strategy,
}

impl<'a> Line<'a> {
    /// What the line does not share with the line it came from: all of it for the run as
    /// first asked, a branch's own events from its `Forked` event on.
    pub fn own(&self) -> &'a [Event] {
        let from = self.fork.map_or(0, |(_, at)| at);
        self.events.get(from..).unwrap_or_default()
    }
}

impl Run {
    /// How many lines the run has: the run as first asked and its branches.
    pub fn lines(&self) -> usize {
        1 + self.branches.len()
    }

    /// Line `number`, if the run has it.
    pub fn line(&self, number: usize) -> Option<Line<'_>> {
        if number == 0 {
            return Some(Line { number, question: &self.question, clarified: &self.clarified, events: &self.events, outcome: self.outcome.as_ref(), fork: None });
        }
        let b = self.branches.get(number - 1)?;
        Some(Line { number, question: &b.question, clarified: &b.clarified, events: &b.events, outcome: b.outcome.as_ref(), fork: Some((b.parent, b.at)) })
    }

    /// The line shown (the run as first asked when the number is out of range).
    pub fn shown_line(&self) -> Line<'_> {
        self.line(self.shown).or_else(|| self.line(0)).expect("line 0 always exists")
    }

    /// The number of the line shown.
    pub fn shown_number(&self) -> usize {
        if self.shown < self.lines() {
            self.shown
        } else {
            0
        }
    }

    /// The shown line's parts, to change them.
    pub(super) fn shown_mut(&mut self) -> (&mut Vec<Clarification>, &mut Vec<Event>, &mut Option<Outcome>) {
        match self.shown_number() {
            0 => (&mut self.clarified, &mut self.events, &mut self.outcome),
            n => {
                let b = &mut self.branches[n - 1];
                (&mut b.clarified, &mut b.events, &mut b.outcome)
            }
        }
    }

    /// Every line's question, clarifications, events and outcome, to change them (masking).
    pub(crate) fn each_line_mut(&mut self, mut f: impl FnMut(&mut String, &mut Vec<Clarification>, &mut Vec<Event>, &mut Option<Outcome>)) {
        f(&mut self.question, &mut self.clarified, &mut self.events, &mut self.outcome);
        for b in &mut self.branches {
            f(&mut b.question, &mut b.clarified, &mut b.events, &mut b.outcome);
        }
    }

    /// Shows line `number`. Not while the run goes on.
    pub fn show_line(&mut self, number: usize) -> bool {
        if self.is_running() || number >= self.lines() || number == self.shown_number() {
            return false;
        }
        self.shown = number;
        true
    }

    /// A new branch from the shown line, at the step `ask.event`: the events it shares, its
    /// `Forked` event, nothing else yet; it is shown, and its number returned. `Err` says why
    /// not (the run goes on, the step offers no such change, its steps were not kept).
    pub fn fork(&mut self, ask: ForkAsk) -> Result<usize, String> {
        if self.is_running() {
            return Err("This run is still going on: stop it or wait for it to end before changing a step.".into());
        }
        if !self.steps_kept {
            return Err("The steps of this run were not kept, so none can be changed.".into());
        }
        let line = self.shown_line();
        let parent = line.number;
        let Some(at) = fork_point(line.events, ask.event, &ask.change) else {
            return Err("That step cannot be changed this way.".into());
        };
        let question = match &ask.change {
            Change::Question { text } => text.clone(),
            _ => line.question.to_string(),
        };
        let fork = Fork { branch: parent as u32, from: ask.event as u32, change: ask.change, settings: ask.settings, model: ask.model, strategy: ask.strategy };
        let mut events = line.events[..at].to_vec();
        events.push(forked_event(line.events, at, fork));
        // Only the replies the shared steps hold go with the branch.
        let clarified = clarified_of(&events);
        self.branches.push(Branch { parent, at, question, clarified, events, outcome: None });
        self.shown = self.branches.len();
        Ok(self.shown)
    }

    /// Where the shown line's branch switcher sits: at its `Forked` event for a branch; for the
    /// run as first asked, at the earliest step a branch was made from. `None` for a run never
    /// forked.
    pub fn switcher_at(&self) -> Option<usize> {
        if self.branches.is_empty() {
            return None;
        }
        match self.shown_line().fork {
            Some((_, at)) => Some(at),
            None => self.branches.iter().filter(|b| b.parent == 0).map(|b| b.at).min(),
        }
    }

    /// The events line `number` is exported as (the whole run for line 0, a branch's own
    /// events from its `Forked` event on), and those of the line it came from, which its
    /// OpenTelemetry trace links to.
    pub fn traced(&self, number: usize) -> Option<(&[Event], Option<&[Event]>)> {
        let line = self.line(number)?;
        let parent = line.fork.and_then(|(p, _)| self.line(p)).map(|p| p.own());
        Some((line.own(), parent))
    }

    /// The line that recorded event `index` of line `line`: a branch's shared events are its
    /// parent's (and so on up).
    pub fn origin_of(&self, mut line: usize, index: usize) -> usize {
        while let Some((parent, at)) = self.line(line).and_then(|l| l.fork) {
            if index >= at {
                break;
            }
            line = parent;
        }
        line
    }

    /// The `Forked` event of a line, if it is a branch.
    pub fn forked_of<'a>(line: &Line<'a>) -> Option<&'a Fork> {
        let (_, at) = line.fork?;
        match &line.events.get(at)?.kind {
            EventKind::Forked(fork) => Some(fork),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
