//! How an event reads: the content a person came for (the model's thought, the action and its
//! input, what the tool answered, the answer, the plan) shown without opening anything, and
//! its counts as secondary text. The trace view draws this, the Markdown transcript writes it,
//! and the trace search looks through it, so an event reads the same everywhere.

use super::{value_as_text, AnswerSource, ApprovalChoice, Decision, EventKind, ScopeVerdict};
use crate::agent::model::Usage;
use crate::agent::tool::{code_input, CODE_TOOL};

/// How much of a long text a row shows before "Show all": a few lines, and never more than a
/// screenful of characters however long its lines are.
pub const PREVIEW_LINES: usize = 4;
pub const PREVIEW_CHARS: usize = 360;

/// One piece of what an event says, in the order a row shows them. Each holds its whole text;
/// a row cuts long ones to a `preview`.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// The model's reasoning before it acts or answers.
    Thought(String),
    /// The tool the agent runs, and its input as text.
    Action { tool: String, input: String },
    /// A function call the model made natively, with its arguments as written.
    Call { name: String, arguments: String },
    /// Text shown as it is: an observation, a reply as the model wrote it, an excerpt.
    Text(String),
    /// Code the agent runs (the code tool's input), shown as code.
    Code(String),
    /// What that code printed and gave back, shown as a program's output.
    Output(String),
    /// A final answer, shown as sanitised Markdown.
    Answer(String),
    /// A plan's items, in order.
    Items(Vec<String>),
    /// A short remark (what had to be repaired, where a call went).
    Note(String),
}

/// What a trace row says about one event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    /// One line naming what happened, when the parts do not say it by themselves.
    pub summary: String,
    pub parts: Vec<Part>,
    /// Counts and sizes: characters, tokens, where a call went. Secondary text.
    pub meta: String,
}

impl Row {
    /// Every word of the row, for the trace search: what it shows and what "Show all" opens.
    pub fn all_text(&self) -> String {
        let mut out = String::with_capacity(self.summary.len() + self.meta.len() + 64);
        out.push_str(&self.summary);
        for part in &self.parts {
            out.push('\n');
            match part {
                Part::Thought(t) | Part::Text(t) | Part::Code(t) | Part::Output(t) | Part::Answer(t) | Part::Note(t) => out.push_str(t),
                Part::Action { tool, input } => {
                    out.push_str(tool);
                    out.push(' ');
                    out.push_str(input);
                }
                Part::Call { name, arguments } => {
                    out.push_str(name);
                    out.push(' ');
                    out.push_str(arguments);
                }
                Part::Items(items) => out.push_str(&items.join("\n")),
            }
        }
        out.push('\n');
        out.push_str(&self.meta);
        out
    }

    /// Whether any part is longer than its preview, so the row offers "Show all".
    pub fn has_more(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Thought(t) | Part::Text(t) | Part::Code(t) | Part::Output(t) | Part::Note(t) => preview(t).is_cut(),
            Part::Action { input, .. } => preview(input).is_cut(),
            Part::Call { arguments, .. } => preview(arguments).is_cut(),
            Part::Answer(_) | Part::Items(_) => false,
        })
    }
}

/// The start of a long text, as a row shows it before "Show all".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview<'a> {
    pub shown: &'a str,
    /// Characters left out after `shown`.
    pub hidden_chars: usize,
}

impl Preview<'_> {
    pub fn is_cut(&self) -> bool {
        self.hidden_chars > 0
    }
}

/// The first `PREVIEW_LINES` lines of `text`, at most `PREVIEW_CHARS` characters, cut on a
/// character boundary. Reads only as far as it shows (plus one count of the rest), so a live
/// reply can be previewed at every token.
pub fn preview(text: &str) -> Preview<'_> {
    let mut lines = 0;
    let mut end = text.len();
    for (chars, (at, c)) in text.char_indices().enumerate() {
        if chars == PREVIEW_CHARS {
            end = at;
            break;
        }
        if c == '\n' {
            lines += 1;
            if lines == PREVIEW_LINES {
                end = at;
                break;
            }
        }
    }
    let shown = text[..end].trim_end();
    let rest = &text[end..];
    let hidden_chars = if rest.trim().is_empty() { 0 } else { rest.chars().count() };
    Preview { shown, hidden_chars }
}

/// "1 character", "2,048 characters".
/// A reply's token counts as the provider reported them: "812 in · 64 out tokens (512 cached,
/// 20 reasoning)", or "tokens —" when it reported none.
pub fn usage_text(usage: Option<&Usage>) -> String {
    let Some(u) = usage else {
        return "tokens —".to_string();
    };
    let mut text = format!("{} in · {} out tokens", grouped(u.prompt_tokens as usize), grouped(u.completion_tokens as usize));
    let details: Vec<String> = [(u.cached_tokens, "cached"), (u.reasoning_tokens, "reasoning")]
        .into_iter()
        .filter_map(|(n, what)| n.filter(|n| *n > 0).map(|n| format!("{} {what}", grouped(n as usize))))
        .collect();
    if !details.is_empty() {
        text.push_str(&format!(" ({})", details.join(", ")));
    }
    text
}

/// Milliseconds as seconds ("0.42 s"), or "—" when unknown.
pub fn seconds_or_dash(ms: Option<f64>) -> String {
    match ms {
        Some(ms) if ms.is_finite() && ms >= 0.0 => format!("{:.2} s", ms / 1000.0),
        _ => "—".to_string(),
    }
}

pub fn characters(n: usize) -> String {
    format!("{} character{}", grouped(n), if n == 1 { "" } else { "s" })
}

/// A count with thousands separated: 12,345.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// An action as a row shows it: the tool and its input, or for the code tool its name and the
/// code as code.
fn action_parts(tool: &str, input: &serde_json::Value) -> Vec<Part> {
    if tool == CODE_TOOL {
        vec![Part::Action { tool: tool.to_string(), input: String::new() }, Part::Code(code_input(input))]
    } else {
        vec![Part::Action { tool: tool.to_string(), input: value_as_text(input) }]
    }
}

impl EventKind {
    /// What a row shows for this event (see `Row`).
    pub fn row(&self) -> Row {
        let just = |summary: String| Row { summary, ..Row::default() };
        match self {
            EventKind::RunStarted { question, tools, history_turns, continues, .. } => {
                let mut meta = format!("Tools: {}", if tools.is_empty() { "none".into() } else { tools.join(", ") });
                if *history_turns > 0 {
                    meta.push_str(&format!(" · remembers {history_turns} earlier turn{}", if *history_turns == 1 { "" } else { "s" }));
                }
                if *continues {
                    meta.push_str(" · continues the run above");
                }
                Row { summary: question.clone(), parts: vec![], meta }
            }
            EventKind::PersonAnswered { answer } => Row { parts: vec![Part::Text(answer.clone())], ..Row::default() },
            EventKind::LlmRequest { request, .. } => {
                let n = request.message_count();
                just(format!("{n} message{} sent to the model", if n == 1 { "" } else { "s" }))
            }
            EventKind::LlmResponse { text, discarded, usage, tool_calls, incomplete, first_token_ms, .. } => {
                let mut parts = Vec::new();
                if !text.trim().is_empty() {
                    parts.push(Part::Text(text.clone()));
                }
                for call in tool_calls {
                    parts.push(Part::Call { name: call.name.clone(), arguments: call.arguments.clone() });
                }
                if let Some(d) = discarded {
                    parts.push(Part::Note(format!("Left out: the model went on to write its own Observation ({}), below.", characters(d.chars().count()))));
                    parts.push(Part::Text(d.clone()));
                }
                let meta = format!("{} · {} · first token {}", characters(text.chars().count()), usage_text(usage.as_ref()), seconds_or_dash(*first_token_ms));
                let summary = if *incomplete { "The reply stopped before the provider said it was done".to_string() } else { String::new() };
                Row { summary, parts, meta }
            }
            EventKind::LlmFailed { error } => just(error.message.clone()),
            EventKind::LlmRetry { attempt, wait_ms, reason } => {
                just(format!("Attempt {attempt} failed ({reason}); trying again in {:.1} s", wait_ms / 1000.0))
            }
            EventKind::Decided { thought, decision, notes } => {
                let mut parts = Vec::new();
                if let Some(t) = thought.as_ref().filter(|t| !t.trim().is_empty()) {
                    parts.push(Part::Thought(t.clone()));
                }
                match decision {
                    Decision::Action { tool, input } => parts.extend(action_parts(tool, input)),
                    Decision::Final { .. } => parts.push(Part::Note("Ready to answer.".into())),
                }
                parts.extend(notes.iter().map(|n| Part::Note(n.clone())));
                Row { summary: String::new(), parts, meta: String::new() }
            }
            EventKind::ParseFailed { message, excerpt, fed_back, count, .. } => Row {
                summary: message.clone(),
                parts: vec![Part::Text(excerpt.clone())],
                meta: format!(
                    "format error {count} of this run · {}",
                    if *fed_back { "sent back to the model so it can fix its format" } else { "not sent back: the run ends" }
                ),
            },
            EventKind::ToolCall { tool, input, via } => Row {
                summary: String::new(),
                parts: action_parts(tool, input),
                meta: via.as_ref().map(|v| format!("via the MCP server at {v}")).unwrap_or_default(),
            },
            EventKind::ApprovalAsked { tool, input, via } => Row {
                summary: "Waiting for you to allow or deny this call.".into(),
                parts: action_parts(tool, input),
                meta: via.as_ref().map(|v| format!("via the MCP server at {v}")).unwrap_or_default(),
            },
            EventKind::ApprovalGiven { tool, choice } => just(match choice {
                ApprovalChoice::Once => format!("{tool} may run this once."),
                ApprovalChoice::Always => format!("{tool} may run from now on without asking."),
                ApprovalChoice::Denied => format!("{tool} was not called; the model was told you did not allow it."),
            }),
            EventKind::ServerAsked { server, question, answer, .. } => Row {
                summary: format!("{server} asked: {question}"),
                parts: vec![Part::Text(answer.clone())],
                meta: String::new(),
            },
            EventKind::ToolResult { tool, observation } => Row {
                summary: String::new(),
                parts: vec![if tool == CODE_TOOL { Part::Output(observation.clone()) } else { Part::Text(observation.clone()) }],
                meta: format!("{tool} · {}", characters(observation.chars().count())),
            },
            EventKind::ToolFailed { tool, message, timed_out, fed_back } => Row {
                summary: format!("{tool}: {message}"),
                parts: vec![],
                meta: [timed_out.then_some("timed out"), Some(if *fed_back { "shown to the model" } else { "not shown to the model" })]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" · "),
            },
            EventKind::UnknownTool { requested, valid } => just(format!("\"{requested}\" is not a tool. Valid: {}", valid.join(", "))),
            EventKind::RepeatedAction { tool, input, times } => Row {
                summary: format!("{tool} asked with the same input {times} times in a row"),
                parts: vec![Part::Action { tool: tool.clone(), input: value_as_text(input) }],
                meta: String::new(),
            },
            EventKind::FinalAnswer { answer, source } => Row {
                summary: String::new(),
                parts: vec![Part::Answer(answer.clone())],
                meta: match source {
                    AnswerSource::Model => "",
                    AnswerSource::ReturnDirect => "the tool's result, returned as it is",
                    AnswerSource::LastAnswer => "the model's last answer when the run hit its limit",
                    AnswerSource::Direct => "answered without calling a tool",
                    AnswerSource::Declined => "the scope gate declined the question",
                }
                .to_string(),
            },
            EventKind::RunStopped { message, .. } => just(message.clone()),
            EventKind::Plan { items, version, replan, observation } => Row {
                summary: String::new(),
                parts: std::iter::once(Part::Items(items.clone())).chain(observation.clone().map(Part::Note)).collect(),
                meta: format!("{} step{} · version {version}{}", items.len(), if items.len() == 1 { "" } else { "s" }, if *replan { " · revised after a failure" } else { "" }),
            },
            EventKind::AskedPerson { question } => Row {
                summary: String::new(),
                parts: vec![Part::Text(question.clone()), Part::Note("Reply in the chat: the agent continues this run with your answer.".into())],
                meta: String::new(),
            },
            EventKind::StrategyFallback { from, to, reason } => Row {
                summary: format!("{} → {}", from.label(), to.label()),
                parts: vec![Part::Text(reason.clone())],
                meta: String::new(),
            },
            EventKind::ScopeChecked { verdict, reason } => Row {
                summary: match verdict {
                    ScopeVerdict::InScope => "Passed: the question is one this agent is for",
                    ScopeVerdict::OutOfScope => "Declined: the question is not one this agent is for",
                    ScopeVerdict::Unreadable => "No readable verdict: the question is answered as in scope",
                }
                .to_string(),
                parts: if reason.is_empty() { vec![] } else { vec![Part::Text(reason.clone())] },
                meta: String::new(),
            },
            EventKind::Forked(fork) => {
                let text = fork.change.text();
                Row {
                    summary: format!("{}; the run went on from here", fork.change.what()),
                    parts: if text.is_empty() { vec![] } else { vec![Part::Text(text)] },
                    meta: format!("{} · made from branch {}, event {}", fork.settings_text(), fork.branch + 1, fork.from + 1),
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "row_tests.rs"]
mod tests;
