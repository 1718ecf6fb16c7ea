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
//! Format facts relied on (see shared/fixtures/README.md, wikipedia/):
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
    pages.sort_by(|a, b| {
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
mod tests {
    use super::*;
    use crate::test_support::fixture;


    #[test]
    fn lang_base_validates() {
        assert_eq!(lang_base("en").unwrap(), "https://en.wikipedia.org");
        assert_eq!(lang_base(" DE ").unwrap(), "https://de.wikipedia.org");
        assert_eq!(
            lang_base("zh-min-nan").unwrap(),
            "https://zh-min-nan.wikipedia.org"
        );
        for bad in [
            "",
            "e",
            "en.evil.com",
            "en/",
            "-en",
            "en-",
            "e n",
            "ru--x",
            "日本",
            "en?x=1",
        ] {
            let e = lang_base(bad).unwrap_err();
            assert_eq!(e.kind, ServiceErrorKind::BadInput, "{}", bad);
        }
    }

    #[test]
    fn search_url_shape() {
        let r = search_url("https://en.wikipedia.org/", "Python (programming) & C++", 3).unwrap();
        assert_eq!(
            r.url,
            "https://en.wikipedia.org/w/api.php?action=query&list=search&format=json&origin=*&srlimit=3&srsearch=Python%20%28programming%29%20%26%20C%2B%2B"
        );
        assert_eq!(r.headers[0].0, "Api-User-Agent");
        let r = search_url("http://127.0.0.1:9000", "x", 0).unwrap();
        assert!(
            r.url.starts_with("http://127.0.0.1:9000/w/api.php?") && r.url.contains("srlimit=1&")
        );
        assert!(search_url("http://x", "x", 999)
            .unwrap()
            .url
            .contains("srlimit=20&"));
        assert_eq!(
            search_url("http://x", "   ", 3).unwrap_err().kind,
            ServiceErrorKind::BadInput
        );
        assert_eq!(
            search_url("ftp://x", "q", 3).unwrap_err().kind,
            ServiceErrorKind::BadInput
        );
    }

    #[test]
    fn extracts_url_shape() {
        let titles = vec![
            "Python (programming language)".to_string(),
            "Zürich".to_string(),
            "a|b".to_string(),
        ];
        let r = extracts_url("https://en.wikipedia.org", &titles).unwrap();
        assert!(r
            .url
            .starts_with("https://en.wikipedia.org/w/api.php?action=query&prop=extracts"));
        for p in [
            "exintro=1",
            "explaintext=1",
            "redirects=1",
            "format=json",
            "origin=*",
        ] {
            assert!(r.url.contains(p), "{}", p);
        }
        assert!(
            r.url
                .ends_with("&titles=Python%20%28programming%20language%29%7CZ%C3%BCrich"),
            "{}",
            r.url
        );
        assert!(extracts_url("https://x", &[]).is_err());
        let many: Vec<String> = (0..30).map(|i| format!("T{}", i)).collect();
        assert_eq!(
            extracts_url("https://x", &many)
                .unwrap()
                .url
                .matches("%7CT")
                .count(),
            19
        );
    }

    #[test]
    fn page_urls() {
        assert_eq!(
            page_url("en", "Python (programming language)"),
            "https://en.wikipedia.org/wiki/Python_(programming_language)"
        );
        assert_eq!(
            page_url("de", "Zürich"),
            "https://de.wikipedia.org/wiki/Z%C3%BCrich"
        );
        assert_eq!(
            page_url("en", "AT&T"),
            "https://en.wikipedia.org/wiki/AT%26T"
        );
        assert_eq!(page_url("../evil", "X"), "https://en.wikipedia.org/wiki/X");
    }

    #[test]
    fn search_srlimit3_fixture() {
        let r = parse_search(
            200,
            None,
            &fixture("wikipedia/action_query_list_search_srlimit3.json"),
        )
        .unwrap();
        assert_eq!(r.hits.len(), 3);
        assert_eq!(
            r.titles(),
            vec![
                "Python (programming language)",
                "History of Python",
                "Outline of the Python programming language"
            ]
        );
        assert_eq!(r.total_hits, Some(6045));
        assert!(r.hits[0]
            .snippet
            .starts_with("Python is a high-level, general-purpose programming language."));
        assert!(!r.hits[0].snippet.contains('<'));
        // \u2013 escape decoded by serde_json.
        assert!(r.hits[2]
            .snippet
            .contains("ABC (programming language) – precursor"));
    }

    #[test]
    fn search_srlimit10_fixture() {
        let r = parse_search(
            200,
            None,
            &fixture("wikipedia/action_query_list_search_srlimit10.json"),
        )
        .unwrap();
        assert_eq!(r.hits.len(), 10);
        assert_eq!(r.hits[3].title, "Python syntax and semantics");
    }

    #[test]
    fn search_no_results_fixture() {
        // No `searchinfo` in this 2017 sample.
        let r = parse_search(
            200,
            None,
            &fixture("wikipedia/action_query_list_search_no_results_2017.json"),
        )
        .unwrap();
        assert!(r.hits.is_empty());
        assert_eq!(r.total_hits, None);
        assert_eq!(
            no_results_observation("gobbilygook", None),
            "Wikipedia has no page matching 'gobbilygook'. Try a shorter or differently spelled query."
        );
        let with_sugg = r#"{"batchcomplete":"","query":{"searchinfo":{"totalhits":0,"suggestion":"gobbledygook"},"search":[]}}"#;
        let r = parse_search(200, None, with_sugg).unwrap();
        assert_eq!(r.suggestion.as_deref(), Some("gobbledygook"));
        assert!(
            no_results_observation("gobbilygook", r.suggestion.as_deref())
                .contains("'gobbledygook'")
        );
    }

    #[test]
    fn api_error_with_http_200() {
        let e = parse_search(
            200,
            None,
            &fixture("wikipedia/action_api_error_unknown_action.json"),
        )
        .unwrap_err();
        assert_eq!(
            e.kind,
            ServiceErrorKind::Api {
                code: "unknown_action".into()
            }
        );
        assert_eq!(e.tool, "wikipedia");
        assert!(
            e.message
                .contains("Unrecognized value for parameter \"action\": oscillate"),
            "{}",
            e.message
        );
        let e = parse_extracts(
            200,
            None,
            r#"{"error":{"code":"ratelimited","info":"slow"}}"#,
            &[],
        )
        .unwrap_err();
        assert!(matches!(e.kind, ServiceErrorKind::RateLimited { .. }));
    }

    #[test]
    fn rate_limit_429() {
        let e = parse_search(429, Some("12"), "").unwrap_err();
        assert_eq!(
            e.kind,
            ServiceErrorKind::RateLimited {
                retry_after_s: Some(12)
            }
        );
        assert!(e.message.contains("wait 12 seconds"), "{}", e.message);
        let e = parse_search(429, None, "<html>Too many</html>").unwrap_err();
        assert_eq!(
            e.kind,
            ServiceErrorKind::RateLimited {
                retry_after_s: None
            }
        );
    }

    #[test]
    fn rest_404_problem_json_is_http_error() {
        let e = parse_search(
            404,
            None,
            &fixture("wikipedia/rest_v1_error_404_not_found.json"),
        )
        .unwrap_err();
        assert_eq!(e.kind, ServiceErrorKind::Http { status: 404 });
    }

    #[test]
    fn opensearch_array_is_bad_shape() {
        let e = parse_search(
            200,
            None,
            &fixture("wikipedia/action_opensearch_new_york_limit5_2017.json"),
        )
        .unwrap_err();
        assert_eq!(e.kind, ServiceErrorKind::BadResponse);
    }

    #[test]
    fn extracts_full_article_fixture_is_bounded() {
        let body = fixture("wikipedia/action_query_prop_extracts_explaintext_full.json");
        let req = vec!["Python_(programming_language)".to_string()];
        let pages = parse_extracts(200, None, &body, &req).unwrap();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].title, "Python (programming language)");
        assert!(!pages[0].disambiguation && !pages[0].missing);
        assert!(pages[0].extract.len() > 30_000);
        let obs = interpret_extracts(200, None, &body, &req, "en", DEFAULT_MAX_CHARS).unwrap();
        assert!(obs.starts_with(
            "Page: Python (programming language)\nURL: https://en.wikipedia.org/wiki/Python_(programming_language)\nSummary: Python is a high-level, general-purpose programming language."
        ), "{}", obs);
        assert!(obs.chars().count() <= DEFAULT_MAX_CHARS);
        assert!(obs.contains('…') || obs.ends_with(text::TRUNCATION_MARKER));
        let tiny = interpret_extracts(200, None, &body, &req, "en", 500).unwrap();
        assert!(tiny.chars().count() <= 500, "{}", tiny.chars().count());
        assert!(tiny.contains('…'));
    }

    #[test]
    fn extracts_chess_fixture() {
        let body = fixture("wikipedia/action_query_prop_extracts_exsentences5_chess_2017.json");
        let obs = interpret_extracts(200, None, &body, &["Chess".to_string()], "en", 4000).unwrap();
        assert_eq!(
            obs,
            "Page: Chess\nURL: https://en.wikipedia.org/wiki/Chess\nSummary: Chess is a two-player strategy board game played on a chessboard, a checkered gameboard with 64 squares arranged in an eight-by-eight grid. Chess is played by millions of people worldwide, both amateurs and professionals.\nEach player begins the game with 16 pieces: one king, one queen, two rooks, two knights, two bishops, and eight pawns. Each of the six piece types moves differently. The most powerful piece is the queen and the least powerful piece is the pawn."
        );
    }

    #[test]
    fn missing_page_fixture() {
        let body = fixture("wikipedia/action_query_prop_info_missing_page.json");
        let pages = parse_extracts(
            200,
            None,
            &body,
            &["NonExistentPage_WikiAPI_Test_12345".to_string()],
        )
        .unwrap();
        assert_eq!(pages.len(), 1);
        assert!(pages[0].missing);
        assert_eq!(pages[0].title, "NonExistentPage WikiAPI Test 12345");
        let obs = format_pages(&pages, "en", 4000);
        assert!(obs.contains("has no page with this exact title"), "{}", obs);
        assert!(!obs.contains("URL:"));
    }

    #[test]
    fn keeps_search_order_with_redirects_and_disambiguation() {
        // Hand-made multi-page answer in formatversion-1 shape (there is no
        // recorded multi-title exintro response; see fixtures README gaps).
        let body = r#"{"batchcomplete":"","query":{
            "normalized":[{"from":"mercury_(planet)","to":"Mercury (planet)"}],
            "redirects":[{"from":"Quicksilver","to":"Mercury (element)"}],
            "pages":{
              "19694":{"pageid":19694,"ns":0,"title":"Mercury (element)","extract":"Mercury is a chemical element."},
              "-1":{"ns":0,"title":"Nopage Xyz","missing":""},
              "19331":{"pageid":19331,"ns":0,"title":"Mercury","extract":"Mercury may refer to:"},
              "19333":{"pageid":19333,"ns":0,"title":"Mercury (planet)","extract":"Mercury is the first planet.","pageprops":{"disambiguation":""}}
            }}}"#;
        let req: Vec<String> = ["mercury_(planet)", "Quicksilver", "Mercury", "Nopage Xyz"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let pages = parse_extracts(200, None, body, &req).unwrap();
        let titles: Vec<&str> = pages.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "Mercury (planet)",
                "Mercury (element)",
                "Mercury",
                "Nopage Xyz"
            ]
        );
        assert!(pages[0].disambiguation, "pageprops marks it");
        assert!(!pages[1].disambiguation);
        assert!(pages[2].disambiguation, "text heuristic");
        let obs = format_pages(&pages, "en", 4000);
        let blocks: Vec<&str> = obs.split("\n\n").collect();
        assert_eq!(blocks.len(), 4);
        assert!(blocks[2].contains("Note: this is a disambiguation page"));
        assert!(blocks[1].contains("URL: https://en.wikipedia.org/wiki/Mercury_(element)"));
    }

    #[test]
    fn garbage_bodies_are_errors_not_panics() {
        let full = fixture("wikipedia/action_query_list_search_srlimit3.json");
        for cut in [1, 10, full.len() / 2, full.len() - 1] {
            let truncated = full.get(..cut).unwrap_or("");
            let e = parse_search(200, None, truncated).unwrap_err();
            assert_eq!(e.kind, ServiceErrorKind::BadResponse, "cut {}", cut);
        }
        assert_eq!(
            parse_search(200, None, "").unwrap_err().kind,
            ServiceErrorKind::BadResponse
        );
        let html = "<!DOCTYPE html><html><body><h1>Wikimedia Error</h1></body></html>";
        let e = parse_search(200, None, html).unwrap_err();
        assert_eq!(e.kind, ServiceErrorKind::BadResponse);
        assert!(e.message.contains("HTML"));
        assert_eq!(
            parse_search(503, None, html).unwrap_err().kind,
            ServiceErrorKind::Http { status: 503 }
        );
        assert_eq!(
            parse_search(200, None, "[]").unwrap_err().kind,
            ServiceErrorKind::BadResponse
        );
        assert_eq!(
            parse_search(200, None, r#"{"query":{"search":5}}"#)
                .unwrap_err()
                .kind,
            ServiceErrorKind::BadResponse
        );
        assert!(
            parse_search(200, None, r#"{"query":{"search":[{"title":5},{}]}}"#)
                .unwrap()
                .hits
                .is_empty()
        );
        assert!(parse_extracts(
            200,
            None,
            r#"{"query":{"pages":{"1":{"title":null}}}}"#,
            &[]
        )
        .unwrap()
        .is_empty());
        assert!(parse_extracts(200, None, r#"{"query":{"pages":"x"}}"#, &[]).is_err());
        let deep = "[".repeat(10_000);
        assert_eq!(
            parse_search(200, None, &deep).unwrap_err().kind,
            ServiceErrorKind::BadResponse
        );
    }
}
