//! The stored shape of one document: its description, its pages' text and its share of the
//! index (each word's passages and counts; a passage's text is not stored twice, it is its
//! page's range), and its passages' vectors where meaning search made them (a byte a number,
//! in base64; an older page reading the record leaves them out). JSON text in IndexedDB (`documents_idb.rs`), beside the file's own bytes.
//! A record of another version is not read, and nothing is ever written over it.

use serde::{Deserialize, Serialize};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use crate::documents::{Indexed, Kept, Kind, Meta, Page, Passage, Vectors};

/// The version this release writes.
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Record {
    v: u32,
    id: String,
    name: String,
    kind: String,
    size: u64,
    added_ms: f64,
    pages: Vec<StoredPage>,
    /// (page's place in `pages`, start, end, heading)
    passages: Vec<(u32, u32, u32, String)>,
    lengths: Vec<u32>,
    words: Vec<(String, Vec<(u32, u32)>)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    meaning: Option<StoredVectors>,
}

#[derive(Serialize, Deserialize)]
struct StoredVectors {
    model: String,
    dim: usize,
    data: String,
}

#[derive(Serialize, Deserialize)]
struct StoredPage {
    n: Option<u32>,
    text: String,
}

/// Why a stored record was not read.
#[derive(Debug, Clone, PartialEq)]
pub enum Unread {
    /// Written by a newer release: left as it is.
    Newer(u32),
    Damaged(String),
}

pub fn encode(meta: &Meta, pages: &[Page], indexed: &Indexed, vectors: Option<&Vectors>) -> String {
    let place = |p: &Passage| pages.iter().position(|page| page.number == p.page).unwrap_or(0) as u32;
    let record = Record {
        v: VERSION,
        id: meta.id.clone(),
        name: meta.name.clone(),
        kind: meta.kind.word().into(),
        size: meta.size,
        added_ms: meta.added_ms,
        pages: pages.iter().map(|p| StoredPage { n: p.number, text: p.text.clone() }).collect(),
        passages: indexed.passages.iter().map(|p| (place(p), p.start as u32, p.end as u32, p.heading.clone())).collect(),
        lengths: indexed.lengths.clone(),
        words: indexed.words.clone(),
        meaning: vectors.map(|v| StoredVectors { model: v.model.clone(), dim: v.dim, data: STANDARD.encode(v.data.iter().map(|&b| b as u8).collect::<Vec<u8>>()) }),
    };
    serde_json::to_string(&record).unwrap_or_default()
}

pub fn decode(text: &str) -> Result<Kept, Unread> {
    #[derive(Deserialize)]
    struct Version {
        v: u32,
    }
    let version: Version = serde_json::from_str(text).map_err(|e| Unread::Damaged(e.to_string()))?;
    if version.v != VERSION {
        return Err(Unread::Newer(version.v));
    }
    let r: Record = serde_json::from_str(text).map_err(|e| Unread::Damaged(e.to_string()))?;
    let kind = Kind::from_word(&r.kind).ok_or_else(|| Unread::Damaged(format!("unknown kind {}", r.kind)))?;
    let pages: Vec<Page> = r.pages.into_iter().map(|p| Page { number: p.n, text: p.text }).collect();
    let mut passages = Vec::with_capacity(r.passages.len());
    for (place, start, end, heading) in r.passages {
        let page = pages.get(place as usize).ok_or_else(|| Unread::Damaged("a passage of a missing page".into()))?;
        let text = crate::documents::passages::text_of(&page.text, kind, start as usize, end as usize).ok_or_else(|| Unread::Damaged("a passage outside its page".into()))?;
        passages.push(Passage { page: page.number, heading, start: start as usize, end: end as usize, text });
    }
    if r.lengths.len() != passages.len() || r.words.iter().any(|(_, places)| places.iter().any(|&(p, _)| p as usize >= passages.len())) {
        return Err(Unread::Damaged("the index does not match the passages".into()));
    }
    // Vectors that do not fit are dropped (the document is embedded again), not a reason to
    // lose the document.
    let vectors = r.meaning.and_then(|m| {
        let data: Vec<i8> = STANDARD.decode(m.data).ok()?.into_iter().map(|b| b as i8).collect();
        let v = Vectors { model: m.model, dim: m.dim, data };
        (m.dim > 0 && v.data.len() == m.dim * passages.len()).then_some(v)
    });
    let meta = Meta { id: r.id.clone(), name: r.name.clone(), kind, size: r.size, added_ms: r.added_ms };
    Ok((meta, pages, Indexed { doc: r.id, name: r.name, passages, lengths: r.lengths, words: r.words }, vectors))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::passages;

    #[test]
    fn a_document_reads_back_as_it_was_written() {
        for (name, text) in [("notes.md", "# A\n\nFirst part.\n\n# B\n\nSecond ünïcode part."), ("t.csv", "a,b\n1,2\n3,4\n")] {
            let kind = Kind::of(name, "").unwrap();
            let pages = vec![Page { number: Some(1), text: text.into() }, Page { number: Some(2), text: "Page two.".into() }];
            let indexed = Indexed::new("id1".into(), name.into(), passages::cut(&pages, kind));
            let meta = Meta { id: "id1".into(), name: name.into(), kind, size: 42, added_ms: 1.5 };
            let stored = encode(&meta, &pages, &indexed, None);
            assert_eq!(decode(&stored), Ok((meta.clone(), pages.clone(), indexed.clone(), None)));
            let rows: Vec<Vec<f32>> = (0..indexed.passages.len()).map(|i| vec![i as f32, 1.0, -0.5]).collect();
            let vectors = Vectors::new("nomic".into(), &rows).unwrap();
            let stored = encode(&meta, &pages, &indexed, Some(&vectors));
            assert_eq!(decode(&stored), Ok((meta, pages, indexed, Some(vectors))));
            let short = stored.replace(r#""dim":3"#, r#""dim":4"#);
            assert!(decode(&short).is_ok_and(|kept| kept.3.is_none()), "vectors that do not fit are dropped, the document kept");
        }
    }

    #[test]
    fn other_versions_and_damage_are_not_read() {
        assert_eq!(decode(r#"{"v":2,"anything":true}"#), Err(Unread::Newer(2)));
        assert!(matches!(decode("{"), Err(Unread::Damaged(_))));
        let bad = r#"{"v":1,"id":"x","name":"x","kind":"text","size":1,"added_ms":0,"pages":[{"n":null,"text":"ab"}],"passages":[[0,0,9,""]],"lengths":[1],"words":[]}"#;
        assert!(matches!(decode(bad), Err(Unread::Damaged(_))));
    }
}
