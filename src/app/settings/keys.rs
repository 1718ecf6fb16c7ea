//! The rules about secrets in the settings, beside the settings they are about:
//!
//! - **Where secrets live** (`each_secret`, one line per source): `collect` gathers their values
//!   for masking, `strip` returns the settings without them (what storage writes when
//!   "Remember" is off, and what an export carries).
//! - **A key per provider** (`switch_provider`): a key is bound to the preset and the base URL's
//!   origin it was entered for (`storage::keys::binding`), and never follows a switch to
//!   another provider.
//! - **Plain HTTP**: a key is not sent over `http://` to a host other than this machine until
//!   the person agrees, per origin (`plain_http_warning`).
//!
//! Pure, tested natively (`keys/tests.rs`).

use super::Settings;
use crate::llm::Preset;
use crate::secrets::{public_header_lines, secret_header_values, Secrets};
pub use crate::storage::keys::plain_http_host;
use crate::storage::keys::{binding, origin};

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
    // The client secret of a server's pre-registered sign-in, kept the same way.
    settings.tools.mcp.servers.iter_mut().for_each(|server| f(Field::Value(&mut server.client_secret)));
    // The OpenTelemetry collector's header (`otel::send`).
    f(Field::Value(&mut settings.collector.header_value));
}

/// Every secret value configured in `settings`, for `mask`.
pub fn collect(settings: &Settings) -> Secrets {
    collect_with(settings, &[])
}

/// Every secret value configured in `settings`, and `held`: those the page holds beside them
/// (the tokens of MCP servers signed in to, `app::mcp::sign_in`).
pub fn collect_with(settings: &Settings, held: &[String]) -> Secrets {
    let mut values = held.to_vec();
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
