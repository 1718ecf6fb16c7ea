//! Tests of the Plan-ReAct reply parser: every tag form, repairs and their notes, refusals, plan
//! items.

use super::*;

fn ok(text: &str) -> Sections {
    match parse_sections(text) {
        Ok(s) => s,
        Err(e) => panic!("expected Ok for {text:?}, got Err({})", e.message),
    }
}

fn err(text: &str) -> String {
    match parse_sections(text) {
        Ok(s) => panic!("expected Err for {text:?}, got {s:?}"),
        Err(e) => e.message,
    }
}

fn has_note(s: &Sections, part: &str) -> bool {
    s.notes.iter().any(|n| n.contains(part))
}

// ---- ADK form ----

#[test]
fn adk_basic_sections() {
    let s = ok("/*PLANNING*/\n1. Open the site\n2. Search\n/*REASONING*/\nStart with step 1.\n/*ACTION*/\n{\"action\": \"open\"}\n");
    assert_eq!(s.plan, vec!["Open the site", "Search"]);
    assert_eq!(s.reasoning.as_deref(), Some("Start with step 1."));
    assert_eq!(s.action.as_deref(), Some("{\"action\": \"open\"}"));
    assert_eq!(s.final_answer, None);
    assert_eq!(s.first, Some(Section::Action));
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn adk_spaces_and_lower_case() {
    let s = ok("/* planning */\n1. a\n/*  Reasoning */ think\n/* action */ {\"x\":1}");
    assert_eq!(s.plan, vec!["a"]);
    assert_eq!(s.reasoning.as_deref(), Some("think"));
    assert_eq!(s.action.as_deref(), Some("{\"x\":1}"));
}

#[test]
fn adk_all_on_one_line() {
    let s = ok("/*REASONING*/ I need x /*ACTION*/ {\"action\": \"click\", \"id\": 3}");
    assert_eq!(s.reasoning.as_deref(), Some("I need x"));
    assert_eq!(s.action.as_deref(), Some("{\"action\": \"click\", \"id\": 3}"));
    assert_eq!(s.first, Some(Section::Action));
}

#[test]
fn adk_realistic_reply_keeps_json_fence() {
    let text = "/*PLANNING*/\n\
1. Open the weather site.\n\
2. Search for Paris.\n\
3. Read today's temperature.\n\
\n\
/*REASONING*/\n\
The page is blank, so step 1 comes first.\n\
\n\
/*ACTION*/\n\
```json\n\
{\"action\": \"navigate\", \"url\": \"https://example.com/a/*b\"}\n\
```\n";
    let s = ok(text);
    assert_eq!(s.plan.len(), 3);
    assert_eq!(s.plan[2], "Read today's temperature.");
    assert_eq!(
        s.action.as_deref(),
        Some("```json\n{\"action\": \"navigate\", \"url\": \"https://example.com/a/*b\"}\n```")
    );
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn adk_final_answer_variants() {
    for tag in ["/*FINAL_ANSWER*/", "/*FINAL ANSWER*/", "/*final-answer*/", "/* Final_Answer */"] {
        let s = ok(&format!("/*REASONING*/ done\n{tag}\nParis"));
        assert_eq!(s.final_answer.as_deref(), Some("Paris"), "{tag}");
        assert_eq!(s.first, Some(Section::FinalAnswer));
    }
}

#[test]
fn adk_unclosed_tag_is_repaired() {
    let s = ok("/*REASONING\nthinking\n/*ACTION\n{\"a\":1}\n*/");
    assert_eq!(s.reasoning.as_deref(), Some("thinking"));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    assert!(has_note(&s, "had no closing */"));
}

#[test]
fn adk_tag_needs_real_name() {
    // "/* REASONING about x */" is a comment, not a tag; no tags at all.
    let e = err("/* REASONING about x */ hello");
    assert!(e.contains("none of the section tags"));
}

// ---- XML form ----

#[test]
fn xml_tags_with_closing() {
    let s = ok("<PLANNING>\n1. a\n2. b\n</PLANNING>\n<REASONING>why</REASONING>\n<ACTION>{\"a\":1}</ACTION>");
    assert_eq!(s.plan, vec!["a", "b"]);
    assert_eq!(s.reasoning.as_deref(), Some("why"));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn xml_missing_closing_tags() {
    let s = ok("<planning>\n1. a\n<reasoning>\nwhy\n<final_answer>\n42");
    assert_eq!(s.plan, vec!["a"]);
    assert_eq!(s.reasoning.as_deref(), Some("why"));
    assert_eq!(s.final_answer.as_deref(), Some("42"));
    assert!(has_note(&s, "the PLANNING section had no closing tag"));
    assert!(has_note(&s, "the FINAL_ANSWER section had no closing tag"));
}

#[test]
fn xml_stray_text_after_closing_tag() {
    let s = ok("<ACTION>{\"a\":1}</ACTION>\nI will wait for the result.");
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    assert_eq!(s.reasoning.as_deref(), Some("I will wait for the result."));
    assert!(has_note(&s, "after the closing tag </ACTION>"));
    // Blank stray text is ignored silently.
    let s = ok("<ACTION>{\"a\":1}</ACTION>\n\n   \n");
    assert!(s.notes.is_empty(), "{:?}", s.notes);
    assert_eq!(s.reasoning, None);
}

#[test]
fn xml_mismatched_and_orphan_closing_tags() {
    let s = ok("<REASONING>why</ACTION>\n/*ACTION*/ {\"a\":1}");
    assert_eq!(s.reasoning.as_deref(), Some("why"));
    assert!(has_note(&s, "was closed with </ACTION>"));
    let s = ok("</REASONING>\n/*FINAL_ANSWER*/ yes");
    assert!(has_note(&s, "had no matching opening tag"));
    assert_eq!(s.final_answer.as_deref(), Some("yes"));
}

#[test]
fn only_closing_tags_count_as_no_tags() {
    let e = err("some text </ACTION>");
    assert!(e.contains("none of the section tags"));
}

// ---- Markdown headers ----

#[test]
fn markdown_headers() {
    let s = ok("## Planning\n1. a\n2. b\n\n## Reasoning\nwhy\n\n### Final Answer\nThe answer is 4.\n");
    assert_eq!(s.plan, vec!["a", "b"]);
    assert_eq!(s.reasoning.as_deref(), Some("why"));
    assert_eq!(s.final_answer.as_deref(), Some("The answer is 4."));
}

#[test]
fn markdown_header_with_colon_and_bold() {
    let s = ok("# REASONING:\nx\n###### **Action:**\n{\"a\":1}\n---\n");
    assert_eq!(s.reasoning.as_deref(), Some("x"));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
}

#[test]
fn markdown_header_with_more_words_is_not_a_tag() {
    let s = ok("## Planning the trip\nsome text\n/*FINAL_ANSWER*/ done");
    assert_eq!(s.reasoning.as_deref(), Some("## Planning the trip\nsome text"));
    assert!(has_note(&s, "text before the first tag"));
    // Seven hashes is not a header.
    let e = err("####### ACTION\n{}");
    assert!(e.contains("none of the section tags"));
}

// ---- Bold and label forms ----

#[test]
fn bold_form_with_content_on_same_line() {
    let s = ok("**Reasoning:** the button is visible\n**Action**: {\"action\": \"click\"}");
    assert_eq!(s.reasoning.as_deref(), Some("the button is visible"));
    assert_eq!(s.action.as_deref(), Some("{\"action\": \"click\"}"));
}

#[test]
fn bold_final_answer() {
    let s = ok("**REASONING**\nok\n**Final Answer:** Paris is the capital.");
    assert_eq!(s.final_answer.as_deref(), Some("Paris is the capital."));
}

#[test]
fn label_form_upper_case() {
    let s = ok("PLANNING: 1. a\n2. b\nREASONING: why\nACTION: {\"a\":1}");
    assert_eq!(s.plan, vec!["a", "b"]);
    assert_eq!(s.reasoning.as_deref(), Some("why"));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
}

#[test]
fn label_form_mixed_case_single_words() {
    let s = ok("Reasoning: look first\n  Action: {\"a\": 2}");
    assert_eq!(s.reasoning.as_deref(), Some("look first"));
    assert_eq!(s.action.as_deref(), Some("{\"a\": 2}"));
}

#[test]
fn label_with_list_dash() {
    let s = ok("- Reasoning: because\n- Final Answer: 7");
    assert_eq!(s.reasoning.as_deref(), Some("because"));
    assert_eq!(s.final_answer.as_deref(), Some("7"));
}

#[test]
fn bare_upper_case_name_on_its_own_line() {
    let s = ok("REASONING\nx\nACTION\n{\"a\":1}");
    assert_eq!(s.reasoning.as_deref(), Some("x"));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    // But a bare lower-case word is just text.
    let e = err("action\nsomething");
    assert!(e.contains("none of the section tags"));
}

#[test]
fn final_answer_label_case_rules() {
    assert_eq!(ok("FINAL ANSWER: 3").final_answer.as_deref(), Some("3"));
    assert_eq!(ok("Final Answer: 3").final_answer.as_deref(), Some("3"));
    assert!(err("final answer: 3").contains("none of the section tags"));
    assert!(err("Final answer: 3").contains("none of the section tags"));
}

#[test]
fn action_input_is_not_an_action_label() {
    let s = ok("Action: {\"a\":1}\nAction Input: more");
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}\nAction Input: more"));
}

#[test]
fn react_style_final_answer_only() {
    let s = ok("Thought: I know this.\nFinal Answer: Paris");
    assert_eq!(s.final_answer.as_deref(), Some("Paris"));
    assert_eq!(s.reasoning.as_deref(), Some("Thought: I know this."));
    assert!(has_note(&s, "text before the first tag was read as reasoning"));
    assert_eq!(s.first, Some(Section::FinalAnswer));
}

#[test]
fn planning_mentioned_mid_sentence_is_not_a_tag() {
    let e = err("I did some planning: first I search, then I act. The action: click.");
    assert!(e.contains("none of the section tags"), "{e}");
    let s = ok("/*REASONING*/\nMy planning: went fine, and the action: was clear.\n/*FINAL_ANSWER*/ ok");
    assert_eq!(
        s.reasoning.as_deref(),
        Some("My planning: went fine, and the action: was clear.")
    );
    assert!(s.plan.is_empty());
}

// ---- FINAL_ANSWER label inside the section ----

#[test]
fn final_answer_label_inside_section_is_stripped() {
    let s = ok("/*FINAL_ANSWER*/\nFinal Answer: Paris");
    assert_eq!(s.final_answer.as_deref(), Some("Paris"));
    let s = ok("/*FINAL_ANSWER*/ Final answer: Paris");
    assert_eq!(s.final_answer.as_deref(), Some("Paris"));
    let s = ok("<FINAL_ANSWER>**Final Answer:** Paris</FINAL_ANSWER>");
    assert_eq!(s.final_answer.as_deref(), Some("Paris"));
}

// ---- REPLANNING ----

#[test]
fn replanning_reply() {
    let s = ok("/*REPLANNING*/\n1. Go back\n2. Try the other link\n/*REASONING*/\nThe first link failed.\n/*ACTION*/\n{\"action\": \"back\"}");
    assert_eq!(s.replan, vec!["Go back", "Try the other link"]);
    assert!(s.plan.is_empty());
    assert_eq!(s.action.as_deref(), Some("{\"action\": \"back\"}"));
}

#[test]
fn replanning_variants() {
    assert_eq!(ok("/*RE-PLANNING*/\n1. x").replan, vec!["x"]);
    assert_eq!(ok("<REPLAN>\n- y\n</REPLAN>").replan, vec!["y"]);
    assert_eq!(ok("## Re-planning\n1. z").replan, vec!["z"]);
}

#[test]
fn plan_only_reply_is_ok() {
    let s = ok("/*PLANNING*/\n1. a\n2. b");
    assert_eq!(s.plan, vec!["a", "b"]);
    assert_eq!(s.first, None);
    assert_eq!(s.action, None);
}

#[test]
fn empty_plan_without_action_is_error() {
    let e = err("/*PLANNING*/\n\n/*REASONING*/ hmm");
    assert!(e.contains("no steps"), "{e}");
}

// ---- ACTION and FINAL_ANSWER together ----

#[test]
fn action_then_final_answer() {
    let s = ok("/*ACTION*/ {\"a\":1}\n/*FINAL_ANSWER*/ done");
    assert_eq!(s.first, Some(Section::Action));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    assert_eq!(s.final_answer.as_deref(), Some("done"));
    assert!(has_note(&s, "the ACTION came first"));
}

#[test]
fn final_answer_then_action() {
    let s = ok("/*FINAL_ANSWER*/ done\n/*ACTION*/ {\"a\":1}");
    assert_eq!(s.first, Some(Section::FinalAnswer));
    assert!(has_note(&s, "the FINAL_ANSWER came first"));
}

#[test]
fn several_actions_keep_first() {
    let s = ok("/*ACTION*/ {\"a\":1}\n/*REASONING*/ then\n/*ACTION*/ {\"a\":2}");
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    assert!(has_note(&s, "only one action per reply is run"));
    let s = ok("/*FINAL_ANSWER*/ one\n/*FINAL_ANSWER*/ two");
    assert_eq!(s.final_answer.as_deref(), Some("one"));
    assert!(has_note(&s, "extra FINAL_ANSWER"));
}

#[test]
fn several_reasoning_sections_are_joined() {
    let s = ok("/*REASONING*/ a\n/*REASONING*/ b\n/*ACTION*/ {}\n/*REASONING*/ c");
    assert_eq!(s.reasoning.as_deref(), Some("a\nb\nc"));
    assert!(has_note(&s, "REASONING sections were joined"));
}

#[test]
fn repeated_tag_in_a_row_is_one_section() {
    let s = ok("## Action\n**Action:**\n{\"a\":1}");
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    assert!(!has_note(&s, "only one action"));
    assert!(has_note(&s, "written twice in a row"));
}

// ---- Errors ----

#[test]
fn no_tags_is_error() {
    let e = err("I will click the button now.");
    assert!(e.contains("/*PLANNING*/"));
    assert!(e.contains("/*ACTION*/"));
    assert!(e.contains("/*FINAL_ANSWER*/"));
}

#[test]
fn empty_input_is_error() {
    assert!(err("").contains("empty"));
    assert!(err(" \n\t\r\n").contains("empty"));
}

#[test]
fn reasoning_only_is_error() {
    let e = err("/*REASONING*/ I am thinking.");
    assert!(e.contains("/*ACTION*/") && e.contains("/*FINAL_ANSWER*/"), "{e}");
    assert!(e.contains("no /*ACTION*/ or /*FINAL_ANSWER*/"));
}

#[test]
fn empty_action_is_error() {
    let e = err("/*REASONING*/ x\n/*ACTION*/\n\n");
    assert!(e.contains("/*ACTION*/ section was empty"), "{e}");
    let e = err("/*REASONING*/ x\n/*ACTION*/\n*/\n");
    assert!(e.contains("/*ACTION*/ section was empty"), "{e}");
    let e = err("<FINAL_ANSWER>  </FINAL_ANSWER>");
    assert!(e.contains("/*FINAL_ANSWER*/ section was empty"), "{e}");
    let e = err("/*FINAL_ANSWER*/ Final Answer:");
    assert!(e.contains("/*FINAL_ANSWER*/ section was empty"), "{e}");
}

#[test]
fn empty_action_with_final_answer_is_repaired() {
    let s = ok("/*ACTION*/\n/*FINAL_ANSWER*/ 12");
    assert_eq!(s.action, None);
    assert_eq!(s.final_answer.as_deref(), Some("12"));
    assert_eq!(s.first, Some(Section::FinalAnswer));
    assert!(has_note(&s, "ACTION section was empty"));
}

#[test]
fn error_type_traits() {
    let e = parse_sections("no tags here").unwrap_err();
    assert_eq!(e.to_string(), e.message);
    let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
    assert_eq!(boxed.to_string(), e.message);
}

// ---- Cleaning ----

#[test]
fn junk_and_stray_closing_tags_are_removed() {
    let s = ok("/*ACTION*/\n{\"a\":1}\n*/\n");
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
    let s = ok("/*FINAL_ANSWER*/ Paris */");
    assert_eq!(s.final_answer.as_deref(), Some("Paris"));
    let s = ok("/*FINAL_ANSWER*/\nParis\n</answer>");
    assert_eq!(s.final_answer.as_deref(), Some("Paris"));
    assert!(has_note(&s, "stray closing tag </answer>"));
    // A closing tag that matches an opening one in the text stays.
    let s = ok("/*FINAL_ANSWER*/ It is <b>bold</b>");
    assert_eq!(s.final_answer.as_deref(), Some("It is <b>bold</b>"));
}

#[test]
fn weak_tags_inside_code_fence_are_ignored() {
    let text = "/*FINAL_ANSWER*/\nHere is the log:\n```\nAction: click\n## Reasoning\n```\nDone.";
    let s = ok(text);
    assert_eq!(
        s.final_answer.as_deref(),
        Some("Here is the log:\n```\nAction: click\n## Reasoning\n```\nDone.")
    );
    assert_eq!(s.action, None);
}

#[test]
fn crlf_line_endings() {
    let s = ok("## Reasoning\r\nwhy\r\nAction:\r\n{\"a\":1}\r\n");
    assert_eq!(s.reasoning.as_deref(), Some("why"));
    assert_eq!(s.action.as_deref(), Some("{\"a\":1}"));
}

#[test]
fn unicode_text() {
    let s = ok("/*PLANNING*/\n1. Öffne die Seite 日本\n• Suche «Zürich» 🚀\n/*REASONING*/ Ça va — oui\n/*FINAL_ANSWER*/ Zürich ist schön 🌄");
    assert_eq!(s.plan, vec!["Öffne die Seite 日本", "Suche «Zürich» 🚀"]);
    assert_eq!(s.reasoning.as_deref(), Some("Ça va — oui"));
    assert_eq!(s.final_answer.as_deref(), Some("Zürich ist schön 🌄"));
    // A tag name followed by a non-ASCII letter is not a tag.
    assert!(err("/*ACTIONé*/ x").contains("none of the section tags"));
}

// ---- plan_items ----

#[test]
fn plan_items_numbered_forms() {
    assert_eq!(
        plan_items("1. a\n2) b\nStep 3: c\nstep 4 - d\n**Step 5:** e\n**6.** f"),
        vec!["a", "b", "c", "d", "e", "f"]
    );
}

#[test]
fn plan_items_bullets_checkboxes_and_bold() {
    assert_eq!(
        plan_items("- [ ] open\n* [x] search\n• **read**\n+ [X] done"),
        vec!["open", "search", "read", "done"]
    );
    // Bold only around part of an item stays.
    assert_eq!(plan_items("1. **Open** the page"), vec!["**Open** the page"]);
}

#[test]
fn plan_items_continuations_and_nesting() {
    let text = "Here is my plan:\n1. Open the page\n   and wait for it\n2. Search\n   - use the box\n   - press enter\n3.\nRead the result\n\nI will start now.";
    assert_eq!(
        plan_items(text),
        vec![
            "Open the page and wait for it",
            "Search; use the box; press enter",
            "Read the result"
        ]
    );
}

#[test]
fn plan_items_without_markers() {
    assert_eq!(
        plan_items("Open the page\n\n  Search for it  \nRead"),
        vec!["Open the page", "Search for it", "Read"]
    );
    assert!(plan_items("").is_empty());
    assert!(plan_items("\n  \n").is_empty());
}

#[test]
fn plan_items_not_markers() {
    // "3.5 km" and a year are not list numbers.
    assert_eq!(plan_items("3.5 km walk\n2024. was fine"), vec!["3.5 km walk", "2024. was fine"]);
    assert_eq!(plan_items("Steps are easy"), vec!["Steps are easy"]);
}

#[test]
fn plan_items_at_most_twenty() {
    let text: String = (1..=30).map(|i| format!("{i}. step {i}\n")).collect();
    let items = plan_items(&text);
    assert_eq!(items.len(), 20);
    assert_eq!(items[19], "step 20");
    let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    assert_eq!(plan_items(&text).len(), 20);
}

#[test]
fn plan_items_drop_empty() {
    assert_eq!(plan_items("1.\n2. a\n- \n- [ ]\n3. b"), vec!["a", "b"]);
}

// ---- Robustness ----

#[test]
fn huge_adversarial_input_completes() {
    let mut text = String::new();
    while text.len() < 1_000_000 {
        text.push_str("/*<</*PLANNING <ACTION </ /* FINAL_ANSWER ** ``` # ");
    }
    let _ = parse_sections(&text);
    let _ = plan_items(&text);
    let text: String = "/*".repeat(500_000);
    let _ = parse_sections(&text);
    let text: String = "<".repeat(1_000_000);
    let _ = parse_sections(&text);
    let text: String = "/*ACTION*/</a>".repeat(70_000);
    let _ = parse_sections(&text);
    let text: String = "Action:\n".repeat(120_000);
    let _ = parse_sections(&text);
    let mut text = String::from("/*FINAL_ANSWER*/ x");
    text.push_str(&"</a>".repeat(250_000));
    let _ = parse_sections(&text);
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_inputs_never_panic() {
    const FRAGMENTS: &[&str] = &[
        "/*", "*/", "<", "</", ">", "PLANNING", "planning", "REPLAN", "RE-PLANNING",
        "REASONING", "Reasoning:", "ACTION", "Action:", "FINAL_ANSWER", "Final Answer:",
        "final answer", "FINAL-ANSWER", "**", "#", "## ", "\n", "\r\n", " ", "\t", ":",
        "```", "~~~", "1. ", "2) ", "Step 3:", "- ", "* ", "•", "[x]", "[ ]", "{\"a\":1}",
        "é", "日本", "🚀", "-", "_",
    ];
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for round in 0..10_000 {
        let len = rng.below(40);
        let text = if round % 10 == 0 {
            let bytes: Vec<u8> = (0..len * 3).map(|_| rng.next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let mut s = String::new();
            for _ in 0..len {
                if rng.below(4) == 0 {
                    let c = (rng.below(95) as u8 + 32) as char;
                    s.push(c);
                } else {
                    s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
                }
            }
            s
        };
        match parse_sections(&text) {
            Ok(s) => {
                assert!(s.plan.len() <= 20 && s.replan.len() <= 20);
                if let Some(a) = &s.action {
                    assert!(!a.is_empty(), "{text:?}");
                }
                if let Some(f) = &s.final_answer {
                    assert!(!f.is_empty(), "{text:?}");
                }
                match s.first {
                    Some(Section::Action) => assert!(s.action.is_some()),
                    Some(Section::FinalAnswer) => assert!(s.final_answer.is_some()),
                    Some(_) => panic!("bad first"),
                    None => assert!(
                        s.action.is_none()
                            && s.final_answer.is_none()
                            && (!s.plan.is_empty() || !s.replan.is_empty())
                    ),
                }
            }
            Err(e) => assert!(!e.message.is_empty()),
        }
        let _ = plan_items(&text);
    }
}
