//! The agent's tools: Wikipedia, arXiv (with an OpenAlex fallback), a calculator and web
//! search. Each service module (`wikipedia.rs`, `arxiv.rs`, …) is pure: it builds request URLs
//! and turns response bodies into observations. This file adds the I/O, through the `Fetch`
//! seam, so the same code runs against the browser's `fetch` and against fixtures in tests.
//!
//! Browsers enforce CORS: arXiv and DuckDuckGo send no CORS header, so a page cannot read
//! their answers directly. Those requests go, in order, through the CORS proxy set in Settings,
//! then the same-origin proxy `trunk serve` provides in development (`proxy/…`, see Trunk.toml),
//! and for arXiv finally to OpenAlex, which allows browser requests and indexes arXiv.

pub mod arxiv;
pub mod calculator;
pub mod mcp;
pub mod openalex;
pub mod text;
pub mod websearch;
pub mod wikipedia;

use std::cell::Cell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::tool::input_as_text;
use crate::agent::{ChatRequest, Clock, LocalBoxFuture, Message, Tool, ToolContext, ToolError};
use crate::net::{Fetch, FetchFailed, HttpResponse};

use text::{ServiceError, ServiceErrorKind};

/// What every tool has: on/off, "return direct", and its own time limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Common {
    pub enabled: bool,
    /// The tool's observation becomes the final answer, without another model call.
    pub return_direct: bool,
    pub timeout_s: f64,
}

impl Default for Common {
    fn default() -> Self {
        Common { enabled: true, return_direct: false, timeout_s: 15.0 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WikipediaSettings {
    pub common: Common,
    /// Language edition: "en", "de", "zh", …
    pub lang: String,
    /// Articles whose lead section is returned.
    pub results: u32,
    pub max_chars: usize,
    /// Overrides `https://{lang}.wikipedia.org` (a mirror, or the test server).
    pub base_url: String,
}

impl Default for WikipediaSettings {
    fn default() -> Self {
        WikipediaSettings { common: Common::default(), lang: "en".into(), results: wikipedia::DEFAULT_LIMIT, max_chars: wikipedia::DEFAULT_MAX_CHARS, base_url: String::new() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ArxivSettings {
    pub common: Common,
    pub max_results: u32,
    pub max_chars: usize,
    /// A base URL that answers browser requests itself (a mirror, or the test server). Empty:
    /// arXiv's own API through the CORS proxy or the dev proxy, else OpenAlex.
    pub base_url: String,
    pub openalex_url: String,
    /// OpenAlex asks for a free key since 2026; without one a small daily allowance applies.
    pub openalex_key: String,
}

impl Default for ArxivSettings {
    fn default() -> Self {
        ArxivSettings {
            common: Common::default(),
            max_results: arxiv::DEFAULT_MAX_RESULTS,
            max_chars: arxiv::DEFAULT_MAX_CHARS,
            base_url: String::new(),
            openalex_url: "https://api.openalex.org".into(),
            openalex_key: String::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SearchBackend {
    #[default]
    DuckDuckGo,
    Searx,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WebSearchSettings {
    pub common: Common,
    pub backend: SearchBackend,
    /// A SearXNG instance with JSON output enabled, e.g. `https://searx.example.org`.
    pub searx_url: String,
    /// Overrides DuckDuckGo's API address (a test server that sends CORS headers).
    pub ddg_url: String,
    pub max_chars: usize,
}

impl Default for WebSearchSettings {
    fn default() -> Self {
        WebSearchSettings { common: Common::default(), backend: SearchBackend::DuckDuckGo, searx_url: String::new(), ddg_url: String::new(), max_chars: websearch::DEFAULT_MAX_CHARS }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolSettings {
    pub wikipedia: WikipediaSettings,
    pub arxiv: ArxivSettings,
    pub calculator: Common,
    pub web_search: WebSearchSettings,
    /// A CORS proxy for services that do not allow browser requests (arXiv, DuckDuckGo).
    /// `{url}` is replaced by the percent-encoded target URL; without it the encoded URL is
    /// appended. Example: `https://proxy.example/?url={url}`.
    pub cors_proxy: String,
    /// MCP servers and the tools they lend (their secrets are not serialised here).
    pub mcp: mcp::McpSettings,
}

const ARXIV_API: &str = "https://export.arxiv.org";
const DDG_API: &str = "https://api.duckduckgo.com";
/// Same-origin paths that `trunk serve` forwards (the [[proxy]] entries in Trunk.toml).
/// Relative, so they resolve against the page wherever it is served.
const DEV_PROXY_ARXIV: (&str, &str) = ("https://export.arxiv.org/api/", "proxy/arxiv/");
const DEV_PROXY_DDG: (&str, &str) = ("https://api.duckduckgo.com/", "proxy/ddg/");

/// The dev-proxy address of a request meant for `api_root`.
fn via_dev_proxy(url: &str, (api_root, proxy_path): (&str, &str)) -> String {
    format!("{proxy_path}{}", url.strip_prefix(api_root).unwrap_or(url))
}

/// The enabled tools, ready for a run. The list (and so the prompt) holds only enabled tools.
pub fn build_tools(settings: &ToolSettings, fetch: Rc<dyn Fetch>, clock: Rc<dyn Clock>) -> Vec<Box<dyn Tool>> {
    let mut tools: Vec<Box<dyn Tool>> = Vec::new();
    if settings.wikipedia.common.enabled {
        tools.push(Box::new(Wikipedia { settings: settings.wikipedia.clone(), fetch: fetch.clone() }));
    }
    if settings.arxiv.common.enabled {
        tools.push(Box::new(Arxiv {
            settings: settings.arxiv.clone(),
            cors_proxy: settings.cors_proxy.clone(),
            fetch: fetch.clone(),
            clock,
            last_request_ms: Cell::new(None),
            dev_proxy_missing: Cell::new(false),
        }));
    }
    if settings.calculator.enabled {
        tools.push(Box::new(Calculator { settings: settings.calculator.clone() }));
    }
    if settings.web_search.common.enabled {
        tools.push(Box::new(WebSearch { settings: settings.web_search.clone(), cors_proxy: settings.cors_proxy.clone(), fetch, dev_proxy_missing: Cell::new(false) }));
    }
    tools
}

/// Fills a proxy template with the encoded target URL.
pub fn proxied(template: &str, url: &str) -> String {
    let encoded = text::encode_component(url);
    if template.contains("{url}") {
        template.replace("{url}", &encoded)
    } else {
        format!("{template}{encoded}")
    }
}

impl From<ServiceError> for ToolError {
    fn from(e: ServiceError) -> Self {
        let transient = matches!(e.kind, ServiceErrorKind::RateLimited { .. } | ServiceErrorKind::Http { status: 500..=599 });
        ToolError { message: e.message, transient }
    }
}

fn unreachable_error(service: &str, failure: &FetchFailed) -> ToolError {
    ToolError::transient(format!(
        "Could not reach {service} from the browser ({}). Check the network connection; if it persists, the service may be blocking browser requests (CORS).",
        failure.0
    ))
}

/// Whether a same-origin dev-proxy answer means "there is no proxy here" (a static host's 404
/// page) rather than an answer from the service.
fn no_dev_proxy(resp: &HttpResponse) -> bool {
    resp.status == 404 || (resp.status == 200 && text::looks_like_html(&resp.body) && !resp.body.contains("<feed"))
}

fn common_timeout(c: &Common) -> Option<f64> {
    (c.timeout_s > 0.0).then_some(c.timeout_s * 1000.0)
}

pub struct Wikipedia {
    settings: WikipediaSettings,
    fetch: Rc<dyn Fetch>,
}

impl Tool for Wikipedia {
    fn name(&self) -> &str {
        "wikipedia"
    }
    fn description(&self) -> &str {
        "Looks up encyclopedic facts about people, places, events, organisations and concepts. Input: a short search query, e.g. \"Albert Einstein\". Returns the opening paragraphs of the best matching Wikipedia articles."
    }
    fn return_direct(&self) -> bool {
        self.settings.common.return_direct
    }
    fn timeout_ms(&self) -> Option<f64> {
        common_timeout(&self.settings.common)
    }
    fn call<'a>(&'a self, input: &'a Value, _cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let s = &self.settings;
            let query = input_as_text(input);
            let base = if s.base_url.trim().is_empty() { wikipedia::lang_base(&s.lang)? } else { s.base_url.trim().to_string() };
            let search = wikipedia::search_url(&base, &query, s.results)?;
            let resp = self.fetch.get(&search.url, &search.headers).await.map_err(|e| unreachable_error("Wikipedia", &e))?;
            let results = wikipedia::parse_search(resp.status, resp.retry_after.as_deref(), &resp.body)?;
            let titles = results.titles();
            if titles.is_empty() {
                return Ok(wikipedia::no_results_observation(&query, results.suggestion.as_deref()));
            }
            let extracts = wikipedia::extracts_url(&base, &titles)?;
            let resp = self.fetch.get(&extracts.url, &extracts.headers).await.map_err(|e| unreachable_error("Wikipedia", &e))?;
            Ok(wikipedia::interpret_extracts(resp.status, resp.retry_after.as_deref(), &resp.body, &titles, &s.lang, s.max_chars)?)
        })
    }
}

pub struct Arxiv {
    settings: ArxivSettings,
    cors_proxy: String,
    fetch: Rc<dyn Fetch>,
    clock: Rc<dyn Clock>,
    /// arXiv asks for one request every three seconds, from all of a person's tabs together;
    /// we can at least space out our own.
    last_request_ms: Cell<Option<f64>>,
    /// Set once the same-origin dev proxy turned out to be absent (a static deployment).
    dev_proxy_missing: Cell<bool>,
}

/// arXiv's terms: no more than one request every three seconds.
pub const ARXIV_SPACING_MS: f64 = 3000.0;

impl Arxiv {
    async fn polite_get(&self, url: &str) -> Result<HttpResponse, FetchFailed> {
        if let Some(last) = self.last_request_ms.get() {
            let wait = last + ARXIV_SPACING_MS - self.clock.now_ms();
            if wait > 0.0 {
                self.clock.sleep(wait).await;
            }
        }
        self.last_request_ms.set(Some(self.clock.now_ms()));
        self.fetch.get(url, &[]).await
    }

    async fn openalex(&self, query: &str, why: &str) -> Result<String, ToolError> {
        let s = &self.settings;
        let key = Some(s.openalex_key.trim()).filter(|k| !k.is_empty());
        let req = openalex::search_url(&s.openalex_url, query, s.max_results, key)?;
        let resp = self.fetch.get(&req.url, &req.headers).await.map_err(|e| {
            ToolError::transient(format!(
                "{why} The fallback, OpenAlex, could not be reached either ({}). Set a CORS proxy in Settings to reach arXiv.",
                e.0
            ))
        })?;
        Ok(openalex::interpret(resp.status, resp.retry_after.as_deref(), &resp.body, query, s.max_chars)?)
    }
}

impl Tool for Arxiv {
    fn name(&self) -> &str {
        "arxiv"
    }
    fn description(&self) -> &str {
        "Searches arXiv for scientific papers (physics, mathematics, computer science, AI, statistics, …). Input: search words, e.g. \"attention layers neural networks\", optionally with arXiv prefixes like ti: or au:. Returns title, authors, date, abstract and link of the top matches."
    }
    fn return_direct(&self) -> bool {
        self.settings.common.return_direct
    }
    fn timeout_ms(&self) -> Option<f64> {
        // Spacing requests and the OpenAlex fallback take time of their own.
        common_timeout(&self.settings.common).map(|t| t + ARXIV_SPACING_MS)
    }
    fn call<'a>(&'a self, input: &'a Value, _cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let s = &self.settings;
            let query = input_as_text(input);
            if !s.base_url.trim().is_empty() {
                let req = arxiv::query_url(s.base_url.trim(), &query, s.max_results)?;
                let resp = self.polite_get(&req.url).await.map_err(|e| unreachable_error("arXiv", &e))?;
                return Ok(arxiv::interpret(resp.status, resp.retry_after.as_deref(), &resp.body, &query, s.max_chars)?);
            }
            let direct = arxiv::query_url(ARXIV_API, &query, s.max_results)?;
            if !self.cors_proxy.trim().is_empty() {
                let url = proxied(self.cors_proxy.trim(), &direct.url);
                match self.polite_get(&url).await {
                    Ok(resp) => return Ok(arxiv::interpret(resp.status, resp.retry_after.as_deref(), &resp.body, &query, s.max_chars)?),
                    Err(e) => {
                        let why = format!("arXiv could not be reached through the CORS proxy ({}).", e.0);
                        return self.openalex(&query, &why).await;
                    }
                }
            }
            if !self.dev_proxy_missing.get() {
                match self.polite_get(&via_dev_proxy(&direct.url, DEV_PROXY_ARXIV)).await {
                    Ok(resp) if !no_dev_proxy(&resp) => {
                        return Ok(arxiv::interpret(resp.status, resp.retry_after.as_deref(), &resp.body, &query, s.max_chars)?)
                    }
                    _ => self.dev_proxy_missing.set(true),
                }
            }
            self.openalex(&query, "arXiv blocks browser requests and no CORS proxy is set in Settings.").await
        })
    }
}

pub struct Calculator {
    settings: Common,
}

impl Tool for Calculator {
    fn name(&self) -> &str {
        "calculator"
    }
    fn description(&self) -> &str {
        "Evaluates arithmetic exactly. Input: one expression such as \"(3 + 4) * 2^10\", \"sqrt(2) / 3\" or \"25% of 300\" (functions: sqrt, ln, log, sin, cos, tan, exp, abs, round, min, max; constants: pi, e). Use it for any calculation instead of doing it in your head."
    }
    fn return_direct(&self) -> bool {
        self.settings.return_direct
    }
    fn timeout_ms(&self) -> Option<f64> {
        common_timeout(&self.settings)
    }
    fn call<'a>(&'a self, input: &'a Value, cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let question = input_as_text(input);
            if calculator::looks_like_expression(&question) {
                return Ok(calculator::observe(&question)?);
            }
            // Prose: one model call turns it into an expression (traced by the context).
            let request = ChatRequest::new(vec![Message::user(calculator::translation_request(&question))], 0.0, Some(200));
            let reply = cx.ask_model(request).await.map_err(|e| ToolError::new(format!("Could not turn the question into an expression: {}", e.message)))?;
            let expression = calculator::extract_expression(&reply.text).ok_or_else(|| {
                ToolError::new(format!(
                    "\"{question}\" is not an arithmetic expression, and it could not be turned into one. Give the calculator a single expression such as \"25/100*300\"."
                ))
            })?;
            Ok(calculator::observe(&expression)?)
        })
    }
}

pub struct WebSearch {
    settings: WebSearchSettings,
    cors_proxy: String,
    fetch: Rc<dyn Fetch>,
    dev_proxy_missing: Cell<bool>,
}

impl WebSearch {
    async fn duckduckgo(&self, query: &str) -> Result<String, ToolError> {
        let s = &self.settings;
        let read = |resp: HttpResponse| websearch::interpret_ddg(resp.status, resp.retry_after.as_deref(), &resp.body, query, s.max_chars);
        if !s.ddg_url.trim().is_empty() {
            let req = websearch::ddg_url(s.ddg_url.trim(), query)?;
            let resp = self.fetch.get(&req.url, &req.headers).await.map_err(|e| unreachable_error("DuckDuckGo", &e))?;
            return Ok(read(resp)?);
        }
        let direct = websearch::ddg_url(DDG_API, query)?;
        if !self.cors_proxy.trim().is_empty() {
            let url = proxied(self.cors_proxy.trim(), &direct.url);
            let resp = self.fetch.get(&url, &[]).await.map_err(|e| unreachable_error("DuckDuckGo through the CORS proxy", &e))?;
            return Ok(read(resp)?);
        }
        if !self.dev_proxy_missing.get() {
            match self.fetch.get(&via_dev_proxy(&direct.url, DEV_PROXY_DDG), &[]).await {
                Ok(resp) if !no_dev_proxy(&resp) => return Ok(read(resp)?),
                _ => self.dev_proxy_missing.set(true),
            }
        }
        Err(ToolError::new(
            "DuckDuckGo blocks browser requests: set a CORS proxy in Settings, or switch web search to a SearXNG instance.",
        ))
    }

    async fn searx(&self, query: &str) -> Result<String, ToolError> {
        let s = &self.settings;
        if s.searx_url.trim().is_empty() {
            return Err(ToolError::new("Web search is set to SearXNG but no instance URL is set: add one in Settings."));
        }
        let req = websearch::searx_url(s.searx_url.trim(), query)?;
        let resp = match self.fetch.get(&req.url, &req.headers).await {
            Ok(resp) => resp,
            Err(e) if self.cors_proxy.trim().is_empty() => return Err(unreachable_error("the SearXNG instance", &e)),
            Err(_) => {
                let url = proxied(self.cors_proxy.trim(), &req.url);
                self.fetch.get(&url, &[]).await.map_err(|e| unreachable_error("the SearXNG instance", &e))?
            }
        };
        Ok(websearch::interpret_searx(resp.status, resp.retry_after.as_deref(), &resp.body, query, s.max_chars)?)
    }
}

impl Tool for WebSearch {
    fn name(&self) -> &str {
        "web_search"
    }
    fn description(&self) -> &str {
        "Searches the web for quick facts, definitions and current topics. Input: a search query. Returns short answers, summaries and related links."
    }
    fn return_direct(&self) -> bool {
        self.settings.common.return_direct
    }
    fn timeout_ms(&self) -> Option<f64> {
        common_timeout(&self.settings.common)
    }
    fn call<'a>(&'a self, input: &'a Value, _cx: &'a ToolContext<'a>) -> LocalBoxFuture<'a, Result<String, ToolError>> {
        Box::pin(async move {
            let query = input_as_text(input);
            match self.settings.backend {
                SearchBackend::DuckDuckGo => self.duckduckgo(&query).await,
                SearchBackend::Searx => self.searx(&query).await,
            }
        })
    }
}

#[cfg(test)]
mod tests;
