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
    pub extra_headers: String,
}

impl Default for Connection {
    fn default() -> Self {
        Connection { stream: true, timeout_s: 120.0, max_attempts: 3, extra_headers: String::new() }
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
        Provider { config, connection, clock, stream_rejected: Cell::new(false) }
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

    pub fn timeout_error(&self, received: bool) -> LlmError {
        let what = if received { "stopped sending" } else { "sent nothing" };
        LlmError::new(
            LlmErrorKind::Timeout,
            format!(
                "The model {what} for {:.0} s. A local server may still be reading a long prompt: raise \"Request timeout\" in Settings, lower \"History budget\", or try again.",
                self.connection.timeout_s
            ),
        )
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
    use crate::net::browser::{open, Opened};

    enum Failure {
        /// An HTTP error status: maybe retried, maybe a reason to stop streaming.
        Status { status: u16, body: String, retry_after: Option<String> },
        Final(LlmError),
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

        async fn attempt(&self, request: &ChatRequest, stream: bool, progress: &dyn Fn(Progress<'_>)) -> Result<ChatResponse, Failure> {
            let parts = self.http_parts(request, stream);
            let headers: Vec<(&str, String)> = parts.headers.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            let opened = match race(open("POST", &parts.url, &headers, Some(&parts.body)), self.clock.sleep(self.silence_ms())).await {
                Either::Left(Ok(opened)) => opened,
                Either::Left(Err(_)) => return Err(Failure::Final(self.network_error())),
                Either::Right(()) => return Err(Failure::Final(self.timeout_error(false))),
            };
            let status = opened.status();
            if !(200..300).contains(&status) {
                let retry_after = opened.retry_after();
                let body = opened.text().await.unwrap_or_default();
                return Err(Failure::Status { status, body, retry_after });
            }
            if stream {
                let mut reply = self.read_stream(opened, progress).await.map_err(Failure::Final)?;
                if let Some(usage) = reply.usage.as_mut().filter(|u| u.estimated) {
                    usage.prompt_tokens = estimate_prompt_tokens(request);
                }
                Ok(reply)
            } else {
                let body = match race(opened.text(), self.clock.sleep(self.silence_ms())).await {
                    Either::Left(Ok(body)) => body,
                    Either::Left(Err(_)) => return Err(Failure::Final(self.network_error())),
                    Either::Right(()) => return Err(Failure::Final(self.timeout_error(false))),
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
            let mut received = false;
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
                        received = true;
                        handle(decoder.push(&bytes), &mut reader)?;
                    }
                    Either::Left(Ok(None)) => break,
                    // Cut off mid-stream: keep what arrived; `finish` marks it incomplete.
                    Either::Left(Err(_)) => break,
                    Either::Right(()) if !received => return Err(self.timeout_error(false)),
                    Either::Right(()) => break,
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
                loop {
                    let stream = self.connection.stream && !self.stream_rejected.get();
                    match self.attempt(request, stream, progress).await {
                        Ok(reply) => return Ok(reply),
                        Err(Failure::Final(error)) => return Err(error),
                        Err(Failure::Status { status, body, retry_after }) => {
                            if stream && is_rejection_of_stream(status, &body) {
                                self.stream_rejected.set(true);
                                continue;
                            }
                            let Some(wait_ms) = policy.delay_for_at(attempt, status, retry_after.as_deref(), self.clock.unix_ms()) else {
                                return Err(self.error_for(status, &body));
                            };
                            let reason = format!("HTTP {status}");
                            progress(Progress::Retry { attempt, wait_ms, reason: &reason });
                            self.clock.sleep(wait_ms).await;
                            attempt += 1;
                        }
                    }
                }
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::time::SystemClock;
    use crate::agent::Message;

    fn provider(preset: Preset, key: &str) -> Provider {
        let config = ProviderConfig { preset, base_url: preset.base_url().into(), model: "m".into(), api_key: key.into() };
        Provider::new(config, Connection::default(), Rc::new(SystemClock::default()))
    }

    fn request() -> ChatRequest {
        ChatRequest { stop: vec!["Observation:".into()], ..ChatRequest::new(vec![Message::system("rules"), Message::user("hi")], 0.0, None) }
    }

    #[test]
    fn openai_presets_send_the_key_only_as_a_bearer_header() {
        let parts = provider(Preset::OpenAi, "sk-abc").http_parts(&request(), true);
        assert_eq!(parts.url, "https://api.openai.com/v1/chat/completions");
        assert!(parts.headers.contains(&("Authorization".into(), "Bearer sk-abc".into())));
        assert!(!parts.body.contains("sk-abc"));
        let body: serde_json::Value = serde_json::from_str(&parts.body).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert!(provider(Preset::Ollama, "").http_parts(&request(), false).headers.iter().all(|(k, _)| k != "Authorization"));
    }

    #[test]
    fn anthropic_maps_system_and_sends_the_browser_header() {
        let parts = provider(Preset::Anthropic, "sk-ant").http_parts(&request(), false);
        assert_eq!(parts.url, "https://api.anthropic.com/v1/messages");
        assert!(parts.headers.contains(&("anthropic-dangerous-direct-browser-access".into(), "true".into())));
        assert!(parts.headers.contains(&("x-api-key".into(), "sk-ant".into())));
        let body: serde_json::Value = serde_json::from_str(&parts.body).unwrap();
        assert_eq!(body["system"], "rules");
        assert_eq!(body["stop_sequences"], serde_json::json!(["Observation:"]));
        assert!(!parts.body.contains("sk-ant"));
    }

    #[test]
    fn extra_headers_are_added_and_malformed_lines_skipped() {
        let mut p = provider(Preset::OpenRouter, "k");
        p.connection.extra_headers = "HTTP-Referer: https://example.org\nnot a header\nX-Title:  Thoughtline \n: empty".into();
        let headers = p.http_parts(&request(), false).headers;
        assert!(headers.contains(&("HTTP-Referer".into(), "https://example.org".into())));
        assert!(headers.contains(&("X-Title".into(), "Thoughtline".into())));
        assert_eq!(headers.len(), 4);
    }

    #[test]
    fn network_errors_name_the_setting_to_fix() {
        assert!(provider(Preset::Ollama, "").network_error().message.contains("OLLAMA_ORIGINS"));
        assert!(provider(Preset::Anthropic, "k").network_error().message.contains("https://api.anthropic.com/v1/messages"));
        assert!(provider(Preset::LlamaCpp, "").timeout_error(false).message.contains("Request timeout"));
    }

    #[test]
    fn errors_follow_the_presets_api() {
        let e = provider(Preset::Anthropic, "k").error_for(529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
        assert_eq!(e.kind, LlmErrorKind::Server { status: 529 });
        let e = provider(Preset::OpenAi, "k").error_for(401, "{}");
        assert_eq!(e.kind, LlmErrorKind::Auth);
    }
}
