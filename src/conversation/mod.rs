//! The one record of a conversation: **a conversation is its runs**. Each run holds the question
//! that started it, the agent's questions to the person with their replies, every event of its
//! trace and how it ended. Everything else is derived from the runs: the chat's messages, the
//! model's memory of earlier turns, the outcome shown, the steps in the trace pane, what is
//! stored and what is exported.
//!
//! Plain Rust, no Leptos: the page holds a `Conversation` in one signal and changes it only
//! through the operations here (ask, reply, record an event, end a run, refuse, rename, show,
//! mark interrupted), so the rules are tested natively (`tests.rs`). Storage converts it to and
//! from its stored shapes (`storage::chats`), and keeps no second copy.

use crate::agent::trace::{final_answer, open_question, stop_reason};
use crate::agent::{Event, EventKind, StopReason, Turn};

mod branches;
mod mask;
#[cfg(test)]
mod tests;

pub use branches::{Branch, ForkAsk, Line};
pub use mask::{mask_event, mask_events};

/// How a run ended, read from its trace.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer(String),
    /// The agent asked the person something; their next message is the reply.
    Asks(String),
    /// The run ended without an answer: why, in words a person can act on.
    Ended(String),
}

impl Outcome {
    pub fn text(&self) -> &str {
        match self {
            Outcome::Answer(text) | Outcome::Asks(text) | Outcome::Ended(text) => text,
        }
    }

    pub fn text_mut(&mut self) -> &mut String {
        match self {
            Outcome::Answer(text) | Outcome::Asks(text) | Outcome::Ended(text) => text,
        }
    }
}

/// The outcome of the run whose events these are.
pub fn outcome(events: &[Event]) -> Outcome {
    match (final_answer(events), stop_reason(events)) {
        (Some(answer), _) => Outcome::Answer(answer.to_string()),
        (None, Some(StopReason::AskedPerson)) => Outcome::Asks(open_question(events).unwrap_or_default().to_string()),
        (None, Some(reason)) => {
            // The most useful explanation is the last failed model call's own message.
            let detail = events.iter().rev().find_map(|e| match &e.kind {
                EventKind::LlmFailed { error } => Some(error.message.clone()),
                _ => None,
            });
            Outcome::Ended(detail.unwrap_or_else(|| reason.describe()))
        }
        (None, None) => Outcome::Ended("The run ended without an answer.".into()),
    }
}

/// The agent's questions to the person that a run's events show answered, in order (each
/// `AskedPerson` followed by the `PersonAnswered` that continued the run).
pub fn clarified_of(events: &[Event]) -> Vec<Clarification> {
    let mut out = Vec::new();
    let mut asked: Option<&str> = None;
    for e in events {
        match &e.kind {
            EventKind::AskedPerson { question } => asked = Some(question),
            EventKind::PersonAnswered { answer } => {
                if let Some(asked) = asked.take() {
                    out.push(Clarification { asked: asked.to_string(), reply: answer.clone() });
                }
            }
            _ => {}
        }
    }
    out
}

/// A question the agent asked the person during a run, and the person's reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Clarification {
    pub asked: String,
    pub reply: String,
}

/// A resource of an MCP server the person attached to a question: read when the question was
/// sent and given to the model with it, as context (the text that went is in the run's first
/// request).
#[derive(Debug, Clone, PartialEq)]
pub struct Attached {
    pub name: String,
    pub uri: String,
    /// The server's address as configured.
    pub server: String,
}

/// One question and everything the agent did for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// As the person typed it (masked).
    pub question: String,
    /// The agent's questions to the person that were answered, in order; the run went on
    /// after each (its events continue in `events`).
    pub clarified: Vec<Clarification>,
    /// The resources the person attached to the question, in the order attached.
    pub attached: Vec<Attached>,
    /// Every event of the run, numbered from 0, masked.
    pub events: Vec<Event>,
    /// False for a run saved by a release that kept only a chat's last trace: its question
    /// and outcome are known, its steps are not.
    pub steps_kept: bool,
    /// `None` while the run goes on.
    pub outcome: Option<Outcome>,
    /// The branches a person made from its steps (`branches.rs`), numbered from 1; the fields
    /// above are line 0, the run as first asked.
    pub branches: Vec<Branch>,
    /// The line shown, and remembered by later questions (0: the run as first asked).
    pub shown: usize,
}

impl Run {
    pub fn new(question: String) -> Self {
        Run { question, clarified: Vec::new(), attached: Vec::new(), events: Vec::new(), steps_kept: true, outcome: None, branches: Vec::new(), shown: 0 }
    }

    /// Whether its shown line goes on (only that one can).
    pub fn is_running(&self) -> bool {
        self.shown_line().outcome.is_none()
    }

    /// Its shown line waits for the person's reply to the agent's question.
    pub fn waiting(&self) -> bool {
        matches!(self.shown_line().outcome, Some(Outcome::Asks(_)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    User,
    Assistant,
    /// The run ended without an answer; the text says why and what to do.
    Problem,
    /// The agent asked the person a question; their next message answers it.
    AskedPerson,
}

/// A chat bubble, derived from a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub who: Who,
    pub text: String,
    /// The run this message belongs to.
    pub run: usize,
    /// The message that ends its run (an answer, a question to the person, or why it ended):
    /// the one that offers the run's steps.
    pub ends_run: bool,
    /// The names of the resources attached to the question (on the question's message only).
    pub attached: Vec<String>,
    /// For a run with branches: which one this message is of, and on a question the person
    /// changed, that they did (empty otherwise).
    pub branch: String,
}

/// What a change to the conversation asks of storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Save {
    /// Nothing to store (a change of what is shown).
    No,
    /// Soon, together with whatever follows in the next moment (a run's events).
    Soon,
    /// At once: a reload right after this must find it (a run's start or end, a rename).
    Now,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation {
    pub id: String,
    /// Empty until named: the title is then the first question's (`title`).
    pub title: String,
    pub runs: Vec<Run>,
    /// The run whose steps the trace pane shows; `None` is the latest.
    shown: Option<usize>,
}

impl Conversation {
    pub fn new(id: String) -> Self {
        Conversation { id, ..Default::default() }
    }

    pub fn with_runs(id: String, title: String, runs: Vec<Run>) -> Self {
        Conversation { id, title, runs, shown: None }
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The run going on, if any: the latest, or an earlier one a person forked.
    pub fn running(&self) -> Option<usize> {
        self.runs.iter().rposition(Run::is_running)
    }

    /// The run whose shown line waits for the person's reply: the one shown, or else the latest.
    pub fn waiting_run(&self) -> Option<usize> {
        let shown = self.shown().filter(|&i| self.runs[i].waiting());
        shown.or_else(|| self.runs.len().checked_sub(1).filter(|&i| self.runs[i].waiting()))
    }

    /// A run waits for the person's reply to the agent's question.
    pub fn waiting(&self) -> bool {
        self.waiting_run().is_some()
    }

    /// The title shown and stored: the one given, or the first question's.
    pub fn title(&self) -> String {
        if !self.title.is_empty() {
            return self.title.clone();
        }
        title_from(self.runs.first().map(|r| r.question.as_str()).unwrap_or(""))
    }

    /// A new question starts a new run; the earlier runs stay as they are. The new run is shown.
    pub fn ask(&mut self, question: String) -> usize {
        self.runs.push(Run::new(question));
        self.shown = None;
        self.runs.len() - 1
    }

    /// The person's reply to the agent's question: the waiting run goes on. `None` when no run
    /// waits (the reply is then a new question).
    pub fn reply(&mut self, reply: String) -> Option<usize> {
        let at = self.waiting_run()?;
        let (clarified, _, outcome) = self.runs[at].shown_mut();
        let Some(Outcome::Asks(asked)) = outcome.take() else { return None };
        clarified.push(Clarification { asked, reply });
        self.shown = (at + 1 != self.runs.len()).then_some(at);
        Some(at)
    }

    /// A question that could not be run (a setting is missing): a run that ended at once.
    pub fn refuse(&mut self, question: String, why: String) {
        let at = self.ask(question);
        self.runs[at].outcome = Some(Outcome::Ended(why));
    }

    /// Appends an event to run `run`'s shown line, numbered after the events it already holds.
    pub fn record(&mut self, run: usize, mut event: Event) -> Save {
        let Some(run) = self.runs.get_mut(run) else { return Save::No };
        let (_, events, _) = run.shown_mut();
        event.index = events.len() as u32;
        events.push(event);
        Save::Soon
    }

    /// A branch of run `run` from its shown line at a step (`Run::fork`); the run and the new
    /// branch are shown. Saved at once: the person's words are in it.
    pub fn fork(&mut self, run: usize, ask: ForkAsk) -> Result<usize, String> {
        if let Some(other) = self.running().filter(|&r| r != run) {
            return Err(format!("Question {} is still running: stop it or wait for it to end first.", other + 1));
        }
        let branch = self.runs.get_mut(run).ok_or_else(|| "That run is not in this chat.".to_string())?.fork(ask)?;
        self.shown = (run + 1 != self.runs.len()).then_some(run);
        Ok(branch)
    }

    /// Shows line `number` of run `run`; later questions remember its answer, so it is saved.
    pub fn show_branch(&mut self, run: usize, number: usize) -> Save {
        if self.running().is_some() {
            return Save::No;
        }
        match self.runs.get_mut(run).map(|r| r.show_line(number)) {
            Some(true) => Save::Now,
            _ => Save::No,
        }
    }

    /// A new question with the resources the person attached to it; its run's number.
    pub fn ask_with(&mut self, question: String, attached: Vec<Attached>) -> usize {
        let run = self.ask(question);
        self.runs[run].attached = attached;
        run
    }

    pub fn end(&mut self, run: usize, outcome: Outcome) -> Save {
        let Some(run) = self.runs.get_mut(run) else { return Save::No };
        *run.shown_mut().2 = Some(outcome);
        Save::Now
    }

    pub fn rename(&mut self, title: &str) -> Save {
        let title = title.trim();
        if title.is_empty() {
            return Save::No;
        }
        self.title = title.to_string();
        Save::Now
    }

    /// Shows run `run`'s steps in the trace pane. While a run goes on, the pane stays on it.
    pub fn show(&mut self, run: usize) -> Save {
        if self.running().is_none() && run < self.runs.len() {
            self.shown = (run + 1 != self.runs.len()).then_some(run);
        }
        Save::No
    }

    pub fn show_latest(&mut self) -> Save {
        self.shown = None;
        Save::No
    }

    /// The index of the run whose steps are shown.
    pub fn shown(&self) -> Option<usize> {
        if let Some(running) = self.running() {
            return Some(running);
        }
        match self.shown {
            Some(i) if i < self.runs.len() => Some(i),
            _ => self.runs.len().checked_sub(1),
        }
    }

    pub fn shown_run(&self) -> Option<&Run> {
        self.shown().map(|i| &self.runs[i])
    }

    /// The events of the run shown, its shown line (empty when there is none).
    pub fn shown_events(&self) -> &[Event] {
        self.shown_run().map(|r| r.shown_line().events).unwrap_or(&[])
    }

    /// Whether the pane shows an earlier run rather than the latest.
    pub fn shows_earlier(&self) -> bool {
        self.shown().is_some_and(|i| i + 1 < self.runs.len())
    }

    /// The chat's bubbles, in order.
    pub fn messages(&self) -> Vec<ChatMessage> {
        let mut out = Vec::new();
        for (i, run) in self.runs.iter().enumerate() {
            let line = run.shown_line();
            let of = if run.lines() > 1 { format!("branch {} of {}", line.number + 1, run.lines()) } else { String::new() };
            let msg = |who, text: &str, ends_run| ChatMessage { who, text: text.to_string(), run: i, ends_run, attached: Vec::new(), branch: String::new() };
            let edited = line.question != run.question;
            out.push(ChatMessage {
                attached: run.attached.iter().map(|a| a.name.clone()).collect(),
                branch: if edited { format!("✎ changed by you · {of}") } else { String::new() },
                ..msg(Who::User, line.question, false)
            });
            for c in line.clarified {
                out.push(msg(Who::AskedPerson, &c.asked, false));
                out.push(msg(Who::User, &c.reply, false));
            }
            let end = match line.outcome {
                Some(Outcome::Answer(text)) => Some(msg(Who::Assistant, text, true)),
                Some(Outcome::Asks(text)) => Some(msg(Who::AskedPerson, text, true)),
                Some(Outcome::Ended(text)) => Some(msg(Who::Problem, text, true)),
                None => None,
            };
            out.extend(end.map(|m| ChatMessage { branch: of.clone(), ..m }));
        }
        out
    }

    /// Earlier question/answer pairs, as the model's memory: runs that ended with an answer,
    /// each question with the agent's questions and the person's replies folded in. A run's
    /// shown line is the one remembered.
    pub fn turns(&self) -> Vec<Turn> {
        self.turns_before(self.runs.len())
    }

    /// The memory a run of number `run` starts with: the turns of the runs before it.
    pub fn turns_before(&self, run: usize) -> Vec<Turn> {
        self.runs[..run.min(self.runs.len())]
            .iter()
            .map(Run::shown_line)
            .filter_map(|run| match run.outcome {
                Some(Outcome::Answer(answer)) => {
                    let mut question = run.question.to_string();
                    for c in run.clarified {
                        question.push_str(&format!("\n(Asked \"{}\", the person replied: {})", c.asked, c.reply));
                    }
                    Some(Turn { question, answer: answer.clone() })
                }
                _ => None,
            })
            .collect()
    }

    /// Masks every secret in `secrets` out of every text the conversation holds (an imported
    /// file, or an export on its way out).
    pub fn mask(&mut self, secrets: &crate::secrets::Secrets) {
        use crate::secrets::mask;
        for run in &mut self.runs {
            run.each_line_mut(|question, clarified, events, outcome| {
                *question = mask(question, secrets);
                for c in clarified.iter_mut() {
                    c.asked = mask(&c.asked, secrets);
                    c.reply = mask(&c.reply, secrets);
                }
                if let Some(outcome) = outcome {
                    let text = outcome.text_mut();
                    *text = mask(text, secrets);
                }
                mask::mask_events(events, secrets);
            });
        }
        self.title = mask(&self.title, secrets);
    }

    /// A run left running by a reload or a closed tab: say so in its outcome and trace. Any line
    /// of any run found without an end is marked (only one can have been running, but stored
    /// data may say otherwise). Returns whether anything changed.
    pub fn mark_interrupted(&mut self) -> bool {
        let message = "This run was interrupted (the page was reloaded or closed before it finished). Ask again to run it anew.";
        let mut changed = false;
        for run in &mut self.runs {
            run.each_line_mut(|_, _, events, outcome| {
                if outcome.is_some() {
                    return;
                }
                let (step, at_ms) = events.last().map(|e| (e.step, e.ended_ms)).unwrap_or((0, 0.0));
                events.push(Event {
                    index: events.len() as u32,
                    step,
                    started_ms: at_ms,
                    ended_ms: at_ms,
                    kind: EventKind::RunStopped { reason: StopReason::Interrupted, message: message.into() },
                });
                *outcome = Some(Outcome::Ended(message.into()));
                changed = true;
            });
        }
        changed
    }
}

/// A title from a question, cut at a word boundary.
pub fn title_from(question: &str) -> String {
    let first = question.trim();
    if first.is_empty() {
        return "New chat".into();
    }
    let line = first.lines().next().unwrap_or(first);
    if line.chars().count() <= 60 {
        return line.to_string();
    }
    let cut: String = line.chars().take(60).collect();
    let cut = cut.rsplit_once(' ').map(|(head, _)| head).filter(|h| h.len() > 20).unwrap_or(&cut);
    format!("{cut}…")
}
