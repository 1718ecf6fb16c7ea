//! One `ChatModel` for every preset: builds the request for the preset's API, sends it through
//! `net::Fetch` (`io.rs`), reads the reply streamed (SSE) or whole, retries what is worth
//! retrying, and turns every failure into an `LlmError` that says what to do.
//!
//! Time limits follow what slow local servers need: the limit is on *silence* (no bytes for
//! `timeout_s`), not on the whole call, because a small machine may spend minutes evaluating a
//! long prompt and then stream steadily. A retry is announced through `Progress::Retry` (so the
//! trace shows it) and never resends a request that had started streaming.

use std::cell::Cell;
use std::rc::Rc;

use serde::Serialize;

use crate::agent::{ChatRequest, Clock, LlmError, LlmErrorKind};
use crate::net::Fetch;
use crate::secrets::Secrets;

use super::presets::{Api, Preset, ProviderConfig};
use super::{anthropic, openai};

/// How to talk to the provider. Stored with the settings; read by hand (`storage/read.rs`): a
/// missing field takes its value from `Default` below.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Connection {
    /// Stream replies token by token (falls back to whole replies when the provider refuses).
    pub stream: bool,
    /// Give up when the provider sends nothing for this many seconds.
    pub timeout_s: f64,
    /// Tries per call for rate limits and server errors, the first included.
    pub max_attempts: u32,
    /// Extra request headers, one `Name: value` per line (e.g. OpenRouter's `HTTP-Referer`).
    /// Values of headers that are not known to be harmless are secrets (`secrets.rs`).
    pub extra_headers: String,
    /// A reply (streamed or whole, as the server sends it) larger than this is cut off and the
    /// call fails with a note saying so: a server that never stops must not fill the page.
    pub max_reply_kb: u32,
    /// The context size, in tokens, the model in the page is loaded with (prompt and reply).
    pub context_tokens: u32,
}

/// Room for the agent's system prompt, a few steps and a reply, within what a small model's
/// memory allows in a browser tab.
pub const DEFAULT_CONTEXT_TOKENS: u32 = 4096;

/// Room for a long reply even in the verbose streaming formats (an OpenAI stream spends a
/// few hundred bytes per token): 8 MB is about 30,000 streamed tokens.
pub const DEFAULT_MAX_REPLY_KB: u32 = 8192;

impl Default for Connection {
    fn default() -> Self {
        Connection { stream: true, timeout_s: 120.0, max_attempts: 3, extra_headers: String::new(), max_reply_kb: DEFAULT_MAX_REPLY_KB, context_tokens: DEFAULT_CONTEXT_TOKENS }
    }
}

impl Connection {
    /// The extra headers as pairs; lines without a colon or with an empty name are skipped.
    pub fn header_pairs(&self) -> Vec<(String, String)> {
        self.extra_headers
            .lines()
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_string(), value.trim().to_string()))
            .filter(|(name, _)| !name.is_empty() && !name.contains(' '))
            .collect()
    }
}

pub struct Provider {
    pub config: ProviderConfig,
    pub connection: Connection,
    /// What this provider sends that is secret (its key, secret header values): masked out of
    /// every error it returns.
    secrets: Secrets,
    fetch: Rc<dyn Fetch>,
    clock: Rc<dyn Clock>,
    /// Set when the provider rejected `stream: true`; later calls of the run ask for whole replies.
    stream_rejected: Cell<bool>,
    /// Set when the provider rejected `stream_options` (the request for token counts at the
    /// end of a stream); remembered for its address in `refusals`.
    usage_refused: Cell<bool>,
    refusals: UsageRefusals,
}

/// The chat endpoints that refused `stream_options`: asked again without it, and not asked
/// with it again by any provider that shares this list (the page keeps one while it is open,
/// `ui::services::run`). Cloning shares the list.
#[derive(Clone, Default)]
pub struct UsageRefusals(Rc<std::cell::RefCell<Vec<String>>>);

impl UsageRefusals {
    fn refused(&self, url: &str) -> bool {
        self.0.borrow().iter().any(|u| u == url)
    }

    fn add(&self, url: String) {
        let mut list = self.0.borrow_mut();
        if !list.contains(&url) {
            list.push(url);
        }
    }
}

/// The parts of one HTTP request.
#[derive(Debug, PartialEq)]
pub struct HttpParts {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// The secrets a provider itself sends: its key and secret header values.
fn provider_secrets(config: &ProviderConfig, connection: &Connection) -> Secrets {
    let mut values = crate::secrets::secret_header_values(&connection.extra_headers);
    values.push(config.api_key.clone());
    Secrets::new(values)
}

impl Provider {
    pub fn new(config: ProviderConfig, connection: Connection, fetch: Rc<dyn Fetch>, clock: Rc<dyn Clock>) -> Self {
        let secrets = provider_secrets(&config, &connection);
        Provider { config, connection, secrets, fetch, clock, stream_rejected: Cell::new(false), usage_refused: Cell::new(false), refusals: UsageRefusals::default() }
    }

    /// Shares `refusals` with the providers made before and after: an endpoint one of them saw
    /// refuse the usage field is not asked with it again.
    pub fn remembering(mut self, refusals: &UsageRefusals) -> Self {
        self.refusals = refusals.clone();
        self.usage_refused.set(self.config.preset.api() == Api::OpenAi && self.refusals.refused(&openai::endpoint(&self.config.base_url)));
        self
    }

    /// The provider refused the field that asks for token counts: ask without it from now on,
    /// in this run and the next ones to the same address.
    pub(crate) fn refuse_usage(&self) {
        self.usage_refused.set(true);
        self.refusals.add(openai::endpoint(&self.config.base_url));
    }

    /// Whether a streamed request asks for token counts (`stream_options.include_usage`).
    pub fn asks_usage(&self) -> bool {
        !self.usage_refused.get()
    }

    /// The same provider, also masking `more` (every secret the settings hold) out of its errors.
    pub fn masking(mut self, more: &Secrets) -> Self {
        self.secrets = self.secrets.with(more);
        self
    }

    /// The request for `request`; the key goes only into the auth header for the base URL.
    pub fn http_parts(&self, request: &ChatRequest, stream: bool) -> HttpParts {
        let c = &self.config;
        let mut parts = match c.preset.api() {
            Api::OpenAi => {
                let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
                if !c.api_key.is_empty() {
                    headers.push(("Authorization".to_string(), format!("Bearer {}", c.api_key)));
                }
                let mut body = openai::request_body(&c.model, request, stream, c.preset);
                if !self.asks_usage() {
                    if let Some(fields) = body.as_object_mut() {
                        fields.remove("stream_options");
                    }
                }
                HttpParts { url: openai::endpoint(&c.base_url), headers, body: body.to_string() }
            }
            Api::Anthropic => HttpParts {
                url: anthropic::endpoint(&c.base_url),
                headers: anthropic::headers(&c.api_key).into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                body: anthropic::request_body(&c.model, request, stream).to_string(),
            },
        };
        parts.headers.extend(self.connection.header_pairs());
        parts
    }

    pub fn error_for(&self, status: u16, body: &str) -> LlmError {
        match self.config.preset.api() {
            Api::OpenAi => openai::read_error(status, body, self.config.preset),
            Api::Anthropic => anthropic::read_error(status, body),
        }
    }

    /// The message for a fetch that failed before any response: in a browser this is almost
    /// always CORS or a server that is not running.
    pub fn network_error(&self) -> LlmError {
        let url = self.http_parts(&ChatRequest::new(vec![], 0.0, None), false).url;
        let hint = match self.config.preset {
            Preset::Ollama => " Ollama only answers pages it trusts: start it with OLLAMA_ORIGINS set to this page's origin (e.g. OLLAMA_ORIGINS=\"*\").",
            Preset::LlamaCpp | Preset::LmStudio | Preset::Vllm => " Check that the server is running and allows browser requests (CORS).",
            _ => " The provider must allow requests from a browser page (CORS); if it does not, use another provider or a local server.",
        };
        LlmError::new(LlmErrorKind::Network, format!("Could not reach {url} from the browser.{hint} The base URL is in Settings."))
    }

    /// The message for a request that got no response: offline said as such, else [`Self::network_error`].
    pub fn unreachable(&self, failed: &crate::net::FetchFailed) -> LlmError {
        if failed.is_offline() {
            let url = self.http_parts(&ChatRequest::new(vec![], 0.0, None), false).url;
            return LlmError::new(
                LlmErrorKind::Network,
                format!("This browser is offline, so {url} cannot be reached. The model in the page answers offline once it has been loaded and kept."),
            );
        }
        self.network_error()
    }

    pub fn too_large_error(&self) -> LlmError {
        let limit_kb = self.connection.max_reply_kb;
        LlmError::new(
            LlmErrorKind::TooLarge { limit_kb },
            format!(
                "The model's reply passed {limit_kb} KB, the limit set in Settings (\"Largest model reply\"), so it was cut off there and not used. A model that repeats itself endlessly ends like this; if the reply is genuinely this long, raise the limit."
            ),
        )
    }

    /// The provider answered with a redirect. It is not followed: a browser keeps custom
    /// headers (`x-api-key`, extra headers) on a redirect, so the key would go wherever it points.
    pub fn redirect_error(&self, to: Option<String>) -> LlmError {
        let from = self.http_parts(&ChatRequest::new(vec![], 0.0, None), false).url;
        let target = match &to {
            Some(url) => format!("to {url}"),
            None => "elsewhere (the browser does not reveal where)".to_string(),
        };
        LlmError::new(
            LlmErrorKind::Redirected { to: to.clone() },
            format!(
                "{from} answered with a redirect {target}. Thoughtline does not follow redirects with your key attached, so nothing was sent there. If that address is the provider's, put it in Settings as the base URL."
            ),
        )
    }

    /// `received`: the silence came after part of the reply, which is then not used (a cut
    /// "Final Answer" must not pass for the answer).
    pub fn timeout_error(&self, received: bool) -> LlmError {
        let seconds = self.connection.timeout_s.max(1.0);
        let message = if received {
            format!("The model stopped sending for {seconds:.0} s in the middle of its reply, so the partial reply was not used. Try again, or raise \"Request timeout\" in Settings if the server pauses that long.")
        } else {
            format!("The model sent nothing for {seconds:.0} s. A local server may still be reading a long prompt: raise \"Request timeout\" in Settings, lower \"History budget\", or try again.")
        };
        LlmError::new(LlmErrorKind::Timeout, message)
    }
}

mod io;

#[cfg(test)]
mod tests;
