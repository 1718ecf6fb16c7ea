use std::io::{Read, Write};

use super::*;
use crate::agent::trace::request_at;
use crate::agent::{ChatResponse, Event, LlmError};
use crate::conversation::Outcome;

/// A model that looks something up, then answers with what it read.
struct LooksUp(std::cell::Cell<u32>);

impl crate::agent::ChatModel for LooksUp {
    fn complete<'a>(&'a self, _request: &'a ChatRequest, _progress: &'a dyn Fn(crate::agent::Progress<'_>)) -> crate::agent::LocalBoxFuture<'a, Result<ChatResponse, LlmError>> {
        let step = self.0.get();
        self.0.set(step + 1);
        let text = if step.is_multiple_of(2) {
            "Thought: I should read the page.\nAction:\n```json\n{\"action\": \"page\", \"action_input\": \"tides\"}\n```"
        } else {
            "Final Answer: The tide <b>turns</b> twice a day."
        };
        Box::pin(async move { Ok(ChatResponse { text: text.into(), ..Default::default() }) })
    }
}

/// A tool that answers with a long page that mentions a key.
struct Page;

impl crate::agent::Tool for Page {
    fn name(&self) -> &str {
        "page"
    }
    fn description(&self) -> &str {
        "reads a page"
    }
    fn call<'a>(&'a self, _input: &'a serde_json::Value, _cx: &'a crate::agent::ToolContext<'a>) -> crate::agent::LocalBoxFuture<'a, Result<String, crate::agent::ToolError>> {
        Box::pin(async { Ok(format!("token sk-proj-abcdefghijklmnopqrstuvwx <script>alert(1)</script> {}", "tides rise and fall. ".repeat(150))) })
    }
}

/// A conversation of two runs, each with a tool step whose observation the next request quotes.
fn two_runs() -> Conversation {
    let mut chat = Conversation::new("c1".into());
    for question in ["How do tides work?", "And how often?"] {
        let (settings, clock, cancel) = (crate::agent::AgentSettings::default(), crate::agent::time::SystemClock::default(), crate::agent::CancelToken::new());
        let tools: Vec<&dyn crate::agent::Tool> = vec![&Page];
        let model = LooksUp(std::cell::Cell::new(0));
        let input = crate::agent::RunInput { question, history: &[], model: &model, tools: &tools, settings: &settings, clock: &clock, cancel: &cancel, answered: None, fork: None };
        let events = pollster::block_on(crate::agent::run_agent(input, &())).events;
        let run = chat.ask(question.into());
        for e in events {
            chat.record(run, e);
        }
        chat.end(run, Outcome::Answer("The tide <b>turns</b> twice a day.".into()));
    }
    chat
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut packer = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    packer.write_all(bytes).unwrap();
    packer.finish().unwrap()
}

fn gunzip(bytes: &[u8]) -> std::io::Result<String> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes).read_to_string(&mut text)?;
    Ok(text)
}

/// The link's way there and back, with gzip as the browser writes it.
fn through_a_link(chat: &Conversation, choice: Choice) -> (String, Opened) {
    let mut sharing = Sharing::default();
    sharing.choose(choice);
    let ticket = sharing.ask();
    let record = record(chat, sharing.choice, &Secrets::default(), 1000.0);
    sharing.packed(ticket, "https://example.org/tl/?x=1#old", Ok(gzip(record.as_bytes())));
    let link = sharing.link.clone().unwrap().unwrap();
    assert!(link.starts_with("https://example.org/tl/?x=1#share=1."), "{link}");
    let hash = &link[link.find('#').unwrap()..];
    assert!(link::is_share(hash));
    let packed = read_fragment(hash).unwrap();
    let opened = open_record(&gunzip(&packed).unwrap()).unwrap();
    (link, opened)
}

fn lines(chat: &Conversation) -> Vec<Vec<Vec<Event>>> {
    chat.runs.iter().map(|r| (0..r.lines()).map(|n| r.line(n).unwrap().events.to_vec()).collect()).collect()
}

#[test]
fn a_whole_conversation_comes_back_step_for_step_and_every_request_rebuilds() {
    let chat = two_runs();
    let (_, opened) = through_a_link(&chat, Choice { scope: Scope::Conversation, observations: Observations::Whole });
    assert_eq!(opened.cut_at, None);
    assert_eq!(opened.note(), None);
    assert_eq!(opened.chat.runs.len(), 2);
    // The record came back masked: the key shape in the observation is covered.
    let mut masked = chat.clone();
    masked.mask(&Secrets::default());
    assert_eq!(lines(&opened.chat), lines(&masked));
    assert_eq!(opened.chat.title(), "How do tides work?");
    for run in &opened.chat.runs {
        for (i, e) in run.events.iter().enumerate() {
            if matches!(e.kind, EventKind::LlmRequest { .. }) {
                request_at(&run.events, i).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
    let text = format!("{:?}", opened.chat);
    assert!(!text.contains("sk-proj-abcdefghijklmnopqrstuvwx"), "a key shape never leaves");
}

#[test]
fn one_run_with_its_branches_is_shared_as_shown() {
    let mut chat = crate::storage::tests::branched();
    chat.show(0);
    let (_, first) = through_a_link(&chat, Choice { scope: Scope::Run, observations: Observations::Whole });
    assert_eq!(first.chat.runs.len(), 1);
    assert_eq!(first.chat.runs[0].question, "Question 0?");
    chat.show(1);
    let (_, branched) = through_a_link(&chat, Choice { scope: Scope::Run, observations: Observations::Whole });
    assert_eq!(branched.chat.runs.len(), 1);
    assert_eq!(lines(&branched.chat)[0], lines(&chat)[1], "every branch of the run");
    assert_eq!(branched.chat.runs[0].shown_number(), chat.runs[1].shown_number(), "the branch shown");
}

#[test]
fn cut_observations_leave_out_the_requests_and_say_so() {
    let chat = two_runs();
    let (cut_link, opened) = through_a_link(&chat, Choice { scope: Scope::Conversation, observations: Observations::Cut });
    let (whole_link, _) = through_a_link(&chat, Choice { scope: Scope::Conversation, observations: Observations::Whole });
    assert!(cut_link.len() < whole_link.len(), "{} < {}", cut_link.len(), whole_link.len());
    assert_eq!(opened.cut_at, Some(CUT_CHARS));
    assert!(opened.note().unwrap().contains("1,000 characters"));
    for run in &opened.chat.runs {
        for (i, e) in run.events.iter().enumerate() {
            match &e.kind {
                EventKind::ToolResult { observation, .. } => {
                    let (kept, note) = observation.split_once("\n… (cut for the link: ").unwrap();
                    assert_eq!(kept.chars().count(), CUT_CHARS);
                    assert!(note.ends_with("more characters)"), "{note}");
                }
                // Left out, and still a request the inspector can open (an empty one).
                EventKind::LlmRequest { .. } => assert!(request_at(&run.events, i).unwrap().messages.is_empty()),
                _ => {}
            }
        }
    }
    // A short observation is kept whole.
    let mut short = Event { index: 0, step: 0, started_ms: 0.0, ended_ms: 0.0, kind: EventKind::ToolResult { tool: "t".into(), observation: "é".repeat(CUT_CHARS) } };
    cut_event(&mut short.kind);
    assert!(matches!(&short.kind, EventKind::ToolResult { observation, .. } if observation.chars().count() == CUT_CHARS));
}

#[test]
fn the_settings_secrets_are_masked_on_the_way_out_and_no_settings_go() {
    let mut chat = two_runs();
    chat.runs[0].question = "My key is tl-own-secret-77, can you see it?".into();
    let secrets = crate::secrets::tests::secrets(&["tl-own-secret-77"]);
    let record = record_json(&shared_chat(&chat, Choice { scope: Scope::Conversation, observations: Observations::Whole }, &secrets), Choice::default(), 1.0);
    assert!(!record.contains("tl-own-secret-77"), "{record}");
    let value: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(value["settings"], serde_json::json!({}), "a link carries no settings");
    assert_eq!(value["format"], "thoughtline.run");
}

#[test]
fn a_link_made_for_an_earlier_choice_is_dropped() {
    let mut sharing = Sharing::default();
    let first = sharing.ask();
    assert!(sharing.choose(Choice { scope: Scope::Conversation, observations: Observations::Whole }));
    assert!(!sharing.choose(Choice { scope: Scope::Conversation, observations: Observations::Whole }), "the same choice again changes nothing");
    let second = sharing.ask();
    sharing.packed(first, "https://x.test/", Ok(vec![1, 2, 3]));
    assert_eq!(sharing.link, None, "the earlier choice's link never shows");
    sharing.packed(second, "https://x.test/", Err("Packing needs a browser.".into()));
    assert_eq!(sharing.link, Some(Err("Packing needs a browser.".into())));
    assert_eq!(sharing.fit(), None);
    assert_eq!(sharing.offered(), None);
}

#[test]
fn a_link_s_length_says_where_it_survives() {
    assert_eq!(Fit::of(1_999), Fit::Anywhere);
    assert_eq!(Fit::of(ANYWHERE_CHARS + 1), Fit::MostPlaces);
    assert_eq!(Fit::of(LINK_FITS_CHARS), Fit::MostPlaces);
    assert_eq!(Fit::of(LINK_FITS_CHARS + 1), Fit::TooLong);
    assert!(Fit::TooLong.says(20_000).contains("20,000 characters") && Fit::TooLong.says(20_000).contains("file"));
    let mut sharing = Sharing::default();
    let ticket = sharing.ask();
    // Random bytes do not pack: a link past the figure is not offered.
    let noise: Vec<u8> = (0..LINK_FITS_CHARS as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    sharing.packed(ticket, "https://x.test/", Ok(noise));
    assert_eq!(sharing.fit().map(|f| f.1), Some(Fit::TooLong));
    assert_eq!(sharing.offered(), None);
}

#[test]
fn a_bad_link_says_what_is_wrong() {
    let packed = gzip(b"{\"format\":\"thoughtline.run\"}");
    let good = fragment(&packed);
    assert_eq!(read_fragment(&format!("#{good}")).unwrap(), packed);
    // Cut anywhere: in its record, in its size, right after the key.
    for end in [good.len() - 1, good.len() / 2, "share=1.".len(), "share=1".len() - 1] {
        let got = read_fragment(&good[..end]);
        assert!(matches!(got, Err(LinkError::Cut { .. }) | Err(LinkError::Damaged)), "cut at {end}: {got:?}");
        assert!(got.unwrap_err().message().contains("cut off") || end < "share=1".len(), "cut at {end}");
    }
    assert!(matches!(read_fragment(&good[..good.len() - 3]), Err(LinkError::Cut { .. })));
    // Altered: a character added, one that no link holds, the size changed.
    assert_eq!(read_fragment(&format!("{good}A")), Err(LinkError::Altered));
    let mut bad = good.clone();
    bad.replace_range(bad.len() - 5..bad.len() - 4, "*");
    assert_eq!(read_fragment(&bad), Err(LinkError::Altered));
    // A replaced character of the alphabet decodes, and gzip's checksum refuses it.
    let mut flipped = good.clone().into_bytes();
    let at = "share=1.".len() + 8 + flipped.len() / 2 - 8;
    flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
    let flipped = read_fragment(std::str::from_utf8(&flipped).unwrap()).unwrap();
    assert!(gunzip(&flipped).is_err(), "the checksum tells");
    // Not ours, newer, too long.
    assert_eq!(read_fragment("#share=abc"), Err(LinkError::Damaged));
    assert_eq!(read_fragment("#share=1.zz"), Err(LinkError::Damaged));
    assert_eq!(read_fragment("#share=1."), Err(LinkError::Cut { have: 0, want: 0 }));
    assert!(LinkError::Cut { have: 0, want: 0 }.message().contains("cut off before the run"));
    assert_eq!(read_fragment("#share=1.12"), Err(LinkError::Cut { have: 0, want: 16 }));
    assert_eq!(read_fragment("#other=1.2.AA"), Err(LinkError::Damaged));
    assert_eq!(read_fragment("share=2.3.AAAA"), Err(LinkError::Newer(2)));
    assert!(LinkError::Newer(2).message().contains("newer"));
    assert_eq!(read_fragment(&format!("share=1.9.{}", "A".repeat(MAX_LINK_CHARS))), Err(LinkError::TooLong(MAX_LINK_CHARS + "share=1.9.".len())));
    assert_eq!(read_fragment("share=1.99999999999999.AAAA"), Err(LinkError::Cut { have: 4, want: link::encoded_len(99_999_999_999_999) }));
    // A link broken across lines by a mail client still reads.
    let wrapped = format!("{}\n {}", &good[..30], &good[30..]);
    assert_eq!(read_fragment(&wrapped).unwrap(), packed);
    assert!(LinkError::TooBig.message().contains("8 MB"));
}

#[test]
fn a_record_that_is_not_a_shared_run_is_named() {
    assert!(open_record("not json").unwrap_err().contains("not a shared run"));
    assert!(open_record("{\"format\":\"other\"}").unwrap_err().contains("cannot be read"));
    assert!(open_record("{\"format\":\"thoughtline.run\",\"version\":99}").unwrap_err().contains("newer"));
}

#[test]
fn the_html_page_holds_every_step_as_text_and_no_script() {
    let mut chat = two_runs();
    chat.rename("Tides <and> \"moons\"");
    let page = html::page(&chat, Some("Shared with <cuts>"));
    assert!(page.starts_with("<!doctype html>"));
    assert!(!page.to_lowercase().contains("<script"), "nothing from a run is markup");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("The tide &lt;b&gt;turns&lt;/b&gt; twice a day."));
    assert!(page.contains("<title>Tides &lt;and&gt; &quot;moons&quot; · Thoughtline</title>"));
    assert!(page.contains("Shared with &lt;cuts&gt;"));
    assert!(page.contains("default-src 'none'"));
    let steps: usize = chat.runs.iter().map(|r| r.events.len()).sum();
    assert_eq!(page.matches("<li class=\"step ").count(), steps, "every step of every run");
    assert_eq!(page.matches("<section class=\"run\">").count(), 2);
    assert!(page.contains("class=\"step success\" data-kind=\"tool_result\""));
    // A branched run: each line, a branch with its own steps only.
    let branched = crate::storage::tests::branched();
    let page = html::page(&branched, None);
    assert!(page.contains("<h3>As first asked</h3>") && page.contains("<h3>Branch 3 of 3</h3>"), "{page}");
    let own: usize = branched.runs.iter().map(|r| (0..r.lines()).map(|n| r.line(n).unwrap()).map(|l| if l.fork.is_some() { l.own().len() } else { l.events.len() }).sum::<usize>()).sum();
    assert_eq!(page.matches("<li class=\"step ").count(), own);
}
