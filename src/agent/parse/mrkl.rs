//! The older MRKL lines: `Action: <tool>` then `Action Input: <input>`, and their variants.
//! Each `Action:` line either introduces a JSON blob (which then is the call), or names a
//! tool, on its own line or alone on the next one, whose input comes from `Action Input:`,
//! from a following JSON object without a tool name, or from the name itself
//! (`Tool[input]`, `tool("input")`).

use serde_json::Value;

use super::blobs::{blob_at, Blob, Outcome};
use super::choose::{error_construct, tool_construct, Construct};
use super::error::{error_at, ParseErrorKind};
use super::input::read_text_input;
use super::labels::{Label, LabelKind};
use super::scan::{line_end, skip_ws};
use super::tools::{bracket_form, clean_tool_name, decorated, is_no_action};

/// One construct per MRKL `Action:` line (blobs it introduces are marked instead, and
/// become constructs of their own). `notes` collects notes for the reply as a whole.
pub(super) fn mrkl_constructs(
    text: &str,
    labels: &[Label],
    blobs: &mut [Blob],
    tools: &[&str],
    cons: &mut Vec<Construct>,
    notes: &mut Vec<String>,
) {
    let b = text.as_bytes();
    for (idx, l) in labels.iter().enumerate() {
        if l.kind != LabelKind::Action {
            continue;
        }
        let mut eol = line_end(b, l.end);
        // The name stops where a fence or a JSON blob starts on the same line.
        let mut name_end = eol;
        for k in l.end..eol {
            if (b[k] == b'{' && blob_at(blobs, k).is_some()) || b[k..].starts_with(b"```") {
                name_end = k;
                break;
            }
        }
        let mut name = clean_tool_name(&text[l.end..name_end]);
        let later = &labels[idx + 1..];
        // The blob an Action line introduces is the first plausible one before
        // the next label, so a comment or a sentence in between does not break
        // the link ("Action:\nHere is the call:\n```json ...").
        let limit = later.iter().find(|x| x.line_start).map_or(text.len(), |x| x.start);
        let first = blobs.partition_point(|x| x.start < name_end);
        let linked = blobs[first..].iter().take_while(|x| x.start < limit).position(Blob::could_be_call).map(|p| first + p);
        let mut construct_notes = Vec::new();
        if name.is_empty() {
            if let Some(bi) = linked {
                blobs[bi].label = Some(l.start);
                continue;
            }
            match name_on_next_line(text, eol, later, tools) {
                Some((next, next_eol)) => {
                    name = next;
                    eol = next_eol;
                    construct_notes.push("the tool name was on the line after \"Action:\"".to_string());
                }
                None => {
                    // Soft: a usable call or answer elsewhere in the reply still wins.
                    let err = error_at(ParseErrorKind::IncompleteAction, &text[l.start..]);
                    cons.push(error_construct(l.start, l.end, err, false));
                    continue;
                }
            }
        }
        let line = &text[l.start..eol];
        if is_no_action(&name) {
            notes.push(format!("ignored the placeholder line \"{}\"", line.trim()));
            continue;
        }
        if let Some(bi) = linked {
            let blob = &mut blobs[bi];
            if let Outcome::NotAction(v) = &blob.outcome {
                let mut n = blob.notes.clone();
                n.push("tool name taken from the Action: line, input from the JSON after it".to_string());
                cons.push(tool_construct(l.start, blob.end, &name, Some(v.clone()), n, &text[l.start..blob.end], tools));
                blob.consumed = true;
            } else {
                // The blob names its own tool (or failed to parse): it is the call.
                blob.label = Some(l.start);
            }
            continue;
        }
        let following = later.iter().find(|x| x.line_start && x.start >= eol);
        if let Some(ai) = following.filter(|x| x.kind == LabelKind::ActionInput) {
            // Search on from the Action line, never from the top: a reply with
            // thousands of Action lines must stay linear.
            let input_end = later.iter().find(|x| x.line_start && x.start >= ai.end).map_or(text.len(), |x| x.start);
            let (input, n) = read_text_input(&text[ai.end..input_end]);
            construct_notes.insert(0, "MRKL-style Action / Action Input lines".to_string());
            construct_notes.extend(n);
            cons.push(tool_construct(l.start, input_end, &name, Some(input), construct_notes, &text[l.start..input_end], tools));
            continue;
        }
        if let Some((tool, arg)) = bracket_form(&name) {
            construct_notes.push("MRKL-style Action: Tool[input]".to_string());
            cons.push(tool_construct(l.start, eol, &tool, Some(Value::String(arg)), construct_notes, line, tools));
            continue;
        }
        // No input anywhere: a decorated name may still carry one (`search("x")`);
        // otherwise this is an error that names what is missing.
        cons.push(tool_construct(l.start, eol, &name, None, construct_notes, line, tools));
    }
}

/// `Action:` with nothing after it on its line, then the tool name alone on the next
/// non-blank line. Accepted only when `Action Input:` follows that line, or when the name
/// carries its own input (`Tool[input]`, `tool("input")`) and the reply ends there; any
/// other text is not taken for a name. Returns the name and the end of its line.
fn name_on_next_line(text: &str, eol: usize, later: &[Label], tools: &[&str]) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let start = skip_ws(b, eol);
    let end = line_end(b, start);
    let next_label = later.iter().find(|x| x.line_start && x.start >= eol);
    if start >= b.len() || next_label.is_some_and(|x| x.start < end) || matches!(b[start], b'{' | b'`' | b'[') {
        return None;
    }
    let name = clean_tool_name(&text[start..end]);
    let after = skip_ws(b, end);
    let fits = match next_label {
        Some(x) => x.kind == LabelKind::ActionInput && x.start <= after,
        None => after >= b.len() && (bracket_form(&name).is_some() || decorated(&name, tools).is_some()),
    };
    (fits && !name.is_empty()).then_some((name, end))
}
