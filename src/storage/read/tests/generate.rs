//! Random values of every stored settings, chat and export type, for the round-trip tests.
//! Floats are ones JSON carries exactly; secrets only where "Remember" would keep them.

use serde_json::{json, Value};

use crate::agent::settings::{EarlyStopping, Strategy};
use crate::agent::{AgentSettings, Event, EventKind, StopReason, Trace};
use crate::llm::{Connection, Preset, ProviderConfig};
use crate::storage::keys::{ProviderKeys, SavedKey};
use crate::storage::chats::{ChatSummary, LegacyChat, OutcomeKind, StoredClarification, StoredHead, StoredMessage, StoredAttached, StoredBranch, StoredOutcome, StoredRun, StoredWho};
use crate::storage::export::{ExportedBranch, ExportedChat, ExportedRun, ExportedSettings};
use crate::app::settings::Settings;
use crate::test_support::Rng;
use crate::tools::mcp::{McpArgument, McpItem, McpOffers, McpServer, McpSettings, McpToolInfo, RememberedSecret};
use crate::tools::{ArxivSettings, Common, SearchBackend, ToolSettings, WebSearchSettings, WikipediaSettings};

const PIECES: [&str; 12] = ["", "a", "Oslo", "\"", "\\", "é", "日本語", "😀", "\n", "\u{0}", "https://x.org/mcp?k=1", "{\"x\":1}"];

pub fn text(rng: &mut Rng) -> String {
    (0..rng.below(4)).map(|_| rng.pick(&PIECES)).collect()
}

/// Text that is not blank (a remembered secret is kept only then).
fn word(rng: &mut Rng) -> String {
    format!("k{}{}", rng.below(1000), text(rng))
}

fn flag(rng: &mut Rng) -> bool {
    rng.below(2) == 0
}

fn maybe<T>(rng: &mut Rng, make: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    (rng.below(3) != 0).then(|| make(rng))
}

fn uint(rng: &mut Rng) -> u32 {
    let any = rng.next() as u32;
    rng.pick(&[0, 1, 3, 15, 4000, u32::MAX, any])
}

fn number(rng: &mut Rng) -> f64 {
    // Eighths: serde_json's default float reader is exact only for short decimals.
    let any = rng.below(1_000_000) as f64 / 8.0;
    rng.pick(&[0.0, 0.5, 15.0, 120.0, -3.25, 1e300, any])
}

fn many<T>(rng: &mut Rng, most: usize, make: fn(&mut Rng) -> T) -> Vec<T> {
    (0..rng.below(most + 1)).map(|_| make(rng)).collect()
}

pub fn agent_settings(rng: &mut Rng) -> AgentSettings {
    AgentSettings {
        strategy: rng.pick(&Strategy::ALL),
        structured_output: flag(rng),
        ask_person: flag(rng),
        direct_answers: flag(rng),
        max_iterations: uint(rng),
        max_time_ms: maybe(rng, number),
        early_stopping: rng.pick(&[EarlyStopping::Force, EarlyStopping::Generate]),
        feed_back_parse_errors: flag(rng),
        parse_error_message: maybe(rng, text),
        feed_back_tool_errors: flag(rng),
        tool_timeout_ms: number(rng),
        observation_limit: uint(rng) as usize,
        history_budget: uint(rng) as usize,
        system_template: maybe(rng, text),
        temperature: rng.below(21) as f32 / 10.0,
        max_tokens: maybe(rng, uint),
        repeat_limit: uint(rng),
        scope: text(rng),
        decline_message: text(rng),
    }
}

pub fn common(rng: &mut Rng) -> Common {
    Common { enabled: flag(rng), return_direct: flag(rng), timeout_s: number(rng) }
}

pub fn mcp_tool(rng: &mut Rng) -> McpToolInfo {
    let schema = rng.pick(&[Value::Null, json!({"type": "object", "properties": {"q": {"type": "string"}}}), json!([1, "x"]), json!(true)]);
    McpToolInfo { name: text(rng), title: text(rng), description: text(rng), input_schema: schema, enabled: flag(rng), ask: flag(rng), unavailable: if flag(rng) { String::new() } else { text(rng) }, view: text(rng), for_model: flag(rng), for_views: flag(rng) }
}

/// A server whose secret survives a round trip through the stored settings: one only when
/// "Remember" is ticked.
pub fn mcp_server(rng: &mut Rng) -> McpServer {
    let remember_secret = flag(rng);
    McpServer {
        url: format!("https://{}.example/mcp", rng.below(1_000_000)),
        header: text(rng),
        secret: if remember_secret && flag(rng) { word(rng) } else { String::new() },
        remember_secret,
        client_id: text(rng),
        client_secret: if remember_secret && flag(rng) { word(rng) } else { String::new() },
        common: common(rng),
        name: text(rng),
        tools: many(rng, 3, mcp_tool),
        instructions: text(rng),
        offers: if flag(rng) { String::new() } else { McpOffers { resources: many(rng, 2, mcp_item), templates: many(rng, 2, mcp_item), prompts: many(rng, 2, mcp_item) }.to_text() },
        resources_ask: flag(rng),
        sampling_ask: flag(rng),
    }
}

pub fn mcp_item(rng: &mut Rng) -> McpItem {
    McpItem {
        name: text(rng),
        description: text(rng),
        uri: text(rng),
        mime_type: text(rng),
        arguments: many(rng, 2, |rng| McpArgument { name: text(rng), description: text(rng), required: flag(rng) }),
    }
}

pub fn tool_settings(rng: &mut Rng) -> ToolSettings {
    ToolSettings {
        wikipedia: WikipediaSettings { common: common(rng), lang: text(rng), results: uint(rng), max_chars: uint(rng) as usize, base_url: text(rng) },
        arxiv: ArxivSettings {
            common: common(rng),
            max_results: uint(rng),
            max_chars: uint(rng) as usize,
            base_url: text(rng),
            openalex_url: text(rng),
            openalex_key: text(rng),
        },
        calculator: common(rng),
        python: crate::tools::PythonSettings { common: common(rng), approve: flag(rng), install_packages: flag(rng), package_index: text(rng) },
        web_search: WebSearchSettings {
            common: common(rng),
            backend: rng.pick(&[SearchBackend::DuckDuckGo, SearchBackend::Searx]),
            searx_url: text(rng),
            ddg_url: text(rng),
            max_chars: uint(rng) as usize,
        },
        cors_proxy: text(rng),
        mcp: McpSettings { servers: many(rng, 3, mcp_server) },
    }
}

pub fn connection(rng: &mut Rng) -> Connection {
    Connection { stream: flag(rng), timeout_s: number(rng), max_attempts: uint(rng), extra_headers: text(rng), max_reply_kb: uint(rng), context_tokens: uint(rng) }
}

pub fn provider_keys(rng: &mut Rng) -> ProviderKeys {
    ProviderKeys { saved: many(rng, 3, |rng| SavedKey { provider: text(rng), key: word(rng) }), plain_http_ok: many(rng, 2, text) }
}

pub fn remembered_secret(rng: &mut Rng) -> RememberedSecret {
    RememberedSecret { url: text(rng), secret: text(rng), client_secret: text(rng) }
}

/// Settings that read back as they were written: "Remember" ticked (else keys are not kept).
pub fn settings(rng: &mut Rng) -> Settings {
    let preset = rng.pick(&Preset::ALL);
    Settings {
        provider: ProviderConfig { preset, base_url: text(rng), model: text(rng), api_key: if flag(rng) { word(rng) } else { String::new() } },
        remember_key: true,
        keys: provider_keys(rng),
        connection: connection(rng),
        agent: agent_settings(rng),
        tools: tool_settings(rng),
        collector: crate::base::Collector { endpoint: text(rng), header_name: text(rng), header_value: if flag(rng) { word(rng) } else { String::new() } },
    }
}

pub fn exported_settings(rng: &mut Rng) -> ExportedSettings {
    ExportedSettings {
        preset: text(rng),
        base_url: text(rng),
        model: text(rng),
        connection: connection(rng),
        agent: agent_settings(rng),
        tools: ToolSettings { mcp: McpSettings { servers: many(rng, 2, |rng| McpServer { secret: String::new(), client_secret: String::new(), ..mcp_server(rng) }) }, ..tool_settings(rng) },
    }
}

/// A few events (the trace family has its own generator, in `agent/trace_read/tests`).
fn event(rng: &mut Rng) -> Event {
    let kind = match rng.below(3) {
        0 => EventKind::AskedPerson { question: text(rng) },
        1 => EventKind::ToolResult { tool: text(rng), observation: text(rng) },
        _ => EventKind::RunStopped { reason: StopReason::Answered, message: text(rng) },
    };
    Event { index: uint(rng), step: uint(rng), started_ms: number(rng), ended_ms: number(rng), kind }
}

pub fn exported_chat(rng: &mut Rng) -> ExportedChat {
    ExportedChat {
        format: text(rng),
        version: uint(rng),
        app_version: text(rng),
        exported_unix_ms: number(rng),
        title: text(rng),
        settings: exported_settings(rng),
        runs: many(rng, 3, exported_run),
    }
}

pub fn exported_run(rng: &mut Rng) -> ExportedRun {
    ExportedRun {
        question: text(rng),
        clarified: many(rng, 2, stored_clarification),
        attached: many(rng, 2, stored_attached),
        steps_kept: flag(rng),
        outcome: maybe(rng, stored_outcome),
        trace: Trace { events: many(rng, 3, event) },
        branches: many(rng, 2, |rng| ExportedBranch {
            parent: uint(rng),
            at: uint(rng),
            question: text(rng),
            clarified: many(rng, 2, stored_clarification),
            outcome: maybe(rng, stored_outcome),
            trace: Trace { events: many(rng, 2, event) },
        }),
        shown: uint(rng),
    }
}

pub fn stored_outcome(rng: &mut Rng) -> StoredOutcome {
    StoredOutcome { kind: rng.pick(&[OutcomeKind::Answer, OutcomeKind::Asks, OutcomeKind::Ended]), text: text(rng) }
}

pub fn stored_clarification(rng: &mut Rng) -> StoredClarification {
    StoredClarification { asked: text(rng), reply: text(rng) }
}

pub fn stored_attached(rng: &mut Rng) -> StoredAttached {
    StoredAttached { name: text(rng), uri: text(rng), server: text(rng) }
}

pub fn stored_run(rng: &mut Rng) -> StoredRun {
    StoredRun {
        question: text(rng),
        clarified: many(rng, 2, stored_clarification),
        attached: many(rng, 2, stored_attached),
        steps_kept: flag(rng),
        outcome: maybe(rng, stored_outcome),
        events: uint(rng),
        branches: many(rng, 2, stored_branch),
        shown: uint(rng),
    }
}

pub fn stored_branch(rng: &mut Rng) -> StoredBranch {
    StoredBranch { parent: uint(rng), at: uint(rng), question: text(rng), clarified: many(rng, 2, stored_clarification), outcome: maybe(rng, stored_outcome), events: uint(rng) }
}

pub fn stored_head(rng: &mut Rng) -> StoredHead {
    StoredHead { version: uint(rng), id: text(rng), title: text(rng), runs: uint(rng) }
}

pub fn stored_message(rng: &mut Rng) -> StoredMessage {
    StoredMessage { who: rng.pick(&[StoredWho::User, StoredWho::Assistant, StoredWho::Problem, StoredWho::AskedPerson]), text: text(rng) }
}

pub fn legacy_chat(rng: &mut Rng) -> LegacyChat {
    LegacyChat { version: uint(rng), id: text(rng), title: text(rng), messages: many(rng, 4, stored_message), trace: many(rng, 3, event), running: flag(rng) }
}

pub fn chat_summary(rng: &mut Rng) -> ChatSummary {
    ChatSummary { version: uint(rng), id: text(rng), title: text(rng), updated_unix_ms: number(rng), problem: None }
}
