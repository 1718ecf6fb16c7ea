//! Reading the trace family back from JSON, by hand: `Trace`, `Event`, `EventKind` and every
//! type inside them (here and in `parts`).
//!
//! Why not `#[derive(Deserialize)]`: the derived readers were the largest code in the WASM
//! bundle (`EventKind`'s alone was its biggest function). Here the input is read once into a
//! `serde_json::Value` and the tree is converted by plain functions, built from the shared
//! pieces in `crate::json_read`.
//!
//! **Invariant:** this accepts what the derived readers accepted, because chats in the browser's
//! database and exported runs of every release are read with it: externally tagged enums (a unit
//! variant as `"answered"` or `{"answered": null}`, a struct variant as `{"tool_call": {...}}`),
//! the renamed tags, `#[serde(default)]` fields, `Option` fields missing or `null`, unknown
//! fields ignored, integers range-checked, floats that may be written as integers. The one
//! difference: the derived readers also took a struct as a positional array, a form nothing
//! ever wrote, which is refused here. Serialising stays derived and unchanged.
//!
//! A wrong or missing part is an error naming its path (`kind.llm_response.latency_ms: expected
//! a number`); nothing here panics, whatever the input.

use serde_json::Value;

use crate::agent::fork::Fork;
use crate::agent::model::{JsonFormat, LlmError, LlmErrorKind, Message, ModelName, Role, ToolCall, ToolSpec, Usage};
use crate::agent::request_record::RequestRecord;
use crate::agent::settings::Strategy;
use crate::agent::trace::{AnswerSource, Decision, Event, EventKind, LlmPurpose, StopReason, Trace};

use crate::json_read::{any, boolean, deserialize_via_value, float, list, read_variant, size, string, strings, tagged, uint32, Fields, Read, Variant};

mod parts;
#[cfg(test)]
mod tests;

use parts::{answer_source, approval_choice, decision, llm_error, llm_purpose, request_record, scope_verdict, stop_reason, strategy, tool_call, usage};

pub(crate) fn trace(value: &Value) -> Read<Trace> {
    Ok(Trace { events: Fields::of(value)?.get("events", events)? })
}

pub(crate) fn events(value: &Value) -> Read<Vec<Event>> {
    list(value, event)
}

fn event(value: &Value) -> Read<Event> {
    let f = Fields::of(value)?;
    Ok(Event {
        index: f.get("index", uint32)?,
        step: f.get("step", uint32)?,
        started_ms: f.get("started_ms", float)?,
        ended_ms: f.get("ended_ms", float)?,
        kind: f.get("kind", event_kind)?,
    })
}

/// The tags are the stored ones (see `EventKind`), renamed variants under their first tag.
fn event_kind(value: &Value) -> Read<EventKind> {
    use EventKind as K;
    use Variant::Struct;
    let (tag, inner) = tagged(value)?;
    let variant: Option<Variant<EventKind>> = match tag {
        "run_started" => Some(Struct(|f| {
            Ok(K::RunStarted {
                question: f.get("question", string)?,
                tools: f.get("tools", strings)?,
                history_turns: f.get("history_turns", size)?,
                started_unix_ms: f.get("started_unix_ms", float)?,
                strategy: f.or_default("strategy", strategy)?,
                continues: f.or_default("continues", boolean)?,
                model: ModelName { provider: f.or_default("provider", string)?, model: f.or_default("model", string)? },
            })
        })),
        "person_replied" => Some(Struct(|f| Ok(K::PersonAnswered { answer: f.get("reply", string)? }))),
        "llm_request" => Some(Struct(|f| Ok(K::LlmRequest { purpose: f.get("purpose", llm_purpose)?, request: f.get("request", request_record)? }))),
        "llm_response" => Some(Struct(|f| {
            Ok(K::LlmResponse {
                text: f.get("text", string)?,
                discarded: f.option("discarded", string)?,
                usage: f.option("usage", parts::reported_usage)?.flatten(),
                latency_ms: f.get("latency_ms", float)?,
                first_token_ms: f.option("first_token_ms", float)?,
                finish_reason: f.option("finish_reason", string)?,
                incomplete: f.or_default("incomplete", boolean)?,
                tool_calls: f.or_default("tool_calls", |v| list(v, tool_call))?,
            })
        })),
        "llm_failed" => Some(Struct(|f| Ok(K::LlmFailed { error: f.get("error", llm_error)? }))),
        "llm_retry" => Some(Struct(|f| {
            Ok(K::LlmRetry { attempt: f.get("attempt", uint32)?, wait_ms: f.get("wait_ms", float)?, reason: f.get("reason", string)? })
        })),
        "parsed" => Some(Struct(|f| {
            Ok(K::Decided { thought: f.option("thought", string)?, decision: f.get("decision", decision)?, notes: f.or_default("notes", strings)? })
        })),
        "plan" => Some(Struct(|f| {
            Ok(K::Plan {
                items: f.get("items", strings)?,
                version: f.get("version", uint32)?,
                replan: f.get("replan", boolean)?,
                observation: f.option("observation", string)?,
            })
        })),
        "clarify" => Some(Struct(|f| Ok(K::AskedPerson { question: f.get("question", string)? }))),
        "strategy_fallback" => Some(Struct(|f| {
            Ok(K::StrategyFallback { from: f.get("from", strategy)?, to: f.get("to", strategy)?, reason: f.get("reason", string)? })
        })),
        "parse_failed" => Some(Struct(|f| {
            Ok(K::ParseFailed {
                message: f.get("message", string)?,
                excerpt: f.get("excerpt", string)?,
                count: f.get("count", uint32)?,
                fed_back: f.get("fed_back", boolean)?,
                observation: f.get("observation", string)?,
            })
        })),
        "tool_call" => Some(Struct(|f| Ok(K::ToolCall { tool: f.get("tool", string)?, input: f.get("input", any)?, via: f.option("via", string)? }))),
        "tool_result" => Some(Struct(|f| Ok(K::ToolResult { tool: f.get("tool", string)?, observation: f.get("observation", string)? }))),
        "approval_asked" => Some(Struct(|f| Ok(K::ApprovalAsked { tool: f.get("tool", string)?, input: f.get("input", any)?, via: f.option("via", string)? }))),
        "approval_given" => Some(Struct(|f| Ok(K::ApprovalGiven { tool: f.get("tool", string)?, choice: f.get("choice", approval_choice)? }))),
        "server_asked" => Some(Struct(|f| {
            Ok(K::ServerAsked { server: f.get("server", string)?, question: f.get("question", string)?, answer: f.get("answer", string)?, accepted: f.get("accepted", boolean)? })
        })),
        "tool_failed" => Some(Struct(|f| {
            Ok(K::ToolFailed {
                tool: f.get("tool", string)?,
                message: f.get("message", string)?,
                timed_out: f.get("timed_out", boolean)?,
                fed_back: f.get("fed_back", boolean)?,
            })
        })),
        "unknown_tool" => Some(Struct(|f| Ok(K::UnknownTool { requested: f.get("requested", string)?, valid: f.get("valid", strings)? }))),
        "repeated_action" => Some(Struct(|f| {
            Ok(K::RepeatedAction { tool: f.get("tool", string)?, input: f.get("input", any)?, times: f.get("times", uint32)? })
        })),
        "final_answer" => Some(Struct(|f| Ok(K::FinalAnswer { answer: f.get("answer", string)?, source: f.get("source", answer_source)? }))),
        "run_stopped" => Some(Struct(|f| Ok(K::RunStopped { reason: f.get("reason", stop_reason)?, message: f.get("message", string)? }))),
        "scope_checked" => Some(Struct(|f| Ok(K::ScopeChecked { verdict: f.get("verdict", scope_verdict)?, reason: f.get("reason", string)? }))),
        "forked" => Some(Struct(|f| {
            Ok(K::Forked(Box::new(Fork {
                branch: f.get("branch", uint32)?,
                from: f.get("from", uint32)?,
                change: f.get("change", parts::change)?,
                settings: f.get("settings", parts::fork_settings)?,
                model: ModelName { provider: f.or_default("provider", string)?, model: f.or_default("model", string)? },
                strategy: f.or_default("strategy", strategy)?,
            })))
        })),
        _ => None,
    };
    read_variant(tag, inner, variant, "event kind")
}

deserialize_via_value! {
    Trace => trace,
    Event => event,
    EventKind => event_kind,
    LlmPurpose => llm_purpose,
    Decision => decision,
    AnswerSource => answer_source,
    StopReason => stop_reason,
    Strategy => strategy,
    RequestRecord => request_record,
    Message => parts::message,
    Role => parts::role,
    ToolCall => tool_call,
    ToolSpec => parts::tool_spec,
    JsonFormat => parts::json_format,
    Usage => usage,
    LlmError => llm_error,
    LlmErrorKind => parts::llm_error_kind,
}
