//! Tests of the OpenAlex service module against recorded bodies.

use super::*;
use crate::test_support::fixture;


#[test]
fn url_shape() {
    let r = search_url(
        "https://api.openalex.org/",
        "graph neural networks",
        3,
        None,
    )
    .unwrap();
    assert_eq!(
        r.url,
        "https://api.openalex.org/works?search=graph%20neural%20networks&filter=locations.source.id:S4306400194&per-page=3&select=id,doi,title,display_name,publication_date,authorships,abstract_inverted_index,locations"
    );
    let r = search_url("http://127.0.0.1:1", "x", 99, Some(" k&y ")).unwrap();
    assert!(
        r.url.contains("per-page=20&") && r.url.ends_with("&api_key=k%26y"),
        "{}",
        r.url
    );
    assert!(search_url("https://x", "x", 0, Some(""))
        .unwrap()
        .url
        .contains("per-page=1&"));
    assert!(!search_url("https://x", "x", 1, Some("  "))
        .unwrap()
        .url
        .contains("api_key"));
    assert_eq!(
        search_url("https://x", " ", 3, None).unwrap_err().kind,
        ServiceErrorKind::BadInput
    );
    assert!(search_url("api.openalex.org", "x", 3, None).is_err());
}

#[test]
fn search_fixture_two_works() {
    let body = fixture("openalex/works_search_machine_learning_public_health_trimmed2.json");
    let works = parse_works(&body).unwrap();
    assert_eq!(works.len(), 2);
    let a = &works[0];
    assert_eq!(a.title, "Redefining climate regions in the United States of America using satellite remote sensing and machine learning for public health applications");
    assert_eq!(a.publication_date, "2014-12-01");
    assert_eq!(
        a.authors,
        vec!["Alexander Liss", "Magaly Koch", "Elena N. Naumova"]
    );
    assert!(a.abstract_text.starts_with("Existing climate classification has not been designed for an efficient handling of public health scenarios."));
    assert!(a.abstract_text.ends_with(
        "Its utility in forecasting and mitigating these effects has to be further explored."
    ));
    assert_eq!(a.abstract_text.split(' ').count(), 240);
    assert_eq!(a.arxiv_url, None);
    assert_eq!(a.url(), "https://doi.org/10.4081/gh.2014.294");
    let b = &works[1];
    assert_eq!(
        b.title,
        "Data Science in Public Health: Building Next Generation Capacity"
    );
    assert_eq!(b.authors, vec!["Nicholas Mirin", "Rumi Chunara"]);
    assert_eq!(b.url(), "https://arxiv.org/abs/2208.03461");
    assert!(b
        .abstract_text
        .starts_with("Rapidly evolving technology, data, and analytic landscapes"));

    let obs = interpret(200, None, &body, "machine learning AND public health", 4000).unwrap();
    assert!(
        obs.starts_with(&format!(
            "{}\n\nPublished: 2014-12-01\nTitle: Redefining climate regions",
            SOURCE_NOTE
        )),
        "{}",
        obs
    );
    assert!(obs.contains("\n\nPublished: 2022-10-27\nTitle: Data Science in Public Health: Building Next Generation Capacity\nAuthors: Nicholas Mirin, Rumi Chunara\nSummary: Rapidly evolving"));
    assert!(obs.ends_with("URL: https://arxiv.org/abs/2208.03461"));
    assert!(obs.chars().count() <= 4000);
    let small = interpret(200, None, &body, "q", 600).unwrap();
    assert!(small.chars().count() <= 600 && small.starts_with(SOURCE_NOTE));
}

#[test]
fn singleton_fixture_2026_schema() {
    let body = fixture("openalex/work_single_W2741809807_2026.json");
    let works = parse_works(&body).unwrap();
    assert_eq!(works.len(), 1);
    let w = &works[0];
    assert_eq!(w.title, "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles");
    assert_eq!(w.publication_date, "2018-02-13");
    assert_eq!(w.authors.len(), 9);
    assert_eq!(w.authors[0], "Heather Piwowar");
    assert_eq!(w.authors[3], "Juan Pablo Alperín");
    assert!(w
        .abstract_text
        .starts_with("Despite growing interest in Open Access (OA) to scholarly literature"));
    assert_eq!(w.url(), "https://doi.org/10.7717/peerj.4375");
    let obs = interpret(200, None, &body, "state of OA", 4000).unwrap();
    assert!(obs.contains("Authors: Heather Piwowar, Jason Priem, Vincent Larivière, Juan Pablo Alperín, Lisa Matthias, Bree Norlander, Ashley Farley, Jevin D. West et al. (9 authors)"), "{}", obs);
}

#[test]
fn empty_results() {
    let body = r#"{"meta":{"count":0,"db_response_time_ms":12,"page":1,"per_page":3,"groups_count":null},"results":[],"group_by":[]}"#;
    let obs = interpret(200, None, body, "zzqx", 4000).unwrap();
    assert_eq!(obs, format!("{}\n\nOpenAlex has no arXiv-hosted works matching 'zzqx'. Try fewer or more general keywords.", SOURCE_NOTE));
}

#[test]
fn errors() {
    // Shape from the OpenAlex API server source (fixtures README): no recorded body exists.
    let body = r#"{"error":"Invalid query parameters error.","message":"per-page is not a valid parameter. Valid parameters are: filter, search, sort."}"#;
    let e = interpret(400, None, body, "q", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::Api {
            code: "Invalid query parameters error.".into()
        }
    );
    assert!(
        e.message.contains("per-page is not a valid parameter"),
        "{}",
        e.message
    );
    let e = interpret(429, Some("3600"), "{\"error\":\"x\"}", "q", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: Some(3600)
        }
    );
    assert!(e.message.contains("about 60 minutes"), "{}", e.message);
    let e = interpret(503, Some("30"), "<html>busy</html>", "q", 4000).unwrap_err();
    assert_eq!(
        e.kind,
        ServiceErrorKind::RateLimited {
            retry_after_s: Some(30)
        }
    );
    assert_eq!(
        interpret(503, None, "", "q", 4000).unwrap_err().kind,
        ServiceErrorKind::Http { status: 503 }
    );
    let e = interpret(403, None, "", "q", 4000).unwrap_err();
    assert_eq!(e.kind, ServiceErrorKind::Http { status: 403 });
    assert!(e.message.contains("API key"));
    assert_eq!(
        interpret(500, None, "oops", "q", 4000).unwrap_err().kind,
        ServiceErrorKind::Http { status: 500 }
    );
}

#[test]
fn bad_bodies_never_panic() {
    let full = fixture("openalex/works_search_machine_learning_public_health_trimmed2.json");
    for cut in [0, 1, 100, full.len() / 2, full.len() - 1] {
        let part = full.get(..cut).unwrap_or("");
        assert_eq!(
            interpret(200, None, part, "q", 4000).unwrap_err().kind,
            ServiceErrorKind::BadResponse,
            "cut {}",
            cut
        );
    }
    assert_eq!(
        interpret(200, None, "<!DOCTYPE html><html></html>", "q", 4000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret(200, None, "{\"results\":{}}", "q", 4000)
            .unwrap_err()
            .kind,
        ServiceErrorKind::BadResponse
    );
    assert_eq!(
        interpret(200, None, "{}", "q", 4000).unwrap_err().kind,
        ServiceErrorKind::BadResponse
    );
    // Hostile inverted index: huge and negative positions, wrong types.
    let odd = r#"{"results":[{"id":"https://openalex.org/W1","title":null,"display_name":"Fallback title",
            "authorships":[{"author":null},{"author":{"display_name":"Ann"}}],
            "abstract_inverted_index":{"end":[1000000000000],"start":[0],"bad":[-1,"x",null],"mid":"nope"},
            "locations":[{"landing_page_url":null,"pdf_url":"http://arxiv.org/pdf/2101.00001v2","source":{"id":"https://openalex.org/S4306400194"}}]},
            5, null]}"#;
    let works = parse_works(odd).unwrap();
    assert_eq!(works.len(), 1);
    assert_eq!(works[0].title, "Fallback title");
    assert_eq!(works[0].authors, vec!["Ann"]);
    assert_eq!(works[0].abstract_text, "start end");
    assert_eq!(works[0].url(), "https://arxiv.org/abs/2101.00001v2");
    assert!(interpret(200, None, odd, "q", 10).is_ok());
}
