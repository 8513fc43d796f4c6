//! Arithmetic on bits: the operators, comparisons, casts and math functions of each scalar
//! type, and the combination order of reductions.

use crate::ir::*;

pub(super) fn combine(reduce: Reduce, ty: Scalar, a: u32, b: u32) -> u32 {
    let op = match reduce {
        Reduce::Sum => BinaryOp::Add,
        Reduce::Max => BinaryOp::Max,
        Reduce::Min => BinaryOp::Min,
        Reduce::And => BinaryOp::And,
        Reduce::Or => BinaryOp::Or,
        Reduce::Xor => BinaryOp::Xor,
    };
    binary(op, ty, a, b).unwrap_or(0)
}

/// What an atomic leaves in an element that held `old` (`expected` is compare-exchange's).
pub(super) fn atomic(op: AtomicOp, ty: Scalar, old: u32, value: u32, expected: u32) -> u32 {
    let combined = match op {
        AtomicOp::Add => BinaryOp::Add,
        AtomicOp::Sub => BinaryOp::Sub,
        AtomicOp::Min => BinaryOp::Min,
        AtomicOp::Max => BinaryOp::Max,
        AtomicOp::And => BinaryOp::And,
        AtomicOp::Or => BinaryOp::Or,
        AtomicOp::Xor => BinaryOp::Xor,
        AtomicOp::Exchange => return value,
        AtomicOp::CompareExchange => return if old == expected { value } else { old },
    };
    binary(combined, ty, old, value).unwrap_or(old)
}

/// `op` of constants alone (see [`Op::only_constants`]) computed as the simulator computes it
/// in any thread, or `None` where it is not such an operation or would fault (an integer
/// division by zero). The WGSL writer puts the result in the shader, so the GPU never meets
/// an arithmetic of constants, which WGSL evaluates as it creates the shader and refuses when
/// the result is NaN, infinite or overflows (issue 51).
pub fn fold(op: &Op) -> Option<u32> {
    if !op.only_constants() {
        return None;
    }
    let c = |o: &Operand| match o {
        Operand::Const(bits) => *bits,
        Operand::Reg(_) => 0,
    };
    Some(match op {
        Op::Unary(u, ty, a) => unary(*u, *ty, c(a)),
        Op::Binary(b, ty, x, y) => binary(*b, *ty, c(x), c(y))?,
        Op::Compare(cmp, ty, x, y) => u32::from(compare(*cmp, *ty, c(x), c(y))),
        Op::Select(cond, a, b) => {
            if c(cond) != 0 {
                c(a)
            } else {
                c(b)
            }
        }
        Op::Fma(a, b, d) => fma(c(a), c(b), c(d)),
        Op::Pow(x, y) => pow(c(x), c(y)),
        Op::Math(f, ty, a) => math(*f, *ty, c(a)),
        Op::Cast { from, to, value } => cast(*from, *to, c(value)),
        Op::Bitcast { value, .. } => c(value),
        _ => return None,
    })
}

pub(super) fn unary(u: UnaryOp, ty: Scalar, x: u32) -> u32 {
    match (u, ty) {
        (UnaryOp::Neg, Scalar::F32 | Scalar::F16) => (-f32::from_bits(x)).to_bits(),
        (UnaryOp::Neg, _) => (x as i32).wrapping_neg() as u32,
        (UnaryOp::Not, _) => u32::from(x == 0),
        (UnaryOp::BitNot, _) => !x,
    }
}

/// `a * b + c` rounded once.
pub(super) fn fma(a: u32, b: u32, c: u32) -> u32 {
    f32::from_bits(a)
        .mul_add(f32::from_bits(b), f32::from_bits(c))
        .to_bits()
}

/// C's `powf`: a negative `x` only with a whole `y`, `pow(x, 0)` = `pow(1, y)` = 1.
pub(super) fn pow(x: u32, y: u32) -> u32 {
    f32::from_bits(x).powf(f32::from_bits(y)).to_bits()
}

/// Whether adding `value` to `old` (an `f32` atomic_add) makes the sum depend on the order of
/// the additions: the addition rounded, or its terms have opposite signs, so that another
/// order could cancel differently.
pub(super) fn order_shows(old: u32, value: u32, sum: u32) -> bool {
    let (a, b) = (f32::from_bits(old), f32::from_bits(value));
    let exact = f64::from(a) + f64::from(b) == f64::from(f32::from_bits(sum));
    let opposite = a != 0.0 && b != 0.0 && a.is_sign_negative() != b.is_sign_negative();
    !exact || opposite
}

/// An `f32` tensor's `atomic_add`: subnormal inputs and result flushed to a zero of their sign,
/// as NVIDIA's `atom.add.f32` on global memory does (PTX ISA, `atom`; on shared memory it keeps
/// them, as a tile's atomic does here).
pub(super) fn global_float_add(old: u32, value: u32) -> u32 {
    let flush = |bits: u32| {
        if bits & 0x7f80_0000 == 0 {
            bits & 0x8000_0000
        } else {
            bits
        }
    };
    flush((f32::from_bits(flush(old)) + f32::from_bits(flush(value))).to_bits())
}

/// The xor-butterfly combination of `values`, padded with the identity to a power of two at
/// least `width`: the order a GPU's shuffle reduction uses.
pub(super) fn butterfly(reduce: Reduce, ty: Scalar, values: &mut Vec<u32>, width: usize) -> u32 {
    let width = width.max(values.len()).next_power_of_two().max(1);
    values.resize(width, reduce.identity(ty));
    let mut offset = width / 2;
    while offset > 0 {
        let previous = values.clone();
        for (i, value) in values.iter_mut().enumerate() {
            *value = combine(reduce, ty, previous[i], previous[i ^ offset]);
        }
        offset /= 2;
    }
    values[0]
}

/// `a op b` on bits of type `ty`; `None` for an integer division by zero.
pub(super) fn binary(op: BinaryOp, ty: Scalar, a: u32, b: u32) -> Option<u32> {
    Some(match ty {
        Scalar::F32 | Scalar::F16 => {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Rem => x % y,
                BinaryOp::Min => x.min(y),
                BinaryOp::Max => x.max(y),
                _ => return Some(0),
            };
            r.to_bits()
        }
        Scalar::I32 | Scalar::I8 => {
            let (x, y) = (a as i32, b as i32);
            (match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Sub => x.wrapping_sub(y),
                BinaryOp::Mul => x.wrapping_mul(y),
                BinaryOp::Div => {
                    if y == 0 {
                        return None;
                    }
                    x.wrapping_div(y)
                }
                BinaryOp::Rem => {
                    if y == 0 {
                        return None;
                    }
                    x.wrapping_rem(y)
                }
                BinaryOp::Shl => x.wrapping_shl(b & 31),
                BinaryOp::Shr => x.wrapping_shr(b & 31),
                BinaryOp::And => x & y,
                BinaryOp::Or => x | y,
                BinaryOp::Xor => x ^ y,
                BinaryOp::Min => x.min(y),
                BinaryOp::Max => x.max(y),
            }) as u32
        }
        // The simulator runs 64-bit values as words (`ir::wide`): never seen here.
        Scalar::U32 | Scalar::U8 | Scalar::Bool | Scalar::I64 | Scalar::U64 => match op {
            BinaryOp::Add => a.wrapping_add(b),
            BinaryOp::Sub => a.wrapping_sub(b),
            BinaryOp::Mul => a.wrapping_mul(b),
            BinaryOp::Div => a.checked_div(b)?,
            BinaryOp::Rem => a.checked_rem(b)?,
            BinaryOp::Shl => a.wrapping_shl(b & 31),
            BinaryOp::Shr => a.wrapping_shr(b & 31),
            BinaryOp::And => a & b,
            BinaryOp::Or => a | b,
            BinaryOp::Xor => a ^ b,
            BinaryOp::Min => a.min(b),
            BinaryOp::Max => a.max(b),
        },
    })
}

pub(super) fn compare(op: CompareOp, ty: Scalar, a: u32, b: u32) -> bool {
    use std::cmp::Ordering;
    let ordering = match ty {
        Scalar::F32 | Scalar::F16 => f32::from_bits(a).partial_cmp(&f32::from_bits(b)),
        Scalar::I32 => Some((a as i32).cmp(&(b as i32))),
        _ => Some(a.cmp(&b)),
    };
    match (op, ordering) {
        (CompareOp::Ne, None) => true,
        (_, None) => false,
        (CompareOp::Lt, Some(o)) => o == Ordering::Less,
        (CompareOp::Le, Some(o)) => o != Ordering::Greater,
        (CompareOp::Gt, Some(o)) => o == Ordering::Greater,
        (CompareOp::Ge, Some(o)) => o != Ordering::Less,
        (CompareOp::Eq, Some(o)) => o == Ordering::Equal,
        (CompareOp::Ne, Some(o)) => o != Ordering::Equal,
    }
}

/// A cast in a kernel. Between integers it keeps the bits (values wrap, as the spec says);
/// to a float it rounds to nearest; from a float to an integer it saturates and NaN gives 0, as
/// PTX's `cvt.rzi.sat` and WGSL's conversions do. Only that last case differs from
/// [`Scalar::bits`].
pub(super) fn cast(from: Scalar, to: Scalar, bits: u32) -> u32 {
    let value = from.value(bits);
    match to {
        Scalar::I32 if from.is_float() => (value as i32) as u32,
        Scalar::U32 if from.is_float() => value as u32,
        _ => to.bits(value),
    }
}

pub(super) fn math(f: MathFn, ty: Scalar, bits: u32) -> u32 {
    // On integers the checker allows only `abs` and `sign`.
    if ty == Scalar::I32 {
        let x = bits as i32;
        return match f {
            MathFn::Sign => x.signum() as u32,
            _ => x.wrapping_abs() as u32,
        };
    }
    if ty == Scalar::U32 {
        return match f {
            MathFn::Sign => u32::from(bits != 0),
            _ => bits,
        };
    }
    let x = f32::from_bits(bits);
    (match f {
        MathFn::Abs => x.abs(),
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => 1.0 / x.sqrt(),
        MathFn::Exp => x.exp(),
        MathFn::Exp2 => x.exp2(),
        MathFn::Log => x.ln(),
        MathFn::Log2 => x.log2(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tanh => x.tanh(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
        MathFn::Round => x.round_ties_even(),
        MathFn::Trunc => x.trunc(),
        MathFn::Sign => sign(x),
        MathFn::Erf => erf(x),
    })
    .to_bits()
}

/// -1, 0 or 1; either zero gives +0 and NaN stays NaN (numpy's `sign`).
fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// The error function, within 1 ulp (0.96 ulp measured against a double-precision erf over
/// [-6, 6] and down to 1e-30). Norbert Juffa's single-precision minimax approximation, the one
/// the PTX and WGSL writers emit (`ERF_*`), with their `ex2.approx` here an exact `exp`:
/// an odd polynomial in x below |x| = 0.927734375, else 1 - exp(p(|x|)) with x's sign.
fn erf(x: f32) -> f32 {
    let (t, s) = (x.abs(), x * x);
    if t > ERF_SPLIT {
        let [a, b, c, d, e, f, g] = ERF_LARGE;
        let r = a.mul_add(t, b);
        let u = c.mul_add(t, d);
        let r = r.mul_add(s, u);
        let r = r.mul_add(t, e).mul_add(t, f).mul_add(t, g).mul_add(t, -t);
        (1.0 - r.exp()).copysign(x)
    } else {
        let r = ERF_SMALL[1..]
            .iter()
            .fold(ERF_SMALL[0], |r, &c| r.mul_add(s, c));
        r.mul_add(x, x)
    }
}

/// Where `erf` changes from its polynomial to 1 - exp(…).
pub const ERF_SPLIT: f32 = 0.927_734_4;
/// Above the split: r = (a t + b) s + (c t + d), then r = r t + e, + f, + g, and r t - t.
pub const ERF_LARGE: [f32; 7] = [
    -1.728_534_7e-5,
    3.831_971_3e-4,
    -3.883_964_4e-3,
    2.425_462_2e-2,
    -1.067_778_8e-1,
    -6.348_467e-1,
    -1.287_175_1e-1,
];
/// Below it, in s = x²: Horner's rule from the first, then r x + x.
pub const ERF_SMALL: [f32; 6] = [
    -5.967_617e-4,
    4.991_194_2e-3,
    -2.676_813_5e-2,
    1.128_199_25e-1,
    -3.761_253_4e-1,
    1.283_791_7e-1,
];
