//! Tests of the retry policy: which statuses are retried, back-off, `Retry-After` in both forms.

use super::*;

/// A delay without a clock: only the seconds form of `Retry-After` is understood.
fn delay_for(p: &RetryPolicy, attempt: u32, status: u16, retry_after: Option<&str>) -> Option<f64> {
    p.delay(attempt, status, retry_after, None)
}

const NOV_1994_MS: f64 = 784_111_777_000.0;

#[test]
fn delay_table() {
    let p = RetryPolicy::default();
    let cases: &[(u32, u16, Option<&str>, Option<f64>)] = &[
        (1, 429, None, Some(1000.0)),
        (2, 429, None, Some(2000.0)),
        (3, 429, None, None),
        (0, 500, None, Some(1000.0)),
        (1, 502, None, Some(1000.0)),
        (1, 503, None, Some(1000.0)),
        (1, 504, None, Some(1000.0)),
        (1, 529, None, Some(1000.0)),
        (1, 400, None, None),
        (1, 401, None, None),
        (1, 403, None, None),
        (1, 404, None, None),
        (1, 501, None, None),
        (1, 200, None, None),
        (1, 429, Some("5"), Some(5000.0)),
        (1, 429, Some(" 1.5 "), Some(1500.0)),
        (1, 503, Some("0"), Some(0.0)),
        (1, 503, Some("120"), Some(30_000.0)),
        (1, 503, Some("-3"), Some(1000.0)),
        (1, 503, Some("soon"), Some(1000.0)),
        (1, 503, Some(""), Some(1000.0)),
        (1, 503, Some("1e400"), Some(1000.0)),
        (2, 503, Some("NaN"), Some(2000.0)),
        // Without the current time an HTTP-date cannot be used: fall back to backoff.
        (1, 503, Some("Sun, 06 Nov 1994 08:49:37 GMT"), Some(1000.0)),
        (3, 503, Some("5"), None),
    ];
    for &(attempt, status, header, want) in cases {
        assert_eq!(delay_for(&p, attempt, status, header), want, "attempt {attempt} status {status} {header:?}");
    }
}

#[test]
fn http_dates_with_a_clock() {
    let p = RetryPolicy::default();
    let date = Some("Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(p.delay_for_at(1, 429, date, NOV_1994_MS - 7_000.0), Some(7000.0));
    assert_eq!(p.delay_for_at(1, 429, date, NOV_1994_MS + 7_000.0), Some(0.0));
    assert_eq!(p.delay_for_at(1, 429, date, NOV_1994_MS - 3_600_000.0), Some(30_000.0));
    assert_eq!(p.delay_for_at(1, 429, Some("12"), 0.0), Some(12_000.0));
    assert_eq!(p.delay_for_at(1, 429, Some("Sunday, 06-Nov-94 08:49:37 GMT"), NOV_1994_MS), Some(1000.0));
    assert_eq!(p.delay_for_at(1, 429, date, f64::NAN), Some(1000.0));
    assert_eq!(p.delay_for_at(1, 400, date, 0.0), None);
}

#[test]
fn imf_fixdate_table() {
    let cases: &[(&str, Option<f64>)] = &[
        ("Sun, 06 Nov 1994 08:49:37 GMT", Some(NOV_1994_MS)),
        ("Thu, 01 Jan 1970 00:00:00 GMT", Some(0.0)),
        ("Wed, 31 Dec 1969 23:59:59 GMT", Some(-1000.0)),
        ("Sun, 01 Mar 2026 00:00:00 GMT", Some(1_772_323_200_000.0)),
        ("Wed, 29 Feb 2040 23:59:59 GMT", Some(2_214_172_799_000.0)),
        ("Thu, 29 Feb 2026 00:00:00 GMT", None),
        ("Sun, 06 Nov 1994 24:00:00 GMT", None),
        ("Sun, 06 Foo 1994 08:49:37 GMT", None),
        ("Sun, 06 Nov 1994 08:49:37 PST", None),
        ("Sun 06 Nov 1994 08:49:37 GMT", None),
        ("Sun, 06 Nov 94 08:49:37 GMT", None),
        ("Sun, +6 Nov 1994 08:49:37 GMT", None),
        ("Sun, 06 Nov 1994 8:49:37 GMT", None),
        ("Sun, 06 Nov 1994 08:49 GMT", None),
        ("Sun Nov  6 08:49:37 1994", None),
        ("", None),
        ("Sun, 00 Nov 1994 08:49:37 GMT", None),
    ];
    for &(s, want) in cases {
        assert_eq!(parse_imf_fixdate(s), want, "{s:?}");
    }
}

#[test]
fn odd_policies_never_give_nan_or_overflow() {
    let p = RetryPolicy { max_attempts: 1000, ..Default::default() };
    assert_eq!(delay_for(&p, 999, 503, None), Some(30_000.0));
    assert_eq!(delay_for(&p, u32::MAX, 503, None), None);
    let p = RetryPolicy { max_attempts: 5, base_delay_ms: f64::NAN, max_delay_ms: f64::INFINITY };
    assert_eq!(delay_for(&p, 2, 503, None), Some(2000.0));
    let p = RetryPolicy { max_attempts: 5, base_delay_ms: -5.0, max_delay_ms: -1.0 };
    assert_eq!(delay_for(&p, 2, 503, Some("9")), Some(0.0));
    let p = RetryPolicy { max_attempts: 0, ..Default::default() };
    assert_eq!(delay_for(&p, 1, 503, None), None);
    let p = RetryPolicy { max_attempts: 1, ..Default::default() };
    assert_eq!(delay_for(&p, 1, 503, None), None);
}

#[test]
fn stream_rejection_table() {
    let o1 = r#"{"error":{"message":"Unsupported value: 'stream' does not support true with this model. Only the default (false) value is supported.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}"#;
    let o3 = r#"{"error":{"message":"Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}"#;
    let via_proxy = r#"{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\n  \"error\": {\n    \"message\": \"Your organization must be verified to stream this model.\"}}"}}}"#;
    let qwq = r#"{"error":{"code":"invalid_parameter_error","param":null,"message":"This model only support stream mode, please enable the stream parameter to access the model. ","type":"invalid_request_error"}}"#;
    let pydantic = r#"{"detail":[{"type":"extra_forbidden","loc":["body","stream"],"msg":"Extra inputs are not permitted"}]}"#;
    let cases: &[(u16, &str, bool)] = &[
        (400, o1, true),
        (400, o3, true),
        (400, via_proxy, true),
        (422, pydantic, true),
        (400, "Streaming is not supported for this model", true),
        (400, "Unrecognized request argument supplied: stream", true),
        (400, r#"{"error":{"message":"bad","param":"stream"}}"#, true),
        (400, qwq, false),
        (500, o1, false),
        (401, o3, false),
        (429, o1, false),
        (400, r#"{"error":{"message":"Unsupported value: 'temperature'","param":"temperature"}}"#, false),
        (400, r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#, false),
        (400, "", false),
        (400, "stream", false),
    ];
    for &(status, body, want) in cases {
        assert_eq!(is_rejection_of_stream(status, body), want, "{status} {body}");
    }
}
