//! Retrieval quality, measured: questions asked in a person's own words about five documents
//! (`tests/fixtures/documents/`), each with the passage that answers it (a file and words only
//! that passage holds). The score is passage recall at 5 with full-text search alone, and with
//! meaning search merged in, from vectors a real embedding model gave for these passages and
//! questions by real embedding models (`tests/fixtures/documents/embeddings-*.json`, recorded
//! by `record_meaning_vectors` below: SmolLM2-135M from the tests' llama.cpp server, and
//! WordLlama through `scripts/wordllama-embeddings.py`).

use super::*;

const QUESTIONS: [(&str, &str, &str); 26] = [
    ("How often should I water the ferns?", "garden.md", "twice a week"),
    ("Do ferns grow from seeds?", "garden.md", "brown dots under the fronds"),
    ("When do I prune the climbing rose?", "garden.md", "late February"),
    ("What did I do about black spot?", "garden.md", "milk solution"),
    ("How long until compost is ready?", "garden.md", "nine months"),
    ("When can tomato seedlings go outside?", "garden.md", "20th of May"),
    ("Which tomato variety was sweetest?", "garden.md", "'Sungold'"),
    ("What worked against slugs?", "garden.md", "Beer traps"),
    ("What pressure for the rear tyre?", "bicycle.md", "70 psi at the rear"),
    ("How often do I clean the bike chain?", "bicycle.md", "every 300 km"),
    ("When should the chain be replaced?", "bicycle.md", "0.5% stretch"),
    ("How do I find what caused a flat tyre?", "bicycle.md", "thorn or glass"),
    ("When were the headset bearings replaced?", "bicycle.md", "March 2025"),
    ("How do I adjust the brake cable?", "bicycle.md", "barrel adjuster"),
    ("How much salt goes in the sourdough loaf?", "sourdough.md", "10 g salt"),
    ("How often do I feed the starter kept in the fridge?", "sourdough.md", "once a week"),
    ("What oven temperature for baking the bread?", "sourdough.md", "250 degrees"),
    ("How long does the bulk rise take?", "sourdough.md", "about five hours"),
    ("What time does the flight to Lisbon leave?", "trip.md", "06:40"),
    ("What is the booking reference?", "trip.md", "KX7QPL"),
    ("How do we get to Sintra?", "trip.md", "Rossio station"),
    ("Where is the flat in Lisbon?", "trip.md", "Rua de São Miguel"),
    ("Where is the fado dinner booked?", "trip.md", "fado house"),
    ("How much was the car insurance?", "budget.csv", "car insurance,410"),
    ("What did the electricity cost in January?", "budget.csv", "January,electricity,88"),
    ("How much did the bike repair cost in the budget?", "budget.csv", "bike repair,45"),
];

fn library() -> Index {
    let mut index = Index::default();
    for name in ["garden.md", "bicycle.md", "sourdough.md", "trip.md", "budget.csv"] {
        let bytes = std::fs::read(format!("{}/tests/fixtures/documents/{name}", env!("CARGO_MANIFEST_DIR"))).expect("a fixture document");
        let kind = Kind::of(name, "").expect("a known kind");
        let pages = read::read(kind, &bytes).expect("readable");
        index.add(Indexed::new(name.into(), name.into(), passages::cut(&pages, kind)));
    }
    index
}

/// The share of questions whose answering passage is among the first `k` found.
pub fn recall_at(index: &Index, k: usize) -> (f64, Vec<&'static str>) {
    recall_with(|question| index.search(question, &[], k))
}

fn recall_with(search: impl Fn(&str) -> Vec<Found>) -> (f64, Vec<&'static str>) {
    let mut missed = Vec::new();
    for (question, file, words) in QUESTIONS {
        let found = search(question);
        if !found.iter().any(|f| f.doc == file && f.passage.text.contains(words)) {
            missed.push(question);
        }
    }
    (1.0 - missed.len() as f64 / QUESTIONS.len() as f64, missed)
}

#[test]
fn passage_recall_at_5_is_at_least_0_9_with_full_text_alone() {
    let index = library();
    // Each answering passage is one passage: the words that mark it are not split by a cut.
    for (_, file, words) in QUESTIONS {
        assert!(index.documents().find(|d| d.doc == file).unwrap().passages.iter().any(|p| p.text.contains(words)), "{words}");
    }
    let (recall, missed) = recall_at(&index, 5);
    println!("passage recall at 5, full text: {recall:.3} (missed: {missed:?})");
    assert!(recall >= 0.9, "recall at 5 is {recall:.3}; missed: {missed:?}");
    let (at_1, _) = recall_at(&index, 1);
    println!("passage recall at 1, full text: {at_1:.3}");
}

/// Where the recorded vectors are: for each text sent (passage or question), its vector as the
/// model gave it, quantised the way the page keeps it (`Vectors`), in base64.
const RECORDED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/documents");

#[derive(serde::Serialize, serde::Deserialize)]
struct Recorded {
    model: String,
    dim: usize,
    vectors: std::collections::BTreeMap<String, String>,
}

fn texts(index: &Index) -> Vec<String> {
    let mut all: Vec<String> = index.documents().flat_map(|d| d.passages.iter().map(|p| p.text.clone())).collect();
    all.extend(QUESTIONS.iter().map(|q| q.0.to_string()));
    all
}

#[test]
fn passage_recall_at_5_with_meaning_search_merged_in() {
    let mut files: Vec<_> = std::fs::read_dir(RECORDED).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("embeddings-"))).collect();
    files.sort();
    assert!(files.len() >= 2, "the recorded vectors of two models");
    for file in files {
        let recorded: Recorded = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).expect("readable");
        meaning_recall(&recorded);
    }
}

fn meaning_recall(recorded: &Recorded) {
    use base64::Engine;
    let mut index = library();
    let vector = |text: &str| -> Vec<f32> {
        let coded = recorded.vectors.get(text).unwrap_or_else(|| panic!("no recorded vector for {text:?}: the passages changed; record again (record_meaning_vectors)"));
        base64::engine::general_purpose::STANDARD.decode(coded).unwrap().into_iter().map(|b| b as i8 as f32).collect()
    };
    let docs: Vec<(String, Vec<Vec<f32>>)> = index.documents().map(|d| (d.doc.clone(), d.passages.iter().map(|p| vector(&p.text)).collect())).collect();
    for (doc, rows) in docs {
        assert!(index.set_vectors(&doc, Vectors::new(recorded.model.clone(), &rows).unwrap()));
    }
    let by_meaning = |question: &str, words: &str, k: usize| {
        let query = super::meaning::unit(&vector(question));
        index.search_by_meaning(words, Meaning { model: &recorded.model, query: &query }, &[], k)
    };
    let (fused, missed) = recall_with(|q| by_meaning(q, q, 5));
    let (fused_1, _) = recall_with(|q| by_meaning(q, q, 1));
    // Meaning alone: the fusion with no full-text ranking (no words to find).
    let (alone, _) = recall_with(|q| by_meaning(q, "", 5));
    println!("{}: passage recall at 5 with full text and meaning {fused:.3} (at 1: {fused_1:.3}); meaning alone at 5: {alone:.3}", recorded.model);
    assert!(fused >= 0.9, "{}: recall at 5 with meaning merged in is {fused:.3}; missed: {missed:?}", recorded.model);
}

/// Records the vectors again from an OpenAI-compatible embeddings server:
/// `THOUGHTLINE_EMBEDDINGS=http://127.0.0.1:PORT/v1 THOUGHTLINE_EMBEDDINGS_MODEL=name
/// THOUGHTLINE_EMBEDDINGS_FILE=embeddings-name.json cargo test --lib record_meaning_vectors -- --ignored`,
/// against `python -m llama_cpp.server --model SmolLM2-135M-Instruct.Q4_1.gguf --embedding true`
/// or `scripts/wordllama-embeddings.py`.
#[test]
#[ignore = "needs an embeddings server"]
fn record_meaning_vectors() {
    use base64::Engine;
    use std::io::{Read, Write};
    let base = std::env::var("THOUGHTLINE_EMBEDDINGS").expect("THOUGHTLINE_EMBEDDINGS=http://host:port/v1");
    let model = std::env::var("THOUGHTLINE_EMBEDDINGS_MODEL").expect("THOUGHTLINE_EMBEDDINGS_MODEL: the model's name");
    let file = std::env::var("THOUGHTLINE_EMBEDDINGS_FILE").expect("THOUGHTLINE_EMBEDDINGS_FILE: embeddings-NAME.json");
    let rest = base.strip_prefix("http://").expect("a plain http:// address");
    let (host, path) = rest.split_once('/').map_or((rest, String::new()), |(h, p)| (h, format!("/{p}")));
    let all = texts(&library());
    let mut vectors = std::collections::BTreeMap::new();
    let mut dim = 0;
    for chunk in all.chunks(8) {
        let body = super::meaning::request_body("embeddings", chunk);
        let mut stream = std::net::TcpStream::connect(host).expect("the embeddings server");
        write!(stream, "POST {path}/embeddings HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, json) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
        assert!(head.starts_with("HTTP/1.") && head[8..].trim_start().starts_with("200"), "{head}");
        assert!(!head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "a chunked answer: read it whole");
        for (text, v) in chunk.iter().zip(super::meaning::parse(json, chunk.len()).unwrap()) {
            let kept = Vectors::new(model.clone(), &[v]).unwrap();
            dim = kept.dim;
            vectors.insert(text.clone(), base64::engine::general_purpose::STANDARD.encode(kept.data.iter().map(|&b| b as u8).collect::<Vec<u8>>()));
        }
    }
    std::fs::write(format!("{RECORDED}/{file}"), serde_json::to_string(&Recorded { model, dim, vectors }).unwrap()).unwrap();
}
