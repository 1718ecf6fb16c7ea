//! A run's events as a timeline: one bar per model call (its wait for the first token apart
//! from the writing), per tool call, per retry wait and per wait for the person's approval, on
//! one time axis. What no bar covers is the agent's own time. Pure: the page draws it
//! (`ui/widgets/trace/timeline.rs`), the tests read it here.

use super::row::{seconds_or_dash, usage_text};
use super::{Event, EventKind, LlmPurpose};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    Model,
    Tool,
    Retry,
    Approval,
}

impl BarKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BarKind::Model => "model",
            BarKind::Tool => "tool",
            BarKind::Retry => "retry",
            BarKind::Approval => "approval",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub kind: BarKind,
    /// Milliseconds on the run's axis (a run continued after the person's answer goes on
    /// where the earlier part ended).
    pub start_ms: f64,
    pub end_ms: f64,
    /// Model calls: when the first piece of the reply arrived, on the same axis.
    pub first_token_ms: Option<f64>,
    /// The event whose row this bar opens.
    pub event: u32,
    pub step: u32,
    /// "Model call", "Tool: search", "Retry wait", "Waiting for your approval".
    pub label: String,
    /// Its figures in words: duration, time to first token, tokens.
    pub figures: String,
    pub failed: bool,
}

impl Bar {
    /// What a screen reader says of the bar, and what hovering or focusing it shows.
    pub fn describe(&self) -> String {
        let step = if self.step > 0 { format!("step {}, ", self.step) } else { String::new() };
        format!("{}, {step}from {:.2} s: {}", self.label, self.start_ms / 1000.0, self.figures)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub bars: Vec<Bar>,
    /// The axis: from 0 to the last event's end.
    pub span_ms: f64,
    /// The part of the axis no bar covers: the agent's own work between calls.
    pub agent_ms: f64,
}

fn duration(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{ms:.0} ms")
    }
}

/// The bars of a run's events, in the order they started.
pub fn timeline(events: &[Event]) -> Timeline {
    let mut bars: Vec<Bar> = Vec::new();
    let mut offset = 0.0f64;
    let mut end = 0.0f64;
    let mut seen_start = false;
    // Open calls: (position in `bars`, when it started on the run's own clock).
    let mut model: Option<usize> = None;
    let mut tool: Option<usize> = None;
    let mut approval: Option<usize> = None;
    for e in events {
        if let EventKind::RunStarted { .. } = e.kind {
            // A continued run counts its time from its own start: it goes on where the
            // earlier part ended, without the time the person took to answer.
            if seen_start {
                offset = end;
            }
            seen_start = true;
        }
        let (start, stop) = (offset + e.started_ms.max(0.0), offset + e.ended_ms.max(e.started_ms).max(0.0));
        end = end.max(stop);
        let mut open = |kind: BarKind, label: String| {
            bars.push(Bar { kind, start_ms: start, end_ms: stop, first_token_ms: None, event: e.index, step: e.step, label, figures: String::new(), failed: false });
            bars.len() - 1
        };
        match &e.kind {
            EventKind::LlmRequest { purpose, .. } => {
                let label = match purpose {
                    LlmPurpose::Tool { tool } => format!("Model call for {tool}"),
                    LlmPurpose::ScopeCheck => "Scope check".to_string(),
                    LlmPurpose::LastAnswer => "Model call: last answer".to_string(),
                    LlmPurpose::Step => "Model call".to_string(),
                };
                model = Some(open(BarKind::Model, label));
            }
            EventKind::LlmRetry { attempt, wait_ms, reason } => {
                let at = open(BarKind::Retry, "Retry wait".to_string());
                let bar = &mut bars[at];
                bar.end_ms = start + wait_ms.max(0.0);
                bar.figures = format!("attempt {attempt} failed ({reason}); waited {}", duration(*wait_ms));
                end = end.max(bar.end_ms);
            }
            EventKind::LlmResponse { usage, first_token_ms, .. } => {
                if let Some(at) = model.take() {
                    let bar = &mut bars[at];
                    bar.end_ms = stop.max(bar.start_ms);
                    bar.event = e.index;
                    bar.first_token_ms = first_token_ms.map(|t| (bar.start_ms + t).min(bar.end_ms));
                    bar.figures = format!(
                        "{} · first token {} · {}",
                        duration(bar.end_ms - bar.start_ms),
                        seconds_or_dash(*first_token_ms),
                        usage_text(usage.as_ref())
                    );
                }
            }
            EventKind::LlmFailed { error } => {
                if let Some(at) = model.take() {
                    let bar = &mut bars[at];
                    bar.end_ms = stop.max(bar.start_ms);
                    bar.event = e.index;
                    bar.failed = true;
                    bar.figures = format!("{} · failed: {}", duration(bar.end_ms - bar.start_ms), error.message);
                }
            }
            EventKind::ApprovalAsked { tool: name, .. } => approval = Some(open(BarKind::Approval, format!("Waiting for your approval of {name}"))),
            EventKind::ApprovalGiven { .. } => {
                if let Some(at) = approval.take() {
                    let bar = &mut bars[at];
                    bar.end_ms = stop.max(bar.start_ms);
                    bar.figures = duration(bar.end_ms - bar.start_ms);
                }
            }
            EventKind::ToolCall { tool: name, .. } => tool = Some(open(BarKind::Tool, format!("Tool: {name}"))),
            EventKind::ToolResult { observation, .. } => {
                if let Some(at) = tool.take() {
                    let bar = &mut bars[at];
                    bar.end_ms = stop.max(bar.start_ms);
                    bar.figures = format!("{} · {}", duration(bar.end_ms - bar.start_ms), super::row::characters(observation.chars().count()));
                }
            }
            EventKind::ToolFailed { message, .. } => {
                if let Some(at) = tool.take() {
                    let bar = &mut bars[at];
                    bar.end_ms = stop.max(bar.start_ms);
                    bar.failed = true;
                    bar.figures = format!("{} · failed: {message}", duration(bar.end_ms - bar.start_ms));
                }
            }
            _ => {}
        }
    }
    // A call still open (a run in progress, or cut off) runs to the last event.
    for at in [model, tool, approval].into_iter().flatten() {
        let bar = &mut bars[at];
        bar.end_ms = end.max(bar.start_ms);
        if bar.figures.is_empty() {
            bar.figures = format!("{} so far", duration(bar.end_ms - bar.start_ms));
        }
    }
    bars.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    let agent_ms = (end - covered(&bars)).max(0.0);
    Timeline { bars, span_ms: end, agent_ms }
}

/// How much of the axis the bars cover, overlaps counted once (bars sorted by start).
fn covered(bars: &[Bar]) -> f64 {
    let mut total = 0.0;
    let mut reach = f64::NEG_INFINITY;
    for bar in bars {
        if bar.end_ms <= reach {
            continue;
        }
        total += bar.end_ms - bar.start_ms.max(reach);
        reach = bar.end_ms;
    }
    total
}

#[cfg(test)]
mod tests;
