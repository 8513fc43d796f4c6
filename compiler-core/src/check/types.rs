//! Types: scalars, untyped literals, tensors and tiles, and how operands unify.
//!
//! Invariant: `Type::Error` unifies with everything silently, so one mistake is reported once
//! and not again by every expression that uses its result.

use crate::ir::Scalar;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Type {
    Scalar(Scalar),
    /// An integer literal not yet given a type: it becomes `i32`, `u32`, `f32` or `f16`.
    IntLiteral,
    /// A float literal not yet given a type: it becomes `f32` or `f16`.
    FloatLiteral,
    /// Integer literals combined by an operator that only integers have (`% & | ^ << >> ~`):
    /// it becomes `i32` or `u32`, never a float, since `1 & 2` has no float meaning.
    IntOnlyLiteral,
    /// An integer literal past 32 bits (`5000000000`): it becomes `i64` or `u64`.
    WideLiteral,
    /// A kernel parameter in global memory; `dims` as written (`N`, `64`).
    Tensor {
        element: Scalar,
        /// Shared: a tensor's type is copied at every use of its name.
        dims: Arc<[String]>,
        /// Extents known at compile time (literal dimensions).
        extents: Arc<[Option<u64>]>,
    },
    /// A tile: a block of elements in the CTA's shared memory, of a compile-time shape.
    Tile {
        element: Scalar,
        shape: Vec<u64>,
    },
    /// A per-thread array: each thread's own elements, of a compile-time shape.
    Array {
        element: Scalar,
        shape: Vec<u64>,
    },
    /// What `barrier()` returns: nothing.
    Unit,
    Error,
}

impl Type {
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);
    pub const I32: Type = Type::Scalar(Scalar::I32);
    pub const U32: Type = Type::Scalar(Scalar::U32);
    pub const F32: Type = Type::Scalar(Scalar::F32);

    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }

    /// An integer scalar or an integer literal.
    pub fn is_integer(&self) -> bool {
        match self {
            Type::Scalar(s) => s.is_integer(),
            Type::IntLiteral | Type::IntOnlyLiteral | Type::WideLiteral => true,
            _ => false,
        }
    }

    /// A 64-bit integer, or a literal that can only be one.
    pub fn is_wide(&self) -> bool {
        match self {
            Type::Scalar(s) => s.is_wide(),
            Type::WideLiteral => true,
            _ => false,
        }
    }

    pub fn is_numeric(&self) -> bool {
        match self {
            Type::Scalar(s) => s.is_numeric(),
            Type::IntLiteral | Type::IntOnlyLiteral | Type::WideLiteral | Type::FloatLiteral => {
                true
            }
            _ => false,
        }
    }

    pub fn is_float(&self) -> bool {
        match self {
            Type::Scalar(s) => s.is_float(),
            Type::FloatLiteral => true,
            _ => false,
        }
    }

    pub fn is_tile(&self) -> bool {
        matches!(self, Type::Tile { .. })
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Type::Array { .. })
    }

    /// The result of an integer-only operator: an untyped literal stays untyped but can no
    /// longer become a float.
    pub fn integer_only(self) -> Type {
        match self {
            Type::IntLiteral => Type::IntOnlyLiteral,
            other => other,
        }
    }

    /// A literal takes its default type (`i32`, `f32`) when nothing else decides it.
    pub fn concrete(self) -> Type {
        match self {
            Type::IntLiteral | Type::IntOnlyLiteral => Type::I32,
            Type::WideLiteral => Type::Scalar(Scalar::I64),
            Type::FloatLiteral => Type::F32,
            other => other,
        }
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            Type::IntLiteral | Type::IntOnlyLiteral => Some(Scalar::I32),
            Type::WideLiteral => Some(Scalar::I64),
            Type::FloatLiteral => Some(Scalar::F32),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => f.write_str(s.name()),
            Type::IntLiteral | Type::IntOnlyLiteral | Type::WideLiteral => f.write_str("{integer}"),
            Type::FloatLiteral => f.write_str("{float}"),
            Type::Tensor { element, dims, .. } => {
                write!(f, "tensor<{}>[{}]", element.name(), dims.join(", "))
            }
            Type::Tile { element, shape } => {
                let shape: Vec<String> = shape.iter().map(u64::to_string).collect();
                write!(f, "tile<{}>[{}]", element.name(), shape.join(", "))
            }
            Type::Array { element, shape } => {
                let shape: Vec<String> = shape.iter().map(u64::to_string).collect();
                write!(f, "array<{}>[{}]", element.name(), shape.join(", "))
            }
            Type::Unit => f.write_str("()"),
            Type::Error => f.write_str("{error}"),
        }
    }
}

/// The type two scalar operands share, if they can share one: equal types, or a literal that
/// takes the other's type. `Error` absorbs everything.
pub fn unify(a: &Type, b: &Type) -> Option<Type> {
    use Type::*;
    Some(match (a, b) {
        (Error, _) | (_, Error) => Error,
        (x, y) if x == y => x.clone(),
        (IntLiteral, FloatLiteral) | (FloatLiteral, IntLiteral) => FloatLiteral,
        (IntLiteral, IntOnlyLiteral) | (IntOnlyLiteral, IntLiteral) => IntOnlyLiteral,
        (IntLiteral | IntOnlyLiteral, WideLiteral) | (WideLiteral, IntLiteral | IntOnlyLiteral) => {
            WideLiteral
        }
        (WideLiteral, Scalar(s)) | (Scalar(s), WideLiteral) if s.is_wide() => Scalar(*s),
        (IntLiteral, Scalar(s)) | (Scalar(s), IntLiteral) if s.is_numeric() => Scalar(*s),
        (IntOnlyLiteral, Scalar(s)) | (Scalar(s), IntOnlyLiteral) if s.is_integer() => Scalar(*s),
        (FloatLiteral, Scalar(s)) | (Scalar(s), FloatLiteral) if s.is_float() => Scalar(*s),
        _ => return None,
    })
}

/// Whether a value of type `value` may be stored where `target` is expected.
pub fn assignable(value: &Type, target: &Type) -> bool {
    unify(value, target).is_some_and(|t| t == *target || t.is_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_take_the_other_operands_type() {
        assert_eq!(unify(&Type::IntLiteral, &Type::U32), Some(Type::U32));
        assert_eq!(unify(&Type::IntLiteral, &Type::F32), Some(Type::F32));
        assert_eq!(unify(&Type::FloatLiteral, &Type::I32), None);
        assert_eq!(unify(&Type::I32, &Type::U32), None);
        assert_eq!(unify(&Type::Error, &Type::U32), Some(Type::Error));
        assert!(assignable(&Type::IntLiteral, &Type::F32));
        assert!(!assignable(&Type::F32, &Type::I32));
        assert!(assignable(&Type::IntOnlyLiteral, &Type::U32));
        assert!(!assignable(&Type::IntOnlyLiteral, &Type::F32));
        assert_eq!(unify(&Type::IntOnlyLiteral, &Type::FloatLiteral), None);
    }
}
