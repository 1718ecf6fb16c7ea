//! Percent-encoding of URL parts (RFC 3986), for the tools' query strings and for masking a
//! secret as it appears inside a URL; and a URL's origin, which a secret is bound to.

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

/// `scheme://host[:port]` of an http(s) URL, lower-cased, without a default port; `None` for
/// anything else (an empty or relative base URL binds no key to any server).
pub fn origin(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // user:password@ is not part of the origin.
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h).to_ascii_lowercase();
    if host_port.is_empty() {
        return None;
    }
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let host_port = host_port.strip_suffix(default_port).unwrap_or(&host_port);
    Some(format!("{scheme}://{host_port}"))
}

