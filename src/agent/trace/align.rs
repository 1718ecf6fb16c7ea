//! Two runs side by side: their steps aligned by step number, and what differs between them
//! (tool, input, observation, answer, tokens, time), so a person sees where two attempts at a
//! question parted ways.

use super::{value_as_text, Event, EventKind};

/// What one run did in one step.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepView {
    pub step: u32,
    pub thought: Option<String>,
    /// The tools called, in order ("; " between several native calls).
    pub tool: Option<String>,
    pub input: Option<String>,
    /// What the tools answered, or how they failed.
    pub observation: Option<String>,
    pub answer: Option<String>,
    /// Errors in the step (model, format, tool), one per line.
    pub errors: Vec<String>,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    /// From the step's first event to its last.
    pub ms: f64,
}

/// Which fields of an aligned step differ between the two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Differs {
    pub tool: bool,
    pub input: bool,
    pub observation: bool,
    pub answer: bool,
    pub tokens: bool,
    pub time: bool,
}

impl Differs {
    pub fn any(self) -> bool {
        self.names().next().is_some()
    }

    /// The names of what differs, for a sentence or a test.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        [
            (self.tool, "tool"),
            (self.input, "input"),
            (self.observation, "observation"),
            (self.answer, "answer"),
            (self.tokens, "tokens"),
            (self.time, "time"),
        ]
        .into_iter()
        .filter_map(|(d, name)| d.then_some(name))
    }
}

/// One step number, with what each run did in it (`None`: that run had no such step).
#[derive(Debug, Clone, PartialEq)]
pub struct Aligned {
    pub step: u32,
    pub a: Option<StepView>,
    pub b: Option<StepView>,
    pub differs: Differs,
}

/// Times count as different when one is more than half again the other and they are apart by
/// more than this: a step is never timed the same twice.
pub const TIME_SLACK_MS: f64 = 250.0;

/// A run's steps, in step order. Events before the first step (the question, the scope check)
/// belong to step 0, which is listed only when something happened in it (a declined question's
/// answer, an error).
pub fn steps(events: &[Event]) -> Vec<StepView> {
    let mut out: Vec<StepView> = Vec::new();
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for e in events {
        // Events come in step order, so the step is nearly always the last one seen.
        let found = if out.last().is_some_and(|s| s.step == e.step) { Some(out.len() - 1) } else { out.iter().position(|s| s.step == e.step) };
        let at = match found {
            Some(at) => at,
            None => {
                out.push(StepView { step: e.step, ..StepView::default() });
                spans.push((e.started_ms, e.ended_ms));
                out.len() - 1
            }
        };
        let (view, span) = (&mut out[at], &mut spans[at]);
        span.0 = span.0.min(e.started_ms);
        span.1 = span.1.max(e.ended_ms);
        match &e.kind {
            EventKind::Decided { thought: Some(t), .. } if !t.trim().is_empty() => view.thought = Some(join(view.thought.take(), t)),
            EventKind::ToolCall { tool, input, .. } => {
                view.tool = Some(join(view.tool.take(), tool));
                view.input = Some(join(view.input.take(), &value_as_text(input)));
            }
            EventKind::ToolResult { observation, .. } => view.observation = Some(join(view.observation.take(), observation)),
            EventKind::ToolFailed { tool, message, .. } => {
                view.observation = Some(join(view.observation.take(), &format!("{tool} failed: {message}")));
                view.errors.push(format!("{tool}: {message}"));
            }
            EventKind::FinalAnswer { answer, .. } => view.answer = Some(answer.clone()),
            EventKind::LlmResponse { usage: Some(u), .. } => {
                view.prompt_tokens = view.prompt_tokens.saturating_add(u.prompt_tokens);
                view.completion_tokens = view.completion_tokens.saturating_add(u.completion_tokens);
            }
            EventKind::LlmFailed { error } => view.errors.push(error.message.clone()),
            EventKind::ParseFailed { message, .. } => view.errors.push(message.clone()),
            EventKind::UnknownTool { requested, .. } => view.errors.push(format!("\"{requested}\" is not a tool")),
            _ => {}
        }
    }
    for (view, (start, end)) in out.iter_mut().zip(spans) {
        view.ms = (end - start).max(0.0);
    }
    out.retain(|s| s.step > 0 || s.answer.is_some() || !s.errors.is_empty());
    out.sort_by_key(|s| s.step);
    out
}

fn join(earlier: Option<String>, more: &str) -> String {
    match earlier {
        Some(e) => format!("{e}; {more}"),
        None => more.to_string(),
    }
}

/// The two runs' steps paired by step number, each pair marked with what differs. A step only
/// one run reached differs in every field that run has.
pub fn align(a: &[Event], b: &[Event]) -> Vec<Aligned> {
    let (a, b) = (steps(a), steps(b));
    let mut numbers: Vec<u32> = a.iter().chain(&b).map(|s| s.step).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
        .into_iter()
        .map(|step| {
            let a = a.iter().find(|s| s.step == step).cloned();
            let b = b.iter().find(|s| s.step == step).cloned();
            let differs = differs(a.as_ref(), b.as_ref());
            Aligned { step, a, b, differs }
        })
        .collect()
}

fn differs(a: Option<&StepView>, b: Option<&StepView>) -> Differs {
    let empty = StepView::default();
    let (x, y) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
    let slow = x.ms.max(y.ms);
    let fast = x.ms.min(y.ms);
    Differs {
        tool: x.tool != y.tool,
        input: x.input != y.input,
        observation: x.observation != y.observation,
        answer: x.answer.as_deref().map(str::trim) != y.answer.as_deref().map(str::trim),
        tokens: (x.prompt_tokens, x.completion_tokens) != (y.prompt_tokens, y.completion_tokens),
        time: (a.is_some() != b.is_some()) || (slow - fast > TIME_SLACK_MS && slow > fast * 1.5),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agent::model::Usage;
    use crate::agent::trace::AnswerSource;

    fn at(step: u32, start: f64, end: f64, kind: EventKind) -> Event {
        Event { index: 0, step, started_ms: start, ended_ms: end, kind }
    }

    fn reply(tokens: u32) -> EventKind {
        EventKind::LlmResponse { text: "x".into(), discarded: None, usage: Some(Usage::new(tokens, 5)), latency_ms: 1.0, incomplete: false, tool_calls: vec![], first_token_ms: None, finish_reason: None }
    }

    fn run(input: &str, observation: &str, answer: &str, tokens: u32, slow: f64) -> Vec<Event> {
        vec![
            at(0, 0.0, 0.0, EventKind::RunStarted { question: "q".into(), tools: vec![], history_turns: 0, started_unix_ms: 0.0, strategy: crate::agent::Strategy::React, continues: false, model: Default::default() }),
            at(1, 0.0, 100.0, reply(tokens)),
            at(1, 100.0, 100.0, EventKind::ToolCall { tool: "wikipedia".into(), input: json!(input), via: None }),
            at(1, 100.0, 200.0 * slow, EventKind::ToolResult { tool: "wikipedia".into(), observation: observation.into() }),
            at(2, 300.0, 400.0, reply(tokens)),
            at(2, 400.0, 400.0, EventKind::FinalAnswer { answer: answer.into(), source: AnswerSource::Model }),
        ]
    }

    #[test]
    fn steps_gather_what_each_step_did() {
        let steps = steps(&run("Ada", "A mathematician", "She wrote the first program.", 100, 1.0));
        assert_eq!(steps.len(), 2, "the question alone makes no step 0: {steps:?}");
        assert_eq!((steps[0].tool.as_deref(), steps[0].input.as_deref()), (Some("wikipedia"), Some("Ada")));
        assert_eq!(steps[0].observation.as_deref(), Some("A mathematician"));
        assert_eq!((steps[0].prompt_tokens, steps[0].completion_tokens, steps[0].ms), (100, 5, 200.0));
        assert_eq!(steps[1].answer.as_deref(), Some("She wrote the first program."));
    }

    #[test]
    fn two_runs_align_by_step_and_mark_what_differs() {
        let a = run("Ada", "A mathematician", "She wrote the first program.", 100, 1.0);
        let b = run("Ada Lovelace", "A mathematician", "She wrote the first program.", 120, 5.0);
        let aligned = align(&a, &b);
        assert_eq!(aligned.iter().map(|s| s.step).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(aligned[0].differs.names().collect::<Vec<_>>(), vec!["input", "tokens", "time"]);
        assert_eq!(aligned[1].differs.names().collect::<Vec<_>>(), vec!["tokens"]);
        let same = align(&a, &a);
        assert!(same.iter().all(|s| !s.differs.any()), "a run matches itself: {same:?}");
    }

    #[test]
    fn a_step_only_one_run_reached_differs_in_what_it_has() {
        let mut longer = run("Ada", "A mathematician", "x", 100, 1.0);
        longer.push(at(3, 500.0, 600.0, EventKind::ToolFailed { tool: "arxiv".into(), message: "down".into(), timed_out: false, fed_back: true }));
        let aligned = align(&run("Ada", "A mathematician", "x", 100, 1.0), &longer);
        let third = aligned.last().expect("step 3");
        assert_eq!(third.step, 3);
        assert!(third.a.is_none() && third.b.is_some());
        assert!(third.differs.observation && third.differs.time, "{:?}", third.differs);
        assert_eq!(third.b.as_ref().map(|s| s.errors.clone()), Some(vec!["arxiv: down".to_string()]));
    }

    #[test]
    fn small_time_differences_are_not_marked() {
        let a = run("Ada", "o", "x", 100, 1.0);
        let b = run("Ada", "o", "x", 100, 1.2);
        assert!(!align(&a, &b)[0].differs.time);
    }
}
