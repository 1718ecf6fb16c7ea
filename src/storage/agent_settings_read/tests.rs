//! `AgentSettings` read back: the struct's own defaults for missing fields, the stored names,
//! and errors that name the field. (Random values round-trip in `storage/read/tests.rs`.)

use serde_json::json;

use super::*;

fn read(json: &str) -> Result<AgentSettings, String> {
    serde_json::from_str::<AgentSettings>(json).map_err(|e| e.to_string())
}

#[test]
fn a_missing_field_takes_the_structs_default_not_its_types() {
    assert_eq!(read("{}"), Ok(AgentSettings::default()));
    let read = read(r#"{"temperature":0.5}"#).unwrap();
    assert_eq!(read.max_iterations, 15, "AgentSettings::default(), not 0");
    assert_eq!((read.ask_person, read.repeat_limit, read.tool_timeout_ms), (true, 3, 15_000.0));
    assert_eq!(read.temperature, 0.5);
}

#[test]
fn stored_names_and_forms_read() {
    let s = read(r#"{"ask_clarifying":false,"early_stopping":{"generate":null},"strategy":"plan_react","max_time_ms":60000,"max_tokens":null,"future":1}"#).unwrap();
    assert!(!s.ask_person);
    assert_eq!((s.early_stopping, s.strategy, s.max_time_ms, s.max_tokens), (EarlyStopping::Generate, Strategy::PlanReact, Some(60_000.0), None));
    assert!(read(r#"{"ask_person":false}"#).unwrap().ask_person, "only the stored name is read");
    assert_eq!(serde_json::from_str::<EarlyStopping>(r#""force""#).map_err(|e| e.to_string()), Ok(EarlyStopping::Force));
}

#[test]
fn wrong_fields_are_errors_that_name_them() {
    let cases = [
        (json!({"max_iterations": -1}), "max_iterations: expected a whole number"),
        (json!({"max_iterations": null}), "max_iterations: expected a whole number"),
        (json!({"temperature": "hot"}), "temperature: expected a number"),
        (json!({"strategy": "reactive"}), "strategy: unknown strategy"),
        (json!({"early_stopping": "Force"}), "early_stopping: unknown early stopping"),
        (json!({"system_template": 3}), "system_template: expected a string"),
        (json!([15]), "expected an object"),
    ];
    for (input, want) in cases {
        let error = agent_settings(&input).unwrap_err().to_string();
        assert!(error.starts_with(want), "{input}: {error}");
    }
}
