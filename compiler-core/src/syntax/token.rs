//! Tokens, and the chumsky lexer that makes them.
//!
//! In: source text. Out: every token with its byte span, newlines included (they end
//! statements; `layout` decides which ones count). Invariant: the lexer never fails: a
//! character that starts no token becomes [`Token::Unknown`], which `layout` reports.

use chumsky::prelude::*;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// An integer literal; `None` when it does not fit in 64 bits.
    Int(Option<u64>),
    Float(f64),
    Ident(String),
    Kernel,
    Program,
    Fn,
    Let,
    Var,
    If,
    Else,
    While,
    For,
    In,
    Break,
    Continue,
    Return,
    True,
    False,
    Ctx,
    Over,
    Tensor,
    /// `(`, `)`, `[`, `]`, `{`, `}`, `,`, `;`, `:`, `.`, `@`.
    Punct(char),
    /// `:+`, the tile length separator.
    TileLength,
    /// An operator or an assignment: `+`, `<<=`, `&&`, `=`, ...
    Op(&'static str),
    Newline,
    /// A `/*` comment with no `*/`.
    UnclosedComment,
    Unknown(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Int(Some(value)) => write!(f, "`{value}`"),
            Token::Int(None) => write!(f, "a number"),
            Token::Float(value) => write!(f, "`{value:?}`"),
            Token::Ident(name) => write!(f, "`{name}`"),
            Token::Punct(c) => write!(f, "`{c}`"),
            Token::TileLength => write!(f, "`:+`"),
            Token::Op(op) => write!(f, "`{op}`"),
            Token::Newline => write!(f, "a line break"),
            Token::UnclosedComment => write!(f, "an unclosed comment"),
            Token::Unknown(c) => write!(f, "`{}`", c.escape_debug()),
            keyword => write!(f, "`{}`", keyword_text(keyword)),
        }
    }
}

fn keyword_text(token: &Token) -> &'static str {
    match token {
        Token::Kernel => "kernel",
        Token::Program => "program",
        Token::Fn => "fn",
        Token::Let => "let",
        Token::Var => "var",
        Token::If => "if",
        Token::Else => "else",
        Token::While => "while",
        Token::For => "for",
        Token::In => "in",
        Token::Break => "break",
        Token::Continue => "continue",
        Token::Return => "return",
        Token::True => "true",
        Token::False => "false",
        Token::Ctx => "ctx",
        Token::Over => "over",
        Token::Tensor => "tensor",
        _ => "?",
    }
}

/// Operators, longest first so that `<<=` wins over `<<` and `<`; `->` is a function's result.
pub const OPERATORS: [&str; 33] = [
    "<<=", ">>=", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=", "*=", "/=", "%=",
    "->", "&=", "|=", "^=", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "=", "@",
];

pub type Spanned = (Token, SimpleSpan);

// The lexer cannot fail (any character is a token), so it carries no error details: cheap.
type LexError<'src> = extra::Default;

pub fn lexer<'src>() -> impl Parser<'src, &'src str, Vec<Spanned>, LexError<'src>> {
    let hex = just("0x")
        .or(just("0X"))
        .ignore_then(text::digits(16).to_slice())
        .map(|digits: &str| Token::Int(u64::from_str_radix(digits, 16).ok()));
    let exponent = one_of("eE")
        .then(one_of("+-").or_not())
        .then(text::digits(10));
    let float = text::digits(10)
        .then(just('.').then(text::digits(10)))
        .then(exponent.or_not())
        .to_slice()
        .or(text::digits(10).then(exponent).to_slice())
        .map(|text: &str| Token::Float(text.parse().unwrap_or(f64::INFINITY)));
    let int = text::digits(10)
        .to_slice()
        .map(|digits: &str| Token::Int(digits.parse().ok()));
    let number = hex.or(float).or(int);

    let word = text::ascii::ident().map(|word: &str| match word {
        "kernel" => Token::Kernel,
        "program" => Token::Program,
        "fn" => Token::Fn,
        "let" => Token::Let,
        "var" => Token::Var,
        "if" => Token::If,
        "else" => Token::Else,
        "while" => Token::While,
        "for" => Token::For,
        "in" => Token::In,
        "break" => Token::Break,
        "continue" => Token::Continue,
        "return" => Token::Return,
        "true" => Token::True,
        "false" => Token::False,
        "ctx" => Token::Ctx,
        "over" => Token::Over,
        "tensor" => Token::Tensor,
        _ => Token::Ident(word.to_owned()),
    });

    let tile_length = just(":+").to(Token::TileLength);
    // Longest match first; the text is interned into the `OPERATORS` table.
    let operator = choice((
        just("<<=").or(just(">>=")).to_slice(),
        any()
            .filter(|c: &char| "&|=!<>+-*/%^".contains(*c))
            .then(any().filter(|c: &char| matches!(c, '&' | '|' | '=' | '<' | '>')))
            .to_slice()
            .filter(|pair: &&str| OPERATORS.contains(pair)),
        any()
            .filter(|c: &char| "+-*/%&|^~!<>=@".contains(*c))
            .to_slice(),
    ))
    .map(|text: &str| {
        Token::Op(
            OPERATORS
                .iter()
                .find(|op| **op == text)
                .copied()
                .unwrap_or("?"),
        )
    });
    // `@` is an operator (matrix product) in expressions and starts an attribute before a
    // kernel; the parser tells the two apart, so the lexer gives one token for both.
    let punct = any()
        .filter(|c: &char| matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';' | ':' | '.'))
        .map(Token::Punct);
    let newline = just('\n').to(Token::Newline);
    let unclosed_comment = just("/*")
        .then(any().and_is(just("*/").not()).repeated())
        .then(end())
        .to(Token::UnclosedComment);
    let unknown = any().map(Token::Unknown);

    // Most frequent first: names, then punctuation and line breaks.
    let token = choice((
        word,
        tile_length,
        punct,
        newline,
        number,
        unclosed_comment,
        operator,
        unknown,
    ));

    let line_comment = just("//").then(none_of('\n').repeated()).ignored();
    let block_comment = just("/*")
        .then(any().and_is(just("*/").not()).repeated())
        .then(just("*/"))
        .ignored();
    let blank = any()
        .filter(|c: &char| matches!(c, ' ' | '\t' | '\r'))
        .repeated()
        .at_least(1);
    let trivia = choice((blank, line_comment, block_comment)).repeated();

    trivia.ignore_then(
        token
            .map_with(|token, extra| (token, extra.span()))
            .then_ignore(trivia)
            .repeated()
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(source: &str) -> Vec<Token> {
        let (tokens, errors) = lexer().parse(source).into_output_errors();
        let errors: Vec<_> = errors.into_iter().map(|_| ()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        tokens
            .unwrap_or_default()
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    #[test]
    fn lexes_tiles_operators_and_comments() {
        use Token::*;
        assert_eq!(
            lex("A[r :+ 64, :] <<= 0x1F // note\n/* c */ 1.5e3"),
            vec![
                Ident("A".into()),
                Punct('['),
                Ident("r".into()),
                TileLength,
                Int(Some(64)),
                Punct(','),
                Punct(':'),
                Punct(']'),
                Op("<<="),
                Int(Some(31)),
                Newline,
                Float(1500.0),
            ]
        );
    }

    #[test]
    fn unknown_characters_and_overflow_are_tokens_not_failures() {
        use Token::*;
        assert_eq!(
            lex("x $ 99999999999999999999999 /* open"),
            vec![Ident("x".into()), Unknown('$'), Int(None), UnclosedComment]
        );
    }
}
