use super::{sort_by, sort_by_key};

#[test]
fn equals_the_standard_stable_sort_on_ties() {
    // Pairs (key, original position) with many equal keys: a stable sort keeps the positions
    // of equal keys increasing, exactly as `sort_by_key` does.
    let mut seed = 7u32;
    let items: Vec<(u8, usize)> = (0..500)
        .map(|i| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            ((seed >> 16) as u8 % 13, i)
        })
        .collect();
    let mut ours = items.clone();
    sort_by_key(&mut ours, |p| p.0);
    let mut std_sorted = items;
    std_sorted.sort_by_key(|p| p.0);
    assert_eq!(ours, std_sorted);
}

#[test]
fn sorts_owned_values_with_a_comparator_and_keeps_every_item() {
    let mut words: Vec<String> = ["pear", "fig", "apple", "kiwi", "fig", "banana"].iter().map(|s| s.to_string()).collect();
    sort_by(&mut words, |a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    assert_eq!(words, ["banana", "apple", "kiwi", "pear", "fig", "fig"]);
}

#[test]
fn short_lists_are_left_as_they_are() {
    let mut empty: Vec<u8> = Vec::new();
    sort_by_key(&mut empty, |x| *x);
    assert!(empty.is_empty());
    let mut one = vec![3];
    sort_by_key(&mut one, |x| *x);
    assert_eq!(one, [3]);
}
