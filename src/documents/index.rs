//! The full-text index: BM25 over passages. It needs no model and works offline. Each
//! document's share (`Indexed`) is built on its own, a few passages at a time so the page is
//! never held (`Builder::step`), stored on its own, and added to or removed from the `Index`
//! without touching the others: the index grows one document at a time.

use std::collections::HashMap;

use super::meaning::{self, Vectors};
use super::passages::Passage;
use super::words;

/// BM25's usual constants: how fast a word's repeats stop counting, and how much a long
/// passage is discounted.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One document's share of the index: its passages, their lengths in words, and for each word
/// the passages it is in and how often (sorted by word, so what is stored is the same each time).
#[derive(Debug, Clone, PartialEq)]
pub struct Indexed {
    pub doc: String,
    /// The document's name, as the person knows it (its file's name).
    pub name: String,
    pub passages: Vec<Passage>,
    pub lengths: Vec<u32>,
    pub words: Vec<(String, Vec<(u32, u32)>)>,
}

/// Builds an `Indexed` a few passages at a time.
pub struct Builder {
    doc: String,
    name: String,
    passages: Vec<Passage>,
    next: usize,
    lengths: Vec<u32>,
    words: HashMap<String, Vec<(u32, u32)>>,
}

impl Builder {
    pub fn new(doc: String, name: String, passages: Vec<Passage>) -> Builder {
        Builder { doc, name, lengths: Vec::with_capacity(passages.len()), passages, next: 0, words: HashMap::new() }
    }

    /// Indexes up to `count` more passages; true once all are.
    pub fn step(&mut self, count: usize) -> bool {
        let end = self.next.saturating_add(count).min(self.passages.len());
        for i in self.next..end {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut length = 0;
            words::each(&self.passages[i].text, |w| {
                length += 1;
                *counts.entry(w).or_default() += 1;
            });
            self.lengths.push(length);
            for (word, n) in counts {
                self.words.entry(word).or_default().push((i as u32, n));
            }
        }
        self.next = end;
        self.next == self.passages.len()
    }

    /// (passages indexed, passages in all)
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.passages.len())
    }

    pub fn finish(mut self) -> Indexed {
        while !self.step(usize::MAX) {}
        let mut words: Vec<(String, Vec<(u32, u32)>)> = self.words.into_iter().collect();
        words.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, places) in &mut words {
            places.sort_unstable();
        }
        Indexed { doc: self.doc, name: self.name, passages: self.passages, lengths: self.lengths, words }
    }
}

impl Indexed {
    /// All at once (tests, small texts).
    pub fn new(doc: String, name: String, passages: Vec<Passage>) -> Indexed {
        Builder::new(doc, name, passages).finish()
    }
}

/// A passage found, with its BM25 score.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub doc: String,
    pub name: String,
    /// Its place among its document's passages.
    pub at: usize,
    pub passage: Passage,
    pub score: f64,
}

/// Every document's share, and for each word where it is across them.
#[derive(Debug, Default)]
pub struct Index {
    parts: Vec<Indexed>,
    /// word → (part, passage, count)
    postings: HashMap<String, Vec<(u32, u32, u32)>>,
    passages: usize,
    words_in_all: u64,
    /// Each document's passages as vectors, where meaning search has made them.
    vectors: HashMap<String, Vectors>,
}

/// The query as a vector, for meaning search: the model that made it and its numbers.
pub struct Meaning<'a> {
    pub model: &'a str,
    pub query: &'a [f32],
}

/// How many places each ranking offers to the fusion.
const FUSED_DEPTH: usize = 50;

impl Index {
    /// Adds a document's share (in place of an earlier share of the same document).
    pub fn add(&mut self, part: Indexed) {
        if self.parts.iter().any(|p| p.doc == part.doc) {
            self.remove(&part.doc.clone());
        }
        let at = self.parts.len() as u32;
        self.post(at, &part);
        self.parts.push(part);
    }

    fn post(&mut self, at: u32, part: &Indexed) {
        for (word, places) in &part.words {
            let list = self.postings.entry(word.clone()).or_default();
            list.extend(places.iter().map(|&(p, n)| (at, p, n)));
        }
        self.passages += part.passages.len();
        self.words_in_all += part.lengths.iter().map(|&l| l as u64).sum::<u64>();
    }

    /// Takes a document out; the others' shares are posted again.
    pub fn remove(&mut self, doc: &str) {
        let parts = std::mem::take(&mut self.parts);
        let mut vectors = std::mem::take(&mut self.vectors);
        vectors.remove(doc);
        *self = Index::default();
        for part in parts.into_iter().filter(|p| p.doc != doc) {
            self.add(part);
        }
        self.vectors = vectors;
    }

    /// Keeps document `doc`'s passages as vectors (one per passage, else they are not kept).
    pub fn set_vectors(&mut self, doc: &str, vectors: Vectors) -> bool {
        let fits = self.parts.iter().any(|p| p.doc == doc && p.passages.len() == vectors.len());
        if fits {
            self.vectors.insert(doc.to_string(), vectors);
        }
        fits
    }

    pub fn vectors(&self, doc: &str) -> Option<&Vectors> {
        self.vectors.get(doc)
    }

    pub fn documents(&self) -> impl Iterator<Item = &Indexed> {
        self.parts.iter()
    }

    pub fn passage_count(&self) -> usize {
        self.passages
    }

    /// The `limit` best passages for `query`, best first, from the documents in `only` (all
    /// when it is empty). Passages that share no word with the query are not found.
    pub fn search(&self, query: &str, only: &[String], limit: usize) -> Vec<Found> {
        let ranked = self.full_text(query, only, limit);
        ranked.into_iter().map(|((part, at), score)| self.found(part, at, score)).collect()
    }

    /// As `search`, with the passages closest in meaning to the query merged in (reciprocal
    /// rank fusion) from the documents whose vectors are of `meaning.model`. Their score is
    /// then the fused one.
    pub fn search_by_meaning(&self, query: &str, meaning: Meaning<'_>, only: &[String], limit: usize) -> Vec<Found> {
        let words: Vec<(u32, u32)> = self.full_text(query, only, FUSED_DEPTH).into_iter().map(|(at, _)| at).collect();
        let mut close: Vec<((u32, u32), f32)> = Vec::new();
        for (p, part) in self.parts.iter().enumerate() {
            let Some(vectors) = self.vectors.get(&part.doc).filter(|v| v.model == meaning.model) else { continue };
            if !only.is_empty() && !only.contains(&part.doc) {
                continue;
            }
            close.extend(vectors.closeness(meaning.query).into_iter().enumerate().map(|(i, c)| ((p as u32, i as u32), c)));
        }
        close.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let near: Vec<(u32, u32)> = close.into_iter().take(FUSED_DEPTH).map(|(at, _)| at).collect();
        meaning::fuse(&[words, near]).into_iter().take(limit).map(|((part, at), score)| self.found(part, at, score)).collect()
    }

    /// Whether any document has vectors of `model`.
    pub fn has_meaning(&self, model: &str) -> bool {
        self.vectors.values().any(|v| v.model == model)
    }

    fn found(&self, part: u32, at: u32, score: f64) -> Found {
        let part = &self.parts[part as usize];
        Found { doc: part.doc.clone(), name: part.name.clone(), at: at as usize, passage: part.passages[at as usize].clone(), score }
    }

    /// BM25's ranking: (part, passage) and score, best first.
    fn full_text(&self, query: &str, only: &[String], limit: usize) -> Vec<((u32, u32), f64)> {
        if self.passages == 0 || limit == 0 {
            return Vec::new();
        }
        let allowed: Vec<bool> = self.parts.iter().map(|p| only.is_empty() || only.contains(&p.doc)).collect();
        let n = self.passages as f64;
        let average = (self.words_in_all as f64 / n).max(1.0);
        let mut terms = Vec::new();
        words::each(query, |w| {
            if !terms.contains(&w) {
                terms.push(w)
            }
        });
        let mut scores: HashMap<(u32, u32), f64> = HashMap::new();
        for term in &terms {
            let Some(list) = self.postings.get(term) else { continue };
            let df = list.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(part, passage, count) in list {
                if !allowed[part as usize] {
                    continue;
                }
                let length = self.parts[part as usize].lengths[passage as usize] as f64;
                let tf = count as f64;
                *scores.entry((part, passage)).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average));
            }
        }
        let mut ranked: Vec<((u32, u32), f64)> = scores.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::{passages, Kind, Page};

    fn doc(id: &str, text: &str) -> Indexed {
        Indexed::new(id.into(), format!("{id}.md"), passages::cut(&[Page { number: None, text: text.into() }], Kind::Markdown))
    }

    #[test]
    fn the_passage_with_the_rarer_words_comes_first() {
        let mut index = Index::default();
        index.add(doc("a", "# Ferns\n\nFerns grow from spores in damp shade.\n\n# Roses\n\nRoses grow from cuttings in full sun."));
        index.add(doc("b", "# Moss\n\nMoss grows on damp stone."));
        let found = index.search("what grows from spores?", &[], 5);
        assert_eq!(found[0].doc, "a");
        assert_eq!(found[0].passage.heading, "Ferns");
        assert!(found.iter().all(|f| f.score > 0.0));
        assert!(found.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(index.search("damp", &["b".into()], 5).len(), 1, "only the documents asked for");
        assert!(index.search("volcano", &[], 5).is_empty());
        assert!(index.search("", &[], 5).is_empty());
    }

    #[test]
    fn documents_come_and_go_without_touching_the_others() {
        let mut index = Index::default();
        index.add(doc("a", "alpha beta"));
        index.add(doc("b", "beta gamma"));
        index.add(doc("a", "delta"));
        assert_eq!(index.documents().map(|d| d.doc.as_str()).collect::<Vec<_>>(), ["b", "a"], "added again: replaced, not doubled");
        assert!(index.search("alpha", &[], 5).is_empty());
        index.remove("b");
        assert!(index.search("gamma", &[], 5).is_empty());
        assert_eq!(index.search("delta", &[], 5)[0].doc, "a");
        assert_eq!(index.passage_count(), 1);
    }

    #[test]
    fn built_in_steps_it_is_the_same_as_built_at_once() {
        let text: String = (0..50).map(|i| format!("Paragraph {i} on topic{} and more words here.\n\n", i % 7).repeat(4)).collect();
        let cut = passages::cut(&[Page { number: None, text }], Kind::Text);
        let mut builder = Builder::new("d".into(), "d.txt".into(), cut.clone());
        let mut steps = 0;
        while !builder.step(3) {
            steps += 1;
        }
        assert!(steps > 2);
        assert_eq!(builder.progress().0, cut.len());
        assert_eq!(builder.finish(), Indexed::new("d".into(), "d.txt".into(), cut));
    }

    #[test]
    fn meaning_finds_what_shares_no_word_and_both_ways_come_first() {
        let mut index = Index::default();
        index.add(doc("a", "# Ferns\n\nFerns grow from spores.\n\n# Roses\n\nRoses want full sun."));
        index.add(doc("b", "# Moss\n\nMoss likes damp stone."));
        // Made-up vectors: the moss passage points where the query "wet rocks" does.
        assert!(index.set_vectors("a", Vectors::new("m".into(), &[vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]]).unwrap()));
        assert!(index.set_vectors("b", Vectors::new("m".into(), &[vec![0.1, 0.0, 1.0]]).unwrap()));
        assert!(!index.set_vectors("b", Vectors::new("m".into(), &[vec![1.0], vec![1.0]]).unwrap()), "one vector per passage");
        assert!(index.search("wet rocks", &[], 5).is_empty(), "no word in common");
        let query = meaning::unit(&[0.0, 0.0, 1.0]);
        let found = index.search_by_meaning("wet rocks", Meaning { model: "m", query: &query }, &[], 5);
        assert_eq!(found[0].doc, "b");
        let both = index.search_by_meaning("roses", Meaning { model: "m", query: &meaning::unit(&[0.0, 1.0, 0.0]) }, &[], 5);
        assert_eq!(both[0].passage.heading, "Roses", "found by words and by meaning");
        assert!(index.search_by_meaning("wet rocks", Meaning { model: "other", query: &query }, &[], 5).is_empty(), "another model's vectors are not compared");
        assert!(index.has_meaning("m") && !index.has_meaning("other"));
        index.remove("b");
        assert!(index.vectors("b").is_none() && index.vectors("a").is_some());
        index.add(doc("a", "# Ferns\n\nRead again."));
        assert!(index.vectors("a").is_none(), "a document read again has new passages");
    }
}
