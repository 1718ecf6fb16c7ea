//! Tests of the preset list: ids round-trip and are unique, and `Debug` never prints a key.

use super::*;

#[test]
fn ids_round_trip_and_are_unique() {
    for p in Preset::ALL {
        assert_eq!(Preset::from_id(p.id()), Some(p));
    }
    let mut ids: Vec<_> = Preset::ALL.iter().map(|p| p.id()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), Preset::ALL.len());
}

#[test]
fn debug_never_prints_the_key() {
    let cfg = ProviderConfig { preset: Preset::OpenAi, base_url: "u".into(), model: "m".into(), api_key: "sk-secret-123".into() };
    assert!(!format!("{cfg:?}").contains("sk-secret"));
}
