//! Decimal text to a number, one reader for the whole app (the calculator, settings fields,
//! `Retry-After`, MCP arguments). Rust's own `str::parse::<f64>` is correctly rounded, but it
//! brings the standard library's float reader into the bundle with its table of powers of five
//! (docs/performance.md, "Bundle size"); serde_json, which the app has anyway, reads JSON numbers with its
//! own code. So the text is checked here against the decimal grammar the app accepts and
//! rewritten as a JSON number for serde_json to read.
//!
//! Accepted: an optional sign, digits with an optional fraction (`.5` and `5.` included), and an
//! optional exponent (`1e3`, `2.5E-4`). Not accepted: `inf`, `NaN`, hexadecimal, separators,
//! empty text. A number too large for an `f64` is infinite, as `str::parse` makes it.
//! Precision: the nearest `f64` for up to 15 significant digits scaled by a power of ten up to
//! 10^22 either way (what people type: `0.1`, `3.14159`, `2.5e-4`); beyond that it may differ
//! from the nearest `f64` in the last bit.

#[cfg(test)]
mod tests;

/// `text` (surrounding white space ignored) as an `f64`, or `None` when it is not a decimal
/// number.
pub fn parse_f64(text: &str) -> Option<f64> {
    let text = text.trim();
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let end_of = |s: &str, from: usize| from + s[from..].bytes().take_while(u8::is_ascii_digit).count();
    let int_end = end_of(rest, 0);
    let (int, mut at) = (&rest[..int_end], int_end);
    let mut fraction = "";
    if rest[at..].starts_with('.') {
        let frac_end = end_of(rest, at + 1);
        fraction = &rest[at + 1..frac_end];
        at = frac_end;
    }
    if int.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut exponent = "";
    if rest[at..].starts_with(['e', 'E']) {
        let sign = usize::from(rest[at + 1..].starts_with(['+', '-']));
        let exp_end = end_of(rest, at + 1 + sign);
        if exp_end == at + 1 + sign {
            return None;
        }
        exponent = &rest[at + 1..exp_end];
        at = exp_end;
    }
    if at != rest.len() {
        return None;
    }
    // The JSON form: a sign only when negative, no leading zeros, digits on both sides of a point.
    let int = int.trim_start_matches('0');
    let mut json = String::with_capacity(rest.len() + 3);
    if negative {
        json.push('-');
    }
    json.push_str(if int.is_empty() { "0" } else { int });
    if !fraction.is_empty() {
        json.push('.');
        json.push_str(fraction);
    }
    if !exponent.is_empty() {
        json.push('e');
        json.push_str(exponent);
    }
    match serde_json::from_str::<f64>(&json) {
        Ok(value) => Some(value),
        // The text is a number (checked above); serde_json refuses only one too large.
        Err(_) => Some(if negative { f64::NEG_INFINITY } else { f64::INFINITY }),
    }
}

/// The same, as an `f32` (rounded from the `f64`).
pub fn parse_f32(text: &str) -> Option<f32> {
    parse_f64(text).map(|n| n as f32)
}
