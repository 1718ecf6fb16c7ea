//! Tests of prompt building: observations are cut by characters, not bytes.

use super::*;

#[test]
fn truncation_counts_characters_not_bytes() {
    assert_eq!(truncate_observation("short", 10), "short");
    assert_eq!(truncate_observation("ééé", 3), "ééé", "6 bytes but 3 characters");
    assert_eq!(truncate_observation("ééééé", 3), "ééé\n[… cut: showing 3 of 5 characters]");
    assert_eq!(truncate_observation("ab😀cd", 3), "ab😀\n[… cut: showing 3 of 5 characters]");
    assert_eq!(truncate_observation("abc", 0), "\n[… cut: showing 0 of 3 characters]");
}
