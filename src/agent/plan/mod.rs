//! Parser for one reply of a model that follows the "Plan-ReAct" format
//! (in the style of Google ADK's `PlanReActPlanner`).
//!
//! A reply is divided into tagged sections: PLANNING, REPLANNING, REASONING,
//! ACTION and FINAL_ANSWER. Models write the tags in many ways, so several
//! forms are recognised (all case-insensitive unless noted):
//!
//! * ADK form, anywhere in a line: `/*PLANNING*/` or `/* PLANNING */`.
//! * XML-like form, anywhere in a line: `<PLANNING>` with an optional
//!   closing `</PLANNING>`.
//! * Markdown header, the whole line: `## PLANNING` or `### Final Answer:`.
//! * Bold, at the start of a line: `**PLANNING**` or `**Planning:**`, and the
//!   section's text may go on after it on the same line.
//! * Label, at the start of a line: `PLANNING:` or `Reasoning:`; the text may
//!   go on after it on the same line. The two-word final answer label must be
//!   upper case or exactly `Final Answer:`.
//!
//! A section ends where the next opening tag starts, at a closing tag, or at
//! the end of the reply. The parser never panics, never recurses, and runs in
//! time roughly linear in the length of the reply.
//!
//! Inside: `tags` finds the section tags in the reply (every form above),
//! `sections` cuts the reply at those tags into [`Sections`] (`parse_sections`),
//! `clean` trims each section's text of stray labels and junk lines, and `items`
//! turns the plan text into numbered steps (`plan_items`). Data moves one way:
//! reply text -> tags -> raw pieces -> cleaned sections -> plan items.

mod tags;
mod clean;
mod sections;
mod items;
pub use tags::*;
use clean::*;
pub use sections::*;
pub use items::*;

use std::fmt;

/// Most plan items kept by [`plan_items`].
const MAX_PLAN_ITEMS: usize = 20;

/// One kind of tagged section in a Plan-ReAct reply.
#[derive(Debug, Clone, PartialEq, Eq, Copy)]
pub enum Section {
    /// `/*PLANNING*/`: the numbered plan written at the start of a task.
    Planning,
    /// `/*REPLANNING*/`: a revised plan written when the first one failed.
    Replanning,
    /// `/*REASONING*/`: the model's thinking for the current step.
    Reasoning,
    /// `/*ACTION*/`: one tool call, written as JSON.
    Action,
    /// `/*FINAL_ANSWER*/`: the answer for the user; it ends the task.
    FinalAnswer,
}

impl Section {
    /// The canonical tag name, as written in the ADK form.
    fn name(self) -> &'static str {
        match self {
            Section::Planning => "PLANNING",
            Section::Replanning => "REPLANNING",
            Section::Reasoning => "REASONING",
            Section::Action => "ACTION",
            Section::FinalAnswer => "FINAL_ANSWER",
        }
    }
}

/// The sections found in one reply, after cleaning and repairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sections {
    /// Items of the numbered plan under PLANNING (empty when absent).
    pub plan: Vec<String>,
    /// Items of the revised plan under REPLANNING (empty when absent).
    pub replan: Vec<String>,
    /// Text of the REASONING section(s), joined with "\n" when several; None when absent.
    pub reasoning: Option<String>,
    /// Raw text of the first ACTION section (trimmed), to be read by the project's JSON action parser; None when absent.
    pub action: Option<String>,
    /// Text of the FINAL_ANSWER section (trimmed); None when absent.
    pub final_answer: Option<String>,
    /// Which of action / final_answer came first when both are present (the caller uses the first one).
    /// When only one of them is present it names that one; None when neither is present.
    pub first: Option<Section>,
    /// Plain-English notes about every repair/guess made (e.g. "the PLANNING section had no closing tag"), for the trace.
    pub notes: Vec<String>,
}

/// A reply that could not be used. The message is written to the model,
/// because it is fed back as the next observation: it says what to write instead.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanParseError {
    /// What went wrong and what the model should write instead.
    pub message: String,
}

impl fmt::Display for PlanParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PlanParseError {}

fn error(message: &str) -> PlanParseError {
    PlanParseError {
        message: message.to_string(),
    }
}

const MSG_EMPTY: &str = "Your reply was empty. Write /*REASONING*/ with your thinking, then either \
/*ACTION*/ with one JSON tool call or /*FINAL_ANSWER*/ with the answer.";

const MSG_NO_TAGS: &str = "Your reply had none of the section tags. Start with /*PLANNING*/ and a \
numbered plan (first reply) or /*REASONING*/, then either /*ACTION*/ with one JSON tool call or \
/*FINAL_ANSWER*/ with the answer.";

const MSG_NO_ACTION: &str = "Your reply had no /*ACTION*/ or /*FINAL_ANSWER*/ section. It must end \
with /*ACTION*/ followed by one JSON tool call, or with /*FINAL_ANSWER*/ followed by the answer.";

const MSG_EMPTY_ACTION: &str = "Your /*ACTION*/ section was empty. Write exactly one JSON tool call \
right after /*ACTION*/, or write /*FINAL_ANSWER*/ followed by the answer if you are done.";

const MSG_EMPTY_FINAL: &str = "Your /*FINAL_ANSWER*/ section was empty. Write the answer itself right \
after /*FINAL_ANSWER*/, or write /*ACTION*/ with one JSON tool call if you are not done yet.";

const MSG_EMPTY_PLAN: &str = "Your plan section had no steps. Write /*PLANNING*/ followed by a \
numbered plan, one step per line (like \"1. Open the search page\"), then /*REASONING*/ and \
/*ACTION*/ with one JSON tool call.";

// ---------------------------------------------------------------------------
// Finding tags
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Cleaning section text
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Splitting the reply into sections
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// Plan items
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests;
