//! A file's bytes as pages of text. Text, Markdown, CSV and JSON are read here; HTML is reduced
//! to its text (never drawn: nothing of it runs or loads); a PDF's pages are read by the page's
//! PDF library and checked here (`pdf_pages`). Every failure is a sentence about that one file.

/// What a file is read as, from its name and then its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Markdown,
    Html,
    Csv,
    Json,
    Pdf,
}

/// Past this a file is not read (its row says so): the person's machine holds it, the page
/// keeps it in the browser's storage for Re-read.
pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;

impl Kind {
    /// By the name's extension, then the browser's type; `None` for a file of no kind read here.
    pub fn of(name: &str, mime: &str) -> Option<Kind> {
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
        let by_name = match ext.as_str() {
            "txt" | "text" | "log" | "rst" | "org" | "tex" => Some(Kind::Text),
            "md" | "markdown" | "mdown" | "mkd" => Some(Kind::Markdown),
            "html" | "htm" | "xhtml" => Some(Kind::Html),
            "csv" | "tsv" => Some(Kind::Csv),
            "json" | "jsonl" | "ndjson" => Some(Kind::Json),
            "pdf" => Some(Kind::Pdf),
            _ => None,
        };
        by_name.or(match mime.split(';').next().unwrap_or("").trim() {
            "text/markdown" => Some(Kind::Markdown),
            "text/html" | "application/xhtml+xml" => Some(Kind::Html),
            "text/csv" | "text/tab-separated-values" => Some(Kind::Csv),
            "application/json" => Some(Kind::Json),
            "application/pdf" => Some(Kind::Pdf),
            m if m.starts_with("text/") => Some(Kind::Text),
            _ => None,
        })
    }

    /// As stored and as shown.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Markdown => "markdown",
            Kind::Html => "html",
            Kind::Csv => "csv",
            Kind::Json => "json",
            Kind::Pdf => "pdf",
        }
    }

    pub fn from_word(word: &str) -> Option<Kind> {
        [Kind::Text, Kind::Markdown, Kind::Html, Kind::Csv, Kind::Json, Kind::Pdf].into_iter().find(|k| k.word() == word)
    }
}

/// One page of a document: a PDF's pages keep their numbers, other files are one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub number: Option<u32>,
    pub text: String,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    Empty,
    TooLarge { size: u64 },
    Binary,
    Unknown,
    PdfLocked,
    PdfDamaged(String),
    PdfNoText,
    /// The file's bytes are no longer held or stored.
    Gone,
    /// The browser could not hand over the file's bytes (it moved or went since it was picked).
    NotHanded(String),
    /// The PDF reader could not be fetched from the site.
    ReaderMissing(String),
}

impl ReadError {
    /// What the file's row says.
    pub fn message(&self) -> String {
        match self {
            ReadError::Empty => "This file is empty: there is nothing to read.".into(),
            ReadError::TooLarge { size } => format!(
                "This file is too large to read: {} bytes, over the {} MB ({} bytes) a file may be. Split it, or keep the part you need.",
                size,
                MAX_FILE_BYTES / (1024 * 1024),
                MAX_FILE_BYTES
            ),
            ReadError::Binary => "This file is not text, whatever its name says: nothing was read from it.".into(),
            ReadError::Unknown => "Files of this kind are not read: text, Markdown, HTML, CSV, JSON and PDF are.".into(),
            ReadError::PdfLocked => "This PDF is protected by a password: open it, save an unprotected copy, and add that.".into(),
            ReadError::PdfDamaged(why) => format!("This PDF could not be read ({}): it may be damaged.", bounded(why, 200)),
            ReadError::PdfNoText => "This PDF has no text to read: its pages are images (a scan). Run text recognition on it first.".into(),
            ReadError::Gone => "This file is no longer kept in this browser: add it again.".into(),
            ReadError::NotHanded(why) => format!("The browser could not read this file ({}): it may have moved since it was picked. Add it again.", bounded(why, 200)),
            ReadError::ReaderMissing(why) => format!("The PDF reader could not be loaded ({}). Check the connection, then Re-read.", bounded(why, 200)),
        }
    }
}

fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The pages of a file that is not a PDF.
pub fn read(kind: Kind, bytes: &[u8]) -> Result<Vec<Page>, ReadError> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge { size: bytes.len() as u64 });
    }
    if matches!(kind, Kind::Text | Kind::Markdown | Kind::Csv) {
        return Decoder::new(bytes.to_vec())?.finish();
    }
    let text = decode(bytes)?;
    let text = match kind {
        Kind::Text | Kind::Markdown | Kind::Csv => text,
        Kind::Html => html_text(&text),
        Kind::Json => json_text(&text),
        Kind::Pdf => return Err(ReadError::PdfDamaged("it was read as text".into())),
    };
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    if text.trim().is_empty() {
        return Err(ReadError::Empty);
    }
    Ok(vec![Page { number: None, text }])
}

/// Reads a text file (plain, Markdown, CSV) a slice at a time, so a large one never holds the
/// page: UTF-8 (a byte-order mark dropped), else Latin-1 for old files, line ends made `\n`.
/// The result is `read`'s.
pub struct Decoder {
    bytes: Vec<u8>,
    at: usize,
    text: String,
    latin1: bool,
    /// The last character given was a `\r` (so a `\n` right after it is the same line end).
    after_cr: bool,
}

impl Decoder {
    pub fn new(bytes: Vec<u8>) -> Result<Decoder, ReadError> {
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(ReadError::TooLarge { size: bytes.len() as u64 });
        }
        if bytes.is_empty() {
            return Err(ReadError::Empty);
        }
        let at = if bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        if bytes[at..bytes.len().min(at + 8192)].contains(&0) {
            return Err(ReadError::Binary);
        }
        Ok(Decoder { text: String::with_capacity(bytes.len()), bytes, at, latin1: false, after_cr: false })
    }

    /// Decodes about `max` more bytes; true once all are. An error once the bytes turn out to
    /// be no text.
    pub fn step(&mut self, max: usize) -> Result<bool, ReadError> {
        let end = self.at.saturating_add(max.max(4)).min(self.bytes.len());
        if self.latin1 {
            let slice: String = self.bytes[self.at..end].iter().map(|&b| b as char).collect();
            self.push(&slice);
            self.at = end;
            return Ok(self.at == self.bytes.len());
        }
        let slice = &self.bytes[self.at..end];
        let (valid, rest) = match std::str::from_utf8(slice) {
            Ok(text) => (text, 0),
            // A character cut by the slice's end waits for the next slice.
            Err(e) if e.error_len().is_none() && end < self.bytes.len() => (std::str::from_utf8(&slice[..e.valid_up_to()]).unwrap_or_default(), slice.len() - e.valid_up_to()),
            Err(_) => {
                // Not UTF-8: Latin-1 from the start, unless it looks like no text at all.
                let start = if self.bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
                let head = &self.bytes[start..self.bytes.len().min(start + 8192)];
                let controls = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c)).count();
                if controls * 100 > head.len() {
                    return Err(ReadError::Binary);
                }
                self.latin1 = true;
                self.at = start;
                self.text.clear();
                self.after_cr = false;
                return Ok(false);
            }
        };
        let valid = valid.to_string();
        self.push(&valid);
        self.at = end - rest;
        Ok(self.at == self.bytes.len())
    }

    fn push(&mut self, text: &str) {
        if !text.contains('\r') {
            if self.after_cr && text.starts_with('\n') {
                self.text.push_str(&text[1..]);
            } else {
                self.text.push_str(text);
            }
            self.after_cr = false;
            return;
        }
        for c in text.chars() {
            match c {
                '\r' => {
                    self.text.push('\n');
                    self.after_cr = true;
                    continue;
                }
                '\n' if self.after_cr => {}
                c => self.text.push(c),
            }
            self.after_cr = false;
        }
    }

    /// (bytes decoded, bytes in all)
    pub fn progress(&self) -> (usize, usize) {
        (self.at, self.bytes.len())
    }

    pub fn finish(mut self) -> Result<Vec<Page>, ReadError> {
        while !self.step(usize::MAX)? {}
        if self.text.trim().is_empty() {
            return Err(ReadError::Empty);
        }
        Ok(vec![Page { number: None, text: self.text }])
    }
}

/// A PDF's pages as its library read them, in order from page 1.
pub fn pdf_pages(pages: Vec<String>) -> Result<Vec<Page>, ReadError> {
    if pages.iter().all(|p| p.trim().is_empty()) {
        return Err(ReadError::PdfNoText);
    }
    Ok(pages.into_iter().enumerate().map(|(i, text)| Page { number: Some(i as u32 + 1), text }).collect())
}

/// UTF-8 (a byte-order mark dropped), else Latin-1 for old files; a NUL byte, or much that is
/// neither, is not text.
fn decode(bytes: &[u8]) -> Result<String, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::Empty);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(ReadError::Binary);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(text.to_string());
    }
    let controls = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\n' | b'\r' | b'\t' | 0x0c)).count();
    if controls * 100 > head.len() {
        return Err(ReadError::Binary);
    }
    Ok(bytes.iter().map(|&b| b as char).collect())
}

/// The text of an HTML page: scripts, styles and the head dropped, headings kept as Markdown
/// headings (so passages know their section), blocks as lines, entities decoded.
pub fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    let mut skipping: Option<String> = None;
    while let Some(open) = rest.find('<') {
        if skipping.is_none() {
            out.push_str(&entities(&rest[..open]));
        }
        rest = &rest[open..];
        if !rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') {
            // A "<" that opens no tag is text ("a < b").
            if skipping.is_none() {
                out.push('<');
            }
            rest = &rest[1..];
            continue;
        }
        if rest.starts_with("<!--") {
            rest = rest.find("-->").map_or("", |end| &rest[end + 3..]);
            continue;
        }
        let Some(close) = rest.find('>') else {
            rest = "";
            break;
        };
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
        if let Some(skipped) = &skipping {
            if closing && name == *skipped {
                skipping = None;
            }
            continue;
        }
        match name.as_str() {
            "script" | "style" | "head" | "noscript" | "template" | "svg" if !closing && !tag.ends_with('/') => skipping = Some(name),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                out.push_str("\n\n");
                if !closing {
                    let level = name[1..].parse::<usize>().unwrap_or(1);
                    out.push_str(&"#".repeat(level));
                    out.push(' ');
                }
            }
            "p" | "div" | "section" | "article" | "ul" | "ol" | "table" | "blockquote" | "pre" | "header" | "footer" | "main" | "nav" | "aside" | "figure" => out.push_str("\n\n"),
            "br" | "li" | "tr" | "dt" | "dd" | "hr" if !closing => out.push('\n'),
            "td" | "th" if !closing => out.push_str(" | "),
            _ => {}
        }
    }
    if skipping.is_none() {
        out.push_str(&entities(rest));
    }
    tidy(&out)
}

/// Runs of spaces as one, at most one blank line in a row, no spaces at a line's ends.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&line);
    }
    out
}

fn entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..].find(|c: char| c == ';' || c.is_whitespace() || c == '&').map(|e| e + 1);
        let decoded = end.filter(|&e| rest.as_bytes().get(e) == Some(&b';')).and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => name.strip_prefix("#x").or(name.strip_prefix("#X")).map_or_else(
                    || name.strip_prefix('#').and_then(|n| n.parse::<u32>().ok()).and_then(char::from_u32),
                    |hex| u32::from_str_radix(hex, 16).ok().and_then(char::from_u32),
                ),
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON as lines of `path: value`, so each value keeps where it sits; a file that is not valid
/// JSON (or is JSON Lines) is read line by line, and what cannot be parsed stays as written.
fn json_text(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => {
            let mut out = String::new();
            flatten(&value, "", &mut out);
            out
        }
        Err(_) => text
            .lines()
            .enumerate()
            .map(|(i, line)| match serde_json::from_str::<serde_json::Value>(line) {
                Ok(value) if value.is_object() || value.is_array() => {
                    let mut out = String::new();
                    flatten(&value, &format!("[{i}]"), &mut out);
                    out
                }
                _ => format!("{line}\n"),
            })
            .collect(),
    }
}

fn flatten(value: &serde_json::Value, path: &str, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                flatten(v, &path, out);
            }
            if map.is_empty() {
                out.push_str(&format!("{path}: {{}}\n"));
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(v, &format!("{path}[{i}]"), out);
            }
            if items.is_empty() {
                out.push_str(&format!("{path}: []\n"));
            }
        }
        Value::String(s) => out.push_str(&format!("{path}: {s}\n")),
        other => out.push_str(&format!("{path}: {other}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_name_then_the_type() {
        assert_eq!(Kind::of("Notes.MD", ""), Some(Kind::Markdown));
        assert_eq!(Kind::of("paper.pdf", "application/octet-stream"), Some(Kind::Pdf));
        assert_eq!(Kind::of("README", "text/plain"), Some(Kind::Text));
        assert_eq!(Kind::of("photo.jpg", "image/jpeg"), None);
        for kind in [Kind::Text, Kind::Markdown, Kind::Html, Kind::Csv, Kind::Json, Kind::Pdf] {
            assert_eq!(Kind::from_word(kind.word()), Some(kind));
        }
    }

    #[test]
    fn bad_files_say_what_is_wrong_with_them() {
        assert_eq!(read(Kind::Text, b""), Err(ReadError::Empty));
        assert_eq!(read(Kind::Markdown, b"  \n\n "), Err(ReadError::Empty));
        assert_eq!(read(Kind::Text, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Err(ReadError::Binary));
        assert_eq!(read(Kind::Text, &[0xff, 0xfe, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]), Err(ReadError::Binary));
        assert_eq!(pdf_pages(vec![" ".into(), String::new()]), Err(ReadError::PdfNoText));
        let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
        assert!(matches!(read(Kind::Text, &big), Err(ReadError::TooLarge { .. })));
        for e in [ReadError::Empty, ReadError::Binary, ReadError::PdfLocked, ReadError::PdfNoText, ReadError::PdfDamaged("x".repeat(500)), ReadError::Unknown, ReadError::Gone, ReadError::ReaderMissing("offline".into()), ReadError::NotHanded("NotFoundError".into())] {
            assert!(e.message().ends_with('.') && e.message().len() < 400, "{e:?}");
        }
    }

    #[test]
    fn text_keeps_its_lines_and_old_encodings_are_read() {
        let pages = read(Kind::Text, b"\xEF\xBB\xBFone\r\ntwo").unwrap();
        assert_eq!(pages, vec![Page { number: None, text: "one\ntwo".into() }]);
        assert_eq!(read(Kind::Text, b"caf\xe9").unwrap()[0].text, "café");
        let pages = pdf_pages(vec!["a".into(), "b".into()]).unwrap();
        assert_eq!(pages[1].number, Some(2));
    }

    #[test]
    fn html_is_its_text_with_headings_and_nothing_that_runs() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
            <h2 class="x">Ferns &amp; mosses</h2><p>Spores, not&nbsp;seeds.<script>alert("no")</script></p>
            <!-- hidden --><ul><li>one</li><li>two &#x263A;</li></ul><table><tr><td>a</td><td>b</td></tr></table></body></html>"#;
        let text = html_text(html);
        assert!(text.starts_with("## Ferns & mosses\n\nSpores, not seeds."), "{text}");
        assert!(!text.contains("alert") && !text.contains("hidden") && !text.contains("p{}") && !text.contains('T'), "{text}");
        assert!(text.contains("one\ntwo ☺") && text.contains("| a | b"), "{text}");
        assert_eq!(html_text("a < b & c"), "a < b & c");
    }

    #[test]
    fn json_keeps_where_each_value_sits() {
        let pages = read(Kind::Json, br#"{"plant": {"name": "fern", "heights": [1, 2]}, "ok": true}"#).unwrap();
        assert_eq!(pages[0].text, "ok: true\nplant.heights[0]: 1\nplant.heights[1]: 2\nplant.name: fern\n", "keys in order of their names");
        let lines = read(Kind::Json, b"{\"a\": 1}\n{\"a\": 2}\nnot json").unwrap();
        assert_eq!(lines[0].text, "[0].a: 1\n[1].a: 2\nnot json\n");
    }

    #[test]
    fn a_text_read_in_slices_is_the_text_read_at_once() {
        let text = "Première ligne\r\nzweite Zeile\rdritte — ✓ 😀\r\n\r\nEnde\n".repeat(50);
        let whole = read(Kind::Text, text.as_bytes()).unwrap();
        assert_eq!(whole[0].text, text.replace("\r\n", "\n").replace('\r', "\n"));
        for slice in [1, 2, 3, 5, 7, 64] {
            let mut d = Decoder::new(text.as_bytes().to_vec()).unwrap();
            let mut steps = 0;
            while !d.step(slice).unwrap() {
                steps += 1;
            }
            assert!(steps > 1);
            assert_eq!(d.finish().unwrap(), whole, "slices of {slice} bytes");
        }
        // Latin-1 found late: read from the start as Latin-1.
        let mut old = b"caf".repeat(100);
        old.extend_from_slice(b"\xe9 cr\xe8me\r\n");
        let mut d = Decoder::new(old.clone()).unwrap();
        while !d.step(16).unwrap() {}
        assert!(d.finish().unwrap()[0].text.ends_with("café crème\n"));
        assert_eq!(read(Kind::Text, &old).unwrap()[0].text, format!("{}\u{e9} cr\u{e8}me\n", "caf".repeat(100)));
    }
}
