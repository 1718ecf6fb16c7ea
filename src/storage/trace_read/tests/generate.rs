//! Random events of every kind, for the round-trip test, and the variants each one holds.
//!
//! `variants` names every variant of every enum in an event by an exhaustive `match`: a new
//! variant does not compile until it is numbered there. Number it next, raise its enum's count
//! in `COUNTS`, and make it in the generator here (the round-trip test fails until it is made).

use serde_json::{json, Value};
use std::collections::BTreeSet;

use super::*;
use crate::agent::fork::{Change, ForkSettings};
use crate::agent::ModelName;

/// Each enum in an event and how many variants it has.
pub const COUNTS: [(&str, usize); 12] = [
    ("EventKind", 23),
    ("Change", 5),
    ("ForkSettings", 2),
    ("LlmPurpose", 4),
    ("Decision", 2),
    ("AnswerSource", 5),
    ("ScopeVerdict", 3),
    ("StopReason", 9),
    ("Strategy", 3),
    ("Role", 4),
    ("LlmErrorKind", 14),
    ("ApprovalChoice", 3),
];

/// Text with what JSON must escape or carry unchanged: quotes, backslashes, control
/// characters, line separators, text outside the BMP.
const PIECES: [&str; 16] = ["", "a", "Oslo", "\"", "\\", "\\\"", "é", "日本語", "😀", "\n", "\t", "\u{0}", "\u{1f}", "</script>", "{\"x\":1}", "\u{2028}"];

fn text(rng: &mut Rng) -> String {
    (0..rng.below(6)).map(|_| rng.pick(&PIECES)).collect()
}

fn maybe<T>(rng: &mut Rng, make: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    (rng.below(2) == 0).then(|| make(rng))
}

fn texts(rng: &mut Rng) -> Vec<String> {
    (0..rng.below(4)).map(|_| text(rng)).collect()
}

fn flag(rng: &mut Rng) -> bool {
    rng.below(2) == 0
}

fn uint(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 => 0,
        1 => u32::MAX,
        _ => rng.next() as u32,
    }
}

/// Milliseconds and such: numbers that print and read back exactly (serde_json's default
/// float reading is not exact for every `f64`, whoever reads it).
fn float(rng: &mut Rng) -> f64 {
    match rng.below(4) {
        0 => 0.0,
        1 => 1e300,
        _ => rng.below(1 << 24) as f64 / 8.0,
    }
}

fn value(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => Value::Null,
        1 => json!(text(rng)),
        2 => json!(rng.next() as i64),
        3 => json!({ "query": text(rng), "n": rng.below(100), "nested": [true, null, 2.5] }),
        4 => json!([text(rng), {}]),
        _ => json!(false),
    }
}

fn strategy(rng: &mut Rng) -> Strategy {
    rng.pick(&Strategy::ALL)
}

fn tool_call(rng: &mut Rng) -> ToolCall {
    ToolCall { id: text(rng), name: text(rng), arguments: text(rng) }
}

fn tool_calls(rng: &mut Rng) -> Vec<ToolCall> {
    (0..rng.below(3)).map(|_| tool_call(rng)).collect()
}

fn message(rng: &mut Rng) -> Message {
    let role = rng.pick(&[Role::System, Role::User, Role::Assistant, Role::Tool]);
    Message { role, content: text(rng), tool_calls: tool_calls(rng), tool_call_id: maybe(rng, text) }
}

fn request(rng: &mut Rng) -> RequestRecord {
    RequestRecord {
        base_back: uint(rng),
        kept: uint(rng),
        kept_text: uint(rng),
        kept_tools: flag(rng),
        messages: (0..rng.below(4)).map(|_| message(rng)).collect(),
        quotes: (0..rng.below(3)).map(|_| [uint(rng), uint(rng), uint(rng), uint(rng)]).collect(),
        stop: texts(rng),
        temperature: rng.pick(&[0.0, 0.7, 1.0, 2.0]),
        max_tokens: maybe(rng, uint),
        tools: (0..rng.below(3)).map(|_| ToolSpec { name: text(rng), description: text(rng), parameters: value(rng) }).collect(),
        json_format: maybe(rng, |rng| JsonFormat { name: text(rng), schema: value(rng) }),
    }
}

fn purpose(rng: &mut Rng) -> LlmPurpose {
    match rng.below(4) {
        0 => LlmPurpose::Step,
        1 => LlmPurpose::LastAnswer,
        2 => LlmPurpose::ScopeCheck,
        _ => LlmPurpose::Tool { tool: text(rng) },
    }
}

fn decision(rng: &mut Rng) -> Decision {
    match rng.below(2) {
        0 => Decision::Action { tool: text(rng), input: value(rng) },
        _ => Decision::Final { answer: text(rng) },
    }
}

fn stop_reason(rng: &mut Rng) -> StopReason {
    match rng.below(9) {
        0 => StopReason::Answered,
        1 => StopReason::MaxIterations { limit: uint(rng) },
        2 => StopReason::MaxTime { limit_ms: float(rng) },
        3 => StopReason::Cancelled,
        4 => StopReason::Interrupted,
        5 => StopReason::ModelFailed,
        6 => StopReason::ToolFailed { tool: text(rng) },
        7 => StopReason::ParseFailed,
        _ => StopReason::AskedPerson,
    }
}

fn error_kind(rng: &mut Rng) -> LlmErrorKind {
    let status = rng.pick(&[0, 400, 503, u16::MAX]);
    match rng.below(14) {
        0 => LlmErrorKind::Auth,
        1 => LlmErrorKind::NotFound,
        2 => LlmErrorKind::RateLimited,
        3 => LlmErrorKind::Server { status },
        4 => LlmErrorKind::ContextLength,
        5 => LlmErrorKind::BadRequest { status },
        6 => LlmErrorKind::Network,
        7 => LlmErrorKind::Timeout,
        8 => LlmErrorKind::BadResponse,
        9 => LlmErrorKind::Empty,
        10 => LlmErrorKind::TooLarge { limit_kb: uint(rng) },
        11 => LlmErrorKind::Redirected { to: maybe(rng, text) },
        12 => LlmErrorKind::ToolsUnsupported,
        _ => LlmErrorKind::Cancelled,
    }
}

fn kind(rng: &mut Rng) -> EventKind {
    match rng.below(23) {
        22 => EventKind::ServerAsked { server: text(rng), question: text(rng), answer: text(rng), accepted: flag(rng) },
        21 => EventKind::Forked(Box::new(crate::agent::fork::Fork {
            branch: uint(rng),
            from: uint(rng),
            change: match rng.below(5) {
                0 => Change::Question { text: text(rng) },
                1 => Change::Reply { text: text(rng) },
                2 => Change::ToolInput { tool: text(rng), input: value(rng) },
                3 => Change::Observation { tool: text(rng), text: text(rng) },
                _ => Change::AskAgain,
            },
            settings: rng.pick(&[ForkSettings::Run, ForkSettings::Now]),
            model: ModelName { provider: text(rng), model: text(rng) },
            strategy: strategy(rng),
        })),
        0 => EventKind::RunStarted {
            question: text(rng),
            tools: texts(rng),
            history_turns: rng.pick(&[0, 3, u32::MAX as usize]),
            started_unix_ms: float(rng),
            strategy: strategy(rng),
            continues: flag(rng),
            model: ModelName { provider: text(rng), model: text(rng) },
        },
        1 => EventKind::PersonAnswered { answer: text(rng) },
        2 => EventKind::LlmRequest { purpose: purpose(rng), request: request(rng) },
        3 => EventKind::LlmResponse {
            text: text(rng),
            discarded: maybe(rng, text),
            usage: maybe(rng, |rng| Usage {
                cached_tokens: maybe(rng, uint),
                reasoning_tokens: maybe(rng, uint),
                ..Usage::new(uint(rng), uint(rng))
            }),
            latency_ms: float(rng),
            incomplete: flag(rng),
            tool_calls: tool_calls(rng),
            first_token_ms: maybe(rng, float),
            finish_reason: maybe(rng, text),
        },
        4 => EventKind::LlmFailed { error: LlmError::new(error_kind(rng), text(rng)) },
        5 => EventKind::LlmRetry { attempt: uint(rng), wait_ms: float(rng), reason: text(rng) },
        6 => EventKind::Decided { thought: maybe(rng, text), decision: decision(rng), notes: texts(rng) },
        7 => EventKind::Plan { items: texts(rng), version: uint(rng), replan: flag(rng), observation: maybe(rng, text) },
        8 => EventKind::AskedPerson { question: text(rng) },
        9 => EventKind::StrategyFallback { from: strategy(rng), to: strategy(rng), reason: text(rng) },
        10 => EventKind::ParseFailed { message: text(rng), excerpt: text(rng), count: uint(rng), fed_back: flag(rng), observation: text(rng) },
        11 => EventKind::ToolCall { tool: text(rng), input: value(rng), via: maybe(rng, text) },
        12 => EventKind::ToolResult { tool: text(rng), observation: text(rng) },
        13 => EventKind::ToolFailed { tool: text(rng), message: text(rng), timed_out: flag(rng), fed_back: flag(rng) },
        14 => EventKind::UnknownTool { requested: text(rng), valid: texts(rng) },
        15 => EventKind::RepeatedAction { tool: text(rng), input: value(rng), times: uint(rng) },
        16 => EventKind::FinalAnswer { answer: text(rng), source: rng.pick(&[AnswerSource::Model, AnswerSource::ReturnDirect, AnswerSource::LastAnswer, AnswerSource::Direct, AnswerSource::Declined]) },
        17 => EventKind::ScopeChecked { verdict: rng.pick(&[ScopeVerdict::InScope, ScopeVerdict::OutOfScope, ScopeVerdict::Unreadable]), reason: text(rng) },
        18 => EventKind::ApprovalAsked { tool: text(rng), input: value(rng), via: maybe(rng, text) },
        19 => EventKind::ApprovalGiven { tool: text(rng), choice: rng.pick(&[ApprovalChoice::Once, ApprovalChoice::Always, ApprovalChoice::Denied]) },
        _ => EventKind::RunStopped { reason: stop_reason(rng), message: text(rng) },
    }
}

pub fn event(rng: &mut Rng, index: u32) -> Event {
    Event { index, step: uint(rng), started_ms: float(rng), ended_ms: float(rng), kind: kind(rng) }
}

/// Adds to `seen` each variant `kind` holds, as (enum, number).
pub fn variants(kind: &EventKind, seen: &mut BTreeSet<(&'static str, usize)>) {
    let mut see = |name: &'static str, n: usize| {
        seen.insert((name, n));
    };
    let strategy = |s: &Strategy| match s {
        Strategy::React => 0,
        Strategy::ToolCalling => 1,
        Strategy::PlanReact => 2,
    };
    let role = |r: &Role| match r {
        Role::System => 0,
        Role::User => 1,
        Role::Assistant => 2,
        Role::Tool => 3,
    };
    let n = match kind {
        EventKind::RunStarted { strategy: s, .. } => {
            see("Strategy", strategy(s));
            0
        }
        EventKind::PersonAnswered { .. } => 1,
        EventKind::LlmRequest { purpose, request } => {
            see("LlmPurpose", match purpose {
                LlmPurpose::Step => 0,
                LlmPurpose::LastAnswer => 1,
                LlmPurpose::Tool { .. } => 2,
                LlmPurpose::ScopeCheck => 3,
            });
            for m in &request.messages {
                see("Role", role(&m.role));
            }
            2
        }
        EventKind::LlmResponse { .. } => 3,
        EventKind::LlmFailed { error } => {
            see("LlmErrorKind", match error.kind {
                LlmErrorKind::Auth => 0,
                LlmErrorKind::NotFound => 1,
                LlmErrorKind::RateLimited => 2,
                LlmErrorKind::Server { .. } => 3,
                LlmErrorKind::ContextLength => 4,
                LlmErrorKind::BadRequest { .. } => 5,
                LlmErrorKind::Network => 6,
                LlmErrorKind::Timeout => 7,
                LlmErrorKind::BadResponse => 8,
                LlmErrorKind::Empty => 9,
                LlmErrorKind::TooLarge { .. } => 10,
                LlmErrorKind::Redirected { .. } => 11,
                LlmErrorKind::ToolsUnsupported => 12,
                LlmErrorKind::Cancelled => 13,
            });
            4
        }
        EventKind::LlmRetry { .. } => 5,
        EventKind::Decided { decision, .. } => {
            see("Decision", match decision {
                Decision::Action { .. } => 0,
                Decision::Final { .. } => 1,
            });
            6
        }
        EventKind::Plan { .. } => 7,
        EventKind::AskedPerson { .. } => 8,
        EventKind::StrategyFallback { from, to, .. } => {
            see("Strategy", strategy(from));
            see("Strategy", strategy(to));
            9
        }
        EventKind::ParseFailed { .. } => 10,
        EventKind::ToolCall { .. } => 11,
        EventKind::ToolResult { .. } => 12,
        EventKind::ToolFailed { .. } => 13,
        EventKind::UnknownTool { .. } => 14,
        EventKind::RepeatedAction { .. } => 15,
        EventKind::FinalAnswer { source, .. } => {
            see("AnswerSource", match source {
                AnswerSource::Model => 0,
                AnswerSource::ReturnDirect => 1,
                AnswerSource::LastAnswer => 2,
                AnswerSource::Direct => 3,
                AnswerSource::Declined => 4,
            });
            16
        }
        EventKind::RunStopped { reason, .. } => {
            see("StopReason", match reason {
                StopReason::Answered => 0,
                StopReason::MaxIterations { .. } => 1,
                StopReason::MaxTime { .. } => 2,
                StopReason::Cancelled => 3,
                StopReason::Interrupted => 4,
                StopReason::ModelFailed => 5,
                StopReason::ToolFailed { .. } => 6,
                StopReason::ParseFailed => 7,
                StopReason::AskedPerson => 8,
            });
            17
        }
        EventKind::ScopeChecked { verdict, .. } => {
            see("ScopeVerdict", match verdict {
                ScopeVerdict::InScope => 0,
                ScopeVerdict::OutOfScope => 1,
                ScopeVerdict::Unreadable => 2,
            });
            18
        }
        EventKind::ApprovalAsked { .. } => 19,
        EventKind::ApprovalGiven { choice, .. } => {
            see("ApprovalChoice", match choice {
                ApprovalChoice::Once => 0,
                ApprovalChoice::Always => 1,
                ApprovalChoice::Denied => 2,
            });
            20
        }
        EventKind::Forked(fork) => {
            see("Change", match fork.change {
                Change::Question { .. } => 0,
                Change::Reply { .. } => 1,
                Change::ToolInput { .. } => 2,
                Change::Observation { .. } => 3,
                Change::AskAgain => 4,
            });
            see("ForkSettings", match fork.settings {
                ForkSettings::Run => 0,
                ForkSettings::Now => 1,
            });
            see("Strategy", strategy(&fork.strategy));
            21
        }
        EventKind::ServerAsked { .. } => 22,
    };
    see("EventKind", n);
}
