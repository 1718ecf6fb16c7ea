//! Pass 1: one linear byte scan that finds the brace-delimited regions of a reply (where a
//! JSON blob may be) and its code fences, plus the small byte helpers every pass shares.
//!
//! All delimiters looked at are ASCII, so byte offsets taken at them are always valid `str`
//! boundaries. Nothing here recurses: nesting is tracked with explicit stacks, so a megabyte
//! of `{` costs one pass and no stack.

/// At most this many closing brackets are added to a JSON value cut off at the end. More
/// than that and the text is too far from JSON to guess where it ended.
pub(super) const MAX_AUTO_CLOSE: usize = 4;

#[inline]
pub(super) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0c)
}

/// Whether `word` (ASCII) starts at `b[i]`, ignoring ASCII case.
#[inline]
pub(super) fn eq_ci(b: &[u8], i: usize, word: &str) -> bool {
    let w = word.as_bytes();
    i <= b.len() && b.len() - i >= w.len() && b[i..i + w.len()].eq_ignore_ascii_case(w)
}

#[inline]
pub(super) fn line_end(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p)
}

#[inline]
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

#[inline]
pub(super) fn count_run(b: &[u8], i: usize, to: usize, c: u8) -> usize {
    b[i..to].iter().take_while(|&&x| x == c).count()
}

/// The language tag right after an opening fence (```json, ```tool_code ...).
pub(super) fn skip_lang_tag(b: &[u8], mut i: usize, to: usize) -> usize {
    while i < to && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'+' | b'-' | b'.' | b'#')) {
        i += 1;
    }
    i
}

pub(super) fn is_jsonish_lang(tag: &[u8]) -> bool {
    let t = String::from_utf8_lossy(tag).to_ascii_lowercase();
    matches!(
        t.as_str(),
        "" | "json" | "json5" | "jsonc" | "javascript" | "js" | "python" | "py" | "tool_code" | "tool_call"
    )
}

/// Whether the text has a quoted key such as `"action":`, `'action_input' :`
/// or `"tool":`, i.e. was at least trying to be a tool call. A quoted word in
/// prose ("Action: Z") does not count: it must be a key followed by a colon.
pub(super) fn looks_like_action(b: &[u8]) -> bool {
    (0..b.len()).any(|i| {
        let q = b[i];
        if q != b'"' && q != b'\'' {
            return false;
        }
        if !(eq_ci(b, i + 1, "action") || eq_ci(b, i + 1, "tool")) {
            return false;
        }
        // The key itself is short; looking at most 24 bytes ahead keeps this linear.
        let mut k = i + 1;
        while k < b.len() && k - i <= 24 && (b[k].is_ascii_alphanumeric() || matches!(b[k], b'_' | b'\\' | b' ' | b'-')) {
            k += 1;
        }
        k < b.len() && b[k] == q && b.get(skip_ws(b, k + 1)) == Some(&b':')
    })
}

#[derive(Clone, Copy, Debug)]
pub(super) struct FenceInfo {
    pub start: usize,
    pub content_start: usize,
    pub closed: bool,
    /// No language tag, or one that JSON-ish blobs are written under.
    pub jsonish: bool,
}

pub(super) enum RegionKind {
    /// Balanced `{ ... }`.
    Complete,
    /// Braces still open at the end of the text or at a code fence (which JSON
    /// can only contain inside strings). `attempts` are the starts of the innermost
    /// few open braces, outermost first; `inner` are the balanced objects completed
    /// inside, outermost only.
    Unclosed { attempts: Vec<usize>, inner: Vec<(usize, usize)> },
}

pub(super) struct Region {
    pub start: usize,
    pub end: usize,
    pub fence: Option<usize>,
    pub kind: RegionKind,
}

pub(super) struct ScanOut {
    pub regions: Vec<Region>,
    pub fences: Vec<FenceInfo>,
}

/// Opening quotes only count right after a JSON structural character, so an
/// apostrophe or a quoted word in prose that happens to follow a stray `{`
/// cannot swallow the rest of the reply. Valid JSON always satisfies this.
fn opens_value(prev: u8) -> bool {
    matches!(prev, b'{' | b'[' | b',' | b':')
}

/// Inside a JSON string (`in_str` holds its quote), the index after the byte `c` at `i`,
/// an escape skipped whole; the closing quote ends the string. `None` outside strings.
/// The one string rule of [`scan`] and [`value_end`].
#[inline]
fn step_in_string(c: u8, i: usize, in_str: &mut Option<u8>, prev: &mut u8) -> Option<usize> {
    let q = (*in_str)?;
    if c == b'\\' {
        return Some(i + 2);
    }
    if c == q {
        *in_str = None;
        *prev = q;
    }
    Some(i + 1)
}

/// One linear pass over `b[from..to]` that finds top-level `{...}` regions
/// (string-aware, so braces inside strings do not count) and code fences.
/// Fences are only recognised in prose: a ``` inside a JSON string is content,
/// which keeps `"action_input": "```python ...```"` intact.
pub(super) fn scan(b: &[u8], from: usize, to: usize) -> ScanOut {
    let mut regions = Vec::new();
    let mut fences: Vec<FenceInfo> = Vec::new();
    let mut open_fence: Option<usize> = None;
    let mut region_fence: Option<usize> = None;
    let mut stack: Vec<usize> = Vec::new();
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut in_str: Option<u8> = None;
    let mut prev = b'{';
    let mut i = from;
    while i < to {
        let c = b[i];
        if let Some(next) = step_in_string(c, i, &mut in_str, &mut prev) {
            i = next;
            continue;
        }
        if c == b'`' {
            let run = count_run(b, i, to, b'`');
            if run >= 3 {
                if !stack.is_empty() {
                    regions.push(unclosed(&mut stack, &mut pending, i, region_fence));
                }
                let after = i + run;
                if let Some(idx) = open_fence.take() {
                    fences[idx].closed = true;
                    i = after;
                } else {
                    let tag_end = skip_lang_tag(b, after, to);
                    fences.push(FenceInfo {
                        start: i,
                        content_start: tag_end,
                        closed: false,
                        jsonish: is_jsonish_lang(&b[after..tag_end]),
                    });
                    open_fence = Some(fences.len() - 1);
                    i = tag_end;
                }
                continue;
            }
            // Inline code: step over the whole run so it is looked at once.
            if !stack.is_empty() {
                prev = c;
            }
            i += run;
            continue;
        }
        if stack.is_empty() {
            if c == b'{' {
                stack.push(i);
                prev = c;
                region_fence = open_fence;
            }
            i += 1;
            continue;
        }
        match c {
            b'{' => {
                stack.push(i);
                prev = c;
            }
            b'}' => {
                if let Some(s) = stack.pop() {
                    if stack.is_empty() {
                        pending.clear();
                        regions.push(Region { start: s, end: i + 1, fence: region_fence, kind: RegionKind::Complete });
                    } else {
                        // Keep only the outermost completed objects: anything that
                        // started after `s` is nested inside this one.
                        while matches!(pending.last(), Some(&(ps, _)) if ps > s) {
                            pending.pop();
                        }
                        pending.push((s, i + 1));
                    }
                }
                prev = c;
            }
            b'"' | b'\'' if opens_value(prev) => in_str = Some(c),
            _ if is_ws(c) => {}
            _ => prev = c,
        }
        i += 1;
    }
    if !stack.is_empty() {
        regions.push(unclosed(&mut stack, &mut pending, to, region_fence));
    }
    ScanOut { regions, fences }
}

fn unclosed(stack: &mut Vec<usize>, pending: &mut Vec<(usize, usize)>, end: usize, fence: Option<usize>) -> Region {
    let first = stack.len().saturating_sub(MAX_AUTO_CLOSE);
    let attempts = stack[first..].to_vec();
    let start = stack[0];
    stack.clear();
    Region { start, end, fence, kind: RegionKind::Unclosed { attempts, inner: std::mem::take(pending) } }
}

/// Where a JSON value that starts at `s[0]` (`{` or `[`) ends, read with the same
/// string rules as [`scan`].
pub(super) enum ValueEnd {
    /// It closes just before this byte offset.
    Closed(usize),
    /// The text ends first: `closers` would end it (innermost first, a `"` first when
    /// the text stops inside a string). `None` when that would take more than
    /// [`MAX_AUTO_CLOSE`] brackets.
    Open { closers: Option<String> },
}

pub(super) fn value_end(s: &str) -> ValueEnd {
    let b = s.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut in_str: Option<u8> = None;
    let mut prev = b'{';
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if let Some(next) = step_in_string(c, i, &mut in_str, &mut prev) {
            i = next;
            continue;
        }
        match c {
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b'}' | b']' => {
                // A mismatched closer ends nothing; the JSON reader will say why.
                if stack.last() == Some(&c) {
                    stack.pop();
                }
                if stack.is_empty() {
                    return ValueEnd::Closed(i + 1);
                }
            }
            b'"' | b'\'' if opens_value(prev) => in_str = Some(c),
            _ => {}
        }
        if !is_ws(c) && in_str.is_none() {
            prev = c;
        }
        i += 1;
    }
    if stack.len() > MAX_AUTO_CLOSE {
        return ValueEnd::Open { closers: None };
    }
    let mut closers = String::new();
    if let Some(q) = in_str {
        closers.push(q as char);
    }
    closers.extend(stack.iter().rev().map(|&c| c as char));
    ValueEnd::Open { closers: Some(closers) }
}
