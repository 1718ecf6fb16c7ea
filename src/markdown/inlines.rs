//! Inline structure: the text of one block to [`Inline`]s, with a stack of open
//! emphasis and link delimiters.

use super::*;

/// An open emphasis (`ch` = `*`, `_` or `~`, `n` = 1 or 2 chars) or link bracket (`[`).
pub(super) struct Frame {
    pub(super) ch: u8,
    pub(super) n: usize,
    pub(super) kids: Vec<Inline>,
}

pub(super) fn inline(s: &str) -> Vec<Inline> {
    let b = s.as_bytes();
    let (mut st, mut i) = (vec![Frame { ch: 0, n: 0, kids: Vec::new() }], 0);
    // no_closer[n]: no run of exactly n backticks follows; runs over 16 never open a code span.
    let mut no_closer = [false; 18];
    while i < b.len() {
        let prev = s[..i].chars().next_back().unwrap_or(' ');
        i = match b[i] {
            b'\\' if b.get(i + 1) == Some(&b'\n') => add(&mut st, Inline::LineBreak, i + 2),
            b'\\' if b.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                let n = if b[i + 1] == b'`' { run(b, i + 1) } else { 1 };
                text(&mut st, &s[i + 1..i + 1 + n], i + 1 + n)
            }
            b'`' => {
                let n = run(b, i);
                let close = (n < 17 && !no_closer[n]).then(|| closing_run(b, i + n, n)).flatten();
                no_closer[n.min(17)] |= close.is_none();
                match close {
                    Some(e) => {
                        let code = s[i + n..e].replace('\n', " ");
                        let inner = code.strip_prefix(' ').and_then(|c| c.strip_suffix(' '));
                        let inner = inner.filter(|_| !code.trim_matches(' ').is_empty());
                        add(&mut st, Inline::Code(inner.unwrap_or(&code).into()), e + n)
                    }
                    None => text(&mut st, &s[i..i + n], i + n),
                }
            }
            c @ (b'*' | b'_' | b'~') => delim(&mut st, s, i, run(b, i), c),
            b'[' if st.len() <= MAX_DEPTH => {
                st.push(Frame { ch: b'[', n: 1, kids: Vec::new() });
                i + 1
            }
            b']' => close_bracket(&mut st, s, i),
            b'<' if !in_link(&st) => autolink(&mut st, s, i),
            b'\n' if s[..i].ends_with("  ") => add(&mut st, Inline::LineBreak, i + 1),
            b'\n' => text(&mut st, " ", i + 1),
            b'h' | b'H'
                if !prev.is_ascii_alphanumeric() && !in_link(&st) && url_len(&s[i..]) > 0 =>
            {
                let url = &s[i..i + url_len(&s[i..])];
                add(&mut st, url_link(safe_href(url).unwrap_or_default(), url), i + url.len())
            }
            _ => {
                let special = |x: &u8| b"\\`*_~[]<\nhH".contains(x);
                let j = b[i + 1..].iter().position(special).map_or(b.len(), |p| i + 1 + p);
                // Spaces before a line end are dropped (two or more make a hard break).
                let eol = b.get(j) == Some(&b'\n');
                text(&mut st, if eol { s[i..j].trim_end_matches(' ') } else { &s[i..j] }, j)
            }
        };
    }
    while st.len() > 1 {
        let top = st.len() - 1;
        dissolve(&mut st, top);
    }
    st.pop().map_or(Vec::new(), |f| f.kids)
}

/// Length of the run of equal bytes starting at `i`.
pub(super) fn run(b: &[u8], i: usize) -> usize {
    b.get(i).map_or(0, |&c| b[i..].iter().take_while(|&&x| x == c).count())
}

/// Start of the first run of exactly `n` backticks at or after `k`.
pub(super) fn closing_run(b: &[u8], mut k: usize, n: usize) -> Option<usize> {
    while k < b.len() {
        let m = run(b, k);
        if b[k] == b'`' && m == n {
            return Some(k);
        }
        k += m;
    }
    None
}

/// Appends to a child list, merging adjacent text and dropping empty text.
pub(super) fn push(v: &mut Vec<Inline>, node: Inline) {
    match (v.last_mut(), node) {
        (_, Inline::Text(t)) if t.is_empty() => {}
        (Some(Inline::Text(p)), Inline::Text(t)) => p.push_str(&t),
        (_, node) => v.push(node),
    }
}

/// Appends `node` to the innermost open frame and returns `next` (the new position).
pub(super) fn add(st: &mut [Frame], node: Inline, next: usize) -> usize {
    if let Some(f) = st.last_mut() {
        push(&mut f.kids, node);
    }
    next
}

pub(super) fn text(st: &mut [Frame], s: &str, next: usize) -> usize {
    add(st, Inline::Text(s.into()), next)
}

/// Turns open frame `k` back into literal text inside its parent; frames above it stay open.
pub(super) fn dissolve(st: &mut Vec<Frame>, k: usize) {
    let Some(f) = (k > 0 && k < st.len()).then(|| st.remove(k)) else { return };
    let kids = &mut st[k - 1].kids;
    push(kids, Inline::Text(std::iter::repeat_n(f.ch as char, f.n).collect()));
    f.kids.into_iter().for_each(|x| push(kids, x));
}

/// Punctuation for delimiter flanking; non-ASCII characters all count as letters (keeps the
/// Unicode tables out of the WASM).
pub(super) fn punct(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// A run of `n` delimiters `c` at `i`: closes matching frames, then opens new ones.
pub(super) fn delim(st: &mut Vec<Frame>, s: &str, i: usize, n: usize, c: u8) -> usize {
    let before = s[..i].chars().next_back().unwrap_or(' ');
    let after = s[i + n..].chars().next().unwrap_or(' ');
    let lf = !after.is_whitespace() && (!punct(after) || before.is_whitespace() || punct(before));
    let rf = !before.is_whitespace() && (!punct(before) || after.is_whitespace() || punct(after));
    let (open, close) = match c {
        b'_' => (lf && (!rf || punct(before)), rf && (!lf || punct(after))),
        _ => (lf, rf),
    };
    let mut left = if c == b'~' && n != 2 { 0 } else { n };
    while close && left > 0 {
        let mut open_frames = (1..st.len()).rev().take_while(|&k| st[k].ch != b'[');
        let Some(k) = open_frames.find(|&k| st[k].ch == c) else { break };
        while st.len() > k + 1 {
            dissolve(st, k + 1);
        }
        let Some(f) = st.pop() else { break };
        let used = f.n.min(left);
        text(st, &s[i..i + f.n - used], 0); // `**` closed by `*`: one `*` stays literal
        left -= used;
        let node = match (c, used) {
            (b'~', _) => Inline::Strike(f.kids),
            (_, 2) => Inline::Strong(f.kids),
            _ => Inline::Emphasis(f.kids),
        };
        add(st, node, 0);
    }
    while open && left > 0 && st.len() <= MAX_DEPTH {
        let m = if c == b'~' { 2 } else { 2 - left % 2 };
        st.push(Frame { ch: c, n: m, kids: Vec::new() });
        left -= m;
    }
    let lit = if c == b'~' && n != 2 { n } else { left };
    text(st, &s[i..i + lit], i + n)
}

pub(super) fn close_bracket(st: &mut Vec<Frame>, s: &str, i: usize) -> usize {
    let Some(k) = (1..st.len()).rev().find(|&k| st[k].ch == b'[') else {
        return text(st, "]", i + 1);
    };
    let Some((href, end)) = link_dest(s, i + 1) else {
        dissolve(st, k);
        return text(st, "]", i + 1);
    };
    while st.len() > k + 1 {
        dissolve(st, k + 1);
    }
    let kids = st.pop().map_or(Vec::new(), |f| f.kids);
    // No links inside links: enclosing brackets can no longer form one.
    while let Some(k) = (1..st.len()).rev().find(|&k| st[k].ch == b'[') {
        dissolve(st, k);
    }
    add(st, Inline::Link { href, children: kids }, end)
}

/// Inside possible link text, where autolinks are not made (links cannot nest).
pub(super) fn in_link(st: &[Frame]) -> bool {
    st.iter().any(|f| f.ch == b'[')
}

/// Parses `(url "title")` at `j`; returns the safe href and the index after `)`.
pub(super) fn link_dest(s: &str, j: usize) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let ws =
        |i: usize| i + b[i.min(b.len())..].iter().take_while(|c| c.is_ascii_whitespace()).count();
    let (start, mut i, mut depth) = (ws(j + 1), ws(j + 1), 0);
    if b.get(j) != Some(&b'(') {
        return None;
    }
    while let Some(&c) = b.get(i).filter(|c| !c.is_ascii_whitespace() && !c.is_ascii_control()) {
        match c {
            b'\\' => i += 1,
            b'(' if depth >= 32 => return None,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    let (end, mut i) = (i.min(b.len()), ws(i));
    if let Some(&q) = b.get(i).filter(|&&q| q == b'"' || q == b'\'') {
        i = ws(i + 2 + b.get(i + 1..)?.iter().position(|&c| c == q)?);
    }
    let raw = s.get(start..end)?;
    let unescaped = raw.char_indices().filter(|&(k, c)| {
        !(c == '\\' && raw[k + 1..].starts_with(|d: char| d.is_ascii_punctuation()))
    });
    let href = safe_href(&unescaped.map(|(_, c)| c).collect::<String>())?;
    (b.get(i) == Some(&b')')).then_some((href, i + 1))
}

/// `<https://…>` or `<user@host>` autolink at `i`, else a literal `<`.
pub(super) fn autolink(st: &mut [Frame], s: &str, i: usize) -> usize {
    let rest = &s[i + 1..];
    let e = rest.find(|c: char| c == '>' || c == '<' || c.is_whitespace()).unwrap_or(0);
    let inner = &rest[..e];
    let mail = inner.contains('@') && !inner.contains(':');
    let href = safe_href(&[if mail { "mailto:" } else { "" }, inner].concat());
    match href.filter(|_| rest[e..].starts_with('>')) {
        Some(href) => add(st, url_link(href, inner), i + e + 2),
        None => text(st, "<", i + 1),
    }
}

pub(super) fn url_link(href: String, url: &str) -> Inline {
    Inline::Link { href, children: vec![Inline::Text(url.into())] }
}

/// Byte length of a bare http(s) URL at the start of `rest` (trailing punctuation and
/// unbalanced `)` excluded), or 0.
pub(super) fn url_len(rest: &str) -> usize {
    let b = rest.as_bytes();
    let starts = |p: &[u8]| b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p);
    let schemes = [&b"https://"[..], b"http://"];
    let Some(p) = schemes.iter().find(|p| starts(p)).map(|p| p.len()) else { return 0 };
    let mut e = rest.find(|c: char| c.is_whitespace() || "<>[]`".contains(c)).unwrap_or(b.len());
    let (open, mut close) = (rest[..e].matches('(').count(), rest[..e].matches(')').count());
    while e > p {
        match b[e - 1] {
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b'*' | b'_' | b'~' | b'"' | b'\'' => {}
            b')' if close > open => close -= 1,
            _ => break,
        }
        e -= 1;
    }
    e * (e > p) as usize
}

/// The href for `url` if, trimmed and without control characters, it is http(s) or mailto.
pub(super) fn safe_href(url: &str) -> Option<String> {
    let u: String = url.trim().chars().filter(|c| !c.is_control()).collect();
    let l = u.to_ascii_lowercase();
    ["http://", "https://", "mailto:"].iter().any(|p| l.starts_with(p)).then_some(u)
}
