//! Splitting a reply into [`Sections`] at its tags, with notes about what was
//! repaired on the way.

use super::*;

/// A stretch of the reply that belongs to one section.
pub(super) struct Piece<'a> {
    pub(super) section: Section,
    /// Where the piece starts in the reply, for ordering.
    pub(super) pos: usize,
    pub(super) raw: &'a str,
    /// True for untagged text read as reasoning.
    pub(super) free: bool,
}

pub(super) enum State {
    /// Outside any section: before the first tag or after a closing tag.
    Free { start: usize, after: Option<Section> },
    /// Inside a section opened by a tag at `pos`, whose content starts at `content`.
    Open {
        section: Section,
        form: Form,
        pos: usize,
        content: usize,
    },
}

pub(super) fn push_free<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    after: Option<Section>,
    pieces: &mut Vec<Piece<'a>>,
    notes: &mut Vec<String>,
) {
    let raw = slice(text, start, end);
    if strip_junk_lines(raw).trim().is_empty() {
        return;
    }
    notes.push(match after {
        None => "text before the first tag was read as reasoning".to_string(),
        Some(s) => format!(
            "text after the closing tag </{}> was read as reasoning",
            s.name()
        ),
    });
    pieces.push(Piece {
        section: Section::Reasoning,
        pos: start,
        raw,
        free: true,
    });
}

pub(super) fn note_opening(tag: &Tag, notes: &mut Vec<String>) {
    if tag.form == Form::AdkUnclosed {
        notes.push(format!(
            "the /*{} tag had no closing */",
            tag.section.name()
        ));
    }
}

pub(super) fn note_unclosed(section: Section, form: Form, at_end: bool, notes: &mut Vec<String>) {
    if form == Form::Xml {
        let place = if at_end {
            "at the end of the reply"
        } else {
            "at the next tag"
        };
        notes.push(format!(
            "the {0} section had no closing tag </{0}>; it was ended {1}",
            section.name(),
            place
        ));
    }
}

/// Chooses the first non-empty plan among several plan sections.
pub(super) fn pick_plan(lists: Vec<Vec<String>>, section: Section, notes: &mut Vec<String>) -> Vec<String> {
    let count = lists.len();
    let mut non_empty = lists.into_iter().filter(|l| !l.is_empty());
    let first = non_empty.next().unwrap_or_default();
    let extra = non_empty.count();
    if extra > 0 {
        notes.push(format!(
            "{} extra {} section(s) were ignored; only the first plan was kept",
            extra,
            section.name()
        ));
    }
    if count > 0 && first.is_empty() {
        notes.push(format!("the {} section had no steps", section.name()));
    }
    first
}

/// Splits one model reply into its Plan-ReAct sections.
///
/// Returns an error, addressed to the model, when the reply cannot be used:
/// it is empty, has no section tags at all, has neither an ACTION nor a
/// FINAL_ANSWER (nor a plan), or its ACTION / FINAL_ANSWER section is empty.
/// A reply with only a PLANNING or REPLANNING section is accepted; the
/// caller decides what to do with it.
pub fn parse_sections(text: &str) -> Result<Sections, PlanParseError> {
    if text.trim().is_empty() {
        return Err(error(MSG_EMPTY));
    }
    let tags = find_tags(text);
    if !tags.iter().any(|t| !t.closing) {
        return Err(error(MSG_NO_TAGS));
    }

    let mut notes: Vec<String> = Vec::new();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut state = State::Free {
        start: 0,
        after: None,
    };

    for tag in &tags {
        state = match state {
            State::Free { start, after } => {
                push_free(text, start, tag.start, after, &mut pieces, &mut notes);
                if tag.closing {
                    notes.push(format!(
                        "the closing tag </{}> had no matching opening tag",
                        tag.section.name()
                    ));
                    State::Free {
                        start: tag.end,
                        after: Some(tag.section),
                    }
                } else {
                    note_opening(tag, &mut notes);
                    State::Open {
                        section: tag.section,
                        form: tag.form,
                        pos: tag.start,
                        content: tag.end,
                    }
                }
            }
            State::Open {
                section,
                form,
                pos,
                content,
            } => {
                let raw = slice(text, content, tag.start);
                if tag.closing {
                    if tag.section != section {
                        notes.push(format!(
                            "the {} section was closed with </{}>",
                            section.name(),
                            tag.section.name()
                        ));
                    }
                    pieces.push(Piece {
                        section,
                        pos,
                        raw,
                        free: false,
                    });
                    State::Free {
                        start: tag.end,
                        after: Some(tag.section),
                    }
                } else if tag.section == section && strip_junk_lines(raw).trim().is_empty() {
                    notes.push(format!(
                        "the {} tag was written twice in a row; read as one section",
                        section.name()
                    ));
                    note_opening(tag, &mut notes);
                    State::Open {
                        section,
                        form,
                        pos,
                        content: tag.end,
                    }
                } else {
                    note_unclosed(section, form, false, &mut notes);
                    pieces.push(Piece {
                        section,
                        pos,
                        raw,
                        free: false,
                    });
                    note_opening(tag, &mut notes);
                    State::Open {
                        section: tag.section,
                        form: tag.form,
                        pos: tag.start,
                        content: tag.end,
                    }
                }
            }
        };
    }
    match state {
        State::Free { start, after } => {
            push_free(text, start, text.len(), after, &mut pieces, &mut notes);
        }
        State::Open {
            section,
            form,
            pos,
            content,
        } => {
            note_unclosed(section, form, true, &mut notes);
            pieces.push(Piece {
                section,
                pos,
                raw: slice(text, content, text.len()),
                free: false,
            });
        }
    }

    let mut reasoning_parts: Vec<String> = Vec::new();
    let mut tagged_reasoning = 0usize;
    let mut plans: Vec<Vec<String>> = Vec::new();
    let mut replans: Vec<Vec<String>> = Vec::new();
    let mut actions: Vec<(usize, String)> = Vec::new();
    let mut finals: Vec<(usize, String)> = Vec::new();
    for piece in &pieces {
        let body = clean_section(piece.raw, piece.section, &mut notes);
        match piece.section {
            Section::Reasoning => {
                if !body.is_empty() {
                    if !piece.free {
                        tagged_reasoning += 1;
                    }
                    reasoning_parts.push(body);
                }
            }
            Section::Planning => plans.push(plan_items(&body)),
            Section::Replanning => replans.push(plan_items(&body)),
            Section::Action => actions.push((piece.pos, body)),
            Section::FinalAnswer => finals.push((piece.pos, body)),
        }
    }
    if tagged_reasoning > 1 {
        notes.push(format!(
            "{} REASONING sections were joined into one",
            tagged_reasoning
        ));
    }
    let had_plan_section = !plans.is_empty() || !replans.is_empty();
    let plan = pick_plan(plans, Section::Planning, &mut notes);
    let replan = pick_plan(replans, Section::Replanning, &mut notes);

    if actions.len() > 1 {
        notes.push(format!(
            "only one action per reply is run: {} extra ACTION section(s) were ignored",
            actions.len() - 1
        ));
    }
    if finals.len() > 1 {
        notes.push(format!(
            "{} extra FINAL_ANSWER section(s) were ignored; the first one was kept",
            finals.len() - 1
        ));
    }
    let mut action = actions.into_iter().next();
    let mut final_answer = finals.into_iter().next();

    let action_empty = action.as_ref().is_some_and(|a| a.1.is_empty());
    let final_empty = final_answer.as_ref().is_some_and(|f| f.1.is_empty());
    if action_empty {
        if final_answer.is_some() && !final_empty {
            notes.push(
                "the ACTION section was empty and was ignored because a FINAL_ANSWER was given"
                    .to_string(),
            );
            action = None;
        } else {
            return Err(error(MSG_EMPTY_ACTION));
        }
    }
    if final_empty {
        if action.is_some() {
            notes.push(
                "the FINAL_ANSWER section was empty and was ignored because an ACTION was given"
                    .to_string(),
            );
            final_answer = None;
        } else {
            return Err(error(MSG_EMPTY_FINAL));
        }
    }

    let first = match (&action, &final_answer) {
        (Some(a), Some(f)) => {
            let s = if a.0 <= f.0 {
                Section::Action
            } else {
                Section::FinalAnswer
            };
            notes.push(format!(
                "the reply had both an ACTION and a FINAL_ANSWER; the {} came first",
                s.name()
            ));
            Some(s)
        }
        (Some(_), None) => Some(Section::Action),
        (None, Some(_)) => Some(Section::FinalAnswer),
        (None, None) => None,
    };

    if first.is_none() && plan.is_empty() && replan.is_empty() {
        return Err(error(if had_plan_section {
            MSG_EMPTY_PLAN
        } else {
            MSG_NO_ACTION
        }));
    }

    Ok(Sections {
        plan,
        replan,
        reasoning: if reasoning_parts.is_empty() {
            None
        } else {
            Some(reasoning_parts.join("\n"))
        },
        action: action.map(|a| a.1),
        final_answer: final_answer.map(|f| f.1),
        first,
        notes,
    })
}
