//! The four built-in tools as [`Tool`]s. Wikipedia, arXiv and web search take the model's
//! input, ask their service module for a URL, fetch through the `Fetch` seam (by the proxy
//! route where the service needs one) and turn the answer into an observation or a
//! [`ToolError`]; the calculator evaluates locally, asking the model first to translate prose.

use super::*;

impl From<ServiceError> for ToolError {
    fn from(e: ServiceError) -> Self {
        ToolError::new(e.message)
    }
}

pub(super) fn unreachable_error(service: &str, failure: &FetchFailed) -> ToolError {
    if failure.is_offline() {
        return ToolError::new(format!(
            "{service} needs the network, and this browser is offline. The calculator works offline; try {service} again once the connection is back."
        ));
    }
    ToolError::new(format!(
        "Could not reach {service} from the browser ({}). Check the network connection; if it persists, the service may be blocking browser requests (CORS).",
        failure.0
    ))
}

pub(super) fn common_timeout(c: &Common) -> Option<f64> {
    (c.timeout_s > 0.0).then_some(c.timeout_s * 1000.0)
}

pub struct Wikipedia {
    pub(super) settings: WikipediaSettings,
    pub(super) fetch: Rc<dyn Fetch>,
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
    pub(super) settings: ArxivSettings,
    pub(super) cors_proxy: String,
    pub(super) fetch: Rc<dyn Fetch>,
    pub(super) clock: Rc<dyn Clock>,
    /// arXiv asks for one request every three seconds, from all of a person's tabs together;
    /// we can at least space out our own.
    pub(super) last_request_ms: Cell<Option<f64>>,
    /// Set once the same-origin dev proxy turned out to be absent (a static deployment).
    pub(super) dev_proxy_missing: Cell<bool>,
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
            ToolError::new(format!(
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
            let get = |url: String| async move { self.polite_get(&url).await };
            match route_around_cors(&direct.url, &self.cors_proxy, DEV_PROXY_ARXIV, &self.dev_proxy_missing, get).await {
                Routed::Answer(resp) => Ok(arxiv::interpret(resp.status, resp.retry_after.as_deref(), &resp.body, &query, s.max_chars)?),
                Routed::ProxyFailed(e) => {
                    let why = format!("arXiv could not be reached through the CORS proxy ({}).", e.0);
                    self.openalex(&query, &why).await
                }
                Routed::NoRoute => self.openalex(&query, "arXiv blocks browser requests and no CORS proxy is set in Settings.").await,
            }
        })
    }
}

pub struct Calculator {
    pub(super) settings: Common,
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
    pub(super) settings: WebSearchSettings,
    pub(super) cors_proxy: String,
    pub(super) fetch: Rc<dyn Fetch>,
    pub(super) dev_proxy_missing: Cell<bool>,
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
        let get = |url: String| async move { self.fetch.get(&url, &[]).await };
        match route_around_cors(&direct.url, &self.cors_proxy, DEV_PROXY_DDG, &self.dev_proxy_missing, get).await {
            Routed::Answer(resp) => Ok(read(resp)?),
            Routed::ProxyFailed(e) => Err(unreachable_error("DuckDuckGo through the CORS proxy", &e)),
            Routed::NoRoute => Err(ToolError::new(
                "DuckDuckGo blocks browser requests: set a CORS proxy in Settings, or switch web search to a SearXNG instance.",
            )),
        }
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
