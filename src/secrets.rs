//! Secret values and the one masking function. A leaf: it imports nothing of the app above
//! the HTTP layer (only the percent-encoding of `net`), so every layer can mask.
//!
//! - **`Secrets`**: the values to remove, each also in its percent-encoded form.
//! - **The one masking function**, `mask`: every configured secret value, wherever it appears,
//!   plus common key shapes (`sk-…`, `gsk_…`, `Bearer …`), each byte covered by one `*`.
//!   `mask_field` and `mask_value` apply it in place to a string and to a JSON value.
//! - **Secret headers**: which request-header values are secret (`is_secret_header`).
//!
//! Text from outside is masked once, where it enters: the provider's and the tools' error text
//! (`llm::Provider`), the run's events and streamed text (the page's run observer), an imported
//! file. Where secrets live in the settings, and the rules about keys, sit beside the settings
//! (`storage::keys`). Pure, tested natively (`secrets/tests.rs`).

use std::borrow::Cow;

use serde_json::Value;

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
            let encoded = crate::net::encode_component(value);
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
pub fn mask_field(field: &mut String, secrets: &Secrets) {
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

/// Masks every string inside a JSON value, in place.
pub fn mask_value(value: &mut Value, secrets: &Secrets) {
    match value {
        Value::String(s) => mask_field(s, secrets),
        Value::Array(items) => items.iter_mut().for_each(|v| mask_value(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| mask_value(v, secrets)),
        _ => {}
    }
}

// ---- Secret request headers ----

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

pub fn secret_header_values(lines: &str) -> Vec<String> {
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
pub fn public_header_lines(lines: &str) -> String {
    lines
        .lines()
        .filter(|line| header_line(line).is_some_and(|(name, _)| !name.is_empty() && !is_secret_header(name)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
pub(crate) mod tests;
