//! The Pratt parser: tokens to a value, with binding powers, percentages and
//! the nesting limit.

use super::*;

/// A value plus whether it is "directly a percentage" (for `A + B%`).
#[derive(Clone, Copy)]
pub(super) struct Operand {
    pub(super) v: f64,
    pub(super) pct: bool,
}

pub(super) fn plain(v: f64) -> Operand {
    Operand { v, pct: false }
}

pub(super) struct Parser {
    pub(super) toks: Vec<Token>,
    pub(super) i: usize,
    pub(super) depth: usize,
}

pub(super) const BP_ADD: u8 = 10;
pub(super) const BP_MUL: u8 = 20;
pub(super) const BP_UNARY: u8 = 30;
pub(super) const BP_POW: u8 = 40;
pub(super) const BP_POSTFIX: u8 = 50;

impl Parser {
    pub(super) fn peek(&self) -> Option<&Token> {
        self.toks.get(self.i)
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<&Token> {
        self.toks.get(self.i + k)
    }

    pub(super) fn next(&mut self) -> Option<Token> {
        let t = self.toks.get(self.i).cloned();
        if t.is_some() {
            self.i += 1;
        }
        t
    }

    /// Is the `%` at the cursor a modulo operator (an operand follows) or a
    /// postfix percent?
    pub(super) fn percent_is_modulo(&self) -> bool {
        match self.peek_at(1).map(|t| &t.tok) {
            Some(TokenKind::Num(_)) | Some(TokenKind::LParen) => true,
            Some(TokenKind::Ident(name)) => name != "of",
            _ => false,
        }
    }

    pub(super) fn expr(&mut self, min_bp: u8) -> Result<Operand, ServiceError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(bad(format!(
                "The expression is nested more than {} levels deep; simplify it.",
                MAX_DEPTH
            )));
        }
        let result = self.expr_inner(min_bp);
        self.depth -= 1;
        result
    }

    pub(super) fn expr_inner(&mut self, min_bp: u8) -> Result<Operand, ServiceError> {
        let mut lhs = self.prefix()?;
        while let Some(tok) = self.peek().cloned() {
            let (lbp, rbp) = match &tok.tok {
                TokenKind::Plus | TokenKind::Minus => (BP_ADD, BP_ADD + 1),
                TokenKind::Star | TokenKind::Slash => (BP_MUL, BP_MUL + 1),
                TokenKind::Percent if self.percent_is_modulo() => (BP_MUL, BP_MUL + 1),
                TokenKind::Percent => (BP_POSTFIX, 0),
                TokenKind::Ident(n) if n == "of" => (BP_MUL, BP_MUL + 1),
                TokenKind::Caret => (BP_POW, BP_POW - 1),
                TokenKind::RParen | TokenKind::Comma => break,
                TokenKind::Num(_) | TokenKind::Ident(_) | TokenKind::LParen => {
                    return Err(bad(format!(
                        "Missing operator before {} at position {}; implicit multiplication is not supported, write * explicitly (2*pi, 2*(3+4)).",
                        describe(Some(&tok)),
                        tok.pos
                    )))
                }
            };
            if lbp < min_bp {
                break;
            }
            self.i += 1;
            let is_postfix_percent = matches!(tok.tok, TokenKind::Percent) && lbp == BP_POSTFIX;
            if is_postfix_percent {
                lhs = Operand {
                    v: lhs.v / 100.0,
                    pct: true,
                };
                continue;
            }
            let rhs = self.expr(rbp)?;
            lhs = apply_binary(&tok, lhs, rhs)?;
        }
        Ok(lhs)
    }

    pub(super) fn prefix(&mut self) -> Result<Operand, ServiceError> {
        let Some(tok) = self.next() else {
            let after = if self.i == 0 {
                String::new()
            } else {
                format!(" after {}", describe(self.toks.get(self.i - 1)))
            };
            return Err(bad(format!(
                "The expression ends too early: a number is missing{}.",
                after
            )));
        };
        match tok.tok {
            TokenKind::Num(v) => Ok(plain(v)),
            TokenKind::Minus => {
                let r = self.expr(BP_UNARY)?;
                Ok(Operand {
                    v: -r.v,
                    pct: r.pct,
                })
            }
            TokenKind::Plus => self.expr(BP_UNARY),
            TokenKind::LParen => {
                let inner = self.expr(0)?;
                self.expect_close(tok.pos)?;
                Ok(plain(inner.v))
            }
            TokenKind::Ident(ref name) => self.name(name, tok.pos),
            TokenKind::RParen => Err(bad(format!(
                "Unexpected ')' at position {}: there is no value before it.",
                tok.pos
            ))),
            _ => Err(bad(format!(
                "Expected a number, '(' or a function at position {} but found {}.",
                tok.pos,
                describe(Some(&tok))
            ))),
        }
    }

    pub(super) fn expect_close(&mut self, open_pos: usize) -> Result<(), ServiceError> {
        match self.next() {
            Some(Token {
                tok: TokenKind::RParen, ..
            }) => Ok(()),
            None => Err(bad(format!(
                "Missing ')' for the '(' at position {}.",
                open_pos
            ))),
            Some(t) => Err(bad(format!(
                "Expected ')' to close the '(' at position {} but found {} at position {}.",
                open_pos,
                describe(Some(&t)),
                t.pos
            ))),
        }
    }

    pub(super) fn name(&mut self, name: &str, pos: usize) -> Result<Operand, ServiceError> {
        match name {
            "pi" => return Ok(plain(std::f64::consts::PI)),
            "e" => return Ok(plain(std::f64::consts::E)),
            "tau" => return Ok(plain(std::f64::consts::TAU)),
            "of" => {
                return Err(bad(format!(
                    "'of' at position {} must follow a percentage, as in 25% of 300.",
                    pos
                )))
            }
            _ => {}
        }
        if !FUNCTIONS.contains(&name) {
            return Err(bad(format!(
                "Unknown name '{}' at position {}. Available functions: {}. Constants: {}.",
                name,
                pos,
                FUNCTIONS.join(", "),
                CONSTANTS.join(", ")
            )));
        }
        let open = match self.next() {
            Some(Token {
                tok: TokenKind::LParen,
                pos,
            }) => pos,
            _ => {
                return Err(bad(format!(
                "The function '{}' at position {} needs its argument in parentheses, like {}(2).",
                name, pos, name
            )))
            }
        };
        let mut args: Vec<f64> = Vec::new();
        if matches!(self.peek().map(|t| &t.tok), Some(TokenKind::RParen)) {
            self.i += 1;
        } else {
            loop {
                args.push(self.expr(0)?.v);
                match self.next() {
                    Some(Token {
                        tok: TokenKind::Comma, ..
                    }) => continue,
                    Some(Token {
                        tok: TokenKind::RParen, ..
                    }) => break,
                    None => {
                        return Err(bad(format!(
                            "Missing ')' for the '(' at position {}.",
                            open
                        )))
                    }
                    Some(t) => {
                        return Err(bad(format!(
                        "Expected ',' or ')' in the arguments of {} but found {} at position {}.",
                        name,
                        describe(Some(&t)),
                        t.pos
                    )))
                    }
                }
            }
        }
        call(name, &args).map(plain)
    }
}
