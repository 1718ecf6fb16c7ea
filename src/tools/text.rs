//! Shared vocabulary of the tool modules: the `ServiceError` value every tool
//! returns instead of panicking, the `Request` a builder hands to the fetch
//! layer, and small text helpers (percent-encoding, HTML-tag stripping,
//! whitespace collapsing, bounded observations, HTTP status triage).
//!
//! Everything here is pure: no I/O, no clocks, no randomness. The tools in
//! `tools/adapters.rs` perform the request through the `net::Fetch` seam and pass
//! status, `Retry-After` and body back to the tool's interpreter.
//!
//! Panic policy: a panic inside WASM takes the whole page down, so nothing in
//! this file indexes slices with untrusted positions or unwraps. String work is
//! done on `char`s so a multi-byte boundary can never be split.

use std::fmt;

/// Query strings are encoded by the HTTP layer's percent-encoding.
pub use crate::net::{encode_component, percent_encode};

/// Why a tool call failed, in a form the caller can branch on (retry later,
/// show a settings hint, tell the model to rephrase, ...).
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceErrorKind {
    /// The service asked us to slow down (HTTP 429, DuckDuckGo's empty 202,
    /// arXiv's "Access Denied" page, OpenAlex's 503 + Retry-After).
    RateLimited { retry_after_s: Option<u64> },
    /// Any other non-success HTTP status without a more specific reading.
    Http { status: u16 },
    /// The service answered well-formed but reported an error of its own
    /// (MediaWiki `{"error":{"code"}}` with HTTP 200, arXiv error entry, ...).
    Api { code: String },
    /// The body could not be understood (truncated JSON/XML, HTML where JSON
    /// was expected, empty body).
    BadResponse,
    /// The caller's input cannot be used (empty query, malformed expression,
    /// bad language code).
    BadInput,
    /// The calculator's input was well-formed but has no finite real answer.
    Math,
}

/// A tool failure as a value. `message` is a complete sentence written for
/// the model (and a person reading the trace): it says what happened and what
/// to do next, so the caller can paste it verbatim into the observation.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceError {
    pub tool: String,
    pub kind: ServiceErrorKind,
    pub message: String,
}

impl ServiceError {
    pub fn new(tool: &str, kind: ServiceErrorKind, message: impl Into<String>) -> Self {
        ServiceError {
            tool: tool.to_string(),
            kind,
            message: message.into(),
        }
    }

    pub fn bad_input(tool: &str, message: impl Into<String>) -> Self {
        Self::new(tool, ServiceErrorKind::BadInput, message)
    }

    pub fn bad_response(tool: &str, message: impl Into<String>) -> Self {
        Self::new(tool, ServiceErrorKind::BadResponse, message)
    }
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} error: {}", self.tool, self.message)
    }
}

impl std::error::Error for ServiceError {}

/// What a request builder hands to the fetch layer: always a GET.
/// Headers are kept to CORS-safelisted ones unless a service documents that
/// it answers the preflight a custom header triggers (see wikipedia.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub url: String,
    pub headers: Vec<(String, String)>,
}

/// Longest query we send to a search service. Longer text is almost always a
/// model pasting a paragraph by mistake; the services reject or mangle it.
pub const MAX_QUERY_CHARS: usize = 300;

/// Trim and sanity-check a free-text query before building a URL with it.
/// Control characters become spaces so a stray newline cannot end up in a
/// log line or a header.
pub fn clean_query(tool: &str, query: &str) -> Result<String, ServiceError> {
    let cleaned: String = query
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cleaned = collapse_whitespace(&cleaned);
    if cleaned.is_empty() {
        return Err(ServiceError::bad_input(
            tool,
            "The search query is empty; give a few keywords to search for.",
        ));
    }
    if cleaned.chars().count() > MAX_QUERY_CHARS {
        return Err(ServiceError::bad_input(
            tool,
            format!(
                "The search query is longer than {} characters; use a few keywords instead of a sentence or paragraph.",
                MAX_QUERY_CHARS
            ),
        ));
    }
    Ok(cleaned)
}

/// Remove a trailing slash so `base + "/path"` never yields `//path`.
pub fn trim_base(base: &str) -> &str {
    base.trim().trim_end_matches('/')
}

/// Collapse every run of whitespace (including newlines) to one space and trim.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// Turn a small HTML fragment (search snippets, DuckDuckGo `Result` fields)
/// into plain text: tags are dropped, the common entities decoded, whitespace
/// collapsed. It is not an HTML parser; it only has to be safe on any input
/// and good enough for one-line snippets.
pub fn strip_html_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut tag: Option<String> = None;
    for c in s.chars() {
        match tag.as_mut() {
            None if c == '<' => tag = Some(String::new()),
            None => out.push(c),
            Some(name) if c == '>' => {
                // Inline tags (<span class="searchmatch">, <b>, <a>) sit inside
                // words and must vanish; block-level tags separate words.
                if is_block_tag(name) {
                    out.push(' ');
                }
                tag = None;
            }
            Some(name) => {
                if name.len() < 16 {
                    name.push(c);
                }
            }
        }
    }
    collapse_whitespace(&decode_entities(&out))
}

fn is_block_tag(raw: &str) -> bool {
    let name: String = raw
        .trim_start_matches('/')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        name.as_str(),
        "br" | "p"
            | "div"
            | "li"
            | "ul"
            | "ol"
            | "tr"
            | "td"
            | "th"
            | "table"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "hr"
            | "dd"
            | "dt"
            | "blockquote"
            | "section"
    )
}

/// Decode `&amp;`-style named entities (the handful that appear in API
/// snippets) and numeric `&#NN;` / `&#xHH;` references. Unknown entities are
/// left as written.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(rest.get(..pos).unwrap_or(""));
        let after = rest.get(pos..).unwrap_or("");
        // Entities are short; look for ';' within the next 12 bytes only.
        let semi = after
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        let decoded = semi.and_then(|end| {
            let name = after.get(1..end)?;
            let ch = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" | "#39" => Some('\''),
                "nbsp" => Some(' '),
                "ndash" => Some('–'),
                "mdash" => Some('—'),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = if let Some(hex) =
                        num.strip_prefix('x').or_else(|| num.strip_prefix('X'))
                    {
                        u32::from_str_radix(hex, 16).ok()?
                    } else {
                        num.parse::<u32>().ok()?
                    };
                    char::from_u32(code).filter(|&c| c != '\0')
                }
            }?;
            Some((ch, end + 1))
        });
        match decoded {
            Some((ch, consumed)) => {
                out.push(ch);
                rest = after.get(consumed..).unwrap_or("");
            }
            None => {
                out.push('&');
                rest = after.get(1..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out
}

/// Marker appended when an observation is cut, so the model knows more text
/// existed and can ask a narrower question instead of assuming it saw all.
pub const TRUNCATION_MARKER: &str = "\n[... truncated]";

/// Cut `s` to at most `max_chars` characters (counting the marker), preferring
/// to break at a whitespace near the limit. If `max_chars` is smaller than the
/// marker itself, only the marker is returned: the caller asked for almost
/// nothing, and showing that text was dropped matters more than one letter.
pub fn bound(s: &str, max_chars: usize) -> String {
    let total = s.chars().count();
    if total <= max_chars {
        return s.to_string();
    }
    let marker_len = TRUNCATION_MARKER.chars().count();
    let keep = max_chars.saturating_sub(marker_len);
    let mut cut: String = s.chars().take(keep).collect();
    // Back off to a word boundary if one is within the last 40 characters.
    if let Some((idx, _)) = cut
        .char_indices()
        .rev()
        .take(40)
        .find(|&(_, c)| c.is_whitespace())
    {
        cut.truncate(idx);
    }
    let mut out = cut.trim_end().to_string();
    out.push_str(TRUNCATION_MARKER);
    out
}

/// Cut a single field (one summary among several) to `max_chars` with a
/// trailing ellipsis, so one long abstract cannot crowd out the others.
pub fn shorten(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let keep = max_chars.saturating_sub(1);
    let mut cut: String = s.chars().take(keep).collect();
    if let Some((idx, _)) = cut
        .char_indices()
        .rev()
        .take(30)
        .find(|&(_, c)| c.is_whitespace())
    {
        cut.truncate(idx);
    }
    let mut out = cut.trim_end().to_string();
    out.push('…');
    out
}

/// Read a `Retry-After` header value. Only the delta-seconds form is
/// understood; the HTTP-date form would need a clock, which this pure layer
/// does not have, so it yields `None` (the caller then uses its own backoff).
pub fn parse_retry_after(value: Option<&str>) -> Option<u64> {
    let v = value?.trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Cap absurd values at a day; u64 parse of >20 digits would fail anyway.
    v.parse::<u64>().ok().map(|s| s.min(86_400))
}

/// Human wording for a wait time, used inside error sentences.
pub fn wait_phrase(retry_after_s: Option<u64>, fallback: &str) -> String {
    match retry_after_s {
        Some(0) => "retry now".to_string(),
        Some(1) => "wait 1 second before retrying".to_string(),
        Some(s) if s < 120 => format!("wait {} seconds before retrying", s),
        Some(s) => format!("wait about {} minutes before retrying", s.div_ceil(60)),
        None => fallback.to_string(),
    }
}

/// A service base URL without its trailing slash, refused unless it is http(s): the tools
/// put it in front of every request path.
pub fn check_base(tool: &str, service: &str, base: &str) -> Result<String, ServiceError> {
    let b = trim_base(base);
    if !(b.starts_with("https://") || b.starts_with("http://")) {
        return Err(ServiceError::bad_input(
            tool,
            format!("The {} base URL '{}' must start with http:// or https://.", service, shorten(b, 60)),
        ));
    }
    Ok(b.to_string())
}

/// Authors shown before "et al.".
const MAX_AUTHORS_SHOWN: usize = 8;

/// "a, b, c" or "a, b, ... h et al. (34 authors)".
pub fn format_authors(authors: &[String]) -> String {
    match authors.len() {
        0 => "(unknown)".to_string(),
        n if n <= MAX_AUTHORS_SHOWN => authors.join(", "),
        n => format!("{} et al. ({} authors)", authors[..MAX_AUTHORS_SHOWN].join(", "), n),
    }
}

/// One paper as an observation block, shaped the same whether arXiv or OpenAlex answered,
/// so the model reads one format. Empty fields say so instead of leaving a blank.
pub fn paper_block(published: &str, title: &str, authors: &str, summary: &str, url: &str, summary_chars: usize) -> String {
    let or = |value: &str, missing: &str| if value.is_empty() { missing.to_string() } else { value.to_string() };
    format!(
        "Published: {}\nTitle: {}\nAuthors: {}\nSummary: {}\nURL: {}",
        or(published, "(unknown)"),
        or(title, "(untitled)"),
        authors,
        if summary.is_empty() { "(no abstract)".to_string() } else { shorten(summary, summary_chars) },
        url
    )
}

/// Standard error for HTTP 429 (and other "slow down" signals).
pub fn rate_limited(tool: &str, service: &str, retry_after: Option<&str>) -> ServiceError {
    let secs = parse_retry_after(retry_after);
    ServiceError::new(
        tool,
        ServiceErrorKind::RateLimited {
            retry_after_s: secs,
        },
        format!(
            "{} is rate-limiting requests; {}.",
            service,
            wait_phrase(secs, "wait a minute before trying again")
        ),
    )
}

/// Standard error for a non-success status whose body told us nothing more.
pub fn http_error(tool: &str, service: &str, status: u16) -> ServiceError {
    let hint = match status {
        400 => "the request was malformed; rephrase the query with plain keywords",
        401 | 403 => "access was refused; the service may require a key or block this origin",
        404 => "the endpoint was not found; check the configured base URL",
        408 | 504 => "the request timed out; try again shortly",
        500..=599 => "the service is having trouble; try again later or use another tool",
        _ => "try again later or use another tool",
    };
    ServiceError::new(
        tool,
        ServiceErrorKind::Http { status },
        format!("{} answered with HTTP {}: {}.", service, status, hint),
    )
}

/// True when a body looks like an HTML page (error pages, captive portals,
/// bot walls) rather than the JSON/XML we asked for.
pub fn looks_like_html(body: &str) -> bool {
    let head: String = body
        .trim_start()
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html")
        || head.starts_with("<html")
        || head.contains("<head")
        || head.contains("<body")
}

/// Short, single-line excerpt of a body for error messages: enough to
/// recognise an error page in a trace, never a megabyte of HTML.
pub fn excerpt(body: &str) -> String {
    shorten(&collapse_whitespace(&strip_html_tags(body)), 120)
}

/// Parse a JSON body, turning every way it can fail (empty, HTML error page,
/// truncated) into a `BadResponse` sentence that names the service.
pub fn parse_json(tool: &str, service: &str, body: &str) -> Result<serde_json::Value, ServiceError> {
    if body.trim().is_empty() {
        return Err(ServiceError::bad_response(
            tool,
            format!(
                "{} returned an empty response; try again in a moment.",
                service
            ),
        ));
    }
    if looks_like_html(body) {
        return Err(ServiceError::bad_response(
            tool,
            format!(
                "{} returned an HTML page instead of JSON (\"{}\"); the service or a proxy may be blocking the request, try again later.",
                service,
                excerpt(body)
            ),
        ));
    }
    serde_json::from_str(body).map_err(|_| {
        ServiceError::bad_response(
            tool,
            format!(
                "{} returned a response that is not valid JSON (it may have been cut off); try again.",
                service
            ),
        )
    })
}

/// True for 2xx statuses.
pub fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// Join blocks with a blank line between them.
pub fn join_blocks(blocks: &[String]) -> String {
    blocks.join("\n\n")
}

#[cfg(test)]
mod tests;
