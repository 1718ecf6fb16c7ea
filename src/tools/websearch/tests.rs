//! Tests of the web search service module against recorded DuckDuckGo and SearXNG bodies.

use super::*;
use crate::test_support::fixture;


/// HAND-MADE sample, not a recording (no SearXNG capture exists in
/// tests/fixtures). Written from SearXNG's documented JSON output
/// (docs.searxng.org "Search API", `format=json`) and the field lists
/// client libraries declare: top-level `query`, `number_of_results`,
/// `results[{url,title,content,engine,parsed_url,template,engines,
/// positions,score,category,publishedDate}]`, `answers` (objects with
/// `answer`/`url` in current releases), `corrections`, `infoboxes[{infobox,
/// id,content,img_src,urls[{title,url}],attributes[{label,value}],engine}]`,
/// `suggestions`, `unresponsive_engines` ([engine, reason] pairs).
const SEARX_SAMPLE: &str = r#"{"query":"rust programming language","number_of_results":0,"results":[{"url":"https://www.rust-lang.org/","title":"Rust Programming Language","content":"A language empowering everyone to build reliable and efficient software.","engine":"duckduckgo","parsed_url":["https","www.rust-lang.org","/","","",""],"template":"default.html","engines":["duckduckgo","brave","startpage"],"positions":[1,1,2],"publishedDate":null,"score":9.0,"category":"general"},{"url":"https://en.wikipedia.org/wiki/Rust_(programming_language)","title":"Rust (programming language) - Wikipedia","content":"Rust is a general-purpose <b>programming language</b> emphasizing performance, type safety, and concurrency.","engine":"brave","parsed_url":["https","en.wikipedia.org","/wiki/Rust_(programming_language)","","",""],"template":"default.html","engines":["brave","duckduckgo"],"positions":[2,3],"publishedDate":null,"score":4.5,"category":"general"},{"url":"https://doc.rust-lang.org/book/","title":"The Rust Programming Language - The Rust Programming Language","content":"by Steve Klabnik, Carol Nichols, and Chris Krycho, with contributions from the Rust Community.","engine":"startpage","parsed_url":["https","doc.rust-lang.org","/book/","","",""],"template":"default.html","engines":["startpage"],"positions":[3],"publishedDate":null,"score":0.33,"category":"general"}],"answers":[{"url":"https://en.wikipedia.org/wiki/Rust_(programming_language)","template":"answer/legacy.html","engine":"wikipedia","parsed_url":["https","en.wikipedia.org","/wiki/Rust_(programming_language)","","",""],"answer":"Rust was first released on 15 May 2015."}],"corrections":[],"infoboxes":[{"infobox":"Rust","id":"https://en.wikipedia.org/wiki/Rust_(programming_language)","content":"Rust is a general-purpose programming language emphasizing performance, type safety, and concurrency.","img_src":null,"urls":[{"title":"Wikipedia","url":"https://en.wikipedia.org/wiki/Rust_(programming_language)"},{"title":"Official website","url":"https://www.rust-lang.org/"}],"attributes":[{"label":"Designed by","value":"Graydon Hoare"},{"label":"First appeared","value":"2015"}],"engine":"wikipedia","engines":["wikipedia"]}],"suggestions":["rust lang","rust book"],"unresponsive_engines":[["google","timeout"]]}"#;

#[test]
fn ddg_url_shape() {
    let r = ddg_url("https://api.duckduckgo.com/", "Rust programming language").unwrap();
    assert_eq!(
        r.url,
        "https://api.duckduckgo.com/?q=Rust%20programming%20language&format=json&no_html=1&skip_disambig=1"
    );
    assert!(!r.url.contains("callback"));
    assert!(ddg_url("https://x", "").is_err());
    assert!(ddg_url("x", "q").is_err());
}

#[test]
fn ddg_rust_fixture() {
    let body = fixture("duckduckgo/instant_answer_rust_programming_language.json");
    let obs = interpret_ddg(200, None, &body, "Rust programming language", 10_000).unwrap();
    assert!(obs.starts_with("Heading: Rust (programming language)\n\nSummary (from Wikipedia): Rust is a multi-paradigm, general-purpose programming language"), "{}", obs);
    assert!(obs.contains("\nURL: https://en.wikipedia.org/wiki/Rust_(programming_language)"));
    assert!(obs.contains("its \"borrow checker\" tracks"));
    assert!(obs.contains("Facts: Designed by: Graydon Hoare; Developer: Rust Foundation; First appeared: May 15, 2015;"), "{}", obs);
    assert!(
        !obs.contains("UCaYhcUwRBNscFNUKTjgPFiA"),
        "profile ids are skipped"
    );
    assert!(obs.contains("Links: Official site: https://foundation.rust-lang.org"));
    assert!(obs.contains("Related topics:\n- Rust (programming language) Category (https://duckduckgo.com/c/Rust_(programming_language))"));
    assert_eq!(obs.matches("\n- ").count(), MAX_RELATED);
    let small = interpret_ddg(200, None, &body, "q", 300).unwrap();
    assert!(small.chars().count() <= 300 && small.ends_with(text::TRUNCATION_MARKER));
    assert!(
        interpret_ddg(200, None, &body, "q", DEFAULT_MAX_CHARS)
            .unwrap()
            .chars()
            .count()
            <= DEFAULT_MAX_CHARS
    );
}

#[test]
fn ddg_no_result_fixture() {
    let body = fixture("duckduckgo/instant_answer_no_result.json");
    let obs = interpret_ddg(
        200,
        None,
        &body,
        "target model attention prompt compression attention rollout",
        3000,
    )
    .unwrap();
    assert_eq!(
        obs,
        "No instant answer for 'target model attention prompt compression attention rollout'. DuckDuckGo's instant answers cover encyclopedic topics; try Wikipedia for this question."
    );
}

#[test]
fn ddg_shapes_and_types() {
    // Number-or-string ImageHeight, object Infobox, grouped topics, object Answer.
    let body = r#"{"Heading":"Mercury","AbstractText":"","Answer":{"result":"<b>42</b>"},"ImageHeight":"","Infobox":"",
            "RelatedTopics":[{"Name":"Science","Topics":[{"Text":"Mercury (element) - chemical element","FirstURL":"https://duckduckgo.com/Mercury_(element)"}]},
                             {"Text":"","FirstURL":"x"},{"Result":"no text"},7,null],
            "Results":"", "Type":"D"}"#;
    let obs = interpret_ddg(200, None, body, "mercury", 3000).unwrap();
    assert_eq!(obs, "Heading: Mercury\n\nAnswer: 42\n\nRelated topics:\n- [Science] Mercury (element) - chemical element");
    // Heading only → no answer.
    let obs =
        interpret_ddg(200, None, r#"{"Heading":"X","ImageHeight":120}"#, "x", 3000).unwrap();
    assert!(obs.starts_with("No instant answer for 'x'."));
    let obs = interpret_ddg(
        200,
        None,
        r#"{"Definition":"a word","DefinitionSource":"Wiktionary"}"#,
        "w",
        3000,
    )
    .unwrap();
    assert_eq!(obs, "Definition (from Wiktionary): a word");
}

#[test]
fn ddg_errors() {
    let e = interpret_ddg(202, None, "", "q", 3000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: None
        }
    );
    assert!(e.message.contains("throttling"));
    assert_eq!(
        interpret_ddg(429, Some("9"), "", "q", 3000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: Some(9)
        }
    );
    assert_eq!(
        interpret_ddg(500, None, "", "q", 3000).unwrap_err().kind,
        ServiceErrorKind::Http { status: 500 }
    );
    assert_eq!(
        interpret_ddg(200, None, "", "q", 3000).unwrap_err().kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret_ddg(200, None, "ddg_spice_x({\"a\":1});", "q", 3000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret_ddg(200, None, "[1,2]", "q", 3000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret_ddg(200, None, "<html><body>blocked</body></html>", "q", 3000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    let full = fixture("duckduckgo/instant_answer_rust_programming_language.json");
    for cut in [1, 500, full.len() / 2, full.len() - 1] {
        let part = full.get(..cut).unwrap_or("");
        assert_eq!(
            interpret_ddg(200, None, part, "q", 3000).unwrap_err().kind,
            ServiceErrorKind::BadResponse
        );
    }
}

#[test]
fn searx_url_shape() {
    let r = searx_url("http://127.0.0.1:8888/", "rust lang?").unwrap();
    assert_eq!(
        r.url,
        "http://127.0.0.1:8888/search?q=rust%20lang%3F&format=json"
    );
    assert!(searx_url("http://x", " ").is_err());
}

#[test]
fn searx_sample() {
    let obs =
        interpret_searx(200, None, SEARX_SAMPLE, "rust programming language", 5000).unwrap();
    assert!(obs.starts_with("Answer: Rust was first released on 15 May 2015.\nURL: https://en.wikipedia.org/wiki/Rust_(programming_language)\n\nInfobox: Rust\n"), "{}", obs);
    assert!(obs.contains("Facts: Designed by: Graydon Hoare; First appeared: 2015"));
    assert!(obs.contains("Result 1: Rust Programming Language\nURL: https://www.rust-lang.org/\nSnippet: A language empowering everyone"));
    assert!(obs.contains("Result 2: Rust (programming language) - Wikipedia\nURL: https://en.wikipedia.org/wiki/Rust_(programming_language)\nSnippet: Rust is a general-purpose programming language emphasizing"));
    assert!(obs.contains("Result 3: The Rust Programming Language"));
    assert!(
        interpret_searx(200, None, SEARX_SAMPLE, "q", 400)
            .unwrap()
            .chars()
            .count()
            <= 400
    );
    // Older string answers.
    let old = r#"{"query":"1+1","results":[],"answers":["2"],"infoboxes":[],"suggestions":[]}"#;
    assert_eq!(
        interpret_searx(200, None, old, "1+1", 3000).unwrap(),
        "Answer: 2"
    );
}

#[test]
fn searx_empty_and_errors() {
    let empty = r#"{"query":"zzqx","number_of_results":0,"results":[],"answers":[],"corrections":[],"infoboxes":[],"suggestions":["zzq"],"unresponsive_engines":[]}"#;
    assert_eq!(
        interpret_searx(200, None, empty, "zzqx", 3000).unwrap(),
        "The web search found no results for 'zzqx'. Suggested searches: zzq."
    );
    let e = interpret_searx(403, None, "<html>Forbidden</html>", "q", 3000).unwrap_err();
    assert_eq!(e.kind, ServiceErrorKind::Http { status: 403 });
    assert!(e.message.contains("search.formats"));
    assert!(matches!(
        interpret_searx(429, None, "", "q", 3000).unwrap_err().kind,
        ServiceErrorKind::RateLimited { .. }
    ));
    assert_eq!(
        interpret_searx(200, None, "{\"results\":3}", "q", 3000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret_searx(200, None, &SEARX_SAMPLE[..200], "q", 3000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret_searx(502, None, "", "q", 3000).unwrap_err().kind,
        ServiceErrorKind::Http { status: 502 }
    );
}
