//! Tests of what must be set before anything is sent.

use super::*;

#[test]
fn missing_key_is_reported_only_for_hosted_providers() {
    let mut s = Settings::default();
    assert!(missing_setting(&s).unwrap().contains("API key"));
    s.provider.preset = crate::llm::Preset::Ollama;
    assert_eq!(missing_setting(&s), None);
    s.provider.model.clear();
    assert!(missing_setting(&s).unwrap().contains("model"));
}
