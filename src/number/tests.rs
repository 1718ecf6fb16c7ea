use super::{parse_f32, parse_f64};
use crate::test_support::Rng;

#[test]
fn decimal_numbers_read_as_rust_reads_them() {
    for text in ["0", "-0", "7", "+7", "25", "0.1", ".5", "5.", "-.25", "3.14159", "2.5e-4", "1E3", "6.02214076e23", "1e-7", "0001.50", "  42 ", "-12.5e+2", "123456789012345", "9007199254740992"] {
        let ours = parse_f64(text).unwrap_or_else(|| panic!("{text:?} is a number"));
        let std: f64 = text.trim().parse().unwrap();
        assert_eq!(ours.to_bits(), std.to_bits(), "{text:?}");
    }
}

#[test]
fn what_is_not_a_decimal_number_is_refused() {
    for text in ["", " ", "-", "+", ".", "-.", "e3", "1e", "1e+", "1.2.3", "1,5", "0x10", "inf", "-infinity", "NaN", "1_000", "12a", "--1", "+-1", "1 2", "١٢"] {
        assert_eq!(parse_f64(text), None, "{text:?}");
    }
}

#[test]
fn a_number_too_large_is_infinite_as_std_makes_it() {
    assert_eq!(parse_f64("1e400"), Some(f64::INFINITY));
    assert_eq!(parse_f64("-1e400"), Some(f64::NEG_INFINITY));
    assert_eq!(parse_f64("1e-400"), Some(0.0));
    assert_eq!(parse_f32("0.7"), Some(0.7));
}

/// What people type (up to 15 significant digits, scaled by at most 10^22) reads as the
/// nearest `f64`, exactly as the standard library's correctly rounded reader gives it.
#[test]
fn typed_numbers_are_the_nearest_f64() {
    let mut rng = Rng::new(0x5eed_f00d);
    for _ in 0..200_000 {
        let digits = 1 + rng.below(15);
        let mut text = String::new();
        for i in 0..digits {
            let d = if i == 0 { 1 + rng.below(9) } else { rng.below(10) };
            text.push(char::from(b'0' + d as u8));
        }
        let point = rng.below(digits + 1);
        text.insert(point, '.');
        if rng.below(3) == 0 {
            let e = rng.below(15) as i64 - 7;
            text.push_str(&format!("e{e}"));
        }
        if rng.below(2) == 0 {
            text.insert(0, '-');
        }
        let std: f64 = text.parse().unwrap();
        assert_eq!(parse_f64(&text).map(f64::to_bits), Some(std.to_bits()), "{text}");
    }
}

/// The grammar is the standard library's decimal grammar (less `inf` and `NaN`): on random
/// text made of number-like characters, both accept the same strings, and nothing panics.
#[test]
fn the_same_texts_are_numbers_as_for_the_standard_library() {
    let alphabet: Vec<char> = "0123456789..eE+-+-é٣".chars().collect();
    let mut rng = Rng::new(0xdec1_4a15);
    for _ in 0..200_000 {
        let len = rng.below(9);
        let text: String = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        assert_eq!(parse_f64(&text).is_some(), text.parse::<f64>().is_ok(), "{text:?}");
    }
}
