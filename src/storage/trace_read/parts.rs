//! The readers of the types inside an event: the small enums, the recorded request and its
//! messages, the model's errors and token counts. Same rules as the parent module.

use serde_json::Value;

use crate::json_read::{any, boolean, float, float32, list, read_variant, string, strings, tagged, uint16, uint32, Fields, Read, ReadError, Variant};
use crate::agent::model::{JsonFormat, LlmError, LlmErrorKind, Message, Role, ToolCall, ToolSpec, Usage};
use crate::agent::fork::{Change, ForkSettings};
use crate::agent::request_record::RequestRecord;
use crate::agent::settings::Strategy;
use crate::agent::trace::{AnswerSource, ApprovalChoice, Decision, LlmPurpose, ScopeVerdict, StopReason};

use Variant::{Struct, Unit};

pub(super) fn llm_purpose(value: &Value) -> Read<LlmPurpose> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "step" => Some(Unit(LlmPurpose::Step)),
        "last_answer" => Some(Unit(LlmPurpose::LastAnswer)),
        "tool" => Some(Struct(|f| Ok(LlmPurpose::Tool { tool: f.get("tool", string)? }))),
        "scope_check" => Some(Unit(LlmPurpose::ScopeCheck)),
        _ => None,
    };
    read_variant(tag, inner, variant, "purpose")
}

pub(super) fn decision(value: &Value) -> Read<Decision> {
    let (tag, inner) = tagged(value)?;
    let variant: Option<Variant<Decision>> = match tag {
        "action" => Some(Struct(|f| Ok(Decision::Action { tool: f.get("tool", string)?, input: f.get("input", any)? }))),
        "final" => Some(Struct(|f| Ok(Decision::Final { answer: f.get("answer", string)? }))),
        _ => None,
    };
    read_variant(tag, inner, variant, "decision")
}

pub(super) fn answer_source(value: &Value) -> Read<AnswerSource> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "model" => Some(AnswerSource::Model),
        "return_direct" => Some(AnswerSource::ReturnDirect),
        "last_answer" => Some(AnswerSource::LastAnswer),
        "direct" => Some(AnswerSource::Direct),
        "declined" => Some(AnswerSource::Declined),
        _ => None,
    };
    read_variant(tag, inner, variant.map(Unit), "answer source")
}

pub(super) fn approval_choice(value: &Value) -> Read<ApprovalChoice> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "once" => Some(ApprovalChoice::Once),
        "always" => Some(ApprovalChoice::Always),
        "denied" => Some(ApprovalChoice::Denied),
        _ => None,
    };
    read_variant(tag, inner, variant.map(Unit), "approval choice")
}

pub(super) fn scope_verdict(value: &Value) -> Read<ScopeVerdict> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "in_scope" => Some(ScopeVerdict::InScope),
        "out_of_scope" => Some(ScopeVerdict::OutOfScope),
        "unreadable" => Some(ScopeVerdict::Unreadable),
        _ => None,
    };
    read_variant(tag, inner, variant.map(Unit), "scope verdict")
}

pub(super) fn stop_reason(value: &Value) -> Read<StopReason> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "answered" => Some(Unit(StopReason::Answered)),
        "max_iterations" => Some(Struct(|f| Ok(StopReason::MaxIterations { limit: f.get("limit", uint32)? }))),
        "max_time" => Some(Struct(|f| Ok(StopReason::MaxTime { limit_ms: f.get("limit_ms", float)? }))),
        "cancelled" => Some(Unit(StopReason::Cancelled)),
        "interrupted" => Some(Unit(StopReason::Interrupted)),
        "model_failed" => Some(Unit(StopReason::ModelFailed)),
        "tool_failed" => Some(Struct(|f| Ok(StopReason::ToolFailed { tool: f.get("tool", string)? }))),
        "parse_failed" => Some(Unit(StopReason::ParseFailed)),
        // `AskedPerson`, under its first tag.
        "needs_input" => Some(Unit(StopReason::AskedPerson)),
        _ => None,
    };
    read_variant(tag, inner, variant, "stop reason")
}

pub(super) fn change(value: &Value) -> Read<Change> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "question" => Some(Struct(|f| Ok(Change::Question { text: f.get("text", string)? }))),
        "reply" => Some(Struct(|f| Ok(Change::Reply { text: f.get("text", string)? }))),
        "tool_input" => Some(Struct(|f| Ok(Change::ToolInput { tool: f.get("tool", string)?, input: f.get("input", any)? }))),
        "observation" => Some(Struct(|f| Ok(Change::Observation { tool: f.get("tool", string)?, text: f.get("text", string)? }))),
        "ask_again" => Some(Unit(Change::AskAgain)),
        _ => None,
    };
    read_variant(tag, inner, variant, "change")
}

pub(super) fn fork_settings(value: &Value) -> Read<ForkSettings> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "run" => Some(ForkSettings::Run),
        "now" => Some(ForkSettings::Now),
        _ => None,
    };
    read_variant(tag, inner, variant.map(Unit), "fork settings")
}

pub(super) fn strategy(value: &Value) -> Read<Strategy> {
    let (tag, inner) = tagged(value)?;
    read_variant(tag, inner, Strategy::from_id(tag).map(Unit), "strategy")
}

pub(super) fn role(value: &Value) -> Read<Role> {
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "system" => Some(Role::System),
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "tool" => Some(Role::Tool),
        _ => None,
    };
    read_variant(tag, inner, variant.map(Unit), "role")
}

pub(super) fn message(value: &Value) -> Read<Message> {
    let f = Fields::of(value)?;
    Ok(Message {
        role: f.get("role", role)?,
        content: f.get("content", string)?,
        tool_calls: f.or_default("tool_calls", |v| list(v, tool_call))?,
        tool_call_id: f.option("tool_call_id", string)?,
    })
}

pub(super) fn tool_call(value: &Value) -> Read<ToolCall> {
    let f = Fields::of(value)?;
    Ok(ToolCall { id: f.get("id", string)?, name: f.get("name", string)?, arguments: f.get("arguments", string)? })
}

pub(super) fn tool_spec(value: &Value) -> Read<ToolSpec> {
    let f = Fields::of(value)?;
    Ok(ToolSpec { name: f.get("name", string)?, description: f.get("description", string)?, parameters: f.get("parameters", any)? })
}

pub(super) fn json_format(value: &Value) -> Read<JsonFormat> {
    let f = Fields::of(value)?;
    Ok(JsonFormat { name: f.get("name", string)?, schema: f.get("schema", any)? })
}

pub(super) fn usage(value: &Value) -> Read<Usage> {
    let f = Fields::of(value)?;
    Ok(Usage {
        prompt_tokens: f.get("prompt_tokens", uint32)?,
        completion_tokens: f.get("completion_tokens", uint32)?,
        cached_tokens: f.option("cached_tokens", uint32)?,
        reasoning_tokens: f.option("reasoning_tokens", uint32)?,
    })
}

/// A reply's usage as the page shows it: counts an earlier release estimated (`estimated:
/// true`, for a server that reported none) read as unknown, since only reported counts count.
pub(super) fn reported_usage(value: &Value) -> Read<Option<Usage>> {
    if Fields::of(value)?.or_default("estimated", boolean)? {
        return Ok(None);
    }
    usage(value).map(Some)
}

pub(super) fn llm_error(value: &Value) -> Read<LlmError> {
    let f = Fields::of(value)?;
    Ok(LlmError { kind: f.get("kind", llm_error_kind)?, message: f.get("message", string)? })
}

pub(super) fn llm_error_kind(value: &Value) -> Read<LlmErrorKind> {
    use LlmErrorKind as E;
    let (tag, inner) = tagged(value)?;
    let variant = match tag {
        "auth" => Some(Unit(E::Auth)),
        "not_found" => Some(Unit(E::NotFound)),
        "rate_limited" => Some(Unit(E::RateLimited)),
        "server" => Some(Struct(|f| Ok(E::Server { status: f.get("status", uint16)? }))),
        "context_length" => Some(Unit(E::ContextLength)),
        "bad_request" => Some(Struct(|f| Ok(E::BadRequest { status: f.get("status", uint16)? }))),
        "network" => Some(Unit(E::Network)),
        "timeout" => Some(Unit(E::Timeout)),
        "bad_response" => Some(Unit(E::BadResponse)),
        "empty" => Some(Unit(E::Empty)),
        "too_large" => Some(Struct(|f| Ok(E::TooLarge { limit_kb: f.get("limit_kb", uint32)? }))),
        // `to` has no `#[serde(default)]`, but serde reads a missing `Option` as `None` too.
        "redirected" => Some(Struct(|f| Ok(E::Redirected { to: f.option("to", string)? }))),
        "tools_unsupported" => Some(Unit(E::ToolsUnsupported)),
        "cancelled" => Some(Unit(E::Cancelled)),
        _ => None,
    };
    read_variant(tag, inner, variant, "model error")
}

/// A quote of a request record: exactly four whole numbers.
fn quote(value: &Value) -> Read<[u32; 4]> {
    let numbers = list(value, uint32)?;
    <[u32; 4]>::try_from(numbers).map_err(|_| ReadError::new("expected a list of 4 numbers"))
}

pub(super) fn request_record(value: &Value) -> Read<RequestRecord> {
    let f = Fields::of(value)?;
    Ok(RequestRecord {
        base_back: f.or_default("base_back", uint32)?,
        kept: f.or_default("kept", uint32)?,
        kept_text: f.or_default("kept_text", uint32)?,
        kept_tools: f.or_default("kept_tools", boolean)?,
        messages: f.get("messages", |v| list(v, message))?,
        quotes: f.or_default("quotes", |v| list(v, quote))?,
        stop: f.get("stop", strings)?,
        temperature: f.get("temperature", float32)?,
        max_tokens: f.option("max_tokens", uint32)?,
        tools: f.or_default("tools", |v| list(v, tool_spec))?,
        json_format: f.option("json_format", json_format)?,
    })
}
