//! The rules about secrets in the settings, beside the settings they are about:
//!
//! - **Where secrets live** (`each_secret`, one line per source): `collect` gathers their values
//!   for masking, `strip` returns the settings without them (what storage writes when
//!   "Remember" is off, and what an export carries).
//! - **A key per provider** (`ProviderKeys`, `switch_provider`): a key is bound to the preset and
//!   the base URL's origin it was entered for, and never follows a switch to another provider.
//! - **Plain HTTP**: a key is not sent over `http://` to a host other than this machine until
//!   the person agrees, per origin (`plain_http_warning`).
//!
//! Pure, tested natively (`keys/tests.rs`).

use serde::Serialize;
use serde_json::Value;

use super::Settings;
use crate::llm::Preset;
use crate::json_read::{deserialize_via_value, list, string, strings, Fields, Read};
use crate::secrets::{public_header_lines, secret_header_values, Secrets};

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
    // The OpenTelemetry collector's header (`otel::send`).
    f(Field::Value(&mut settings.collector.header_value));
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

pub use crate::net::origin;

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

// ---- Reading the stored keys back, by hand (`crate::json_read`). Their errors name only the
// field and what was expected, never a value. ----

pub(crate) fn provider_keys(value: &Value) -> Read<ProviderKeys> {
    let f = Fields::of(value)?;
    let d = ProviderKeys::default();
    Ok(ProviderKeys { saved: f.or("saved", |v| list(v, saved_key), d.saved)?, plain_http_ok: f.or("plain_http_ok", strings, d.plain_http_ok)? })
}

/// No defaults: both fields must be there.
fn saved_key(value: &Value) -> Read<SavedKey> {
    let f = Fields::of(value)?;
    Ok(SavedKey { provider: f.get("provider", string)?, key: f.get("key", string)? })
}

deserialize_via_value! {
    ProviderKeys => provider_keys,
    SavedKey => saved_key,
}

#[cfg(test)]
mod tests;
