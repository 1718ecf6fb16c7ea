//! Tests of the Wikipedia service module against recorded bodies.

use super::*;
use crate::test_support::fixture;


#[test]
fn lang_base_validates() {
    assert_eq!(lang_base("en").unwrap(), "https://en.wikipedia.org");
    assert_eq!(lang_base(" DE ").unwrap(), "https://de.wikipedia.org");
    assert_eq!(
        lang_base("zh-min-nan").unwrap(),
        "https://zh-min-nan.wikipedia.org"
    );
    for bad in [
        "",
        "e",
        "en.evil.com",
        "en/",
        "-en",
        "en-",
        "e n",
        "ru--x",
        "日本",
        "en?x=1",
    ] {
        let e = lang_base(bad).unwrap_err();
        assert_eq!(e.kind, ServiceErrorKind::BadInput, "{}", bad);
    }
}

#[test]
fn search_url_shape() {
    let r = search_url("https://en.wikipedia.org/", "Python (programming) & C++", 3).unwrap();
    assert_eq!(
        r.url,
        "https://en.wikipedia.org/w/api.php?action=query&list=search&format=json&origin=*&srlimit=3&srsearch=Python%20%28programming%29%20%26%20C%2B%2B"
    );
    assert_eq!(r.headers[0].0, "Api-User-Agent");
    let r = search_url("http://127.0.0.1:9000", "x", 0).unwrap();
    assert!(
        r.url.starts_with("http://127.0.0.1:9000/w/api.php?") && r.url.contains("srlimit=1&")
    );
    assert!(search_url("http://x", "x", 999)
        .unwrap()
        .url
        .contains("srlimit=20&"));
    assert_eq!(
        search_url("http://x", "   ", 3).unwrap_err().kind,
        ServiceErrorKind::BadInput
    );
    assert_eq!(
        search_url("ftp://x", "q", 3).unwrap_err().kind,
        ServiceErrorKind::BadInput
    );
}

#[test]
fn extracts_url_shape() {
    let titles = vec![
        "Python (programming language)".to_string(),
        "Zürich".to_string(),
        "a|b".to_string(),
    ];
    let r = extracts_url("https://en.wikipedia.org", &titles).unwrap();
    assert!(r
        .url
        .starts_with("https://en.wikipedia.org/w/api.php?action=query&prop=extracts"));
    for p in [
        "exintro=1",
        "explaintext=1",
        "redirects=1",
        "format=json",
        "origin=*",
    ] {
        assert!(r.url.contains(p), "{}", p);
    }
    assert!(
        r.url
            .ends_with("&titles=Python%20%28programming%20language%29%7CZ%C3%BCrich"),
        "{}",
        r.url
    );
    assert!(extracts_url("https://x", &[]).is_err());
    let many: Vec<String> = (0..30).map(|i| format!("T{}", i)).collect();
    assert_eq!(
        extracts_url("https://x", &many)
            .unwrap()
            .url
            .matches("%7CT")
            .count(),
        19
    );
}

#[test]
fn page_urls() {
    assert_eq!(
        page_url("en", "Python (programming language)"),
        "https://en.wikipedia.org/wiki/Python_(programming_language)"
    );
    assert_eq!(
        page_url("de", "Zürich"),
        "https://de.wikipedia.org/wiki/Z%C3%BCrich"
    );
    assert_eq!(
        page_url("en", "AT&T"),
        "https://en.wikipedia.org/wiki/AT%26T"
    );
    assert_eq!(page_url("../evil", "X"), "https://en.wikipedia.org/wiki/X");
}

#[test]
fn search_srlimit3_fixture() {
    let r = parse_search(
        200,
        None,
        &fixture("wikipedia/action_query_list_search_srlimit3.json"),
    )
    .unwrap();
    assert_eq!(r.hits.len(), 3);
    assert_eq!(
        r.titles(),
        vec![
            "Python (programming language)",
            "History of Python",
            "Outline of the Python programming language"
        ]
    );
    assert_eq!(r.total_hits, Some(6045));
    assert!(r.hits[0]
        .snippet
        .starts_with("Python is a high-level, general-purpose programming language."));
    assert!(!r.hits[0].snippet.contains('<'));
    // \u2013 escape decoded by serde_json.
    assert!(r.hits[2]
        .snippet
        .contains("ABC (programming language) – precursor"));
}

#[test]
fn search_srlimit10_fixture() {
    let r = parse_search(
        200,
        None,
        &fixture("wikipedia/action_query_list_search_srlimit10.json"),
    )
    .unwrap();
    assert_eq!(r.hits.len(), 10);
    assert_eq!(r.hits[3].title, "Python syntax and semantics");
}

#[test]
fn search_no_results_fixture() {
    // No `searchinfo` in this 2017 sample.
    let r = parse_search(
        200,
        None,
        &fixture("wikipedia/action_query_list_search_no_results_2017.json"),
    )
    .unwrap();
    assert!(r.hits.is_empty());
    assert_eq!(r.total_hits, None);
    assert_eq!(
        no_results_observation("gobbilygook", None),
        "Wikipedia has no page matching 'gobbilygook'. Try a shorter or differently spelled query."
    );
    let with_sugg = r#"{"batchcomplete":"","query":{"searchinfo":{"totalhits":0,"suggestion":"gobbledygook"},"search":[]}}"#;
    let r = parse_search(200, None, with_sugg).unwrap();
    assert_eq!(r.suggestion.as_deref(), Some("gobbledygook"));
    assert!(
        no_results_observation("gobbilygook", r.suggestion.as_deref())
            .contains("'gobbledygook'")
    );
}

#[test]
fn api_error_with_http_200() {
    let e = parse_search(
        200,
        None,
        &fixture("wikipedia/action_api_error_unknown_action.json"),
    )
    .unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::Api {
            code: "unknown_action".into()
        }
    );
    assert_eq!(e.tool, "wikipedia");
    assert!(
        e.message
            .contains("Unrecognized value for parameter \"action\": oscillate"),
        "{}",
        e.message
    );
    let e = parse_extracts(
        200,
        None,
        r#"{"error":{"code":"ratelimited","info":"slow"}}"#,
        &[],
    )
    .unwrap_err();
    assert!(matches!(e.kind, ServiceErrorKind::RateLimited { .. }));
}

#[test]
fn rate_limit_429() {
    let e = parse_search(429, Some("12"), "").unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: Some(12)
        }
    );
    assert!(e.message.contains("wait 12 seconds"), "{}", e.message);
    let e = parse_search(429, None, "<html>Too many</html>").unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: None
        }
    );
}

#[test]
fn rest_404_problem_json_is_http_error() {
    let e = parse_search(
        404,
        None,
        &fixture("wikipedia/rest_v1_error_404_not_found.json"),
    )
    .unwrap_err();
    assert_eq!(e.kind, ServiceErrorKind::Http { status: 404 });
}

#[test]
fn opensearch_array_is_bad_shape() {
    let e = parse_search(
        200,
        None,
        &fixture("wikipedia/action_opensearch_new_york_limit5_2017.json"),
    )
    .unwrap_err();
    assert_eq!(e.kind, ServiceErrorKind::BadResponse);
}

#[test]
fn extracts_full_article_fixture_is_bounded() {
    let body = fixture("wikipedia/action_query_prop_extracts_explaintext_full.json");
    let req = vec!["Python_(programming_language)".to_string()];
    let pages = parse_extracts(200, None, &body, &req).unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].title, "Python (programming language)");
    assert!(!pages[0].disambiguation && !pages[0].missing);
    assert!(pages[0].extract.len() > 30_000);
    let obs = interpret_extracts(200, None, &body, &req, "en", DEFAULT_MAX_CHARS).unwrap();
    assert!(obs.starts_with(
        "Page: Python (programming language)\nURL: https://en.wikipedia.org/wiki/Python_(programming_language)\nSummary: Python is a high-level, general-purpose programming language."
    ), "{}", obs);
    assert!(obs.chars().count() <= DEFAULT_MAX_CHARS);
    assert!(obs.contains('…') || obs.ends_with(text::TRUNCATION_MARKER));
    let tiny = interpret_extracts(200, None, &body, &req, "en", 500).unwrap();
    assert!(tiny.chars().count() <= 500, "{}", tiny.chars().count());
    assert!(tiny.contains('…'));
}

#[test]
fn extracts_chess_fixture() {
    let body = fixture("wikipedia/action_query_prop_extracts_exsentences5_chess_2017.json");
    let obs = interpret_extracts(200, None, &body, &["Chess".to_string()], "en", 4000).unwrap();
    assert_eq!(
        obs,
        "Page: Chess\nURL: https://en.wikipedia.org/wiki/Chess\nSummary: Chess is a two-player strategy board game played on a chessboard, a checkered gameboard with 64 squares arranged in an eight-by-eight grid. Chess is played by millions of people worldwide, both amateurs and professionals.\nEach player begins the game with 16 pieces: one king, one queen, two rooks, two knights, two bishops, and eight pawns. Each of the six piece types moves differently. The most powerful piece is the queen and the least powerful piece is the pawn."
    );
}

#[test]
fn missing_page_fixture() {
    let body = fixture("wikipedia/action_query_prop_info_missing_page.json");
    let pages = parse_extracts(
        200,
        None,
        &body,
        &["NonExistentPage_WikiAPI_Test_12345".to_string()],
    )
    .unwrap();
    assert_eq!(pages.len(), 1);
    assert!(pages[0].missing);
    assert_eq!(pages[0].title, "NonExistentPage WikiAPI Test 12345");
    let obs = format_pages(&pages, "en", 4000);
    assert!(obs.contains("has no page with this exact title"), "{}", obs);
    assert!(!obs.contains("URL:"));
}

#[test]
fn keeps_search_order_with_redirects_and_disambiguation() {
    // Hand-made multi-page answer in formatversion-1 shape (there is no
    // recorded multi-title exintro response; see fixtures README gaps).
    let body = r#"{"batchcomplete":"","query":{
            "normalized":[{"from":"mercury_(planet)","to":"Mercury (planet)"}],
            "redirects":[{"from":"Quicksilver","to":"Mercury (element)"}],
            "pages":{
              "19694":{"pageid":19694,"ns":0,"title":"Mercury (element)","extract":"Mercury is a chemical element."},
              "-1":{"ns":0,"title":"Nopage Xyz","missing":""},
              "19331":{"pageid":19331,"ns":0,"title":"Mercury","extract":"Mercury may refer to:"},
              "19333":{"pageid":19333,"ns":0,"title":"Mercury (planet)","extract":"Mercury is the first planet.","pageprops":{"disambiguation":""}}
            }}}"#;
    let req: Vec<String> = ["mercury_(planet)", "Quicksilver", "Mercury", "Nopage Xyz"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let pages = parse_extracts(200, None, body, &req).unwrap();
    let titles: Vec<&str> = pages.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        vec![
            "Mercury (planet)",
            "Mercury (element)",
            "Mercury",
            "Nopage Xyz"
        ]
    );
    assert!(pages[0].disambiguation, "pageprops marks it");
    assert!(!pages[1].disambiguation);
    assert!(pages[2].disambiguation, "text heuristic");
    let obs = format_pages(&pages, "en", 4000);
    let blocks: Vec<&str> = obs.split("\n\n").collect();
    assert_eq!(blocks.len(), 4);
    assert!(blocks[2].contains("Note: this is a disambiguation page"));
    assert!(blocks[1].contains("URL: https://en.wikipedia.org/wiki/Mercury_(element)"));
}

#[test]
fn garbage_bodies_are_errors_not_panics() {
    let full = fixture("wikipedia/action_query_list_search_srlimit3.json");
    for cut in [1, 10, full.len() / 2, full.len() - 1] {
        let truncated = full.get(..cut).unwrap_or("");
        let e = parse_search(200, None, truncated).unwrap_err();
        assert_eq!(e.kind, ServiceErrorKind::BadResponse, "cut {}", cut);
    }
    assert_eq!(
        parse_search(200, None, "").unwrap_err().kind,
        ServiceErrorKind::BadResponse
    );
    let html = "<!DOCTYPE html><html><body><h1>Wikimedia Error</h1></body></html>";
    let e = parse_search(200, None, html).unwrap_err();
    assert_eq!(e.kind, ServiceErrorKind::BadResponse);
    assert!(e.message.contains("HTML"));
    assert_eq!(
        parse_search(503, None, html).unwrap_err().kind,
        ServiceErrorKind::Http { status: 503 }
    );
    assert_eq!(
        parse_search(200, None, "[]").unwrap_err().kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        parse_search(200, None, r#"{"query":{"search":5}}"#)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert!(
        parse_search(200, None, r#"{"query":{"search":[{"title":5},{}]}}"#)
            .unwrap()
            .hits
            .is_empty()
    );
    assert!(parse_extracts(
        200,
        None,
        r#"{"query":{"pages":{"1":{"title":null}}}}"#,
        &[]
    )
    .unwrap()
    .is_empty());
    assert!(parse_extracts(200, None, r#"{"query":{"pages":"x"}}"#, &[]).is_err());
    let deep = "[".repeat(10_000);
    assert_eq!(
        parse_search(200, None, &deep).unwrap_err().kind,
        ServiceErrorKind::BadResponse
    );
}
