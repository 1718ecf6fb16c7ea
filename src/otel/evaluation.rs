//! An evaluation's scores on the run they judge: each is a `gen_ai.evaluation.result` event
//! (OpenTelemetry's GenAI semantic conventions) on the run's `invoke_agent` root span, the
//! operation being evaluated, with the scorer's name, a score of 1 or 0 with its label "pass"
//! or "fail", and the reason as the explanation, masked like every text of the trace.

use super::{Attr, RunTrace, SpanEvent};
use crate::secrets::{mask, Secrets};

/// The event's name in the conventions.
pub const EVALUATION_RESULT: &str = "gen_ai.evaluation.result";

/// One scorer's verdict on a run.
#[derive(Debug, Clone, Copy)]
pub struct Score<'a> {
    /// The scorer, as a set names it (`contains`, `tool:calculator`, `judge`, …).
    pub name: &'a str,
    pub pass: bool,
    pub explanation: &'a str,
}

/// Adds each score to the run's root span, at the run's end (when it was scored), with the
/// evaluation's name beside it.
pub fn add_scores(trace: &mut RunTrace, evaluation: &str, scores: &[Score<'_>], secrets: &Secrets) {
    let Some(root) = trace.spans.iter_mut().find(|s| s.parent.is_none()) else { return };
    let at = root.end_ns;
    for score in scores {
        root.events.push(SpanEvent {
            name: EVALUATION_RESULT,
            unix_ns: at,
            attributes: vec![
                ("gen_ai.evaluation.name", Attr::Str(score.name.to_string())),
                ("gen_ai.evaluation.score.value", Attr::Float(if score.pass { 1.0 } else { 0.0 })),
                ("gen_ai.evaluation.score.label", Attr::Str(if score.pass { "pass" } else { "fail" }.into())),
                ("gen_ai.evaluation.explanation", Attr::Str(mask(score.explanation, secrets))),
                ("thoughtline.evaluation", Attr::Str(mask(evaluation, secrets))),
            ],
        });
    }
}

#[cfg(test)]
mod tests;
