//! Tests of what a session derives from the chat: memory turns and the missing-key notice.

use super::*;

fn msg(who: Who, text: &str) -> ChatMessage {
    ChatMessage { who, text: text.into() }
}

#[test]
fn turns_pair_questions_with_answers_and_skip_problems() {
    let m = [msg(Who::User, "q1"), msg(Who::Assistant, "a1"), msg(Who::User, "q2"), msg(Who::Problem, "no key"), msg(Who::User, "q3"), msg(Who::Assistant, "a3")];
    assert_eq!(turns(&m), vec![Turn { question: "q1".into(), answer: "a1".into() }, Turn { question: "q3".into(), answer: "a3".into() }]);
}

#[test]
fn a_question_and_the_answer_to_the_agents_question_are_one_turn_of_memory() {
    let m = [msg(Who::User, "Weather?"), msg(Who::AskedPerson, "Which city?"), msg(Who::User, "Oslo"), msg(Who::Assistant, "Rain.")];
    assert_eq!(
        turns(&m),
        vec![Turn { question: "Weather?\n(Asked \"Which city?\", the person replied: Oslo)".into(), answer: "Rain.".into() }]
    );
}

#[test]
fn a_question_the_agent_still_asks_about_is_not_memory_yet() {
    let open = [msg(Who::User, "q1"), msg(Who::Assistant, "a1"), msg(Who::User, "Weather?"), msg(Who::AskedPerson, "Which city?")];
    assert_eq!(turns(&open), vec![Turn { question: "q1".into(), answer: "a1".into() }]);
    let twice = [msg(Who::User, "Weather?"), msg(Who::AskedPerson, "Which city?"), msg(Who::User, "Oslo"), msg(Who::AskedPerson, "Which day?")];
    assert_eq!(turns(&twice), vec![]);
}

#[test]
fn missing_key_is_reported_only_for_hosted_providers() {
    let mut s = Settings::default();
    assert!(missing_setting(&s).unwrap().contains("API key"));
    s.provider.preset = crate::llm::Preset::Ollama;
    assert_eq!(missing_setting(&s), None);
    s.provider.model.clear();
    assert!(missing_setting(&s).unwrap().contains("model"));
}
