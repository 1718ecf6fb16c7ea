//! A run this page drives, from Send to its end: the one answer to "is a run going on" (a chat
//! whose stored latest run has no outcome may be running in another tab, or cut off by a
//! reload: only the session says whether *this* page runs it). It also holds what goes with
//! the next question (attached MCP resources), which live texts an event ends (the reply being
//! written, a tool's progress), what a run that ended before the agent recorded anything shows
//! in its trace, and which finished runs reached the OpenTelemetry collector.
//!
//! Plain state, no browser: the run controller (`ui::services::run`) carries out the run and mirrors
//! this in signals.

use crate::agent::{EventKind, StopReason};
use crate::conversation::Outcome;

/// A resource attached to the next question: read when the question is sent, its text given to
/// the model as context, marked as such.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    /// The server's address as configured.
    pub server: String,
    pub uri: String,
    pub name: String,
}

/// Whether a finished run reached the collector: the run's place, and what happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub chat: String,
    pub run: usize,
    pub result: Result<(), String>,
}

/// The run going on.
#[derive(Debug, Clone)]
struct Live {
    run: usize,
    /// How many events the run held before this start (a continued run's earlier ones).
    from: usize,
    /// Its start as a step, for a run that ends before the agent records one.
    started: EventKind,
}

/// Which live texts an event ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clears {
    /// The reply being written: its request's reply (or failure) replaces it.
    pub streaming: bool,
    /// A tool's last word on how far it is: gone with its result, or a new call.
    pub progress: bool,
}

#[derive(Debug, Default)]
pub struct RunSession {
    live: Option<Live>,
    attached: Vec<Attachment>,
    sent: Vec<Sent>,
}

/// Why a run could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlreadyRunning;

impl RunSession {
    /// Whether this page is running a run now.
    pub fn running(&self) -> bool {
        self.live.is_some()
    }

    /// Run `run` starts, holding `from` events already; `started` is its start as a step. A new
    /// question takes the attached resources with it; a reply to the agent leaves them for the
    /// next question (the run it continues keeps its question as it was).
    pub fn begin(&mut self, run: usize, from: usize, started: EventKind) -> Result<Vec<Attachment>, AlreadyRunning> {
        if self.live.is_some() {
            return Err(AlreadyRunning);
        }
        let continues = matches!(started, EventKind::RunStarted { continues: true, .. });
        self.live = Some(Live { run, from, started });
        Ok(if continues { Vec::new() } else { std::mem::take(&mut self.attached) })
    }

    /// Which live texts this event of the run ends.
    pub fn clears(kind: &EventKind) -> Clears {
        Clears {
            streaming: matches!(kind, EventKind::LlmRequest { .. } | EventKind::LlmResponse { .. } | EventKind::LlmFailed { .. }),
            progress: matches!(kind, EventKind::ToolCall { .. } | EventKind::ToolResult { .. } | EventKind::ToolFailed { .. } | EventKind::RunStopped { .. }),
        }
    }

    /// The run ends with `outcome`, holding `events` events now. What to record first, when
    /// the agent recorded nothing (its engine or model could not be loaded, or Stop came
    /// while they were on their way): its start and its end as steps, so the failure shows in
    /// the trace, in red. `None` when no run was going on.
    pub fn end(&mut self, events: usize, outcome: &Outcome) -> Option<(usize, Vec<EventKind>)> {
        let live = self.live.take()?;
        let steps = match outcome {
            Outcome::Ended(why) if events == live.from => {
                let reason = if *why == StopReason::Cancelled.describe() { StopReason::Cancelled } else { StopReason::ModelFailed };
                vec![live.started, EventKind::RunStopped { reason, message: why.clone() }]
            }
            _ => Vec::new(),
        };
        Some((live.run, steps))
    }

    pub fn attached(&self) -> &[Attachment] {
        &self.attached
    }

    /// Attaches `attachment` to the next question, or takes it off; once per resource.
    pub fn attach(&mut self, attachment: Attachment, on: bool) {
        self.attached.retain(|a| a.uri != attachment.uri);
        if on {
            self.attached.push(attachment);
        }
    }

    /// Whether a run that ended should go to the collector: a run waiting for the person's
    /// reply has not finished.
    pub fn finished_for_sending(outcome: &Outcome) -> bool {
        !matches!(outcome, Outcome::Asks(_))
    }

    /// How sending run `run` of chat `chat` went; a run sent again replaces what was said.
    pub fn sent(&mut self, sent: Sent) {
        self.sent.retain(|s| !(s.chat == sent.chat && s.run == sent.run));
        self.sent.push(sent);
    }

    pub fn sent_list(&self) -> &[Sent] {
        &self.sent
    }
}

#[cfg(test)]
mod tests;
