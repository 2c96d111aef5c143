//! Tokens of the `.kir` format. Line ends are tokens: a statement ends with its line.

use super::printer::is_name_char;
use crate::Loc;
use std::fmt;
use std::iter::Peekable;
use std::str::Chars;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// A bare word: op names, types, keywords, orderings, `inf`, and `nan:0x...`.
    Word(String),
    /// `%name`, without the `%`.
    Value(String),
    /// `@name`, without the `@`.
    Global(String),
    /// A numeric literal as written: starts with a digit or `-` (`-3`, `1.5e-7`, `-inf`).
    Number(String),
    /// A string literal's contents, unescaped (`"a \"b\""` is `a "b"`).
    Str(String),
    Punct(char),
    Arrow,
    Newline,
    Eof,
    /// A character the format has no use for; the parser reports it when it gets there, so
    /// that errors come in text order.
    Bad(String),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) | Tok::Number(w) => write!(f, "'{w}'"),
            Tok::Value(v) => write!(f, "'%{v}'"),
            Tok::Str(text) => write!(f, "{text:?}"),
            Tok::Global(g) => write!(f, "'@{g}'"),
            Tok::Punct(c) => write!(f, "'{c}'"),
            Tok::Arrow => f.write_str("'->'"),
            Tok::Newline => f.write_str("end of line"),
            Tok::Eof => f.write_str("end of file"),
            Tok::Bad(message) => f.write_str(message),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub tok: Tok,
    pub loc: Loc,
}

/// Splits `text` into tokens, ending with [`Tok::Eof`]. Comments (`;` to the end of the line)
/// are dropped; their line end stays.
pub(super) fn lex(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    let (mut line, mut col) = (1u32, 1u32);
    while let Some(&c) = chars.peek() {
        let loc = Loc { line, col };
        let tok = match c {
            '\n' => {
                chars.next();
                line += 1;
                col = 1;
                tokens.push(Token {
                    tok: Tok::Newline,
                    loc,
                });
                continue;
            }
            ' ' | '\t' | '\r' => {
                chars.next();
                col += 1;
                continue;
            }
            ';' => {
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
                continue;
            }
            '%' | '@' => {
                chars.next();
                col += 1;
                let name = word(&mut chars, &mut col);
                match (c, name.is_empty()) {
                    (_, true) => Tok::Bad(format!("'{c}' without a name after it")),
                    ('%', false) => Tok::Value(name),
                    _ => Tok::Global(name),
                }
            }
            '-' => {
                chars.next();
                col += 1;
                if chars.peek() == Some(&'>') {
                    chars.next();
                    col += 1;
                    Tok::Arrow
                } else {
                    Tok::Number(format!("-{}", number(&mut chars, &mut col)))
                }
            }
            '"' => {
                chars.next();
                col += 1;
                string(&mut chars, &mut col)
            }
            '0'..='9' => Tok::Number(number(&mut chars, &mut col)),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut w = word(&mut chars, &mut col);
                // `nan:0x7fc00000` is one literal; `:` elsewhere is punctuation.
                if w == "nan" && chars.peek() == Some(&':') {
                    chars.next();
                    col += 1;
                    w.push(':');
                    w.push_str(&word(&mut chars, &mut col));
                }
                Tok::Word(w)
            }
            '(' | ')' | '{' | '}' | '<' | '>' | ',' | ':' | '=' => {
                chars.next();
                col += 1;
                Tok::Punct(c)
            }
            other => {
                chars.next();
                col += 1;
                Tok::Bad(format!("unexpected character {other:?}"))
            }
        };
        tokens.push(Token { tok, loc });
    }
    tokens.push(Token {
        tok: Tok::Eof,
        loc: Loc { line, col },
    });
    tokens
}

/// The rest of a string literal after its opening quote: `\"` and `\\` are the escapes;
/// it ends on the line it starts.
fn string(chars: &mut Peekable<Chars>, col: &mut u32) -> Tok {
    let mut text = String::new();
    while let Some(c) = chars.next_if(|&c| c != '\n') {
        *col += 1;
        match c {
            '"' => return Tok::Str(text),
            '\\' => match chars.next_if(|&c| c == '"' || c == '\\') {
                Some(escaped) => {
                    *col += 1;
                    text.push(escaped);
                }
                None => return Tok::Bad("a string escape other than \\\" or \\\\".into()),
            },
            c => text.push(c),
        }
    }
    Tok::Bad("a string without its closing '\"' on the same line".into())
}

/// A run of name characters.
fn word(chars: &mut Peekable<Chars>, col: &mut u32) -> String {
    let mut s = String::new();
    while let Some(&c) = chars.peek() {
        if !is_name_char(c) {
            break;
        }
        s.push(c);
        chars.next();
        *col += 1;
    }
    s
}

/// The rest of a numeric literal: name characters, and a sign right after a decimal exponent.
fn number(chars: &mut Peekable<Chars>, col: &mut u32) -> String {
    let mut s = String::new();
    while let Some(&c) = chars.peek() {
        let exponent_sign = (c == '-' || c == '+')
            && (s.ends_with('e') || s.ends_with('E'))
            && !s.starts_with("0x");
        if !(is_name_char(c) || exponent_sign) {
            break;
        }
        s.push(c);
        chars.next();
        *col += 1;
    }
    s
}
