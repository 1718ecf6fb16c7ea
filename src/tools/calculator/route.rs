//! Routing: is an input already an expression, or prose that a model must
//! translate first; and reading the expression out of that model's reply.

use super::*;

/// True when `input` is written in the calculator's grammar (all names are
/// known functions/constants, every character is part of the grammar, and it
/// contains a number or constant). False for prose such as "What is the
/// square root of two times five?", which the caller should first send
/// through `TRANSLATE_PROMPT`. A malformed expression like "2+" is still an
/// expression: evaluating it gives the model a precise error to fix.
pub fn looks_like_expression(input: &str) -> bool {
    let src = prepare(input);
    if src.is_empty() || src.chars().count() > MAX_INPUT_CHARS {
        return false;
    }
    let Ok(toks) = lex(src) else { return false };
    let mut has_value = false;
    for t in &toks {
        match &t.tok {
            TokenKind::Num(_) => has_value = true,
            TokenKind::Ident(name) => {
                if CONSTANTS.contains(&name.as_str()) {
                    has_value = true;
                } else if name != "of" && !FUNCTIONS.contains(&name.as_str()) {
                    return false;
                }
            }
            _ => {}
        }
    }
    has_value
}

/// Strip markdown decoration a model puts around an expression.
pub(super) fn unwrap_decorations(s: &str) -> &str {
    let mut t = s.trim();
    loop {
        let before = t;
        for (open, close) in [
            ("**", "**"),
            ("`", "`"),
            ("$", "$"),
            ("\"", "\""),
            ("'", "'"),
        ] {
            if t.len() >= open.len() + close.len() {
                if let Some(inner) = t.strip_prefix(open).and_then(|x| x.strip_suffix(close)) {
                    t = inner.trim();
                }
            }
        }
        if t == before {
            return t;
        }
    }
}

/// If `line` is "Expression: ..." (allowing list markers and bold), return
/// what follows the label.
pub(super) fn after_label(line: &str) -> Option<&str> {
    let t = line.trim().trim_start_matches(['-', '*', '>', '#', ' ']);
    let t = t.trim_start_matches('*').trim_start();
    let label = "expression";
    let head = t.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    let rest = t.get(label.len()..)?.trim_start_matches('*').trim_start();
    let rest = rest.strip_prefix(':')?;
    Some(rest.trim_start_matches('*').trim())
}

pub(super) fn is_none_marker(s: &str) -> bool {
    let t = unwrap_decorations(s).trim_end_matches('.');
    ["none", "n/a", "null", "-"]
        .iter()
        .any(|m| t.eq_ignore_ascii_case(m))
}

/// Pull the expression out of a model's reply to `TRANSLATE_PROMPT`:
/// 1. an "Expression: ..." line (an explicit "Expression: NONE" means the
///    model declined, so the answer is `None`);
/// 2. a fenced block (```text, ```math, or bare ```), first line that is an
///    expression;
/// 3. the whole trimmed reply, if it is an expression;
/// 4. the last line that is an expression containing an operator or a call.
pub fn extract_expression(llm_reply: &str) -> Option<String> {
    let reply = llm_reply.trim();
    for line in reply.lines() {
        if let Some(rest) = after_label(line) {
            if is_none_marker(rest) {
                return None;
            }
            let candidate = unwrap_decorations(rest);
            if looks_like_expression(candidate) {
                return Some(candidate.to_string());
            }
        }
    }
    let mut rest = reply;
    while let Some(start) = rest.find("```") {
        let after = rest.get(start + 3..).unwrap_or("");
        let (block, remaining) = match after.find("```") {
            Some(end) => (
                after.get(..end).unwrap_or(""),
                after.get(end + 3..).unwrap_or(""),
            ),
            None => (after, ""),
        };
        // Drop the info string (text, math, ...) when the block spans lines.
        let content = match block.split_once('\n') {
            Some((info, body)) if !info.trim().contains(' ') && !looks_like_expression(info) => {
                body
            }
            _ => block,
        };
        for line in content.lines() {
            let candidate = unwrap_decorations(after_label(line).unwrap_or(line));
            if looks_like_expression(candidate) {
                return Some(candidate.to_string());
            }
        }
        rest = remaining;
    }
    let whole = unwrap_decorations(reply);
    if !whole.contains('\n') && looks_like_expression(whole) {
        return Some(whole.to_string());
    }
    reply
        .lines()
        .rev()
        .map(unwrap_decorations)
        .find_map(|line| {
            let has_op = line.contains(|c: char| "+-*/^%(×÷".contains(c));
            (has_op && looks_like_expression(line)).then(|| line.to_string())
        })
}
