//! Files in and out of the page, as parts fetched on use: a conversation exported as JSON, a
//! run as a Markdown transcript, an HTML page or an OTLP file, a share link's record, and a
//! conversation imported from a file. Views ask for the text; saving it is `page::download`.

use crate::agent::{LocalBoxFuture, Trace};
use crate::app::settings::Settings;
use crate::conversation::Conversation;

/// What the export part writes: files, the Markdown transcript, and the OpenTelemetry trace of
/// a run, saved as a file. (Sending a run to the collector is a part of its own: `otel`.)
pub enum Export {
    /// The whole conversation as an export file.
    Json { chat: Conversation, settings: Settings, now_ms: f64 },
    /// A run's steps as a ReAct transcript.
    Markdown(Trace),
    /// The conversation as one HTML page, every step of it.
    Html(Conversation),
    /// The record a share link carries (`app::share::record`).
    ShareRecord { chat: Conversation, choice: crate::app::share::Choice, secrets: crate::secrets::Secrets, now_ms: f64 },
    /// A run as an OTLP JSON file's text.
    Otel { conversation_id: String, events: Vec<crate::agent::Event>, parent: Option<Vec<crate::agent::Event>>, secrets: crate::secrets::Secrets },
}

crate::ui::services::parts::part!(export_file, preload = preload_export, pub fn export_text(what: Export) -> LocalBoxFuture<'static, Result<String, String>> {
    let otlp = crate::ui::services::otel::otlp;
    let text = match what {
        Export::Json { chat, settings, now_ms } => ready(crate::storage::export_chat(&chat, &crate::storage::ExportedSettings::from(&settings), now_ms)),
        Export::Markdown(trace) => ready(trace.to_markdown()),
        Export::Html(chat) => ready(crate::app::share::html::page(&chat, None)),
        Export::ShareRecord { chat, choice, secrets, now_ms } => ready(crate::app::share::record(&chat, choice, &secrets, now_ms)),
        Export::Otel { conversation_id, events, parent, secrets } => ready(otlp(&conversation_id, &events, parent.as_deref(), &secrets)),
    };
    text
});

fn ready(text: String) -> LocalBoxFuture<'static, Result<String, String>> {
    Box::pin(async move { Ok(text) })
}

/// The export part's text, or why there is none.
pub async fn exported(what: Export, part: &str) -> Result<String, String> {
    match export_text(what).await {
        Ok(writing) => writing.await,
        Err(missing) => Err(missing.message(part)),
    }
}

crate::ui::services::parts::part!(import_file, preload = preload_import, pub fn import_text(text: String) -> Result<Conversation, String> {
    crate::storage::import_chat(&text)
});

/// The largest file Import opens: a 100-step run with long observations exports to about
/// 5 MB, and a file many times that would only stall the page while it is parsed.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const IMPORT_LIMIT_BYTES: f64 = 20.0 * 1024.0 * 1024.0;
