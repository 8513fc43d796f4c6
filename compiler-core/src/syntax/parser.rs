//! The chumsky parser: balanced tokens in, the AST out.
//!
//! Expressions use Pratt parsing with the brief's precedence (high to low): unary `- ! ~`;
//! `* / % @`; `+ -`; `<< >>`; `&`; `^`; `|`; comparisons; `&&`; `||`. Statements end at a
//! newline or `;` (after `layout` has dropped the newlines that continue a line); a statement
//! that ends with a block needs no separator.
//!
//! Invariant: the parser never gives up. A statement that does not parse becomes
//! `StmtKind::Error` spanning the rest of its line (delimiters kept balanced), so one error
//! does not cascade, and chumsky's errors become diagnostics here and nowhere else.

use super::ast::*;
use super::layout::to_span;
use super::token::Token;
use crate::diagnostic::{Code, Diagnostic};
use chumsky::error::{RichPattern, RichReason};
use chumsky::input::ValueInput;
use chumsky::pratt::{infix, left, postfix, prefix};
use chumsky::prelude::*;

type Rich<'t> = chumsky::error::Rich<'t, Token, SimpleSpan>;

/// What the parsers need of their error type: chumsky's default (no details) on the fast
/// first pass, [`Rich`] when a file has errors and they must be explained.
pub trait Extra<'t, I: ValueInput<'t, Token = Token, Span = SimpleSpan>>:
    chumsky::extra::ParserExtra<'t, I, Error: chumsky::label::LabelError<'t, I, &'static str>> + 't
{
}

impl<'t, I, E> Extra<'t, I> for E
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: chumsky::extra::ParserExtra<'t, I, Error: chumsky::label::LabelError<'t, I, &'static str>>
        + 't,
{
}

pub fn parse(tokens: &[(Token, SimpleSpan)], source_len: usize) -> (File, Vec<Diagnostic>) {
    let eoi = SimpleSpan::from(source_len..source_len);
    let input = || tokens.map(eoi, |(token, span)| (token, span));
    // Most sources parse: try without building error details first (several times faster),
    // and parse again with them only when there is something to explain.
    let (file, errors) = file_parser::<_, extra::Default>()
        .parse(input())
        .into_output_errors();
    if let (Some(file), true) = (file, errors.is_empty()) {
        return (file, Vec::new());
    }
    let (file, errors) = file_parser::<_, extra::Err<Rich<'_>>>()
        .parse(input())
        .into_output_errors();
    let diagnostics = errors.into_iter().map(to_diagnostic).collect();
    (file.unwrap_or_default(), diagnostics)
}

fn to_diagnostic(error: Rich<'_>) -> Diagnostic {
    let span = to_span(*error.span());
    match error.reason() {
        RichReason::ExpectedFound { expected, found } => {
            let found = found
                .as_ref()
                .map_or("the end of the file".to_owned(), |t| t.to_string());
            let mut names: Vec<String> = expected.iter().map(pattern_name).collect();
            // "an expression" already covers the tokens that can start one.
            if names.iter().any(|n| n == "an expression") {
                names.retain(|n| !matches!(n.as_str(), "`!`" | "`-`" | "`~`" | "`(`"));
            }
            // A list of every binary operator helps nobody: name them as one.
            let before = names.len();
            names.retain(|n| !is_operator_name(n));
            if names.len() < before {
                names.push("an operator".to_owned());
            }
            // What `select!` cannot name: covered by the labelled alternatives beside it.
            if names.len() > 1 {
                names.retain(|n| n != "something else");
            }
            names.sort_by_key(|n| (n != "an operator", n.clone()));
            names.dedup();
            let message = match names.as_slice() {
                [] => format!("unexpected {found}"),
                [one] => format!("expected {one}, found {found}"),
                [init @ .., last] => {
                    format!("expected {} or {last}, found {found}", init.join(", "))
                }
            };
            Diagnostic::error(Code::E0101, span, message).with_label(format!("unexpected {found}"))
        }
        RichReason::Custom(message) => Diagnostic::error(Code::E0101, span, message.clone()),
    }
}

fn is_operator_name(name: &str) -> bool {
    let bare = name.trim_matches('`');
    name.starts_with('`') && (bare == "[" || bare != "=" && super::token::OPERATORS.contains(&bare))
}

fn pattern_name(pattern: &RichPattern<'_, Token>) -> String {
    match pattern {
        RichPattern::Token(token) => token.to_string(),
        RichPattern::Label(label) => label.to_string(),
        RichPattern::EndOfInput => "the end of the file".to_owned(),
        _ => "something else".to_owned(),
    }
}

fn span_of<'t, 'p, I, E>(e: &mut chumsky::input::MapExtra<'t, 'p, I, E>) -> crate::span::Span
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    to_span(e.span())
}

fn punct<'t, I, E>(c: char) -> impl Parser<'t, I, Token, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    just(Token::Punct(c))
}

fn op<'t, I, E>(symbol: &'static str) -> impl Parser<'t, I, Token, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    just(Token::Op(symbol))
}

fn ident<'t, I, E>() -> impl Parser<'t, I, Ident, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    select! { Token::Ident(name) => name }
        .map_with(|name, e| Ident {
            name,
            span: span_of(e),
        })
        .labelled("a name")
}

/// A name being declared: `ctx` parses here so that the checker can say it is reserved.
fn binding<'t, I, E>() -> impl Parser<'t, I, Ident, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    ident().or(just(Token::Ctx).map_with(|_, e| Ident {
        name: "ctx".to_owned(),
        span: span_of(e),
    }))
}

/// Statement separators: newlines and `;`.
fn separator<'t, I, E>() -> impl Parser<'t, I, (), E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    just(Token::Newline).or(punct(';')).ignored()
}

fn expr_parser<'t, I, E>() -> impl Parser<'t, I, Expr, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    recursive(|expr| {
        let args = expr
            .clone()
            .separated_by(punct(','))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(punct('('), punct(')'));

        let ctx_path = just(Token::Ctx)
            .ignore_then(
                punct('.')
                    .ignore_then(ident())
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .map_with(|fields, e| Expr {
                kind: ExprKind::Ctx(CtxPath { fields }),
                span: span_of(e),
            });

        // One parse of the expression, then `:+` decides: trying `start :+ length` first and
        // the plain index after it parsed every index twice, so unclosed brackets nested n deep
        // took 2^n parses (the fuzzer's input: 20 deep, 4 s; `tests/robustness.rs`).
        let index_arg = choice((
            expr.clone()
                .then(just(Token::TileLength).ignore_then(expr.clone()).or_not())
                .map(|(start, length)| match length {
                    Some(length) => IndexArg::Tile { start, length },
                    None => IndexArg::Single(start),
                }),
            punct(':').map_with(|_, e| IndexArg::Whole(span_of(e))),
        ));
        let indices = index_arg
            .separated_by(punct(','))
            .at_least(1)
            .collect::<Vec<_>>()
            .delimited_by(punct('['), punct(']'));

        let over = op("<")
            .ignore_then(just(Token::Over))
            .ignore_then(ctx_path.clone().labelled("`ctx.lane` or `ctx.thread`"))
            .then_ignore(op(">"));
        // A name, a call `f(args)` or a collective `f<over ctx.lane>(args)`: one parse of the
        // name, then what follows decides.
        let named = ident()
            .then(
                over.map(Some)
                    .then(args.clone())
                    .or(args.clone().map(|args| (None, args)))
                    .or_not(),
            )
            .map(|(name, suffix)| match suffix {
                None => ExprKind::Name(name.name),
                Some((None, args)) => ExprKind::Call { callee: name, args },
                Some((Some(over), args)) => ExprKind::Collective {
                    op: name,
                    over: Box::new(over),
                    args,
                },
            });
        // `tile<E>[n, m](fill)`: `tile` is a name everywhere else, so `tile < x` still
        // compares (the scratch tile's parse fails at once and the name's is taken). Its shape
        // and fill parse as an index and arguments do; the checker holds them to literals and
        // one value.
        // `array<E>[n](fill)`, a per-thread array, parses alike.
        let scratch = ident()
            .filter(|name: &Ident| name.name == "tile" || name.name == "array")
            .then(ident().delimited_by(op("<"), op(">")))
            .then(indices.clone())
            .then(args.clone())
            .map(
                |(((kind, element), shape), fill)| match kind.name.as_str() {
                    "array" => ExprKind::Array {
                        element,
                        shape,
                        fill,
                    },
                    _ => ExprKind::Scratch {
                        element,
                        shape,
                        fill,
                    },
                },
            );
        // `bitcast<T>(x)`: as `tile`, a name everywhere else.
        let bitcast = ident()
            .filter(|name: &Ident| name.name == "bitcast")
            .ignore_then(ident().delimited_by(op("<"), op(">")))
            .then(args.clone())
            .map(|(to, args)| ExprKind::Bitcast { to, args });
        let literal = select! {
            Token::Int(value) => ExprKind::Int(value),
            Token::Float(value) => ExprKind::Float(value),
            Token::True => ExprKind::Bool(true),
            Token::False => ExprKind::Bool(false),
        };

        let atom = choice((scratch, bitcast, named, literal))
            .map_with(|kind, e| Expr {
                kind,
                span: span_of(e),
            })
            .or(ctx_path)
            .or(expr
                .clone()
                .delimited_by(punct('('), punct(')'))
                .map_with(|inner: Expr, e| Expr {
                    kind: inner.kind,
                    span: span_of(e),
                }))
            .labelled("an expression")
            .boxed();

        let fold = |l: Expr,
                    operator: BinaryOp,
                    r: Expr,
                    e: &mut chumsky::input::MapExtra<'t, '_, I, E>| Expr {
            kind: ExprKind::Binary(operator, Box::new(l), Box::new(r)),
            span: span_of(e),
        };
        atom.pratt((
            postfix(12, indices, |base: Expr, indices, e| Expr {
                kind: ExprKind::Index {
                    base: Box::new(base),
                    indices,
                },
                span: span_of(e),
            }),
            prefix(
                10,
                select! {
                    Token::Op("-") => UnaryOp::Neg,
                    Token::Op("!") => UnaryOp::Not,
                    Token::Op("~") => UnaryOp::BitNot,
                },
                |operator, operand: Expr, e| Expr {
                    kind: ExprKind::Unary(operator, Box::new(operand)),
                    span: span_of(e),
                },
            ),
            infix(
                left(9),
                select! {
                    Token::Op("*") => BinaryOp::Mul,
                    Token::Op("/") => BinaryOp::Div,
                    Token::Op("%") => BinaryOp::Rem,
                    Token::Op("@") => BinaryOp::MatMul,
                }
                .labelled("an operator"),
                fold,
            ),
            infix(
                left(8),
                select! { Token::Op("+") => BinaryOp::Add, Token::Op("-") => BinaryOp::Sub }
                    .labelled("an operator"),
                fold,
            ),
            infix(
                left(7),
                select! { Token::Op("<<") => BinaryOp::Shl, Token::Op(">>") => BinaryOp::Shr }
                    .labelled("an operator"),
                fold,
            ),
            infix(
                left(6),
                select! { Token::Op("&") => BinaryOp::BitAnd }.labelled("an operator"),
                fold,
            ),
            infix(
                left(5),
                select! { Token::Op("^") => BinaryOp::BitXor }.labelled("an operator"),
                fold,
            ),
            infix(
                left(4),
                select! { Token::Op("|") => BinaryOp::BitOr }.labelled("an operator"),
                fold,
            ),
            infix(
                left(3),
                select! {
                    Token::Op("<=") => BinaryOp::Le,
                    Token::Op(">=") => BinaryOp::Ge,
                    Token::Op("<") => BinaryOp::Lt,
                    Token::Op(">") => BinaryOp::Gt,
                    Token::Op("==") => BinaryOp::Eq,
                    Token::Op("!=") => BinaryOp::Ne,
                }
                .labelled("an operator"),
                fold,
            ),
            infix(
                left(2),
                select! { Token::Op("&&") => BinaryOp::And }.labelled("an operator"),
                fold,
            ),
            infix(
                left(1),
                select! { Token::Op("||") => BinaryOp::Or }.labelled("an operator"),
                fold,
            ),
        ))
        .labelled("an expression")
        .boxed()
    })
}

/// A type; a tensor's extents parse as expressions (`N / 2`), and the checker holds those to
/// integers of dimensions.
fn type_parser<'t, I, E>(
    expr: impl Parser<'t, I, Expr, E> + Clone + 't,
) -> impl Parser<'t, I, TypeExpr, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    let dim = expr
        .map(|e: Expr| match e.kind {
            ExprKind::Int(value) => Dim::Literal(value, e.span),
            ExprKind::Name(name) => Dim::Name(Ident { name, span: e.span }),
            _ => Dim::Expr(e),
        })
        .labelled("a dimension (a number, a name or an expression of them)");
    let dims = dim
        .separated_by(punct(','))
        .collect::<Vec<_>>()
        .delimited_by(punct('['), punct(']'));
    let element = ident().delimited_by(op("<"), op(">"));
    let tensor = just(Token::Tensor)
        .ignore_then(element.clone())
        .then(dims.clone())
        .map_with(|(element, dims), e| TypeExpr::Tensor {
            element,
            dims,
            span: span_of(e),
        });
    // `tile` is a name elsewhere (a scratch tile's `tile<f32>[..](fill)`), a type only here.
    let tile = select! { Token::Ident(name) if name == "tile" => () }
        .ignore_then(element)
        .then(dims)
        .map_with(|(element, dims), e| TypeExpr::Tile {
            element,
            dims,
            span: span_of(e),
        });
    tensor
        .or(tile)
        .or(ident().map(TypeExpr::Named))
        .labelled("a type")
}

fn block_parser<'t, I, E>(
    stmt: impl Parser<'t, I, Stmt, E> + Clone + 't,
) -> impl Parser<'t, I, Block, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    separator()
        .repeated()
        .ignore_then(stmt.repeated().collect::<Vec<_>>())
        .delimited_by(punct('{'), punct('}'))
        .map_with(|stmts, e| Block {
            stmts,
            span: span_of(e),
        })
        .boxed()
}

fn stmt_parser<'t, I, E>() -> impl Parser<'t, I, Stmt, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    recursive(|stmt| {
        let expr = expr_parser();
        let block = block_parser(stmt.clone());
        let stmt_end = separator()
            .repeated()
            .at_least(1)
            .or(punct('}').rewind().ignored())
            .labelled("the end of the statement");

        let let_ = just(Token::Let)
            .to(false)
            .or(just(Token::Var).to(true))
            .then(binding())
            .then(punct(':').ignore_then(type_parser(expr.clone())).or_not())
            .then_ignore(op("="))
            .then(expr.clone())
            .map(|(((mutable, name), ty), value)| StmtKind::Let {
                mutable,
                name,
                ty,
                value,
            });

        let assign_op = select! {
            Token::Op("=") => None,
            Token::Op("+=") => Some(BinaryOp::Add),
            Token::Op("-=") => Some(BinaryOp::Sub),
            Token::Op("*=") => Some(BinaryOp::Mul),
            Token::Op("/=") => Some(BinaryOp::Div),
            Token::Op("%=") => Some(BinaryOp::Rem),
            Token::Op("&=") => Some(BinaryOp::BitAnd),
            Token::Op("|=") => Some(BinaryOp::BitOr),
            Token::Op("^=") => Some(BinaryOp::BitXor),
            Token::Op("<<=") => Some(BinaryOp::Shl),
            Token::Op(">>=") => Some(BinaryOp::Shr),
        };
        let assign_or_expr = expr
            .clone()
            .then(assign_op.then(expr.clone()).or_not())
            .map(|(target, assignment)| match assignment {
                Some((op, value)) => StmtKind::Assign { target, op, value },
                None => StmtKind::Expr(target),
            });

        let jump = select! {
            Token::Break => StmtKind::Break,
            Token::Continue => StmtKind::Continue,
        };
        let return_ = just(Token::Return)
            .ignore_then(expr.clone().or_not())
            .map(StmtKind::Return);

        let simple = choice((let_, jump, return_, assign_or_expr))
            .map_with(|kind, e| Stmt {
                kind,
                span: span_of(e),
            })
            .then_ignore(stmt_end);

        let if_ = recursive(|if_| {
            just(Token::If)
                .ignore_then(expr.clone())
                .then(block.clone())
                .then(
                    just(Token::Else)
                        .ignore_then(if_.or(block.clone().map(|block: Block| Stmt {
                            span: block.span,
                            kind: StmtKind::Block(block),
                        })))
                        .or_not(),
                )
                .map_with(|((condition, then_block), else_branch), e| Stmt {
                    kind: StmtKind::If {
                        condition,
                        then_block,
                        else_branch: else_branch.map(Box::new),
                    },
                    span: span_of(e),
                })
                .boxed()
        });
        let while_ = just(Token::While)
            .ignore_then(expr.clone())
            .then(block.clone())
            .map(|(condition, body)| StmtKind::While { condition, body });
        let for_ = just(Token::For)
            .ignore_then(binding())
            .then_ignore(just(Token::In))
            .then(expr.clone())
            .then(block.clone())
            .map(|((var, range), body)| StmtKind::For { var, range, body });
        let compound = if_
            .or(while_.or(for_).map_with(|kind, e| Stmt {
                kind,
                span: span_of(e),
            }))
            .then_ignore(separator().repeated());

        // A `let` whose value does not parse still declares its name (of no type): its uses
        // below raise no second error, and a quick fix never offers another name for it.
        let failed_let = just(Token::Let)
            .to(false)
            .or(just(Token::Var).to(true))
            .then(binding())
            .then(punct(':').ignore_then(type_parser(expr.clone())).or_not())
            .then_ignore(op("="))
            .then(rest_of_statement())
            .map_with(|(((mutable, name), ty), rest), e| Stmt {
                kind: StmtKind::Let {
                    mutable,
                    name,
                    ty,
                    value: Expr {
                        kind: ExprKind::Error,
                        span: rest.span,
                    },
                },
                span: span_of(e),
            });

        compound
            .or(simple)
            .labelled("a statement")
            .recover_with(via_parser(failed_let))
            .recover_with(via_parser(rest_of_statement()))
            .boxed()
    })
}

/// Recovery: everything up to the end of the line (keeping delimiters balanced), as an error
/// statement, so the next line parses afresh.
fn rest_of_statement<'t, I, E>() -> impl Parser<'t, I, Stmt, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    let nested = |open: char, close: char| {
        nested_delimiters(
            Token::Punct(open),
            Token::Punct(close),
            [
                (Token::Punct('('), Token::Punct(')')),
                (Token::Punct('['), Token::Punct(']')),
                (Token::Punct('{'), Token::Punct('}')),
            ],
            |_| (),
        )
    };
    let plain = none_of([
        Token::Newline,
        Token::Punct(';'),
        Token::Punct('('),
        Token::Punct('['),
        Token::Punct('{'),
        Token::Punct(')'),
        Token::Punct(']'),
        Token::Punct('}'),
    ])
    .ignored();
    choice((nested('(', ')'), nested('[', ']'), nested('{', '}'), plain))
        .repeated()
        .at_least(1)
        .map_with(|_, e| Stmt {
            kind: StmtKind::Error,
            span: span_of(e),
        })
        .then_ignore(separator().repeated())
}

fn file_parser<'t, I, E>() -> impl Parser<'t, I, File, E>
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    let expr = expr_parser();
    let attribute_arg = ident()
        .then_ignore(punct(':'))
        .or_not()
        .then(expr.clone())
        .map(|(key, value)| AttributeArg { key, value });
    let attribute = op("@")
        .ignore_then(ident())
        .then(
            attribute_arg
                .separated_by(punct(','))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(punct('('), punct(')'))
                .or_not(),
        )
        .map_with(|(name, args), e| Attribute {
            name,
            args: args.unwrap_or_default(),
            span: span_of(e),
        })
        .then_ignore(separator().repeated());
    let param = binding()
        .then_ignore(punct(':'))
        .then(type_parser(expr))
        .map_with(|(name, ty), e| Param {
            name,
            ty,
            span: span_of(e),
        });
    let params = param
        .separated_by(punct(','))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(punct('('), punct(')'));
    let header = attribute
        .clone()
        .repeated()
        .then(just(Token::Kernel))
        .ignored()
        .or(just(Token::Program).ignored())
        .or(just(Token::Fn).ignored());
    let function = just(Token::Fn)
        .ignore_then(ident())
        .then(params.clone())
        .then(op("->").ignore_then(type_parser(expr_parser())).or_not())
        .then(block_parser(stmt_parser()))
        .map_with(|(((name, params), result), body), e| Function {
            name,
            params,
            result,
            body,
            span: span_of(e),
        })
        .labelled("a function");
    let kernel = attribute
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(just(Token::Kernel))
        .then(ident())
        .then(params.clone())
        .then(block_parser(stmt_parser()))
        .map_with(|(((attributes, name), params), body), e| Kernel {
            attributes,
            name,
            params,
            body,
            span: span_of(e),
        })
        .labelled("a kernel");
    let program = just(Token::Program)
        .ignore_then(ident())
        .then(params)
        .then(program_block_parser())
        .map_with(|((name, params), body), e| Program {
            name,
            params,
            body,
            span: span_of(e),
        })
        .labelled("a program");
    let item = choice((
        kernel.map(Item::Kernel),
        program.map(Item::Program),
        function.map(Item::Function),
    ));
    // A kernel that does not parse is skipped, header and all, up to where the next kernel's
    // attributes or `kernel` keyword start.
    let not_a_kernel_start = any().and_is(header.clone().not());
    let skip_to_next_kernel = choice((
        header
            .clone()
            .ignore_then(not_a_kernel_start.clone().repeated()),
        not_a_kernel_start.repeated().at_least(1),
    ))
    .to(None);
    separator()
        .repeated()
        .ignore_then(
            item.map(Some)
                .recover_with(via_parser(skip_to_next_kernel))
                .then_ignore(separator().repeated())
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then_ignore(end())
        .map(|items: Vec<Option<Item>>| {
            let mut file = File::default();
            for item in items.into_iter().flatten() {
                match item {
                    Item::Kernel(kernel) => file.kernels.push(kernel),
                    Item::Program(program) => file.programs.push(program),
                    Item::Function(function) => file.functions.push(function),
                }
            }
            file
        })
}

/// What a file holds, in order.
#[derive(Clone)]
enum Item {
    Kernel(Kernel),
    Program(Program),
    Function(Function),
}

/// A word that is a keyword only in a program's body (`launch` is an attribute's name too).
fn word<'t, I, E>(name: &'static str) -> impl Parser<'t, I, Ident, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    ident().filter(move |i: &Ident| i.name == name)
}

/// `{ ... }` of a program: temporaries, launches, loops, `if`s and swaps, one a line.
fn program_block_parser<'t, I, E>() -> impl Parser<'t, I, ProgramBlock, E> + Clone
where
    I: ValueInput<'t, Token = Token, Span = SimpleSpan>,
    E: Extra<'t, I>,
{
    recursive(|block| {
        let expr = expr_parser();
        let list = |open: char, close: char| {
            expr_parser()
                .separated_by(punct(','))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(punct(open), punct(close))
        };
        let stmt_end = separator()
            .repeated()
            .at_least(1)
            .or(punct('}').rewind().ignored())
            .labelled("the end of the statement");
        let temporary = just(Token::Let)
            .ignore_then(binding())
            .then_ignore(op("="))
            .then_ignore(just(Token::Tensor))
            .then(ident().delimited_by(op("<"), op(">")))
            .then(list('[', ']'))
            .map(|((name, element), dims)| ProgramStmtKind::Temporary {
                name,
                element,
                dims,
            });
        let launch = word("launch")
            .ignore_then(ident())
            .then(list('(', ')'))
            .then(
                word("grid")
                    .ignore_then(list('(', ')'))
                    .map_with(|grid, e| (grid, span_of(e)))
                    .or_not()
                    .map_with(|grid, e| grid.unwrap_or((Vec::new(), span_of(e)))),
            )
            .map(
                |((kernel, args), (grid, grid_span))| ProgramStmtKind::Launch {
                    kernel,
                    args,
                    grid,
                    grid_span,
                },
            );
        let swap = word("swap")
            .ignore_then(
                ident()
                    .then_ignore(punct(','))
                    .then(ident())
                    .delimited_by(punct('('), punct(')')),
            )
            .map(|(a, b)| ProgramStmtKind::Swap(a, b));
        let simple = choice((temporary, launch, swap))
            .map_with(|kind, e| ProgramStmt {
                kind,
                span: span_of(e),
            })
            .then_ignore(stmt_end);
        let for_ = just(Token::For)
            .ignore_then(binding())
            .then_ignore(just(Token::In))
            .then(expr.clone())
            .then(block.clone())
            .map(|((var, range), body)| ProgramStmtKind::For { var, range, body });
        let while_ = just(Token::While)
            .ignore_then(expr.clone())
            .then(word("limit").ignore_then(expr.clone()).or_not())
            .then(block.clone())
            .map(|((condition, limit), body)| ProgramStmtKind::While {
                condition,
                limit,
                body,
            });
        let if_ = recursive(|if_| {
            just(Token::If)
                .ignore_then(expr.clone())
                .then(block.clone())
                .then(
                    just(Token::Else)
                        .ignore_then(block.clone().or(if_.map_with(|kind, e| {
                            let span = span_of(e);
                            ProgramBlock {
                                stmts: vec![ProgramStmt { kind, span }],
                                span,
                            }
                        })))
                        .or_not(),
                )
                .map(|((condition, then), otherwise)| ProgramStmtKind::If {
                    condition,
                    then,
                    otherwise,
                })
                .boxed()
        });
        let compound = choice((for_, while_, if_))
            .map_with(|kind, e| ProgramStmt {
                kind,
                span: span_of(e),
            })
            .then_ignore(separator().repeated());
        let stmt = compound
            .or(simple)
            .labelled("a launch, a temporary tensor, a loop or a swap")
            .recover_with(via_parser(rest_of_statement().map(|s| ProgramStmt {
                kind: ProgramStmtKind::Error,
                span: s.span,
            })));
        separator()
            .repeated()
            .ignore_then(stmt.repeated().collect::<Vec<_>>())
            .delimited_by(punct('{'), punct('}'))
            .map_with(|stmts, e| ProgramBlock {
                stmts,
                span: span_of(e),
            })
            .boxed()
    })
}
