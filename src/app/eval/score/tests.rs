//! Every scorer on answers that should pass and fail, and the judge's replies.

use super::*;

fn answer(text: &str) -> Outcome {
    Outcome::Answer(text.into())
}

fn verdict(scorer: &str, expected: Option<&str>, outcome: &Outcome) -> Verdict {
    Scorer::parse(scorer).unwrap().score(expected, outcome, &[]).unwrap()
}

#[test]
fn names_read_and_write_back() {
    for name in ["exact", "contains", "regex", "number", "number:0.5", "tool:wikipedia", "answered", "judge"] {
        assert_eq!(Scorer::parse(name).unwrap().name(), name);
    }
    assert_eq!(Scorer::parse(" Exact ").unwrap(), Scorer::Exact);
    assert!(Scorer::parse("fuzzy").unwrap_err().contains("not a scorer"));
    assert!(Scorer::parse("tool:").is_err());
    assert!(Scorer::parse("number:-1").unwrap_err().contains("tolerance"));
}

#[test]
fn text_scorers_compare_normalised() {
    assert!(verdict("exact", Some("Paris"), &answer("  paris. ")).pass);
    assert!(!verdict("exact", Some("Paris"), &answer("It is Paris.")).pass);
    assert!(verdict("contains", Some("Paris"), &answer("It is PARIS, of course.")).pass);
    let miss = verdict("contains", Some("Lyon"), &answer("Paris"));
    assert!(!miss.pass && miss.reason.contains("lyon"), "{}", miss.reason);
    assert!(verdict("regex", Some(r"^\d{4}$"), &answer("1969")).pass);
    assert!(!verdict("regex", Some(r"^\d{4}$"), &answer("in 1969")).pass);
    // No answer: nothing to compare, said so.
    let ended = verdict("exact", Some("Paris"), &Outcome::Ended("Stopped by you.".into()));
    assert!(!ended.pass && ended.reason.contains("without an answer"));
}

#[test]
fn numbers_are_found_in_prose_within_a_tolerance() {
    assert!(verdict("number", Some("42"), &answer("The answer is 42.")).pass);
    assert!(verdict("number", Some("1234567"), &answer("About 1,234,567 people")).pass);
    assert!(verdict("number", Some("-3.5"), &answer("It falls to -3.5 degrees")).pass);
    assert!(verdict("number:0.01", Some("3.14159"), &answer("pi is 3.14")).pass);
    assert!(!verdict("number", Some("3.14159"), &answer("pi is 3.14")).pass);
    assert!(verdict("number", Some("6.02e23"), &answer("Avogadro: 6.02e23")).pass);
    let none = verdict("number", Some("7"), &answer("seven"));
    assert!(!none.pass && none.reason.contains("no number"));
    let wrong = verdict("number", Some("7"), &answer("6 or 8"));
    assert!(!wrong.pass && wrong.reason.contains("6, 8"), "{}", wrong.reason);
    assert!(!verdict("number", Some("12"), &answer("COVID-19")).pass, "a hyphen inside a word is not a minus");
}

#[test]
fn tools_answers_and_what_fits_an_expected_answer() {
    let call = Event { index: 0, step: 1, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::ToolCall { tool: "wikipedia".into(), input: "x".into(), via: None } };
    let tool = Scorer::parse("tool:wikipedia").unwrap();
    assert!(tool.score(None, &answer("a"), std::slice::from_ref(&call)).unwrap().pass);
    assert!(!tool.score(None, &answer("a"), &[]).unwrap().pass);
    assert!(verdict("answered", None, &answer("a")).pass);
    assert!(!verdict("answered", None, &Outcome::Asks("Which?".into())).pass);
    assert_eq!(Scorer::Judge.score(None, &answer("a"), &[]), None, "the judge needs a model");
    assert!(Scorer::Exact.fits(None).is_err());
    assert!(Scorer::Regex.fits(Some("(")).unwrap_err().contains("not a regular expression"));
    assert!(Scorer::parse("number").unwrap().fits(Some("many")).is_err());
    assert!(Scorer::Answered.fits(None).is_ok() && Scorer::Judge.fits(None).is_ok());
}

#[test]
fn the_judge_is_asked_plainly_and_read_leniently() {
    let request = judge_request("Capital of France?", Some("Paris"), "Paris.", DEFAULT_RUBRIC);
    let user = &request.messages[1].content;
    assert!(user.contains("Capital of France?") && user.contains("Expected answer:\nParis") && user.contains("Answer to grade:\nParis."));
    assert_eq!(read_judge("PASS: it names Paris."), Verdict { pass: true, reason: "it names Paris.".into() });
    assert_eq!(read_judge("Let me see.\n**Verdict:** FAIL - it says Lyon").reason, "it says Lyon");
    assert!(!read_judge("**Verdict:** FAIL - it says Lyon").pass);
    assert!(read_judge("pass. Correct.").pass);
    let unreadable = read_judge("I think so");
    assert!(!unreadable.pass && unreadable.reason.contains("no PASS or FAIL"));
}
