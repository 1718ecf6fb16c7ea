//! OpenAlex fallback for the arXiv tool, pure half. arXiv's API sends no CORS
//! headers, so from a browser page it is often unreachable; OpenAlex indexes
//! arXiv, answers every origin (`Access-Control-Allow-Origin: *`), and can be
//! restricted to works that have an arXiv-hosted location. This module builds
//! that request and turns the JSON into an observation shaped like arXiv's,
//! headed by `SOURCE_NOTE` so the model knows where the text came from.
//! It does no I/O.
//!
//! Format facts relied on (tests/fixtures/README.md, openalex/): list
//! responses are `{"meta":{..},"results":[work..]}`; the abstract exists only
//! as `abstract_inverted_index` (word → positions); arXiv copies appear as a
//! `locations[]` entry whose `source.id` is `https://openalex.org/S4306400194`
//! with an `https://arxiv.org/abs/..` landing page; errors are
//! `{"error","message"}`; 503 comes with `Retry-After`, 429 (and sometimes
//! 403) means the daily budget is used up. Since 2026-02 an API key is
//! expected (`api_key=` query parameter), hence the optional key argument.

use super::text::{
    self, bound, clean_query, collapse_whitespace, encode_component, is_success, parse_json,
    shorten, Request, ServiceError, ServiceErrorKind,
};
use serde_json::Value;

pub const TOOL: &str = "openalex";
const SERVICE: &str = "OpenAlex";

/// First line of every OpenAlex observation: the model must not mistake this
/// for arXiv's own answer (coverage, ranking and dates differ).
pub const SOURCE_NOTE: &str =
    "Source: OpenAlex (arXiv-hosted works), because arXiv itself could not be reached from the browser.";

const MAX_RESULTS_CAP: u32 = 20;
/// OpenAlex's id for the source "arXiv (Cornell University)".
pub const ARXIV_SOURCE_ID: &str = "S4306400194";
/// Abstract words beyond this position are ignored: real abstracts have a few
/// hundred words, and the cap keeps a hostile index from costing memory.
const MAX_ABSTRACT_WORDS: usize = 3000;

/// Fields we read; `select` shrinks each work from ~30 KB to a few KB.
const SELECT: &str =
    "id,doi,title,display_name,publication_date,authorships,abstract_inverted_index,locations";

/// Works search restricted to arXiv-hosted works.
/// `n` is clamped to 1..=20. `api_key` is appended when given (OpenAlex
/// requires one since 2026-02; without it a small daily allowance applies).
pub fn search_url(
    base: &str,
    query: &str,
    n: u32,
    api_key: Option<&str>,
) -> Result<Request, ServiceError> {
    let b = text::check_base(TOOL, SERVICE, base)?;
    let q = clean_query(TOOL, query)?;
    let n = n.clamp(1, MAX_RESULTS_CAP);
    let mut url = format!(
        "{}/works?search={}&filter=locations.source.id:{}&per-page={}&select={}",
        b,
        encode_component(&q),
        ARXIV_SOURCE_ID,
        n,
        SELECT
    );
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        url.push_str("&api_key=");
        url.push_str(&encode_component(key));
    }
    Ok(Request {
        url,
        headers: Vec::new(),
    })
}

/// One work, reduced to what the observation shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Work {
    pub id: String,
    pub title: String,
    pub publication_date: String,
    pub authors: Vec<String>,
    pub abstract_text: String,
    /// arXiv abs page when the work has an arXiv location.
    pub arxiv_url: Option<String>,
    pub doi: Option<String>,
}

impl Work {
    /// Best link for the model: arXiv landing page, else DOI, else OpenAlex id.
    pub fn url(&self) -> String {
        self.arxiv_url
            .clone()
            .or_else(|| self.doi.clone())
            .unwrap_or_else(|| self.id.clone())
    }
}

/// Rebuild the abstract from OpenAlex's inverted index (word → positions).
/// Pairs are sorted instead of placed into a position-indexed vector, so a
/// bogus position like 10^12 costs nothing.
pub fn rebuild_abstract(index: &Value) -> String {
    let Some(map) = index.as_object() else {
        return String::new();
    };
    let mut pairs: Vec<(u64, &str)> = Vec::new();
    for (word, positions) in map {
        if let Some(list) = positions.as_array() {
            for p in list {
                if let Some(pos) = p.as_u64() {
                    if pairs.len() < MAX_ABSTRACT_WORDS {
                        pairs.push((pos, word.as_str()));
                    }
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup_by_key(|(pos, _)| *pos);
    collapse_whitespace(&pairs.iter().map(|(_, w)| *w).collect::<Vec<_>>().join(" "))
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(collapse_whitespace)
        .filter(|s| !s.is_empty())
}

fn arxiv_location(work: &Value) -> Option<String> {
    let locations = work.get("locations")?.as_array()?;
    locations.iter().find_map(|loc| {
        let landing = loc
            .get("landing_page_url")
            .and_then(Value::as_str)
            .unwrap_or("");
        let source_is_arxiv = loc
            .get("source")
            .and_then(|s| s.get("id"))
            .and_then(Value::as_str)
            .is_some_and(|id| id.ends_with(ARXIV_SOURCE_ID));
        if landing.contains("arxiv.org/abs/") {
            Some(landing.replacen("http://", "https://", 1))
        } else if source_is_arxiv {
            // Landing page missing or odd: derive it from the PDF link.
            let pdf = loc.get("pdf_url").and_then(Value::as_str).unwrap_or("");
            pdf.find("arxiv.org/pdf/")
                .and_then(|i| pdf.get(i + 14..))
                .map(|id| format!("https://arxiv.org/abs/{}", id.trim_end_matches(".pdf")))
        } else {
            None
        }
    })
}

fn work_from_value(v: &Value) -> Option<Work> {
    if !v.is_object() {
        return None;
    }
    let title = str_field(v, "title")
        .or_else(|| str_field(v, "display_name"))
        .unwrap_or_default();
    let authors = v
        .get("authorships")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|a| a.get("author").and_then(|x| str_field(x, "display_name")))
                .collect()
        })
        .unwrap_or_default();
    Some(Work {
        id: str_field(v, "id").unwrap_or_default(),
        title,
        publication_date: str_field(v, "publication_date").unwrap_or_default(),
        authors,
        abstract_text: v
            .get("abstract_inverted_index")
            .map(rebuild_abstract)
            .unwrap_or_default(),
        arxiv_url: arxiv_location(v),
        doi: str_field(v, "doi"),
    })
}

fn bad_shape() -> ServiceError {
    ServiceError::bad_response(
        TOOL,
        "OpenAlex's answer did not have the expected shape (no 'results' list); try again or use another tool.",
    )
}

/// Read a works list (`{"results":[..]}`) or a single work object.
pub fn parse_works(body: &str) -> Result<Vec<Work>, ServiceError> {
    let v = parse_json(TOOL, SERVICE, body)?;
    match v.get("results") {
        Some(Value::Array(items)) => Ok(items.iter().filter_map(work_from_value).collect()),
        Some(_) => Err(bad_shape()),
        None if v
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.contains("openalex.org/W")) =>
        {
            Ok(work_from_value(&v).into_iter().collect())
        }
        None => Err(bad_shape()),
    }
}

fn api_error(v: &Value, status: u16) -> Option<ServiceError> {
    let err = v.get("error")?;
    let code = match err {
        Value::String(s) => collapse_whitespace(s),
        other => shorten(&other.to_string(), 60),
    };
    let detail = str_field(v, "message")
        .map(|m| shorten(&m, 240))
        .unwrap_or_default();
    let hint = if status == 403 || status == 429 {
        "The daily allowance may be used up; configure an OpenAlex API key or try again tomorrow."
    } else {
        "Rephrase the query with plain keywords."
    };
    let sep = if detail.is_empty() {
        String::new()
    } else {
        format!(": {}", detail.trim_end_matches('.'))
    };
    Some(ServiceError::new(
        TOOL,
        ServiceErrorKind::Api { code: code.clone() },
        format!(
            "OpenAlex rejected the request ({}){}. {}",
            code.trim_end_matches('.'),
            sep,
            hint
        ),
    ))
}

fn status_error(status: u16, retry_after: Option<&str>) -> ServiceError {
    match status {
        429 => {
            let secs = text::parse_retry_after(retry_after);
            ServiceError::new(
                TOOL,
                ServiceErrorKind::RateLimited { retry_after_s: secs },
                format!(
                    "OpenAlex is rate-limiting requests (its daily allowance may be used up); {}. An OpenAlex API key raises the limit.",
                    text::wait_phrase(secs, "try again later")
                ),
            )
        }
        503 if text::parse_retry_after(retry_after).is_some() => {
            let secs = text::parse_retry_after(retry_after);
            ServiceError::new(
                TOOL,
                ServiceErrorKind::RateLimited { retry_after_s: secs },
                format!("OpenAlex is temporarily overloaded; {}.", text::wait_phrase(secs, "try again shortly")),
            )
        }
        403 => ServiceError::new(
            TOOL,
            ServiceErrorKind::Http { status },
            "OpenAlex refused the request (HTTP 403): the daily allowance may be used up or an API key is required; configure an OpenAlex API key or try again tomorrow.",
        ),
        _ => text::http_error(TOOL, SERVICE, status),
    }
}

/// The `Ok` observation when nothing matched.
pub fn no_results_observation(query: &str) -> String {
    format!(
        "{}\n\nOpenAlex has no arXiv-hosted works matching '{}'. Try fewer or more general keywords.",
        SOURCE_NOTE,
        shorten(&collapse_whitespace(query), 100)
    )
}


/// Observation: `SOURCE_NOTE`, a blank line, then one arXiv-style block per
/// work, all bounded by `max_chars`.
pub fn format_works(works: &[Work], max_chars: usize) -> String {
    let budget = max_chars.saturating_sub(SOURCE_NOTE.len() + 2);
    let share = (budget / works.len().max(1)).saturating_sub(250).max(150);
    let blocks: Vec<String> = works
        .iter()
        .map(|w| text::paper_block(&w.publication_date, &w.title, &text::format_authors(&w.authors), &w.abstract_text, &w.url(), share))
        .collect();
    bound(
        &format!("{}\n\n{}", SOURCE_NOTE, text::join_blocks(&blocks)),
        max_chars,
    )
}

/// Interpret an OpenAlex works response into the observation.
pub fn interpret(
    status: u16,
    retry_after: Option<&str>,
    body: &str,
    query: &str,
    max_chars: usize,
) -> Result<String, ServiceError> {
    if status == 429 || status == 503 {
        return Err(status_error(status, retry_after));
    }
    let parsed = parse_json(TOOL, SERVICE, body);
    if let Ok(v) = &parsed {
        if let Some(e) = api_error(v, status) {
            return Err(e);
        }
    }
    if !is_success(status) {
        return Err(status_error(status, retry_after));
    }
    parsed?;
    let works = parse_works(body)?;
    if works.is_empty() {
        return Ok(no_results_observation(query));
    }
    Ok(format_works(&works, max_chars))
}

#[cfg(test)]
mod tests;
