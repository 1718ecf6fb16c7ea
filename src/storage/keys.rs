//! The stored shape of the keys entered for providers other than the current one, and what a
//! key is bound to (`binding`: the preset and the base URL's origin). The rules a key follows
//! (where secrets live, a key per provider, plain HTTP) are the settings model's:
//! `app::settings::keys`.

use serde::Serialize;
use serde_json::Value;

use crate::llm::Preset;
use crate::json_read::{deserialize_via_value, list, string, strings, Fields, Read};

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

    /// Takes the key entered for `provider` out (empty if none).
    pub fn take(&mut self, provider: &str) -> String {
        match self.saved.iter().position(|k| k.provider == provider) {
            Some(at) => self.saved.remove(at).key,
            None => String::new(),
        }
    }

    /// Keeps `key` for `provider` (an empty key keeps nothing).
    pub fn put(&mut self, provider: String, key: String) {
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

