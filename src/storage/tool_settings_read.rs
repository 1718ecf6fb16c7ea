//! Reading the tools' settings back from stored settings and exports, by hand: the built-in
//! tools' (`settings.rs`) and the MCP servers' (`mcp/settings.rs`). See `crate::json_read` for
//! why and for the rules every reader keeps.
//!
//! Every struct here has `#[serde(default)]` on the struct: a missing field takes its value
//! from that struct's own `Default`. So a server without `common` gets the server's 30 s
//! limit, while a server whose `common` lacks `timeout_s` gets `Common`'s 15 s, as before.
//! `McpServer::secret` is never read from here (it is not serialised with the settings).

use serde_json::Value;

use crate::tools::mcp::{McpArgument, McpItem, McpOffers, McpServer, McpSettings, McpToolInfo, RememberedSecret};
use crate::tools::{ArxivSettings, Common, PythonSettings, SearchBackend, ToolSettings, WebSearchSettings, WikipediaSettings};
use crate::json_read::{any, boolean, deserialize_via_value, float, list, read_name, size, string, uint32, Fields, Read};

#[cfg(test)]
mod tests;

pub(crate) fn tool_settings(value: &Value) -> Read<ToolSettings> {
    let f = Fields::of(value)?;
    let d = ToolSettings::default();
    Ok(ToolSettings {
        wikipedia: f.or("wikipedia", wikipedia, d.wikipedia)?,
        arxiv: f.or("arxiv", arxiv, d.arxiv)?,
        calculator: f.or("calculator", common, d.calculator)?,
        web_search: f.or("web_search", web_search, d.web_search)?,
        python: f.or("python", python, d.python)?,
        cors_proxy: f.or("cors_proxy", string, d.cors_proxy)?,
        mcp: f.or("mcp", mcp_settings, d.mcp)?,
    })
}

fn common(value: &Value) -> Read<Common> {
    common_or(value, &Common::default())
}

/// A tool's common settings, a missing field taken from `d` (the tool's own defaults).
fn common_or(value: &Value, d: &Common) -> Read<Common> {
    let f = Fields::of(value)?;
    let d = d.clone();
    Ok(Common {
        enabled: f.or("enabled", boolean, d.enabled)?,
        return_direct: f.or("return_direct", boolean, d.return_direct)?,
        timeout_s: f.or("timeout_s", float, d.timeout_s)?,
    })
}

fn python(value: &Value) -> Read<PythonSettings> {
    let f = Fields::of(value)?;
    let d = PythonSettings::default();
    Ok(PythonSettings {
        common: f.or("common", python_common, d.common)?,
        approve: f.or("approve", boolean, d.approve)?,
        install_packages: f.or("install_packages", boolean, d.install_packages)?,
        package_index: f.or("package_index", string, d.package_index)?,
    })
}

/// Python's common settings: off, and 10 s, unless stored otherwise.
fn python_common(value: &Value) -> Read<Common> {
    common_or(value, &PythonSettings::default().common)
}

fn wikipedia(value: &Value) -> Read<WikipediaSettings> {
    let f = Fields::of(value)?;
    let d = WikipediaSettings::default();
    Ok(WikipediaSettings {
        common: f.or("common", common, d.common)?,
        lang: f.or("lang", string, d.lang)?,
        results: f.or("results", uint32, d.results)?,
        max_chars: f.or("max_chars", size, d.max_chars)?,
        base_url: f.or("base_url", string, d.base_url)?,
    })
}

fn arxiv(value: &Value) -> Read<ArxivSettings> {
    let f = Fields::of(value)?;
    let d = ArxivSettings::default();
    Ok(ArxivSettings {
        common: f.or("common", common, d.common)?,
        max_results: f.or("max_results", uint32, d.max_results)?,
        max_chars: f.or("max_chars", size, d.max_chars)?,
        base_url: f.or("base_url", string, d.base_url)?,
        openalex_url: f.or("openalex_url", string, d.openalex_url)?,
        openalex_key: f.or("openalex_key", string, d.openalex_key)?,
    })
}

fn search_backend(value: &Value) -> Read<SearchBackend> {
    let named = |tag: &str| match tag {
        "duck_duck_go" => Some(SearchBackend::DuckDuckGo),
        "searx" => Some(SearchBackend::Searx),
        _ => None,
    };
    read_name(value, named, "search backend")
}

fn web_search(value: &Value) -> Read<WebSearchSettings> {
    let f = Fields::of(value)?;
    let d = WebSearchSettings::default();
    Ok(WebSearchSettings {
        common: f.or("common", common, d.common)?,
        backend: f.or("backend", search_backend, d.backend)?,
        searx_url: f.or("searx_url", string, d.searx_url)?,
        ddg_url: f.or("ddg_url", string, d.ddg_url)?,
        max_chars: f.or("max_chars", size, d.max_chars)?,
    })
}

fn mcp_settings(value: &Value) -> Read<McpSettings> {
    let f = Fields::of(value)?;
    Ok(McpSettings { servers: f.or("servers", |v| list(v, mcp_server), McpSettings::default().servers)? })
}

fn mcp_server(value: &Value) -> Read<McpServer> {
    let f = Fields::of(value)?;
    let d = McpServer::default();
    Ok(McpServer {
        url: f.or("url", string, d.url)?,
        header: f.or("header", string, d.header)?,
        // Not serialised: always the default, whatever the input holds.
        secret: d.secret,
        remember_secret: f.or("remember_secret", boolean, d.remember_secret)?,
        client_id: f.or("client_id", string, d.client_id)?,
        client_secret: d.client_secret,
        common: f.or("common", common, d.common)?,
        name: f.or("name", string, d.name)?,
        tools: f.or("tools", |v| list(v, mcp_tool), d.tools)?,
        instructions: f.or("instructions", string, d.instructions)?,
        offers: f.or("offers", string, d.offers)?,
        resources_ask: f.or("resources_ask", boolean, d.resources_ask)?,
        sampling_ask: f.or("sampling_ask", boolean, d.sampling_ask)?,
    })
}

fn mcp_offers(value: &Value) -> Read<McpOffers> {
    let f = Fields::of(value)?;
    let d = McpOffers::default();
    Ok(McpOffers {
        resources: f.or("resources", |v| list(v, mcp_item), d.resources)?,
        templates: f.or("templates", |v| list(v, mcp_item), d.templates)?,
        prompts: f.or("prompts", |v| list(v, mcp_item), d.prompts)?,
    })
}

fn mcp_item(value: &Value) -> Read<McpItem> {
    let f = Fields::of(value)?;
    let d = McpItem::default();
    Ok(McpItem {
        name: f.or("name", string, d.name)?,
        description: f.or("description", string, d.description)?,
        uri: f.or("uri", string, d.uri)?,
        mime_type: f.or("mime_type", string, d.mime_type)?,
        arguments: f.or("arguments", |v| list(v, mcp_argument), d.arguments)?,
    })
}

fn mcp_argument(value: &Value) -> Read<McpArgument> {
    let f = Fields::of(value)?;
    let d = McpArgument::default();
    Ok(McpArgument { name: f.or("name", string, d.name)?, description: f.or("description", string, d.description)?, required: f.or("required", boolean, d.required)? })
}

fn mcp_tool(value: &Value) -> Read<McpToolInfo> {
    let f = Fields::of(value)?;
    let d = McpToolInfo::default();
    Ok(McpToolInfo {
        name: f.or("name", string, d.name)?,
        title: f.or("title", string, d.title)?,
        description: f.or("description", string, d.description)?,
        input_schema: f.or("input_schema", any, d.input_schema)?,
        enabled: f.or("enabled", boolean, d.enabled)?,
        ask: f.or("ask", boolean, d.ask)?,
        unavailable: f.or("unavailable", string, d.unavailable)?,
        view: f.or("view", string, d.view)?,
        for_model: f.or("for_model", boolean, d.for_model)?,
        for_views: f.or("for_views", boolean, d.for_views)?,
    })
}

/// Holds a secret: its errors name only the field and what was expected.
pub(crate) fn remembered_secret(value: &Value) -> Read<RememberedSecret> {
    let f = Fields::of(value)?;
    let d = RememberedSecret::default();
    Ok(RememberedSecret {
        url: f.or("url", string, d.url)?,
        secret: f.or("secret", string, d.secret)?,
        client_secret: f.or("client_secret", string, d.client_secret)?,
    })
}

deserialize_via_value! {
    ToolSettings => tool_settings,
    Common => common,
    WikipediaSettings => wikipedia,
    ArxivSettings => arxiv,
    SearchBackend => search_backend,
    WebSearchSettings => web_search,
    McpSettings => mcp_settings,
    McpServer => mcp_server,
    McpToolInfo => mcp_tool,
    McpOffers => mcp_offers,
    McpItem => mcp_item,
    McpArgument => mcp_argument,
    RememberedSecret => remembered_secret,
}
