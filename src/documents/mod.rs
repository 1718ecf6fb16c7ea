//! The person's own documents, as the agent reads them: a file's bytes become pages of text
//! (`read`), pages become passages that keep their source (`passages`), and passages are found
//! again by a full-text index (`index`, BM25), and by meaning where an embedding model gives
//! vectors (`meaning`, merged with the full-text ranking). What the agent is told, and how the trace and the
//! answer's citations read it back, is `cited`. Plain Rust, no browser: the page service keeps
//! the files and the index in IndexedDB, and a PDF's pages come from a PDF library loaded on use.

pub mod cited;
pub mod index;
pub mod meaning;
pub mod passages;
pub mod read;
mod words;

pub use index::{Found, Index, Indexed, Meaning};
pub use meaning::Vectors;
pub use passages::Passage;
pub use read::{Kind, Page, ReadError};

/// A document as it is stored and listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    pub id: String,
    pub name: String,
    pub kind: Kind,
    /// The file's size in bytes.
    pub size: u64,
    pub added_ms: f64,
}

/// What one stored document holds: its description, pages, share of the index, and its
/// passages' vectors where meaning search made them.
pub type Kept = (Meta, Vec<Page>, Indexed, Option<Vectors>);

#[cfg(test)]
mod quality;
