//! Builds what the model sees from the trace: the system prompt (tools + format rules), earlier
//! turns as memory, the question, and the scratchpad of this run's steps. Pure and derived:
//! there is no scratchpad string kept anywhere else, so what the trace shows is what the model saw.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::model::{ChatRequest, Message};
use super::settings::AgentSettings;
use super::tool::Tool;
use super::trace::{EventKind, LlmPurpose, Trace};

/// Sent as a stop sequence and enforced on the reply, so the model cannot invent tool results.
pub const OBSERVATION: &str = "Observation:";

/// The built-in system prompt. `{tools}` becomes one line per tool, `{tool_names}` a comma list.
pub const DEFAULT_SYSTEM_TEMPLATE: &str = r#"You are Thoughtline, an assistant that answers questions by thinking step by step and using tools when they help.

You can use these tools:
{tools}

Every reply starts with "Thought:" followed by a short note on what you know and what you still need. Then do exactly one of two things.

1. Use a tool. Write "Action:" and, on the next lines, one JSON object in a ```json code block with exactly two keys: "action", the name of the tool (one of: {tool_names}), and "action_input", the input for it. For example:

Thought: I should look this up.
Action:
```json
{"action": "TOOL NAME", "action_input": "INPUT FOR THE TOOL"}
```

Then stop writing. The tool's result is sent back to you after "Observation:", and you continue with a new "Thought:".

2. Answer. When you know enough, write:

Thought: I can answer now.
Final Answer: the complete answer for the person, in the language of their question.

Rules: one action per reply. Never write "Observation:" yourself. Use only the tools listed above. If no tool fits, answer from your own knowledge with "Final Answer:"."#;

/// Added to the last request when a limit was reached and early stopping is "generate".
pub const LAST_ANSWER_REQUEST: &str = "You have no steps left. Do not use any tool. Reply with \"Final Answer:\" followed by the best answer you can give from the observations above, and say what is uncertain.";

/// An earlier question and its answer, kept as conversation memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub question: String,
    pub answer: String,
}

/// Fills the template's placeholders from the tools.
pub fn render_system(template: &str, tools: &[&dyn Tool]) -> String {
    let list = if tools.is_empty() {
        "(no tools are enabled: answer from your own knowledge)".to_string()
    } else {
        tools
            .iter()
            .map(|t| format!("- {}: {}", t.name(), t.description()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let names = tools.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ");
    template.replace("{tools}", &list).replace("{tool_names}", &names)
}

/// What is missing from a user's template, for Settings to warn about. We never patch the
/// template behind the person's back.
pub fn template_problems(template: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if !template.contains("{tools}") {
        problems.push("The template has no {tools} placeholder, so the model will not be told which tools exist.".into());
    }
    if !template.contains("action_input") {
        problems.push("The template does not mention \"action_input\": the model may not know the action format.".into());
    }
    if !template.contains("Final Answer") {
        problems.push("The template does not mention \"Final Answer\": the model may never finish.".into());
    }
    problems
}

/// Cuts `text` to at most `limit` characters (on a char boundary) with a visible marker.
pub fn truncate_observation(text: &str, limit: usize) -> Cow<'_, str> {
    match split_observation(text, limit) {
        (kept, None) => Cow::Borrowed(kept),
        (kept, Some(total)) => Cow::Owned(format!("{kept}{}", cut_marker(limit, total))),
    }
}

fn cut_marker(limit: usize, total: usize) -> String {
    format!("\n[… cut: showing {limit} of {total} characters]")
}

/// The first `limit` characters of `text`, and its length in characters when it is longer.
///
/// This runs for every observation on every step, so it counts UTF-8 lead bytes instead of
/// decoding chars: a text of at most `limit` bytes cannot be too long, and the rest is a
/// plain byte scan.
fn split_observation(text: &str, limit: usize) -> (&str, Option<usize>) {
    if text.len() <= limit {
        return (text, None);
    }
    let is_lead = |b: &u8| (*b as i8) >= -0x40; // not a continuation byte (0b10xx_xxxx)
    let total = text.as_bytes().iter().filter(|b| is_lead(b)).count();
    if total <= limit {
        return (text, None);
    }
    // The byte offset where char number `limit` starts.
    let cut = text.as_bytes().iter().enumerate().filter(|(_, b)| is_lead(b)).nth(limit).map_or(text.len(), |(i, _)| i);
    (&text[..cut], Some(total))
}

/// The observation the model receives for an event, if the event produces one.
pub fn observation_for(kind: &EventKind, limit: usize) -> Option<Cow<'_, str>> {
    let owned = match kind {
        EventKind::ToolResult { observation, .. } => return Some(truncate_observation(observation, limit)),
        EventKind::ParseFailed { observation, fed_back: true, .. } => return Some(Cow::Borrowed(observation)),
        EventKind::ToolFailed { tool, message, fed_back: true, .. } => {
            Some(format!("The tool \"{tool}\" failed: {message}"))
        }
        EventKind::UnknownTool { requested, valid } => Some(if valid.is_empty() {
            format!("\"{requested}\" is not a tool you can use: no tools are enabled. Answer with \"Final Answer:\".")
        } else {
            format!(
                "\"{requested}\" is not a tool you can use. Use one of: {}. If none fits, answer with \"Final Answer:\".",
                valid.join(", ")
            )
        }),
        EventKind::RepeatedAction { tool, input, times } => Some(format!(
            "You have asked \"{tool}\" for {} {times} times in a row; the result will not change. Use the observations you already have, try a different input, or give your Final Answer.",
            input
        )),
        _ => None,
    };
    owned.map(Cow::Owned)
}

/// This run's steps as text: each reply of the model followed by what it observed, ending with
/// "Thought:" so the model continues the pattern. Empty before the first step.
pub fn scratchpad(trace: &Trace, observation_limit: usize) -> String {
    let mut out = String::new();
    write_scratchpad(trace, observation_limit, &mut out);
    out
}

/// Appends the scratchpad to `out`: the prompt is built in one buffer, without an
/// intermediate copy of what can be hundreds of kilobytes late in a long run.
fn write_scratchpad(trace: &Trace, observation_limit: usize, out: &mut String) {
    let start = out.len();
    // Replies to a tool's own model calls are not steps of the agent.
    let mut in_step_call = false;
    for event in &trace.events {
        match &event.kind {
            EventKind::LlmRequest { purpose, .. } => in_step_call = *purpose == LlmPurpose::Step,
            EventKind::LlmResponse { text, .. } if in_step_call => {
                out.push_str(text.trim_end());
                out.push('\n');
            }
            // The common case, written straight into the prompt: no copy per observation.
            EventKind::ToolResult { observation, .. } => {
                let (kept, cut) = split_observation(observation, observation_limit);
                out.push_str(OBSERVATION);
                out.push(' ');
                if let Some(total) = cut {
                    out.push_str(kept);
                    out.push_str(&cut_marker(observation_limit, total));
                } else {
                    out.push_str(kept.trim_end());
                }
                out.push_str("\nThought:\n");
            }
            kind => {
                if let Some(obs) = observation_for(kind, observation_limit) {
                    out.push_str(OBSERVATION);
                    out.push(' ');
                    out.push_str(obs.trim_end());
                    out.push_str("\nThought:\n");
                }
            }
        }
    }
    if out.len() > start && out.ends_with("Thought:\n") {
        out.pop();
    }
}

/// The earlier turns that fit in `budget` characters, oldest first; the newest are kept.
pub fn history_messages(history: &[Turn], budget: usize) -> Vec<Message> {
    let mut used = 0;
    let mut kept = Vec::new();
    for turn in history.iter().rev() {
        let size = turn.question.len() + turn.answer.len();
        if used + size > budget {
            break;
        }
        used += size;
        kept.push(turn);
    }
    kept.iter()
        .rev()
        .flat_map(|t| [Message::user(t.question.clone()), Message::assistant(t.answer.clone())])
        .collect()
}

/// Everything the model receives for the next step of a run.
pub fn build_request(
    settings: &AgentSettings,
    tools: &[&dyn Tool],
    question: &str,
    history: &[Turn],
    trace: &Trace,
    last_answer: bool,
) -> ChatRequest {
    let template = settings.system_template.as_deref().unwrap_or(DEFAULT_SYSTEM_TEMPLATE);
    let mut messages = vec![Message::system(render_system(template, tools))];
    messages.extend(history_messages(history, settings.history_budget));
    let mut user = String::with_capacity(question.len() + 256);
    user.push_str(question);
    const INTRO: &str = "\n\nYour work so far (the person sees only your Final Answer):\n";
    user.push_str(INTRO);
    let before = user.len();
    write_scratchpad(trace, settings.observation_limit, &mut user);
    if user.len() == before {
        user.truncate(before - INTRO.len());
    }
    if last_answer {
        user.push_str("\n\n");
        user.push_str(LAST_ANSWER_REQUEST);
    }
    messages.push(Message::user(user));
    ChatRequest {
        messages,
        stop: vec![OBSERVATION.to_string()],
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_observation("short", 10), "short");
        assert_eq!(truncate_observation("ééé", 3), "ééé", "6 bytes but 3 characters");
        assert_eq!(truncate_observation("ééééé", 3), "ééé\n[… cut: showing 3 of 5 characters]");
        assert_eq!(truncate_observation("ab😀cd", 3), "ab😀\n[… cut: showing 3 of 5 characters]");
        assert_eq!(truncate_observation("abc", 0), "\n[… cut: showing 0 of 3 characters]");
    }
}
