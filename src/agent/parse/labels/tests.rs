//! Labels: the cut at an invented `Observation:`, and the words that mark the format.

use super::{contains_final_label, cut_at_observation, has_format_words};

// 16. cut_at_observation.
#[test]
fn cut_observation() {
    let rows: &[(&str, &str, Option<&str>)] = &[
        ("a\nObservation: x", "a\n", Some("Observation: x")),
        ("Observation: x", "", Some("Observation: x")),
        ("a\n   Observation: x\nmore", "a\n   ", Some("Observation: x\nmore")),
        ("\tObservation:", "\t", Some("Observation:")),
        ("a\r\nObservation: x", "a\r\n", Some("Observation: x")),
        ("a\nObservation: 1\nObservation: 2", "a\n", Some("Observation: 1\nObservation: 2")),
        ("a Observation: x", "a Observation: x", None),
        ("a\nobservation: x", "a\nobservation: x", None),
        ("a\nObservations: x", "a\nObservations: x", None),
        ("a\nObservation x", "a\nObservation x", None),
        ("", "", None),
        ("\n\n", "\n\n", None),
        ("ü\nObservation:ü", "ü\n", Some("Observation:ü")),
    ];
    for (text, kept, cut) in rows {
        assert_eq!(cut_at_observation(text), (*kept, *cut), "{text:?}");
    }
}

#[test]
fn format_words() {
    let rows: &[(&str, bool)] = &[
        ("Paris is the capital.", false),
        ("the final answer is 3", false),
        ("We must take action now.", false),
        ("Thoughtful remarks: none", false),
        ("Thought: x", true),
        ("so, thought: x", true),
        ("**Action:** x", true),
        ("My action: none", true),
        ("action_input", true),
        ("Action Input", true),
        ("observation: it rains", true),
        ("The Final Answer is near", true),
        ("final_answer", true),
        ("final answer: 3", true),
        ("", false),
        ("fin", false),
    ];
    for (text, want) in rows {
        assert_eq!(has_format_words(text.as_bytes()), *want, "{text:?}");
    }
}

#[test]
fn final_label_inside_a_name() {
    for (name, want) in [
        ("Final Answer: 42", true),
        ("final_answer: x", true),
        ("then Final Answer : x", true),
        ("Final Answer", false),
        ("finalanswer: x", true),
        ("semifinal answer: x", false),
    ] {
        assert_eq!(contains_final_label(name), want, "{name:?}");
    }
}
