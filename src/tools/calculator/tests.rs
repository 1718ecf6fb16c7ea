//! Tests of the calculator: grammar, errors, formatting, routing, and random inputs that must
//! not panic.

use super::*;
use crate::test_support::Rng;

fn ok(input: &str) -> f64 {
    evaluate(input).unwrap_or_else(|e| panic!("{:?} failed: {}", input, e.message))
}

fn err(input: &str) -> ServiceError {
    match evaluate(input) {
        Ok(v) => panic!("{:?} unexpectedly gave {}", input, v),
        Err(e) => e,
    }
}

#[test]
fn table() {
    let cases: &[(&str, f64)] = &[
        ("25% of 300", 75.0),
        ("2^3^2", 512.0),
        ("sqrt(16)+ln(e)", 5.0),
        ("-(2+3)*4", -20.0),
        ("max(1, 7, 3)", 7.0),
        ("1e3+1", 1001.0),
        ("1+2*3", 7.0),
        ("(1+2)*3", 9.0),
        ("10-4-3", 3.0),
        ("100/10/5", 2.0),
        ("-2^2", -4.0),
        ("2^-1", 0.5),
        ("2**10", 1024.0),
        ("--3", 3.0),
        ("+5", 5.0),
        ("7 % 3", 1.0),
        ("-7 % 3", 2.0),
        ("7 % (-3)", -2.0),
        // Documented trade-off: '%' followed by '-' is a percent sign.
        ("7 % -3", -2.93),
        ("7.5 % 2", 1.5),
        ("25%", 0.25),
        ("25 %", 0.25),
        ("300 + 10%", 330.0),
        ("300 - 10%", 270.0),
        ("300 * 10%", 30.0),
        ("300 / 10%", 3000.0),
        ("10% + 5%", 0.15),
        ("50% - 3", -2.5),
        ("12.5% of 80 + 1", 11.0),
        ("200 + 10% of 50", 205.0),
        ("300 + (10%)", 300.1),
        ("1,000 + 1", 1001.0),
        ("1,234,567.5 * 2", 2469135.0),
        ("(1,000 + 5)", 1005.0),
        // Inside a call a comma always separates arguments: max(1, 000).
        ("max(1,000)", 1.0),
        ("min(3,2,1)", 1.0),
        ("max(1,5) * 1,000", 5000.0),
        ("abs(-3.5)", 3.5),
        ("cbrt(27)", 3.0),
        ("log(1000)", 3.0),
        ("log(8, 2)", 3.0),
        ("log2(1024)", 10.0),
        ("log10(0.01)", -2.0),
        ("exp(0)", 1.0),
        ("floor(-2.5)", -3.0),
        ("ceil(2.1)", 3.0),
        ("round(2.5)", 3.0),
        ("round(2.71828, 2)", 2.72),
        ("sin(pi)", 0.0),
        ("cos(pi)", -1.0),
        ("cos(pi/2)", 0.0),
        ("tan(0)", 0.0),
        ("atan(1)*4", std::f64::consts::PI),
        ("asin(1)", std::f64::consts::FRAC_PI_2),
        ("acos(1)", 0.0),
        ("tau/2", std::f64::consts::PI),
        ("PI", std::f64::consts::PI),
        ("Sqrt(9)", 3.0),
        ("π", std::f64::consts::PI),
        ("6 × 7", 42.0),
        ("84 ÷ 2", 42.0),
        ("5 − 3", 2.0),
        (".5 + 2.", 2.5),
        ("6.02E23 / 6.02e23", 1.0),
        ("2+2=", 4.0),
        ("2+2?", 4.0),
        ("  ( ( 1 ) )  ", 1.0),
        ("e^1", std::f64::consts::E),
        ("2^0.5^2", 2f64.powf(0.25)),
        ("sin(1e-20)", 1e-20),
    ];
    for (input, want) in cases {
        let got = ok(input);
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{} = {} (want {})",
            input,
            got,
            want
        );
    }
}

#[test]
fn errors_say_what_to_fix() {
    let e = err("10/0");
    assert_eq!(e.kind, ServiceErrorKind::Math);
    assert!(e.message.contains("Division by zero"), "{}", e.message);
    assert!(err("5 % 0").message.contains("Modulo by zero"));
    let e = err("foo(2)");
    assert_eq!(e.kind, ServiceErrorKind::BadInput);
    assert!(
        e.message.contains("Unknown name 'foo'")
            && e.message.contains("sqrt")
            && e.message.contains("tau"),
        "{}",
        e.message
    );
    assert!(err("x + 1")
        .message
        .contains("Unknown name 'x' at position 1"));
    let e = err("(1+2");
    assert_eq!(e.message, "Missing ')' for the '(' at position 1.");
    let e = err("1+2)");
    assert_eq!(
        e.message,
        "Unexpected ')' at position 4: it has no matching '('."
    );
    assert!(err("sqrt(4")
        .message
        .contains("Missing ')' for the '(' at position 5"));
    assert!(err("()").message.contains("Unexpected ')' at position 2"));
    let e = err("sqrt(-1)");
    assert_eq!(e.kind, ServiceErrorKind::Math);
    assert!(
        e.message.contains("sqrt(-1)") && e.message.contains("not a finite number"),
        "{}",
        e.message
    );
    assert!(err("10^400").message.contains("not a finite number"));
    assert!(err("ln(0)").message.contains("not a finite number"));
    assert!(err("(-8)^(1/3)").message.contains("not a finite number"));
    assert!(err("1e999").message.contains("too large"));
    assert_eq!(err("").kind, ServiceErrorKind::BadInput);
    assert!(err("   ").message.contains("empty"));
    assert!(err(&"1+".repeat(600)).message.contains("longer than 1000"));
    assert!(err("2pi").message.contains("implicit multiplication"));
    assert!(err("2(3)").message.contains("write * explicitly"));
    assert!(err("sqrt 16")
        .message
        .contains("needs its argument in parentheses"));
    assert!(err("2 +").message.contains("ends too early"));
    assert!(err("*3").message.contains("Expected a number"));
    assert!(err("3 of 4").message.contains("must follow a percentage"));
    assert!(err("of 4").message.contains("must follow a percentage"));
    assert!(err("1,2").message.contains("Unexpected ','"));
    assert!(err("1000,000").message.contains("Unexpected ','"));
    assert!(err("max()").message.contains("at least 1 argument"));
    assert!(err("sqrt(1, 2)").message.contains("exactly 1 argument"));
    assert!(err("log(8, 1)").message.contains("base"));
    assert!(err("round(2.5, 0.5)").message.contains("whole number"));
    assert!(err("2 $ 3")
        .message
        .contains("Unexpected character '$' at position 3"));
    assert!(err("max(1 2)").message.contains("Missing operator"));
    assert!(err("max(1; 2)")
        .message
        .contains("Unexpected character ';'"));
}

#[test]
fn depth_limits() {
    let ok_depth = format!("{}1{}", "(".repeat(90), ")".repeat(90));
    assert_eq!(ok(&ok_depth), 1.0);
    let deep = format!("{}1{}", "(".repeat(101), ")".repeat(101));
    assert!(err(&deep).message.contains("nested more than 100"));
    let deep = format!("{}1{}", "(".repeat(499), ")".repeat(499));
    assert!(err(&deep).message.contains("nested"));
    assert!(err(&"-".repeat(999).to_string()).message.contains("nested"));
    let tower = vec!["2"; 300].join("^");
    assert!(err(&tower).message.contains("nested"));
    let calls = format!("{}1{}", "sqrt(".repeat(150), ")".repeat(150));
    assert!(err(&calls).message.contains("nested"));
    // Long but flat is fine.
    let flat = vec!["1"; 400].join("+");
    assert_eq!(ok(&flat), 400.0);
}

#[test]
fn formatting() {
    let cases: &[(f64, &str)] = &[
        (75.0, "75"),
        (-20.0, "-20"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.1 + 0.2, "0.3"),
        (1.0 / 3.0, "0.333333333333"),
        (2.0 / 3.0, "0.666666666667"),
        (-2.5, "-2.5"),
        (123456.789, "123456.789"),
        (1e15, "1e15"),
        (2f64.powi(60), "1.15292150461e18"),
        (1e-7, "1e-7"),
        (-1.5e-9, "-1.5e-9"),
        (0.000123, "0.000123"),
        (std::f64::consts::PI, "3.14159265359"),
        (999999999999.9999, "1000000000000"),
        (-1e-300, "-1e-300"),
        (f64::NAN, "undefined"),
        (f64::INFINITY, "infinity"),
        (f64::NEG_INFINITY, "-infinity"),
        (1.7976931348623157e308, "1.79769313486e308"),
    ];
    for (x, want) in cases {
        assert_eq!(format_result(*x), *want, "{}", x);
    }
    // Whatever we print, we can read back.
    for x in [1.0 / 7.0, 2f64.powi(70), 1e-12 / 3.0, -123.456e-8] {
        let back = ok(&format_result(x));
        assert!((back - x).abs() <= 1e-11 * x.abs(), "{} -> {}", x, back);
    }
    assert_eq!(observe("2^10").unwrap(), "2^10 = 1024");
    assert_eq!(observe(" 25% of 300 = ").unwrap(), "25% of 300 = 75");
}

#[test]
fn expression_detection() {
    for yes in [
        "2+2",
        "sqrt(2)*5",
        "25% of 300",
        "pi",
        "2+",
        "(3",
        "1,000 * 3",
        "max(1, 2)",
        "2+2?",
        "e",
    ] {
        assert!(looks_like_expression(yes), "{}", yes);
    }
    for no in [
        "What is the square root of two times five?",
        "square root of 2",
        "how many seconds in a day",
        "",
        "x+1",
        "sqrt",
        "()",
        "2 apples + 3 apples",
        "calculate 2+2",
    ] {
        assert!(!looks_like_expression(no), "{}", no);
    }
}

#[test]
fn extraction() {
    let cases: &[(&str, Option<&str>)] = &[
        ("Expression: sqrt(2)*5", Some("sqrt(2)*5")),
        ("Sure!\nExpression: `2^10`\n", Some("2^10")),
        ("**Expression:** sqrt(2) * 5", Some("sqrt(2) * 5")),
        ("- expression: 25% of 300", Some("25% of 300")),
        ("```text\nsqrt(2)*5\n```", Some("sqrt(2)*5")),
        (
            "Here you go:\n```math\n(3+4)*2\n```\nThat is it.",
            Some("(3+4)*2"),
        ),
        ("```\n1+1\n```", Some("1+1")),
        ("```2*3```", Some("2*3")),
        ("```text\nExpression: 7*6\n```", Some("7*6")),
        ("  2 * (3 + 4)  ", Some("2 * (3 + 4)")),
        ("`2+2`", Some("2+2")),
        ("$\\frac{1}{2}$", None),
        ("The expression is:\n\n3*7", Some("3*7")),
        ("Expression: NONE", None),
        ("Expression: none.", None),
        ("I cannot convert that.", None),
        ("", None),
        ("```", None),
        ("```text\n", None),
    ];
    for (reply, want) in cases {
        assert_eq!(extract_expression(reply).as_deref(), *want, "{:?}", reply);
    }
    assert!(TRANSLATE_PROMPT.contains("Expression: NONE"));
    assert!(translation_request("What is 2 plus 2?").ends_with("Question: What is 2 plus 2?"));
}

/// Grammar-directed generator: mostly well-formed expressions, so the
/// evaluation paths (not just the error paths) get exercised.
fn gen_expr(rng: &mut Rng, depth: u32, out: &mut String) {
    const NUMS: &[&str] = &[
        "0", "1", "2", "3", "0.5", "10", "1e3", "1e-3", "1,000", "100", "7", "1e300", "pi",
        "e", "tau",
    ];
    const BIN: &[&str] = &[
        " + ", " - ", "*", "/", "^", " % ", "% of ", "**", " + ", "*",
    ];
    const FUNS: &[&str] = &[
        "sqrt", "cbrt", "abs", "ln", "log", "log2", "log10", "exp", "sin", "cos", "tan",
        "asin", "acos", "atan", "floor", "ceil", "round", "min", "max",
    ];
    let choice = if depth == 0 { 0 } else { rng.next() % 6 };
    match choice {
        0 | 1 => out.push_str(rng.pick(NUMS)),
        2 => {
            gen_expr(rng, depth - 1, out);
            out.push_str(rng.pick(BIN));
            gen_expr(rng, depth - 1, out);
        }
        3 => {
            out.push('(');
            gen_expr(rng, depth - 1, out);
            out.push(')');
        }
        4 => {
            out.push_str(if rng.next().is_multiple_of(2) {
                "-"
            } else {
                ""
            });
            gen_expr(rng, depth - 1, out);
            out.push_str(if rng.next().is_multiple_of(3) {
                "%"
            } else {
                ""
            });
        }
        _ => {
            out.push_str(rng.pick(FUNS));
            out.push('(');
            let n = 1 + rng.next() % 3;
            for k in 0..n {
                if k > 0 {
                    out.push_str(", ");
                }
                gen_expr(rng, depth - 1, out);
            }
            out.push(')');
        }
    }
}

#[test]
fn randomized_inputs_never_panic() {
    const PIECES: &[&str] = &[
        "0",
        "1",
        "2",
        "7",
        "10",
        "0.5",
        ".5",
        "3.",
        "1e3",
        "1e-3",
        "2E+2",
        "1e",
        "1,000",
        ",",
        "1,0",
        "999999999",
        "1e308",
        "+",
        "-",
        "*",
        "/",
        "^",
        "**",
        "%",
        "(",
        ")",
        "(",
        ")",
        " ",
        "  ",
        "of",
        "pi",
        "e",
        "tau",
        "π",
        "sqrt(",
        "cbrt(",
        "abs(",
        "ln(",
        "log(",
        "log2(",
        "log10(",
        "exp(",
        "sin(",
        "cos(",
        "tan(",
        "asin(",
        "acos(",
        "atan(",
        "floor(",
        "ceil(",
        "round(",
        "min(",
        "max(",
        "foo",
        "x",
        "=",
        "?",
        "×",
        "÷",
        "−",
        "é",
        "日",
        "$",
        ".",
        "e5",
        "E",
        "_",
        "\t",
        "\n",
        "🙂",
        "%of",
        "25%",
        "0^-1",
        "(-8)",
        "1/0",
        "10^400",
    ];
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut ok_count = 0u32;
    for round in 0..200_000u32 {
        let mut s = String::new();
        if round % 2 == 0 {
            // Token soup, occasionally long enough to hit the length limit.
            let len = (rng.next() % 24) as usize + if round % 1000 == 0 { 400 } else { 0 };
            for _ in 0..len {
                s.push_str(rng.pick(PIECES));
            }
        } else {
            let depth = (rng.next() % 7) as u32;
            gen_expr(&mut rng, depth, &mut s);
            // Sometimes corrupt one character to land near-valid input.
            if round % 7 == 0 && !s.is_empty() {
                let cut = (rng.next() as usize) % s.len();
                if s.is_char_boundary(cut) {
                    s.insert_str(cut, rng.pick(PIECES));
                }
            }
        }
        let r = evaluate(&s);
        if let Ok(v) = r {
            assert!(v.is_finite(), "{:?} gave {}", s, v);
            let f = format_result(v);
            assert!(!f.is_empty() && f != "-0");
            ok_count += 1;
        }
        let _ = looks_like_expression(&s);
        if round % 50 == 0 {
            let _ = extract_expression(&format!("```text\n{}\n```\nExpression: {}", s, s));
        }
    }
    // Sanity: the generator produces plenty of valid expressions too.
    assert!(ok_count > 20_000, "only {} valid", ok_count);
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(42);
    for _ in 0..20_000 {
        let len = (rng.next() % 40) as usize;
        let s: String = (0..len)
            .filter_map(|_| char::from_u32((rng.next() % 0x3000) as u32))
            .collect();
        let _ = evaluate(&s);
        let _ = looks_like_expression(&s);
        let _ = extract_expression(&s);
    }
}
