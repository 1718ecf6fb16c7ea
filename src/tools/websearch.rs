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
//! DuckDuckGo quirks relied on (tests/fixtures/README.md, duckduckgo/):
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
fn string_field(v: &Value, key: &str) -> String {
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
            let group = string_field(item, "Name");
            for t in topics.iter().take(MAX_RELATED.saturating_sub(out.len())) {
                let text = string_field(t, "Text");
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
            let text = string_field(item, "Text");
            if !text.is_empty() {
                let url = string_field(item, "FirstURL");
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
        .filter_map(labelled_fact)
        .take(MAX_FACTS)
        .collect()
}

/// `label: value` from a `{label, value}` object, when both are there.
fn labelled_fact(f: &Value) -> Option<String> {
    let label = string_field(f, "label");
    let value = string_field(f, "value");
    (!label.is_empty() && !value.is_empty()).then(|| format!("{}: {}", label, shorten(&value, 120)))
}

/// Build the DuckDuckGo observation from a parsed body; `None` when the body
/// holds no usable answer.
fn ddg_observation(v: &Value) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let heading = string_field(v, "Heading");
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
        let body = string_field(v, text_key);
        if body.is_empty() {
            continue;
        }
        let source = string_field(v, &format!("{key}Source"));
        let mut block = if source.is_empty() { format!("{label}: {body}") } else { format!("{label} (from {source}): {body}") };
        let url = string_field(v, &format!("{key}URL"));
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
                let url = string_field(r, "FirstURL");
                (!url.is_empty()).then(|| {
                    let text = string_field(r, "Text");
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
                Value::Object(_) => (string_field(a, "answer"), string_field(a, "url")),
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
            let name = string_field(ib, "infobox");
            let content = string_field(ib, "content");
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
                .map(|attrs| attrs.iter().filter_map(labelled_fact).take(MAX_FACTS).collect())
                .unwrap_or_default();
            if !facts.is_empty() {
                block.push_str(&format!("\nFacts: {}", facts.join("; ")));
            }
            if let Some(url) = ib
                .get("urls")
                .and_then(Value::as_array)
                .and_then(|u| u.first())
                .map(|u| string_field(u, "url"))
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
            let title = string_field(r, "title");
            let url = string_field(r, "url");
            if title.is_empty() && url.is_empty() {
                continue;
            }
            n += 1;
            let content = string_field(r, "content");
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
mod tests;
