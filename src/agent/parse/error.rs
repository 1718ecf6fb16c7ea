//! Why a reply could not be read: [`ParseError`] and its kinds. Every message is addressed
//! *to the model*, because the agent feeds it back as the next Observation, so each one says
//! plainly what to write instead. Also the small helpers that quote the offending text.

use std::fmt;

use super::labels::contains_final_label;
use super::tools::is_final_name;

/// Why a reply could not be read. Every variant's `Display` text (on [`ParseError`])
/// is an instruction to the model.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseErrorKind {
    /// The reply is empty or only whitespace.
    Empty,
    /// The reply has neither a tool call (JSON blob or `Action:` lines) nor a
    /// `Final Answer:` label, but it does use the format (a `Thought:` line, say), so it
    /// is not plain prose that could be read as a direct answer.
    NoActionOrAnswer,
    /// An `Action:` label with no tool name on its line (or the next) and no JSON blob
    /// after it (for example the reply stops right after `Action:`).
    IncompleteAction,
    /// A JSON blob that was meant as a tool call (it follows `Action:`, mentions an
    /// `"action"`/`"tool"` key, or sits in a ```json fence when nothing better was
    /// found) could not be read even after the usual repairs. `reason` says what broke.
    InvalidJson { reason: String },
    /// A JSON object meant as the tool call (after `Action:`, or fenced when nothing
    /// better was found) has no `"action"` key or accepted synonym.
    MissingActionKey,
    /// The `"action"` value is not a non-empty string (e.g. `null`, a number, `""`).
    /// `found` is the offending value as compact JSON.
    InvalidActionName { found: String },
    /// A tool was named but no input was given: no `"action_input"` key (or synonym)
    /// in the JSON, or an MRKL `Action: X` line with no `Action Input:` after it.
    MissingActionInput { tool: String },
    /// `Final Answer:` (or a JSON "Final Answer" action) with nothing after it,
    /// or with a `null` / blank `action_input`.
    EmptyFinalAnswer,
    /// The tool name matched two or more tools after case-folding or normalising;
    /// `candidates` are their canonical names.
    AmbiguousToolName { name: String, candidates: Vec<String> },
    /// The "tool name" is not a name: a sentence that matches no tool and is not close to
    /// one, or a name with `Final Answer:` inside it. Refused rather than guessed; `valid`
    /// are the tools there are. (A short unknown name such as "wiki" is passed on, and the
    /// executor answers it with the same list.)
    UnknownTool { requested: String, valid: Vec<String> },
}

/// A reply that could not be read, with a message meant for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    /// Up to ~200 characters of the offending text (empty when there is none).
    pub excerpt: String,
}

pub(super) const CALL_EXAMPLE: &str = r#"{"action": "<tool name>", "action_input": "<input>"}"#;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseErrorKind::*;
        match &self.kind {
            Empty => write!(
                f,
                "Your reply was empty. Either call a tool by writing \"Action:\" followed by a ```json \
                 block like {CALL_EXAMPLE}, or finish by writing a line that starts with \"Final Answer:\" \
                 followed by your answer."
            ),
            NoActionOrAnswer => write!(
                f,
                "Your reply contained neither a tool call nor a final answer. To use a tool, write \
                 \"Action:\" and then a ```json block like {CALL_EXAMPLE}. If you already know the \
                 answer, write a line that starts with \"Final Answer:\" followed by the answer."
            ),
            IncompleteAction => write!(
                f,
                "Your reply has an \"Action:\" line but no tool call after it. Right after \"Action:\", \
                 add a ```json block like {CALL_EXAMPLE}."
            ),
            InvalidJson { reason } => write!(
                f,
                "The JSON of your tool call could not be read ({reason}). You wrote: {}. Send the tool \
                 call again as one valid JSON object: double quotes around every key and every string, \
                 inner double quotes escaped as \\\", no trailing commas, every brace closed. For \
                 example: {CALL_EXAMPLE}",
                self.excerpt
            ),
            MissingActionKey => write!(
                f,
                "Your JSON blob has no \"action\" key, so it is not clear which tool to call. You \
                 wrote: {}. Put the tool name under \"action\" and what the tool should receive \
                 under \"action_input\", for example: {CALL_EXAMPLE}",
                self.excerpt
            ),
            InvalidActionName { found } => write!(
                f,
                "The value of \"action\" must be a tool name written as a non-empty string, but it \
                 was {found}. For example: {CALL_EXAMPLE}"
            ),
            MissingActionInput { tool } if is_final_name(tool) => write!(
                f,
                "You chose \"Final Answer\" but did not include the answer. Put it under \
                 \"action_input\", or simply write a line that starts with \"Final Answer:\" followed \
                 by the answer."
            ),
            MissingActionInput { tool } => write!(
                f,
                "You chose the tool \"{tool}\" but gave it no input. Add \"action_input\" to the JSON \
                 blob, for example: {{\"action\": \"{tool}\", \"action_input\": \"<input>\"}} (use \"\" \
                 if the tool needs no input)."
            ),
            EmptyFinalAnswer => write!(
                f,
                "Your final answer is empty. Write the answer itself right after \"Final Answer:\"."
            ),
            AmbiguousToolName { name, candidates } => write!(
                f,
                "The tool name \"{name}\" fits more than one tool ({}). Call the tool again using one \
                 of these names exactly as written.",
                quoted_list(candidates)
            ),
            UnknownTool { requested, valid } => {
                if contains_final_label(requested) {
                    write!(
                        f,
                        "You wrote \"Final Answer:\" inside the tool name (\"{requested}\"). To answer, \
                         write a line that starts with \"Final Answer:\" followed by the answer, with no \
                         Action."
                    )?;
                } else {
                    write!(f, "\"{requested}\" is not a tool name.")?;
                }
                if valid.is_empty() {
                    write!(f, " No tools are available now: answer with \"Final Answer:\".")
                } else {
                    write!(
                        f,
                        " To call a tool, put exactly one of these names under \"action\": {}. If none \
                         fits, answer with \"Final Answer:\".",
                        quoted_list(valid)
                    )
                }
            }
        }
    }
}

impl std::error::Error for ParseError {}

fn quoted_list(names: &[String]) -> String {
    names.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ")
}

/// At most 200 characters. Only the start is trimmed before cutting, so the
/// cost does not depend on how much text follows.
pub(super) fn excerpt(s: &str) -> String {
    let t = s.trim_start();
    match t.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", t[..cut].trim_end()),
        None => t.trim_end().to_string(),
    }
}

/// A tool name as quoted back to the model: a runaway name must not turn
/// the error message into a wall of text.
pub(super) fn short_name(s: &str) -> String {
    let e = excerpt(s);
    match e.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &e[..cut]),
        None => e,
    }
}

/// An error of `kind` quoting `src`.
pub(super) fn error_at(kind: ParseErrorKind, src: &str) -> ParseError {
    ParseError { kind, excerpt: excerpt(src) }
}
