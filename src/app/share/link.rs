//! The fragment of a share link: `share=1.<bytes>.<packed>`, where `1` is the version of the
//! envelope, `<bytes>` how many bytes the packed record has, and `<packed>` the record as the
//! browser's gzip `CompressionStream` wrote it, in the URL-safe Base64 alphabet without padding.
//!
//! The byte count tells a link cut short (chat apps and mail cut long links) from one altered:
//! a character replaced or added changes what unpacks, which gzip's own checksum then refuses
//! (in the browser). Reading is bounded before anything is decoded.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// How a share link's fragment starts (after the `#`).
pub const LINK_KEY: &str = "share=";
const VERSION: u32 = 1;
/// The longest link the page opens: Chromium refuses addresses past 2 MB.
pub const MAX_LINK_CHARS: usize = 2 * 1024 * 1024;
/// The most a link's record may unpack to; the browser's unpacking stops there (a small link
/// can unpack to gigabytes).
pub const UNPACKED_LIMIT: usize = 8 * 1024 * 1024;

/// What is wrong with a share link, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// Not the envelope at all: no version and size, or not our characters.
    Damaged,
    /// Made by a later release.
    Newer(u32),
    /// Shorter than it says it is.
    Cut { have: usize, want: usize },
    /// Changed after it was made: longer than it says, or not what was packed.
    Altered,
    TooLong(usize),
    /// Unpacks to more than `UNPACKED_LIMIT`.
    TooBig,
}

impl LinkError {
    pub fn message(&self) -> String {
        use crate::agent::trace::row::grouped;
        match self {
            LinkError::Damaged => "This link is damaged: the part after \"#share=\" is not a shared run. Copy the whole link again from where it was sent.".into(),
            LinkError::Newer(v) => format!("This link was made by a newer Thoughtline (link version {v}). Open it once this page has updated."),
            LinkError::Cut { want: 0, .. } => "This link is cut off before the run it carries. Chat apps and mail sometimes cut long links: copy the whole link, or ask for the file instead.".into(),
            LinkError::Cut { have, want } => format!(
                "This link is cut off: it holds {} of its {} characters. Chat apps and mail sometimes cut long links: copy the whole link, or ask for the file instead.",
                grouped(*have),
                grouped(*want)
            ),
            LinkError::Altered => "This link was changed after it was made: what it holds does not match what was shared. Copy the whole link again from where it was sent.".into(),
            LinkError::TooLong(chars) => format!("This link is {} characters long, more than this page opens ({}).", grouped(*chars), grouped(MAX_LINK_CHARS)),
            LinkError::TooBig => format!("This link unpacks to more than {} MB, more than a shared run may hold: it was not opened.", UNPACKED_LIMIT / (1024 * 1024)),
        }
    }
}

/// The fragment (without `#`) for a packed record.
pub fn fragment(packed: &[u8]) -> String {
    format!("{LINK_KEY}{VERSION}.{}.{}", packed.len(), URL_SAFE_NO_PAD.encode(packed))
}

/// How many Base64 characters `bytes` bytes take without padding.
pub(super) fn encoded_len(bytes: usize) -> usize {
    bytes / 3 * 4 + [0, 2, 3][bytes % 3]
}

/// The packed record a fragment (with or without its `#`) holds, or what is wrong with it.
pub fn read_fragment(fragment: &str) -> Result<Vec<u8>, LinkError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    if fragment.len() > MAX_LINK_CHARS {
        return Err(LinkError::TooLong(fragment.len()));
    }
    let rest = fragment.strip_prefix(LINK_KEY).ok_or(LinkError::Damaged)?;
    let mut fields = rest.splitn(3, '.');
    let version: u32 = fields.next().and_then(|v| v.parse().ok()).ok_or(LinkError::Damaged)?;
    if version > VERSION {
        return Err(LinkError::Newer(version));
    }
    if version != VERSION {
        return Err(LinkError::Damaged);
    }
    let size = fields.next().unwrap_or("");
    let Ok(bytes) = size.parse::<usize>() else {
        // Cut within its size: the link ends before its record starts.
        let cut = size.bytes().all(|b| b.is_ascii_digit()) && fields.next().is_none();
        return Err(if cut { LinkError::Cut { have: 0, want: 0 } } else { LinkError::Damaged });
    };
    let packed = fields.next().unwrap_or("");
    // A mail client may break a long link across lines, or a person may copy a space with it.
    let packed: String = packed.chars().filter(|c| !c.is_whitespace()).collect();
    let want = encoded_len(bytes);
    if packed.len() < want {
        return Err(LinkError::Cut { have: packed.len(), want });
    }
    if packed.len() > want || bytes > MAX_LINK_CHARS {
        return Err(LinkError::Altered);
    }
    URL_SAFE_NO_PAD.decode(packed.as_bytes()).map_err(|_| LinkError::Altered)
}

/// Whether a page's fragment (with its `#`) is a share link: the cheap test the first screen
/// makes before fetching the viewer.
pub fn is_share(hash: &str) -> bool {
    hash.strip_prefix('#').unwrap_or(hash).starts_with(LINK_KEY)
}
