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

#[test]
fn cites_passes_when_the_answer_cites_a_passage_of_the_expected_document_and_page() {
    use crate::documents::cited;
    let given = |first: usize, name: &'static str, page: Option<u32>, text: &'static str| {
        let found = [cited::Given { name, page, heading: "", score: 1.0, text }];
        cited::observation("q", &found, first, 10_000).0
    };
    let result = |index: u32, observation: String| Event { index, step: 1, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::ToolResult { tool: "documents".into(), observation } };
    let events = [result(0, given(1, "guide.pdf", Some(3), "Herons nest in reeds.")), result(1, given(2, "notes.md", None, "The car park closes at dusk."))];
    let score = |expected: &str, text: &str| Scorer::Cites.score(Some(expected), &answer(text), &events).unwrap();
    assert!(score("guide.pdf#3", "In reeds [1].").pass);
    assert!(score("GUIDE.pdf", "In reeds [1].").pass, "any page of the file");
    assert!(score("guide.pdf#4; notes.md", "At dusk [2].").pass, "any one of several");
    let wrong = score("guide.pdf#4", "In reeds [1].");
    assert!(!wrong.pass && wrong.reason.contains("cites guide.pdf#3, not guide.pdf#4"), "{}", wrong.reason);
    let none = score("guide.pdf#3", "In reeds.");
    assert!(!none.pass && none.reason.contains("cites no passage"), "{}", none.reason);
    assert!(!score("guide.pdf#3", "In reeds [7].").pass, "a number no passage had");
    assert!(Scorer::parse("cites").unwrap().fits(None).is_err());
    assert!(Scorer::Cites.fits(Some("guide.pdf#three")).unwrap_err().contains("file#page"));
    assert_eq!(Scorer::parse("cites").unwrap().name(), "cites");
}
