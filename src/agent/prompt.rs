//! Builds what the model sees from the trace, for each strategy: the system prompt (tools and
//! format rules), earlier turns as memory, the question, and this run's steps. Pure and derived:
//! there is no scratchpad kept anywhere else, so what the trace shows is what the model saw.
//!
//! The text strategies (ReAct, Plan-ReAct) send the steps as one scratchpad of replies and
//! `Observation:` lines; native tool calling sends them as assistant `tool_calls` turns and
//! `tool` messages, answering every call in order.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::model::{ChatRequest, JsonFormat, Message, ToolSpec};
use super::settings::{AgentSettings, Strategy};
use super::tool::Tool;
use super::trace::{Event, EventKind, LlmPurpose};

/// Sent as a stop sequence and enforced on the reply, so the model cannot invent tool results.
pub const OBSERVATION: &str = "Observation:";

/// The built-in tool that lets the agent ask the person a question instead of guessing.
pub const ASK_PERSON: &str = "ask_person";
const ASK_PERSON_DESCRIPTION: &str = "ask the person a clarifying question and wait for their reply. Use it only when the question is ambiguous or a tool needs a detail the person did not give and you cannot reasonably guess it. The input is your question.";

/// The built-in ReAct system prompt. `{tools}` becomes one line per tool, `{tool_names}` a comma
/// list, `{extra_rules}` the rules that depend on the settings (direct answers, clarifying).
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

Rules: one action per reply. Never write "Observation:" yourself. Use only the tools listed above. {extra_rules}"#;

/// ReAct with structured output: the server constrains every reply to one JSON object.
pub const STRUCTURED_SYSTEM_TEMPLATE: &str = r#"You are Thoughtline, an assistant that answers questions by thinking step by step and using tools when they help.

You can use these tools:
{tools}

Every reply is one JSON object with three keys: "thought" (a short note on what you know and what you still need), "action" (the tool to use, one of: {tool_names}; or "Final Answer" when you can answer) and "action_input" (the input for the tool, or the complete answer for the person when the action is "Final Answer").

After a tool call, its result is sent back to you after "Observation:" and you reply with a new JSON object. Use only the tools listed above. {extra_rules}"#;

/// Plan-ReAct: a plan first, then tagged reasoning and actions, replanning when a step fails.
pub const PLAN_SYSTEM_TEMPLATE: &str = r#"You are Thoughtline, an assistant that answers questions by making a plan and then carrying it out with tools, one step at a time.

You can use these tools:
{tools}

Write every reply in sections, each opened by a tag on its own line:

/*PLANNING*/
Only in your first reply: a numbered plan, one short line per step.

/*REASONING*/
What you know so far and what the next step needs.

/*ACTION*/
One tool call: a JSON object in a ```json code block with two keys, "action" (one of: {tool_names}) and "action_input" (the input for the tool). Then stop writing: the result is sent back to you after "Observation:".

/*REPLANNING*/
Only when an observation shows that a step failed or the plan no longer fits: a new numbered plan for the work that is left, then /*REASONING*/ and /*ACTION*/ as usual.

/*FINAL_ANSWER*/
When you know enough: the complete answer for the person, in the language of their question.

Every reply ends with exactly one /*ACTION*/ or one /*FINAL_ANSWER*/. Never write "Observation:" yourself. {extra_rules}"#;

/// Native tool calling: the tools travel as function definitions, not in the prompt.
pub const NATIVE_SYSTEM_TEMPLATE: &str = "You are Thoughtline, an assistant that answers questions using the functions you are given when they help. Call a function whenever you need facts or a calculation you cannot be sure of; you may call several at once. When you know enough, reply with the complete answer for the person in plain text, in the language of their question, without calling a function. {extra_rules}";

/// Added to the last request when a limit was reached and early stopping is "generate".
pub const LAST_ANSWER_REQUEST: &str = "You have no steps left. Do not use any tool. Reply with \"Final Answer:\" followed by the best answer you can give from the observations above, and say what is uncertain.";

/// The same request for native tool calling, where answers carry no label.
pub const LAST_ANSWER_NATIVE: &str = "You have no steps left. Do not call any function. Reply with the best answer you can give from the results above, and say what is uncertain.";

/// Everything the prompt of one step is derived from.
pub struct PromptInput<'a> {
    pub settings: &'a AgentSettings,
    /// The strategy in use now (it may differ from the settings' after a fallback).
    pub strategy: Strategy,
    pub tools: &'a [&'a dyn Tool],
    pub question: &'a str,
    pub history: &'a [Turn],
    /// Events of the run this one continues (it ended asking the person); empty otherwise.
    pub earlier: &'a [Event],
    /// This run's events so far.
    pub events: &'a [Event],
    /// Early stopping "generate": ask for the best answer now.
    pub last_answer: bool,
}

impl PromptInput<'_> {
    /// Structured output applies to the ReAct strategy only.
    pub fn structured(&self) -> bool {
        self.strategy == Strategy::React && self.settings.structured_output
    }

    fn steps(&self) -> impl Iterator<Item = &Event> {
        self.earlier.iter().chain(self.events)
    }
}

/// An earlier question and its answer, kept as conversation memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub question: String,
    pub answer: String,
}

/// Fills the template's placeholders from the tools and the settings.
pub fn render_system(template: &str, tools: &[&dyn Tool], settings: &AgentSettings) -> String {
    let mut list = tools
        .iter()
        .map(|t| match t.input_hint() {
            Some(hint) => format!("- {}: {} Input: {hint}", t.name(), t.description()),
            None => format!("- {}: {}", t.name(), t.description()),
        })
        .collect::<Vec<_>>();
    if settings.ask_clarifying {
        list.push(format!("- {ASK_PERSON}: {ASK_PERSON_DESCRIPTION}"));
    }
    let list = if list.is_empty() { "(no tools are enabled: answer from your own knowledge)".to_string() } else { list.join("\n") };
    template
        .replace("{tools}", &list)
        .replace("{tool_names}", &tool_names(tools, settings).join(", "))
        .replace("{extra_rules}", &extra_rules(settings))
}

/// The rules that depend on the settings: what to do when no tool fits, and when to ask.
fn extra_rules(settings: &AgentSettings) -> String {
    let mut rules = String::from(if settings.direct_answers {
        "If no tool fits the question, answer it directly from your own knowledge."
    } else {
        "If no tool fits the question, do not answer from memory: say in your answer that the available tools cannot answer it."
    });
    if settings.ask_clarifying {
        rules.push_str(" If the question is ambiguous, or a tool needs a detail the person did not give, use ask_person to ask them instead of guessing.");
    }
    rules
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
        EventKind::Plan { observation: Some(observation), .. } => return Some(Cow::Borrowed(observation)),
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
        EventKind::PersonReplied { reply } => Some(format!("The person answered your question: {reply}")),
        _ => None,
    };
    owned.map(Cow::Owned)
}

/// The steps as text: each reply of the model followed by what it observed, ending with
/// "Thought:" so the model continues the pattern. Empty before the first step.
pub fn scratchpad<'e>(events: impl IntoIterator<Item = &'e Event>, observation_limit: usize) -> String {
    let mut out = String::new();
    write_scratchpad(events, observation_limit, &mut out);
    out
}

/// Appends the scratchpad to `out`: the prompt is built in one buffer, without an
/// intermediate copy of what can be hundreds of kilobytes late in a long run.
fn write_scratchpad<'e>(events: impl IntoIterator<Item = &'e Event>, observation_limit: usize, out: &mut String) {
    let start = out.len();
    // Replies to a tool's own model calls are not steps of the agent.
    let mut in_step_call = false;
    for event in events {
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

/// The steps as native tool-calling turns: every assistant turn that called tools, followed by
/// one `tool` message per call, in order. A call that got no result (the run stopped to ask the
/// person first) is answered with a note, since providers reject unanswered calls.
pub fn native_messages<'e>(events: impl IntoIterator<Item = &'e Event>, observation_limit: usize) -> Vec<Message> {
    const NOT_RUN: &str = "This call was not run.";
    let mut messages = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut in_step_call = false;
    let close = |messages: &mut Vec<Message>, open: &mut Vec<String>| {
        for id in open.drain(..) {
            messages.push(Message::tool_result(id, NOT_RUN));
        }
    };
    for event in events {
        match &event.kind {
            EventKind::LlmRequest { purpose, .. } => in_step_call = *purpose == LlmPurpose::Step,
            EventKind::LlmResponse { text, tool_calls, .. } if in_step_call => {
                close(&mut messages, &mut open);
                if tool_calls.is_empty() {
                    messages.push(Message::assistant(text.trim_end()));
                } else {
                    open = tool_calls.iter().rev().map(|c| c.id.clone()).collect();
                    messages.push(Message::assistant_calls(text.trim_end(), tool_calls.clone()));
                }
            }
            kind => {
                if let Some(obs) = observation_for(kind, observation_limit) {
                    match open.pop() {
                        Some(id) => messages.push(Message::tool_result(id, obs.trim_end())),
                        // An observation with no call to answer (a reply to a question asked in
                        // text): it goes to the model as the person's words.
                        None => messages.push(Message::user(obs.trim_end())),
                    }
                }
            }
        }
    }
    close(&mut messages, &mut open);
    messages
}

/// The function definitions for native tool calling.
pub fn tool_specs(tools: &[&dyn Tool], settings: &AgentSettings) -> Vec<ToolSpec> {
    let mut specs: Vec<ToolSpec> = tools
        .iter()
        .map(|t| ToolSpec {
            name: t.name().to_string(),
            description: t.description().to_string(),
            parameters: t.input_schema().unwrap_or_else(|| string_argument("input", "The input for the tool.")),
        })
        .collect();
    if settings.ask_clarifying {
        specs.push(ToolSpec {
            name: ASK_PERSON.to_string(),
            description: ASK_PERSON_DESCRIPTION.to_string(),
            parameters: string_argument("question", "The question for the person."),
        });
    }
    specs
}

fn string_argument(name: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": { name: { "type": "string", "description": description } },
        "required": [name],
    })
}

/// The JSON schema of one structured ReAct step: a thought, an action (a tool name or
/// "Final Answer") and its input.
pub fn step_schema(tool_names: &[&str]) -> JsonFormat {
    let mut actions: Vec<&str> = tool_names.to_vec();
    actions.push("Final Answer");
    JsonFormat {
        name: "react_step".to_string(),
        schema: json!({
            "type": "object",
            "properties": {
                "thought": { "type": "string" },
                "action": { "type": "string", "enum": actions },
                "action_input": { "type": "string" },
            },
            "required": ["thought", "action", "action_input"],
            "additionalProperties": false,
        }),
    }
}

/// The tool names the model may use: the enabled tools, plus `ask_person` when clarifying
/// questions are on.
pub fn tool_names<'a>(tools: &[&'a dyn Tool], settings: &AgentSettings) -> Vec<&'a str> {
    let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    if settings.ask_clarifying {
        names.push(ASK_PERSON);
    }
    names
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
pub fn build_request(p: &PromptInput<'_>) -> ChatRequest {
    let settings = p.settings;
    let template = match p.strategy {
        Strategy::React => match &settings.system_template {
            Some(own) => own.as_str(),
            None if p.structured() => STRUCTURED_SYSTEM_TEMPLATE,
            None => DEFAULT_SYSTEM_TEMPLATE,
        },
        Strategy::PlanReact => PLAN_SYSTEM_TEMPLATE,
        Strategy::ToolCalling => NATIVE_SYSTEM_TEMPLATE,
    };
    let mut messages = vec![Message::system(render_system(template, p.tools, settings))];
    messages.extend(history_messages(p.history, settings.history_budget));
    let mut request = ChatRequest::new(Vec::new(), settings.temperature, settings.max_tokens);

    if p.strategy == Strategy::ToolCalling {
        messages.push(Message::user(p.question));
        messages.extend(native_messages(p.steps(), settings.observation_limit));
        if p.last_answer {
            messages.push(Message::user(LAST_ANSWER_NATIVE));
        }
        request.tools = tool_specs(p.tools, settings);
    } else {
        let mut user = String::with_capacity(p.question.len() + 256);
        user.push_str(p.question);
        const INTRO: &str = "\n\nYour work so far (the person sees only your Final Answer):\n";
        user.push_str(INTRO);
        let before = user.len();
        write_scratchpad(p.steps(), settings.observation_limit, &mut user);
        if user.len() == before {
            user.truncate(before - INTRO.len());
        }
        if p.last_answer {
            user.push_str("\n\n");
            user.push_str(LAST_ANSWER_REQUEST);
        }
        messages.push(Message::user(user));
        request.stop = vec![OBSERVATION.to_string()];
        if p.structured() && !p.last_answer {
            request.json_format = Some(step_schema(&tool_names(p.tools, settings)));
        }
    }
    request.messages = messages;
    request
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
