//! Percent-encoding of URL parts (RFC 3986), for the tools' query strings and for masking a
//! secret as it appears inside a URL.

/// Percent-encode a query-string value (RFC 3986): unreserved characters stay,
/// every other byte of the UTF-8 form becomes `%XX`. `keep` lists extra ASCII
/// characters that may stay literal (e.g. `:` in arXiv's `all:term`, which is
/// legal in a query component and keeps the URL readable in logs).
pub fn percent_encode(s: &str, keep: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 2);
    for &b in s.as_bytes() {
        let c = b as char;
        if b.is_ascii_alphanumeric()
            || matches!(c, '-' | '_' | '.' | '~')
            || (b.is_ascii() && keep.contains(c))
        {
            out.push(c);
        } else {
            out.push('%');
            out.push(hex_digit(b >> 4));
            out.push(hex_digit(b & 0x0F));
        }
    }
    out
}

fn hex_digit(nibble: u8) -> char {
    char::from_digit(u32::from(nibble & 0x0F), 16)
        .map(|c| c.to_ascii_uppercase())
        .unwrap_or('0')
}

/// Percent-encode a query-string value with nothing extra kept literal.
pub fn encode_component(s: &str) -> String {
    percent_encode(s, "")
}
