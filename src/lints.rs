//! The house rules a lint would check, read from the source text (`cargo test` runs them):
//! - the HTTP seam holds: only `net/browser.rs` calls the browser's network APIs, and the
//!   agent, the model client, the tools and MCP name no browser API and no `cfg(target_arch)`,
//!   so all their HTTP goes through `Fetch` and all of it runs in native tests;
//! - `storage/` imports no UI module; the core (`agent/`) and the tools carry no stored names
//!   (no serde `rename`, no reader of stored JSON): those live in `storage/`;
//! - `secrets.rs` is a leaf: it imports nothing of the app but the HTTP layer's encoding and
//!   the shared sort, so every layer may mask and it depends on none of them;
//! - the conversation model knows no Leptos: it is plain data, tested natively;
//! - the page's layers: views (`ui/` outside `ui/services/`) name no browser API, no storage,
//!   no HTTP seam, no tool client, no model client and no in-page engine, and hold no
//!   thread-local: they read the app and the page services; a feature imports no other
//!   feature, widgets no feature, and the page services neither widgets nor features;
//! - the ground floor holds: the HTTP seam and the browser glue import nothing of the agent,
//!   storage nothing of telemetry, and thread-locals live only in the page services and the
//!   seams (storage, the browser glue, the in-page engine's browser side);
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
    for dir in ["agent", "llm", "tools", "app", "documents"] {
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

/// Whether a line is code (not a comment): the rules below read imports, not prose.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(n, l)| (n + 1, l)).filter(|(_, l)| !l.trim_start().starts_with("//"))
}

fn is_test_file(name: &str) -> bool {
    name.ends_with("tests.rs") || name.contains("/tests/")
}

/// The page's features: each `ui/<name>.rs` and `ui/<name>/`.
const FEATURES: [&str; 7] = ["chat", "chats", "settings", "compare", "eval", "share", "documents"];

/// What `name` (a path under `src/`) belongs to in the page: a feature, the widgets, the
/// services or the shell.
fn room(name: &str) -> &str {
    let rest = name.strip_prefix("ui/").expect("under ui/");
    let first = rest.split('/').next().unwrap_or(rest);
    first.strip_suffix(".rs").unwrap_or(first)
}

#[test]
fn views_reach_the_browser_and_the_core_only_through_the_page_services() {
    const BELOW: [&str; 10] = ["crate::storage", "crate::net", "crate::browser", "crate::tools", "crate::llm", "crate::in_page", "web_sys", "js_sys", "wasm_bindgen", "thread_local!"];
    for (name, text) in sources("ui") {
        if name.starts_with("ui/services/") || is_test_file(&name) {
            continue;
        }
        for (n, line) in code_lines(&text) {
            for word in BELOW {
                assert!(!line.contains(word), "{name}:{n} names {word}: a view asks a page service (ui/services/) instead");
            }
        }
    }
}

#[test]
fn no_feature_reaches_another_and_nothing_below_reaches_up() {
    for (name, text) in sources("ui") {
        if is_test_file(&name) {
            continue;
        }
        let here = room(&name);
        // What this room may not import: another feature; for widgets and services, every
        // feature and the shell; for services, the widgets too.
        let mut barred: Vec<String> = Vec::new();
        let shell = ["features", "ahead", "notices"];
        match here {
            "services" => barred.extend(FEATURES.iter().chain(&shell).chain(&["widgets"]).map(|r| r.to_string())),
            "widgets" => barred.extend(FEATURES.iter().chain(&shell).map(|r| r.to_string())),
            f if FEATURES.contains(&f) => barred.extend(FEATURES.iter().filter(|g| **g != f).chain(&shell).map(|r| r.to_string())),
            _ => {}
        }
        for (n, line) in code_lines(&text) {
            for other in &barred {
                let path = format!("crate::ui::{other}::");
                let tag = format!("<crate::ui::{other}::");
                assert!(!line.contains(&path) && !line.contains(&tag), "{name}:{n} reaches {other}: pass a message or a callback the shell hands down instead");
            }
            if FEATURES.contains(&here) && name.matches('/').count() == 1 {
                // A file at the top of ui/ climbs to the shell's names with `super::`.
                assert!(!line.contains("super::") || line.contains("use super::*"), "{name}:{n} names super:: (the shell): name crate::ui::services or crate::ui::widgets");
            }
        }
    }
}

#[test]
fn the_ground_floor_holds() {
    for dir in ["net", "browser"] {
        for (name, text) in sources(dir) {
            assert!(!text.contains("crate::agent"), "{name} imports the agent core: what the seams share is in base/");
        }
    }
    let browser = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/browser.rs")).expect("src/browser.rs");
    assert!(!browser.contains("crate::agent"), "browser.rs imports the agent core: what the seams share is in base/");
    for (name, text) in sources("storage") {
        assert!(!text.contains("crate::otel"), "{name} imports telemetry: the collector's settings are in base/");
    }
    for (name, text) in sources("base") {
        for (n, line) in code_lines(&text) {
            assert!(!line.contains("crate::") || line.contains("crate::base"), "{name}:{n} reaches up from the ground floor: {line}");
        }
    }
}

#[test]
fn thread_locals_live_only_in_the_page_services_and_the_seams() {
    let seams = |name: &str| name.starts_with("ui/services/") || name.starts_with("storage/") || name == "in_page/browser.rs" || name == "net/browser.rs" || name == "browser.rs";
    for (name, text) in sources("") {
        if is_test_file(&name) || seams(&name) {
            continue;
        }
        assert!(!text.contains("thread_local!"), "{name} holds a thread-local: state goes in the app, passed explicitly, or in a page service");
    }
}

#[test]
fn views_hold_no_queue_lock_timer_or_retry_state() {
    // What a view keeps is what it draws (a toggle, a scroll position); queues of work, locks,
    // timers and what to try again are the app's, carried out by a page service.
    const STATE: [&str; 10] = ["VecDeque", "StoredValue<Vec", "StoredValue::new(Vec", "StoredValue::new_local(Vec", "RefCell<Vec", "TimeoutHandle", "IntervalHandle", "set_timeout", "set_interval", "RunLock"];
    for (name, text) in sources("ui") {
        if name.starts_with("ui/services/") || is_test_file(&name) {
            continue;
        }
        for (n, line) in code_lines(&text) {
            for word in STATE {
                assert!(!line.contains(word), "{name}:{n} holds {word}: state of this kind is the app's, carried out by a page service");
            }
        }
    }
}
