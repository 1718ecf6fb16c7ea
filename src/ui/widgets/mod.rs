//! What several features draw: the trace pane and its rows, runs side by side, the chat's
//! bubbles, answers as Markdown, the approval panel and the in-page model's line. Widgets read
//! the record and the page services; they import no feature.

pub mod approval;
pub mod asking;
pub mod bubbles;
pub mod in_page;
pub mod markdown;
pub mod runs;
pub mod sampling;
pub mod views;
pub mod trace;
