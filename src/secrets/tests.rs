//! The one masking function: key shapes, configured values, byte lengths kept.

use super::*;

pub(crate) fn secrets(values: &[&str]) -> Secrets {
    Secrets::new(values.iter().copied())
}

fn check(input: &str, expected: &str) {
    assert_eq!(mask(input, &Secrets::default()), stars(expected), "{input}");
}

/// `expected` with each `*N*` written out as N stars.
pub(crate) fn stars(expected: &str) -> String {
    let mut out = String::new();
    let mut parts = expected.split('*');
    out.push_str(parts.next().unwrap_or(""));
    while let (Some(n), Some(rest)) = (parts.next(), parts.next()) {
        out.push_str(&"*".repeat(n.parse().unwrap()));
        out.push_str(rest);
    }
    out
}

#[test]
fn masks_every_common_key_shape() {
    check("Incorrect API key provided: sk-proj-abcdefghijklmnop1234.", "Incorrect API key provided: sk-*25*.");
    check("key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv_wx-yz rejected", "key sk-*38* rejected");
    check("Invalid API Key gsk_0123456789abcdefABCDEF", "Invalid API Key gsk_*22*");
    check("(xai-0123456789abcdefghij)", "(xai-*20*)");
    check("hf_abcdefghijklmnopqrstu and AIzaSyA-0123456789abcdefghijklmn", "hf_*21* and AIza*28*");
    check("pplx-0123456789abcdef0123 nvapi-0123456789abcdef-XYZ", "pplx-*20* nvapi-*20*");
    check("\"Authorization\": \"Bearer eyJhbGciOi.J9abc123.sig_x\"", "\"Authorization\": \"Bearer *25*\"");
    check("sent bearer  tl-0123456789 twice", "sent bearer  *13* twice");
    // Non-ASCII text around a key stays intact.
    check("Schlüssel «sk-abcdefghijklmnopqrst» ungültig", "Schlüssel «sk-*20*» ungültig");
}

#[test]
fn ordinary_words_are_not_keys() {
    for text in [
        "a task-list and a disk-image",
        "use sk-learn or sk-",
        "risk-free, gsk_short",
        "Bearer token required",
        "Missing bearer authentication header",
        "the Bearer: 12",
        "",
    ] {
        check(text, text);
    }
}

#[test]
fn masks_every_configured_value_wherever_it_appears_keeping_byte_lengths() {
    let s = secrets(&["tl-custom-secret-42", "az-header-value-9", "oa&key/1", "short", "schlüssel-ö"]);
    let text = "key tl-custom-secret-42, header az-header-value-9, url ?api_key=oa%26key%2F1 and oa&key/1, short stays, schlüssel-ö.";
    let masked = mask(text, &s);
    assert_eq!(masked, stars("key *19*, header *17*, url ?api_key=*12* and *8*, short stays, *13*."));
    assert_eq!(masked.len(), text.len(), "byte offsets into the text stay valid");
    // A secret that contains another is removed whole.
    let s = secrets(&["abcdef", "xxabcdefyy"]);
    assert_eq!(mask("1 xxabcdefyy 2 abcdef", &s), stars("1 *10* 2 *6*"));
    // Masking twice changes nothing more.
    let once = mask("sk-abcdefghijklmnopqrstuvwx tl-custom-secret-42", &secrets(&["tl-custom-secret-42"]));
    assert_eq!(mask(&once, &secrets(&["tl-custom-secret-42"])), once);
    assert!(!format!("{:?}", secrets(&["tl-custom-secret-42"])).contains("tl-custom"));
}

#[test]
fn secret_headers_are_every_header_but_the_known_public_ones() {
    assert!(is_secret_header("api-key") && is_secret_header(" Authorization ") && is_secret_header("X-Proxy-Token"));
    assert!(!is_secret_header("HTTP-Referer") && !is_secret_header("anthropic-version"));
    assert_eq!(secret_header_values("Authorization: Bearer tok-1\nX-Title: T"), ["Bearer tok-1", "tok-1"]);
    assert_eq!(public_header_lines("Authorization: Bearer tok-1\nX-Title: T\npasted-key"), "X-Title: T");
}
