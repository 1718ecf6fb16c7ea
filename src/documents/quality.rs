//! Retrieval quality, measured: questions asked in a person's own words about five documents
//! (`tests/fixtures/documents/`), each with the passage that answers it (a file and words only
//! that passage holds). The score is passage recall at 5 with full-text search alone.

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
    let mut missed = Vec::new();
    for (question, file, words) in QUESTIONS {
        let found = index.search(question, &[], k);
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
