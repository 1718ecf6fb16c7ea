//! Wikipedia tool, pure half: builds MediaWiki Action API requests
//! (`list=search`, then `prop=extracts` for the hits) and turns the JSON
//! answers into the observation text the agent reads. It does no I/O: the
//! browser fetch layer performs each request and hands status, `Retry-After`
//! and body back here.
//!
//! Flow the caller follows:
//! 1. `search_url(base, query, limit)` → fetch → `parse_search(..)`.
//! 2. No hits → `no_results_observation(query, suggestion)` (an Ok observation,
//!    not an error: "nothing found" is information the model can act on).
//! 3. Otherwise `extracts_url(base, &titles)` → fetch →
//!    `interpret_extracts(.., &titles, lang, max_chars)`.
//!
//! Format facts relied on (see tests/fixtures/README.md, wikipedia/):
//! formatversion 1 JSON; `query.pages` is an object keyed by pageid with no
//! useful order, missing pages are keyed `"-1"`, `"-2"`.. and carry
//! `"missing":""`; titles we send may come back rewritten through
//! `query.normalized` and `query.redirects`; errors arrive with HTTP 200 as
//! `{"error":{"code","info"}}`; rate limits are HTTP 429 + `Retry-After`.

use super::text::{
    self, bound, clean_query, collapse_whitespace, encode_component, http_error, is_success,
    parse_json, percent_encode, rate_limited, shorten, strip_html_tags, Request,
    ServiceError, ServiceErrorKind,
};
use serde_json::Value;

pub const TOOL: &str = "wikipedia";
const SERVICE: &str = "Wikipedia";

/// Default bound on the observation, in characters.
pub const DEFAULT_MAX_CHARS: usize = 4000;
/// Default number of search hits whose summaries we fetch.
pub const DEFAULT_LIMIT: u32 = 3;
/// MediaWiki returns at most 20 intro extracts per request (`exlimit`).
const MAX_TITLES: usize = 20;

/// Browsers forbid setting `User-Agent`, so Wikimedia's access policy asks
/// browser clients to identify themselves with `Api-User-Agent` instead.
/// It is a custom header, so the browser sends a CORS preflight; MediaWiki
/// answers preflights for `origin=*` requests and lists this header as allowed.
pub const API_USER_AGENT: &str = "Thoughtline/0.1 (browser-based ReAct agent)";

/// Headers to send with every Wikipedia request.
pub fn headers() -> Vec<(String, String)> {
    vec![("Api-User-Agent".to_string(), API_USER_AGENT.to_string())]
}

/// Base URL of a language edition, e.g. `"en"` → `https://en.wikipedia.org`.
/// Only ASCII letters and inner hyphens are accepted (`zh-min-nan`,
/// `be-tarask`, `simple`), which keeps anything the model invents from
/// turning into a different host.
pub fn lang_base(lang: &str) -> Result<String, ServiceError> {
    let code = lang.trim().to_ascii_lowercase();
    let valid = (2..=20).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        && !code.starts_with('-')
        && !code.ends_with('-')
        && !code.contains("--");
    if !valid {
        return Err(ServiceError::bad_input(
            TOOL,
            format!(
                "'{}' is not a Wikipedia language code; use a code such as en, de, fr or zh.",
                shorten(lang, 30)
            ),
        ));
    }
    Ok(format!("https://{}.wikipedia.org", code))
}

fn api_endpoint(base: &str) -> Result<String, ServiceError> {
    let b = text::check_base(TOOL, "Wikipedia", base)?;
    Ok(format!("{}/w/api.php", b))
}

/// Full-text search request. `limit` is clamped to 1..=20.
/// `origin=*` is what makes MediaWiki add `Access-Control-Allow-Origin: *`;
/// without it the browser blocks the response.
pub fn search_url(base: &str, query: &str, limit: u32) -> Result<Request, ServiceError> {
    let q = clean_query(TOOL, query)?;
    let limit = limit.clamp(1, MAX_TITLES as u32);
    let url = format!(
        "{}?action=query&list=search&format=json&origin=*&srlimit={}&srsearch={}",
        api_endpoint(base)?,
        limit,
        encode_component(&q)
    );
    Ok(Request {
        url,
        headers: headers(),
    })
}

/// Intro-extract request for up to 20 titles (extra titles are dropped).
/// `pageprops` with `ppprop=disambiguation` is requested too, because it marks
/// disambiguation pages reliably; the text heuristic is only the fallback.
pub fn extracts_url(base: &str, titles: &[String]) -> Result<Request, ServiceError> {
    // '|' separates titles in MediaWiki multi-value parameters and can never
    // be part of a title, so such entries are skipped rather than sent broken.
    let usable: Vec<String> = titles
        .iter()
        .map(|t| collapse_whitespace(t))
        .filter(|t| !t.is_empty() && !t.contains('|'))
        .take(MAX_TITLES)
        .collect();
    if usable.is_empty() {
        return Err(ServiceError::bad_input(
            TOOL,
            "No page titles were given to look up on Wikipedia.",
        ));
    }
    let joined: Vec<String> = usable.iter().map(|t| encode_component(t)).collect();
    let url = format!(
        "{}?action=query&prop=extracts%7Cpageprops&ppprop=disambiguation&exintro=1&explaintext=1&redirects=1&format=json&origin=*&titles={}",
        api_endpoint(base)?,
        joined.join("%7C")
    );
    Ok(Request {
        url,
        headers: headers(),
    })
}

/// Canonical article URL for the observation: spaces become underscores and
/// the rest is percent-encoded, except the punctuation Wikipedia itself
/// leaves readable in article URLs (parentheses, comma, colon, apostrophe...).
pub fn page_url(lang: &str, title: &str) -> String {
    let lang = lang_base(lang)
        .map(|_| lang.trim().to_ascii_lowercase())
        .unwrap_or_else(|_| "en".to_string());
    let underscored = collapse_whitespace(title).replace(' ', "_");
    format!(
        "https://{}.wikipedia.org/wiki/{}",
        lang,
        percent_encode(&underscored, "()!*,:;@$'/")
    )
}

/// One hit from `list=search`.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub title: String,
    /// Plain-text snippet (the API sends HTML with `searchmatch` spans).
    pub snippet: String,
}

/// Parsed `list=search` answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    /// `searchinfo.totalhits`, absent when `srinfo` excluded it.
    pub total_hits: Option<u64>,
    /// `searchinfo.suggestion` ("did you mean"), when MediaWiki offers one.
    pub suggestion: Option<String>,
}

impl SearchResults {
    pub fn titles(&self) -> Vec<String> {
        self.hits.iter().map(|h| h.title.clone()).collect()
    }
}

/// Check status and the MediaWiki error envelope shared by both calls.
fn check_response(status: u16, retry_after: Option<&str>, body: &str) -> Result<Value, ServiceError> {
    if status == 429 {
        return Err(rate_limited(TOOL, SERVICE, retry_after));
    }
    // MediaWiki reports errors with HTTP 200, but a proxy may also return a
    // JSON error with a real status; look at the body first when it is JSON.
    let parsed = parse_json(TOOL, SERVICE, body);
    if let Ok(v) = &parsed {
        if let Some(err) = v.get("error") {
            return Err(api_error(err, retry_after));
        }
    }
    if !is_success(status) {
        return Err(http_error(TOOL, SERVICE, status));
    }
    parsed
}

fn api_error(err: &Value, retry_after: Option<&str>) -> ServiceError {
    let code = err
        .get("code")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    // formatversion 1 puts the text in "info"; some errors carry "*" instead.
    let info = err
        .get("info")
        .or_else(|| err.get("*"))
        .and_then(Value::as_str)
        .map(|s| shorten(&collapse_whitespace(s), 300))
        .unwrap_or_default();
    if code == "ratelimited" || code == "maxlag" {
        let secs = text::parse_retry_after(retry_after);
        return ServiceError::new(
            TOOL,
            ServiceErrorKind::RateLimited {
                retry_after_s: secs,
            },
            format!(
                "Wikipedia asked us to slow down ({}); {}.",
                code,
                text::wait_phrase(secs, "wait a minute before trying again")
            ),
        );
    }
    let info_part = if info.is_empty() {
        String::new()
    } else {
        format!(": {}", info.trim_end_matches('.'))
    };
    ServiceError::new(
        TOOL,
        ServiceErrorKind::Api { code: code.clone() },
        format!(
            "The Wikipedia API rejected the request ({}){}. Rephrase the query and try again.",
            code, info_part
        ),
    )
}

fn bad_shape() -> ServiceError {
    ServiceError::bad_response(
        TOOL,
        "Wikipedia's answer did not have the expected shape (no 'query' section); try again or use another tool.",
    )
}

/// Read a `list=search` response. An empty hit list is `Ok` with no hits.
pub fn parse_search(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
) -> Result<SearchResults, ServiceError> {
    let v = check_response(status, retry_after, body)?;
    let query = v.get("query").ok_or_else(bad_shape)?;
    let info = query.get("searchinfo");
    let total_hits = info
        .and_then(|i| i.get("totalhits"))
        .and_then(Value::as_u64);
    let suggestion = info
        .and_then(|i| i.get("suggestion"))
        .and_then(Value::as_str)
        .map(collapse_whitespace)
        .filter(|s| !s.is_empty());
    let hits = match query.get("search") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| {
                let title = collapse_whitespace(item.get("title")?.as_str()?);
                if title.is_empty() {
                    return None;
                }
                let snippet = item
                    .get("snippet")
                    .and_then(Value::as_str)
                    .map(strip_html_tags)
                    .unwrap_or_default();
                Some(SearchHit { title, snippet })
            })
            .collect(),
        // `search` missing entirely (formatversion quirks) reads as no hits,
        // but a non-array value means we are not talking to MediaWiki.
        None => Vec::new(),
        Some(_) => return Err(bad_shape()),
    };
    Ok(SearchResults {
        hits,
        total_hits,
        suggestion,
    })
}

/// The `Ok` observation for a search without hits.
pub fn no_results_observation(query: &str, suggestion: Option<&str>) -> String {
    let q = shorten(&collapse_whitespace(query), 100);
    match suggestion
        .map(collapse_whitespace)
        .filter(|s| !s.is_empty())
    {
        Some(s) => format!(
            "Wikipedia has no page matching '{}'. Wikipedia suggests searching for '{}' instead.",
            q,
            shorten(&s, 100)
        ),
        None => format!(
            "Wikipedia has no page matching '{}'. Try a shorter or differently spelled query.",
            q
        ),
    }
}

/// One page from a `prop=extracts` answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PageSummary {
    pub title: String,
    /// Plain-text intro; empty when the page has no lead text.
    pub extract: String,
    pub missing: bool,
    pub disambiguation: bool,
}

/// Read a `prop=extracts` response into pages, in the order of `requested`
/// (the search ranking), following `normalized` and `redirects` so a title
/// we asked for finds the page it turned into. Pages the API returned but we
/// cannot map back are appended at the end rather than dropped.
pub fn parse_extracts(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    requested: &[String],
) -> Result<Vec<PageSummary>, ServiceError> {
    let v = check_response(status, retry_after, body)?;
    let query = v.get("query").ok_or_else(bad_shape)?;
    let pages: Vec<PageSummary> = match query.get("pages") {
        None => Vec::new(),
        Some(Value::Object(m)) => m.values().filter_map(page_from_value).collect(),
        // formatversion 2 sends an array; accept it too.
        Some(Value::Array(a)) => a.iter().filter_map(page_from_value).collect(),
        Some(_) => return Err(bad_shape()),
    };
    Ok(order_pages(query, pages, requested))
}

fn page_from_value(p: &Value) -> Option<PageSummary> {
    let title = collapse_whitespace(p.get("title")?.as_str()?);
    // `missing`/`invalid` are "" in formatversion 1 and `true` in version 2.
    let flag = |k: &str| {
        p.get(k)
            .map(|x| !matches!(x, Value::Bool(false) | Value::Null))
            .unwrap_or(false)
    };
    let missing = flag("missing") || flag("invalid");
    let extract = p
        .get("extract")
        .and_then(Value::as_str)
        .map(tidy_extract)
        .unwrap_or_default();
    let by_props = p
        .get("pageprops")
        .and_then(|pp| pp.get("disambiguation"))
        .is_some();
    let disambiguation = by_props || looks_like_disambiguation(&title, &extract);
    Some(PageSummary {
        title,
        extract,
        missing,
        disambiguation,
    })
}

/// Keep paragraph breaks (they help the model) but drop blank lines and
/// runs of spaces.
fn tidy_extract(s: &str) -> String {
    s.lines()
        .map(collapse_whitespace)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Text fallback for disambiguation pages, used when `pageprops` is absent.
fn looks_like_disambiguation(title: &str, extract: &str) -> bool {
    if title.to_lowercase().ends_with("(disambiguation)") {
        return true;
    }
    let head: String = extract.chars().take(400).collect::<String>().to_lowercase();
    [
        "may refer to:",
        "may also refer to:",
        "may stand for:",
        "can refer to:",
        "might refer to:",
    ]
    .iter()
    .any(|p| head.contains(p))
}

/// Apply a `[{from, to}]` rewrite list (normalized / redirects / converted).
fn rewrite(query: &Value, key: &str, title: &str) -> String {
    query
        .get(key)
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter().find_map(|r| {
                let from = r.get("from")?.as_str()?;
                if from == title {
                    r.get("to")?.as_str().map(str::to_string)
                } else {
                    None
                }
            })
        })
        .unwrap_or_else(|| title.to_string())
}

fn order_pages(
    query: &Value,
    mut pages: Vec<PageSummary>,
    requested: &[String],
) -> Vec<PageSummary> {
    let mut ordered = Vec::with_capacity(pages.len());
    for want in requested {
        let mut t = collapse_whitespace(want);
        for key in ["normalized", "converted", "redirects"] {
            t = rewrite(query, key, &t);
        }
        if let Some(pos) = pages.iter().position(|p| p.title == t) {
            ordered.push(pages.remove(pos));
        }
    }
    // Unmapped pages: keep missing ones last, otherwise stable by title so
    // the output does not depend on JSON object key order.
    crate::sort::sort_by(&mut pages, |a, b| {
        a.missing
            .cmp(&b.missing)
            .then_with(|| a.title.cmp(&b.title))
    });
    ordered.extend(pages);
    ordered
}

/// Format pages as the observation, bounded by `max_chars`.
/// Every page gets an equal share of the budget so a long first article
/// cannot push the others out entirely.
pub fn format_pages(pages: &[PageSummary], lang: &str, max_chars: usize) -> String {
    if pages.is_empty() {
        return "Wikipedia returned no pages for these titles.".to_string();
    }
    let share = (max_chars / pages.len()).saturating_sub(120).max(200);
    let blocks: Vec<String> = pages
        .iter()
        .map(|p| {
            if p.missing {
                return format!("Page: {}\n(Wikipedia has no page with this exact title.)", p.title);
            }
            let mut block = format!("Page: {}\nURL: {}\n", p.title, page_url(lang, &p.title));
            if p.disambiguation {
                block.push_str(
                    "Note: this is a disambiguation page listing several meanings; search again with a more specific title.\n",
                );
            }
            let summary = if p.extract.is_empty() {
                "(this page has no introductory text)".to_string()
            } else {
                shorten(&p.extract, share)
            };
            block.push_str("Summary: ");
            block.push_str(&summary);
            block
        })
        .collect();
    bound(&text::join_blocks(&blocks), max_chars)
}

/// Interpret a `prop=extracts` response into the observation text.
/// `requested` is the title list in search order; `lang` builds the article
/// URLs (the request itself may have gone to a loopback test server).
pub fn interpret_extracts(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    requested: &[String],
    lang: &str,
    max_chars: usize,
) -> Result<String, ServiceError> {
    let pages = parse_extracts(status, retry_after, body, requested)?;
    Ok(format_pages(&pages, lang, max_chars))
}

#[cfg(test)]
mod tests;
