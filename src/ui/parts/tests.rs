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
