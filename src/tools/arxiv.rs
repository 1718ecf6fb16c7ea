//! arXiv tool, pure half: builds `export.arxiv.org/api/query` requests and
//! reads the Atom feed it answers with (via quick-xml) into the observation
//! text. It does no I/O; the fetch layer (or a CORS proxy in front of arXiv,
//! which sends no `Access-Control-Allow-Origin`) performs the request.
//!
//! Shapes handled (see tests/fixtures/README.md, arxiv/):
//! - current backend (2025-11 on): namespaces declared once on `<feed>`,
//!   errors as HTTP 400 with a one-entry feed;
//! - legacy backend: every element repeats its `xmlns`, dates carry offsets,
//!   errors as HTTP 200 with the same one-entry shape;
//! - the error entry: `<title>Error</title>` and an `<id>` under `/api/errors`;
//! - the bot wall: an HTML "Access Denied" page instead of Atom.
//!
//! Namespaces are resolved properly (NsReader), so a prefixed or repeated
//! `xmlns` makes no difference; unbound names are read as Atom to stay lenient.

use super::text::{
    self, bound, clean_query, collapse_whitespace, http_error, is_success, looks_like_html,
    percent_encode, shorten, Request, ServiceError, ServiceErrorKind,
};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

pub const TOOL: &str = "arxiv";
const SERVICE: &str = "arXiv";

pub const DEFAULT_MAX_RESULTS: u32 = 3;
pub const DEFAULT_MAX_CHARS: usize = 4000;
/// More than this many results would never fit the observation budget.
const MAX_RESULTS_CAP: u32 = 20;
/// Authors listed before "et al."; a 34-author proceedings entry would
/// otherwise eat a third of the budget.
/// Entries kept while parsing, whatever the server sends.
const MAX_ENTRIES_PARSED: usize = 100;

const ATOM_NS: &str = "http://www.w3.org/2005/Atom";
const ARXIV_NS: &str = "http://arxiv.org/schemas/atom";
const OPENSEARCH_NS: &str = "http://a9.com/-/spec/opensearch/1.1/";

/// arXiv's field prefixes. If the user (or model) already wrote one, the
/// query is passed through untouched instead of being prefixed again.
const FIELD_PREFIXES: [&str; 9] = [
    "ti:", "au:", "abs:", "co:", "jr:", "cat:", "rn:", "id:", "all:",
];

/// What we will ask arXiv for.
#[derive(Debug, Clone, PartialEq)]
pub enum QuerySpec {
    /// `search_query=` value, already in arXiv's syntax.
    Search(String),
    /// `id_list=` value: comma-separated arXiv identifiers.
    Ids(String),
}

/// Turn free text into arXiv query syntax.
/// - Bare identifiers (`1707.08567`, `arXiv:2202.12139v1`, `hep-ex/0307015`,
///   an abs URL) become an `id_list` lookup.
/// - Text that already uses a field prefix is passed through as written.
/// - Otherwise every word or "quoted phrase" gets `all:` and consecutive
///   terms are joined with AND (arXiv's default between bare terms is not
///   documented; AND gives the narrow results an agent wants). Explicit
///   AND/OR/ANDNOT are kept.
pub fn build_query(query: &str) -> Result<QuerySpec, ServiceError> {
    let q = clean_query(TOOL, query)?;
    let tokens: Vec<&str> = q.split([' ', ',']).filter(|t| !t.is_empty()).collect();
    let ids: Vec<String> = tokens.iter().filter_map(|t| normalize_id(t)).collect();
    if !ids.is_empty() && ids.len() == tokens.len() {
        return Ok(QuerySpec::Ids(ids.join(",")));
    }
    let lower = q.to_ascii_lowercase();
    let has_prefix = lower
        .split(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .any(|w| FIELD_PREFIXES.iter().any(|p| w.starts_with(p)));
    if has_prefix {
        return Ok(QuerySpec::Search(q));
    }
    let mut terms: Vec<String> = Vec::new();
    let mut last_was_op = true;
    for token in split_phrases(&q) {
        let is_op = matches!(token.as_str(), "AND" | "OR" | "ANDNOT");
        if is_op {
            if !last_was_op {
                terms.push(token);
                last_was_op = true;
            }
            continue;
        }
        if !last_was_op {
            terms.push("AND".to_string());
        }
        terms.push(format!("all:{}", token));
        last_was_op = false;
    }
    while terms
        .last()
        .is_some_and(|t| matches!(t.as_str(), "AND" | "OR" | "ANDNOT"))
    {
        terms.pop();
    }
    if terms.is_empty() {
        return Err(ServiceError::bad_input(
            TOOL,
            "The arXiv query has no search terms; give a few keywords.",
        ));
    }
    Ok(QuerySpec::Search(terms.join(" ")))
}

/// Split into words and "quoted phrases", dropping characters that are
/// syntax in arXiv's query language (parentheses, colons) so free text like
/// "Attention: is all you need" cannot be misread as a field.
fn split_phrases(q: &str) -> Vec<String> {
    let cleaned: String = q
        .chars()
        .map(|c| {
            if matches!(c, '(' | ')' | ':' | '[' | ']' | '{' | '}') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut out = Vec::new();
    for (i, part) in cleaned.split('"').enumerate() {
        if i % 2 == 1 {
            let phrase = collapse_whitespace(part);
            if !phrase.is_empty() {
                out.push(if phrase.contains(' ') {
                    format!("\"{}\"", phrase)
                } else {
                    phrase
                });
            }
        } else {
            out.extend(part.split_whitespace().map(str::to_string));
        }
    }
    out
}

/// Recognise an arXiv identifier (new `YYMM.NNNNN` or old `archive/NNNNNNN`
/// style, optional version), with or without `arXiv:` or an abs/pdf URL.
fn normalize_id(token: &str) -> Option<String> {
    let mut t = token.trim().trim_end_matches(".pdf");
    for prefix in [
        "https://arxiv.org/abs/",
        "http://arxiv.org/abs/",
        "https://arxiv.org/pdf/",
        "http://arxiv.org/pdf/",
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest;
        }
    }
    if t.len() > 6 && t.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("arxiv:")) {
        t = t.get(6..)?;
    }
    let (core, version) = match t.rfind('v') {
        Some(i)
            if i > 0
                && t.get(i + 1..)
                    .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())) =>
        {
            (t.get(..i)?, t.get(i..)?)
        }
        _ => (t, ""),
    };
    let new_style = {
        let mut parts = core.splitn(2, '.');
        let a = parts.next().unwrap_or("");
        let b = parts.next().unwrap_or("");
        a.len() == 4
            && (4..=5).contains(&b.len())
            && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
    };
    let old_style = match core.split_once('/') {
        Some((archive, num)) => {
            !archive.is_empty()
                && archive
                    .bytes()
                    .all(|c| c.is_ascii_alphabetic() || c == b'-' || c == b'.')
                && archive
                    .bytes()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase())
                && num.len() == 7
                && num.bytes().all(|c| c.is_ascii_digit())
        }
        None => false,
    };
    (new_style || old_style).then(|| format!("{}{}", core, version))
}

/// Query request: `{base}/api/query?search_query=..&start=0&max_results=N`
/// (or `id_list=` for identifiers). `max_results` is clamped to 1..=20.
/// No custom headers: arXiv needs none, and each one would cost a preflight.
pub fn query_url(base: &str, query: &str, max_results: u32) -> Result<Request, ServiceError> {
    let b = text::check_base(TOOL, "arXiv", base)?;
    let n = max_results.clamp(1, MAX_RESULTS_CAP);
    let param = match build_query(query)? {
        QuerySpec::Search(s) => format!("search_query={}", percent_encode(&s, ":")),
        QuerySpec::Ids(ids) => format!("id_list={}", percent_encode(&ids, ",")),
    };
    Ok(Request {
        url: format!("{}/api/query?{}&start=0&max_results={}", b, param, n),
        headers: Vec::new(),
    })
}

/// One paper from the feed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// The `<id>` as sent, e.g. `http://arxiv.org/abs/2202.12139v1`.
    pub id: String,
    pub title: String,
    pub summary: String,
    pub published: String,
    pub updated: String,
    pub authors: Vec<String>,
    /// `rel="alternate"` link, the abs page.
    pub abs_link: Option<String>,
    pub pdf_link: Option<String>,
    pub doi: Option<String>,
    pub primary_category: Option<String>,
    pub journal_ref: Option<String>,
}

impl Entry {
    /// `https://arxiv.org/abs/<id>`: built from the `<id>` so http/https and
    /// host variations across backends all come out the same.
    pub fn abs_url(&self) -> String {
        if let Some(pos) = self.id.find("/abs/") {
            if let Some(rest) = self.id.get(pos + 5..) {
                if !rest.is_empty() {
                    return format!("https://arxiv.org/abs/{}", rest);
                }
            }
        }
        self.abs_link.clone().unwrap_or_else(|| self.id.clone())
    }

    /// `YYYY-MM-DD` from `<published>` (works for `Z` and `-04:00` forms),
    /// falling back to `<updated>`.
    pub fn published_date(&self) -> String {
        let src = if self.published.is_empty() {
            &self.updated
        } else {
            &self.published
        };
        match src.get(..10) {
            Some(d)
                if d.bytes().enumerate().all(|(i, b)| {
                    if i == 4 || i == 7 {
                        b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                }) =>
            {
                d.to_string()
            }
            _ => src.clone(),
        }
    }

    fn is_error_entry(&self) -> bool {
        self.title == "Error" && self.id.contains("/api/errors")
    }
}

/// A parsed feed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Feed {
    /// `opensearch:totalResults`.
    pub total_results: Option<u64>,
    pub entries: Vec<Entry>,
}

/// Which text field of the current entry the reader is inside.
#[derive(Clone, Copy, PartialEq)]
enum Field {
    Id,
    Title,
    Summary,
    Published,
    Updated,
    AuthorName,
    Doi,
    JournalRef,
    TotalResults,
}

#[derive(Clone, Copy, PartialEq)]
enum Namespace {
    Atom,
    Arxiv,
    OpenSearch,
    Other,
}

fn classify(ns: &ResolveResult) -> Namespace {
    match ns {
        ResolveResult::Bound(n) => match n.0 {
            ATOM_NS => Namespace::Atom,
            ARXIV_NS => Namespace::Arxiv,
            OPENSEARCH_NS => Namespace::OpenSearch,
            _ => Namespace::Other,
        },
        // No namespace declared at all: read as Atom rather than give up.
        ResolveResult::Unbound => Namespace::Atom,
        ResolveResult::Unknown(_) => Namespace::Other,
    }
}

fn bad_xml(detail: &str) -> ServiceError {
    ServiceError::bad_response(
        TOOL,
        format!(
            "arXiv returned a feed that could not be read ({}); try again in a few seconds.",
            detail
        ),
    )
}

fn attr(e: &BytesStart, name: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
        .map(|v| v.into_owned())
}

/// Parse an Atom feed from arXiv. Error entries are returned like any other
/// entry; `interpret` decides what they mean.
pub fn parse_feed(body: &str) -> Result<Feed, ServiceError> {
    let mut reader = NsReader::from_str(body);
    let mut feed = Feed::default();
    // Element path as (namespace class, local name); bounded so a hostile
    // document cannot grow it without limit.
    let mut path: Vec<(Namespace, String)> = Vec::new();
    let mut entry: Option<Entry> = None;
    let mut field: Option<(Field, usize)> = None;
    let mut buf = String::new();
    let mut saw_feed_start = false;
    let mut saw_feed_end = false;

    loop {
        let (ns, event) = match reader.read_resolved_event() {
            Ok((ns, ev)) => (classify(&ns), ev),
            Err(e) => return Err(bad_xml(&shorten(&e.to_string(), 80))),
        };
        match event {
            Event::Start(_) if path.len() >= 64 => {
                return Err(bad_xml("elements nested too deeply"))
            }
            Event::Start(ref e) | Event::Empty(ref e) => {
                let is_empty = matches!(event, Event::Empty(_));
                let local = e.local_name().as_ref().to_string();
                let depth = path.len();
                if depth == 0 {
                    if ns == Namespace::Atom && local == "feed" {
                        saw_feed_start = true;
                    } else {
                        return Err(bad_xml("the document is not an Atom feed"));
                    }
                }
                let parent = path.last().map(|(n, l)| (*n, l.as_str()));
                if depth == 1 && ns == Namespace::Atom && local == "entry" && entry.is_none() {
                    entry = Some(Entry::default());
                }
                if let Some(en) = entry.as_mut() {
                    // Attributes-only elements (links, categories).
                    match (ns, local.as_str()) {
                        (Namespace::Atom, "link") => {
                            let href = attr(e, "href");
                            let rel = attr(e, "rel");
                            let title = attr(e, "title");
                            if title.as_deref() == Some("pdf") {
                                en.pdf_link = href;
                            } else if rel.as_deref() == Some("alternate") {
                                en.abs_link = href;
                            }
                        }
                        (Namespace::Arxiv, "primary_category") => en.primary_category = attr(e, "term"),
                        _ => {}
                    }
                    // Text-bearing elements directly under <entry> (depth 2)
                    // or <author><name> (depth 3).
                    let wanted = match (ns, local.as_str(), depth) {
                        (Namespace::Atom, "id", 2) => Some(Field::Id),
                        (Namespace::Atom, "title", 2) => Some(Field::Title),
                        (Namespace::Atom, "summary", 2) => Some(Field::Summary),
                        (Namespace::Atom, "published", 2) => Some(Field::Published),
                        (Namespace::Atom, "updated", 2) => Some(Field::Updated),
                        (Namespace::Arxiv, "doi", 2) => Some(Field::Doi),
                        (Namespace::Arxiv, "journal_ref", 2) => Some(Field::JournalRef),
                        (Namespace::Atom, "name", 3) if parent == Some((Namespace::Atom, "author")) => {
                            Some(Field::AuthorName)
                        }
                        _ => None,
                    };
                    if let (Some(f), false) = (wanted, is_empty) {
                        field = Some((f, depth));
                        buf.clear();
                    }
                } else if depth == 1 && ns == Namespace::OpenSearch && local == "totalResults" && !is_empty
                {
                    field = Some((Field::TotalResults, depth));
                    buf.clear();
                }
                if !is_empty {
                    path.push((ns, local));
                }
            }
            Event::Text(t) => {
                if field.is_some() {
                    buf.push_str(&t.xml10_content());
                }
            }
            Event::CData(t) => {
                if field.is_some() {
                    buf.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if field.is_some() {
                    let name: &str = &r;
                    match r.resolve_char_ref() {
                        Ok(Some(c)) => buf.push(c),
                        Ok(None) => match quick_xml::escape::resolve_predefined_entity(name) {
                            Some(s) => buf.push_str(s),
                            None => {
                                buf.push('&');
                                buf.push_str(name);
                                buf.push(';');
                            }
                        },
                        Err(_) => return Err(bad_xml("bad character reference")),
                    }
                }
            }
            Event::End(_) => {
                let closing = path.pop();
                let depth = path.len();
                if let Some((f, d)) = field {
                    if d == depth {
                        let value = collapse_whitespace(&buf);
                        buf.clear();
                        field = None;
                        if f == Field::TotalResults {
                            feed.total_results = value.parse().ok();
                        } else if let Some(en) = entry.as_mut() {
                            match f {
                                Field::Id => en.id = value,
                                Field::Title => en.title = value,
                                Field::Summary => en.summary = value,
                                Field::Published => en.published = value,
                                Field::Updated => en.updated = value,
                                Field::AuthorName => {
                                    if !value.is_empty() {
                                        en.authors.push(value)
                                    }
                                }
                                Field::Doi => en.doi = Some(value).filter(|v| !v.is_empty()),
                                Field::JournalRef => {
                                    en.journal_ref = Some(value).filter(|v| !v.is_empty())
                                }
                                Field::TotalResults => {}
                            }
                        }
                    }
                }
                if depth == 1
                    && closing
                        .as_ref()
                        .is_some_and(|(n, l)| *n == Namespace::Atom && l == "entry")
                {
                    if let Some(en) = entry.take() {
                        if feed.entries.len() < MAX_ENTRIES_PARSED {
                            feed.entries.push(en);
                        }
                    }
                }
                if depth == 0 {
                    saw_feed_end = true;
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if !saw_feed_start {
        return Err(bad_xml("no <feed> element"));
    }
    if !saw_feed_end {
        return Err(bad_xml("the feed was cut off before </feed>"));
    }
    Ok(feed)
}

/// The bot wall arXiv shows to clients it considers too fast.
fn is_access_denied(body: &str) -> bool {
    let head: String = body
        .chars()
        .take(4000)
        .collect::<String>()
        .to_ascii_lowercase();
    !head.trim_start().starts_with("<?xml")
        && !head.trim_start().starts_with("<feed")
        && (head.contains("access denied") || (looks_like_html(body) && head.contains("denied")))
}

fn access_denied_error(retry_after: Option<&str>) -> ServiceError {
    let secs = text::parse_retry_after(retry_after).or(Some(60));
    ServiceError::new(
        TOOL,
        ServiceErrorKind::RateLimited { retry_after_s: secs },
        "arXiv refused the request with an 'Access Denied' page, which it shows to clients that query too fast; try again in a minute and keep at least 3 seconds between arXiv requests.",
    )
}

fn error_entry_to_error(en: &Entry) -> ServiceError {
    let code = en
        .id
        .rsplit_once('#')
        .map(|(_, c)| c.to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "error".to_string());
    let detail = if en.summary.is_empty() {
        "no detail given".to_string()
    } else {
        shorten(&en.summary, 200)
    };
    ServiceError::new(
        TOOL,
        ServiceErrorKind::Api { code },
        format!(
            "arXiv rejected the query: {}. Check the arXiv identifier or search with plain keywords instead.",
            detail.trim_end_matches('.')
        ),
    )
}

/// The `Ok` observation when arXiv found nothing.
pub fn no_results_observation(query: &str) -> String {
    format!(
        "arXiv has no papers matching '{}'. Try fewer or more general keywords, or a different spelling.",
        shorten(&collapse_whitespace(query), 100)
    )
}

/// Format entries as the observation, bounded by `max_chars`; each entry's
/// summary gets an equal share so every paper stays visible.
pub fn format_entries(entries: &[Entry], max_chars: usize) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let share = (max_chars / entries.len()).saturating_sub(250).max(150);
    let blocks: Vec<String> = entries
        .iter()
        .map(|en| text::paper_block(&en.published_date(), &en.title, &format_authors(&en.authors), &en.summary, &en.abs_url(), share))
        .collect();
    bound(&text::join_blocks(&blocks), max_chars)
}

pub use text::format_authors;

/// Interpret an arXiv API response. `query` is only used for the
/// no-results sentence.
pub fn interpret(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    query: &str,
    max_chars: usize,
) -> Result<String, ServiceError> {
    if status == 429 {
        let mut e = text::rate_limited(TOOL, SERVICE, retry_after);
        e.message
            .push_str(" arXiv asks for at least 3 seconds between requests.");
        return Err(e);
    }
    // The export server has historically throttled with 503 + Retry-After.
    if status == 503 && text::parse_retry_after(retry_after).is_some() {
        let mut e = text::rate_limited(TOOL, SERVICE, retry_after);
        e.message
            .push_str(" arXiv asks for at least 3 seconds between requests.");
        return Err(e);
    }
    if is_access_denied(body) {
        return Err(access_denied_error(retry_after));
    }
    // The error feed comes with HTTP 400 (new backend) or 200 (legacy), so
    // read the body before judging the status.
    let parsed = if body.trim().is_empty() {
        None
    } else {
        Some(parse_feed(body))
    };
    if let Some(Ok(feed)) = &parsed {
        if let Some(err) = feed.entries.iter().find(|e| e.is_error_entry()) {
            return Err(error_entry_to_error(err));
        }
    }
    if !is_success(status) {
        return Err(http_error(TOOL, SERVICE, status));
    }
    match parsed {
        None => Err(ServiceError::bad_response(
            TOOL,
            "arXiv returned an empty response; try again in a few seconds.",
        )),
        Some(Err(_)) if looks_like_html(body) => Err(ServiceError::bad_response(
            TOOL,
            format!(
                "arXiv returned an HTML page instead of an Atom feed (\"{}\"); try again later.",
                text::excerpt(body)
            ),
        )),
        Some(Err(e)) => Err(e),
        Some(Ok(feed)) if feed.entries.is_empty() => Ok(no_results_observation(query)),
        Some(Ok(feed)) => Ok(format_entries(&feed.entries, max_chars)),
    }
}

#[cfg(test)]
mod tests;
