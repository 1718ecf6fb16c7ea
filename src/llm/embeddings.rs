//! Embeddings from the model provider in Settings: an OpenAI-compatible `/embeddings` call
//! (Ollama, LM Studio, llama.cpp, vLLM, OpenAI), for meaning search over the person's
//! documents. The key goes only to the provider's own address, as for chat; a redirect is not
//! followed; the answer is bounded and read under the silence limit; every error names the
//! address and never the key.

use std::rc::Rc;

use crate::agent::time::{race, Either};
use crate::agent::Clock;
use crate::documents::meaning;
use crate::net::{Fetch, HttpRequest, Redirects};
use crate::secrets::{mask, Secrets};

use super::client::Connection;
use super::presets::{Api, ProviderConfig};

/// A batch of this many passages per call: small enough for a slow local server to answer
/// before its silence limit, large enough not to pay a round trip per passage.
pub const BATCH: usize = 16;

/// The largest answer read: a batch of large vectors as JSON text fits many times over.
const ANSWER_LIMIT: usize = 32 * 1024 * 1024;

pub struct Embedder {
    base_url: String,
    /// The embedding model asked for.
    pub model: String,
    headers: Vec<(String, String)>,
    secrets: Secrets,
    timeout_ms: f64,
    fetch: Rc<dyn Fetch>,
    clock: Rc<dyn Clock>,
}

/// Where a provider's embeddings are asked for.
pub fn endpoint(base_url: &str) -> String {
    format!("{}/embeddings", base_url.trim_end_matches('/'))
}

/// Whether `url` is on this machine (loopback), so passages sent there do not leave it.
pub fn on_this_machine(url: &str) -> bool {
    let Some(origin) = crate::net::origin(url) else { return false };
    let host = origin.split("://").nth(1).unwrap_or_default();
    let host = host.rsplit_once(':').filter(|(h, port)| !h.is_empty() && port.chars().all(|c| c.is_ascii_digit())).map_or(host, |(h, _)| h);
    host == "localhost" || host.ends_with(".localhost") || host == "[::1]" || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

impl Embedder {
    /// `None` for a provider with no OpenAI-compatible `/embeddings` (Anthropic, the model in
    /// the page).
    pub fn new(config: &ProviderConfig, connection: &Connection, model: &str, fetch: Rc<dyn Fetch>, clock: Rc<dyn Clock>) -> Option<Embedder> {
        if config.preset.api() != Api::OpenAi || config.preset.in_page() || model.trim().is_empty() {
            return None;
        }
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !config.api_key.is_empty() {
            headers.push(("Authorization".to_string(), format!("Bearer {}", config.api_key)));
        }
        headers.extend(connection.header_pairs());
        let mut values = crate::secrets::secret_header_values(&connection.extra_headers);
        values.push(config.api_key.clone());
        Some(Embedder {
            base_url: config.base_url.clone(),
            model: model.trim().to_string(),
            headers,
            secrets: Secrets::new(values),
            timeout_ms: connection.timeout_s.max(1.0) * 1000.0,
            fetch,
            clock,
        })
    }

    pub fn url(&self) -> String {
        endpoint(&self.base_url)
    }

    /// One vector per text, in order.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let url = self.url();
        let body = meaning::request_body(&self.model, texts);
        let request = HttpRequest { method: "POST", url: &url, headers: &self.headers, body: Some(&body), redirects: Redirects::Refuse };
        let silent = || format!("{url} sent nothing for {:.0} s: a local server may still be busy. Try again, or raise \"Request timeout\" in Settings.", self.timeout_ms / 1000.0);
        let mut opened = match race(self.fetch.open(request), self.clock.sleep(self.timeout_ms)).await {
            Either::Left(Ok(opened)) => opened,
            Either::Left(Err(failed)) if failed.is_offline() => return Err(format!("This browser is offline, so {url} cannot be reached.")),
            Either::Left(Err(_)) => return Err(format!("Could not reach {url} from the browser. Check that the server is running and allows browser requests (CORS).")),
            Either::Right(()) => return Err(silent()),
        };
        if opened.is_redirect() {
            return Err(format!("{url} answered with a redirect. It is not followed with your key attached, so nothing was sent there."));
        }
        let status = opened.status();
        let mut bytes = Vec::new();
        loop {
            match race(opened.chunk(), self.clock.sleep(self.timeout_ms)).await {
                Either::Left(Ok(Some(chunk))) => {
                    bytes.extend_from_slice(&chunk);
                    if bytes.len() > ANSWER_LIMIT {
                        return Err(format!("{url}'s answer passed {} MB and was not read.", ANSWER_LIMIT / (1024 * 1024)));
                    }
                }
                Either::Left(Ok(None)) => break,
                Either::Left(Err(_)) => return Err(format!("{url}'s answer broke off.")),
                Either::Right(()) => return Err(silent()),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if !(200..300).contains(&status) {
            let said: String = text.chars().take(300).collect();
            let hint = if status == 404 || status == 501 { " This server may not offer embeddings, or not for this model." } else { "" };
            return Err(mask(&format!("{url} answered {status}: {said}{hint}"), &self.secrets));
        }
        meaning::parse(&text, texts.len()).map_err(|e| mask(&e, &self.secrets))
    }
}

/// A scripted embeddings server, for the tests here and the documents tool's.
#[cfg(test)]
pub(crate) mod testing {
    use std::cell::RefCell;

    use super::*;
    use crate::base::LocalBoxFuture;
    use crate::llm::presets::Preset;
    use crate::net::{FetchFailed, HttpResponse, Streaming};

    pub type Sent = (String, Vec<(String, String)>);

    /// Answers each request with the next scripted status and body; keeps what was sent.
    #[derive(Default)]
    pub struct Script {
        pub answers: RefCell<Vec<(u16, String)>>,
        /// Each request's body and headers.
        pub sent: RefCell<Vec<Sent>>,
    }

    struct Answer(u16, Option<Vec<u8>>);

    impl Streaming for Answer {
        fn status(&self) -> u16 {
            self.0
        }
        fn header(&self, _: &str) -> Option<String> {
            None
        }
        fn chunk(&mut self) -> LocalBoxFuture<'_, Result<Option<Vec<u8>>, FetchFailed>> {
            let next = self.1.take();
            Box::pin(async move { Ok(next) })
        }
    }

    impl Fetch for Script {
        fn get<'a>(&'a self, _: &'a str, _: &'a [(String, String)]) -> LocalBoxFuture<'a, Result<HttpResponse, FetchFailed>> {
            unreachable!("embeddings are POSTed")
        }
        fn open<'a>(&'a self, request: HttpRequest<'a>) -> LocalBoxFuture<'a, Result<Box<dyn Streaming>, FetchFailed>> {
            self.sent.borrow_mut().push((request.body.unwrap_or_default().to_string(), request.headers.to_vec()));
            let (status, body) = self.answers.borrow_mut().remove(0);
            Box::pin(async move { Ok(Box::new(Answer(status, Some(body.into_bytes()))) as Box<dyn Streaming>) })
        }
    }

    /// Time that never runs out.
    pub struct Patient;
    impl Clock for Patient {
        fn now_ms(&self) -> f64 {
            0.0
        }
        fn unix_ms(&self) -> f64 {
            0.0
        }
        fn sleep(&self, _: f64) -> LocalBoxFuture<'static, ()> {
            Box::pin(std::future::pending())
        }
    }

    pub fn config(preset: Preset) -> ProviderConfig {
        ProviderConfig { preset, base_url: "http://127.0.0.1:8080/v1/".into(), model: "chat".into(), api_key: "sk-secret-123456".into() }
    }

    /// An embedder of model `m` answering from `script`.
    pub fn embedder(script: Rc<Script>) -> Embedder {
        Embedder::new(&config(Preset::LlamaCpp), &Connection::default(), "m", script, Rc::new(Patient)).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::llm::presets::Preset;

    #[test]
    fn vectors_come_back_and_errors_name_the_address_not_the_key() {
        let fetch = Rc::new(Script::default());
        fetch.answers.borrow_mut().extend([(200, r#"{"data":[{"index":0,"embedding":[0.5,0.5]}]}"#.to_string()), (401, "bad key sk-secret-123456".to_string())]);
        let embedder = Embedder::new(&config(Preset::LlamaCpp), &Connection::default(), "nomic", fetch.clone(), Rc::new(Patient)).unwrap();
        assert_eq!(embedder.url(), "http://127.0.0.1:8080/v1/embeddings");
        assert_eq!(pollster::block_on(embedder.embed(&["a".into()])).unwrap(), vec![vec![0.5, 0.5]]);
        let (body, headers) = fetch.sent.borrow()[0].clone();
        assert!(body.contains(r#""model":"nomic""#) && headers.iter().any(|(k, v)| k == "Authorization" && v.ends_with("123456")));
        let error = pollster::block_on(embedder.embed(&["a".into()])).unwrap_err();
        assert!(error.contains("answered 401") && !error.contains("sk-secret-123456"), "{error}");
        assert!(Embedder::new(&config(Preset::Anthropic), &Connection::default(), "x", fetch.clone(), Rc::new(Patient)).is_none());
        assert!(Embedder::new(&config(Preset::LlamaCpp), &Connection::default(), " ", fetch, Rc::new(Patient)).is_none());
        assert!(on_this_machine("http://127.0.0.1:8080/v1/embeddings") && on_this_machine("http://localhost:11434/v1") && on_this_machine("http://[::1]:1/v1"));
        assert!(!on_this_machine("https://api.openai.com/v1/embeddings") && !on_this_machine("http://127.0.0.1.evil.example/v1") && !on_this_machine("http://localhost.example/v1"));
    }
}
