//! Secrets: API keys, secret request-header values and tool keys. This module owns the rules
//! every secret follows, so they are written once:
//!
//! - **Where secrets live** in the settings (`each_secret`, one line per source): `collect`
//!   gathers their values for masking, `strip` returns the settings without them (what storage
//!   writes when "Remember" is off, and what an export carries).
//! - **The one masking function**, `mask`: every configured secret value, wherever it appears,
//!   plus common key shapes (`sk-…`, `gsk_…`, `Bearer …`). Provider errors, trace events, chat
//!   bubbles, exports and the Markdown copy all pass through it.
//! - **A key per provider** (`ProviderKeys`, `switch_provider`): a key is bound to the preset and
//!   the base URL's origin it was entered for, and never follows a switch to another provider.
//! - **Plain HTTP**: a key is not sent over `http://` to a host other than this machine until
//!   the person agrees, per origin (`plain_http_warning`).
//!
//! Pure: no browser code, tested natively (`secrets/tests.rs`).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::agent::trace::{Decision, RequestRecord};
use crate::agent::{Event, EventKind, LlmError};
use crate::llm::{Connection, Preset, ProviderConfig};
use crate::storage::Settings;

/// What a masked secret is replaced by: one `*` per byte. Keeping the byte length keeps valid
/// the byte offsets a trace records (a request record quotes earlier events' texts by length,
/// `agent::request_record`), so a masked trace still rebuilds every request it sent.
const COVER: char = '*';

fn cover(bytes: usize) -> String {
    std::iter::repeat_n(COVER, bytes).collect()
}

/// Shorter configured values are not masked: they would blank ordinary words (a key of "k"
/// would eat every "k" on the page), and a value this short protects nothing anyway.
const MIN_SECRET_CHARS: usize = 6;

/// The secret values to remove from text. `Debug` prints only how many there are.
#[derive(Clone, Default, PartialEq)]
pub struct Secrets {
    /// Longest first, so a secret containing another is removed whole.
    values: Vec<String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} values)", self.values.len())
    }
}

impl Secrets {
    /// The given values, each also in its percent-encoded form (a key in a URL's query, as
    /// OpenAlex takes it, appears encoded in error messages that quote the URL).
    pub fn new<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut all = Vec::new();
        for value in values {
            let value = value.as_ref().trim();
            if value.chars().count() < MIN_SECRET_CHARS {
                continue;
            }
            let encoded = crate::tools::text::encode_component(value);
            if encoded != value {
                all.push(encoded);
            }
            all.push(value.to_string());
        }
        crate::sort::sort_by(&mut all, |a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        all.dedup();
        Secrets { values: all }
    }

    /// These secrets and `other`'s.
    pub fn with(&self, other: &Secrets) -> Secrets {
        Secrets::new(self.values.iter().chain(&other.values))
    }
}

/// Removes every value of `secrets` and every common key shape from `text`. The one masking
/// function: whatever leaves the provider boundary for a person's eyes or a file goes through it.
pub fn mask(text: &str, secrets: &Secrets) -> String {
    mask_cow(text, secrets).into_owned()
}

fn mask_cow<'a>(text: &'a str, secrets: &Secrets) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for value in &secrets.values {
        if out.contains(value.as_str()) {
            out = Cow::Owned(out.replace(value.as_str(), &cover(value.len())));
        }
    }
    match mask_shapes(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(masked) => Cow::Owned(masked),
    }
}

/// Masks a string in place, reallocating only when something was found.
fn mask_field(field: &mut String, secrets: &Secrets) {
    if let Cow::Owned(masked) = mask_cow(field, secrets) {
        *field = masked;
    }
}

/// Key prefixes of the services people use: OpenAI, Anthropic (`sk-ant-`), DeepSeek and
/// DashScope (`sk-`), Groq (`gsk_`), xAI, Hugging Face, Google, Perplexity, NVIDIA.
const KEY_PREFIXES: [&str; 7] = ["sk-", "gsk_", "xai-", "hf_", "AIza", "pplx-", "nvapi-"];
/// Characters after a prefix that make it a key rather than a word ("task-list", "sk-learn").
const MIN_KEY_BODY: usize = 16;
/// A bearer token this long with a digit in it is a credential, not prose ("Bearer token").
const MIN_BEARER_TOKEN: usize = 8;

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn is_token_byte(b: u8) -> bool {
    is_key_byte(b) || matches!(b, b'.' | b'~' | b'+' | b'/' | b'=')
}

/// Common key shapes, masked even when the key is not one of the configured ones (a server may
/// echo a key the person typed elsewhere, or one from an earlier provider).
fn mask_shapes(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Shapes start at a word boundary: "task-…" is not "sk-…". Prefixes are ASCII, so `i`
        // is a char boundary whenever one matches.
        if i == 0 || !is_key_byte(bytes[i - 1]) {
            if let Some((keep, end)) = shape_at(bytes, i) {
                out.push_str(&text[copied..i + keep]);
                out.push_str(&cover(end - (i + keep)));
                copied = end;
                i = end;
                continue;
            }
        }
        i += 1;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// A key shape starting at `at`: how many bytes of it to keep (its prefix) and where it ends.
fn shape_at(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let rest = &bytes[at..];
    for prefix in KEY_PREFIXES {
        if rest.starts_with(prefix.as_bytes()) {
            let body = rest[prefix.len()..].iter().take_while(|&&b| is_key_byte(b)).count();
            if body >= MIN_KEY_BODY {
                return Some((prefix.len(), at + prefix.len() + body));
            }
        }
    }
    if rest.len() > 7 && rest[..6].eq_ignore_ascii_case(b"bearer") {
        let spaces = rest[6..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        if spaces > 0 {
            let start = 6 + spaces;
            let token = &rest[start..];
            let len = token.iter().take_while(|&&b| is_token_byte(b)).count();
            if len >= MIN_BEARER_TOKEN && token[..len].iter().any(u8::is_ascii_digit) {
                return Some((start, at + start + len));
            }
        }
    }
    None
}

/// An error with its message masked.
pub fn mask_error(mut error: LlmError, secrets: &Secrets) -> LlmError {
    mask_field(&mut error.message, secrets);
    error
}

fn mask_value(value: &mut Value, secrets: &Secrets) {
    match value {
        Value::String(s) => mask_field(s, secrets),
        Value::Array(items) => items.iter_mut().for_each(|v| mask_value(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| mask_value(v, secrets)),
        _ => {}
    }
}

fn mask_request(request: &mut RequestRecord, secrets: &Secrets) {
    for m in &mut request.messages {
        mask_field(&mut m.content, secrets);
        m.tool_calls.iter_mut().for_each(|c| mask_field(&mut c.arguments, secrets));
    }
}

/// Masks every text an event holds. The match is exhaustive on purpose: a new kind of event
/// does not compile until someone has said here which of its fields can carry a secret.
pub fn mask_event(event: &mut Event, secrets: &Secrets) {
    let m = |s: &mut String| mask_field(s, secrets);
    match &mut event.kind {
        EventKind::RunStarted { question, .. } => m(question),
        EventKind::PersonAnswered { answer } => m(answer),
        EventKind::LlmRequest { request, .. } => mask_request(request, secrets),
        EventKind::LlmResponse { text, discarded, tool_calls, .. } => {
            m(text);
            discarded.iter_mut().for_each(m);
            tool_calls.iter_mut().for_each(|c| m(&mut c.arguments));
        }
        EventKind::LlmFailed { error } => m(&mut error.message),
        EventKind::LlmRetry { reason, .. } => m(reason),
        EventKind::Decided { thought, decision, notes } => {
            thought.iter_mut().for_each(m);
            notes.iter_mut().for_each(m);
            match decision {
                Decision::Action { input, .. } => mask_value(input, secrets),
                Decision::Final { answer } => m(answer),
            }
        }
        EventKind::Plan { items, observation, .. } => {
            items.iter_mut().for_each(m);
            observation.iter_mut().for_each(m);
        }
        EventKind::AskedPerson { question } => m(question),
        EventKind::StrategyFallback { reason, .. } => m(reason),
        EventKind::ParseFailed { message, excerpt, observation, .. } => {
            m(message);
            m(excerpt);
            m(observation);
        }
        EventKind::ToolCall { input, .. } | EventKind::RepeatedAction { input, .. } => mask_value(input, secrets),
        EventKind::ToolResult { observation, .. } => m(observation),
        EventKind::ToolFailed { message, .. } => m(message),
        EventKind::UnknownTool { requested, .. } => m(requested),
        EventKind::FinalAnswer { answer, .. } => m(answer),
        EventKind::RunStopped { message, .. } => m(message),
    }
}

pub fn mask_events(events: &mut [Event], secrets: &Secrets) {
    events.iter_mut().for_each(|e| mask_event(e, secrets));
}

// ---- Where secrets live in the settings ----

/// A place in the settings that holds a secret.
enum Field<'a> {
    /// The whole value is secret.
    Value(&'a mut String),
    /// `Name: value` lines, of which the values of secret-looking names are secret.
    HeaderLines(&'a mut String),
}

/// Every secret the settings hold. **One line per source**: a new kind of secret (an MCP
/// server's bearer token, say) is one more `f(Field::Value(…))` line here, and from then on is
/// masked everywhere, kept out of storage unless "Remember" is ticked, and left out of exports.
fn each_secret(settings: &mut Settings, f: &mut dyn FnMut(Field<'_>)) {
    f(Field::Value(&mut settings.provider.api_key));
    settings.keys.saved.iter_mut().for_each(|k| f(Field::Value(&mut k.key)));
    f(Field::HeaderLines(&mut settings.connection.extra_headers));
    f(Field::Value(&mut settings.tools.arxiv.openalex_key));
    // MCP tokens: never serialised with the tool settings, stored apart only when remembered.
    settings.tools.mcp.servers.iter_mut().for_each(|server| f(Field::Value(&mut server.secret)));
}

/// Every secret value configured in `settings`, for `mask`.
pub fn collect(settings: &Settings) -> Secrets {
    let mut values = Vec::new();
    each_secret(&mut settings.clone(), &mut |field| match field {
        Field::Value(v) => values.push(v.clone()),
        Field::HeaderLines(lines) => values.extend(secret_header_values(lines)),
    });
    Secrets::new(values)
}

/// The settings without any secret: what storage writes when "Remember" is off, and what an
/// exported run carries.
pub fn strip(settings: &Settings) -> Settings {
    let mut out = settings.clone();
    each_secret(&mut out, &mut |field| match field {
        Field::Value(v) => v.clear(),
        Field::HeaderLines(lines) => *lines = public_header_lines(lines),
    });
    out.keys.saved.retain(|k| !k.key.is_empty());
    out
}

/// The secrets a provider itself sends: its key and secret header values.
pub fn of_provider(config: &ProviderConfig, connection: &Connection) -> Secrets {
    let mut values = secret_header_values(&connection.extra_headers);
    values.push(config.api_key.clone());
    Secrets::new(values)
}

/// Headers whose values are not secret. Every other header is treated as secret: an unknown
/// name is more likely `api-key` or a proxy's token than something harmless.
const PUBLIC_HEADERS: [&str; 11] = [
    "http-referer",
    "referer",
    "x-title",
    "user-agent",
    "accept",
    "accept-language",
    "content-type",
    "anthropic-version",
    "anthropic-beta",
    "openai-organization",
    "openai-project",
];

pub fn is_secret_header(name: &str) -> bool {
    !PUBLIC_HEADERS.contains(&name.trim().to_ascii_lowercase().as_str())
}

fn header_line(line: &str) -> Option<(&str, &str)> {
    line.split_once(':').map(|(name, value)| (name.trim(), value.trim()))
}

fn secret_header_values(lines: &str) -> Vec<String> {
    lines
        .lines()
        .filter_map(header_line)
        .filter(|(name, _)| is_secret_header(name))
        .flat_map(|(_, value)| {
            // "Bearer abc…": the token alone is the secret, and may appear without the word.
            let token = value.split_once(' ').map(|(_, t)| t.trim()).filter(|t| !t.is_empty());
            std::iter::once(value.to_string()).chain(token.map(str::to_string))
        })
        .collect()
}

/// Only the lines naming a public header; secret ones, and lines that are not headers at all
/// (which may be a pasted key), are dropped.
fn public_header_lines(lines: &str) -> String {
    lines
        .lines()
        .filter(|line| header_line(line).is_some_and(|(name, _)| !name.is_empty() && !is_secret_header(name)))
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- A key per provider ----

/// A key entered for a provider other than the current one. Read by hand (`storage/read.rs`).
#[derive(Clone, PartialEq, Serialize)]
pub struct SavedKey {
    /// `binding` of the provider it was entered for.
    pub provider: String,
    pub key: String,
}

/// Keys of providers other than the current one (whose key is `ProviderConfig::api_key`),
/// each bound to the provider it was entered for, and the origins the person agreed to send a
/// key to over plain HTTP. `Debug` never prints a key. Read by hand (`storage/read.rs`): a
/// missing field is empty.
#[derive(Clone, Default, PartialEq, Serialize)]
pub struct ProviderKeys {
    pub saved: Vec<SavedKey>,
    pub plain_http_ok: Vec<String>,
}

impl std::fmt::Debug for ProviderKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let providers: Vec<&str> = self.saved.iter().map(|k| k.provider.as_str()).collect();
        f.debug_struct("ProviderKeys").field("saved_for", &providers).field("plain_http_ok", &self.plain_http_ok).finish()
    }
}

impl ProviderKeys {
    pub fn is_empty(&self) -> bool {
        self.saved.is_empty() && self.plain_http_ok.is_empty()
    }

    fn take(&mut self, provider: &str) -> String {
        match self.saved.iter().position(|k| k.provider == provider) {
            Some(at) => self.saved.remove(at).key,
            None => String::new(),
        }
    }

    fn put(&mut self, provider: String, key: String) {
        self.saved.retain(|k| k.provider != provider);
        if !key.is_empty() {
            self.saved.push(SavedKey { provider, key });
        }
    }
}

/// `scheme://host[:port]` of an http(s) URL, lower-cased, without a default port; `None` for
/// anything else (an empty or relative base URL binds no key to any server).
pub fn origin(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // user:password@ is not part of the origin.
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h).to_ascii_lowercase();
    if host_port.is_empty() {
        return None;
    }
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let host_port = host_port.strip_suffix(default_port).unwrap_or(&host_port);
    Some(format!("{scheme}://{host_port}"))
}

/// What a key is bound to: the preset and the base URL's origin.
pub fn binding(preset: Preset, base_url: &str) -> String {
    format!("{} {}", preset.id(), origin(base_url).unwrap_or_default())
}

/// Switches to another preset or base URL. The current key stays with the provider it was
/// entered for, and the new provider's own key (empty if none) becomes the current one, so a
/// key is never sent to a provider it was not entered for.
pub fn switch_provider(settings: &mut Settings, preset: Preset, base_url: String) {
    let before = binding(settings.provider.preset, &settings.provider.base_url);
    settings.provider.preset = preset;
    settings.provider.base_url = base_url;
    let after = binding(preset, &settings.provider.base_url);
    if before != after {
        let key = std::mem::take(&mut settings.provider.api_key);
        settings.keys.put(before, key);
        settings.provider.api_key = settings.keys.take(&after);
    }
}

/// The host of an `http://` URL that is not this machine; `None` for https and loopback.
pub fn plain_http_host(base_url: &str) -> Option<String> {
    let origin = origin(base_url)?;
    let host_port = origin.strip_prefix("http://")?;
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.rsplit_once(':').map_or(host_port, |(h, _)| h),
    };
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || (host.starts_with("127.") && host.split('.').count() == 4 && host.split('.').all(|p| p.parse::<u8>().is_ok()));
    (!loopback).then(|| host.to_string())
}

/// Why the key may not be sent yet: the base URL is plain `http://` to another machine, where
/// anyone on the way can read it, and the person has not agreed for this origin.
pub fn plain_http_warning(settings: &Settings) -> Option<String> {
    let p = &settings.provider;
    if p.api_key.trim().is_empty() {
        return None;
    }
    let host = plain_http_host(&p.base_url)?;
    let agreed = origin(&p.base_url).is_some_and(|o| settings.keys.plain_http_ok.contains(&o));
    (!agreed).then(|| {
        format!(
            "The base URL uses plain http:// to {host}, so your API key would travel unencrypted and anyone on the network path could read it. Use https://, or tick \"Send my key to {host} over plain HTTP\" in Settings (⚙)."
        )
    })
}

/// Records (or withdraws) the person's agreement to send the key to the current base URL's
/// origin over plain HTTP.
pub fn allow_plain_http(settings: &mut Settings, allowed: bool) {
    let Some(o) = origin(&settings.provider.base_url) else { return };
    settings.keys.plain_http_ok.retain(|x| *x != o);
    if allowed {
        settings.keys.plain_http_ok.push(o);
    }
}

pub fn plain_http_allowed(settings: &Settings) -> bool {
    origin(&settings.provider.base_url).is_some_and(|o| settings.keys.plain_http_ok.contains(&o))
}

#[cfg(test)]
mod tests;
