//! Tests of the text helpers shared by the service modules.

use super::*;

#[test]
fn encodes_reserved_and_utf8() {
    assert_eq!(encode_component("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
    assert_eq!(percent_encode("all:x y", ":"), "all:x%20y");
    assert_eq!(encode_component("A-Z_a.z~0"), "A-Z_a.z~0");
    assert_eq!(encode_component("|"), "%7C");
}

#[test]
fn strips_tags_and_entities() {
    let s = "<span class=\"searchmatch\">Python</span> is &amp; was &#8211; &#x41;&lt;b&gt; &bogus; & x";
    assert_eq!(strip_html_tags(s), "Python is & was – A<b> &bogus; & x");
    assert_eq!(strip_html_tags("a<br>b<br/>c</p><p>d"), "a b c d");
    assert_eq!(
        strip_html_tags("ABC (<span class=\"searchmatch\">x</span>)"),
        "ABC (x)"
    );
    assert_eq!(strip_html_tags("unclosed <tag"), "unclosed");
    assert_eq!(decode_entities("&#0;&#xFFFFFFFF;&"), "&#0;&#xFFFFFFFF;&");
}

#[test]
fn bound_respects_limit_and_marks() {
    let s = "word ".repeat(100);
    let b = bound(&s, 60);
    assert!(b.chars().count() <= 60, "{}", b);
    assert!(b.ends_with(TRUNCATION_MARKER));
    assert_eq!(bound("short", 60), "short");
    assert_eq!(bound("ééééééééééé", 3), TRUNCATION_MARKER);
    let multi = "日本語".repeat(50);
    assert!(bound(&multi, 30).chars().count() <= 30);
}

#[test]
fn shorten_adds_ellipsis() {
    assert_eq!(shorten("abcdef", 10), "abcdef");
    let s = shorten("alpha beta gamma delta", 12);
    assert!(s.ends_with('…') && s.chars().count() <= 12, "{}", s);
}

#[test]
fn retry_after_parsing() {
    assert_eq!(parse_retry_after(Some("30")), Some(30));
    assert_eq!(parse_retry_after(Some(" 5 ")), Some(5));
    assert_eq!(
        parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")),
        None
    );
    assert_eq!(parse_retry_after(Some("-1")), None);
    assert_eq!(parse_retry_after(Some("99999999999999999999999")), None);
    assert_eq!(parse_retry_after(Some("999999")), Some(86_400));
    assert_eq!(parse_retry_after(None), None);
}

#[test]
fn query_cleaning() {
    assert_eq!(clean_query("t", "  a\n\tb  ").unwrap(), "a b");
    assert_eq!(
        clean_query("t", " \n ").unwrap_err().kind,
        ServiceErrorKind::BadInput
    );
    assert!(clean_query("t", &"x".repeat(301)).is_err());
}

#[test]
fn html_detection() {
    assert!(looks_like_html("<!DOCTYPE html><html>"));
    assert!(looks_like_html("  <HTML><body>Access Denied</body></html>"));
    assert!(!looks_like_html("{\"a\":1}"));
    assert!(!looks_like_html("<?xml version='1.0'?><feed>"));
}
