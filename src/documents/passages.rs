//! Pages cut into passages by their structure: headings start a new passage and name the ones
//! under them, paragraphs are kept whole where they fit, a page's end is a passage's end, and
//! each passage begins with the last words of the one before (a small overlap, so a sentence
//! cut at a boundary is found from either side). A passage keeps its page, its heading and the
//! range of the page's text it covers, so a citation can open the document at that place.

use super::read::{Kind, Page};

/// About this many characters per passage (a paragraph longer than `MAX` is cut at a sentence
/// or a space).
pub const TARGET: usize = 900;
pub const MAX: usize = 1400;
/// Characters carried over from the passage before.
pub const OVERLAP: usize = 120;

#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// The page's number in a PDF; `None` for a file of one page.
    pub page: Option<u32>,
    /// The heading above the passage, if any.
    pub heading: String,
    /// Byte range in its page's text (on character boundaries).
    pub start: usize,
    pub end: usize,
    /// What is indexed and quoted: the range's text, with a CSV's header row before it.
    pub text: String,
}

/// A block of a page: a heading line, or a paragraph (lines up to a blank line; a CSV row).
struct Block {
    start: usize,
    end: usize,
    heading: Option<String>,
}

fn blocks(text: &str, kind: Kind) -> Vec<Block> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut open: Option<usize> = None;
    let mut in_fence = false;
    for line in text.split_inclusive('\n') {
        let (start, end) = (at, at + line.len());
        at = end;
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = (kind != Kind::Csv && !in_fence && !trimmed.starts_with("```")).then(|| heading_of(trimmed)).flatten();
        let ends_block = trimmed.is_empty() || heading.is_some() || kind == Kind::Csv;
        if let Some(title) = heading {
            if let Some(s) = open.take() {
                out.push(Block { start: s, end: start, heading: None });
            }
            out.push(Block { start, end, heading: Some(title) });
            continue;
        }
        if trimmed.is_empty() {
            if let Some(s) = open.take() {
                out.push(Block { start: s, end: start, heading: None });
            }
            continue;
        }
        let s = *open.get_or_insert(start);
        if ends_block {
            out.push(Block { start: s, end, heading: None });
            open = None;
        }
    }
    if let Some(s) = open {
        out.push(Block { start: s, end: text.len(), heading: None });
    }
    out
}

/// A Markdown heading's title (`# Title`); the HTML reader writes its headings the same way.
fn heading_of(line: &str) -> Option<String> {
    let hashes = line.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        Some(line[hashes..].trim().trim_end_matches('#').trim().to_string())
    } else {
        None
    }
}

/// The passages of a document's pages, in order.
pub fn cut(pages: &[Page], kind: Kind) -> Vec<Passage> {
    let mut cutter = Cutter::new(kind);
    while !cutter.step(pages, usize::MAX) {}
    cutter.finish()
}

/// Cuts a document a piece at a time (`step`), so that a large file never holds the page: a
/// piece ends at a blank line (a paragraph's end) or a line's end, and no passage runs across
/// two pieces.
pub struct Cutter {
    kind: Kind,
    heading: String,
    page: usize,
    from: usize,
    out: Vec<Passage>,
}

impl Cutter {
    pub fn new(kind: Kind) -> Cutter {
        Cutter { kind, heading: String::new(), page: 0, from: 0, out: Vec::new() }
    }

    /// Cuts about `bytes` more of `pages` (at least to the next line's end); true once every
    /// page is cut.
    pub fn step(&mut self, pages: &[Page], bytes: usize) -> bool {
        let Some(page) = pages.get(self.page) else { return true };
        let text = page.text.as_str();
        let to = if bytes >= text.len() - self.from { text.len() } else { piece_end(text, self.from + bytes, self.kind) };
        cut_span(page, self.kind, self.from, to, &mut self.heading, &mut self.out);
        if to >= text.len() {
            self.page += 1;
            self.from = 0;
        } else {
            self.from = to;
        }
        self.page >= pages.len()
    }

    pub fn finish(self) -> Vec<Passage> {
        self.out
    }
}

/// Where a piece that should end near `at` ends: after the next blank line within a few
/// kilobytes, else after the next line's end, else at the text's end.
fn piece_end(text: &str, at: usize, kind: Kind) -> usize {
    let at = floor(text, at);
    let window = &text[at..];
    let near = &window[..floor(window, 8192)];
    let blank = if kind == Kind::Csv { None } else { near.find("\n\n").map(|i| i + 2) };
    at + blank.or_else(|| window.find('\n').map(|i| i + 1)).unwrap_or(window.len())
}

/// The passages of `page`'s text from `from` to `to` (a piece), appended to `out`; `heading`
/// is the heading in force, carried from piece to piece.
fn cut_span(page: &Page, kind: Kind, from: usize, to: usize, heading: &mut String, out: &mut Vec<Passage>) {
    let text = page.text.as_str();
    let header = if kind == Kind::Csv { text.lines().next().unwrap_or("").to_string() } else { String::new() };
    // (start, end, heading, begins at its heading)
    let mut spans: Vec<(usize, usize, String, bool)> = Vec::new();
    let mut current: Option<(usize, usize, bool)> = None;
    let mut only_heading = false;
    let mut under = heading.clone();
    for block in blocks(&text[from..to], kind) {
        let (bs, be) = (block.start + from, block.end + from);
        if let Some(title) = block.heading {
            if let Some((s, e, h)) = current.take() {
                spans.push((s, e, under.clone(), h));
            }
            *heading = title;
            under = heading.clone();
            current = Some((bs, be, true));
            only_heading = true;
            continue;
        }
        if kind == Kind::Csv && bs == 0 {
            continue;
        }
        for (s, e) in split_long(text, bs, be) {
            match current {
                Some((cs, _, h)) if e - cs <= TARGET || only_heading => current = Some((cs, e, h)),
                Some((cs, ce, h)) => {
                    spans.push((cs, ce, under.clone(), h));
                    under = heading.clone();
                    current = Some((s, e, false));
                }
                None => {
                    under = heading.clone();
                    current = Some((s, e, false));
                }
            }
            only_heading = false;
        }
    }
    if let Some((s, e, h)) = current {
        spans.push((s, e, under, h));
    }
    let mut first = true;
    for (s, e, heading, at_heading) in spans {
        let start = if first || at_heading || kind == Kind::Csv { s } else { overlap_start(text, s) };
        first = false;
        let body = text[start..e].trim_end();
        if body.trim().is_empty() {
            continue;
        }
        let text = if header.is_empty() { body.to_string() } else { format!("{header}\n{body}") };
        out.push(Passage { page: page.number, heading: heading.clone(), start, end: start + body.len(), text });
    }
}

/// A passage's text from its page's range, as `cut` made it; `None` for a range that is not
/// in the page.
pub fn text_of(page: &str, kind: Kind, start: usize, end: usize) -> Option<String> {
    let body = page.get(start..end)?;
    let header = if kind == Kind::Csv { page.lines().next().unwrap_or("") } else { "" };
    Some(if header.is_empty() { body.to_string() } else { format!("{header}\n{body}") })
}

/// A block longer than `MAX`, as pieces cut at a sentence's end or else a space.
fn split_long(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = start;
    while end - s > MAX {
        let window = &text[s..floor(text, s + MAX)];
        let cut = window[..window.len()].rfind(". ").map(|i| i + 2).filter(|&i| i > TARGET / 2).or_else(|| window.rfind(char::is_whitespace).filter(|&i| i > TARGET / 2)).unwrap_or(window.len());
        out.push((s, s + cut));
        s += cut;
    }
    out.push((s, end));
    out
}

/// Where a passage that follows on at `s` begins: up to `OVERLAP` characters before it, at the
/// start of a word.
fn overlap_start(text: &str, s: usize) -> usize {
    let from = floor(text, s.saturating_sub(OVERLAP));
    match text[from..s].find(char::is_whitespace) {
        Some(space) if from > 0 => from + space + 1,
        _ => from,
    }
}

/// `at`, or the nearest character boundary before it.
fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Vec<Page> {
        vec![Page { number: None, text: text.into() }]
    }

    #[test]
    fn headings_start_passages_and_name_them() {
        let text = "# Ferns\n\nFerns grow from spores.\n\n## Water\n\nThey need damp soil.\nAnd shade.\n";
        let got = cut(&page(text), Kind::Markdown);
        assert_eq!(got.len(), 2, "{got:#?}");
        assert_eq!(got[0].heading, "Ferns");
        assert!(got[0].text.starts_with("# Ferns") && got[0].text.ends_with("spores."));
        assert_eq!(got[1].heading, "Water");
        assert!(got[1].text.contains("## Water") && got[1].text.ends_with("And shade."));
        for p in &got {
            assert_eq!(&text[p.start..p.end], p.text, "a passage is its range");
            assert_eq!(text_of(text, Kind::Markdown, p.start, p.end).as_deref(), Some(p.text.as_str()));
        }
    }

    #[test]
    fn long_text_is_cut_near_the_target_with_an_overlap_and_pages_keep_their_numbers() {
        let para = |i: usize| format!("Paragraph {i} says something about plants and their growth in the garden over the years. ").repeat(3);
        let text: String = (0..40).map(|i| para(i) + "\n\n").collect();
        let pages = vec![Page { number: Some(1), text: text.clone() }, Page { number: Some(2), text: "Last page.".into() }];
        let got = cut(&pages, Kind::Pdf);
        assert!(got.len() > 10, "{}", got.len());
        for pair in got.windows(2).filter(|w| w[1].page == Some(1)) {
            assert!(pair[1].start < pair[0].end, "each passage begins inside the one before");
            assert!(pair[0].end - pair[0].start <= TARGET + OVERLAP + 10);
        }
        assert_eq!(got.last().unwrap().page, Some(2));
        assert_eq!(got.last().unwrap().text, "Last page.");
        let one_line = "word ".repeat(2000) + "ünïcode ".repeat(300).as_str();
        let got = cut(&page(&one_line), Kind::Text);
        assert!(got.len() >= 8 && got.iter().all(|p| p.end - p.start <= MAX + OVERLAP), "a paragraph past MAX is cut");
    }

    #[test]
    fn cut_in_pieces_every_passage_is_its_range_and_the_text_is_all_there() {
        let text: String = (0..300).map(|i| format!("## Part {i}\n\nLine one of part {i} about ferns.\nLine two.\n\n{}\n\n", "word ".repeat(i % 50 * 10))).collect();
        let pages = vec![Page { number: None, text: text.clone() }];
        let mut cutter = Cutter::new(Kind::Markdown);
        let mut steps = 1;
        while !cutter.step(&pages, 4096) {
            steps += 1;
        }
        let got = cutter.finish();
        assert!(steps > 20, "{steps} pieces");
        for p in &got {
            assert_eq!(&text[p.start..p.end], p.text);
            assert!(p.end - p.start <= MAX + OVERLAP);
        }
        for i in [0, 151, 299] {
            assert!(got.iter().any(|p| p.heading == format!("Part {i}") && p.text.contains(&format!("part {i} about ferns"))), "part {i}");
        }
        assert_eq!(cut(&pages, Kind::Markdown).len(), got.len(), "the same passages as cut at once: pieces end where passages do");
    }

    #[test]
    fn csv_rows_are_grouped_under_their_header() {
        let mut text = String::from("name,height_cm\n");
        for i in 0..200 {
            text.push_str(&format!("plant number {i},{}\n", i * 3));
        }
        let got = cut(&page(&text), Kind::Csv);
        assert!(got.len() > 3);
        assert!(got.iter().all(|p| p.text.starts_with("name,height_cm\nplant number")), "{:?}", got[1].text);
        assert!(got.iter().any(|p| p.text.contains("plant number 199,597")));
    }

    #[test]
    fn a_fenced_block_is_not_cut_at_its_comment_lines() {
        let text = "# Code\n\n```\n# not a heading\nx = 1\n```\n";
        let got = cut(&page(text), Kind::Markdown);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].heading, "Code");
    }
}
