//! Provider presets: the base URL, default model and auth style of each service people use.
//! Pure data, so the Settings panel and tests share one list.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    OpenAi,
    Ollama,
    LmStudio,
    LlamaCpp,
    Vllm,
    OpenRouter,
    Groq,
    DeepSeek,
    DashScope,
    Anthropic,
    Custom,
    /// llama.cpp in this page (`llm::in_page`): no server and no key; `model` is the GGUF's URL.
    InPage,
}

/// The wire format a preset speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST {base}/chat/completions`, the format most servers copy.
    OpenAi,
    /// `POST {base}/v1/messages`.
    Anthropic,
}

impl Preset {
    pub const ALL: [Preset; 12] = [
        Preset::InPage,
        Preset::OpenAi,
        Preset::Ollama,
        Preset::LmStudio,
        Preset::LlamaCpp,
        Preset::Vllm,
        Preset::OpenRouter,
        Preset::Groq,
        Preset::DeepSeek,
        Preset::DashScope,
        Preset::Anthropic,
        Preset::Custom,
    ];

    pub fn api(self) -> Api {
        match self {
            Preset::Anthropic => Api::Anthropic,
            // Never sent over HTTP: the page makes an `InPage` model for it (ui/services/run.rs).
            _ => Api::OpenAi,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Preset::OpenAi => "OpenAI",
            Preset::Ollama => "Ollama (local)",
            Preset::LmStudio => "LM Studio (local)",
            Preset::LlamaCpp => "llama.cpp server (local)",
            Preset::Vllm => "vLLM (local)",
            Preset::OpenRouter => "OpenRouter",
            Preset::Groq => "Groq",
            Preset::DeepSeek => "DeepSeek",
            Preset::DashScope => "DashScope / Qwen",
            Preset::Anthropic => "Anthropic (Claude)",
            Preset::Custom => "Custom (OpenAI-compatible)",
            Preset::InPage => "In this page — no server, no key",
        }
    }

    /// Stable identifier used in storage and in `<option value>`.
    pub fn id(self) -> &'static str {
        match self {
            Preset::OpenAi => "openai",
            Preset::Ollama => "ollama",
            Preset::LmStudio => "lmstudio",
            Preset::LlamaCpp => "llamacpp",
            Preset::Vllm => "vllm",
            Preset::OpenRouter => "openrouter",
            Preset::Groq => "groq",
            Preset::DeepSeek => "deepseek",
            Preset::DashScope => "dashscope",
            Preset::Anthropic => "anthropic",
            Preset::Custom => "custom",
            Preset::InPage => "in-page",
        }
    }

    pub fn from_id(id: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.id() == id)
    }

    pub fn base_url(self) -> &'static str {
        match self {
            Preset::OpenAi => "https://api.openai.com/v1",
            Preset::Ollama => "http://localhost:11434/v1",
            Preset::LmStudio => "http://localhost:1234/v1",
            Preset::LlamaCpp => "http://localhost:8080/v1",
            Preset::Vllm => "http://localhost:8000/v1",
            Preset::OpenRouter => "https://openrouter.ai/api/v1",
            Preset::Groq => "https://api.groq.com/openai/v1",
            Preset::DeepSeek => "https://api.deepseek.com/v1",
            Preset::DashScope => "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
            Preset::Anthropic => "https://api.anthropic.com",
            Preset::Custom | Preset::InPage => "",
        }
    }

    pub fn default_model(self) -> &'static str {
        match self {
            Preset::OpenAi => "gpt-4o-mini",
            Preset::Ollama => "llama3.2",
            Preset::LmStudio | Preset::LlamaCpp | Preset::Vllm | Preset::Custom => "",
            Preset::OpenRouter => "openai/gpt-4o-mini",
            Preset::Groq => "llama-3.3-70b-versatile",
            Preset::DeepSeek => "deepseek-chat",
            Preset::DashScope => "qwen-plus",
            Preset::Anthropic => "claude-sonnet-4-5",
            Preset::InPage => crate::llm::in_page_models::RECOMMENDED[0].url,
        }
    }

    /// Local servers accept any key (or none); hosted services need one.
    pub fn needs_key(self) -> bool {
        !matches!(self, Preset::Ollama | Preset::LmStudio | Preset::LlamaCpp | Preset::Vllm | Preset::InPage)
    }

    /// Runs in the page, not over HTTP: it has no base URL.
    pub fn in_page(self) -> bool {
        self == Preset::InPage
    }

    /// Whether the API constrains replies to a JSON schema (`response_format`), which the
    /// ReAct strategy's structured output mode needs. Anthropic's Messages API has no such field.
    pub fn supports_json_schema(self) -> bool {
        self.api() == Api::OpenAi
    }
}

/// Where and how to reach the model. The key is held here and only ever put into the
/// `Authorization` header of requests to `base_url`.
#[derive(Clone, PartialEq)]
pub struct ProviderConfig {
    pub preset: Preset,
    pub base_url: String,
    pub model: String,
    pub api_key: String,
}

/// The provider a first visit starts with.
impl Default for ProviderConfig {
    fn default() -> Self {
        let preset = Preset::OpenAi;
        ProviderConfig { preset, base_url: preset.base_url().into(), model: preset.default_model().into(), api_key: String::new() }
    }
}

impl std::fmt::Debug for ProviderConfig {
    // Hand-written so a key can never reach a log through `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("preset", &self.preset)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &if self.api_key.is_empty() { "(none)" } else { "(set)" })
            .finish()
    }
}

#[cfg(test)]
mod tests;
