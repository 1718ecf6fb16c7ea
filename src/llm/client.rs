//! One `ChatModel` for every preset: builds the request for the preset's API, sends it with
//! `fetch`, reads the reply streamed (SSE) or whole, retries what is worth retrying, and turns
//! every failure into an `LlmError` that says what to do.
//!
//! Time limits follow what slow local servers need: the limit is on *silence* (no bytes for
//! `timeout_s`), not on the whole call, because a small machine may spend minutes evaluating a
//! long prompt and then stream steadily. A retry is announced through `Progress::Retry` (so the
//! trace shows it) and never resends a request that had started streaming.

use std::cell::Cell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::agent::{ChatRequest, Clock, LlmError, LlmErrorKind};
use crate::secrets::Secrets;

use super::presets::{Api, Preset, ProviderConfig};
use super::{anthropic, openai};

/// How to talk to the provider. Stored with the settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
}

/// Room for a long reply even in the verbose streaming formats (an OpenAI stream spends a
/// few hundred bytes per token): 8 MB is about 30,000 streamed tokens.
pub const DEFAULT_MAX_REPLY_KB: u32 = 8192;

impl Default for Connection {
    fn default() -> Self {
        Connection { stream: true, timeout_s: 120.0, max_attempts: 3, extra_headers: String::new(), max_reply_kb: DEFAULT_MAX_REPLY_KB }
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
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    clock: Rc<dyn Clock>,
    /// Set when the provider rejected `stream: true`; later calls of the run ask for whole replies.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    stream_rejected: Cell<bool>,
}

/// The parts of one HTTP request.
#[derive(Debug, PartialEq)]
pub struct HttpParts {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Provider {
    pub fn new(config: ProviderConfig, connection: Connection, clock: Rc<dyn Clock>) -> Self {
        let secrets = crate::secrets::of_provider(&config, &connection);
        Provider { config, connection, secrets, clock, stream_rejected: Cell::new(false) }
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
                HttpParts { url: openai::endpoint(&c.base_url), headers, body: openai::request_body(&c.model, request, stream, c.preset).to_string() }
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

/// About four characters per token, the usual rule of thumb for English text: shown (marked as
/// an estimate) when a server streams without reporting usage.
pub fn estimate_prompt_tokens(request: &ChatRequest) -> u32 {
    let chars: usize = request.messages.iter().map(|m| m.content.chars().count() + m.tool_calls.iter().map(|c| c.arguments.len()).sum::<usize>()).sum();
    chars.div_ceil(4).min(u32::MAX as usize) as u32
}

#[cfg(target_arch = "wasm32")]
mod io {
    use super::*;
    use crate::agent::time::{race, Either};
    use crate::agent::{ChatModel, ChatResponse, LocalBoxFuture, Progress};
    use crate::llm::anthropic::AnthropicStream;
    use crate::llm::retry::{is_rejection_of_stream, RetryPolicy};
    use crate::llm::sse::{SseDecoder, SseEvent};
    use crate::llm::stream::{ChatStream, StreamStep};
    use crate::net::browser::{open_without_redirects, redirect_target, Opened};

    /// How much of an error body is read: any provider's message fits many times over.
    const ERROR_BODY_LIMIT: usize = 64 * 1024;

    enum Failure {
        /// An HTTP error status: maybe retried, maybe a reason to stop streaming.
        Status { status: u16, body: String, retry_after: Option<String> },
        Final(LlmError),
    }

    /// How reading a whole body ended.
    enum Body {
        Whole(String),
        /// Passed the limit; what arrived up to it.
        TooLarge(String),
        /// Nothing arrived for the silence limit; what arrived before.
        Silent(String),
        /// The connection broke; what arrived before.
        Broken(String),
    }

    enum Reader {
        OpenAi(ChatStream),
        Anthropic(AnthropicStream),
    }

    impl Reader {
        fn on_event(&mut self, ev: &SseEvent) -> Result<StreamStep, LlmError> {
            match self {
                Reader::OpenAi(s) => s.on_event(ev),
                Reader::Anthropic(s) => s.on_event(ev),
            }
        }
        fn finish(self, saw_end: bool) -> ChatResponse {
            match self {
                Reader::OpenAi(s) => s.finish(saw_end),
                Reader::Anthropic(s) => s.finish(saw_end),
            }
        }
    }

    impl Provider {
        fn silence_ms(&self) -> f64 {
            self.connection.timeout_s.max(1.0) * 1000.0
        }

        fn reply_limit(&self) -> usize {
            self.connection.max_reply_kb.max(1) as usize * 1024
        }

        /// Reads a whole body, at most `limit` bytes, each chunk under the silence limit: a
        /// server that stalls or never ends cannot hang the run or fill the page.
        async fn read_body(&self, opened: &mut Opened, limit: usize) -> Body {
            let mut bytes = Vec::new();
            let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
            loop {
                match race(opened.chunk(), self.clock.sleep(self.silence_ms())).await {
                    Either::Left(Ok(Some(chunk))) => {
                        bytes.extend_from_slice(&chunk);
                        if bytes.len() > limit {
                            bytes.truncate(limit);
                            return Body::TooLarge(text(&bytes));
                        }
                    }
                    Either::Left(Ok(None)) => return Body::Whole(text(&bytes)),
                    Either::Left(Err(_)) => return Body::Broken(text(&bytes)),
                    Either::Right(()) => return Body::Silent(text(&bytes)),
                }
            }
        }

        async fn attempt(&self, request: &ChatRequest, stream: bool, progress: &dyn Fn(Progress<'_>)) -> Result<ChatResponse, Failure> {
            let parts = self.http_parts(request, stream);
            let headers: Vec<(&str, String)> = parts.headers.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            let opened = race(open_without_redirects("POST", &parts.url, &headers, Some(&parts.body)), self.clock.sleep(self.silence_ms())).await;
            let mut opened = match opened {
                Either::Left(Ok(opened)) => opened,
                Either::Left(Err(_)) => return Err(Failure::Final(self.network_error())),
                Either::Right(()) => return Err(Failure::Final(self.timeout_error(false))),
            };
            if opened.is_redirect() {
                // Where it points, asked without any header or body, so nothing secret leaves.
                let to = match race(redirect_target(&parts.url), self.clock.sleep(self.silence_ms())).await {
                    Either::Left(to) => to,
                    Either::Right(()) => None,
                };
                return Err(Failure::Final(self.redirect_error(to)));
            }
            let status = opened.status();
            if !(200..300).contains(&status) {
                let retry_after = opened.retry_after();
                // The status says what happened; a body that stalls or never ends adds nothing.
                let body = match self.read_body(&mut opened, ERROR_BODY_LIMIT).await {
                    Body::Whole(b) | Body::TooLarge(b) | Body::Silent(b) | Body::Broken(b) => b,
                };
                return Err(Failure::Status { status, body, retry_after });
            }
            if stream {
                let mut reply = self.read_stream(opened, progress).await.map_err(Failure::Final)?;
                if let Some(usage) = reply.usage.as_mut().filter(|u| u.estimated) {
                    usage.prompt_tokens = estimate_prompt_tokens(request);
                }
                Ok(reply)
            } else {
                let body = match self.read_body(&mut opened, self.reply_limit()).await {
                    Body::Whole(body) => body,
                    Body::TooLarge(_) => return Err(Failure::Final(self.too_large_error())),
                    Body::Silent(partial) => return Err(Failure::Final(self.timeout_error(!partial.is_empty()))),
                    Body::Broken(_) => return Err(Failure::Final(self.network_error())),
                };
                let reply = match self.config.preset.api() {
                    Api::OpenAi => openai::read_completion(&body),
                    Api::Anthropic => anthropic::read_message(&body),
                }
                .map_err(Failure::Final)?;
                progress(Progress::Text(&reply.text));
                Ok(reply)
            }
        }

        async fn read_stream(&self, mut opened: Opened, progress: &dyn Fn(Progress<'_>)) -> Result<ChatResponse, LlmError> {
            let mut decoder = SseDecoder::new();
            let mut reader = match self.config.preset.api() {
                Api::OpenAi => Reader::OpenAi(ChatStream::new()),
                Api::Anthropic => Reader::Anthropic(AnthropicStream::new()),
            };
            let mut saw_end = false;
            let mut received = 0usize;
            let limit = self.reply_limit();
            let mut handle = |events: Vec<SseEvent>, reader: &mut Reader| -> Result<(), LlmError> {
                for ev in events {
                    match reader.on_event(&ev)? {
                        StreamStep::Delta(text) if !text.is_empty() => progress(Progress::Text(&text)),
                        StreamStep::Reasoning(text) if !text.is_empty() => progress(Progress::Reasoning(&text)),
                        // Shown live only: the finished call comes from the reader.
                        StreamStep::ToolCall(text) if !text.is_empty() => progress(Progress::Text(&text)),
                        StreamStep::Done => saw_end = true,
                        _ => {}
                    }
                }
                Ok(())
            };
            loop {
                match race(opened.chunk(), self.clock.sleep(self.silence_ms())).await {
                    Either::Left(Ok(Some(bytes))) => {
                        received += bytes.len();
                        // Counted on what the server sends, so an endless stream of keep-alive
                        // comments or empty events is cut off too.
                        if received > limit {
                            return Err(self.too_large_error());
                        }
                        handle(decoder.push(&bytes), &mut reader)?;
                    }
                    Either::Left(Ok(None)) => break,
                    // Cut off mid-stream: keep what arrived; `finish` marks it incomplete.
                    Either::Left(Err(_)) => break,
                    // Silence, before or after some bytes: the reply cannot be trusted as
                    // complete, and a half-written "Final Answer" must not pass for an answer.
                    Either::Right(()) => return Err(self.timeout_error(received > 0)),
                }
            }
            handle(decoder.finish(), &mut reader)?;
            Ok(reader.finish(saw_end))
        }
    }

    impl ChatModel for Provider {
        fn complete<'a>(&'a self, request: &'a ChatRequest, progress: &'a dyn Fn(Progress<'_>)) -> LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
            Box::pin(async move {
                let policy = RetryPolicy { max_attempts: self.connection.max_attempts.max(1), ..RetryPolicy::default() };
                let mut attempt = 1;
                let result = loop {
                    let stream = self.connection.stream && !self.stream_rejected.get();
                    match self.attempt(request, stream, progress).await {
                        Ok(reply) => break Ok(reply),
                        Err(Failure::Final(error)) => break Err(error),
                        Err(Failure::Status { status, body, retry_after }) => {
                            if stream && is_rejection_of_stream(status, &body) {
                                self.stream_rejected.set(true);
                                continue;
                            }
                            let Some(wait_ms) = policy.delay_for_at(attempt, status, retry_after.as_deref(), self.clock.unix_ms()) else {
                                break Err(self.error_for(status, &body));
                            };
                            let reason = format!("HTTP {status}");
                            progress(Progress::Retry { attempt, wait_ms, reason: &reason });
                            self.clock.sleep(wait_ms).await;
                            attempt += 1;
                        }
                    }
                };
                // Whatever the server echoed (a key on a 401, say) stops here.
                result.map_err(|e| crate::secrets::mask_error(e, &self.secrets))
            })
        }
    }
}

#[cfg(test)]
mod tests;
