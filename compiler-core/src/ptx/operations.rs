//! Operations: each IR `Op` as PTX instructions (arithmetic with `.rn` floats, division by a
//! power of two as a shift, math functions, casts, loads and stores).

use super::*;

/// The `k` of an integer division or remainder by the constant `2^k`.
pub(super) fn power_of_two_divisor(b: BinaryOp, t: Scalar, y: Operand) -> Option<u32> {
    let Operand::Const(bits) = y else { return None };
    let integer = matches!(t, Scalar::I32 | Scalar::U32);
    let positive = t == Scalar::U32 || (bits as i32) > 0;
    (matches!(b, BinaryOp::Div | BinaryOp::Rem) && integer && positive && bits.is_power_of_two())
        .then(|| bits.trailing_zeros())
}

impl<'a> Emitter<'a> {
    pub(super) fn op(&mut self, dst: Reg, op: &Op) {
        let d = self.reg(dst);
        let ty = self.ty(dst);
        match op {
            Op::Copy(a) => {
                let a = self.src(*a, ty);
                self.line(format!("mov.{} {d}, {a};", move_type(ty)), None);
            }
            Op::Const64(bits) => self.line(format!("mov.b64 {d}, {bits:#x};"), None),
            Op::Ctx(field) => {
                let value = match field {
                    CtxField::Thread => self.tid.clone(),
                    CtxField::Lane => self.lane.clone(),
                    CtxField::Warp => self.warp.clone(),
                    CtxField::Threads => self.kernel.threads.to_string(),
                    CtxField::Warps => self.kernel.threads.div_ceil(WARP).to_string(),
                    CtxField::Lanes => WARP.to_string(),
                    CtxField::TensorCores => u32::from(self.arch.has_mma()).to_string(),
                    CtxField::Block(a) => format!("%ctaid.{}", axis(*a)),
                    CtxField::Blocks(a) => format!("%nctaid.{}", axis(*a)),
                };
                self.line(format!("mov.u32 {d}, {value};"), None);
            }
            Op::Dim(i) => {
                let r = self.dims.get(*i).cloned().unwrap_or_default();
                self.line(format!("mov.u32 {d}, {r};"), None);
            }
            Op::Scalar(i) => {
                let r = self.params.get(*i).cloned().flatten().unwrap_or_default();
                let t = match ty {
                    Scalar::F32 => "f32",
                    t if t.is_wide() => "b64",
                    _ => "b32",
                };
                self.line(format!("mov.{t} {d}, {r};"), None);
            }
            Op::ScalarHigh(_) => unreachable!("a kernel split into words does not reach PTX"),
            Op::Unary(u, t, a) => {
                let a = self.src(*a, *t);
                let text = match (u, t) {
                    (UnaryOp::Neg, Scalar::F32) => format!("neg.f32 {d}, {a};"),
                    (UnaryOp::Neg, t) if t.is_wide() => format!("neg.s64 {d}, {a};"),
                    (UnaryOp::BitNot, t) if t.is_wide() => format!("not.b64 {d}, {a};"),
                    (UnaryOp::Neg, _) => format!("neg.s32 {d}, {a};"),
                    (UnaryOp::Not, _) => format!("not.pred {d}, {a};"),
                    (UnaryOp::BitNot, _) => format!("not.b32 {d}, {a};"),
                };
                self.line(text, None);
            }
            Op::Binary(b, t, x, y) => self.binary(&d, *b, *t, *x, *y),
            Op::Compare(c, t, x, y) => {
                let x = self.in_reg(*x, *t);
                let y = self.src(*y, *t);
                if *t == Scalar::Bool {
                    self.line(format!("xor.pred {d}, {x}, {y};"), None);
                    if *c == CompareOp::Eq {
                        self.line(format!("not.pred {d}, {d};"), None);
                    }
                    return;
                }
                let name = match c {
                    CompareOp::Lt => "lt",
                    CompareOp::Le => "le",
                    CompareOp::Gt => "gt",
                    CompareOp::Ge => "ge",
                    CompareOp::Eq => "eq",
                    // Unordered: NaN != NaN holds, as in the simulator.
                    CompareOp::Ne if *t == Scalar::F32 => "neu",
                    CompareOp::Ne => "ne",
                };
                self.line(format!("setp.{name}.{} {d}, {x}, {y};", suffix(*t)), None);
            }
            Op::Select(c, a, b) => {
                let p = self.src(*c, Scalar::Bool);
                if ty == Scalar::Bool {
                    let (a, b) = (self.src(*a, ty), self.src(*b, ty));
                    let t = self.temp(Kind::Pred);
                    self.line(format!("and.pred {t}, {p}, {a};"), None);
                    self.line(format!("not.pred {d}, {p};"), None);
                    self.line(format!("and.pred {d}, {d}, {b};"), None);
                    self.line(format!("or.pred {d}, {d}, {t};"), None);
                } else {
                    let (a, b) = (self.src(*a, ty), self.src(*b, ty));
                    self.line(format!("selp.{} {d}, {a}, {b}, {p};", move_type(ty)), None);
                }
            }
            Op::Fma(a, b, c) => {
                let a = self.in_reg(*a, Scalar::F32);
                let (b, c) = (self.src(*b, Scalar::F32), self.src(*c, Scalar::F32));
                self.line(format!("fma.rn.f32 {d}, {a}, {b}, {c};"), None);
            }
            Op::Math(f, t, a) => self.math(&d, *f, *t, *a),
            Op::Pow(x, y) => self.pow(&d, *x, *y),
            Op::Cast { from, to, value } => self.cast(&d, *from, *to, *value),
            Op::Bitcast { to, value, .. } if to.is_wide() => {
                let a = self.src(*value, *to);
                self.line(format!("mov.b64 {d}, {a};"), None);
            }
            Op::Bitcast { value, .. } => {
                // The same 32 bits: `mov.b32` moves between registers of any 32-bit type, and
                // a constant is its bits.
                let a = match value {
                    Operand::Reg(r) => self.reg(*r),
                    Operand::Const(bits) => format!("0x{bits:08X}"),
                };
                self.line(format!("mov.b32 {d}, {a};"), None);
            }
            Op::Load {
                tensor,
                indices,
                guarded,
            } => {
                let element = self.element_type(*tensor);
                let (address, inside) = self.address(*tensor, indices, *guarded);
                if inside.is_some() {
                    self.line(
                        format!("mov.{} {d}, {};", suffix_b(element), immediate(0, element)),
                        None,
                    );
                }
                self.load(&d, "global", element, &address, inside.as_deref());
            }
            Op::LocalLoad { array, index, .. } => self.local_load(&d, *array, *index),
            Op::SharedLoad { array, indices } => {
                let element = self.kernel.shared[*array].element;
                let address = self.shared_address(*array, indices);
                self.load(&d, "shared", element, &address, None);
            }
            Op::Reduce(r, over, t, a) => self.reduce(&d, *r, *over, *t, *a),
            Op::Vote(v, a) => {
                let p = self.src(*a, Scalar::Bool);
                let mask = self.mask.clone();
                match v {
                    Vote::Any => self.line(format!("vote.sync.any.pred {d}, {p}, {mask};"), None),
                    Vote::All => self.line(format!("vote.sync.all.pred {d}, {p}, {mask};"), None),
                    Vote::Ballot => {
                        self.line(format!("vote.sync.ballot.b32 {d}, {p}, {mask};"), None)
                    }
                }
            }
            Op::PrefixSum(t, a) => {
                let a = self.src(*a, *t);
                let kind = if *t == Scalar::F32 { "f32" } else { "b32" };
                self.line(format!("mov.{kind} {d}, {a};"), None);
                let mask = self.mask.clone();
                let mut distance = 1;
                while distance < WARP {
                    let shifted = self.temp(kind_of(*t));
                    let from_below = self.temp(Kind::Pred);
                    self.line(
                        format!(
                            "shfl.sync.up.b32 {shifted}|{from_below}, {d}, {distance}, 0, {mask};"
                        ),
                        None,
                    );
                    let add = if *t == Scalar::F32 {
                        "add.rn.f32"
                    } else {
                        "add.s32"
                    };
                    self.line(format!("@{from_below} {add} {d}, {shifted}, {d};"), None);
                    distance *= 2;
                }
            }
            Op::Shuffle(kind, x, l) => self.shuffle(&d, ty, *kind, *x, *l),
        }
    }

    pub(super) fn binary(&mut self, d: &str, b: BinaryOp, t: Scalar, x: Operand, y: Operand) {
        if let Some(shift) = power_of_two_divisor(b, t, y) {
            let x = self.in_reg(x, t);
            return self.divide_by_power_of_two(d, b, t, &x, shift);
        }
        let x = self.in_reg(x, t);
        let count = y;
        let y = self.src(y, t);
        let s = suffix(t);
        let float = t == Scalar::F32;
        let text = match b {
            // `.rn` keeps ptxas from contracting into FMA: results match the simulator.
            BinaryOp::Add if float => format!("add.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Sub if float => format!("sub.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Mul if float => format!("mul.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Div if float => format!("div.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Rem if float => {
                // x - trunc(x / y) * y, as C's fmodf for the values kernels use.
                let q = self.temp(Kind::F32);
                self.line(format!("div.rn.f32 {q}, {x}, {y};"), None);
                self.line(format!("cvt.rzi.f32.f32 {q}, {q};"), None);
                self.line(format!("neg.f32 {q}, {q};"), None);
                format!("fma.rn.f32 {d}, {q}, {y}, {x};")
            }
            BinaryOp::Min => format!("min.{s} {d}, {x}, {y};"),
            BinaryOp::Max => format!("max.{s} {d}, {x}, {y};"),
            BinaryOp::Add => format!("add.{s} {d}, {x}, {y};"),
            BinaryOp::Sub => format!("sub.{s} {d}, {x}, {y};"),
            BinaryOp::Mul => format!("mul.lo.{s} {d}, {x}, {y};"),
            BinaryOp::Div => format!("div.{s} {d}, {x}, {y};"),
            BinaryOp::Rem => format!("rem.{s} {d}, {x}, {y};"),
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                let name = format!("{b:?}").to_lowercase();
                let bits = if t.is_wide() { 64 } else { 32 };
                format!("{name}.b{bits} {d}, {x}, {y};")
            }
            BinaryOp::Shl | BinaryOp::Shr if t.is_wide() => {
                // The count's low 6 bits (PTX would clamp larger counts), as a `.u32`.
                let low = self.temp(Kind::B32);
                match count {
                    Operand::Const(n) => self.line(format!("mov.b32 {low}, {};", n & 63), None),
                    Operand::Reg(_) => {
                        self.line(format!("cvt.u32.u64 {low}, {y};"), None);
                        self.line(format!("and.b32 {low}, {low}, 63;"), None);
                    }
                }
                let count = low;
                let op = match (b, t) {
                    (BinaryOp::Shl, _) => "shl.b64",
                    (_, Scalar::I64) => "shr.s64",
                    _ => "shr.u64",
                };
                format!("{op} {d}, {x}, {count};")
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                // Tessera shifts by the count's low 5 bits; PTX would clamp larger counts. A
                // constant count is masked here.
                let count = match count {
                    Operand::Const(n) => (n & 31).to_string(),
                    Operand::Reg(_) => {
                        let masked = self.temp(Kind::B32);
                        self.line(format!("and.b32 {masked}, {y}, 31;"), None);
                        masked
                    }
                };
                let op = match (b, t) {
                    (BinaryOp::Shl, _) => "shl.b32",
                    (_, Scalar::I32) => "shr.s32",
                    _ => "shr.u32",
                };
                format!("{op} {d}, {x}, {count};")
            }
        };
        self.line(text, None);
    }

    /// `x / 2^shift` or `x % 2^shift` with shifts: ptxas divides by a constant in a register
    /// the long way (a reciprocal and corrections), where nvcc's front end would have shifted.
    /// Signed division truncates toward zero, so a negative `x` is biased by `2^shift - 1` first.
    pub(super) fn divide_by_power_of_two(
        &mut self,
        d: &str,
        b: BinaryOp,
        t: Scalar,
        x: &str,
        shift: u32,
    ) {
        let mask = (1u32 << shift) - 1;
        if t == Scalar::U32 {
            let text = if b == BinaryOp::Div {
                format!("shr.u32 {d}, {x}, {shift};")
            } else {
                format!("and.b32 {d}, {x}, {mask};")
            };
            return self.line(text, None);
        }
        if shift == 0 {
            let value = if b == BinaryOp::Div { x } else { "0" };
            return self.line(format!("mov.b32 {d}, {value};"), None);
        }
        let biased = self.temp(Kind::B32);
        self.line(format!("shr.s32 {biased}, {x}, 31;"), None);
        self.line(format!("shr.u32 {biased}, {biased}, {};", 32 - shift), None);
        self.line(format!("add.s32 {biased}, {x}, {biased};"), None);
        if b == BinaryOp::Div {
            self.line(format!("shr.s32 {d}, {biased}, {shift};"), None);
        } else {
            self.line(format!("and.b32 {biased}, {biased}, {};", !mask), None);
            self.line(format!("sub.s32 {d}, {x}, {biased};"), None);
        }
    }

    pub(super) fn math(&mut self, d: &str, f: MathFn, t: Scalar, a: Operand) {
        if matches!(f, MathFn::Sign | MathFn::Erf) {
            let x = self.in_reg(a, t);
            return match f {
                MathFn::Sign => self.sign(d, t, &x),
                _ => self.erf(d, &x),
            };
        }
        let a = self.src(a, t);
        if t != Scalar::F32 {
            let text = match (f, t) {
                (MathFn::Abs, Scalar::I32) => format!("abs.s32 {d}, {a};"),
                (MathFn::Abs, Scalar::I64) => format!("abs.s64 {d}, {a};"),
                (_, t) if t.is_wide() => format!("mov.b64 {d}, {a};"),
                _ => format!("mov.b32 {d}, {a};"),
            };
            self.line(text, None);
            return;
        }
        const LOG2_E: &str = "0f3FB8AA3B";
        const LN_2: &str = "0f3F317218";
        match f {
            MathFn::Abs => self.line(format!("abs.f32 {d}, {a};"), None),
            MathFn::Sqrt => self.line(format!("sqrt.rn.f32 {d}, {a};"), None),
            MathFn::Rsqrt => self.line(format!("rsqrt.approx.f32 {d}, {a};"), None),
            MathFn::Exp => {
                self.line(format!("mul.rn.f32 {d}, {a}, {LOG2_E};"), None);
                self.line(format!("ex2.approx.f32 {d}, {d};"), None);
            }
            MathFn::Exp2 => self.line(format!("ex2.approx.f32 {d}, {a};"), None),
            MathFn::Log => {
                self.line(format!("lg2.approx.f32 {d}, {a};"), None);
                self.line(format!("mul.rn.f32 {d}, {d}, {LN_2};"), None);
            }
            MathFn::Log2 => self.line(format!("lg2.approx.f32 {d}, {a};"), None),
            MathFn::Sin => self.line(format!("sin.approx.f32 {d}, {a};"), None),
            MathFn::Cos => self.line(format!("cos.approx.f32 {d}, {a};"), None),
            MathFn::Tanh => {
                // tanh(x) = 1 - 2 / (2^(2x log2 e) + 1) loses small x (tanh(1e-8) would be 0,
                // tanh(-0) +0); below |x| = 1/8 the series x (1 - x^2/3 + 2x^4/15), within
                // 2 ulp there, keeps them and the sign of zero. tanh.approx needs sm_75.
                let x = if a.starts_with('%') {
                    a
                } else {
                    let r = self.temp(Kind::F32);
                    self.line(format!("mov.f32 {r}, {a};"), None);
                    r
                };
                let (magnitude, small) = (self.temp(Kind::F32), self.temp(Kind::Pred));
                self.line(format!("abs.f32 {magnitude}, {x};"), None);
                self.line(
                    format!("setp.lt.f32 {small}, {magnitude}, 0f3E000000;"),
                    None,
                );
                let (square, series) = (self.temp(Kind::F32), self.temp(Kind::F32));
                self.line(format!("mul.rn.f32 {square}, {x}, {x};"), None);
                self.line(
                    format!("fma.rn.f32 {series}, {square}, 0f3E088889, 0fBEAAAAAB;"),
                    None,
                );
                self.line(
                    format!("fma.rn.f32 {series}, {series}, {square}, 0f3F800000;"),
                    None,
                );
                self.line(format!("mul.rn.f32 {series}, {series}, {x};"), None);
                let e = self.temp(Kind::F32);
                self.line(format!("mul.rn.f32 {e}, {x}, 0f4038AA3B;"), None);
                self.line(format!("ex2.approx.f32 {e}, {e};"), None);
                self.line(format!("add.rn.f32 {e}, {e}, 0f3F800000;"), None);
                self.line(format!("div.rn.f32 {e}, 0f40000000, {e};"), None);
                self.line(format!("sub.rn.f32 {e}, 0f3F800000, {e};"), None);
                self.line(format!("selp.f32 {d}, {series}, {e}, {small};"), None);
            }
            MathFn::Floor => self.line(format!("cvt.rmi.f32.f32 {d}, {a};"), None),
            MathFn::Ceil => self.line(format!("cvt.rpi.f32.f32 {d}, {a};"), None),
            MathFn::Round => self.line(format!("cvt.rni.f32.f32 {d}, {a};"), None),
            MathFn::Trunc => self.line(format!("cvt.rzi.f32.f32 {d}, {a};"), None),
            MathFn::Sign | MathFn::Erf => unreachable!("written above"),
        }
    }

    /// -1, 0 or 1 by comparisons; a float's zeros give +0 and NaN stays NaN (the simulator's
    /// `sign`).
    fn sign(&mut self, d: &str, t: Scalar, x: &str) {
        let (above, below) = (self.temp(Kind::Pred), self.temp(Kind::Pred));
        match t {
            Scalar::F32 => {
                let zero = self.temp(Kind::Pred);
                self.line(format!("setp.gt.f32 {above}, {x}, 0f00000000;"), None);
                self.line(format!("setp.lt.f32 {below}, {x}, 0f00000000;"), None);
                self.line(format!("setp.eq.f32 {zero}, {x}, 0f00000000;"), None);
                self.line(format!("selp.f32 {d}, 0f00000000, {x}, {zero};"), None);
                self.line(format!("selp.f32 {d}, 0fBF800000, {d}, {below};"), None);
                self.line(format!("selp.f32 {d}, 0f3F800000, {d}, {above};"), None);
            }
            Scalar::I32 => {
                self.line(format!("setp.gt.s32 {above}, {x}, 0;"), None);
                self.line(format!("setp.lt.s32 {below}, {x}, 0;"), None);
                self.line(format!("selp.b32 {d}, -1, 0, {below};"), None);
                self.line(format!("selp.b32 {d}, 1, {d}, {above};"), None);
            }
            _ => {
                self.line(format!("setp.ne.u32 {above}, {x}, 0;"), None);
                self.line(format!("selp.b32 {d}, 1, 0, {above};"), None);
            }
        }
    }

    /// The simulator's `erf` (`sim::ERF_*`), both branches computed and one selected, with
    /// `exp` as `ex2.approx` of `x · log2 e`.
    fn erf(&mut self, d: &str, x: &str) {
        use crate::sim::{ERF_LARGE, ERF_SMALL, ERF_SPLIT};
        let c = |v: f32| format!("0f{:08X}", v.to_bits());
        let (t, s) = (self.temp(Kind::F32), self.temp(Kind::F32));
        self.line(format!("abs.f32 {t}, {x};"), None);
        self.line(format!("mul.rn.f32 {s}, {x}, {x};"), None);
        let [a, b, c0, d0, e, f, g] = ERF_LARGE;
        let (r, u) = (self.temp(Kind::F32), self.temp(Kind::F32));
        self.line(format!("fma.rn.f32 {r}, {t}, {}, {};", c(a), c(b)), None);
        self.line(format!("fma.rn.f32 {u}, {t}, {}, {};", c(c0), c(d0)), None);
        self.line(format!("fma.rn.f32 {r}, {r}, {s}, {u};"), None);
        for k in [e, f, g] {
            self.line(format!("fma.rn.f32 {r}, {r}, {t}, {};", c(k)), None);
        }
        self.line(format!("neg.f32 {u}, {t};"), None);
        self.line(format!("fma.rn.f32 {r}, {r}, {t}, {u};"), None);
        self.line(format!("mul.rn.f32 {r}, {r}, 0f3FB8AA3B;"), None);
        self.line(format!("ex2.approx.f32 {r}, {r};"), None);
        self.line(format!("sub.rn.f32 {r}, 0f3F800000, {r};"), None);
        let negative = self.temp(Kind::Pred);
        self.line(format!("setp.lt.f32 {negative}, {x}, 0f00000000;"), None);
        self.line(format!("neg.f32 {u}, {r};"), None);
        self.line(format!("selp.f32 {r}, {u}, {r}, {negative};"), None);
        let q = self.temp(Kind::F32);
        self.line(
            format!(
                "fma.rn.f32 {q}, {s}, {}, {};",
                c(ERF_SMALL[0]),
                c(ERF_SMALL[1])
            ),
            None,
        );
        for k in &ERF_SMALL[2..] {
            self.line(format!("fma.rn.f32 {q}, {q}, {s}, {};", c(*k)), None);
        }
        self.line(format!("fma.rn.f32 {q}, {q}, {x}, {x};"), None);
        let large = self.temp(Kind::Pred);
        self.line(format!("setp.gt.f32 {large}, {t}, {};", c(ERF_SPLIT)), None);
        self.line(format!("selp.f32 {d}, {r}, {q}, {large};"), None);
    }

    /// `pow(x, y)` as 2^(y · log2 |x|) with `ex2.approx` and `lg2.approx`, then the cases the
    /// simulator's `powf` settles: a negative `x` gives NaN for a `y` that is not whole and the
    /// negated power for an odd one; `y = 0` or `x = 1` gives 1 (NaN included).
    fn pow(&mut self, d: &str, x: Operand, y: Operand) {
        let (x, y) = (self.in_reg(x, Scalar::F32), self.in_reg(y, Scalar::F32));
        let (r, w, h) = (
            self.temp(Kind::F32),
            self.temp(Kind::F32),
            self.temp(Kind::F32),
        );
        self.line(format!("abs.f32 {r}, {x};"), None);
        self.line(format!("lg2.approx.f32 {r}, {r};"), None);
        self.line(format!("mul.rn.f32 {r}, {r}, {y};"), None);
        self.line(format!("ex2.approx.f32 {r}, {r};"), None);
        let (fraction, odd) = (self.temp(Kind::Pred), self.temp(Kind::Pred));
        self.line(format!("cvt.rzi.f32.f32 {w}, {y};"), None);
        self.line(format!("setp.neu.f32 {fraction}, {w}, {y};"), None);
        self.line(format!("mul.rn.f32 {h}, {y}, 0f3F000000;"), None);
        self.line(format!("cvt.rzi.f32.f32 {w}, {h};"), None);
        self.line(format!("setp.neu.f32 {odd}, {w}, {h};"), None);
        self.line(format!("neg.f32 {w}, {r};"), None);
        self.line(format!("selp.f32 {w}, {w}, {r}, {odd};"), None);
        self.line(format!("selp.f32 {w}, 0f7FFFFFFF, {w}, {fraction};"), None);
        let (negative, one) = (self.temp(Kind::Pred), self.temp(Kind::Pred));
        self.line(format!("setp.lt.f32 {negative}, {x}, 0f00000000;"), None);
        self.line(format!("selp.f32 {r}, {w}, {r}, {negative};"), None);
        self.line(format!("setp.eq.f32 {one}, {y}, 0f00000000;"), None);
        self.line(
            format!("setp.eq.or.f32 {one}, {x}, 0f3F800000, {one};"),
            None,
        );
        self.line(format!("selp.f32 {d}, 0f3F800000, {r}, {one};"), None);
    }

    pub(super) fn cast(&mut self, d: &str, from: Scalar, to: Scalar, value: Operand) {
        let v = self.src(value, from);
        // An `f16` register holds its value as an `f32`: the one cast to or from `f16` left
        // (`ir::half`) is the rounding of an `f32` to an `f16`.
        if to == Scalar::F16 && from == Scalar::F32 {
            let h = self.temp(Kind::B16);
            let v = self.in_reg(value, from);
            self.line(format!("cvt.rn.f16.f32 {h}, {v};"), None);
            self.line(format!("cvt.f32.f16 {d}, {h};"), None);
            return;
        }
        let text = match (from, to) {
            (Scalar::Bool, t) if t.is_wide() => format!("selp.b64 {d}, 1, 0, {v};"),
            (f, Scalar::Bool) if f.is_wide() => format!("setp.ne.b64 {d}, {v}, 0;"),
            (f, t) if f.is_wide() && t.is_wide() => format!("mov.b64 {d}, {v};"),
            (Scalar::F32 | Scalar::F16, t) if t.is_wide() => {
                format!("cvt.rzi.{}.f32 {d}, {v};", suffix(t))
            }
            (f, t) if t.is_wide() => format!("cvt.{}.{} {d}, {v};", suffix(t), suffix(f)),
            (f, Scalar::F32) if f.is_wide() => format!("cvt.rn.f32.{} {d}, {v};", suffix(f)),
            // To 32 bits: the low word, as C's conversions wrap.
            (f, _) if f.is_wide() => format!("cvt.u32.u64 {d}, {v};"),
            (Scalar::Bool, Scalar::F32) => format!("selp.f32 {d}, 0f3F800000, 0f00000000, {v};"),
            (Scalar::Bool, Scalar::Bool) => format!("mov.pred {d}, {v};"),
            (Scalar::Bool, _) => format!("selp.u32 {d}, 1, 0, {v};"),
            (_, Scalar::Bool) => format!("setp.ne.b32 {d}, {v}, 0;"),
            (Scalar::F32, Scalar::F32) => format!("mov.f32 {d}, {v};"),
            // Saturating, and NaN gives 0, as in the simulator.
            (Scalar::F32, Scalar::I32) => format!("cvt.rzi.sat.s32.f32 {d}, {v};"),
            (Scalar::F32, _) => format!("cvt.rzi.sat.u32.f32 {d}, {v};"),
            (Scalar::I32, Scalar::F32) => format!("cvt.rn.f32.s32 {d}, {v};"),
            (_, Scalar::F32) => format!("cvt.rn.f32.u32 {d}, {v};"),
            _ => format!("mov.b32 {d}, {v};"),
        };
        self.line(text, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the straight-line integer PTX that `divide_by_power_of_two` writes, register by
    /// register, so the shift sequences are checked against Rust's `/` and `%` without a GPU.
    fn run_lines(lines: &[(String, Option<Span>)], x: u32) -> u32 {
        let mut regs = std::collections::HashMap::from([("%x".to_string(), x)]);
        let value = |regs: &std::collections::HashMap<String, u32>, s: &str| {
            regs.get(s)
                .copied()
                .unwrap_or_else(|| s.parse::<i64>().map_or(0, |v| v as u32))
        };
        for (line, _) in lines {
            let line = line.trim().trim_end_matches(';');
            let (op, args) = line.split_once(' ').unwrap_or((line, ""));
            let args: Vec<&str> = args.split(", ").collect();
            let a = value(&regs, args[1]);
            let b = args.get(2).map_or(0, |s| value(&regs, s));
            let result = match op {
                "mov.b32" => a,
                "shr.s32" => ((a as i32) >> b) as u32,
                "shr.u32" => a >> b,
                "add.s32" => a.wrapping_add(b),
                "sub.s32" => a.wrapping_sub(b),
                "and.b32" => a & b,
                other => panic!("unexpected instruction {other}"),
            };
            regs.insert(args[0].to_string(), result);
        }
        regs["%d"]
    }

    /// A kernel with nothing in it, to emit single operations with.
    fn empty_kernel() -> Kernel {
        Kernel {
            name: "k".into(),
            threads: 32,
            params: Vec::new(),
            dims: Vec::new(),
            derived: Vec::new(),
            regs: Vec::new(),
            shared: Vec::new(),
            locals: Vec::new(),
            body: Vec::new(),
            span: Span { start: 0, end: 0 },
            cluster: None,
            matrix: None,
            mma: None,
        }
    }

    fn shifted(b: BinaryOp, t: Scalar, divisor: u32, x: u32) -> u32 {
        let source = "kernel k() {}";
        let kernel = empty_kernel();
        let mut emitter = Emitter::new(&kernel, source, Arch::Sm70);
        let shift = power_of_two_divisor(b, t, Operand::Const(divisor));
        emitter.divide_by_power_of_two("%d", b, t, "%x", shift.unwrap_or(99));
        run_lines(&emitter.lines, x)
    }

    #[test]
    fn division_by_a_power_of_two_truncates_toward_zero_like_the_simulator() {
        let samples = [
            0,
            1,
            5,
            31,
            32,
            33,
            1000,
            -1,
            -5,
            -31,
            -32,
            -33,
            -1000,
            i32::MAX,
            i32::MIN,
        ];
        for shift in [0, 1, 5, 30] {
            let divisor = 1i32 << shift;
            for x in samples {
                let (q, r) = (x / divisor, x % divisor);
                let div = shifted(BinaryOp::Div, Scalar::I32, divisor as u32, x as u32);
                let rem = shifted(BinaryOp::Rem, Scalar::I32, divisor as u32, x as u32);
                assert_eq!((div as i32, rem as i32), (q, r), "{x} by {divisor}");
                let (ux, ud) = (x as u32, divisor as u32);
                assert_eq!(shifted(BinaryOp::Div, Scalar::U32, ud, ux), ux / ud);
                assert_eq!(shifted(BinaryOp::Rem, Scalar::U32, ud, ux), ux % ud);
            }
        }
    }

    #[test]
    fn only_positive_powers_of_two_become_shifts() {
        let divisor = |bits: u32, t| power_of_two_divisor(BinaryOp::Div, t, Operand::Const(bits));
        assert_eq!(divisor(32, Scalar::I32), Some(5));
        assert_eq!(divisor(1 << 31, Scalar::U32), Some(31));
        assert_eq!(divisor(1 << 31, Scalar::I32), None, "i32::MIN is negative");
        assert_eq!(divisor(24, Scalar::I32), None);
        assert_eq!(divisor(0, Scalar::U32), None);
        assert_eq!(divisor(32, Scalar::F32), None);
        let add = power_of_two_divisor(BinaryOp::Add, Scalar::I32, Operand::Const(32));
        assert_eq!(add, None);
    }

    /// Runs the float instructions the `tanh` lowering emits, as the GPU would (`ex2.approx`
    /// taken as exact).
    fn run_float_lines(lines: &[(String, Option<Span>)]) -> f32 {
        let mut regs: std::collections::HashMap<String, f32> = Default::default();
        let value =
            |regs: &std::collections::HashMap<String, f32>, s: &str| match s.strip_prefix("0f") {
                Some(hex) => f32::from_bits(u32::from_str_radix(hex, 16).unwrap_or(0)),
                None => regs.get(s).copied().unwrap_or(f32::NAN),
            };
        for (line, _) in lines {
            let line = line.trim().trim_end_matches(';');
            let (op, args) = line.split_once(' ').unwrap_or((line, ""));
            let args: Vec<&str> = args.split(", ").collect();
            let v = |i: usize| value(&regs, args[i]);
            let result = match op {
                "mov.f32" => v(1),
                "abs.f32" => v(1).abs(),
                "setp.lt.f32" => f32::from(u8::from(v(1) < v(2))),
                "mul.rn.f32" => v(1) * v(2),
                "add.rn.f32" => v(1) + v(2),
                "sub.rn.f32" => v(1) - v(2),
                "div.rn.f32" => v(1) / v(2),
                "fma.rn.f32" => v(1).mul_add(v(2), v(3)),
                "ex2.approx.f32" => v(1).exp2(),
                "selp.f32" => {
                    if v(3) != 0.0 {
                        v(1)
                    } else {
                        v(2)
                    }
                }
                other => panic!("unexpected instruction {other}"),
            };
            regs.insert(args[0].to_string(), result);
        }
        regs["%d"]
    }

    fn tanh_on_the_gpu(x: f32) -> f32 {
        let kernel = empty_kernel();
        let mut emitter = Emitter::new(&kernel, "kernel k() {}", Arch::Sm70);
        emitter.math("%d", MathFn::Tanh, Scalar::F32, Operand::Const(x.to_bits()));
        run_float_lines(&emitter.lines)
    }

    #[test]
    fn tanh_keeps_small_arguments_and_the_sign_of_zero() {
        assert_eq!(tanh_on_the_gpu(0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(tanh_on_the_gpu(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tanh_on_the_gpu(1e-8), 1e-8);
        assert_eq!(tanh_on_the_gpu(-1e-8), -1e-8);
        for x in [
            0.01f32, 0.1, 0.124, 0.125, 0.2, 0.5, 1.0, 3.0, 9.0, 20.0, 100.0,
        ] {
            for x in [x, -x] {
                let (got, want) = (f64::from(tanh_on_the_gpu(x)), f64::from(x).tanh());
                assert!(
                    (got - want).abs() <= 2e-6 * want.abs(),
                    "tanh({x}) = {got}, not {want}"
                );
            }
        }
    }
}
