//! 64-bit integers as 32-bit words: the form of a kernel the simulator runs and WGSL is made
//! from (WGSL has no 64-bit integers; PTX computes on `.s64`/`.u64` registers and gets the
//! kernel as lowered).
//!
//! In: a lowered kernel whose registers, tensors and arrays may be `i64` or `u64`. Out: the
//! same kernel with none: each 64-bit register `r` keeps its number for its low word (now a
//! `u32`) and gains a register for its high word ([`RegInfo::high_of`] names `r`); a 64-bit
//! tensor gains a last axis of extent 2, its words (low, then high: the layout of an `.npy`
//! `<i8` and of CUDA's memory), and a per-thread array likewise; each keeps its element type,
//! so a message can speak of its elements, but every load and store of one moves a `u32`
//! word. Each operation is
//! written with 32-bit ones, exactly: additions carry by comparison, a product takes its high
//! word from 16-bit halves, shifts take the count's low six bits and split at 32, a division
//! is a 32-bit one where both operands fit, else 64 unrolled steps of restoring division (after a 32-bit division by "the divisor is not 0", so a
//! 64-bit division by zero stops the simulator where a 32-bit one does), a comparison decides
//! on the high words and then the low ones, a conversion to `f32` rounds once (the top 32
//! significant bits and a sticky bit, then a scaling by a power of two), and an `atomic_add`
//! (whose old value the checker keeps unused) two 32-bit ones, the high word's taking the low
//! word's carry, which that atomic's old value gives.
//!
//! Invariant: a kernel without 64-bit values comes back unchanged; afterwards no register or
//! operation names `i64` or `u64`, and only a tensor's or array's element type (with its word
//! axis) does, and a 64-bit scalar parameter's type (`Op::Scalar` reads its low word,
//! `Op::ScalarHigh` its high one). The checker keeps 64-bit values out of tiles, a CTA's
//! collectives and every other atomic, so none reaches them here.

use super::*;

/// Whether `kernel` (as lowered, not split) has a 64-bit register, tensor or array.
pub fn has_wide(kernel: &Kernel) -> bool {
    kernel.regs.iter().any(|r| r.ty.is_wide())
        || kernel.params.iter().any(|p| p.element().is_wide())
        || kernel.locals.iter().any(|a| a.element.is_wide())
}

/// `kernel` with its 64-bit values as words (see the module doc).
pub fn split(kernel: &Kernel) -> Kernel {
    let mut out = kernel.clone();
    if !has_wide(kernel) {
        return out;
    }
    let mut high = vec![None; kernel.regs.len()];
    for (i, info) in kernel.regs.iter().enumerate() {
        if info.ty.is_wide() {
            // A variable's words are named `n.lo` and `n.hi` (the trace joins them again).
            out.regs[i].ty = Scalar::U32;
            out.regs[i].name = info.name.as_ref().map(|n| format!("{n}.lo"));
            out.regs.push(RegInfo {
                ty: Scalar::U32,
                name: info.name.as_ref().map(|n| format!("{n}.hi")),
                variable: info.variable,
                high_of: Some((i as u32, info.ty)),
            });
            high[i] = Some(Reg(out.regs.len() as u32 - 1));
        }
    }
    for param in &mut out.params {
        if let Param::Tensor { element, dims, .. } = param {
            if element.is_wide() {
                dims.push(DimRef::Literal(2));
            }
        }
    }
    for array in &mut out.locals {
        if array.element.is_wide() {
            array.shape.push(2);
        }
    }
    let mut splitter = Splitter {
        kernel,
        regs: out.regs,
        high,
        out: Vec::new(),
        span: kernel.span,
        statement: kernel.span,
    };
    out.body = splitter.block(&kernel.body);
    out.regs = splitter.regs;
    out
}

struct Splitter<'k> {
    kernel: &'k Kernel,
    regs: Vec<RegInfo>,
    /// Each 64-bit register's high word.
    high: Vec<Option<Reg>>,
    out: Block,
    span: Span,
    statement: Span,
}

type Words = (Operand, Operand);

const U: Scalar = Scalar::U32;
const I: Scalar = Scalar::I32;
const B: Scalar = Scalar::Bool;

impl Splitter<'_> {
    fn block(&mut self, block: &[Stmt]) -> Block {
        let saved = std::mem::take(&mut self.out);
        for stmt in block {
            self.stmt(stmt);
        }
        std::mem::replace(&mut self.out, saved)
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self)) -> Block {
        let saved = std::mem::take(&mut self.out);
        f(self);
        std::mem::replace(&mut self.out, saved)
    }

    fn emit(&mut self, kind: StmtKind) {
        self.out.push(Stmt {
            kind,
            span: self.span,
            statement: self.statement,
        });
    }

    fn set(&mut self, dst: Reg, op: Op) {
        self.emit(StmtKind::Let { dst, op });
    }

    /// A new temporary of `ty` holding `op`.
    fn op(&mut self, ty: Scalar, op: Op) -> Operand {
        let r = self.reg(ty);
        self.set(r, op);
        Operand::Reg(r)
    }

    /// A new temporary of `ty`.
    fn reg(&mut self, ty: Scalar) -> Reg {
        self.regs.push(RegInfo {
            ty,
            name: None,
            variable: false,
            high_of: None,
        });
        Reg(self.regs.len() as u32 - 1)
    }

    fn wide_reg(&self, original: Reg) -> bool {
        self.kernel
            .regs
            .get(original.0 as usize)
            .is_some_and(|r| r.ty.is_wide())
    }

    /// An operand's words: a 64-bit register's two, a constant zero-extended.
    fn words(&self, o: Operand) -> Words {
        match o {
            Operand::Reg(r) => match self.high.get(r.0 as usize).copied().flatten() {
                Some(h) => (o, Operand::Reg(h)),
                None => (o, Operand::Const(0)),
            },
            Operand::Const(_) => (o, Operand::Const(0)),
        }
    }

    /// A 64-bit register's high word (a fresh register for one that is not 64-bit, which the
    /// checker's types rule out: never a panic).
    fn high_word(&mut self, r: Reg) -> Reg {
        match self.high.get(r.0 as usize).copied().flatten() {
            Some(h) => h,
            None => self.reg(U),
        }
    }

    fn put(&mut self, dst: Reg, (lo, hi): Words) {
        let h = self.high_word(dst);
        self.set(dst, Op::Copy(lo));
        self.set(h, Op::Copy(hi));
    }

    fn bin(&mut self, ty: Scalar, op: BinaryOp, a: Operand, b: Operand) -> Operand {
        self.op(ty, Op::Binary(op, ty, a, b))
    }

    fn cmp(&mut self, ty: Scalar, op: CompareOp, a: Operand, b: Operand) -> Operand {
        self.op(B, Op::Compare(op, ty, a, b))
    }

    fn select(&mut self, ty: Scalar, c: Operand, a: Operand, b: Operand) -> Operand {
        self.op(ty, Op::Select(c, a, b))
    }

    fn select_words(&mut self, c: Operand, a: Words, b: Words) -> Words {
        (self.select(U, c, a.0, b.0), self.select(U, c, a.1, b.1))
    }

    fn bool_word(&mut self, c: Operand) -> Operand {
        self.op(
            U,
            Op::Cast {
                from: B,
                to: U,
                value: c,
            },
        )
    }

    fn as_i32(&mut self, w: Operand) -> Operand {
        self.op(
            I,
            Op::Bitcast {
                from: U,
                to: I,
                value: w,
            },
        )
    }

    fn as_u32(&mut self, w: Operand) -> Operand {
        self.op(
            U,
            Op::Bitcast {
                from: I,
                to: U,
                value: w,
            },
        )
    }

    fn add(&mut self, a: Words, b: Words) -> Words {
        let lo = self.bin(U, BinaryOp::Add, a.0, b.0);
        let carried = self.cmp(U, CompareOp::Lt, lo, a.0);
        let carry = self.bool_word(carried);
        let hi = self.bin(U, BinaryOp::Add, a.1, b.1);
        (lo, self.bin(U, BinaryOp::Add, hi, carry))
    }

    fn sub(&mut self, a: Words, b: Words) -> Words {
        let lo = self.bin(U, BinaryOp::Sub, a.0, b.0);
        let borrowed = self.cmp(U, CompareOp::Lt, a.0, b.0);
        let borrow = self.bool_word(borrowed);
        let hi = self.bin(U, BinaryOp::Sub, a.1, b.1);
        (lo, self.bin(U, BinaryOp::Sub, hi, borrow))
    }

    fn neg(&mut self, a: Words) -> Words {
        self.sub((Operand::Const(0), Operand::Const(0)), a)
    }

    /// The full product of two words.
    fn mul_wide(&mut self, a: Operand, b: Operand) -> Words {
        let half = |s: &mut Self, x: Operand| {
            (
                s.bin(U, BinaryOp::And, x, Operand::Const(0xffff)),
                s.bin(U, BinaryOp::Shr, x, Operand::Const(16)),
            )
        };
        let (a0, a1) = half(self, a);
        let (b0, b1) = half(self, b);
        let p00 = self.bin(U, BinaryOp::Mul, a0, b0);
        let p01 = self.bin(U, BinaryOp::Mul, a0, b1);
        let p10 = self.bin(U, BinaryOp::Mul, a1, b0);
        let p11 = self.bin(U, BinaryOp::Mul, a1, b1);
        let (p01_lo, p01_hi) = half(self, p01);
        let (p10_lo, p10_hi) = half(self, p10);
        let p00_hi = self.bin(U, BinaryOp::Shr, p00, Operand::Const(16));
        let mid = self.bin(U, BinaryOp::Add, p00_hi, p01_lo);
        let mid = self.bin(U, BinaryOp::Add, mid, p10_lo);
        let lo = self.bin(U, BinaryOp::Mul, a, b);
        let hi = self.bin(U, BinaryOp::Add, p11, p01_hi);
        let hi = self.bin(U, BinaryOp::Add, hi, p10_hi);
        let mid_hi = self.bin(U, BinaryOp::Shr, mid, Operand::Const(16));
        (lo, self.bin(U, BinaryOp::Add, hi, mid_hi))
    }

    fn mul(&mut self, a: Words, b: Words) -> Words {
        let (lo, hi) = self.mul_wide(a.0, b.0);
        let cross1 = self.bin(U, BinaryOp::Mul, a.0, b.1);
        let cross2 = self.bin(U, BinaryOp::Mul, a.1, b.0);
        let hi = self.bin(U, BinaryOp::Add, hi, cross1);
        (lo, self.bin(U, BinaryOp::Add, hi, cross2))
    }

    /// `a < b` (`a <= b` with `or_equal`), signed or not.
    fn less(&mut self, signed: bool, a: Words, b: Words, or_equal: bool) -> Operand {
        let high_less = if signed {
            let (x, y) = (self.as_i32(a.1), self.as_i32(b.1));
            self.cmp(I, CompareOp::Lt, x, y)
        } else {
            self.cmp(U, CompareOp::Lt, a.1, b.1)
        };
        let high_equal = self.cmp(U, CompareOp::Eq, a.1, b.1);
        let low = if or_equal {
            CompareOp::Le
        } else {
            CompareOp::Lt
        };
        let low_less = self.cmp(U, low, a.0, b.0);
        self.select(B, high_equal, low_less, high_less)
    }

    fn equal(&mut self, a: Words, b: Words) -> Operand {
        let lo = self.cmp(U, CompareOp::Eq, a.0, b.0);
        let hi = self.cmp(U, CompareOp::Eq, a.1, b.1);
        self.select(B, lo, hi, Operand::Const(0))
    }

    fn compare(&mut self, op: CompareOp, signed: bool, a: Words, b: Words) -> Operand {
        match op {
            CompareOp::Lt => self.less(signed, a, b, false),
            CompareOp::Le => self.less(signed, a, b, true),
            CompareOp::Gt => self.less(signed, b, a, false),
            CompareOp::Ge => self.less(signed, b, a, true),
            CompareOp::Eq => self.equal(a, b),
            CompareOp::Ne => {
                let e = self.equal(a, b);
                self.op(B, Op::Unary(UnaryOp::Not, B, e))
            }
        }
    }

    fn is_negative(&mut self, a: Words) -> Operand {
        let hi = self.as_i32(a.1);
        self.cmp(I, CompareOp::Lt, hi, Operand::Const(0))
    }

    /// `a << count`, `a >> count` (arithmetic with `signed`), by the count's low six bits.
    fn shift(&mut self, op: BinaryOp, signed: bool, a: Words, count: Operand) -> Words {
        let s = self.bin(U, BinaryOp::And, count, Operand::Const(63));
        let small = self.cmp(U, CompareOp::Lt, s, Operand::Const(32));
        let s31 = self.bin(U, BinaryOp::And, s, Operand::Const(31));
        let zero_shift = self.cmp(U, CompareOp::Eq, s31, Operand::Const(0));
        let back = self.bin(U, BinaryOp::Sub, Operand::Const(32), s31);
        if op == BinaryOp::Shl {
            let spill = self.bin(U, BinaryOp::Shr, a.0, back);
            let spill = self.select(U, zero_shift, Operand::Const(0), spill);
            let hi = self.bin(U, BinaryOp::Shl, a.1, s31);
            let hi_small = self.bin(U, BinaryOp::Or, hi, spill);
            let lo_small = self.bin(U, BinaryOp::Shl, a.0, s31);
            return self.select_words(small, (lo_small, hi_small), (Operand::Const(0), lo_small));
        }
        let spill = self.bin(U, BinaryOp::Shl, a.1, back);
        let spill = self.select(U, zero_shift, Operand::Const(0), spill);
        let lo = self.bin(U, BinaryOp::Shr, a.0, s31);
        let lo_small = self.bin(U, BinaryOp::Or, lo, spill);
        let (hi_shifted, fill) = if signed {
            let h = self.as_i32(a.1);
            let shifted = self.bin(I, BinaryOp::Shr, h, s31);
            let sign = self.bin(I, BinaryOp::Shr, h, Operand::Const(31));
            (self.as_u32(shifted), self.as_u32(sign))
        } else {
            (self.bin(U, BinaryOp::Shr, a.1, s31), Operand::Const(0))
        };
        self.select_words(small, (lo_small, hi_shifted), (hi_shifted, fill))
    }

    /// Unsigned `n / d` and `n % d`: a 32-bit division where both fit in 32 bits, else 64
    /// steps of restoring division, 8 to a trip of a loop (a driver may bound a loop's trips
    /// over all its entries: lavapipe's 65,535 would cut a one-step-a-trip division short in a
    /// loop of a thousand trips; unrolled whole, a division is a thousand statements of WGSL).
    /// The numerator shifts left as the remainder takes its top bit, and the quotient's bits
    /// fill it from the right.
    fn divide(&mut self, n: Words, d: Words) -> (Words, Words) {
        let r = |x: Reg| Operand::Reg(x);
        let (nl, nh, rl, rh) = (self.reg(U), self.reg(U), self.reg(U), self.reg(U));
        let either = self.bin(U, BinaryOp::Or, n.1, d.1);
        let small = self.cmp(U, CompareOp::Eq, either, Operand::Const(0));
        let fast = self.nested(|s| {
            s.set(nl, Op::Binary(BinaryOp::Div, U, n.0, d.0));
            s.set(rl, Op::Binary(BinaryOp::Rem, U, n.0, d.0));
            s.set(nh, Op::Copy(Operand::Const(0)));
            s.set(rh, Op::Copy(Operand::Const(0)));
        });
        let long = self.nested(|s| {
            s.set(nl, Op::Copy(n.0));
            s.set(nh, Op::Copy(n.1));
            s.set(rl, Op::Copy(Operand::Const(0)));
            s.set(rh, Op::Copy(Operand::Const(0)));
            let (top, carry, low, high, borrow) =
                (s.reg(U), s.reg(U), s.reg(U), s.reg(U), s.reg(U));
            let (above, level, low_fits, fits, under) =
                (s.reg(B), s.reg(B), s.reg(B), s.reg(B), s.reg(B));
            let shl = |x: Reg| Op::Binary(BinaryOp::Shl, U, r(x), Operand::Const(1));
            let top_bit = |x: Reg| Op::Binary(BinaryOp::Shr, U, r(x), Operand::Const(31));
            let or = |x: Reg, y: Reg| Op::Binary(BinaryOp::Or, U, r(x), r(y));
            let trips = s.reg(U);
            s.set(trips, Op::Copy(Operand::Const(8)));
            let body = s.nested(|s| {
                let done = s.cmp(U, CompareOp::Eq, r(trips), Operand::Const(0));
                s.emit(StmtKind::If {
                    condition: done,
                    then_block: vec![Stmt {
                        kind: StmtKind::Break,
                        span: s.span,
                        statement: s.statement,
                    }],
                    else_block: Vec::new(),
                });
                s.set(
                    trips,
                    Op::Binary(BinaryOp::Sub, U, r(trips), Operand::Const(1)),
                );
                for _ in 0..8 {
                    s.set(top, top_bit(nh));
                    s.set(carry, top_bit(nl));
                    s.set(nh, shl(nh));
                    s.set(nh, or(nh, carry));
                    s.set(nl, shl(nl));
                    s.set(carry, top_bit(rl));
                    s.set(rh, shl(rh));
                    s.set(rh, or(rh, carry));
                    s.set(rl, shl(rl));
                    s.set(rl, or(rl, top));
                    // r >= d, unsigned: the high words decide unless equal.
                    s.set(above, Op::Compare(CompareOp::Gt, U, r(rh), d.1));
                    s.set(level, Op::Compare(CompareOp::Eq, U, r(rh), d.1));
                    s.set(low_fits, Op::Compare(CompareOp::Ge, U, r(rl), d.0));
                    s.set(fits, Op::Select(r(level), r(low_fits), r(above)));
                    // r - d, kept where it fits.
                    s.set(low, Op::Binary(BinaryOp::Sub, U, r(rl), d.0));
                    s.set(under, Op::Compare(CompareOp::Lt, U, r(rl), d.0));
                    s.set(
                        borrow,
                        Op::Cast {
                            from: B,
                            to: U,
                            value: r(under),
                        },
                    );
                    s.set(high, Op::Binary(BinaryOp::Sub, U, r(rh), d.1));
                    s.set(high, Op::Binary(BinaryOp::Sub, U, r(high), r(borrow)));
                    s.set(rl, Op::Select(r(fits), r(low), r(rl)));
                    s.set(rh, Op::Select(r(fits), r(high), r(rh)));
                    s.set(
                        carry,
                        Op::Cast {
                            from: B,
                            to: U,
                            value: r(fits),
                        },
                    );
                    s.set(nl, or(nl, carry));
                }
            });
            s.emit(StmtKind::Loop {
                body,
                continuing: Vec::new(),
            });
        });
        self.emit(StmtKind::If {
            condition: small,
            then_block: fast,
            else_block: long,
        });
        ((r(nl), r(nh)), (r(rl), r(rh)))
    }

    fn abs(&mut self, a: Words) -> (Words, Operand) {
        let negative = self.is_negative(a);
        let negated = self.neg(a);
        (self.select_words(negative, negated, a), negative)
    }

    /// `a / b` or `a % b`, truncating toward zero when signed (the remainder takes the
    /// dividend's sign), wrapping `MIN / -1` to `MIN`.
    fn div_rem(&mut self, op: BinaryOp, signed: bool, a: Words, b: Words) -> Words {
        // A division by zero stops the simulator here, as a 32-bit one does: the dividend's
        // low word (its value, for one in 32 bits) divided by "the divisor is not 0".
        let either = self.bin(U, BinaryOp::Or, b.0, b.1);
        let nonzero = self.cmp(U, CompareOp::Ne, either, Operand::Const(0));
        let nonzero = self.bool_word(nonzero);
        if signed {
            let (low, flag) = (self.as_i32(a.0), self.as_i32(nonzero));
            self.bin(I, op, low, flag);
        } else {
            self.bin(U, op, a.0, nonzero);
        }
        if !signed {
            let (q, r) = self.divide(a, b);
            return if op == BinaryOp::Div { q } else { r };
        }
        let (ma, na) = self.abs(a);
        let (mb, nb) = self.abs(b);
        let (q, r) = self.divide(ma, mb);
        if op == BinaryOp::Div {
            let differ = self.op(B, Op::Compare(CompareOp::Ne, B, na, nb));
            let negated = self.neg(q);
            self.select_words(differ, negated, q)
        } else {
            let negated = self.neg(r);
            self.select_words(na, negated, r)
        }
    }

    fn binary(&mut self, op: BinaryOp, ty: Scalar, a: Words, b: Words) -> Words {
        let signed = ty == Scalar::I64;
        match op {
            BinaryOp::Add => self.add(a, b),
            BinaryOp::Sub => self.sub(a, b),
            BinaryOp::Mul => self.mul(a, b),
            BinaryOp::Div | BinaryOp::Rem => self.div_rem(op, signed, a, b),
            BinaryOp::Shl | BinaryOp::Shr => self.shift(op, signed, a, b.0),
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                (self.bin(U, op, a.0, b.0), self.bin(U, op, a.1, b.1))
            }
            BinaryOp::Min | BinaryOp::Max => {
                let less = self.less(signed, a, b, false);
                if op == BinaryOp::Min {
                    self.select_words(less, a, b)
                } else {
                    self.select_words(less, b, a)
                }
            }
        }
    }

    /// An `f32` to a 64-bit integer: toward zero, saturating, NaN 0 (PTX's `cvt.rzi`).
    fn float_to_wide(&mut self, to: Scalar, x: Operand) -> Words {
        let f = Scalar::F32;
        let fc = |v: f32| Operand::Const(v.to_bits());
        let t = self.op(f, Op::Math(MathFn::Trunc, f, x));
        let magnitude = self.op(f, Op::Math(MathFn::Abs, f, t));
        let high_f = self.bin(f, BinaryOp::Mul, magnitude, fc(2f32.powi(-32)));
        let high_f = self.op(f, Op::Math(MathFn::Trunc, f, high_f));
        let back = self.bin(f, BinaryOp::Mul, high_f, fc(2f32.powi(32)));
        let low_f = self.bin(f, BinaryOp::Sub, magnitude, back);
        let cast = |s: &mut Self, v: Operand| {
            s.op(
                U,
                Op::Cast {
                    from: f,
                    to: U,
                    value: v,
                },
            )
        };
        let m = (cast(self, low_f), cast(self, high_f));
        let negative = self.cmp(f, CompareOp::Lt, t, fc(0.0));
        let nan = self.cmp(f, CompareOp::Ne, x, x);
        let max = Operand::Const(u32::MAX);
        let zero = (Operand::Const(0), Operand::Const(0));
        let value = if to == Scalar::I64 {
            let too_big = self.cmp(f, CompareOp::Ge, magnitude, fc(2f32.powi(63)));
            let negated = self.neg(m);
            let signed = self.select_words(negative, negated, m);
            let limit = self.select_words(
                negative,
                (Operand::Const(0), Operand::Const(0x8000_0000)),
                (max, Operand::Const(0x7fff_ffff)),
            );
            self.select_words(too_big, limit, signed)
        } else {
            let too_big = self.cmp(f, CompareOp::Ge, magnitude, fc(2f32.powi(64)));
            let saturated = self.select_words(too_big, (max, max), m);
            self.select_words(negative, zero, saturated)
        };
        self.select_words(nan, zero, value)
    }

    /// A 64-bit integer to the nearest `f32` (ties to even), rounded once: its top 32
    /// significant bits with a sticky bit for the rest, converted, and scaled back.
    fn wide_to_float(&mut self, from: Scalar, a: Words) -> Operand {
        let f = Scalar::F32;
        let (m, negative) = if from == Scalar::I64 {
            self.abs(a)
        } else {
            (a, Operand::Const(0))
        };
        // s = the bit length of the high word (0 when it is 0), by halving.
        let mut h = m.1;
        let mut length = Operand::Const(0);
        for step in [16, 8, 4, 2, 1] {
            let limit = Operand::Const(1u32 << step);
            let above = self.cmp(U, CompareOp::Ge, h, limit);
            let shifted = self.bin(U, BinaryOp::Shr, h, Operand::Const(step));
            h = self.select(U, above, shifted, h);
            let added = self.bin(U, BinaryOp::Add, length, Operand::Const(step));
            length = self.select(U, above, added, length);
        }
        let nonzero = self.cmp(U, CompareOp::Ne, m.1, Operand::Const(0));
        let one_more = self.bin(U, BinaryOp::Add, length, Operand::Const(1));
        let s = self.select(U, nonzero, one_more, Operand::Const(0));
        // (m >> s) as a word, and whether a set bit was shifted out.
        let shifted = self.shift(BinaryOp::Shr, false, m, s);
        let back = self.shift(BinaryOp::Shl, false, shifted, s);
        let lost = self.bin(U, BinaryOp::Xor, back.0, m.0);
        let sticky = self.cmp(U, CompareOp::Ne, lost, Operand::Const(0));
        let sticky = self.bool_word(sticky);
        let word = self.bin(U, BinaryOp::Or, shifted.0, sticky);
        let value = self.op(
            f,
            Op::Cast {
                from: U,
                to: f,
                value: word,
            },
        );
        // 2^s, exactly: the exponent field of 127 + s.
        let exponent = self.bin(U, BinaryOp::Add, s, Operand::Const(127));
        let exponent = self.bin(U, BinaryOp::Shl, exponent, Operand::Const(23));
        let scale = self.op(
            f,
            Op::Bitcast {
                from: U,
                to: f,
                value: exponent,
            },
        );
        let value = self.bin(f, BinaryOp::Mul, value, scale);
        let negated = self.op(f, Op::Unary(UnaryOp::Neg, f, value));
        self.select(f, negative, negated, value)
    }

    fn cast(&mut self, from: Scalar, to: Scalar, value: Operand) -> Result<Words, Operand> {
        match (from, to) {
            (f, t) if f.is_wide() && t.is_wide() => Ok(self.words(value)),
            (Scalar::Bool, _) => Ok((self.bool_word(value), Operand::Const(0))),
            (Scalar::F32 | Scalar::F16, _) => Ok(self.float_to_wide(to, value)),
            (Scalar::I32 | Scalar::I8, _) => {
                let sign = self.bin(I, BinaryOp::Shr, value, Operand::Const(31));
                Ok((self.as_u32(value), self.as_u32(sign)))
            }
            (_, t) if t.is_wide() => Ok((value, Operand::Const(0))),
            // From a 64-bit integer.
            (_, Scalar::Bool) => {
                let a = self.words(value);
                let either = self.bin(U, BinaryOp::Or, a.0, a.1);
                Err(self.cmp(U, CompareOp::Ne, either, Operand::Const(0)))
            }
            (_, Scalar::F32 | Scalar::F16) => {
                let a = self.words(value);
                Err(self.wide_to_float(from, a))
            }
            // To 32 bits: the low word.
            (_, Scalar::I32 | Scalar::I8) => {
                let lo = self.words(value).0;
                Err(self.as_i32(lo))
            }
            _ => Err(self.words(value).0),
        }
    }

    /// A 64-bit tensor's (or array's) word `w` at `indices`: one more coordinate.
    fn word_indices(indices: &[Operand], w: u32) -> Vec<Operand> {
        let mut out = indices.to_vec();
        out.push(Operand::Const(w));
        out
    }

    /// A flat index into a split array: `2 index + w`.
    fn word_index(&mut self, index: Operand, w: u32) -> Operand {
        match index {
            Operand::Const(c) => Operand::Const(c.wrapping_mul(2).wrapping_add(w)),
            _ => {
                let twice = self.bin(I, BinaryOp::Mul, index, Operand::Const(2));
                self.bin(I, BinaryOp::Add, twice, Operand::Const(w))
            }
        }
    }

    fn wide_tensor(&self, tensor: usize) -> bool {
        self.kernel
            .params
            .get(tensor)
            .is_some_and(|p| p.element().is_wide())
    }

    fn wide_array(&self, array: usize) -> bool {
        self.kernel
            .locals
            .get(array)
            .is_some_and(|a| a.element.is_wide())
    }

    fn stmt(&mut self, stmt: &Stmt) {
        self.span = stmt.span;
        self.statement = stmt.statement;
        match &stmt.kind {
            StmtKind::Let { dst, op } => self.let_(*dst, op, stmt),
            StmtKind::Store {
                tensor,
                indices,
                value,
                guarded,
            } if self.wide_tensor(*tensor) => {
                let (lo, hi) = self.words(*value);
                for (w, v) in [(0, lo), (1, hi)] {
                    self.emit(StmtKind::Store {
                        tensor: *tensor,
                        indices: Self::word_indices(indices, w),
                        value: v,
                        guarded: *guarded,
                    });
                }
            }
            StmtKind::LocalStore {
                array,
                index,
                coordinates,
                value,
            } if self.wide_array(*array) => {
                let (lo, hi) = self.words(*value);
                for (w, v) in [(0, lo), (1, hi)] {
                    let index = self.word_index(*index, w);
                    self.emit(StmtKind::LocalStore {
                        array: *array,
                        index,
                        coordinates: Self::word_indices(coordinates, w),
                        value: v,
                    });
                }
            }
            // An `atomic_add` whose old value is dropped (the checker's rule): the low words by
            // one 32-bit atomic, then the high words and the carry out of the low word, which
            // that atomic's old value decides exactly. Whatever the order of the threads, each
            // carry is its own addition's, so the element ends as the exact 64-bit sum.
            StmtKind::Atomic(Atomic {
                op: AtomicOp::Add,
                ty,
                place: Place::Tensor { tensor, indices },
                value,
                ..
            }) if ty.is_wide() => {
                let (lo, hi) = self.words(*value);
                let old = self.reg(U);
                self.emit(StmtKind::Atomic(Atomic {
                    dst: Some(old),
                    op: AtomicOp::Add,
                    ty: U,
                    place: Place::Tensor {
                        tensor: *tensor,
                        indices: Self::word_indices(indices, 0),
                    },
                    value: lo,
                    expected: None,
                }));
                let sum = self.bin(U, BinaryOp::Add, Operand::Reg(old), lo);
                let carried = self.cmp(U, CompareOp::Lt, sum, Operand::Reg(old));
                let carry = self.bool_word(carried);
                let high = self.bin(U, BinaryOp::Add, hi, carry);
                self.emit(StmtKind::Atomic(Atomic {
                    dst: None,
                    op: AtomicOp::Add,
                    ty: U,
                    place: Place::Tensor {
                        tensor: *tensor,
                        indices: Self::word_indices(indices, 1),
                    },
                    value: high,
                    expected: None,
                }));
            }
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let then_block = self.block(then_block);
                let else_block = self.block(else_block);
                self.span = stmt.span;
                self.statement = stmt.statement;
                self.emit(StmtKind::If {
                    condition: *condition,
                    then_block,
                    else_block,
                });
            }
            StmtKind::Loop { body, continuing } => {
                let body = self.block(body);
                let continuing = self.block(continuing);
                self.span = stmt.span;
                self.statement = stmt.statement;
                self.emit(StmtKind::Loop { body, continuing });
            }
            other => self.emit(other.clone()),
        }
    }

    fn let_(&mut self, dst: Reg, op: &Op, stmt: &Stmt) {
        let wide_dst = self.wide_reg(dst);
        match op {
            Op::Const64(bits) => {
                let [lo, hi] = split_words(*bits);
                self.put(dst, (Operand::Const(lo), Operand::Const(hi)));
            }
            Op::Scalar(i) if wide_dst => {
                let w = (self.op(U, Op::Scalar(*i)), self.op(U, Op::ScalarHigh(*i)));
                self.put(dst, w);
            }
            Op::Copy(a) if wide_dst => {
                let w = self.words(*a);
                self.put(dst, w);
            }
            Op::Select(c, a, b) if wide_dst => {
                let (a, b) = (self.words(*a), self.words(*b));
                let w = self.select_words(*c, a, b);
                self.put(dst, w);
            }
            Op::Unary(u, t, a) if t.is_wide() => {
                let a = self.words(*a);
                let w = match u {
                    UnaryOp::BitNot => (
                        self.op(U, Op::Unary(UnaryOp::BitNot, U, a.0)),
                        self.op(U, Op::Unary(UnaryOp::BitNot, U, a.1)),
                    ),
                    _ => self.neg(a),
                };
                self.put(dst, w);
            }
            Op::Binary(b, t, x, y) if t.is_wide() => {
                let (x, y) = (self.words(*x), self.words(*y));
                let w = self.binary(*b, *t, x, y);
                self.put(dst, w);
            }
            Op::Compare(c, t, x, y) if t.is_wide() => {
                let (x, y) = (self.words(*x), self.words(*y));
                let r = self.compare(*c, *t == Scalar::I64, x, y);
                self.set(dst, Op::Copy(r));
            }
            Op::Math(MathFn::Abs, t, a) if t.is_wide() => {
                let a = self.words(*a);
                let w = if *t == Scalar::I64 { self.abs(a).0 } else { a };
                self.put(dst, w);
            }
            Op::Cast { from, to, value } if from.is_wide() || to.is_wide() => {
                match self.cast(*from, *to, *value) {
                    Ok(w) => self.put(dst, w),
                    Err(v) => self.set(dst, Op::Copy(v)),
                }
            }
            Op::Bitcast { to, value, .. } if to.is_wide() => {
                let w = self.words(*value);
                self.put(dst, w);
            }
            Op::Load {
                tensor,
                indices,
                guarded,
            } if self.wide_tensor(*tensor) => {
                let h = self.high_word(dst);
                for (w, r) in [(0, dst), (1, h)] {
                    self.set(
                        r,
                        Op::Load {
                            tensor: *tensor,
                            indices: Self::word_indices(indices, w),
                            guarded: *guarded,
                        },
                    );
                }
            }
            Op::LocalLoad {
                array,
                index,
                coordinates,
            } if self.wide_array(*array) => {
                let h = self.high_word(dst);
                for (w, r) in [(0, dst), (1, h)] {
                    let index = self.word_index(*index, w);
                    self.set(
                        r,
                        Op::LocalLoad {
                            array: *array,
                            index,
                            coordinates: Self::word_indices(coordinates, w),
                        },
                    );
                }
            }
            Op::Shuffle(kind, x, lane) if wide_dst => {
                let (lo, hi) = self.words(*x);
                let lo = self.op(U, Op::Shuffle(*kind, lo, *lane));
                let hi = self.op(U, Op::Shuffle(*kind, hi, *lane));
                self.put(dst, (lo, hi));
            }
            _ => self.emit(stmt.kind.clone()),
        }
    }
}
