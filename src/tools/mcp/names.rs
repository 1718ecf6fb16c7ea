//! The names the model sees for MCP tools. A server's tool names are its own business, so two
//! servers may both have `search`, or one may have a `calculator` like ours; the model must be
//! able to name each tool without ambiguity, in every strategy (OpenAI function names allow
//! only `[A-Za-z0-9_-]`, at most 64 characters).
//!
//! A name that clashes (with a built-in tool, or with another offered MCP tool, compared the
//! way the parser matches names: case, `_` and `-` ignored) gets its server's short name as a
//! prefix, and a number if that is not enough. Names that do not clash stay as they are.

use super::settings::McpSettings;

/// The longest name OpenAI-compatible APIs accept for a function.
const NAME_LIMIT: usize = 64;

/// The model-facing name of every offered tool: per server, per tool, `Some(name)` for the
/// tools that are offered (server and tool on, and the tool one the page can call), `None` for
/// the others.
pub fn unique_names(settings: &McpSettings, reserved: &[&str]) -> Vec<Vec<Option<String>>> {
    let offered = |server: usize, tool: usize| {
        let s = &settings.servers[server];
        s.common.enabled && s.tools[tool].offered()
    };
    let mut taken: Vec<String> = reserved.iter().map(|r| key(r)).collect();
    let mut out: Vec<Vec<Option<String>>> = settings.servers.iter().map(|s| vec![None; s.tools.len()]).collect();
    // How many offered tools want each plain name: more than one means a clash.
    let mut wanted: Vec<String> = Vec::new();
    for (si, server) in settings.servers.iter().enumerate() {
        for (ti, tool) in server.tools.iter().enumerate() {
            if offered(si, ti) {
                wanted.push(key(&sanitize(&tool.name)));
            }
        }
    }
    for (si, server) in settings.servers.iter().enumerate() {
        let prefix = server_slug(server.name.trim(), &server.url);
        for (ti, tool) in server.tools.iter().enumerate() {
            if !offered(si, ti) {
                continue;
            }
            let plain = sanitize(&tool.name);
            let clashes = wanted.iter().filter(|w| **w == key(&plain)).count() > 1 || reserved_like(&plain) || taken.contains(&key(&plain));
            let mut name = if clashes { fit(&format!("{prefix}_{plain}"), "") } else { plain };
            let mut n = 2;
            while taken.contains(&key(&name)) || reserved_like(&name) {
                name = fit(&format!("{prefix}_{}", sanitize(&tool.name)), &format!("_{n}"));
                n += 1;
            }
            taken.push(key(&name));
            out[si][ti] = Some(name);
        }
    }
    out
}

/// Characters a function name may not hold become `_`; an empty name becomes `tool`.
pub fn sanitize(name: &str) -> String {
    let clean: String = name.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if clean.is_empty() {
        "tool".into()
    } else {
        fit(&clean, "")
    }
}

/// `name` cut so that `name + suffix` fits the limit.
fn fit(name: &str, suffix: &str) -> String {
    let room = NAME_LIMIT.saturating_sub(suffix.len());
    let mut out: String = name.chars().take(room).collect();
    out.push_str(suffix);
    out
}

/// How the parser compares tool names: case, spaces, `_` and `-` do not count.
fn key(name: &str) -> String {
    name.chars().filter(|c| !c.is_whitespace() && *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// Names the loop gives a meaning of its own ("Final Answer", "none", …).
fn reserved_like(name: &str) -> bool {
    crate::agent::parse::is_final_name(name) || matches!(key(name).as_str(), "none" | "na" | "null" | "nothing" | "noaction" | "notool")
}

/// A short lowercase name for a server: its own name, else its host.
fn server_slug(name: &str, url: &str) -> String {
    let source = if name.is_empty() {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        rest.split(['/', ':', '?', '#']).next().unwrap_or(rest).trim_start_matches("www.").to_string()
    } else {
        name.to_string()
    };
    let slug: String = source
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect::<String>()
        .split('_')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    let slug: String = slug.chars().take(20).collect();
    if slug.is_empty() {
        "mcp".into()
    } else {
        slug
    }
}
