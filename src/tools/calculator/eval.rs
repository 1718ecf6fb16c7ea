//! Operators and functions applied to values, the entry point `evaluate`, and
//! the formatting of a result into observation text.

use super::*;

pub(super) fn apply_binary(op: &Token, a: Operand, b: Operand) -> Result<Operand, ServiceError> {
    let v = match &op.tok {
        TokenKind::Plus if b.pct && !a.pct => a.v * (1.0 + b.v),
        TokenKind::Minus if b.pct && !a.pct => a.v * (1.0 - b.v),
        TokenKind::Plus => a.v + b.v,
        TokenKind::Minus => a.v - b.v,
        TokenKind::Star => a.v * b.v,
        TokenKind::Slash => {
            if b.v == 0.0 {
                return Err(math(format!(
                    "Division by zero (the '/' at position {} divides by 0).",
                    op.pos
                )));
            }
            a.v / b.v
        }
        TokenKind::Percent => {
            if b.v == 0.0 {
                return Err(math(format!(
                    "Modulo by zero (the '%' at position {} takes a remainder by 0).",
                    op.pos
                )));
            }
            let r = a.v % b.v;
            if r != 0.0 && (r < 0.0) != (b.v < 0.0) {
                r + b.v
            } else {
                r
            }
        }
        TokenKind::Ident(_) => {
            // `of`: only meaningful after a percentage.
            if !a.pct {
                return Err(bad(format!(
                    "'of' at position {} must follow a percentage, as in 25% of 300.",
                    op.pos
                )));
            }
            a.v * b.v
        }
        TokenKind::Caret => a.v.powf(b.v),
        _ => {
            return Err(bad(format!(
                "Unexpected {} at position {}.",
                describe(Some(op)),
                op.pos
            )))
        }
    };
    if !v.is_finite() {
        return Err(math(format!(
            "The result is not a finite number (the operation at position {} overflows or is undefined, e.g. a negative number to a fractional power).",
            op.pos
        )));
    }
    Ok(plain(v))
}

/// Snap the tiny residue of sin(pi), cos(pi/2), tan(pi) to zero. The guard
/// on the argument keeps genuinely tiny results (sin(1e-20)) exact.
pub(super) fn snap_trig(result: f64, arg: f64) -> f64 {
    if result.abs() < 1e-14 && arg.abs() > 1e-6 {
        0.0
    } else {
        result
    }
}

pub(super) fn call(name: &str, args: &[f64]) -> Result<f64, ServiceError> {
    let (min, max) = match name {
        "min" | "max" => (1, usize::MAX),
        "log" | "round" => (1, 2),
        _ => (1, 1),
    };
    if args.len() < min || args.len() > max {
        let expected = match (min, max) {
            (1, 1) => "exactly 1 argument".to_string(),
            (1, 2) => "1 or 2 arguments".to_string(),
            _ => "at least 1 argument".to_string(),
        };
        return Err(bad(format!(
            "{}() takes {}, but {} were given.",
            name,
            expected,
            args.len()
        )));
    }
    let x = args.first().copied().unwrap_or(0.0);
    let second = args.get(1).copied();
    let r = match name {
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        "abs" => x.abs(),
        "ln" => x.ln(),
        "log" => match second {
            None => x.log10(),
            Some(b) if b <= 0.0 || b == 1.0 => {
                return Err(math(format!(
                    "log base {} is not allowed; the base must be positive and not 1.",
                    format_result(b)
                )))
            }
            Some(b) => x.ln() / b.ln(),
        },
        "log2" => x.log2(),
        "log10" => x.log10(),
        "exp" => x.exp(),
        "sin" => snap_trig(x.sin(), x),
        "cos" => snap_trig(x.cos(), x),
        "tan" => snap_trig(x.tan(), x),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => match second {
            None => x.round(),
            Some(n) if n.fract() == 0.0 && (0.0..=15.0).contains(&n) => {
                let f = 10f64.powi(n as i32);
                (x * f).round() / f
            }
            Some(n) => {
                return Err(bad(format!(
                    "round(x, n) needs n to be a whole number from 0 to 15, not {}.",
                    format_result(n)
                )))
            }
        },
        "min" => args.iter().copied().fold(f64::INFINITY, f64::min),
        "max" => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        other => return Err(bad(format!("Unknown function '{}'.", other))),
    };
    if !r.is_finite() {
        let shown: Vec<String> = args.iter().map(|a| format_result(*a)).collect();
        return Err(math(format!(
            "{}({}) is undefined or too large: the result is not a finite number.",
            name,
            shown.join(", ")
        )));
    }
    Ok(r)
}

/// Evaluate an expression in the grammar described in the calculator module's
/// documentation (`mod.rs`).
pub fn evaluate(input: &str) -> Result<f64, ServiceError> {
    if input.chars().count() > MAX_INPUT_CHARS {
        return Err(bad(format!(
            "The expression is longer than {} characters; split the calculation into smaller steps.",
            MAX_INPUT_CHARS
        )));
    }
    let src = prepare(input);
    if src.is_empty() {
        return Err(bad(
            "The expression is empty; give something to calculate, like 2*(3+4).".to_string(),
        ));
    }
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        i: 0,
        depth: 0,
    };
    let value = p.expr(0)?;
    if let Some(t) = p.peek().cloned() {
        return Err(match t.tok {
            TokenKind::RParen => bad(format!("Unexpected ')' at position {}: it has no matching '('.", t.pos)),
            TokenKind::Comma => bad(format!(
                "Unexpected ',' at position {}: commas only separate function arguments (and 1,000-style thousands outside function calls).",
                t.pos
            )),
            _ => bad(format!("Unexpected {} at position {}.", describe(Some(&t)), t.pos)),
        });
    }
    if !value.v.is_finite() {
        return Err(math("The result is not a finite number.".to_string()));
    }
    Ok(value.v)
}

/// Format a result for the observation: integers without ".0", otherwise
/// 12 significant digits with trailing zeros removed, scientific notation
/// (in our own input syntax, e.g. `1.5e20`) for very large or small values,
/// and never "-0".
pub fn format_result(x: f64) -> String {
    if x.is_nan() {
        return "undefined".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "infinity".to_string()
        } else {
            "-infinity".to_string()
        };
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let ax = x.abs();
    if x.fract() == 0.0 && ax < 1e15 {
        return format!("{:.0}", x);
    }
    let exp = ax.log10().floor();
    let out = if !(-6.0..15.0).contains(&exp) {
        let s = format!("{:.11e}", x);
        match s.split_once('e') {
            Some((mantissa, e)) => format!("{}e{}", trim_zeros(mantissa), e),
            None => s,
        }
    } else {
        let decimals = (11.0 - exp).clamp(0.0, 20.0) as usize;
        trim_zeros(&format!("{:.*}", decimals, x)).to_string()
    };
    if out == "-0" {
        "0".to_string()
    } else {
        out
    }
}

pub(super) fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Evaluate and format in one step: the observation text, e.g. "2^10 = 1024".
pub fn observe(input: &str) -> Result<String, ServiceError> {
    let v = evaluate(input)?;
    Ok(format!("{} = {}", prepare(input), format_result(v)))
}
