//! When to try a failed model call again, and how long to wait first; and whether a 400 means
//! "this model/provider does not stream", so the caller can repeat the request with
//! `stream: false`. Pure decisions with no I/O and no clock or randomness of their own: the
//! caller passes the current time when it wants HTTP-date `Retry-After` values honoured, and
//! does the waiting itself.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included: 3 means up to two retries.
    pub max_attempts: u32,
    pub base_delay_ms: f64,
    pub max_delay_ms: f64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { max_attempts: 3, base_delay_ms: 1000.0, max_delay_ms: 30_000.0 }
    }
}

/// Statuses worth repeating unchanged: rate limits, server faults, gateways, and Anthropic's
/// 529 "overloaded". Everything else (bad key, bad request, 501 Not Implemented) will fail the
/// same way again.
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

impl RetryPolicy {
    /// How long to wait before the next attempt, in milliseconds, or `None` to give up.
    /// `attempt` is the 1-based number of the attempt that just failed. `retry_after` is the
    /// raw `Retry-After` header; only its seconds form is understood here (see `delay_for_at`).
    pub fn delay_for(&self, attempt: u32, status: u16, retry_after: Option<&str>) -> Option<f64> {
        self.delay(attempt, status, retry_after, None)
    }

    /// As `delay_for`, and also understands a `Retry-After` HTTP-date
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`), measured from `now_unix_ms`.
    pub fn delay_for_at(&self, attempt: u32, status: u16, retry_after: Option<&str>, now_unix_ms: f64) -> Option<f64> {
        self.delay(attempt, status, retry_after, Some(now_unix_ms))
    }

    fn delay(&self, attempt: u32, status: u16, retry_after: Option<&str>, now_unix_ms: Option<f64>) -> Option<f64> {
        if !is_retryable(status) || attempt.max(1) >= self.max_attempts {
            return None;
        }
        // Settings come from storage a person can edit: never hand setTimeout NaN or infinity.
        let cap = if self.max_delay_ms.is_finite() { self.max_delay_ms.max(0.0) } else { 30_000.0 };
        let base = if self.base_delay_ms.is_finite() { self.base_delay_ms.max(0.0) } else { 1000.0 };
        let hinted = retry_after.and_then(|v| retry_after_ms(v, now_unix_ms));
        // The server's own estimate beats our guess; a longer one than `cap` is still capped,
        // so a single turn never stalls for minutes.
        let delay = hinted.unwrap_or_else(|| {
            let exponent = (attempt.max(1) - 1).min(60) as i32;
            base * 2f64.powi(exponent)
        });
        Some(delay.min(cap))
    }
}

/// `Retry-After` as milliseconds from now: delta-seconds (decimals tolerated, as some proxies
/// send them) or, given the time, an IMF-fixdate. Anything else, or a negative value, is `None`.
fn retry_after_ms(value: &str, now_unix_ms: Option<f64>) -> Option<f64> {
    let value = value.trim();
    if value.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        let seconds: f64 = value.parse().ok()?;
        return (seconds.is_finite() && seconds >= 0.0).then_some(seconds * 1000.0);
    }
    let now = now_unix_ms.filter(|n| n.is_finite())?;
    let at = parse_imf_fixdate(value)?;
    Some((at - now).max(0.0))
}

/// Milliseconds since the Unix epoch for `Sun, 06 Nov 1994 08:49:37 GMT`. The obsolete RFC 850
/// and asctime forms are not accepted; servers have sent IMF-fixdate for decades.
pub fn parse_imf_fixdate(s: &str) -> Option<f64> {
    const DAYS: [&str; 7] = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [weekday, day, month, year, time, zone] = parts.as_slice() else {
        return None;
    };
    if !DAYS.contains(weekday) || !(*zone == "GMT" || *zone == "UTC") {
        return None;
    }
    let number = |t: &str, digits: std::ops::RangeInclusive<usize>| -> Option<i64> {
        (digits.contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok()).flatten()
    };
    let day = number(day, 1..=2)?;
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let year = number(year, 4..=4)?;
    let hms: Vec<&str> = time.split(':').collect();
    let [h, m, sec] = hms.as_slice() else {
        return None;
    };
    let (h, m, sec) = (number(h, 2..=2)?, number(m, 2..=2)?, number(sec, 2..=2)?);
    if day < 1 || day > days_in_month(year, month) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 86_400 + h * 3600 + m * 60 + sec) * 1000) as f64)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar. Counting from March makes the
/// leap day the last day of the "year", so one formula covers every month; 400-year eras
/// of 146097 days repeat exactly.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// True when a 400 (or a framework's 422) says the request failed *because* it asked to
/// stream: OpenAI's o1 ("'stream' does not support true with this model") and unverified-org
/// o3 ("must be verified to stream this model"), servers that reject the unknown field.
/// Repeating it with `stream: false` will then work. The opposite complaint, from stream-only
/// models ("This model only support stream mode"), is not a rejection.
pub fn is_rejection_of_stream(status: u16, body: &str) -> bool {
    if !matches!(status, 400 | 422) {
        return false;
    }
    let text = body.to_lowercase();
    if !text.contains("stream") {
        return false;
    }
    const WANTS_STREAM: [&str; 7] = [
        "only support stream",
        "only supports stream",
        "enable the stream",
        "stream must be true",
        "must be streamed",
        "stream mode only",
        "requires stream",
    ];
    if WANTS_STREAM.iter().any(|w| text.contains(w)) {
        return false;
    }
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if value["error"]["param"] == "stream" || value["param"] == "stream" {
        return true;
    }
    const REJECTS: [&str; 12] = [
        "not support",
        "unsupported",
        "not allowed",
        "not available",
        "not permitted",
        "not enabled",
        "disabled",
        "unrecognized",
        "unknown field",
        "unknown parameter",
        "verified to stream",
        "non-stream",
    ];
    REJECTS.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(p.delay_for(attempt, status, header), want, "attempt {attempt} status {status} {header:?}");
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
        assert_eq!(p.delay_for(999, 503, None), Some(30_000.0));
        assert_eq!(p.delay_for(u32::MAX, 503, None), None);
        let p = RetryPolicy { max_attempts: 5, base_delay_ms: f64::NAN, max_delay_ms: f64::INFINITY };
        assert_eq!(p.delay_for(2, 503, None), Some(2000.0));
        let p = RetryPolicy { max_attempts: 5, base_delay_ms: -5.0, max_delay_ms: -1.0 };
        assert_eq!(p.delay_for(2, 503, Some("9")), Some(0.0));
        let p = RetryPolicy { max_attempts: 0, ..Default::default() };
        assert_eq!(p.delay_for(1, 503, None), None);
        let p = RetryPolicy { max_attempts: 1, ..Default::default() };
        assert_eq!(p.delay_for(1, 503, None), None);
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
}
