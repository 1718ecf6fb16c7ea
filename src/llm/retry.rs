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
    /// raw `Retry-After` header, in seconds or as an HTTP-date
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) measured from `now_unix_ms`.
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
        let seconds = crate::number::parse_f64(value)?;
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
/// A 400/422 that names `stream_options` (or its `include_usage`): the server does not know
/// the field that asks for token counts at the end of a stream. Checked before
/// `is_rejection_of_stream`, whose words it would otherwise match.
pub fn is_refusal_of_usage_option(status: u16, body: &str) -> bool {
    let text = body.to_lowercase();
    matches!(status, 400 | 422) && (text.contains("stream_options") || text.contains("include_usage"))
}

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
mod tests;
