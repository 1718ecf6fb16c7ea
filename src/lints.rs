//! The house rules a lint would check, read from the source text (`cargo test` runs them):
//! - the HTTP seam holds: only `net/browser.rs` calls the browser's network APIs, and the
//!   agent, the model client, the tools and MCP name no browser API and no `cfg(target_arch)`,
//!   so all their HTTP goes through `Fetch` and all of it runs in native tests;
//! - `storage/` imports no UI module; the core (`agent/`) and the tools carry no stored names
//!   (no serde `rename`, no reader of stored JSON): those live in `storage/`;
//! - `secrets.rs` is a leaf: it imports nothing of the app but the HTTP layer's encoding and
//!   the shared sort, so every layer may mask and it depends on none of them;
//! - the conversation model knows no Leptos: it is plain data, tested natively;
//! - stored types go to and from JSON only as text (no `serde_json::Value` round trip, no
//!   pretty printing), which would compile a second copy of their (de)serializers.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file under `src/<dir>` but this one, with its path from `src/` and its text.
fn sources(dir: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join(dir), &mut files);
    assert!(!files.is_empty(), "no sources under src/{dir}");
    files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
            (name, text)
        })
        .filter(|(name, _)| name != "lints.rs")
        .collect()
}

#[test]
fn only_the_browser_fetch_reaches_the_network() {
    const NETWORK_APIS: [&str; 6] = ["fetch_with_", "RequestInit", "XmlHttpRequest", "WebSocket::new", "EventSource::new", "send_beacon"];
    for (name, text) in sources("") {
        for api in NETWORK_APIS {
            assert!(name == "net/browser.rs" || !text.contains(api), "{name} uses {api}: go through net::Fetch instead");
        }
    }
}

#[test]
fn the_agent_the_model_client_and_the_tools_know_no_browser() {
    const BROWSER: [&str; 6] = ["web_sys::", "js_sys::", "wasm_bindgen", "leptos::", "net::browser", "target_arch"];
    for dir in ["agent", "llm", "tools", "app"] {
        for (name, text) in sources(dir) {
            for word in BROWSER {
                // The native clock (`SystemClock`) is the one piece of `agent/` that differs by target.
                let allowed = name == "agent/time.rs" && word == "target_arch";
                assert!(allowed || !text.contains(word), "{name} names {word}");
            }
        }
    }
}

#[test]
fn storage_imports_no_ui() {
    for (name, text) in sources("storage") {
        for word in ["crate::ui", "leptos::"] {
            assert!(!text.contains(word), "{name} names {word}: the UI converts its types to the stored ones, not the other way round");
        }
    }
}

#[test]
fn the_core_and_the_tools_carry_no_stored_names() {
    for dir in ["agent", "tools"] {
        for (name, text) in sources(dir) {
            for word in ["serde(rename =", "serde(alias", "json_read::"] {
                assert!(!text.contains(word), "{name} has {word}: stored names and their readers belong to storage/");
            }
        }
    }
}

#[test]
fn secrets_is_a_leaf_and_the_conversation_knows_no_page() {
    let secrets = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/secrets.rs")).expect("src/secrets.rs");
    for line in secrets.lines().filter(|l| l.contains("crate::")) {
        let allowed = ["crate::net::", "crate::sort::"].iter().any(|ok| line.contains(ok));
        assert!(allowed, "secrets.rs reaches up: {line}");
    }
    for (name, text) in sources("conversation") {
        for word in ["leptos::", "web_sys::", "crate::ui", "crate::storage::store", "crate::storage::idb"] {
            assert!(name.ends_with("tests.rs") || !text.contains(word), "{name} names {word}: the conversation is plain data");
        }
    }
}

#[test]
fn stored_types_meet_json_only_as_text() {
    const SECOND_COPY: [&str; 4] = ["to_string_pretty", "to_writer_pretty", "serde_json::to_value", "serde_json::from_value"];
    for (name, text) in sources("") {
        // Tests may compare through `Value`; the bundle never holds them.
        if name.ends_with("tests.rs") || name.contains("/tests/") {
            continue;
        }
        for word in SECOND_COPY {
            assert!(!text.contains(word), "{name} uses {word}: read and write stored types with from_str / to_string");
        }
    }
}

#[test]
fn decimal_text_is_read_through_one_reader() {
    // `str::parse` into a float compiles the standard library's float reader and its table of
    // powers of five into the bundle (about 14 KB gzip); `number::parse_f64` reads the same
    // numbers through serde_json's reader, which the app has anyway.
    for (name, text) in sources("") {
        if name.ends_with("tests.rs") || name.contains("/tests/") {
            continue;
        }
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim_start().starts_with("//")) {
            let typed = (line.contains(": f64 =") || line.contains(": f32 =")) && line.contains(".parse(");
            let turbofish = line.contains("parse::<f64>") || line.contains("parse::<f32>");
            assert!(!typed && !turbofish, "{name}:{}: read decimal text with crate::number::parse_f64", n + 1);
        }
    }
}
