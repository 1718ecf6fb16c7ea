use super::PartMissing;

super::part!(testing, preload = preload_doubled, fn doubled(x: u32, label: String) -> String {
    format!("{label}: {}", x * 2)
});

#[test]
fn a_part_outside_the_split_page_runs_directly() {
    assert_eq!(pollster::block_on(doubled(21, "twice".into())), Ok("twice: 42".to_string()));
    assert_eq!(pollster::block_on(preload_doubled()), Ok(()));
}

#[test]
fn a_missing_part_names_itself_and_what_to_do() {
    let text = PartMissing.message("Settings");
    assert!(text.starts_with("Settings could not be loaded"), "{text}");
    assert!(text.contains("Check the connection") && text.contains("reload"), "{text}");
}

/// Every `part!` in the sources is in the manifest, and every line of the manifest is a part:
/// adding a part without its line (or leaving a line behind) fails here.
#[test]
fn the_manifest_names_every_part_once() {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut paths);
    let mut declared = Vec::new();
    for path in paths.iter().filter(|p| !p.ends_with("parts.rs") && !p.ends_with("parts/tests.rs")) {
        let text = std::fs::read_to_string(path).unwrap();
        for (_, rest) in text.match_indices("parts::part!(").map(|(i, _)| ((), &text[i + "parts::part!(".len()..])) {
            declared.push(rest.split(',').next().unwrap().trim().to_string());
        }
    }
    // Several functions may draw from one part (one file): the approval panel and servers' questions.
    declared.sort();
    declared.dedup();
    let mut listed: Vec<String> = super::MANIFEST.iter().map(|p| p.chunk.to_string()).collect();
    listed.sort();
    assert_eq!(declared, listed);
    assert!(declared.len() > 10, "the sources were read: {declared:?}");
}

#[test]
fn a_part_is_named_by_its_manifest_line() {
    assert_eq!(super::what("settings"), "Settings");
    assert_eq!(super::what("no_such_part"), "Part of this page");
}
