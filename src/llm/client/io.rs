//! The I/O half of `Provider`: one attempt (send through `net::Fetch`, refuse a redirect, read
//! the reply streamed or whole under the silence and size limits) and the retry loop around it
//! (`ChatModel::complete`). Written against the seam only, so it runs natively in `tests.rs`
//! with a scripted `Fetch` and a fake clock.

use super::*;
use crate::agent::time::{race, Either};
use crate::agent::{ChatModel, ChatResponse, LocalBoxFuture, Progress};
use crate::llm::anthropic::AnthropicStream;
use crate::llm::retry::{is_refusal_of_usage_option, is_rejection_of_stream, RetryPolicy};
use crate::net::sse::{SseDecoder, SseEvent};
use crate::llm::stream::{ChatStream, StreamStep};
use crate::net::{HttpRequest, Redirects, Streaming};

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
    async fn read_body(&self, opened: &mut dyn Streaming, limit: usize) -> Body {
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
        let sent = HttpRequest { method: "POST", url: &parts.url, headers: &parts.headers, body: Some(&parts.body), redirects: Redirects::Refuse };
        let opened = race(self.fetch.open(sent), self.clock.sleep(self.silence_ms())).await;
        let mut opened = match opened {
            Either::Left(Ok(opened)) => opened,
            Either::Left(Err(failed)) => return Err(Failure::Final(self.unreachable(&failed))),
            Either::Right(()) => return Err(Failure::Final(self.timeout_error(false))),
        };
        if opened.is_redirect() {
            // Where it points, asked without any header or body, so nothing secret leaves.
            let to = match race(self.fetch.redirect_target(&parts.url), self.clock.sleep(self.silence_ms())).await {
                Either::Left(to) => to,
                Either::Right(()) => None,
            };
            return Err(Failure::Final(self.redirect_error(to)));
        }
        let status = opened.status();
        if !(200..300).contains(&status) {
            let retry_after = opened.header("Retry-After");
            // The status says what happened; a body that stalls or never ends adds nothing.
            let body = match self.read_body(opened.as_mut(), ERROR_BODY_LIMIT).await {
                Body::Whole(b) | Body::TooLarge(b) | Body::Silent(b) | Body::Broken(b) => b,
            };
            return Err(Failure::Status { status, body, retry_after });
        }
        if stream {
            self.read_stream(opened, progress).await.map_err(Failure::Final)
        } else {
            let body = match self.read_body(opened.as_mut(), self.reply_limit()).await {
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

    async fn read_stream(&self, mut opened: Box<dyn Streaming>, progress: &dyn Fn(Progress<'_>)) -> Result<ChatResponse, LlmError> {
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
                        if stream && self.asks_usage() && self.config.preset.api() == Api::OpenAi && is_refusal_of_usage_option(status, &body) {
                            self.refuse_usage();
                            continue;
                        }
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
            result.map_err(|mut e| {
                crate::secrets::mask_field(&mut e.message, &self.secrets);
                e
            })
        })
    }

    fn name(&self) -> crate::agent::ModelName {
        crate::agent::ModelName { provider: self.config.preset.id().to_string(), model: self.config.model.clone() }
    }
}

#[cfg(test)]
mod tests;
