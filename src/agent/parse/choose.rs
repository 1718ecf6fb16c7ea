//! Pass 4: the readings a reply allows ("constructs": a JSON tool call, MRKL lines, a
//! `Final Answer:` label, or a broken attempt at one of them) and the choice between them.
//! The construct that starts first wins; broken attempts that only *might* have been tool
//! calls are reported only when nothing usable was found. The chosen tool name is resolved
//! against the tool list here, its input cleaned, and every repair noted.

use serde_json::Value;

use super::blobs::{Blob, Outcome};
use super::error::{error_at, short_name, ParseError, ParseErrorKind};
use super::input::{clean_input, trim_stop_fragment};
use super::labels::{strip_thought, Label, LabelKind};
use super::scan::skip_ws;
use super::tools::{decorated, is_final_name, refused, resolve_tool};
use super::{Parsed, Reply};

pub(super) enum ConstructKind {
    /// A tool call; the name is resolved against `tools` only if it is chosen.
    Action { name: String, input: Value },
    Final { answer: String },
    /// "Final Answer:" label; the answer is `text[from..]`, cut only if chosen
    /// so that many labels do not each copy the rest of the reply.
    FinalLabel { from: usize },
    Error(ParseError),
}

pub(super) struct Construct {
    pub pos: usize,
    /// End of the text this construct owns; later constructs starting inside
    /// it (a label inside an Action Input, say) are part of it, not rivals.
    pub cover_end: usize,
    pub kind: ConstructKind,
    /// Definite constructs compete by position; soft ones (errors on blobs that
    /// only *might* have been tool calls) are reported only if nothing else exists.
    pub definite: bool,
    /// From JSON sitting loose in prose (no fence, no `Action:` label): such a
    /// blob naming an unknown tool may be the model restating the format.
    pub loose: bool,
    pub notes: Vec<String>,
}

/// A tool-name-plus-input pair from any source, checked for the cases that are errors
/// whoever wins (missing input, empty final answer). A decorated name (`search(query)`)
/// is resolved here, since its tail may be the input.
pub(super) fn tool_construct(
    pos: usize,
    cover_end: usize,
    name: &str,
    input: Option<Value>,
    mut notes: Vec<String>,
    src: &str,
    tools: &[&str],
) -> Construct {
    let mut name = if name.contains('\\') { name.trim().replace("\\_", "_") } else { name.trim().to_string() };
    let mut input = input;
    let kind = if is_final_name(&name) {
        match input {
            None => ConstructKind::Error(error_at(ParseErrorKind::MissingActionInput { tool: short_name(&name) }, src)),
            Some(Value::Null) => ConstructKind::Error(error_at(ParseErrorKind::EmptyFinalAnswer, src)),
            Some(Value::String(s)) if s.trim().is_empty() => ConstructKind::Error(error_at(ParseErrorKind::EmptyFinalAnswer, src)),
            Some(Value::String(s)) => ConstructKind::Final { answer: s },
            Some(other) => ConstructKind::Final { answer: other.to_string() },
        }
    } else {
        let known = resolve_tool(&name, tools) != Ok(None);
        if let Some((tool, tail)) = if known { None } else { decorated(&name, tools) } {
            let used_tail = input.is_none() && tail.is_some();
            notes.push(format!(
                "tool name '{}' read as '{tool}'{}",
                short_name(&name),
                if used_tail { ", with what followed the name as the input" } else { "; what followed the name was ignored" }
            ));
            input = input.or(tail);
            name = tool.to_string();
        }
        match input {
            None if !known && refused(&name, tools) => ConstructKind::Error(unknown_tool(&name, tools, src)),
            None => ConstructKind::Error(error_at(ParseErrorKind::MissingActionInput { tool: short_name(&name) }, src)),
            Some(Value::Null) => {
                notes.push("action_input was null; an empty string was passed".to_string());
                ConstructKind::Action { name, input: Value::String(String::new()) }
            }
            Some(v) => ConstructKind::Action { name, input: v },
        }
    };
    Construct { pos, cover_end, kind, definite: true, loose: false, notes }
}

pub(super) fn error_construct(pos: usize, cover_end: usize, err: ParseError, definite: bool) -> Construct {
    Construct { pos, cover_end, kind: ConstructKind::Error(err), definite, loose: false, notes: Vec::new() }
}

fn unknown_tool(name: &str, tools: &[&str], src: &str) -> ParseError {
    let valid = tools.iter().map(|t| t.to_string()).collect();
    error_at(ParseErrorKind::UnknownTool { requested: short_name(name), valid }, src)
}

/// One construct per JSON blob that is not already an MRKL line's input.
pub(super) fn blob_constructs(text: &str, blobs: &[Blob], tools: &[&str], cons: &mut Vec<Construct>) {
    let b = text.as_bytes();
    for blob in blobs.iter().filter(|x| !x.consumed) {
        // The construct starts at its `Action:` label, or at the fence that
        // opens right before it, so the thought excludes both.
        let pos = blob.label.unwrap_or(match blob.fence {
            Some(f) if skip_ws(b, f.content_start) == blob.start => f.start,
            _ => blob.start,
        });
        let src = &text[blob.start..blob.end];
        let labelled = blob.label.is_some();
        let fenced = blob.fence.is_some_and(|f| f.jsonish);
        match &blob.outcome {
            Outcome::Action { name, input } => {
                let mut notes = blob.notes.clone();
                if blob.fence.is_some_and(|f| !f.closed) {
                    notes.push("unclosed code fence".to_string());
                }
                let mut c = tool_construct(pos, blob.end, name, input.clone(), notes, src, tools);
                c.loose = !labelled && blob.fence.is_none();
                cons.push(c);
            }
            Outcome::BadName(found) => {
                let kind = ParseErrorKind::InvalidActionName { found: found.clone() };
                cons.push(error_construct(pos, blob.end, error_at(kind, src), true));
            }
            Outcome::NotAction(_) if labelled || fenced => {
                cons.push(error_construct(pos, blob.end, error_at(ParseErrorKind::MissingActionKey, src), labelled));
            }
            Outcome::Invalid { reason, action_like } if labelled || *action_like || fenced => {
                let kind = ParseErrorKind::InvalidJson { reason: reason.clone() };
                cons.push(error_construct(pos, blob.end, error_at(kind, src), labelled || *action_like));
            }
            _ => {}
        }
    }
}

/// Picks the reading that starts first and turns it into a [`Parsed`].
pub(super) fn choose(text: &str, mut cons: Vec<Construct>, labels: &[Label], tools: &[&str], extra_notes: Vec<String>) -> Result<Parsed, ParseError> {
    crate::sort::sort_by_key(&mut cons, |c| c.pos);
    let mut kept: Vec<Construct> = Vec::with_capacity(cons.len());
    let mut covered = 0;
    for c in cons {
        if c.pos < covered {
            continue;
        }
        covered = covered.max(c.cover_end);
        kept.push(c);
    }

    // "The format is {"action": "tool", ...}. Final Answer: 42": an inline
    // object naming no known tool, followed by something usable, is an example.
    let last_definite = kept.iter().rposition(|c| c.definite);
    let mut examples = Vec::new();
    let first = kept.iter().enumerate().position(|(i, c)| {
        if !c.definite {
            return false;
        }
        if let ConstructKind::Action { name, .. } = &c.kind {
            if c.loose && !tools.is_empty() && last_definite > Some(i) && resolve_tool(name, tools) == Ok(None) {
                examples.push(name.clone());
                return false;
            }
        }
        true
    });
    let Some(idx) = first else {
        return Err(match kept.into_iter().find_map(|c| match c.kind {
            ConstructKind::Error(e) => Some(e),
            _ => None,
        }) {
            Some(e) => e,
            None => error_at(ParseErrorKind::NoActionOrAnswer, text),
        });
    };

    let later = &kept[idx + 1..];
    let later_final = later.iter().any(|c| matches!(c.kind, ConstructKind::Final { .. } | ConstructKind::FinalLabel { .. }));
    let later_tools: Vec<String> = later
        .iter()
        .filter_map(|c| match &c.kind {
            ConstructKind::Action { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let ignored = describe_ignored(&later_tools, tools);
    let later_broken = later.iter().any(|c| c.definite && matches!(c.kind, ConstructKind::Error(_)));
    // A final answer stops at the first tool call or `Action:` line after it.
    let later_call = later
        .iter()
        .find(|c| matches!(c.kind, ConstructKind::Action { .. }) || (c.definite && matches!(c.kind, ConstructKind::Error(_))))
        .map(|c| c.pos);
    let stray = |from: usize| {
        let line = labels.iter().find(|l| l.line_start && l.start >= from && matches!(l.kind, LabelKind::Action | LabelKind::ActionInput));
        later_call.into_iter().chain(line.map(|l| l.start)).min()
    };

    let Some(chosen) = kept.into_iter().nth(idx) else {
        return Err(error_at(ParseErrorKind::NoActionOrAnswer, text));
    };
    let mut notes = chosen.notes;
    let reply = match chosen.kind {
        ConstructKind::Error(e) => return Err(e),
        ConstructKind::Action { name, input } => {
            let tool = match resolve_tool(&name, tools) {
                Ok(Some(canon)) => {
                    if canon != name {
                        let how = if canon.to_lowercase() == name.to_lowercase() {
                            "case-insensitively"
                        } else {
                            "after ignoring case, spaces, '_' and '-'"
                        };
                        notes.push(format!("tool name matched {how}: '{name}' -> '{canon}'"));
                    }
                    canon.to_string()
                }
                Ok(None) if refused(&name, tools) => return Err(unknown_tool(&name, tools, &text[chosen.pos..chosen.cover_end])),
                Ok(None) => name,
                Err(candidates) => {
                    let kind = ParseErrorKind::AmbiguousToolName {
                        name: short_name(&name),
                        candidates: candidates.iter().map(|c| c.to_string()).collect(),
                    };
                    return Err(error_at(kind, &name));
                }
            };
            let (input, cleaned) = clean_input(input, &tool);
            notes.extend(cleaned);
            if later_final {
                notes.push("the reply had both an action and a final answer; the action came first, so it was used".to_string());
            }
            if let Some(list) = ignored {
                notes.push(format!("{} actions were given; only the first was used (ignored: {list})", later_tools.len() + 1));
            }
            Reply::Action { tool, input }
        }
        ConstructKind::Final { answer } => Reply::Final { answer },
        ConstructKind::FinalLabel { from } => {
            let mut answer = text[from..].trim();
            if let Some(end) = stray(from) {
                answer = text[from..end].trim();
                notes.push("the answer ends where the Action lines after it begin; those lines were left out".to_string());
            }
            if let Some(kept) = trim_stop_fragment(answer) {
                answer = kept.trim();
                notes.push("dropped the start of an \"Observation:\" label cut short at the end".to_string());
            }
            if answer.is_empty() {
                return Err(error_at(ParseErrorKind::EmptyFinalAnswer, &text[chosen.pos..]));
            }
            Reply::Final { answer: answer.to_string() }
        }
    };
    if matches!(reply, Reply::Final { .. }) && !later_tools.is_empty() {
        notes.push(
            "the reply had both a final answer and an action; the final answer came first, so it was used and the action was not run"
                .to_string(),
        );
    }
    for name in examples.iter().take(3) {
        notes.push(format!(
            "ignored an inline JSON object naming the unknown tool '{}': it looked like an example, and the reply went on",
            short_name(name)
        ));
    }
    if later_broken {
        notes.push("a later part of the reply looked like another tool call but could not be read; it was ignored".to_string());
    }
    notes.extend(extra_notes);
    let thought = strip_thought(&text[..chosen.pos]);
    Ok(Parsed { reply, thought: (!thought.is_empty()).then(|| thought.to_string()), notes, direct: false })
}

/// "search, calculator" for the note about extra actions; long lists are cut
/// so a runaway reply cannot produce a megabyte of notes.
fn describe_ignored(names: &[String], tools: &[&str]) -> Option<String> {
    const SHOWN: usize = 5;
    if names.is_empty() {
        return None;
    }
    let mut list: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| match resolve_tool(n, tools) {
            Ok(Some(c)) => c.to_string(),
            _ => n.trim().to_string(),
        })
        .collect();
    if names.len() > SHOWN {
        list.push(format!("and {} more", names.len() - SHOWN));
    }
    Some(list.join(", "))
}
