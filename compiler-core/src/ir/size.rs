//! Sizes: integer expressions of dimensions (and, in a program, of integer scalars, loop
//! counters and elements read back) that a launch evaluates.
//!
//! In: a checked extent or program expression ([`Size::from_expr`]). Out: a [`Size`], and its
//! value ([`Size::evaluate`]). Invariant: evaluation is exact in 64 bits; an overflow, a
//! division by zero or a `log2` of less than 1 is an error, never a wrapped value.

use crate::syntax::ast::{self, ExprKind};
use serde::Serialize;

/// An integer computed when a kernel or program is launched (64-bit, exact): a derived
/// extent, or a program's size, grid or count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Size {
    Literal(i64),
    /// The value of dimension `i` (of the kernel, or of the program's signature).
    Dim(usize),
    /// The integer scalar parameter `signature.params[i]`.
    Scalar(usize),
    /// A loop counter's value this pass.
    Counter(usize),
    Binary(SizeOp, Box<Size>, Box<Size>),
    /// `ceil(a / b)`.
    CeilDiv(Box<Size>, Box<Size>),
    /// `log2(x)`: the largest `k` with `2^k <= x`.
    Log2(Box<Size>),
    /// An element a launch left in a buffer (a `while` condition's).
    Element {
        buffer: usize,
        indices: Vec<Size>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SizeOp {
    Add,
    Sub,
    Mul,
    /// Truncating toward zero, as the language's integers do.
    Div,
    Rem,
    /// `a << b`: `a` times 2^b, exact (a count outside 0 to 63, or a product past 64 bits,
    /// is an error, never a wrap).
    Shl,
    Min,
    Max,
}

impl Size {
    /// Whether `op` is an operator of sizes: `+ - * / % <<`.
    pub fn is_operator(op: ast::BinaryOp) -> bool {
        use ast::BinaryOp::*;
        matches!(op, Add | Sub | Mul | Div | Rem | Shl)
    }

    /// Whether a call of `name` with `args` arguments is one of a size's functions (`ceil`,
    /// `log2`, `min`, `max`), which the checkers of extents and of programs accept.
    pub fn is_function(name: &str, args: usize) -> bool {
        matches!((name, args), ("ceil" | "log2", 1) | ("min" | "max", 2))
    }

    /// `e` as a size: literals, `-`, `+ - * / % <<`, `ceil(a / b)`, `log2`, `min` and `max`;
    /// `leaf` gives the rest (names, elements).
    pub fn from_expr(e: &ast::Expr, leaf: &mut dyn FnMut(&ast::Expr) -> Size) -> Size {
        let mut sub = |e: &ast::Expr| Box::new(Size::from_expr(e, leaf));
        match &e.kind {
            ExprKind::Int(n) => Size::Literal(n.unwrap_or(0) as i64),
            ExprKind::Unary(ast::UnaryOp::Neg, x) => {
                Size::Binary(SizeOp::Sub, Box::new(Size::Literal(0)), sub(x))
            }
            ExprKind::Binary(op, l, r) => {
                let op = match op {
                    ast::BinaryOp::Add => SizeOp::Add,
                    ast::BinaryOp::Sub => SizeOp::Sub,
                    ast::BinaryOp::Mul => SizeOp::Mul,
                    ast::BinaryOp::Div => SizeOp::Div,
                    ast::BinaryOp::Shl => SizeOp::Shl,
                    _ => SizeOp::Rem,
                };
                let l = sub(l);
                Size::Binary(op, l, sub(r))
            }
            ExprKind::Call { callee, args } => match (callee.name.as_str(), args.as_slice()) {
                ("ceil", [arg]) => match &arg.kind {
                    ExprKind::Binary(ast::BinaryOp::Div, a, b) => {
                        let a = sub(a);
                        Size::CeilDiv(a, sub(b))
                    }
                    _ => *sub(arg),
                },
                ("log2", [arg]) => Size::Log2(sub(arg)),
                ("min", [a, b]) => {
                    let a = sub(a);
                    Size::Binary(SizeOp::Min, a, sub(b))
                }
                ("max", [a, b]) => {
                    let a = sub(a);
                    Size::Binary(SizeOp::Max, a, sub(b))
                }
                _ => Size::Literal(0),
            },
            _ => leaf(e),
        }
    }

    /// The value, with `leaf` giving dimensions, scalars, counters and elements; an error says
    /// what went wrong ("a size divides by zero").
    pub fn evaluate(
        &self,
        leaf: &mut dyn FnMut(&Size) -> Result<i64, String>,
    ) -> Result<i64, String> {
        let overflow = || "a size overflows 64 bits".to_owned();
        Ok(match self {
            Size::Literal(n) => *n,
            Size::Binary(op, a, b) => {
                let (a, b) = (a.evaluate(leaf)?, b.evaluate(leaf)?);
                match op {
                    SizeOp::Add => a.checked_add(b).ok_or_else(overflow)?,
                    SizeOp::Sub => a.checked_sub(b).ok_or_else(overflow)?,
                    SizeOp::Mul => a.checked_mul(b).ok_or_else(overflow)?,
                    SizeOp::Div | SizeOp::Rem if b == 0 => {
                        return Err("a size divides by zero".into())
                    }
                    SizeOp::Div => a.checked_div(b).ok_or_else(overflow)?,
                    SizeOp::Rem => a.checked_rem(b).ok_or_else(overflow)?,
                    SizeOp::Shl if !(0..64).contains(&b) => {
                        return Err(format!("a size shifts by {b}, outside 0 to 63"))
                    }
                    SizeOp::Shl => a
                        .checked_mul(
                            1i64.checked_shl(b as u32)
                                .filter(|p| *p > 0)
                                .ok_or_else(overflow)?,
                        )
                        .ok_or_else(overflow)?,
                    SizeOp::Min => a.min(b),
                    SizeOp::Max => a.max(b),
                }
            }
            Size::CeilDiv(a, b) => {
                let (a, b) = (a.evaluate(leaf)?, b.evaluate(leaf)?);
                if b == 0 {
                    return Err("a size divides by zero".into());
                }
                // Truncating division, then up by one where the exact quotient is positive
                // and not whole.
                let (q, r) = (
                    a.checked_div(b).ok_or_else(overflow)?,
                    a.checked_rem(b).ok_or_else(overflow)?,
                );
                q + i64::from(r != 0 && (r > 0) == (b > 0))
            }
            Size::Log2(x) => {
                let x = x.evaluate(leaf)?;
                if x < 1 {
                    return Err(format!("log2 of {x}"));
                }
                i64::from(63 - x.leading_zeros())
            }
            Size::Dim(_) | Size::Scalar(_) | Size::Counter(_) | Size::Element { .. } => leaf(self)?,
        })
    }

    /// The dimensions it reads.
    pub fn dims(&self) -> Vec<usize> {
        let mut found = Vec::new();
        self.walk(&mut |s| {
            if let Size::Dim(i) = s {
                found.push(*i);
            }
        });
        found
    }

    /// The scalar parameters it reads, each once per use.
    pub fn scalars(&self) -> Vec<usize> {
        let mut found = Vec::new();
        self.walk(&mut |s| {
            if let Size::Scalar(i) = s {
                found.push(*i);
            }
        });
        found
    }

    /// The buffers whose elements it reads (a program's `Flag[0]`), each once per read.
    pub fn buffers_read(&self) -> Vec<usize> {
        let mut found = Vec::new();
        self.walk(&mut |s| {
            if let Size::Element { buffer, .. } = s {
                found.push(*buffer);
            }
        });
        found
    }

    fn walk(&self, visit: &mut dyn FnMut(&Size)) {
        visit(self);
        match self {
            Size::Binary(_, a, b) | Size::CeilDiv(a, b) => {
                a.walk(visit);
                b.walk(visit);
            }
            Size::Log2(x) => x.walk(visit),
            Size::Element { indices, .. } => indices.iter().for_each(|i| i.walk(visit)),
            _ => {}
        }
    }
}
