use super::*;
use crate::documents::Indexed;

fn meta(id: &str, name: &str, size: u64) -> Meta {
    Meta { id: id.into(), name: name.into(), kind: Kind::of(name, "").unwrap_or(Kind::Text), size, added_ms: id.len() as f64 }
}

fn add(lib: &mut Library, id: &str, name: &str, size: u64) -> Vec<Do> {
    lib.handle(Msg::Added { meta: meta(id, name, size), mime: String::new() })
}

/// Steps until the work asks for no more steps; what was asked meanwhile.
fn run(lib: &mut Library) -> Vec<Do> {
    let mut out = Vec::new();
    for _ in 0..10_000 {
        let got = lib.handle(Msg::Step);
        let more = got.contains(&Do::Yield);
        out.extend(got.into_iter().filter(|d| *d != Do::Yield));
        if !more {
            return out;
        }
    }
    panic!("indexing never ended")
}

fn state(lib: &Library, id: &str) -> State {
    lib.rows().iter().find(|r| r.meta.id == id).unwrap().state.clone()
}

#[test]
fn a_file_is_read_indexed_in_steps_stored_and_found() {
    let mut lib = Library::default();
    assert_eq!(add(&mut lib, "a", "ferns.md", 100), [Do::AskToKeep, Do::Read("a".into())]);
    let text: String = (0..200).map(|i| format!("## Part {i}\n\nFerns number {i} grow from spores.\n\n")).collect();
    assert_eq!(lib.handle(Msg::Bytes { id: "a".into(), bytes: text.into_bytes() }), [Do::Yield]);
    assert_eq!(state(&lib, "a"), State::Reading, "decoded and cut into passages in steps first");
    assert_eq!(lib.handle(Msg::Step), [Do::Yield], "decoded");
    assert_eq!(lib.handle(Msg::Step), [Do::Yield]);
    assert!(matches!(state(&lib, "a"), State::Indexing(0, n) if n > STEP * 2));
    let first = lib.handle(Msg::Step);
    assert_eq!(first, [Do::Yield]);
    assert_eq!(state(&lib, "a"), State::Indexing(STEP, lib.rows()[0].passages), "progress is shown step by step");
    assert!(lib.shelf().borrow().search("spores", &[], 5).is_empty(), "searched only once it is whole");
    assert_eq!(run(&mut lib), [Do::Store("a".into())]);
    assert_eq!(lib.shelf().borrow().search("number 17", &[], 1)[0].passage.heading, "Part 17");
    assert!(lib.stored("a").is_some_and(|(m, pages, ix, _)| m.name == "ferns.md" && pages.len() == 1 && ix.passages.len() == 200));
    lib.handle(Msg::Stored { id: "a".into(), result: Ok(()) });
    assert_eq!(state(&lib, "a"), State::Ready);
    assert!(!lib.busy());
}

#[test]
fn one_document_at_a_time_and_a_bad_one_leaves_the_others_alone() {
    let mut lib = Library::default();
    add(&mut lib, "a", "one.txt", 10);
    assert_eq!(add(&mut lib, "b", "scan.pdf", 10), [], "queued behind the first");
    assert_eq!(add(&mut lib, "c", "two.txt", 10), []);
    assert_eq!(lib.handle(Msg::Bytes { id: "a".into(), bytes: b"\0\x01binary".to_vec() }), [Do::DropBytes("a".into()), Do::ReadPdf("b".into())]);
    assert_eq!(state(&lib, "a"), State::Failed(ReadError::Binary.message()));
    assert_eq!(lib.handle(Msg::PdfRead { id: "b".into(), pages: Ok(vec![" ".into(), "".into()]) }), [Do::DropBytes("b".into()), Do::Read("c".into())]);
    assert_eq!(state(&lib, "b"), State::Failed(ReadError::PdfNoText.message()));
    lib.handle(Msg::Bytes { id: "c".into(), bytes: b"Moss on stone.".to_vec() });
    assert_eq!(run(&mut lib), [Do::Store("c".into())]);
    assert_eq!(lib.shelf().borrow().search("moss", &[], 5).len(), 1);
    assert_eq!(lib.rows().len(), 3, "the failed rows stay, saying why");
}

#[test]
fn files_past_the_bounds_are_refused_on_their_row() {
    let mut lib = Library::default();
    assert_eq!(add(&mut lib, "a", "huge.pdf", MAX_FILE_BYTES + 1), [Do::DropBytes("a".into())]);
    assert!(matches!(state(&lib, "a"), State::Failed(why) if why.contains("50 MB")));
    add(&mut lib, "b", "empty.md", 0);
    assert_eq!(state(&lib, "b"), State::Failed(ReadError::Empty.message()));
    let mut full = Library::default();
    for i in 0..10 {
        full.rows.push(Row { meta: meta(&format!("x{i}"), "big.txt", 49 * 1024 * 1024), pages: 1, passages: 1, state: State::Ready, meaning: None });
    }
    full.handle(Msg::Added { meta: meta("new", "more.txt", 20 * 1024 * 1024), mime: String::new() });
    assert!(matches!(state(&full, "new"), State::Failed(why) if why.contains("remove some")), "{:?}", state(&full, "new"));
}

#[test]
fn a_failed_write_keeps_the_document_searchable_and_can_be_tried_again() {
    let mut lib = Library::default();
    add(&mut lib, "a", "notes.md", 10);
    lib.handle(Msg::Bytes { id: "a".into(), bytes: b"# Notes\n\nThe key is under the mat.".to_vec() });
    run(&mut lib);
    lib.handle(Msg::Stored { id: "a".into(), result: Err("The browser's storage is full.".into()) });
    assert!(lib.rows()[0].state_text().contains("not saved: The browser's storage is full."));
    assert_eq!(lib.shelf().borrow().search("mat", &[], 5).len(), 1);
    assert_eq!(lib.handle(Msg::SaveAgain("a".into())), [Do::Store("a".into())]);
    lib.handle(Msg::Stored { id: "a".into(), result: Ok(()) });
    assert_eq!(lib.handle(Msg::SaveAgain("a".into())), [], "saved: nothing to try again");
}

#[test]
fn stop_ends_the_work_and_says_so_on_each_row_it_left() {
    // A large file is cut a piece at a time: Stop is heard between the pieces too.
    let mut big = Library::default();
    add(&mut big, "x", "big.txt", 10);
    big.handle(Msg::Bytes { id: "x".into(), bytes: "A sentence of some words.\n\n".repeat(20_000).into_bytes() });
    assert_eq!(big.handle(Msg::Step), [Do::Yield]);
    assert_eq!(state(&big, "x"), State::Reading, "more than one piece to cut");
    big.handle(Msg::Stop);
    assert_eq!(state(&big, "x"), State::Stopped);

    let mut lib = Library::default();
    add(&mut lib, "a", "a.md", 10);
    add(&mut lib, "b", "b.md", 10);
    lib.handle(Msg::Bytes { id: "a".into(), bytes: "word ".repeat(50_000).into_bytes() });
    lib.handle(Msg::Step);
    assert!(lib.busy());
    assert_eq!(lib.handle(Msg::Stop), [Do::DropBytes("a".into()), Do::DropBytes("b".into())]);
    assert_eq!((state(&lib, "a"), state(&lib, "b")), (State::Stopped, State::Stopped));
    assert_eq!(lib.handle(Msg::Step), [], "a step already asked for finds nothing to do");
    assert!(lib.shelf().borrow().search("word", &[], 5).is_empty());
    assert_eq!(lib.handle(Msg::Reread("a".into())), [Do::Read("a".into())]);
}

#[test]
fn removing_takes_it_out_of_the_index_and_the_store_even_mid_work() {
    let mut lib = Library::default();
    lib.handle(Msg::Loaded(vec![(meta("old", "old.md", 5), vec![Page { number: None, text: "Heron".into() }], Indexed::new("old".into(), "old.md".into(), passages::cut(&[Page { number: None, text: "Heron".into() }], Kind::Markdown)), None)]));
    assert_eq!(add(&mut lib, "a", "a.md", 10), [Do::Read("a".into())], "already asked to keep the data: documents were stored");
    add(&mut lib, "b", "b.md", 10);
    assert_eq!(lib.handle(Msg::Remove("a".into())), [Do::Delete("a".into()), Do::Read("b".into())]);
    assert_eq!(lib.handle(Msg::Bytes { id: "a".into(), bytes: b"late".to_vec() }), [], "bytes of a removed file are ignored");
    assert_eq!(lib.handle(Msg::Remove("old".into())), [Do::Delete("old".into())]);
    assert!(lib.shelf().borrow().search("heron", &[], 5).is_empty());
    assert_eq!(lib.rows().len(), 1);
}

#[test]
fn a_file_refused_or_gone_says_so_and_the_queue_goes_on() {
    let mut lib = Library::default();
    lib.handle(Msg::Refused { meta: meta("x", "photo.jpg", 10), why: ReadError::Unknown });
    assert_eq!(state(&lib, "x"), State::Failed(ReadError::Unknown.message()));
    add(&mut lib, "a", "a.pdf", 10);
    add(&mut lib, "b", "b.md", 10);
    assert_eq!(lib.handle(Msg::Unreadable { id: "a".into(), why: ReadError::ReaderMissing("offline".into()) }), [Do::DropBytes("a".into()), Do::Read("b".into())]);
    assert!(lib.rows()[1].state_text().contains("Re-read"));
    assert_eq!(lib.handle(Msg::Reread("a".into())), [], "queued behind the one being read");
    assert_eq!(state(&lib, "a"), State::Queued);
}

#[test]
fn rows_keep_the_order_files_were_given_whichever_is_read_first() {
    let mut lib = Library::default();
    let at = |id: &str, name: &str, ms: f64| Meta { added_ms: ms, ..meta(id, name, 10) };
    lib.handle(Msg::Added { meta: at("b", "second.md", 2.0), mime: String::new() });
    lib.handle(Msg::Refused { meta: at("c", "third.png", 3.0), why: ReadError::Unknown });
    lib.handle(Msg::Added { meta: at("a", "first.md", 1.0), mime: String::new() });
    assert_eq!(lib.rows().iter().map(|r| r.meta.name.as_str()).collect::<Vec<_>>(), ["first.md", "second.md", "third.png"]);
}

fn meaning(lib: &Library, id: &str) -> Option<Meaning> {
    lib.rows().iter().find(|r| r.meta.id == id).unwrap().meaning.clone()
}

/// Answers each `Do::Embed` with vectors until no more are asked; what else was asked.
fn embed_all(lib: &mut Library, mut asked: Vec<Do>) -> Vec<Do> {
    let mut other = Vec::new();
    for _ in 0..1000 {
        let Some(at) = asked.iter().position(|d| matches!(d, Do::Embed { .. })) else {
            other.extend(asked);
            return other;
        };
        let Do::Embed { id, from, texts } = asked.remove(at) else { unreachable!() };
        other.append(&mut asked);
        asked = lib.handle(Msg::Embedded { id, from, result: Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect()) });
    }
    panic!("embedding never ended")
}

#[test]
fn meaning_search_embeds_each_document_in_batches_and_stores_the_vectors() {
    let mut lib = Library::default();
    add(&mut lib, "a", "ferns.md", 100);
    let text: String = (0..40).map(|i| format!("## Part {i}\n\nFerns number {i} grow from spores.\n\n")).collect();
    lib.handle(Msg::Bytes { id: "a".into(), bytes: text.into_bytes() });
    run(&mut lib);
    let passages = lib.rows()[0].passages;
    assert!(passages > EMBED_BATCH, "{passages}");
    assert_eq!(meaning(&lib, "a"), None, "off until turned on");
    let asked = lib.handle(Msg::Meaning(Some("nomic".into())));
    assert!(matches!(&asked[..], [Do::Embed { id, from: 0, texts }] if id == "a" && texts.len() == EMBED_BATCH));
    assert_eq!(meaning(&lib, "a"), Some(Meaning::Embedding(0, passages)));
    assert!(lib.busy(), "Stop is offered while embedding");
    let rest = embed_all(&mut lib, asked);
    assert_eq!(rest, [Do::Store("a".into())], "the vectors are stored with the document");
    assert_eq!(meaning(&lib, "a"), Some(Meaning::Ready("nomic".into())));
    assert!(lib.stored("a").unwrap().3.is_some_and(|v| v.len() == passages && v.model == "nomic"));
    assert!(!lib.busy());
    // Turned off and on again with the same model: nothing to embed again.
    assert!(lib.handle(Msg::Meaning(None)).is_empty());
    assert_eq!(meaning(&lib, "a"), None);
    assert!(lib.handle(Msg::Meaning(Some("nomic".into()))).is_empty());
    assert_eq!(meaning(&lib, "a"), Some(Meaning::Ready("nomic".into())));
    // A document added while meaning search is on is embedded once indexed.
    add(&mut lib, "bb", "moss.md", 10);
    lib.handle(Msg::Bytes { id: "bb".into(), bytes: b"# Moss\n\nMoss likes damp stone.".to_vec() });
    let asked = run(&mut lib);
    assert!(asked.contains(&Do::Store("bb".into())) && asked.iter().any(|d| matches!(d, Do::Embed { id, .. } if id == "bb")), "{asked:?}");
}

/// A library with two small documents indexed, "a" and "bb".
fn two_indexed() -> Library {
    let mut lib = Library::default();
    for (id, name) in [("a", "a.md"), ("bb", "b.md")] {
        add(&mut lib, id, name, 10);
        lib.handle(Msg::Bytes { id: id.into(), bytes: format!("# {name}\n\nSome words.").into_bytes() });
        run(&mut lib);
    }
    lib
}

#[test]
fn a_failed_embedding_says_why_and_waits_for_the_person() {
    let mut lib = two_indexed();
    let asked = lib.handle(Msg::Meaning(Some("m".into())));
    let Some(Do::Embed { id, from, .. }) = asked.into_iter().next() else { panic!("nothing to embed") };
    assert!(lib.handle(Msg::Embedded { id: id.clone(), from, result: Err("http://x/v1/embeddings answered 404".into()) }).is_empty(), "the others wait");
    assert!(matches!(meaning(&lib, &id), Some(Meaning::Failed(why)) if why.contains("404")));
    assert_eq!(meaning(&lib, "bb"), None);
    assert_eq!(lib.meaning_model(), None, "turned off, to be turned on again");
    assert!(!lib.busy());
    assert!(lib.handle(Msg::Embedded { id, from, result: Ok(vec![vec![1.0]]) }).is_empty(), "a late answer is ignored");
    // Searching still works by words.
    assert_eq!(lib.shelf().borrow().search("words", &[], 5).len(), 2);
}

#[test]
fn removing_or_stopping_ends_the_embedding() {
    let mut lib = two_indexed();
    let asked = lib.handle(Msg::Meaning(Some("m".into())));
    assert!(matches!(&asked[..], [Do::Embed { id, .. }] if id == "a"));
    let next = lib.handle(Msg::Remove("a".into()));
    assert!(next.contains(&Do::Delete("a".into())) && next.iter().any(|d| matches!(d, Do::Embed { id, .. } if id == "bb")), "{next:?}");
    lib.handle(Msg::Stop);
    assert_eq!(meaning(&lib, "bb"), None);
    assert!(!lib.busy());
}

#[test]
fn a_large_text_file_is_decoded_a_slice_a_step() {
    let mut lib = Library::default();
    let text = "Lines of notes about ferns and spores.\r\n".repeat(80_000);
    add(&mut lib, "a", "notes.txt", text.len() as u64);
    assert_eq!(lib.handle(Msg::Bytes { id: "a".into(), bytes: text.clone().into_bytes() }), [Do::Yield]);
    let mut decoding = 0;
    while state(&lib, "a") == State::Reading {
        assert_eq!(lib.handle(Msg::Step), [Do::Yield]);
        decoding += 1;
    }
    assert!(decoding >= text.len() / DECODE_BYTES, "{decoding} steps for {} bytes", text.len());
    run(&mut lib);
    assert!(lib.pages_of("a").unwrap()[0].text.starts_with("Lines of notes about ferns and spores.\nLines"));
    // A file that turns out not to be text fails on its row.
    let mut bad = "text ".repeat(300_000).into_bytes();
    bad.extend(std::iter::repeat_n(1u8, 10_000));
    bad.push(0xff);
    add(&mut lib, "bb", "odd.txt", bad.len() as u64);
    lib.handle(Msg::Bytes { id: "bb".into(), bytes: bad });
    run(&mut lib);
    assert!(matches!(state(&lib, "bb"), State::Ready | State::Indexing(..)), "Latin-1, since the head is text: {:?}", state(&lib, "bb"));
}
