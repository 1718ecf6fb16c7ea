//! The settings of the built-in tools, as stored and as edited in the Settings panel. Written
//! by serde, read by hand (`settings_read.rs`): a missing field takes its value from its
//! struct's `Default`.

use super::*;

/// What every tool has: on/off, "return direct", and its own time limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Common {
    pub enabled: bool,
    /// The tool's observation becomes the final answer, without another model call.
    pub return_direct: bool,
    pub timeout_s: f64,
}

impl Default for Common {
    fn default() -> Self {
        Common { enabled: true, return_direct: false, timeout_s: 15.0 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WikipediaSettings {
    pub common: Common,
    /// Language edition: "en", "de", "zh", …
    pub lang: String,
    /// Articles whose lead section is returned.
    pub results: u32,
    pub max_chars: usize,
    /// Overrides `https://{lang}.wikipedia.org` (a mirror, or the test server).
    pub base_url: String,
}

impl Default for WikipediaSettings {
    fn default() -> Self {
        WikipediaSettings { common: Common::default(), lang: "en".into(), results: wikipedia::DEFAULT_LIMIT, max_chars: wikipedia::DEFAULT_MAX_CHARS, base_url: String::new() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArxivSettings {
    pub common: Common,
    pub max_results: u32,
    pub max_chars: usize,
    /// A base URL that answers browser requests itself (a mirror, or the test server). Empty:
    /// arXiv's own API through the CORS proxy or the dev proxy, else OpenAlex.
    pub base_url: String,
    pub openalex_url: String,
    /// OpenAlex asks for a free key since 2026; without one a small daily allowance applies.
    pub openalex_key: String,
}

impl Default for ArxivSettings {
    fn default() -> Self {
        ArxivSettings {
            common: Common::default(),
            max_results: arxiv::DEFAULT_MAX_RESULTS,
            max_chars: arxiv::DEFAULT_MAX_CHARS,
            base_url: String::new(),
            openalex_url: "https://api.openalex.org".into(),
            openalex_key: String::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SearchBackend {
    #[default]
    DuckDuckGo,
    Searx,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WebSearchSettings {
    pub common: Common,
    pub backend: SearchBackend,
    /// A SearXNG instance with JSON output enabled, e.g. `https://searx.example.org`.
    pub searx_url: String,
    /// Overrides DuckDuckGo's API address (a test server that sends CORS headers).
    pub ddg_url: String,
    pub max_chars: usize,
}

impl Default for WebSearchSettings {
    fn default() -> Self {
        WebSearchSettings { common: Common::default(), backend: SearchBackend::DuckDuckGo, searx_url: String::new(), ddg_url: String::new(), max_chars: websearch::DEFAULT_MAX_CHARS }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ToolSettings {
    pub wikipedia: WikipediaSettings,
    pub arxiv: ArxivSettings,
    pub calculator: Common,
    pub web_search: WebSearchSettings,
    /// Python in the page (off until the person turns it on: its runtime is 13 MB to fetch).
    pub python: PythonSettings,
    /// A CORS proxy for services that do not allow browser requests (arXiv, DuckDuckGo).
    /// `{url}` is replaced by the percent-encoded target URL; without it the encoded URL is
    /// appended. Example: `https://proxy.example/?url={url}`.
    pub cors_proxy: String,
    /// MCP servers and the tools they lend (their secrets are not serialised here).
    pub mcp: mcp::McpSettings,
}

/// The `python` tool: `common.timeout_s` is the wall time one call may run (10 s unless set).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PythonSettings {
    pub common: Common,
    /// Each call waits for the person's approval first.
    pub approve: bool,
    /// The code may install pure-Python packages with micropip from `package_index`: the one
    /// network use Python has, off unless the person turns it on.
    pub install_packages: bool,
    /// A Simple API package index (PyPI's, a mirror, or the test server's).
    pub package_index: String,
}

/// PyPI's Simple API, and the host its files come from.
pub const PYPI_INDEX: &str = "https://pypi.org/simple";
const PYPI_FILES: &str = "https://files.pythonhosted.org";

impl Default for PythonSettings {
    fn default() -> Self {
        PythonSettings { common: Common { enabled: false, return_direct: false, timeout_s: 10.0 }, approve: false, install_packages: false, package_index: PYPI_INDEX.into() }
    }
}

impl PythonSettings {
    /// What the worker may reach to install packages: `None` unless the person allowed it and
    /// the index is an http(s) address.
    pub fn install(&self) -> Option<python::Install> {
        if !self.install_packages {
            return None;
        }
        let index = self.package_index.trim().trim_end_matches('/');
        let index = if index.is_empty() { PYPI_INDEX } else { index };
        let origin = crate::base::url::origin(index).filter(|o| o.starts_with("https://") || o.starts_with("http://"))?;
        let mut hosts = vec![origin.clone()];
        if origin == "https://pypi.org" {
            hosts.push(PYPI_FILES.into());
        }
        Some(python::Install { index_urls: vec![index.to_string()], hosts })
    }
}
