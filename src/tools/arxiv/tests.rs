//! Tests of the arXiv service module against recorded Atom feeds.

use super::*;
use crate::test_support::fixture;


fn search(q: &str) -> String {
    match build_query(q).unwrap() {
        QuerySpec::Search(s) => s,
        QuerySpec::Ids(i) => panic!("unexpected ids {}", i),
    }
}

#[test]
fn query_building() {
    assert_eq!(search("electron"), "all:electron");
    assert_eq!(
        search("quantum  error correction"),
        "all:quantum AND all:error AND all:correction"
    );
    assert_eq!(
        search("\"large language models\" survey"),
        "all:\"large language models\" AND all:survey"
    );
    assert_eq!(
        search("ti:transformer AND au:vaswani"),
        "ti:transformer AND au:vaswani"
    );
    assert_eq!(search("(ti:a OR ti:b)"), "(ti:a OR ti:b)");
    assert_eq!(search("all:electron"), "all:electron");
    assert_eq!(
        search("Attention: is all you need"),
        "all:Attention AND all:is AND all:all AND all:you AND all:need"
    );
    assert_eq!(search("graphs OR networks"), "all:graphs OR all:networks");
    assert_eq!(search("AND graphs AND"), "all:graphs");
    assert!(build_query("AND OR").is_err());
    assert!(build_query("  ").is_err());
    assert!(build_query("()").is_err());
}

#[test]
fn id_detection() {
    assert_eq!(
        build_query("1707.08567").unwrap(),
        QuerySpec::Ids("1707.08567".into())
    );
    assert_eq!(
        build_query("arXiv:2202.12139v1").unwrap(),
        QuerySpec::Ids("2202.12139v1".into())
    );
    assert_eq!(
        build_query("hep-ex/0307015").unwrap(),
        QuerySpec::Ids("hep-ex/0307015".into())
    );
    assert_eq!(
        build_query("math.GT/0309136").unwrap(),
        QuerySpec::Ids("math.GT/0309136".into())
    );
    assert_eq!(
        build_query("https://arxiv.org/abs/2405.13786v1, 2005.14090").unwrap(),
        QuerySpec::Ids("2405.13786v1,2005.14090".into())
    );
    assert_eq!(
        build_query("https://arxiv.org/pdf/2405.13786.pdf").unwrap(),
        QuerySpec::Ids("2405.13786".into())
    );
    // Mixed text is a search, not an id lookup.
    assert!(matches!(
        build_query("paper 1707.08567").unwrap(),
        QuerySpec::Search(_)
    ));
    assert!(matches!(
        build_query("2017.1").unwrap(),
        QuerySpec::Search(_)
    ));
    assert!(matches!(build_query("v1").unwrap(), QuerySpec::Search(_)));
}

#[test]
fn url_shape() {
    let r = query_url("https://export.arxiv.org/", "quantum computing", 0).unwrap();
    assert_eq!(
        r.url,
        "https://export.arxiv.org/api/query?search_query=all:quantum%20AND%20all:computing&start=0&max_results=1"
    );
    assert!(r.headers.is_empty());
    let r = query_url("http://127.0.0.1:8000", "1707.08567", DEFAULT_MAX_RESULTS).unwrap();
    assert_eq!(
        r.url,
        "http://127.0.0.1:8000/api/query?id_list=1707.08567&start=0&max_results=3"
    );
    assert!(query_url("https://x", "a", 500)
        .unwrap()
        .url
        .ends_with("max_results=20"));
    assert!(query_url("x", "a", 1).is_err());
    let r = query_url("https://x", "\"dark matter\" & más", 3).unwrap();
    assert!(
        r.url.contains(
            "search_query=all:%22dark%20matter%22%20AND%20all:%26%20AND%20all:m%C3%A1s"
        ),
        "{}",
        r.url
    );
}

#[test]
fn search_max10_fixture() {
    let feed = parse_feed(&fixture("arxiv/search_all_testing_max10.xml")).unwrap();
    assert_eq!(feed.entries.len(), 10);
    assert_eq!(feed.total_results, Some(214881));
    let first = &feed.entries[0];
    assert_eq!(first.title, "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques");
    assert_eq!(
        first.authors,
        vec!["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"]
    );
    assert_eq!(first.published_date(), "2022-02-24");
    assert_eq!(first.abs_url(), "https://arxiv.org/abs/2202.12139v1");
    assert_eq!(
        first.pdf_link.as_deref(),
        Some("https://arxiv.org/pdf/2202.12139v1")
    );
    assert_eq!(
        first.abs_link.as_deref(),
        Some("https://arxiv.org/abs/2202.12139v1")
    );
    assert_eq!(first.doi.as_deref(), Some("10.1109/ICSTW55395.2022.00035"));
    assert_eq!(first.primary_category.as_deref(), Some("cs.SE"));
    assert!(first
        .journal_ref
        .as_deref()
        .unwrap_or("")
        .starts_with("Artificial Intelligence in Software Testing @ 2022"));
    // UTF-8 names and the &amp; entity.
    assert_eq!(feed.entries[1].authors[0], "Aurora Ramírez");
    assert_eq!(
        feed.entries[4].title,
        "ChatGPT and Software Testing Education: Promises & Perils"
    );
    assert_eq!(feed.entries[9].published_date(), "2018-12-30");
}

#[test]
fn search_trimmed_fixture_observation() {
    let body = fixture("arxiv/search_all_testing_first3_trimmed.xml");
    let obs = interpret(200, None, &body, "testing", DEFAULT_MAX_CHARS).unwrap();
    let blocks: Vec<&str> = obs.split("\n\n").collect();
    assert_eq!(blocks.len(), 3);
    assert!(blocks[0].starts_with(
        "Published: 2022-02-24\nTitle: Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques\nAuthors: Mohit Kumar Ahuja, Arnaud Gotlieb, Helge Spieker\nSummary: Deep Learning (DL) has revolutionized"
    ), "{}", blocks[0]);
    assert!(blocks[0].ends_with("\nURL: https://arxiv.org/abs/2202.12139v1"));
    assert!(blocks[2]
        .contains("Title: Active Fuzzing for Testing and Securing Cyber-Physical Systems"));
    assert!(obs.chars().count() <= DEFAULT_MAX_CHARS);
    let small = interpret(200, None, &body, "testing", 700).unwrap();
    assert!(small.chars().count() <= 700);
}

#[test]
fn id_list_single_fixture() {
    let body = fixture("arxiv/id_list_single_1707.08567.xml");
    let feed = parse_feed(&body).unwrap();
    assert_eq!(feed.entries.len(), 1);
    let e = &feed.entries[0];
    assert_eq!(e.authors.len(), 34);
    assert_eq!(e.authors[33], "Hirosuke Yamamoto");
    assert_eq!(e.authors[32], "Dirk Wübben");
    let obs = interpret(200, None, &body, "1707.08567", 4000).unwrap();
    assert!(obs.contains("Title: Proceedings of Workshop AEW10: Concepts in Information Theory and Communications\n"));
    assert!(obs.contains("Authors: Kees A. Schouhamer Immink, Stan Baggen, Ferdaous Chaabane, Yanling Chen, Peter H. N. de With, Hela Gassara, Hamed Gharbi, Adel Ghazel et al. (34 authors)\n"), "{}", obs);
    assert!(obs.ends_with("URL: https://arxiv.org/abs/1707.08567v1"));
}

#[test]
fn legacy_example_fixture() {
    let body = fixture("arxiv/legacy_manual_example_all_electron_max1.xml");
    let feed = parse_feed(&body).unwrap();
    assert_eq!(feed.total_results, Some(1000));
    assert_eq!(feed.entries.len(), 1);
    let e = &feed.entries[0];
    assert_eq!(
        e.title,
        "Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA"
    );
    assert_eq!(e.authors, vec!["H1 Collaboration"]);
    assert_eq!(e.published_date(), "2003-07-07");
    assert_eq!(e.abs_url(), "https://arxiv.org/abs/hep-ex/0307015");
    assert_eq!(
        e.journal_ref.as_deref(),
        Some("Eur.Phys.J. C31 (2003) 17-29")
    );
    assert_eq!(e.primary_category.as_deref(), Some("hep-ex"));
    assert!(e.summary.starts_with("Multi-electron production is studied at high electron transverse momentum in positron- and"));
    assert!(e
        .summary
        .ends_with("of 0.30 \\pm 0.04 and 0.23 \\pm 0.04, respectively."));
    assert!(!e.summary.contains('\n'));
    let obs = interpret(200, None, &body, "all:electron", 4000).unwrap();
    assert!(obs.starts_with("Published: 2003-07-07\nTitle: Multi-Electron Production"));
}

#[test]
fn empty_result_fixture() {
    let body = fixture("arxiv/empty_result_id_0000.0000.xml");
    let feed = parse_feed(&body).unwrap();
    assert_eq!(feed.total_results, Some(0));
    assert!(feed.entries.is_empty());
    assert_eq!(
        interpret(200, None, &body, "0000.0000", 4000).unwrap(),
        "arXiv has no papers matching '0000.0000'. Try fewer or more general keywords, or a different spelling."
    );
}

#[test]
fn error_400_fixture() {
    let body = fixture("arxiv/error_400_incorrect_id_format.xml");
    let e = interpret(400, None, &body, "abc", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::Api {
            code: "incorrect_id_format_for_abc".into()
        }
    );
    assert_eq!(
        e.message,
        "arXiv rejected the query: incorrect id format for abc. Check the arXiv identifier or search with plain keywords instead."
    );
}

#[test]
fn legacy_error_with_200_fixture() {
    let body = fixture("arxiv/legacy_manual_error_incorrect_id_format.xml");
    let e = interpret(200, None, &body, "1234.12345", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::Api {
            code: "incorrect_id_format_for_1234.12345".into()
        }
    );
    assert!(e.message.contains("incorrect id format for 1234.12345"));
}

#[test]
fn access_denied_and_rate_limits() {
    let html = "<!DOCTYPE html><html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>Sorry, your request has been denied.</p></body></html>";
    for status in [200, 403, 503] {
        let e = interpret(status, None, html, "q", 4000).unwrap_err();
        assert_eq!(
            e.kind,
            ServiceErrorKind::RateLimited {
                retry_after_s: Some(60)
            },
            "{}",
            status
        );
        assert!(
            e.message.contains("arXiv refused the request")
                && e.message.contains("try again in a minute")
        );
    }
    let e = interpret(503, Some("20"), "", "q", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: Some(20)
        }
    );
    assert_eq!(
        interpret(503, None, "", "q", 4000).unwrap_err().kind,
        ServiceErrorKind::Http { status: 503 }
    );
    let e = interpret(429, Some("7"), "", "q", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: Some(7)
        }
    );
    assert!(e.message.contains("3 seconds"));
}

#[test]
fn broken_bodies_never_panic() {
    let full = fixture("arxiv/search_all_testing_max10.xml");
    let mut cut = 0;
    while cut < full.len() {
        if let Some(part) = full.get(..cut) {
            let r = interpret(200, None, part, "testing", 4000);
            // Any strict prefix lacks </feed>, so it must be an error.
            assert!(r.is_err(), "prefix {} accepted", cut);
        }
        cut += 97;
    }
    assert_eq!(
        interpret(200, None, "", "q", 4000).unwrap_err().kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret(500, None, "", "q", 4000).unwrap_err().kind,
        ServiceErrorKind::Http { status: 500 }
    );
    assert_eq!(
        interpret(200, None, "{\"json\":1}", "q", 4000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    let e = interpret(
        200,
        None,
        "<html><body>Service Unavailable</body></html>",
        "q",
        4000,
    )
    .unwrap_err();
    assert_eq!(e.kind, ServiceErrorKind::BadResponse);
    assert!(e.message.contains("HTML"));
    assert!(interpret(200, None, "<rss><channel/></rss>", "q", 4000).is_err());
    assert!(interpret(
        200,
        None,
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>&#0;</title></entry></feed>",
        "q",
        4000
    )
    .is_err());
    assert!(interpret(
        200,
        None,
        "<feed><entry><title>a</wrong></entry></feed>",
        "q",
        4000
    )
    .is_err());
    let deep = format!("<feed>{}", "<x>".repeat(1000));
    assert!(interpret(200, None, &deep, "q", 4000).is_err());
    // Unknown entity kept literally, CDATA read.
    let odd = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>http://arxiv.org/abs/1</id><title>A &foo; <![CDATA[<b>]]></title></entry></feed>";
    let f = parse_feed(odd);
    // quick-xml may reject the undeclared entity; either way no panic.
    if let Ok(f) = f {
        assert_eq!(f.entries[0].title, "A &foo; <b>");
    }
}
