//! MCP Apps (the `io.modelcontextprotocol/ui` extension, protocol 2026-01-26): a tool whose
//! `_meta.ui.resourceUri` names a `ui://` resource has a view, an HTML page the server serves
//! with `resources/read`, that the host shows in a sandboxed frame beside the call's result.
//! No I/O here: which tools have a view and who may call them (`tool_view`), the view read and
//! bounded (`read_view`), and the Content Security Policy its frame gets from `_meta.ui.csp`
//! (`Csp::policy`, `with_policy`). The page draws the frame and carries its messages
//! (`app::mcp::views`).

use serde_json::Value;

/// The MIME type of a view.
pub const MIME: &str = "text/html;profile=mcp-app";
/// The extension's name, under which a client says it shows views.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The protocol version of views this page speaks.
pub const PROTOCOL: &str = "2026-01-26";
/// The largest view read: more is refused, not cut (a cut page would not run).
const VIEW_LIMIT: usize = 2 << 20;
/// Origins read of each CSP list.
const ORIGIN_LIMIT: usize = 32;

/// What `tools/list` says of a tool's view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolView {
    /// The `ui://` resource of its view (empty: none).
    pub uri: String,
    /// Offered to the model (visibility "model", the default).
    pub model: bool,
    /// Callable from the server's views (visibility "app", the default).
    pub app: bool,
}

/// Reads a tool's `_meta.ui` (or the older flat `_meta["ui/resourceUri"]`).
pub fn tool_view(tool: &Value) -> ToolView {
    let meta = tool.get("_meta");
    let uri = meta
        .and_then(|m| m.pointer("/ui/resourceUri").or_else(|| m.get("ui/resourceUri")))
        .and_then(Value::as_str)
        .filter(|u| u.starts_with("ui://") && u.len() <= 2048)
        .unwrap_or_default()
        .to_string();
    let visibility: Option<Vec<&str>> = meta.and_then(|m| m.pointer("/ui/visibility")).and_then(Value::as_array).map(|v| v.iter().filter_map(Value::as_str).collect());
    match visibility {
        Some(v) => ToolView { uri, model: v.contains(&"model"), app: v.contains(&"app") },
        None => ToolView { uri, model: true, app: true },
    }
}

/// A view as read: its page and what its frame may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    pub html: String,
    pub csp: Csp,
    /// The server would like a border (or not) around it.
    pub prefers_border: Option<bool>,
}

/// The origins a view may reach, from `_meta.ui.csp`, each checked to be an origin (a scheme,
/// a host that may start with `*.`, and a port): anything else is left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Csp {
    /// `fetch`, XHR, WebSocket.
    pub connect: Vec<String>,
    /// Scripts, styles, images, fonts, media.
    pub resources: Vec<String>,
    /// Frames inside the view.
    pub frames: Vec<String>,
    pub base: Vec<String>,
}

/// Reads a `resources/read` result for a view: the first content of the view's MIME type, as
/// text or base64; the CSP from the content's `_meta.ui` (else the result's).
pub fn read_view(result: &Value) -> Result<View, String> {
    let contents = result.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let is_view = |c: &&Value| c.get("mimeType").and_then(Value::as_str).is_some_and(|m| m.replace(' ', "").eq_ignore_ascii_case(MIME));
    let Some(content) = contents.iter().find(is_view) else {
        let found: Vec<&str> = contents.iter().filter_map(|c| c.get("mimeType").and_then(Value::as_str)).collect();
        return Err(format!("the server sent no view of type {MIME} (it sent {})", if found.is_empty() { "none".to_string() } else { found.join(", ") }));
    };
    let html = match (content.get("text").and_then(Value::as_str), content.get("blob").and_then(Value::as_str)) {
        (Some(text), _) => text.to_string(),
        (None, Some(blob)) => {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD.decode(blob.trim()).map_err(|_| "the view's base64 could not be read".to_string())?;
            String::from_utf8(bytes).map_err(|_| "the view is not UTF-8 text".to_string())?
        }
        _ => return Err("the view has no content".into()),
    };
    if html.len() > VIEW_LIMIT {
        return Err(format!("the view is {} KB, more than the {} KB this page shows", html.len() / 1024, VIEW_LIMIT / 1024));
    }
    let meta = content.pointer("/_meta/ui").or_else(|| result.pointer("/_meta/ui"));
    let list = |name: &str| -> Vec<String> {
        meta.and_then(|m| m.pointer(&format!("/csp/{name}")))
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_str).filter_map(origin).take(ORIGIN_LIMIT).collect())
            .unwrap_or_default()
    };
    let csp = Csp { connect: list("connectDomains"), resources: list("resourceDomains"), frames: list("frameDomains"), base: list("baseUriDomains") };
    Ok(View { html, csp, prefers_border: meta.and_then(|m| m.get("prefersBorder")).and_then(Value::as_bool) })
}

/// `text` as a CSP source when it is an origin: `https://example.com`, `https://*.example.com`,
/// `wss://live.example.com:8443`, nothing more (no path, quotes, spaces or semicolons).
fn origin(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches('/');
    let (scheme, rest) = text.split_once("://")?;
    if !matches!(scheme, "https" | "http" | "wss" | "ws") {
        return None;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => (host, Some(port)),
        _ => (rest, None),
    };
    let bare = host.strip_prefix("*.").unwrap_or(host);
    let fine = !bare.is_empty() && bare.split('.').all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    fine.then(|| match port {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

impl Csp {
    /// The policy of the view's frame: its own inline scripts and styles, data and blob URLs,
    /// and the origins it declared, each for what it declared it for; nothing else. A view
    /// that declared nothing reaches no network at all.
    pub fn policy(&self) -> String {
        let or_none = |list: &[String], extra: &str| {
            let mut sources: Vec<String> = extra.split(' ').filter(|s| !s.is_empty()).map(str::to_string).collect();
            sources.extend(list.iter().cloned());
            if sources.is_empty() {
                "'none'".to_string()
            } else {
                sources.join(" ")
            }
        };
        let resources = &self.resources;
        [
            "default-src 'none'".to_string(),
            format!("script-src {}", or_none(resources, "'unsafe-inline' 'unsafe-eval' blob: data:")),
            format!("style-src {}", or_none(resources, "'unsafe-inline' blob: data:")),
            format!("img-src {}", or_none(resources, "blob: data:")),
            format!("font-src {}", or_none(resources, "blob: data:")),
            format!("media-src {}", or_none(resources, "blob: data:")),
            format!("connect-src {}", or_none(&self.connect, "")),
            format!("frame-src {}", or_none(&self.frames, "")),
            format!("base-uri {}", or_none(&self.base, "")),
            "form-action 'none'".to_string(),
            "object-src 'none'".to_string(),
        ]
        .join("; ")
    }
}

/// `html` with `policy` as its first word: a `<meta>` Content-Security-Policy placed before
/// anything of the server's that could run (after a leading doctype, which keeps the page in
/// standards mode). Policies only add up: the page cannot loosen it.
pub fn with_policy(html: &str, policy: &str) -> String {
    let meta = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">", policy.replace('"', "&quot;"));
    let trimmed = html.trim_start_matches('\u{feff}').trim_start();
    if trimmed.len() >= 9 && trimmed[..9].eq_ignore_ascii_case("<!doctype") {
        if let Some(end) = trimmed.find('>') {
            return format!("{}{meta}{}", &trimmed[..=end], &trimmed[end + 1..]);
        }
    }
    format!("{meta}{trimmed}")
}

#[cfg(test)]
mod tests;
