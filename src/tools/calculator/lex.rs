//! Tokens of the calculator grammar and the lexer that produces them.

use super::*;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum TokenKind {
    Num(f64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    Percent,
    LParen,
    RParen,
    Comma,
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: TokenKind,
    /// 1-based character column, for error messages.
    pub(super) pos: usize,
}

pub(super) fn describe(t: Option<&Token>) -> String {
    match t.map(|t| &t.tok) {
        None => "the end of the expression".to_string(),
        Some(TokenKind::Num(n)) => format!("the number {}", format_result(*n)),
        Some(TokenKind::Ident(s)) => format!("'{}'", s),
        Some(TokenKind::Plus) => "'+'".into(),
        Some(TokenKind::Minus) => "'-'".into(),
        Some(TokenKind::Star) => "'*'".into(),
        Some(TokenKind::Slash) => "'/'".into(),
        Some(TokenKind::Caret) => "'^'".into(),
        Some(TokenKind::Percent) => "'%'".into(),
        Some(TokenKind::LParen) => "'('".into(),
        Some(TokenKind::RParen) => "')'".into(),
        Some(TokenKind::Comma) => "','".into(),
    }
}

/// Trim, and drop one trailing `=` or `?` ("2+2=", "what's 2+2?" after the
/// words are gone) so they do not count as syntax errors.
pub(super) fn prepare(input: &str) -> &str {
    let t = input.trim();
    let t = t
        .strip_suffix('=')
        .or_else(|| t.strip_suffix('?'))
        .unwrap_or(t);
    t.trim_end()
}

/// Split the input into tokens. Commas are resolved here (thousands
/// separator vs argument separator), which needs to know whether the
/// innermost open parenthesis belongs to a function call.
pub(super) fn lex(input: &str) -> Result<Vec<Token>, ServiceError> {
    let chars: Vec<char> = input.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut toks: Vec<Token> = Vec::new();
    // true = parenthesis opened by a function call.
    let mut parens: Vec<bool> = Vec::new();
    let mut i = 0;
    while let Some(c) = at(i) {
        let pos = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let in_call = parens.last().copied().unwrap_or(false);
            let mut text = String::new();
            let start = i;
            while let Some(d) = at(i).filter(|d| d.is_ascii_digit()) {
                text.push(d);
                i += 1;
            }
            // Thousands groups: ",ddd" not followed by another digit.
            let lead_ok = (1..=3).contains(&(i - start)) && c != '.';
            if lead_ok && !in_call {
                while at(i) == Some(',')
                    && (1..=3).all(|k| at(i + k).is_some_and(|d| d.is_ascii_digit()))
                    && !at(i + 4).is_some_and(|d| d.is_ascii_digit())
                {
                    for k in 1..=3 {
                        if let Some(d) = at(i + k) {
                            text.push(d);
                        }
                    }
                    i += 4;
                }
            }
            if at(i) == Some('.') {
                text.push('.');
                i += 1;
                while let Some(d) = at(i).filter(|d| d.is_ascii_digit()) {
                    text.push(d);
                    i += 1;
                }
            }
            if matches!(at(i), Some('e') | Some('E')) {
                let signed = matches!(at(i + 1), Some('+') | Some('-'));
                let first_digit = if signed { i + 2 } else { i + 1 };
                if at(first_digit).is_some_and(|d| d.is_ascii_digit()) {
                    text.push('e');
                    if signed {
                        if let Some(s) = at(i + 1) {
                            text.push(s);
                        }
                    }
                    i = first_digit;
                    while let Some(d) = at(i).filter(|d| d.is_ascii_digit()) {
                        text.push(d);
                        i += 1;
                    }
                }
            }
            let value = crate::number::parse_f64(&text).ok_or_else(|| {
                bad(format!(
                    "'{}' at position {} is not a valid number.",
                    text, pos
                ))
            })?;
            if !value.is_finite() {
                return Err(math(format!(
                    "The number at position {} is too large to calculate with.",
                    pos
                )));
            }
            toks.push(Token {
                tok: TokenKind::Num(value),
                pos,
            });
            continue;
        }
        if c == 'π' {
            toks.push(Token {
                tok: TokenKind::Ident("pi".into()),
                pos,
            });
            i += 1;
            continue;
        }
        // Names are ASCII only: every function and constant is, and the
        // Unicode letter/case tables would cost WASM bytes for nothing.
        if c.is_ascii_alphabetic() || c == '_' {
            let mut name = String::new();
            while let Some(d) = at(i).filter(|d| d.is_ascii_alphanumeric() || *d == '_') {
                name.push(d.to_ascii_lowercase());
                i += 1;
            }
            toks.push(Token {
                tok: TokenKind::Ident(name),
                pos,
            });
            continue;
        }
        let tok = match c {
            '+' => TokenKind::Plus,
            '-' | '−' | '–' => TokenKind::Minus,
            '*' if at(i + 1) == Some('*') => {
                i += 1;
                TokenKind::Caret
            }
            '*' | '×' | '·' => TokenKind::Star,
            '/' | '÷' => TokenKind::Slash,
            '^' => TokenKind::Caret,
            '%' => TokenKind::Percent,
            '(' => {
                let is_call = matches!(toks.last(), Some(Token { tok: TokenKind::Ident(_), .. }));
                parens.push(is_call);
                TokenKind::LParen
            }
            ')' => {
                parens.pop();
                TokenKind::RParen
            }
            ',' => TokenKind::Comma,
            other => {
                return Err(bad(format!(
                    "Unexpected character '{}' at position {}; use numbers, + - * / ^ %, parentheses and function names only.",
                    other, pos
                )))
            }
        };
        toks.push(Token { tok, pos });
        i += 1;
    }
    Ok(toks)
}
