//! `cargo bench --bench documents`: a library of 1,000 pages (about 3 MB of text, made up from a
//! vocabulary of 5,000 words) read, cut into passages and indexed as the page does it, in steps
//! (a page, or `CUT_BYTES` of it, cut; `STEP` passages indexed); then searched with 200 queries; then stored. Prints the
//! time of indexing, the longest step, a search's median and worst time, and the stored index's
//! size beside the text's; then the same with meaning search (every passage given a made-up
//! 768-number vector, as a typical embedding model's): a fused search's time and the vectors'
//! stored size. Native times: the page's WebAssembly runs the same code, slower.

use std::time::Instant;

use thoughtline::app::documents::{CUT_BYTES, STEP};
use thoughtline::documents::index::Builder;
use thoughtline::documents::{meaning, passages, read, Index, Kind, Meaning, Meta, Vectors};

/// A deterministic stream of numbers (xorshift), so every run indexes the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Zipf-like: small numbers far more often than large ones, as words are in text.
    fn word(&mut self, words: usize) -> usize {
        let r = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((words as f64).powf(r) as usize).saturating_sub(1).min(words - 1)
    }
}

fn main() {
    let vocabulary: Vec<String> = (0..5_000).map(|i| format!("w{}{}", ["ka", "ro", "mi", "tes", "lu", "pa"][i % 6], i)).collect();
    let mut rng = Rng(0x5eed);
    // Four documents of 250 pages; a page of about 3,000 characters in paragraphs.
    let mut texts = Vec::new();
    for _ in 0..4 {
        let mut pages = Vec::new();
        for _ in 0..250 {
            let mut page = String::new();
            while page.len() < 3_000 {
                let sentence: Vec<&str> = (0..12).map(|_| vocabulary[rng.word(vocabulary.len())].as_str()).collect();
                page.push_str(&sentence.join(" "));
                page.push_str(if rng.next() % 5 == 0 { ".\n\n" } else { ". " });
            }
            pages.push(page);
        }
        texts.push(pages);
    }
    let total_chars: usize = texts.iter().flatten().map(String::len).sum();

    let started = Instant::now();
    let mut longest_step = 0.0f64;
    let mut index = Index::default();
    let mut stored_bytes = 0;
    let mut passage_count = 0;
    for (d, pages) in texts.iter().enumerate() {
        let pages = read::pdf_pages(pages.clone()).expect("text");
        let mut cutter = passages::Cutter::new(Kind::Pdf);
        loop {
            let step_started = Instant::now();
            let done = cutter.step(&pages, CUT_BYTES);
            longest_step = longest_step.max(step_started.elapsed().as_secs_f64() * 1000.0);
            if done {
                break;
            }
        }
        let cut = cutter.finish();
        passage_count += cut.len();
        let mut builder = Builder::new(format!("d{d}"), format!("book{d}.pdf"), cut);
        loop {
            let step_started = Instant::now();
            let done = builder.step(STEP);
            longest_step = longest_step.max(step_started.elapsed().as_secs_f64() * 1000.0);
            if done {
                break;
            }
        }
        let step_started = Instant::now();
        let indexed = builder.finish();
        let meta = Meta { id: format!("d{d}"), name: format!("book{d}.pdf"), kind: Kind::Pdf, size: 0, added_ms: 0.0 };
        stored_bytes += thoughtline::storage::documents::encode(&meta, &pages, &indexed, None).len();
        index.add(indexed);
        longest_step = longest_step.max(step_started.elapsed().as_secs_f64() * 1000.0);
    }
    let indexing = started.elapsed().as_secs_f64();

    let mut times = Vec::new();
    for _ in 0..200 {
        let query: Vec<&str> = (0..4).map(|_| vocabulary[rng.word(vocabulary.len())].as_str()).collect();
        let t = Instant::now();
        let found = index.search(&query.join(" "), &[], 8);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(found.len() <= 8);
    }
    times.sort_by(f64::total_cmp);

    println!("library: 1000 pages, {total_chars} characters, {passage_count} passages");
    println!("indexing, read + cut + index + encode, all four documents: {indexing:.2} s");
    println!("longest step (a page cut, {STEP} passages indexed, or a document finished and encoded): {longest_step:.1} ms");
    println!("search, 200 queries of 4 words, 8 best: median {:.2} ms, worst {:.2} ms", times[times.len() / 2], times[times.len() - 1]);
    println!("stored: {stored_bytes} bytes for {total_chars} characters of text ({:.2}x)", stored_bytes as f64 / total_chars as f64);

    // Meaning search: vectors of 768 numbers for every passage.
    const DIM: usize = 768;
    let mut vector = |rng: &mut Rng| -> Vec<f32> { (0..DIM).map(|_| (rng.next() % 2001) as f32 / 1000.0 - 1.0).collect() };
    let docs: Vec<(String, usize)> = index.documents().map(|d| (d.doc.clone(), d.passages.len())).collect();
    let mut vector_bytes = 0;
    for (doc, count) in docs {
        let rows: Vec<Vec<f32>> = (0..count).map(|_| vector(&mut rng)).collect();
        let vectors = Vectors::new("bench".into(), &rows).expect("vectors");
        vector_bytes += vectors.data.len() * 4 / 3;
        assert!(index.set_vectors(&doc, vectors));
    }
    let mut fused = Vec::new();
    for _ in 0..200 {
        let words: Vec<&str> = (0..4).map(|_| vocabulary[rng.word(vocabulary.len())].as_str()).collect();
        let query = meaning::unit(&vector(&mut rng));
        let t = Instant::now();
        let found = index.search_by_meaning(&words.join(" "), Meaning { model: "bench", query: &query }, &[], 8);
        fused.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(found.len(), 8);
    }
    fused.sort_by(f64::total_cmp);
    println!("search by words and meaning ({DIM} numbers a passage), 8 best: median {:.2} ms, worst {:.2} ms", fused[fused.len() / 2], fused[fused.len() - 1]);
    println!("vectors stored (a byte a number, base64): {vector_bytes} bytes, {:.2}x the text", vector_bytes as f64 / total_chars as f64);
}
