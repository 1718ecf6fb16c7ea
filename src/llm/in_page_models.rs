//! The models the page suggests for running in the page: a leaf, read by the presets (the
//! in-page preset's default model) and by Settings.

/// A model suggested in Settings: small instruct models whose Hugging Face downloads a browser
/// may fetch. Sizes are what the files weighed when chosen; the page asks the server for the
/// exact size before it downloads anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recommended {
    pub name: &'static str,
    pub url: &'static str,
    pub size_mb: u32,
    pub licence: &'static str,
}

pub const RECOMMENDED: [Recommended; 4] = [
    Recommended {
        name: "Qwen2.5 0.5B Instruct (Q4_K_M)",
        url: "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf",
        size_mb: 491,
        licence: "Apache-2.0",
    },
    Recommended {
        name: "SmolLM2 360M Instruct (Q8_0)",
        url: "https://huggingface.co/HuggingFaceTB/SmolLM2-360M-Instruct-GGUF/resolve/main/smollm2-360m-instruct-q8_0.gguf",
        size_mb: 386,
        licence: "Apache-2.0",
    },
    Recommended {
        name: "Llama 3.2 1B Instruct (Q4_K_M)",
        url: "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
        size_mb: 808,
        licence: "Llama 3.2 Community License",
    },
    Recommended {
        name: "Qwen2.5 1.5B Instruct (Q4_K_M)",
        url: "https://huggingface.co/bartowski/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
        size_mb: 986,
        licence: "Apache-2.0",
    },
];
