//! Web search tool, pure half, for two back ends:
//! - DuckDuckGo's Instant Answer API (`api.duckduckgo.com/?format=json`):
//!   encyclopedic "zero-click" answers only, no link results. It sends no
//!   CORS header, so the fetch layer needs a proxy; we never build the JSONP
//!   form (`callback=`), because running remote script in the page is not
//!   acceptable for an agent that feeds on untrusted text.
//! - A SearXNG instance's JSON API (`/search?format=json`), for people who
//!   run one (format `json` must be enabled in its settings).
//!
//! Builders return the request; interpreters turn status + body into the
//! observation or a `ServiceError`. No I/O here.
//!
//! DuckDuckGo quirks relied on (shared/fixtures/README.md, duckduckgo/):
//! every key is always present and empty values are `""`, so fields change
//! type (`Infobox` is `""` or an object, `ImageHeight` `""` or a number);
//! hence `serde_json::Value` access instead of strict structs. Empty answers
//! carry a junk `meta` block, which is ignored. Throttling shows up as
//! HTTP 202 with an empty body.

use super::text::{
    self, bound, clean_query, collapse_whitespace, encode_component, http_error, is_success,
    parse_json, shorten, strip_html_tags, Request, ServiceError, ServiceErrorKind,
};
use serde_json::Value;

pub const TOOL: &str = "websearch";
pub const DEFAULT_MAX_CHARS: usize = 3000;
const MAX_RELATED: usize = 6;
const MAX_FACTS: usize = 10;
const MAX_SEARX_RESULTS: usize = 5;

/// DuckDuckGo Instant Answer request: `{base}/?q=..&format=json&no_html=1&skip_disambig=1`.
pub fn ddg_url(base: &str, query: &str) -> Result<Request, ServiceError> {
    let b = text::check_base(TOOL, "DuckDuckGo", base)?;
    let q = clean_query(TOOL, query)?;
    Ok(Request {
        url: format!(
            "{}/?q={}&format=json&no_html=1&skip_disambig=1",
            b,
            encode_component(&q)
        ),
        headers: Vec::new(),
    })
}

/// The `Ok` observation when DuckDuckGo has no instant answer.
pub fn ddg_no_answer_observation(query: &str) -> String {
    format!(
        "No instant answer for '{}'. DuckDuckGo's instant answers cover encyclopedic topics; try Wikipedia for this question.",
        shorten(&collapse_whitespace(query), 100)
    )
}

/// A string field, HTML stripped (no_html=1 is a request, not a promise).
fn s(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .map(strip_html_tags)
        .unwrap_or_default()
}

/// Flatten `RelatedTopics`: plain topics and `{Name, Topics}` groups.
fn related_topics(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(items) = v.get("RelatedTopics").and_then(Value::as_array) else {
        return out;
    };
    for item in items {
        if out.len() >= MAX_RELATED {
            break;
        }
        if let Some(topics) = item.get("Topics").and_then(Value::as_array) {
            let group = s(item, "Name");
            for t in topics.iter().take(MAX_RELATED.saturating_sub(out.len())) {
                let text = s(t, "Text");
                if !text.is_empty() {
                    let label = if group.is_empty() {
                        String::new()
                    } else {
                        format!("[{}] ", group)
                    };
                    out.push(format!("- {}{}", label, shorten(&text, 200)));
                }
            }
        } else {
            let text = s(item, "Text");
            if !text.is_empty() {
                let url = s(item, "FirstURL");
                if url.is_empty() {
                    out.push(format!("- {}", shorten(&text, 200)));
                } else {
                    out.push(format!("- {} ({})", shorten(&text, 200), url));
                }
            }
        }
    }
    out
}

/// Plain string facts from an `Infobox` object (profiles, ids and nested
/// wikidata values are skipped: they mean nothing to the model as text).
fn infobox_facts(v: &Value) -> Vec<String> {
    let Some(content) = v
        .get("Infobox")
        .and_then(|i| i.get("content"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    content
        .iter()
        .filter(|f| {
            f.get("data_type")
                .and_then(Value::as_str)
                .is_none_or(|t| t == "string")
        })
        .filter_map(|f| {
            let label = s(f, "label");
            let value = s(f, "value");
            (!label.is_empty() && !value.is_empty())
                .then(|| format!("{}: {}", label, shorten(&value, 120)))
        })
        .take(MAX_FACTS)
        .collect()
}

/// Build the DuckDuckGo observation from a parsed body; `None` when the body
/// holds no usable answer.
fn ddg_observation(v: &Value) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let heading = s(v, "Heading");
    if !heading.is_empty() {
        parts.push(format!("Heading: {}", heading));
    }
    // `Answer` is usually a string but some instant answers send an object.
    let answer = match v.get("Answer") {
        Some(Value::String(a)) => strip_html_tags(a),
        Some(Value::Object(o)) => o
            .get("result")
            .and_then(Value::as_str)
            .map(strip_html_tags)
            .unwrap_or_default(),
        _ => String::new(),
    };
    if !answer.is_empty() {
        parts.push(format!("Answer: {}", answer));
    }
    // The abstract and the definition have the same shape: text, its source, its URL.
    for (label, text_key, key) in [("Summary", "AbstractText", "Abstract"), ("Definition", "Definition", "Definition")] {
        let body = s(v, text_key);
        if body.is_empty() {
            continue;
        }
        let source = s(v, &format!("{key}Source"));
        let mut block = if source.is_empty() { format!("{label}: {body}") } else { format!("{label} (from {source}): {body}") };
        let url = s(v, &format!("{key}URL"));
        if !url.is_empty() {
            block.push_str(&format!("\nURL: {url}"));
        }
        parts.push(block);
    }
    let facts = infobox_facts(v);
    if !facts.is_empty() {
        parts.push(format!("Facts: {}", facts.join("; ")));
    }
    if let Some(results) = v.get("Results").and_then(Value::as_array) {
        let links: Vec<String> = results
            .iter()
            .filter_map(|r| {
                let url = s(r, "FirstURL");
                (!url.is_empty()).then(|| {
                    let text = s(r, "Text");
                    if text.is_empty() {
                        url
                    } else {
                        format!("{}: {}", text, url)
                    }
                })
            })
            .take(3)
            .collect();
        if !links.is_empty() {
            parts.push(format!("Links: {}", links.join("; ")));
        }
    }
    let related = related_topics(v);
    if !related.is_empty() {
        parts.push(format!("Related topics:\n{}", related.join("\n")));
    }
    // A heading alone (no text anywhere) is not an answer.
    if parts.len() == usize::from(!heading.is_empty()) {
        return None;
    }
    Some(text::join_blocks(&parts))
}

/// Interpret a DuckDuckGo Instant Answer response.
pub fn interpret_ddg(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    query: &str,
    max_chars: usize,
) -> Result<String, ServiceError> {
    // 202 (usually with an empty body) is how DuckDuckGo throttles.
    if status == 202 || status == 429 {
        let secs = text::parse_retry_after(retry_after);
        return Err(ServiceError::new(
            TOOL,
            ServiceErrorKind::RateLimited { retry_after_s: secs },
            format!(
                "DuckDuckGo is throttling requests (HTTP {} without an answer); {}, or use Wikipedia instead.",
                status,
                text::wait_phrase(secs, "wait a minute before trying again")
            ),
        ));
    }
    if !is_success(status) {
        return Err(http_error(TOOL, "DuckDuckGo", status));
    }
    let v = parse_json(TOOL, "DuckDuckGo", body)?;
    if !v.is_object() {
        return Err(ServiceError::bad_response(
            TOOL,
            "DuckDuckGo's answer was not a JSON object; the request may have been turned into JSONP or an error page.",
        ));
    }
    match ddg_observation(&v) {
        Some(obs) => Ok(bound(&obs, max_chars)),
        None => Ok(ddg_no_answer_observation(query)),
    }
}

/// SearXNG request: `{base}/search?q=..&format=json`.
pub fn searx_url(base: &str, query: &str) -> Result<Request, ServiceError> {
    let b = text::check_base(TOOL, "SearXNG", base)?;
    let q = clean_query(TOOL, query)?;
    Ok(Request {
        url: format!("{}/search?q={}&format=json", b, encode_component(&q)),
        headers: Vec::new(),
    })
}

/// The `Ok` observation when SearXNG found nothing.
pub fn searx_no_results_observation(query: &str, suggestions: &[String]) -> String {
    let q = shorten(&collapse_whitespace(query), 100);
    if suggestions.is_empty() {
        format!(
            "The web search found no results for '{}'. Try different or fewer keywords.",
            q
        )
    } else {
        format!(
            "The web search found no results for '{}'. Suggested searches: {}.",
            q,
            suggestions.join("; ")
        )
    }
}

fn string_list(v: &Value, key: &str, limit: usize) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(strip_html_tags)
                .filter(|x| !x.is_empty())
                .take(limit)
                .map(|x| shorten(&x, 100))
                .collect()
        })
        .unwrap_or_default()
}

fn searx_observation(v: &Value) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    // Answers are plain strings in older SearXNG and objects with an
    // `answer` field (plus url/engine) in newer releases.
    if let Some(answers) = v.get("answers").and_then(Value::as_array) {
        for a in answers.iter().take(3) {
            let (text, url) = match a {
                Value::String(t) => (strip_html_tags(t), String::new()),
                Value::Object(_) => (s(a, "answer"), s(a, "url")),
                _ => continue,
            };
            if !text.is_empty() {
                parts.push(if url.is_empty() {
                    format!("Answer: {}", text)
                } else {
                    format!("Answer: {}\nURL: {}", text, url)
                });
            }
        }
    }
    if let Some(infoboxes) = v.get("infoboxes").and_then(Value::as_array) {
        for ib in infoboxes.iter().take(1) {
            let name = s(ib, "infobox");
            let content = s(ib, "content");
            if name.is_empty() && content.is_empty() {
                continue;
            }
            let mut block = format!(
                "Infobox: {}",
                if name.is_empty() { "(untitled)" } else { &name }
            );
            if !content.is_empty() {
                block.push_str(&format!("\n{}", shorten(&content, 600)));
            }
            let facts: Vec<String> = ib
                .get("attributes")
                .and_then(Value::as_array)
                .map(|attrs| {
                    attrs
                        .iter()
                        .filter_map(|a| {
                            let label = s(a, "label");
                            let value = s(a, "value");
                            (!label.is_empty() && !value.is_empty())
                                .then(|| format!("{}: {}", label, shorten(&value, 120)))
                        })
                        .take(MAX_FACTS)
                        .collect()
                })
                .unwrap_or_default();
            if !facts.is_empty() {
                block.push_str(&format!("\nFacts: {}", facts.join("; ")));
            }
            if let Some(url) = ib
                .get("urls")
                .and_then(Value::as_array)
                .and_then(|u| u.first())
                .map(|u| s(u, "url"))
            {
                if !url.is_empty() {
                    block.push_str(&format!("\nURL: {}", url));
                }
            }
            parts.push(block);
        }
    }
    if let Some(results) = v.get("results").and_then(Value::as_array) {
        let mut n = 0;
        for r in results {
            if n >= MAX_SEARX_RESULTS {
                break;
            }
            let title = s(r, "title");
            let url = s(r, "url");
            if title.is_empty() && url.is_empty() {
                continue;
            }
            n += 1;
            let content = s(r, "content");
            let mut block = format!(
                "Result {}: {}\nURL: {}",
                n,
                if title.is_empty() {
                    "(untitled)"
                } else {
                    &title
                },
                url
            );
            if !content.is_empty() {
                block.push_str(&format!("\nSnippet: {}", shorten(&content, 400)));
            }
            parts.push(block);
        }
    }
    (!parts.is_empty()).then(|| text::join_blocks(&parts))
}

/// Interpret a SearXNG JSON response.
pub fn interpret_searx(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    query: &str,
    max_chars: usize,
) -> Result<String, ServiceError> {
    match status {
        429 => return Err(text::rate_limited(TOOL, "The SearXNG instance", retry_after)),
        403 => {
            return Err(ServiceError::new(
                TOOL,
                ServiceErrorKind::Http { status },
                "The SearXNG instance refused the request (HTTP 403): JSON output is probably disabled; enable `json` under search.formats in its settings.yml, or use another instance.",
            ))
        }
        s if !is_success(s) => return Err(http_error(TOOL, "The SearXNG instance", s)),
        _ => {}
    }
    let v = parse_json(TOOL, "The SearXNG instance", body)?;
    if !v.is_object() || v.get("results").is_some_and(|r| !r.is_array()) {
        return Err(ServiceError::bad_response(
            TOOL,
            "The SearXNG instance's answer did not have the expected shape (no 'results' list).",
        ));
    }
    match searx_observation(&v) {
        Some(obs) => Ok(bound(&obs, max_chars)),
        None => {
            let mut suggestions = string_list(&v, "corrections", 3);
            suggestions.extend(string_list(&v, "suggestions", 3));
            Ok(searx_no_results_observation(query, &suggestions))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::fixture;


    /// HAND-MADE sample, not a recording (no SearXNG capture exists in
    /// shared/fixtures). Written from SearXNG's documented JSON output
    /// (docs.searxng.org "Search API", `format=json`) and the field lists
    /// client libraries declare: top-level `query`, `number_of_results`,
    /// `results[{url,title,content,engine,parsed_url,template,engines,
    /// positions,score,category,publishedDate}]`, `answers` (objects with
    /// `answer`/`url` in current releases), `corrections`, `infoboxes[{infobox,
    /// id,content,img_src,urls[{title,url}],attributes[{label,value}],engine}]`,
    /// `suggestions`, `unresponsive_engines` ([engine, reason] pairs).
    const SEARX_SAMPLE: &str = r#"{"query":"rust programming language","number_of_results":0,"results":[{"url":"https://www.rust-lang.org/","title":"Rust Programming Language","content":"A language empowering everyone to build reliable and efficient software.","engine":"duckduckgo","parsed_url":["https","www.rust-lang.org","/","","",""],"template":"default.html","engines":["duckduckgo","brave","startpage"],"positions":[1,1,2],"publishedDate":null,"score":9.0,"category":"general"},{"url":"https://en.wikipedia.org/wiki/Rust_(programming_language)","title":"Rust (programming language) - Wikipedia","content":"Rust is a general-purpose <b>programming language</b> emphasizing performance, type safety, and concurrency.","engine":"brave","parsed_url":["https","en.wikipedia.org","/wiki/Rust_(programming_language)","","",""],"template":"default.html","engines":["brave","duckduckgo"],"positions":[2,3],"publishedDate":null,"score":4.5,"category":"general"},{"url":"https://doc.rust-lang.org/book/","title":"The Rust Programming Language - The Rust Programming Language","content":"by Steve Klabnik, Carol Nichols, and Chris Krycho, with contributions from the Rust Community.","engine":"startpage","parsed_url":["https","doc.rust-lang.org","/book/","","",""],"template":"default.html","engines":["startpage"],"positions":[3],"publishedDate":null,"score":0.33,"category":"general"}],"answers":[{"url":"https://en.wikipedia.org/wiki/Rust_(programming_language)","template":"answer/legacy.html","engine":"wikipedia","parsed_url":["https","en.wikipedia.org","/wiki/Rust_(programming_language)","","",""],"answer":"Rust was first released on 15 May 2015."}],"corrections":[],"infoboxes":[{"infobox":"Rust","id":"https://en.wikipedia.org/wiki/Rust_(programming_language)","content":"Rust is a general-purpose programming language emphasizing performance, type safety, and concurrency.","img_src":null,"urls":[{"title":"Wikipedia","url":"https://en.wikipedia.org/wiki/Rust_(programming_language)"},{"title":"Official website","url":"https://www.rust-lang.org/"}],"attributes":[{"label":"Designed by","value":"Graydon Hoare"},{"label":"First appeared","value":"2015"}],"engine":"wikipedia","engines":["wikipedia"]}],"suggestions":["rust lang","rust book"],"unresponsive_engines":[["google","timeout"]]}"#;

    #[test]
    fn ddg_url_shape() {
        let r = ddg_url("https://api.duckduckgo.com/", "Rust programming language").unwrap();
        assert_eq!(
            r.url,
            "https://api.duckduckgo.com/?q=Rust%20programming%20language&format=json&no_html=1&skip_disambig=1"
        );
        assert!(!r.url.contains("callback"));
        assert!(ddg_url("https://x", "").is_err());
        assert!(ddg_url("x", "q").is_err());
    }

    #[test]
    fn ddg_rust_fixture() {
        let body = fixture("duckduckgo/instant_answer_rust_programming_language.json");
        let obs = interpret_ddg(200, None, &body, "Rust programming language", 10_000).unwrap();
        assert!(obs.starts_with("Heading: Rust (programming language)\n\nSummary (from Wikipedia): Rust is a multi-paradigm, general-purpose programming language"), "{}", obs);
        assert!(obs.contains("\nURL: https://en.wikipedia.org/wiki/Rust_(programming_language)"));
        assert!(obs.contains("its \"borrow checker\" tracks"));
        assert!(obs.contains("Facts: Designed by: Graydon Hoare; Developer: Rust Foundation; First appeared: May 15, 2015;"), "{}", obs);
        assert!(
            !obs.contains("UCaYhcUwRBNscFNUKTjgPFiA"),
            "profile ids are skipped"
        );
        assert!(obs.contains("Links: Official site: https://foundation.rust-lang.org"));
        assert!(obs.contains("Related topics:\n- Rust (programming language) Category (https://duckduckgo.com/c/Rust_(programming_language))"));
        assert_eq!(obs.matches("\n- ").count(), MAX_RELATED);
        let small = interpret_ddg(200, None, &body, "q", 300).unwrap();
        assert!(small.chars().count() <= 300 && small.ends_with(text::TRUNCATION_MARKER));
        assert!(
            interpret_ddg(200, None, &body, "q", DEFAULT_MAX_CHARS)
                .unwrap()
                .chars()
                .count()
                <= DEFAULT_MAX_CHARS
        );
    }

    #[test]
    fn ddg_no_result_fixture() {
        let body = fixture("duckduckgo/instant_answer_no_result.json");
        let obs = interpret_ddg(
            200,
            None,
            &body,
            "target model attention prompt compression attention rollout",
            3000,
        )
        .unwrap();
        assert_eq!(
            obs,
            "No instant answer for 'target model attention prompt compression attention rollout'. DuckDuckGo's instant answers cover encyclopedic topics; try Wikipedia for this question."
        );
    }

    #[test]
    fn ddg_shapes_and_types() {
        // Number-or-string ImageHeight, object Infobox, grouped topics, object Answer.
        let body = r#"{"Heading":"Mercury","AbstractText":"","Answer":{"result":"<b>42</b>"},"ImageHeight":"","Infobox":"",
            "RelatedTopics":[{"Name":"Science","Topics":[{"Text":"Mercury (element) - chemical element","FirstURL":"https://duckduckgo.com/Mercury_(element)"}]},
                             {"Text":"","FirstURL":"x"},{"Result":"no text"},7,null],
            "Results":"", "Type":"D"}"#;
        let obs = interpret_ddg(200, None, body, "mercury", 3000).unwrap();
        assert_eq!(obs, "Heading: Mercury\n\nAnswer: 42\n\nRelated topics:\n- [Science] Mercury (element) - chemical element");
        // Heading only → no answer.
        let obs =
            interpret_ddg(200, None, r#"{"Heading":"X","ImageHeight":120}"#, "x", 3000).unwrap();
        assert!(obs.starts_with("No instant answer for 'x'."));
        let obs = interpret_ddg(
            200,
            None,
            r#"{"Definition":"a word","DefinitionSource":"Wiktionary"}"#,
            "w",
            3000,
        )
        .unwrap();
        assert_eq!(obs, "Definition (from Wiktionary): a word");
    }

    #[test]
    fn ddg_errors() {
        let e = interpret_ddg(202, None, "", "q", 3000).unwrap_err();
        assert_eq!(
            e.kind,
            ServiceErrorKind::RateLimited {
                retry_after_s: None
            }
        );
        assert!(e.message.contains("throttling"));
        assert_eq!(
            interpret_ddg(429, Some("9"), "", "q", 3000)
                .unwrap_err()
                .kind,
            ServiceErrorKind::RateLimited {
                retry_after_s: Some(9)
            }
        );
        assert_eq!(
            interpret_ddg(500, None, "", "q", 3000).unwrap_err().kind,
            ServiceErrorKind::Http { status: 500 }
        );
        assert_eq!(
            interpret_ddg(200, None, "", "q", 3000).unwrap_err().kind,
            ServiceErrorKind::BadResponse
        );
        assert_eq!(
            interpret_ddg(200, None, "ddg_spice_x({\"a\":1});", "q", 3000)
                .unwrap_err()
                .kind,
            ServiceErrorKind::BadResponse
        );
        assert_eq!(
            interpret_ddg(200, None, "[1,2]", "q", 3000)
                .unwrap_err()
                .kind,
            ServiceErrorKind::BadResponse
        );
        assert_eq!(
            interpret_ddg(200, None, "<html><body>blocked</body></html>", "q", 3000)
                .unwrap_err()
                .kind,
            ServiceErrorKind::BadResponse
        );
        let full = fixture("duckduckgo/instant_answer_rust_programming_language.json");
        for cut in [1, 500, full.len() / 2, full.len() - 1] {
            let part = full.get(..cut).unwrap_or("");
            assert_eq!(
                interpret_ddg(200, None, part, "q", 3000).unwrap_err().kind,
                ServiceErrorKind::BadResponse
            );
        }
    }

    #[test]
    fn searx_url_shape() {
        let r = searx_url("http://127.0.0.1:8888/", "rust lang?").unwrap();
        assert_eq!(
            r.url,
            "http://127.0.0.1:8888/search?q=rust%20lang%3F&format=json"
        );
        assert!(searx_url("http://x", " ").is_err());
    }

    #[test]
    fn searx_sample() {
        let obs =
            interpret_searx(200, None, SEARX_SAMPLE, "rust programming language", 5000).unwrap();
        assert!(obs.starts_with("Answer: Rust was first released on 15 May 2015.\nURL: https://en.wikipedia.org/wiki/Rust_(programming_language)\n\nInfobox: Rust\n"), "{}", obs);
        assert!(obs.contains("Facts: Designed by: Graydon Hoare; First appeared: 2015"));
        assert!(obs.contains("Result 1: Rust Programming Language\nURL: https://www.rust-lang.org/\nSnippet: A language empowering everyone"));
        assert!(obs.contains("Result 2: Rust (programming language) - Wikipedia\nURL: https://en.wikipedia.org/wiki/Rust_(programming_language)\nSnippet: Rust is a general-purpose programming language emphasizing"));
        assert!(obs.contains("Result 3: The Rust Programming Language"));
        assert!(
            interpret_searx(200, None, SEARX_SAMPLE, "q", 400)
                .unwrap()
                .chars()
                .count()
                <= 400
        );
        // Older string answers.
        let old = r#"{"query":"1+1","results":[],"answers":["2"],"infoboxes":[],"suggestions":[]}"#;
        assert_eq!(
            interpret_searx(200, None, old, "1+1", 3000).unwrap(),
            "Answer: 2"
        );
    }

    #[test]
    fn searx_empty_and_errors() {
        let empty = r#"{"query":"zzqx","number_of_results":0,"results":[],"answers":[],"corrections":[],"infoboxes":[],"suggestions":["zzq"],"unresponsive_engines":[]}"#;
        assert_eq!(
            interpret_searx(200, None, empty, "zzqx", 3000).unwrap(),
            "The web search found no results for 'zzqx'. Suggested searches: zzq."
        );
        let e = interpret_searx(403, None, "<html>Forbidden</html>", "q", 3000).unwrap_err();
        assert_eq!(e.kind, ServiceErrorKind::Http { status: 403 });
        assert!(e.message.contains("search.formats"));
        assert!(matches!(
            interpret_searx(429, None, "", "q", 3000).unwrap_err().kind,
            ServiceErrorKind::RateLimited { .. }
        ));
        assert_eq!(
            interpret_searx(200, None, "{\"results\":3}", "q", 3000)
                .unwrap_err()
                .kind,
            ServiceErrorKind::BadResponse
        );
        assert_eq!(
            interpret_searx(200, None, &SEARX_SAMPLE[..200], "q", 3000)
                .unwrap_err()
                .kind,
            ServiceErrorKind::BadResponse
        );
        assert_eq!(
            interpret_searx(502, None, "", "q", 3000).unwrap_err().kind,
            ServiceErrorKind::Http { status: 502 }
        );
    }
}
