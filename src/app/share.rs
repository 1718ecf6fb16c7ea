//! Showing a run to someone with nothing but a link: the record goes in the link's fragment (the
//! part after `#`, which a browser never sends to a server), packed by the browser's
//! `CompressionStream` and written in the URL-safe Base64 alphabet.
//!
//! What is shared is chosen (`Choice`): the run shown (with its branches) or the whole
//! conversation, its observations whole or cut. `Sharing` is the Share panel's state: the
//! choice, the link made for it (packing takes a moment, and a link made for an earlier choice
//! is dropped), and whether it is short enough to survive where links are sent (`Fit`).
//! `link.rs` writes and reads the fragment's envelope, `html.rs` the page "Save as HTML" writes.
//!
//! A link is untrusted input: `read_fragment` and `open_record` name what is wrong with a cut,
//! altered, oversized or newer one, and the browser's unpacking stops at `UNPACKED_LIMIT`.

use serde_json::Value;

use crate::agent::trace::row::grouped;
use crate::agent::trace::RequestRecord;
use crate::agent::{ChatRequest, EventKind};
use crate::conversation::Conversation;
use crate::secrets::Secrets;

pub mod html;
pub mod link;

pub use link::{fragment, read_fragment, LinkError, LINK_KEY, MAX_LINK_CHARS, UNPACKED_LIMIT};

/// What the link holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The run shown in the trace, with every branch of it.
    Run,
    /// Every run of the conversation.
    Conversation,
}

/// Each observation as it came, or cut to `CUT_CHARS` characters (and then the requests sent to
/// the model are left out: they quote the observations whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observations {
    Whole,
    Cut,
}

/// How many characters of each observation a cut link keeps.
pub const CUT_CHARS: usize = 1_000;

/// A link this long or shorter survives anywhere a link is pasted: Discord's messages hold
/// 2,000 characters, SMS and many forms less than that.
pub const ANYWHERE_CHARS: usize = 2_000;
/// The longest link offered: past it, the file is offered instead. Microsoft Teams takes about
/// 28 KB a message, measured at about 14,600 plain characters; Slack splits messages past 4,000
/// characters (a link is kept whole) and cuts them at 40,000; mail keeps a link of any length
/// but wraps the text around it. (docs/performance.md, "Sharing by link".)
pub const LINK_FITS_CHARS: usize = 14_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub scope: Scope,
    pub observations: Observations,
}

impl Default for Choice {
    fn default() -> Self {
        Choice { scope: Scope::Run, observations: Observations::Whole }
    }
}

/// Where a link of this length survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Anywhere,
    MostPlaces,
    /// Too long to survive chat apps: the file is offered instead.
    TooLong,
}

impl Fit {
    pub fn of(chars: usize) -> Fit {
        if chars <= ANYWHERE_CHARS {
            Fit::Anywhere
        } else if chars <= LINK_FITS_CHARS {
            Fit::MostPlaces
        } else {
            Fit::TooLong
        }
    }

    /// What the person reads beside the link's size.
    pub fn says(self, chars: usize) -> String {
        let size = grouped(chars);
        match self {
            Fit::Anywhere => format!("The link is {size} characters: it fits anywhere a link can be pasted."),
            Fit::MostPlaces => format!("The link is {size} characters: fine in mail, Slack and Teams; too long for Discord or a text message."),
            Fit::TooLong => format!(
                "This link would be {size} characters: chat apps and mail cut links past {} characters. Share this run only, cut the observations, or send a file instead.",
                grouped(LINK_FITS_CHARS)
            ),
        }
    }
}

/// The conversation as the link carries it: only what was chosen, its observations cut when
/// asked, masked with the settings' secrets once more on the way out (everything it holds was
/// masked where it came in).
pub fn shared_chat(chat: &Conversation, choice: Choice, secrets: &Secrets) -> Conversation {
    let runs = match choice.scope {
        Scope::Conversation => chat.runs.clone(),
        Scope::Run => chat.shown_run().cloned().into_iter().collect(),
    };
    let mut shared = Conversation::with_runs(String::new(), chat.title(), runs);
    if choice.observations == Observations::Cut {
        for run in &mut shared.runs {
            run.each_line_mut(|_, _, events, _| events.iter_mut().for_each(|e| cut_event(&mut e.kind)));
        }
    }
    shared.mask(secrets);
    shared
}

/// An observation cut to `CUT_CHARS` with a note of what was left out; a model request left out
/// (its record quotes observations by their length, which the cut changes).
fn cut_event(kind: &mut EventKind) {
    match kind {
        EventKind::ToolResult { observation, .. } => {
            let chars = observation.chars().count();
            if chars > CUT_CHARS {
                let end = observation.char_indices().nth(CUT_CHARS).map_or(observation.len(), |(i, _)| i);
                observation.truncate(end);
                observation.push_str(&format!("\n… (cut for the link: {} more characters)", grouped(chars - CUT_CHARS)));
            }
        }
        EventKind::LlmRequest { request, .. } => {
            *request = RequestRecord::whole(&ChatRequest::new(Vec::new(), request.temperature, request.max_tokens));
        }
        _ => {}
    }
}

/// The record a link carries: the conversation as an export file, without the settings (`{}`,
/// which reads as defaults: a link never changes them, and the trace names the model and tools
/// each run used), and with what was cut said in `shared`.
pub fn record_json(shared: &Conversation, choice: Choice, now_unix_ms: f64) -> String {
    let text = crate::storage::export_chat(shared, &crate::storage::ExportedSettings::default(), now_unix_ms);
    let Ok(Value::Object(mut file)) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    file.insert("settings".into(), Value::Object(Default::default()));
    if choice.observations == Observations::Cut {
        file.insert("shared".into(), serde_json::json!({ "observations_cut_at": CUT_CHARS }));
    }
    Value::Object(file).to_string()
}

/// A link's record, opened.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    pub chat: Conversation,
    /// Observations were cut to this many characters (and the requests left out).
    pub cut_at: Option<usize>,
}

impl Opened {
    /// The note above the shared view, when something was left out.
    pub fn note(&self) -> Option<String> {
        self.cut_at.map(|n| format!("Shared with each observation cut to {} characters; the requests sent to the model are left out.", grouped(n)))
    }
}

/// Reads a link's unpacked record as export files are read (every version this release knows,
/// damage named), and masks key shapes out of it: a link is untrusted. (The page reads the
/// record with the import part, then `opened`.)
pub fn open_record(text: &str) -> Result<Opened, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("This link opened, but what it holds is not a shared run ({e})."))?;
    let chat = crate::storage::import_value(&value).map_err(unreadable)?;
    Ok(opened(chat, cut_in(&value)))
}

/// Why a link's record could not be read, from the importer's reason.
pub fn unreadable(why: String) -> String {
    format!("This link opened, but its record cannot be read: {why}")
}

/// How many characters the link's observations were cut to, as its record says.
pub fn cut_at(text: &str) -> Option<usize> {
    cut_in(&serde_json::from_str(text).ok()?)
}

fn cut_in(record: &Value) -> Option<usize> {
    record.get("shared")?.get("observations_cut_at")?.as_u64().map(|n| n as usize)
}

/// A link's conversation, read, with key shapes masked out of it.
pub fn opened(mut chat: Conversation, cut_at: Option<usize>) -> Opened {
    chat.mask(&Secrets::default());
    Opened { chat, cut_at }
}

/// The record a link carries for `choice`: `shared_chat`, written by `record_json`.
pub fn record(chat: &Conversation, choice: Choice, secrets: &Secrets, now_unix_ms: f64) -> String {
    record_json(&shared_chat(chat, choice, secrets), choice, now_unix_ms)
}

/// The Share panel: what is chosen, and the link made for it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sharing {
    pub choice: Choice,
    /// Bumped by each new choice: a link packed for an earlier one is dropped.
    ticket: u32,
    /// The link, once packed, or why there is none.
    pub link: Option<Result<String, String>>,
}

impl Sharing {
    /// A link is to be made for the choice now (`choose` first to change it): its ticket. The
    /// page makes the `record` and packs it; the link comes with `packed`.
    pub fn ask(&mut self) -> u32 {
        self.ticket = self.ticket.wrapping_add(1);
        self.link = None;
        self.ticket
    }

    pub fn choose(&mut self, choice: Choice) -> bool {
        let changed = choice != self.choice;
        self.choice = choice;
        changed
    }

    /// The packed record for `ticket`, made into a link to `page` (the page's address without
    /// its fragment); dropped when a later choice was made meanwhile.
    pub fn packed(&mut self, ticket: u32, page: &str, packed: Result<Vec<u8>, String>) {
        if ticket != self.ticket {
            return;
        }
        let base = page.split('#').next().unwrap_or(page);
        self.link = Some(packed.map(|bytes| format!("{base}#{}", fragment(&bytes))));
    }

    /// How long the link is and where it survives.
    pub fn fit(&self) -> Option<(usize, Fit)> {
        let chars = self.link.as_ref()?.as_ref().ok()?.len();
        Some((chars, Fit::of(chars)))
    }

    /// The link, when it is short enough to be offered.
    pub fn offered(&self) -> Option<&str> {
        match (self.fit(), &self.link) {
            (Some((_, fit)), Some(Ok(link))) if fit != Fit::TooLong => Some(link),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
