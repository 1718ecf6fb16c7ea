//! Reading the trace family back from JSON, by hand: `Trace`, `Event`, `EventKind` and every
//! type inside them (here and in `parts`).
//!
//! Why not `#[derive(Deserialize)]`: the derived readers were the largest code in the WASM
//! bundle (`EventKind`'s alone was its biggest function), because each one is a generic state
//! machine compiled for the JSON reader. Here the input is read once into a `serde_json::Value`
//! (a reader the app has anyway) and the tree is converted by plain functions.
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

use serde::de::{Deserialize, Deserializer, Error as _};
use serde_json::{Map, Value};
use std::fmt;

use super::model::{JsonFormat, LlmError, LlmErrorKind, Message, Role, ToolCall, ToolSpec, Usage};
use super::request_record::RequestRecord;
use super::settings::Strategy;
use super::trace::{AnswerSource, Decision, Event, EventKind, LlmPurpose, StopReason, Trace};

mod parts;
#[cfg(test)]
mod tests;

use parts::{answer_source, decision, llm_error, llm_purpose, request_record, stop_reason, strategy, tool_call, usage};

/// What is wrong with the input, and where: `path` leads from the value being read to the part.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    path: String,
    problem: String,
}

impl ReadError {
    fn new(problem: impl Into<String>) -> Self {
        ReadError { path: String::new(), problem: problem.into() }
    }

    /// The same error, seen from the value that holds the part under `segment`.
    fn at(mut self, segment: &str) -> Self {
        if !self.path.is_empty() && !self.path.starts_with('[') {
            self.path.insert(0, '.');
        }
        self.path.insert_str(0, segment);
        self
    }

    fn at_index(self, index: usize) -> Self {
        self.at(&format!("[{index}]"))
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.path, self.problem)
        }
    }
}

type Read<T> = Result<T, ReadError>;

/// A reader of one part of the tree.
type ReadFn<T> = fn(&Value) -> Read<T>;

/// The fields of a struct (or of a struct variant). Fields it does not ask for are ignored.
struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    fn of(value: &'a Value) -> Read<Self> {
        value.as_object().map(Fields).ok_or_else(|| ReadError::new("expected an object"))
    }

    /// A field that must be there.
    fn get<T>(&self, name: &str, read: ReadFn<T>) -> Read<T> {
        match self.0.get(name) {
            Some(value) => read(value).map_err(|e| e.at(name)),
            None => Err(ReadError::new("missing").at(name)),
        }
    }

    /// A `#[serde(default)]` field: missing reads as the default (`null` does not).
    fn or_default<T: Default>(&self, name: &str, read: ReadFn<T>) -> Read<T> {
        match self.0.get(name) {
            Some(value) => read(value).map_err(|e| e.at(name)),
            None => Ok(T::default()),
        }
    }

    /// An `Option` field: missing or `null` is `None`.
    fn option<T>(&self, name: &str, read: ReadFn<T>) -> Read<Option<T>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => read(value).map(Some).map_err(|e| e.at(name)),
        }
    }
}

fn string(value: &Value) -> Read<String> {
    value.as_str().map(str::to_owned).ok_or_else(|| ReadError::new("expected a string"))
}

fn boolean(value: &Value) -> Read<bool> {
    value.as_bool().ok_or_else(|| ReadError::new("expected true or false"))
}

/// Any number, integers included (as serde reads an `f64`).
fn float(value: &Value) -> Read<f64> {
    value.as_f64().ok_or_else(|| ReadError::new("expected a number"))
}

fn float32(value: &Value) -> Read<f32> {
    float(value).map(|n| n as f32)
}

/// A whole number from 0 to `max`: a number written with a fraction or an exponent is not
/// one, as serde reads integers.
fn whole(value: &Value, max: u64) -> Read<u64> {
    value.as_u64().filter(|&n| n <= max).ok_or_else(|| ReadError::new(format!("expected a whole number from 0 to {max}")))
}

fn uint32(value: &Value) -> Read<u32> {
    whole(value, u32::MAX.into()).map(|n| n as u32)
}

fn uint16(value: &Value) -> Read<u16> {
    whole(value, u16::MAX.into()).map(|n| n as u16)
}

fn size(value: &Value) -> Read<usize> {
    whole(value, usize::MAX as u64).map(|n| n as usize)
}

/// A JSON value kept as it is (a tool's input, a schema).
fn any(value: &Value) -> Read<Value> {
    Ok(value.clone())
}

fn list<T>(value: &Value, read: ReadFn<T>) -> Read<Vec<T>> {
    let items = value.as_array().ok_or_else(|| ReadError::new("expected a list"))?;
    items.iter().enumerate().map(|(i, item)| read(item).map_err(|e| e.at_index(i))).collect()
}

fn strings(value: &Value) -> Read<Vec<String>> {
    list(value, string)
}

/// How a known tag of an enum reads.
enum Variant<T> {
    /// A unit variant: its tag as a string, or the tag with `null`.
    Unit(T),
    /// A struct variant: the tag with an object of its fields.
    Struct(fn(&Fields) -> Read<T>),
}

/// An externally tagged enum value: its tag and what the tag holds (`None` for the string form).
fn tagged(value: &Value) -> Read<(&str, Option<&Value>)> {
    let tagged = match value {
        Value::String(tag) => Some((tag.as_str(), None)),
        Value::Object(map) if map.len() == 1 => map.iter().next().map(|(tag, inner)| (tag.as_str(), Some(inner))),
        _ => None,
    };
    tagged.ok_or_else(|| ReadError::new("expected a name, or an object with one key"))
}

/// Reads the enum value `value` with `variant`, which says how its tag reads (`None`: unknown).
fn read_variant<T>(tag: &str, inner: Option<&Value>, variant: Option<Variant<T>>, what: &str) -> Read<T> {
    let read = match variant {
        None => {
            // The tag comes from outside: a bounded piece of it is enough to find it.
            let shown: String = tag.chars().take(40).collect();
            return Err(ReadError::new(format!("unknown {what} \"{shown}\"")));
        }
        Some(Variant::Unit(value)) => match inner {
            None | Some(Value::Null) => Ok(value),
            Some(_) => Err(ReadError::new("expected no fields")),
        },
        Some(Variant::Struct(read)) => match inner {
            Some(inner) => Fields::of(inner).and_then(|fields| read(&fields)),
            None => Err(ReadError::new("expected an object of fields")),
        },
    };
    read.map_err(|e| e.at(tag))
}

fn trace(value: &Value) -> Read<Trace> {
    Ok(Trace { events: Fields::of(value)?.get("events", events)? })
}

fn events(value: &Value) -> Read<Vec<Event>> {
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
            })
        })),
        "person_replied" => Some(Struct(|f| Ok(K::PersonAnswered { answer: f.get("reply", string)? }))),
        "llm_request" => Some(Struct(|f| Ok(K::LlmRequest { purpose: f.get("purpose", llm_purpose)?, request: f.get("request", request_record)? }))),
        "llm_response" => Some(Struct(|f| {
            Ok(K::LlmResponse {
                text: f.get("text", string)?,
                discarded: f.option("discarded", string)?,
                usage: f.option("usage", usage)?,
                latency_ms: f.get("latency_ms", float)?,
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
        _ => None,
    };
    read_variant(tag, inner, variant, "event kind")
}

/// `Deserialize` for each type of the family: the value read whole, then converted.
macro_rules! deserialize_via_value {
    ($($ty:ty => $read:path),* $(,)?) => {$(
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $read(&Value::deserialize(deserializer)?).map_err(D::Error::custom)
            }
        }
    )*};
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
