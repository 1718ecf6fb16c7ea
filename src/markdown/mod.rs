//! Markdown → small typed tree, for rendering model answers as DOM nodes.
//!
//! A pragmatic CommonMark/GFM subset. Guarantees: raw HTML is never interpreted (it stays
//! `Inline::Text`), links only carry http/https/mailto hrefs, no panics, no unsafe, bounded
//! recursion (quote/list and inline nesting capped at `MAX_DEPTH`; deeper markup stays text)
//! and near-linear time on any input.
#![forbid(unsafe_code)]

/// Deepest nesting of quotes/lists (blocks) and of emphasis/links (inlines).
const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Paragraph(Vec<Inline>),
    Heading(u8 /*1..=6*/, Vec<Inline>),
    /// Fenced (``` or ~~~, with optional info string kept as `lang`) or indented (4 spaces) code.
    Code {
        lang: Option<String>,
        text: String,
    },
    Quote(Vec<Block>),
    List {
        ordered: bool,
        start: u32,
        items: Vec<Vec<Block>>,
    },
    Rule,
    /// A GitHub-style pipe table (header row, separator row of dashes/colons, body rows).
    /// Body rows are cut to the header's width but never padded.
    Table {
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    Text(String),
    Code(String),
    Strong(Vec<Inline>),
    Emphasis(Vec<Inline>),
    Strike(Vec<Inline>),
    /// Only http, https and mailto targets become links; anything else (javascript:, data:, relative) stays text.
    Link {
        href: String,
        children: Vec<Inline>,
    },
    LineBreak,
}

pub fn parse(markdown: &str) -> Vec<Block> {
    let owned: Vec<String> = markdown.lines().map(expand_tabs).collect();
    blocks(&owned.iter().map(String::as_str).collect::<Vec<_>>(), 0)
}

/// Plain text of the whole document (for copy-to-clipboard and accessibility).
pub fn plain_text(blocks: &[Block]) -> String {
    let mut out = String::new();
    text_blocks(blocks, "\n\n", &mut out);
    out
}

fn text_blocks(bs: &[Block], sep: &str, out: &mut String) {
    for (k, b) in bs.iter().enumerate() {
        out.push_str(if k > 0 { sep } else { "" });
        match b {
            Block::Paragraph(v) | Block::Heading(_, v) => text_inline(v, out),
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(v) => text_blocks(v, sep, out),
            Block::Rule => out.push_str("---"),
            Block::List { ordered, start, items } => {
                for (n, item) in items.iter().enumerate() {
                    let num = start.saturating_add(n as u32).to_string() + ". ";
                    out.push_str(if n > 0 { "\n" } else { "" });
                    out.push_str(if *ordered { &num } else { "- " });
                    text_blocks(item, "\n", out);
                }
            }
            Block::Table { head, rows } => {
                for (n, row) in std::iter::once(head).chain(rows).enumerate() {
                    out.push_str(if n > 0 { "\n" } else { "" });
                    for (c, cell) in row.iter().enumerate() {
                        out.push_str(if c > 0 { "\t" } else { "" });
                        text_inline(cell, out);
                    }
                }
            }
        }
    }
}

fn text_inline(v: &[Inline], out: &mut String) {
    for x in v {
        match x {
            Inline::Text(t) | Inline::Code(t) => out.push_str(t),
            Inline::Strong(k) | Inline::Emphasis(k) | Inline::Strike(k) => text_inline(k, out),
            Inline::Link { children, .. } => text_inline(children, out),
            Inline::LineBreak => out.push('\n'),
        }
    }
}

// ------------------------------------------------------------------------------------ blocks

/// Expands tabs in the leading whitespace to 4-column tab stops.
fn expand_tabs(line: &str) -> String {
    let body = line.trim_start_matches([' ', '\t']);
    let lead = &line[..line.len() - body.len()];
    " ".repeat(lead.chars().fold(0, |n, c| if c == '\t' { n + 4 - n % 4 } else { n + 1 })) + body
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

fn blank(l: &str) -> bool {
    l.trim().is_empty()
}

/// Removes up to `k` leading spaces.
fn strip(l: &str, k: usize) -> &str {
    &l[indent(l).min(k)..]
}

fn blocks(lines: &[&str], depth: usize) -> Vec<Block> {
    let (mut out, mut i, nest) = (Vec::new(), 0, depth < MAX_DEPTH);
    while i < lines.len() {
        let (l, ind) = (lines[i], indent(lines[i]));
        let t = &l[ind..];
        if blank(t) {
            i += 1;
        } else if ind >= 4 {
            let n = lines[i..].iter().take_while(|l| blank(l) || indent(l) >= 4).count();
            let n = lines[i..i + n].iter().rposition(|l| !blank(l)).map_or(1, |p| p + 1);
            let text: Vec<&str> = lines[i..i + n].iter().map(|l| strip(l, 4)).collect();
            out.push(Block::Code { lang: None, text: text.join("\n") });
            i += n;
        } else if let Some((c, n, info)) = fence(t) {
            let end = |l: &&str| {
                let close = fence(l.trim_start_matches(' '));
                indent(l) < 4 && matches!(close, Some((c2, n2, "")) if c2 == c && n2 >= n)
            };
            let body: Vec<&str> =
                lines[i + 1..].iter().take_while(|l| !end(l)).map(|l| strip(l, ind)).collect();
            let lang = info.split_whitespace().next().map(String::from);
            out.push(Block::Code { lang, text: body.join("\n") });
            i += body.len() + 2;
        } else if let Some((level, text)) = heading(t) {
            out.push(Block::Heading(level, inline(text)));
            i += 1;
        } else if rule(t) {
            out.push(Block::Rule);
            i += 1;
        } else if nest && t.starts_with('>') {
            let mut inner: Vec<&str> = Vec::new();
            while let Some((l, u)) = lines.get(i).map(|l| (*l, l.trim_start_matches(' '))) {
                let lazy = !blank(l)
                    && !inner.last().is_none_or(|p| blank(p))
                    && !starts_block(l, None, false);
                match u.strip_prefix('>') {
                    Some(r) if indent(l) < 4 => inner.push(r.strip_prefix(' ').unwrap_or(r)),
                    _ if lazy => inner.push(u),
                    _ => break,
                }
                i += 1;
            }
            out.push(Block::Quote(blocks(&inner, depth + 1)));
        } else if let (true, Some((ordered, start, delim, _))) = (nest, marker(t)) {
            let mut items = Vec::new();
            while let Some((l, mi)) = lines.get(i).map(|l| (*l, indent(l))) {
                match marker(&l[mi..]) {
                    Some((o, _, d, w))
                        if o == ordered && d == delim && mi < 4 && !rule(&l[mi..]) =>
                    {
                        let (item, used) = list_item(&lines[i..], mi, mi + w);
                        items.push(blocks(&item, depth + 1));
                        i += used;
                    }
                    _ => break,
                }
            }
            out.push(Block::List { ordered, start, items });
        } else if let Some(head) = table_head(t, lines.get(i + 1)) {
            let width = head.len();
            let row = |r: Vec<String>| r.iter().take(width).map(|c| inline(c)).collect();
            let n = lines[i + 2..].iter().take_while(|l| !blank(l) && l.contains('|')).count();
            let rows = lines[i + 2..i + 2 + n].iter().map(|l| row(cells(l))).collect();
            out.push(Block::Table { head: row(head), rows });
            i += n + 2;
        } else {
            let n = 1 + lines[i + 1..]
                .iter()
                .enumerate()
                .take_while(|&(k, l)| !blank(l) && !starts_block(l, lines.get(i + k + 2), true))
                .count();
            let text: Vec<&str> =
                lines[i..i + n].iter().map(|l| l.trim_start_matches(' ')).collect();
            out.push(Block::Paragraph(inline(text.join("\n").trim_end())));
            i += n;
        }
    }
    out
}

/// The lines of the list item starting at `lines[0]` (marker at `mi`, content at `col`),
/// stripped of its indentation, and how many lines it used.
fn list_item<'a>(lines: &[&'a str], mi: usize, col: usize) -> (Vec<&'a str>, usize) {
    let mut item = vec![lines[0].get(col..).unwrap_or("")];
    for &l in &lines[1..] {
        let li = indent(l);
        if blank(l) {
            item.push("");
        } else if li >= col || (li > mi && marker(&l[li..]).is_some()) {
            item.push(strip(l, col));
        } else if !item.last().is_none_or(|p| blank(p)) && !starts_block(l, None, false) {
            item.push(&l[li..]); // lazy continuation
        } else {
            break;
        }
    }
    let used = item.len();
    while item.last().is_some_and(|p| blank(p)) {
        item.pop();
    }
    (item, used)
}

/// Whether line `l` starts a block that ends a paragraph (`para`) or a lazy continuation.
fn starts_block(l: &str, next: Option<&&str>, para: bool) -> bool {
    let t = l.trim_start_matches(' ');
    let list =
        marker(t).is_some_and(|(o, s, _, w)| !para || ((!o || s == 1) && t.trim_end().len() > w));
    let other = heading(t).is_some() || fence(t).is_some() || t.starts_with('>') || rule(t);
    indent(l) < 4 && (list || other || table_head(t, next).is_some())
}

fn fence(t: &str) -> Option<(char, usize, &str)> {
    let c = t.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = t.len() - t.trim_start_matches(c).len();
    let info = t[n..].trim();
    (n >= 3 && !(c == '`' && info.contains('`'))).then_some((c, n, info))
}

fn heading(t: &str) -> Option<(u8, &str)> {
    let n = t.len() - t.trim_start_matches('#').len();
    let rest = &t[n..];
    if !(1..=6).contains(&n) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let (rest, open) = (rest.trim(), rest.trim().trim_end_matches('#'));
    let closed = open.is_empty() || open.ends_with([' ', '\t']);
    Some((n as u8, if closed { open.trim_end() } else { rest }))
}

fn rule(t: &str) -> bool {
    let Some(c) = t.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    t.matches(c).count() >= 3 && t.chars().all(|x| x == c || x == ' ' || x == '\t')
}

/// List marker: (ordered, start, delimiter byte, width of marker plus following spaces).
fn marker(t: &str) -> Option<(bool, u32, u8, usize)> {
    let b = t.as_bytes();
    let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let (ordered, start, w) = match b.get(d) {
        Some(b'-' | b'*' | b'+') if d == 0 => (false, 1, 1),
        Some(b'.' | b')') if (1..10).contains(&d) => (true, t[..d].parse().ok()?, d + 1),
        _ => return None,
    };
    let (rest, sp) = (&t[w..], indent(&t[w..]));
    let w = if blank(rest) || sp > 4 { w + 1 } else { w + sp };
    (sp > 0 || blank(rest)).then_some((ordered, start, b[d], w))
}

fn table_head(t: &str, next: Option<&&str>) -> Option<Vec<String>> {
    let sep = cells(next.filter(|_| t.contains('|'))?);
    let ok = sep.iter().all(|x| x.contains('-') && x.trim_matches([':', '-']).is_empty());
    let head = cells(t);
    (ok && head.len() == sep.len()).then_some(head)
}

/// Splits a table row on pipes (`\|` is a literal pipe); cells are trimmed.
fn cells(l: &str) -> Vec<String> {
    let t = l.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") { &t[..t.len() - 1] } else { t };
    let mut out: Vec<String> = Vec::new();
    for part in t.split('|') {
        match out.last_mut() {
            Some(prev) if prev.ends_with('\\') => {
                prev.pop();
                prev.extend(['|'].into_iter().chain(part.chars()));
            }
            _ => out.push(part.into()),
        }
    }
    out.iter().map(|c| c.trim().into()).collect()
}

// ----------------------------------------------------------------------------------- inlines

/// An open emphasis (`ch` = `*`, `_` or `~`, `n` = 1 or 2 chars) or link bracket (`[`).
struct Frame {
    ch: u8,
    n: usize,
    kids: Vec<Inline>,
}

fn inline(s: &str) -> Vec<Inline> {
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
fn run(b: &[u8], i: usize) -> usize {
    b.get(i).map_or(0, |&c| b[i..].iter().take_while(|&&x| x == c).count())
}

/// Start of the first run of exactly `n` backticks at or after `k`.
fn closing_run(b: &[u8], mut k: usize, n: usize) -> Option<usize> {
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
fn push(v: &mut Vec<Inline>, node: Inline) {
    match (v.last_mut(), node) {
        (_, Inline::Text(t)) if t.is_empty() => {}
        (Some(Inline::Text(p)), Inline::Text(t)) => p.push_str(&t),
        (_, node) => v.push(node),
    }
}

/// Appends `node` to the innermost open frame and returns `next` (the new position).
fn add(st: &mut [Frame], node: Inline, next: usize) -> usize {
    if let Some(f) = st.last_mut() {
        push(&mut f.kids, node);
    }
    next
}

fn text(st: &mut [Frame], s: &str, next: usize) -> usize {
    add(st, Inline::Text(s.into()), next)
}

/// Turns open frame `k` back into literal text inside its parent; frames above it stay open.
fn dissolve(st: &mut Vec<Frame>, k: usize) {
    let Some(f) = (k > 0 && k < st.len()).then(|| st.remove(k)) else { return };
    let kids = &mut st[k - 1].kids;
    push(kids, Inline::Text(std::iter::repeat_n(f.ch as char, f.n).collect()));
    f.kids.into_iter().for_each(|x| push(kids, x));
}

/// Punctuation for delimiter flanking; non-ASCII characters all count as letters (keeps the
/// Unicode tables out of the WASM).
fn punct(c: char) -> bool {
    c.is_ascii_punctuation()
}

/// A run of `n` delimiters `c` at `i`: closes matching frames, then opens new ones.
fn delim(st: &mut Vec<Frame>, s: &str, i: usize, n: usize, c: u8) -> usize {
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

fn close_bracket(st: &mut Vec<Frame>, s: &str, i: usize) -> usize {
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
fn in_link(st: &[Frame]) -> bool {
    st.iter().any(|f| f.ch == b'[')
}

/// Parses `(url "title")` at `j`; returns the safe href and the index after `)`.
fn link_dest(s: &str, j: usize) -> Option<(String, usize)> {
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
fn autolink(st: &mut [Frame], s: &str, i: usize) -> usize {
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

fn url_link(href: String, url: &str) -> Inline {
    Inline::Link { href, children: vec![Inline::Text(url.into())] }
}

/// Byte length of a bare http(s) URL at the start of `rest` (trailing punctuation and
/// unbalanced `)` excluded), or 0.
fn url_len(rest: &str) -> usize {
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
fn safe_href(url: &str) -> Option<String> {
    let u: String = url.trim().chars().filter(|c| !c.is_control()).collect();
    let l = u.to_ascii_lowercase();
    ["http://", "https://", "mailto:"].iter().any(|p| l.starts_with(p)).then_some(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Block as B;
    use Inline as I;

    fn check(input: &str, expected: Vec<Block>) {
        let got = parse(input);
        assert_eq!(got, expected, "\ninput: {input:?}");
        let _ = plain_text(&got);
    }
    fn run_table(cases: Vec<(&str, Vec<Block>)>) {
        for (input, expected) in cases {
            check(input, expected);
        }
    }
    fn t(s: &str) -> Inline {
        I::Text(s.into())
    }
    fn c(s: &str) -> Inline {
        I::Code(s.into())
    }
    fn st(v: Vec<Inline>) -> Inline {
        I::Strong(v)
    }
    fn em(v: Vec<Inline>) -> Inline {
        I::Emphasis(v)
    }
    fn a(href: &str, v: Vec<Inline>) -> Inline {
        I::Link { href: href.into(), children: v }
    }
    fn url(href: &str) -> Inline {
        a(href, vec![t(href)])
    }
    fn p(v: Vec<Inline>) -> Block {
        B::Paragraph(v)
    }
    fn pt(s: &str) -> Block {
        p(vec![t(s)])
    }
    fn h(n: u8, s: &str) -> Block {
        B::Heading(n, vec![t(s)])
    }
    fn code(lang: Option<&str>, text: &str) -> Block {
        B::Code { lang: lang.map(String::from), text: text.into() }
    }
    fn ul(items: Vec<Vec<Block>>) -> Block {
        B::List { ordered: false, start: 1, items }
    }
    fn ol(start: u32, items: Vec<Vec<Block>>) -> Block {
        B::List { ordered: true, start, items }
    }
    fn q(v: Vec<Block>) -> Block {
        B::Quote(v)
    }
    fn cells(v: &[&str]) -> Vec<Vec<Inline>> {
        v.iter().map(|s| if s.is_empty() { vec![] } else { vec![t(s)] }).collect()
    }

    #[test]
    fn blocks_basic() {
        run_table(vec![
            ("", vec![]),
            ("\n\n  \n", vec![]),
            ("hello", vec![pt("hello")]),
            ("a\nb", vec![pt("a b")]),
            ("a\n\n\nb", vec![pt("a"), pt("b")]),
            ("a  \nb", vec![p(vec![t("a"), I::LineBreak, t("b")])]),
            ("a\\\nb", vec![p(vec![t("a"), I::LineBreak, t("b")])]),
            ("a \n   b  ", vec![pt("a b")]),
            ("# One", vec![h(1, "One")]),
            ("###### Six ######", vec![h(6, "Six")]),
            ("####### seven", vec![pt("####### seven")]),
            ("#hashtag", vec![pt("#hashtag")]),
            ("## C#", vec![h(2, "C#")]),
            ("#", vec![B::Heading(1, vec![])]),
            ("para\n# head\nmore", vec![pt("para"), h(1, "head"), pt("more")]),
            ("---", vec![B::Rule]),
            ("***", vec![B::Rule]),
            ("_ _ _", vec![B::Rule]),
            ("--", vec![pt("--")]),
            ("text\n---", vec![pt("text"), B::Rule]),
            ("```\ncode\n```", vec![code(None, "code")]),
            (
                "```rust ignore\nfn x() {}\n\n  y\n```\nafter",
                vec![code(Some("rust"), "fn x() {}\n\n  y"), pt("after")],
            ),
            ("~~~\na\n```\nb\n~~~", vec![code(None, "a\n```\nb")]),
            ("~~~ python3 extra\nx = 1\n~~~", vec![code(Some("python3"), "x = 1")]),
            ("````\na\n```\n````", vec![code(None, "a\n```")]),
            ("```\nunclosed\n# not heading", vec![code(None, "unclosed\n# not heading")]),
            ("  ```\n  a\n b\n  ```", vec![code(None, "a\nb")]),
            ("```js```", vec![p(vec![c("js")])]),
            (
                "    code\n      more\n\n    end\n\npara",
                vec![code(None, "code\n  more\n\nend"), pt("para")],
            ),
            ("\tcode", vec![code(None, "code")]),
            ("para\n    not code", vec![pt("para not code")]),
            (
                "<div>\n<script>alert(1)</script>\n</div>",
                vec![pt("<div> <script>alert(1)</script> </div>")],
            ),
        ]);
    }

    #[test]
    fn quotes() {
        run_table(vec![
            ("> quoted", vec![q(vec![pt("quoted")])]),
            ("> a\n> b\n>\n> c", vec![q(vec![pt("a b"), pt("c")])]),
            ("> a\nlazy", vec![q(vec![pt("a lazy")])]),
            ("> a\n\nb", vec![q(vec![pt("a")]), pt("b")]),
            (">> deep\n> shallow", vec![q(vec![q(vec![pt("deep shallow")])])]),
            ("> # h\n> - x", vec![q(vec![h(1, "h"), ul(vec![vec![pt("x")]])])]),
            ("> ```\n> code\n> ```", vec![q(vec![code(None, "code")])]),
        ]);
    }

    #[test]
    fn lists() {
        run_table(vec![
            ("- a\n- b", vec![ul(vec![vec![pt("a")], vec![pt("b")]])]),
            ("* a\n+ b", vec![ul(vec![vec![pt("a")]]), ul(vec![vec![pt("b")]])]),
            ("1. a\n2. b", vec![ol(1, vec![vec![pt("a")], vec![pt("b")]])]),
            ("3) a\n4) b", vec![ol(3, vec![vec![pt("a")], vec![pt("b")]])]),
            ("1. a\n- b", vec![ol(1, vec![vec![pt("a")]]), ul(vec![vec![pt("b")]])]),
            ("- a\n  continued\n- b", vec![ul(vec![vec![pt("a continued")], vec![pt("b")]])]),
            ("- a\nlazy", vec![ul(vec![vec![pt("a lazy")]])]),
            (
                "- a\n\n  second para\n- b",
                vec![ul(vec![vec![pt("a"), pt("second para")], vec![pt("b")]])],
            ),
            ("- a\n\n- b", vec![ul(vec![vec![pt("a")], vec![pt("b")]])]),
            ("- a\n\nafter", vec![ul(vec![vec![pt("a")]]), pt("after")]),
            (
                "- a\n  - b\n    - c\n- d",
                vec![ul(vec![
                    vec![pt("a"), ul(vec![vec![pt("b"), ul(vec![vec![pt("c")]])]])],
                    vec![pt("d")],
                ])],
            ),
            (
                "1. a\n   - b\n2. c",
                vec![ol(1, vec![vec![pt("a"), ul(vec![vec![pt("b")]])], vec![pt("c")]])],
            ),
            ("1. a\n  - b", vec![ol(1, vec![vec![pt("a"), ul(vec![vec![pt("b")]])]])]),
            ("- ```\n  x\n  ```\n- y", vec![ul(vec![vec![code(None, "x")], vec![pt("y")]])]),
            ("-", vec![ul(vec![vec![]])]),
            ("-not a list", vec![pt("-not a list")]),
            ("*emph* text", vec![p(vec![em(vec![t("emph")]), t(" text")])]),
            ("para\n- item", vec![pt("para"), ul(vec![vec![pt("item")]])]),
            ("The year\n2024. was", vec![pt("The year 2024. was")]),
            ("para\n1. item", vec![pt("para"), ol(1, vec![vec![pt("item")]])]),
            ("- [ ] todo", vec![ul(vec![vec![pt("[ ] todo")]])]),
            ("- > q", vec![ul(vec![vec![q(vec![pt("q")])]])]),
            ("- # h", vec![ul(vec![vec![h(1, "h")]])]),
        ]);
    }

    #[test]
    fn tables() {
        run_table(vec![
            (
                "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |",
                vec![B::Table {
                    head: cells(&["a", "b"]),
                    rows: vec![cells(&["1", "2"]), cells(&["3", "4"])],
                }],
            ),
            (
                "a | b\n--- | ---\nx | `y|z`",
                vec![B::Table {
                    head: cells(&["a", "b"]),
                    rows: vec![vec![vec![t("x")], vec![t("`y")], vec![t("z`")]][..2].to_vec()],
                }],
            ),
            (
                "| a | b |\n|---|---|\n| x \\| y | **z** |\n| only |\n| 1 | 2 | 3 |\n\nafter",
                vec![
                    B::Table {
                        head: cells(&["a", "b"]),
                        rows: vec![
                            vec![vec![t("x | y")], vec![st(vec![t("z")])]],
                            cells(&["only"]),
                            cells(&["1", "2"]),
                        ],
                    },
                    pt("after"),
                ],
            ),
            ("| a |\n|---|---|", vec![pt("| a | |---|---|")]),
            ("a | b\nnot a separator", vec![pt("a | b not a separator")]),
            (
                "intro\n| a |\n| - |\n| 1 |",
                vec![pt("intro"), B::Table { head: cells(&["a"]), rows: vec![cells(&["1"])] }],
            ),
            ("| a |\n| - |\n||", vec![B::Table { head: cells(&["a"]), rows: vec![cells(&[""])] }]),
        ]);
    }

    #[test]
    fn emphasis_and_code() {
        let long_ticks = format!("{0}x{0}", "`".repeat(17)); // runs over 16 never open a span
        run_table(vec![
            (
                "**bold** and *em*",
                vec![p(vec![st(vec![t("bold")]), t(" and "), em(vec![t("em")])])],
            ),
            ("__bold__ _em_", vec![p(vec![st(vec![t("bold")]), t(" "), em(vec![t("em")])])]),
            (
                "snake_case_names and __init__",
                vec![p(vec![t("snake_case_names and "), st(vec![t("init")])])],
            ),
            ("a_b_ _c_d", vec![pt("a_b_ _c_d")]),
            ("~~gone~~ ~one~", vec![p(vec![I::Strike(vec![t("gone")]), t(" ~one~")])]),
            ("*a **b** c*", vec![p(vec![em(vec![t("a "), st(vec![t("b")]), t(" c")])])]),
            ("***x***", vec![p(vec![em(vec![st(vec![t("x")])])])]),
            ("**a *b***", vec![p(vec![st(vec![t("a "), em(vec![t("b")])])])]),
            ("**x*", vec![p(vec![t("*"), em(vec![t("x")])])]),
            ("**unclosed", vec![pt("**unclosed")]),
            ("* not em *", vec![ul(vec![vec![pt("not em *")]])]),
            ("a * b * c", vec![pt("a * b * c")]),
            ("2*3*4", vec![p(vec![t("2"), em(vec![t("3")]), t("4")])]),
            ("`code`", vec![p(vec![c("code")])]),
            ("`a*b*c` and `x_y`", vec![p(vec![c("a*b*c"), t(" and "), c("x_y")])]),
            ("``a ` b``", vec![p(vec![c("a ` b")])]),
            ("`` `tick` ``", vec![p(vec![c("`tick`")])]),
            ("`  `", vec![p(vec![c("  ")])]),
            ("`a\nb`", vec![p(vec![c("a b")])]),
            ("`unclosed", vec![pt("`unclosed")]),
            (&long_ticks, vec![pt(&long_ticks)]),
            ("`a` `` b `` ```c```", vec![p(vec![c("a"), t(" "), c("b"), t(" "), c("c")])]),
            ("``a`", vec![pt("``a`")]),
            ("*`*`*", vec![p(vec![em(vec![c("*")])])]),
            ("`<script>`", vec![p(vec![c("<script>")])]),
            ("`C:\\`", vec![p(vec![c("C:\\")])]),
            ("\\*not em\\* \\_x\\_ \\` \\\\ \\a", vec![pt("*not em* _x_ ` \\ \\a")]),
            ("\\[x](https://e.com)", vec![p(vec![t("[x]("), url("https://e.com"), t(")")])]),
            (
                "**bold [link](https://e.com)**",
                vec![p(vec![st(vec![t("bold "), a("https://e.com", vec![t("link")])])])],
            ),
            (
                "[**b** `c`](https://e.com)",
                vec![p(vec![a("https://e.com", vec![st(vec![t("b")]), t(" "), c("c")])])],
            ),
            ("*[a*](https://e.com)", vec![p(vec![t("*"), a("https://e.com", vec![t("a*")])])]),
        ]);
    }

    #[test]
    fn links() {
        let e = "https://example.com/a_b?x=1";
        run_table(vec![
            ("[docs](https://example.com/a_b?x=1)", vec![p(vec![a(e, vec![t("docs")])])]),
            ("[x](HTTP://E.COM)", vec![p(vec![a("HTTP://E.COM", vec![t("x")])])]),
            ("[x](mailto:me@e.com)", vec![p(vec![a("mailto:me@e.com", vec![t("x")])])]),
            (
                "[x]( https://e.com/a_b \"title\" )",
                vec![p(vec![a("https://e.com/a_b", vec![t("x")])])],
            ),
            ("[x](https://e.com 'title')", vec![p(vec![a("https://e.com", vec![t("x")])])]),
            (
                "[w](https://en.wikipedia.org/wiki/Rust_(language))",
                vec![p(vec![a("https://en.wikipedia.org/wiki/Rust_(language)", vec![t("w")])])],
            ),
            ("[x](https://e.com/\\))", vec![p(vec![a("https://e.com/)", vec![t("x")])])]),
            ("<https://e.com/x>", vec![p(vec![url("https://e.com/x")])]),
            ("<me@e.com>", vec![p(vec![a("mailto:me@e.com", vec![t("me@e.com")])])]),
            (
                "see https://e.com/path.",
                vec![p(vec![t("see "), url("https://e.com/path"), t(".")])],
            ),
            (
                "(see https://e.com/a_(b)), ok",
                vec![p(vec![t("(see "), url("https://e.com/a_(b)"), t("), ok")])],
            ),
            ("**https://e.com**", vec![p(vec![st(vec![url("https://e.com")])])]),
            ("xhttps://e.com", vec![pt("xhttps://e.com")]),
            ("https:// nothing", vec![pt("https:// nothing")]),
            (
                "[https://e.com](https://e.com)",
                vec![p(vec![a("https://e.com", vec![t("https://e.com")])])],
            ),
            (
                "[a [b](https://b.com) c](https://c.com)",
                vec![p(vec![
                    t("[a "),
                    a("https://b.com", vec![t("b")]),
                    t(" c]("),
                    url("https://c.com"),
                    t(")"),
                ])],
            ),
            ("[a](https://e.com", vec![p(vec![t("[a]("), url("https://e.com")])]),
            ("[ref] and [x]", vec![pt("[ref] and [x]")]),
            ("[x] (https://e.com)", vec![p(vec![t("[x] ("), url("https://e.com"), t(")")])]),
            (
                "![img](https://e.com/i.png)",
                vec![p(vec![t("!"), a("https://e.com/i.png", vec![t("img")])])],
            ),
            ("[x]()", vec![pt("[x]()")]),
            ("[](https://e.com)", vec![p(vec![a("https://e.com", vec![])])]),
        ]);
    }

    fn hrefs(v: &[Inline], out: &mut Vec<String>, depth: usize, max: &mut usize) {
        *max = (*max).max(depth);
        for x in v {
            match x {
                I::Link { href, children } => {
                    out.push(href.clone());
                    hrefs(children, out, depth + 1, max)
                }
                I::Strong(k) | I::Emphasis(k) | I::Strike(k) => hrefs(k, out, depth + 1, max),
                _ => {}
            }
        }
    }
    /// (all hrefs, max inline depth, max block depth)
    fn walk(bs: &[Block], out: &mut Vec<String>, depth: usize, max: &mut (usize, usize)) {
        max.1 = max.1.max(depth);
        for b in bs {
            match b {
                B::Paragraph(v) | B::Heading(_, v) => hrefs(v, out, 0, &mut max.0),
                B::Quote(v) => walk(v, out, depth + 1, max),
                B::List { items, .. } => items.iter().for_each(|i| walk(i, out, depth + 1, max)),
                B::Table { head, rows } => {
                    for cell in head.iter().chain(rows.iter().flatten()) {
                        hrefs(cell, out, 0, &mut max.0)
                    }
                }
                _ => {}
            }
        }
    }
    fn assert_safe(input: &str) -> Vec<Block> {
        let doc = parse(input);
        let (mut links, mut max) = (Vec::new(), (0, 0));
        walk(&doc, &mut links, 0, &mut max);
        for h in &links {
            let l = h.to_ascii_lowercase();
            assert!(
                ["http://", "https://", "mailto:"].iter().any(|p| l.starts_with(p))
                    && !h.chars().any(char::is_control),
                "unsafe href {h:?} from {input:?}"
            );
        }
        assert!(max.0 <= MAX_DEPTH + 1 && max.1 <= MAX_DEPTH, "depth {max:?} for {input:?}");
        let _ = plain_text(&doc);
        doc
    }

    #[test]
    fn xss_stays_inert() {
        let attacks = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<svg/onload=alert(1)>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<iframe src=\"javascript:alert(1)\"></iframe>",
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x]( javascript:alert(1) )",
            "[x](java\tscript:alert(1))",
            "[x](<java\tscript:alert(1)>)",
            "[x](<java\u{1}script:alert(1)>)",
            "[x](<\u{0}javascript:alert(1)>)",
            "[x](\u{2028}javascript:alert(1))",
            "[x](\u{a0}javascript:alert(1))",
            "[x](javascript&#58;alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](vbscript:msgbox(1))",
            "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
            "[x](file:///etc/passwd)",
            "[x](//evil.com)",
            "[x](/relative)",
            "[x](#frag)",
            "[x](https:javascript:alert(1))",
            "[x](h\u{200b}ttps://e.com)",
            "[x](\\javascript:alert(1))",
            "![x](javascript:alert(1))",
            "<javascript:alert(1)>",
            "<JAVASCRIPT:alert(1)>",
            "<data:text/html,<script>alert(1)</script>>",
            "javascript:alert(1)",
            "[a](https://ok.com\" onclick=\"alert(1))",
            "https://e.com\"><script>alert(1)</script>",
            "[<img src=x onerror=alert(1)>](https://e.com)",
            "[x](https://e.com)<script>alert(1)</script>",
            "`<script>` <b onmouseover=alert(1)>hi</b>",
            "| <script> | b |\n|---|---|\n| [x](javascript:1) | <img> |",
            "> <script>alert(1)</script>\n- <style>*{}</style>",
            "# <h1>x</h1>",
            "[x](javascript:alert('https://e.com'))",
            "[[x](javascript:alert(1))](https://e.com)",
            "[x](  \u{7f}javascript:alert(1))",
            "<vbscript:x>",
            "[x](mailto:a@b.c\" onclick=\"x)",
        ];
        for input in attacks {
            let doc = assert_safe(input);
            let text = plain_text(&doc);
            for tag in ["<script>", "<img", "<svg", "<iframe", "<b ", "<style>", "<h1>"] {
                assert_eq!(
                    input.contains(tag),
                    text.contains(tag),
                    "{tag} lost or invented in {input:?} → {text:?}"
                );
            }
        }
        run_table(vec![
            ("<script>alert(1)</script>", vec![pt("<script>alert(1)</script>")]),
            ("<img src=x onerror=alert(1)>", vec![pt("<img src=x onerror=alert(1)>")]),
            ("[x](javascript:alert(1))", vec![pt("[x](javascript:alert(1))")]),
            ("[x](java\tscript:alert(1))", vec![pt("[x](java\tscript:alert(1))")]),
            ("<javascript:alert(1)>", vec![pt("<javascript:alert(1)>")]),
            ("[x](data:text/html,hi)", vec![pt("[x](data:text/html,hi)")]),
        ]);
    }

    #[test]
    fn nesting_is_capped() {
        let cases = [
            ">".repeat(10_000) + " x",
            "> ".repeat(10_000) + "x",
            "- ".repeat(10_000) + "x",
            "1. ".repeat(10_000) + "x",
            "> - ".repeat(10_000) + "x",
            (0..1000).map(|k| " ".repeat(2 * k) + "- x\n").collect(),
            "*a ".repeat(1000) + &" a*".repeat(1000),
            "[".repeat(1000) + "x" + &"](https://e.com)".repeat(1000),
            "**[".repeat(1000) + "x" + &"](https://e.com)**".repeat(1000),
            "_*~~".repeat(1000) + "x" + &"~~*_".repeat(1000),
        ];
        for input in &cases {
            assert_safe(input);
        }
        let deep = ">".repeat(20) + " x";
        let mut expected = vec![pt(&(">".repeat(4) + " x"))];
        for _ in 0..16 {
            expected = vec![q(expected)];
        }
        check(&deep, expected);
        check(&("[".repeat(20) + "x"), vec![pt(&("[".repeat(20) + "x"))]);
    }

    #[test]
    fn realistic_answer() {
        let answer = "## Key papers\n\nHere are some **influential** papers:\n\n\
            1. **Attention Is All You Need** (Vaswani et al., 2017) — [arXiv](https://arxiv.org/abs/1706.03762)\n\
            2. *BERT*: see https://arxiv.org/abs/1810.04805.\n   It uses `mask_token * 0.15`.\n\n\
            | Model | Params |\n|-------|-------:|\n| GPT-2 | 1.5B |\n| BERT_large | 340M |\n\n\
            ```python\ndef f(x):\n    return x * 2\n```\n\n> **Note:** results vary.\n\n---\n\nUse `a * b` or `**kwargs`.";
        let expected = vec![
            h(2, "Key papers"),
            p(vec![t("Here are some "), st(vec![t("influential")]), t(" papers:")]),
            ol(
                1,
                vec![
                    vec![p(vec![
                        st(vec![t("Attention Is All You Need")]),
                        t(" (Vaswani et al., 2017) — "),
                        a("https://arxiv.org/abs/1706.03762", vec![t("arXiv")]),
                    ])],
                    vec![p(vec![
                        em(vec![t("BERT")]),
                        t(": see "),
                        url("https://arxiv.org/abs/1810.04805"),
                        t(". It uses "),
                        c("mask_token * 0.15"),
                        t("."),
                    ])],
                ],
            ),
            B::Table {
                head: cells(&["Model", "Params"]),
                rows: vec![cells(&["GPT-2", "1.5B"]), cells(&["BERT_large", "340M"])],
            },
            code(Some("python"), "def f(x):\n    return x * 2"),
            q(vec![p(vec![st(vec![t("Note:")]), t(" results vary.")])]),
            B::Rule,
            p(vec![t("Use "), c("a * b"), t(" or "), c("**kwargs"), t(".")]),
        ];
        check(answer, expected);
        assert_eq!(
            plain_text(&parse(answer)),
            "Key papers\n\nHere are some influential papers:\n\n\
             1. Attention Is All You Need (Vaswani et al., 2017) — arXiv\n\
             2. BERT: see https://arxiv.org/abs/1810.04805. It uses mask_token * 0.15.\n\n\
             Model\tParams\nGPT-2\t1.5B\nBERT_large\t340M\n\n\
             def f(x):\n    return x * 2\n\nNote: results vary.\n\n---\n\nUse a * b or **kwargs."
        );
        assert_eq!(plain_text(&parse("- a\n  - b\n- c  \n  d")), "- a\n- b\n- c\nd");
        assert_eq!(plain_text(&parse("7. x\n8. *y*\n\n> q\n\n***")), "7. x\n8. y\n\nq\n\n---");
    }

    #[test]
    fn randomized_no_panic() {
        const TOKENS: &[&str] = &[
            "*",
            "**",
            "***",
            "_",
            "__",
            "~~",
            "~",
            "`",
            "``",
            "```",
            "~~~",
            "[",
            "]",
            "(",
            ")",
            "](",
            "<",
            ">",
            "\n",
            "\n\n",
            " ",
            "  ",
            "    ",
            "\t",
            "#",
            "## ",
            "- ",
            "* ",
            "1. ",
            "2) ",
            "> ",
            "|",
            "|---|",
            "---",
            "\\",
            "https://e.com/",
            "http://x",
            "mailto:a@b",
            "javascript:",
            "<script>",
            "a",
            "b_c",
            "word",
            "é",
            "😀",
            "\u{0}",
            "\r",
            ":",
            ".",
            "!",
            "\"",
            "'",
            "@",
            "h",
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let n = std::env::var("MD_FUZZ_N").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
        for _ in 0..n {
            let len = (next() % 40) as usize;
            let input: String =
                (0..len).map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize]).collect();
            assert_safe(&input);
        }
    }

    #[test]
    fn pathological_inputs_finish() {
        const MB: usize = 1 << 20;
        let fill = |s: &str| s.repeat(MB / s.len());
        let cases: Vec<(&str, String)> = vec![
            ("1M '*' in text", "a".to_string() + &"*".repeat(MB)),
            ("'*a'", fill("*a")),
            ("'**a '", fill("**a ")),
            ("'_a_'", fill("_a_ ")),
            ("'[' ", "[".repeat(MB)),
            ("'[a]('", fill("[a](")),
            ("'[a](u \"'", fill("[a](u \"")),
            ("'](' ", fill("](")),
            ("'[a](' + '('", "[a](".to_string() + &"(".repeat(MB)),
            ("'<'", "<".repeat(MB)),
            ("'<a'", fill("<a")),
            ("'`' runs 1..n", (1..1400).map(|n| "`".repeat(n) + "x").collect()),
            ("'`a'", fill("`a")),
            ("'\\\\'", "\\".repeat(MB)),
            ("'https://'", fill("https://")),
            ("'https://x' + ')'", "https://x".to_string() + &")".repeat(MB)),
            ("'>' one line", ">".repeat(MB)),
            ("'> ' lines", fill("> \n")),
            ("'- ' nesting", fill("- ") + "x"),
            ("'[' then ']'", "[".repeat(MB / 2) + &"]".repeat(MB / 2)),
            ("'> ' nesting", fill("> ") + "x"),
            ("list staircase", (0..1000).map(|k| " ".repeat(k) + "- x\n").collect()),
            ("'1. a\\n'", fill("1. a\n")),
            ("'|'", "|".repeat(MB)),
            ("wide table", "|a".repeat(20_000) + "\n" + &"|-".repeat(20_000) + "\n" + &fill("|\n")),
            ("'```\\n'", fill("```\n")),
            ("'a  \\n'", fill("a  \n")),
            ("'#'", "#".repeat(MB)),
            ("'~~a'", fill("~~a")),
            ("mixed", fill("*_[`<h~\\](")),
            ("'- a\\nb\\n'", fill("- a\nb\n")),
        ];
        for (name, input) in cases {
            let start = std::time::Instant::now();
            let doc = parse(&input);
            let text = plain_text(&doc);
            eprintln!(
                "{name:>22}: {:>4} KB in {:?} ({} text bytes)",
                input.len() / 1024,
                start.elapsed(),
                text.len()
            );
        }
    }
}
