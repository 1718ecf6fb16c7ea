use super::*;
use crate::storage::tests::{conversation, Memory};

fn head(id: &str, created: f64, cases: usize) -> StoredEval {
    StoredEval {
        version: EVAL_VERSION,
        id: id.into(),
        name: format!("Evaluation {id}"),
        created_unix_ms: created,
        updated_unix_ms: created,
        concurrency: 2,
        running: true,
        cases: (0..cases).map(|i| StoredCase { question: format!("Q{i}?"), expected: (i % 2 == 0).then(|| format!("A{i}")), scorers: vec!["contains".into(), "tool:calculator".into()], tags: vec!["math".into()], documents: if i == 0 { vec!["guide.pdf".into()] } else { Vec::new() } }).collect(),
        configs: vec![
            StoredConfig { name: "Settings".into(), ..Default::default() },
            StoredConfig { name: "Small".into(), preset: Some("groq".into()), model: "small".into(), strategy: Some("tool_calling".into()), template: "Be brief.".into(), allow_tools: true },
        ],
    }
}

#[test]
fn an_evaluation_and_its_cells_round_trip_and_never_show_as_chats() {
    let db = Memory::default();
    let runs = conversation("x", 2).runs;
    let cells: Vec<StoredCell> = runs
        .iter()
        .enumerate()
        .map(|(at, run)| StoredCell::new(at * 3, 1234.5, vec![StoredVerdict { scorer: "contains".into(), pass: at == 0, reason: "why \"quoted\" é".into() }], run))
        .collect();
    let mut records = vec![head_record(&head("e1", 5.0, 3))];
    records.extend(cells.iter().map(|c| cell_record("e1", c)));
    pollster::block_on(put(&db, records)).unwrap();
    pollster::block_on(put(&db, vec![head_record(&head("e2", 9.0, 1))])).unwrap();

    let opened = pollster::block_on(open(&db, "e1")).unwrap().unwrap();
    assert_eq!(opened.head, head("e1", 5.0, 3));
    assert_eq!(opened.cells, cells);
    assert!(opened.problems.is_empty() && !opened.newer);
    let back: Vec<Run> = opened.cells.into_iter().map(StoredCell::into_run).collect();
    assert_eq!(back, runs, "each cell's run comes back whole");

    let (listed, problems) = pollster::block_on(list(&db)).unwrap();
    assert_eq!(listed.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(), ["e2", "e1"], "newest first");
    assert!(problems.is_empty());
    assert!(pollster::block_on(crate::storage::store::list(&db)).unwrap().is_empty(), "not in the chat list");

    pollster::block_on(delete(&db, "e1")).unwrap();
    assert_eq!(pollster::block_on(open(&db, "e1")).unwrap(), None);
    assert_eq!(pollster::block_on(list(&db)).unwrap().0.len(), 1, "the other evaluation stays");
}

#[test]
fn a_damaged_cell_is_named_and_runs_again_and_a_newer_evaluation_is_read_only() {
    let db = Memory::default();
    let run = &conversation("x", 1).runs[0];
    let mut newer = head("e1", 1.0, 2);
    newer.version = EVAL_VERSION + 1;
    pollster::block_on(put(&db, vec![
        head_record(&newer),
        cell_record("e1", &StoredCell::new(0, 1.0, vec![], run)),
        ("evalcell:e1/000001".into(), "{\"at\":1,\"run\":".into()),
        cell_record("e1", &StoredCell::new(99, 1.0, vec![], run)),
        ("evalhead:e9".into(), "not json".into()),
    ]))
    .unwrap();
    let opened = pollster::block_on(open(&db, "e1")).unwrap().unwrap();
    assert!(opened.newer);
    assert_eq!(opened.cells.iter().map(|c| c.at).collect::<Vec<_>>(), [0]);
    assert_eq!(opened.problems.len(), 2, "{:?}", opened.problems);
    assert!(opened.problems[0].contains("runs again"), "{:?}", opened.problems);
    let (listed, problems) = pollster::block_on(list(&db)).unwrap();
    assert_eq!(listed.len(), 1);
    assert!(problems[0].contains("evalhead:e9"), "{problems:?}");
}

#[test]
fn a_full_storage_is_an_error_not_a_loss() {
    let db = Memory::default();
    db.full.set(true);
    assert!(pollster::block_on(put(&db, vec![head_record(&head("e1", 1.0, 1))])).is_err());
}
