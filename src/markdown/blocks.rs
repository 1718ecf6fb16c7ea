//! Block structure: lines to [`Block`]s, with bounded nesting of quotes and lists.

use super::*;

/// Expands tabs in the leading whitespace to 4-column tab stops.
pub(super) fn expand_tabs(line: &str) -> String {
    let body = line.trim_start_matches([' ', '\t']);
    let lead = &line[..line.len() - body.len()];
    " ".repeat(lead.chars().fold(0, |n, c| if c == '\t' { n + 4 - n % 4 } else { n + 1 })) + body
}

pub(super) fn indent(l: &str) -> usize {
    l.len() - l.trim_start_matches(' ').len()
}

pub(super) fn blank(l: &str) -> bool {
    l.trim().is_empty()
}

/// Removes up to `k` leading spaces.
pub(super) fn strip(l: &str, k: usize) -> &str {
    &l[indent(l).min(k)..]
}

pub(super) fn blocks(lines: &[&str], depth: usize) -> Vec<Block> {
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
pub(super) fn list_item<'a>(lines: &[&'a str], mi: usize, col: usize) -> (Vec<&'a str>, usize) {
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
pub(super) fn starts_block(l: &str, next: Option<&&str>, para: bool) -> bool {
    let t = l.trim_start_matches(' ');
    let list =
        marker(t).is_some_and(|(o, s, _, w)| !para || ((!o || s == 1) && t.trim_end().len() > w));
    let other = heading(t).is_some() || fence(t).is_some() || t.starts_with('>') || rule(t);
    indent(l) < 4 && (list || other || table_head(t, next).is_some())
}

pub(super) fn fence(t: &str) -> Option<(char, usize, &str)> {
    let c = t.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = t.len() - t.trim_start_matches(c).len();
    let info = t[n..].trim();
    (n >= 3 && !(c == '`' && info.contains('`'))).then_some((c, n, info))
}

pub(super) fn heading(t: &str) -> Option<(u8, &str)> {
    let n = t.len() - t.trim_start_matches('#').len();
    let rest = &t[n..];
    if !(1..=6).contains(&n) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let (rest, open) = (rest.trim(), rest.trim().trim_end_matches('#'));
    let closed = open.is_empty() || open.ends_with([' ', '\t']);
    Some((n as u8, if closed { open.trim_end() } else { rest }))
}

pub(super) fn rule(t: &str) -> bool {
    let Some(c) = t.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    t.matches(c).count() >= 3 && t.chars().all(|x| x == c || x == ' ' || x == '\t')
}

/// List marker: (ordered, start, delimiter byte, width of marker plus following spaces).
pub(super) fn marker(t: &str) -> Option<(bool, u32, u8, usize)> {
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

pub(super) fn table_head(t: &str, next: Option<&&str>) -> Option<Vec<String>> {
    let sep = cells(next.filter(|_| t.contains('|'))?);
    let ok = sep.iter().all(|x| x.contains('-') && x.trim_matches([':', '-']).is_empty());
    let head = cells(t);
    (ok && head.len() == sep.len()).then_some(head)
}

/// Splits a table row on pipes (`\|` is a literal pipe); cells are trimmed.
pub(super) fn cells(l: &str) -> Vec<String> {
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
