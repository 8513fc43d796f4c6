//! The IR's vocabulary: element types and the `ctx` fields. The front end produces these
//! values (the parser reads `ctx` paths into [`CtxField`], the checker types names with
//! [`Scalar`]), the IR carries them, and the simulator and the backends consume them.
//!
//! Invariant: a leaf module. It depends on nothing else in the crate, so every phase can name
//! these types without reaching into another phase.
//!
//! It is also the one place that converts between a number and an element's bits
//! ([`Scalar::bits`], [`Scalar::value`]): launch inputs and scalars, literals in the IR, and
//! the values the playground and the CLI print all go through it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scalar {
    Bool,
    I32,
    U32,
    F32,
    F16,
    /// 8-bit integers: only a tensor's element type. A load widens one to `i32` (`u32`), a store
    /// keeps a value's low byte: in registers, and in a tensor's `bits`, an element is the
    /// widened value.
    I8,
    U8,
    /// 64-bit integers. The simulator and WGSL hold one as two `u32` words, low word first
    /// (the layout of an `.npy` `<i8` and of CUDA's memory), after `ir::wide` splits the
    /// kernel; PTX computes on it natively (`.s64`, `.u64`).
    I64,
    U64,
}

impl Scalar {
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "i32" => Scalar::I32,
            "u32" => Scalar::U32,
            "f32" => Scalar::F32,
            "f16" => Scalar::F16,
            "i64" => Scalar::I64,
            "u64" => Scalar::U64,
            _ => return None,
        })
    }

    /// A tensor's element type: a scalar type, or `i8` and `u8`.
    pub fn element_from_name(name: &str) -> Option<Scalar> {
        match name {
            "i8" => Some(Scalar::I8),
            "u8" => Some(Scalar::U8),
            _ => Scalar::from_name(name),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::F32 => "f32",
            Scalar::F16 => "f16",
            Scalar::I8 => "i8",
            Scalar::U8 => "u8",
            Scalar::I64 => "i64",
            Scalar::U64 => "u64",
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Scalar::I32 | Scalar::U32 | Scalar::I8 | Scalar::U8 | Scalar::I64 | Scalar::U64
        )
    }

    /// A 64-bit integer: two 32-bit words wherever the IR's operands are words.
    pub fn is_wide(self) -> bool {
        matches!(self, Scalar::I64 | Scalar::U64)
    }

    /// The 32-bit words an element takes in a tensor's `bits` (2 for a 64-bit integer).
    pub fn words(self) -> usize {
        if self.is_wide() {
            2
        } else {
            1
        }
    }

    /// The type an element of this type has in registers: `i32` for `i8`, `u32` for `u8`,
    /// itself for the others.
    pub fn widened(self) -> Scalar {
        match self {
            Scalar::I8 => Scalar::I32,
            Scalar::U8 => Scalar::U32,
            other => other,
        }
    }

    /// The bits an element of this type keeps of a value (of its widened type) stored into it:
    /// an 8-bit element its low byte (sign-extended for `i8`, as C's conversions wrap); every
    /// other element the value itself.
    pub fn narrow(self, bits: u32) -> u32 {
        match self {
            Scalar::I8 => i32::from(bits as u8 as i8) as u32,
            Scalar::U8 => bits & 0xff,
            _ => bits,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F16)
    }

    pub fn is_numeric(self) -> bool {
        self != Scalar::Bool
    }

    /// Bytes per element in memory.
    pub fn size(self) -> u64 {
        match self {
            Scalar::F16 => 2,
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I64 | Scalar::U64 => 8,
            _ => 4,
        }
    }

    /// `value` as the bits of an element of this type, as the spec states literals and launch
    /// values: floats round to the nearest `f32` (or `f16`, once, from the value itself);
    /// integers drop their fraction (toward zero) and wrap to 32 bits, two's complement, as all
    /// integer arithmetic does (so 4294967295 is the `i32` -1, and -1 is the `u32`
    /// 0xffffffff), and an 8-bit element to its low byte; NaN and infinities have no integer
    /// value and give 0; a `bool` is true when the value is not zero.
    ///
    /// A cast in a kernel (`i32(x)`) is not this: it saturates, as GPUs do (see `sim`).
    pub fn bits(self, value: f64) -> u32 {
        match self {
            Scalar::F32 => (value as f32).to_bits(),
            Scalar::F16 => f16_nearest(value).to_bits(),
            Scalar::Bool => u32::from(value != 0.0),
            // `%` on f64 is exact, so this is the value modulo 2^32 for every finite value.
            Scalar::I32 | Scalar::U32 if value.is_finite() => {
                value.trunc().rem_euclid(4_294_967_296.0) as u32
            }
            Scalar::I32 | Scalar::U32 => 0,
            Scalar::I8 | Scalar::U8 => self.narrow(Scalar::I32.bits(value)),
            Scalar::I64 | Scalar::U64 => self.wide_bits(value) as u32,
        }
    }

    /// `value` as a 64-bit integer's bits, by [`Scalar::bits`]'s rule (toward zero, wrapping
    /// modulo 2^64; NaN and infinities 0). Exact for every integer an `f64` holds exactly.
    pub fn wide_bits(self, value: f64) -> u64 {
        if !value.is_finite() {
            return 0;
        }
        let t = value.trunc();
        if t.abs() < 9_223_372_036_854_775_808.0 {
            t as i64 as u64
        } else {
            // |t| ≥ 2^63: a multiple of 2^11, whose residue modulo 2^64 `rem_euclid` gives
            // exactly.
            t.rem_euclid(18_446_744_073_709_551_616.0) as u64
        }
    }

    /// A scalar argument's bits as a launch binds `value`: a 64-bit type's two words, any
    /// other's one word in the low 32 bits.
    pub fn argument_bits(self, value: f64) -> u64 {
        if self.is_wide() {
            self.wide_bits(value)
        } else {
            u64::from(self.bits(value))
        }
    }

    /// The number a scalar argument's bits hold (a 64-bit one exact up to 2^53).
    pub fn argument_value(self, bits: u64) -> f64 {
        if self.is_wide() {
            self.wide_value(bits)
        } else {
            self.value(bits as u32)
        }
    }

    /// A 64-bit element's bits as the number it holds (exact up to 2^53).
    pub fn wide_value(self, bits: u64) -> f64 {
        if self == Scalar::I64 {
            bits as i64 as f64
        } else {
            bits as f64
        }
    }

    /// A 64-bit value as a table shows it: in decimal, exactly.
    pub fn show_wide(self, bits: u64) -> String {
        if self == Scalar::I64 {
            (bits as i64).to_string()
        } else {
            bits.to_string()
        }
    }

    /// A value in full, as a cell's tooltip gives it: a float as the shortest decimal that
    /// reads back as its bits (scientific from 10^16 up and below 10^-4), any other as
    /// [`Scalar::show`] has it.
    pub fn show_exact(self, bits: u32) -> String {
        match self {
            Scalar::F32 | Scalar::F16 => {
                let v = f32::from_bits(bits);
                let size = v.abs();
                if v.is_finite() && (size >= 1e16 || (size < 1e-4 && size > 0.0)) {
                    format!("{v:e}")
                } else {
                    format!("{v}")
                }
            }
            _ => self.show(bits),
        }
    }

    /// An element of a tensor's `bits` as a table shows it: `words` are its words (two, low
    /// first, for a 64-bit integer).
    pub fn show_words(self, words: &[u32]) -> String {
        match words {
            [_, _] if self.is_wide() => self.show_wide(join_words(words)),
            [w, ..] => self.show(*w),
            [] => String::new(),
        }
    }

    /// A value as a table shows it, short: a whole float without a fraction, another to four
    /// places from 0.001 up, and in scientific notation to four digits below (a softmax's
    /// 1e-5 must not read as zero) and from 10^7 up; a `u32` past 16 bits (a mask, as a rule)
    /// in hex. [`Scalar::show_exact`] gives the value a float's bits hold.
    pub fn show(self, bits: u32) -> String {
        match self {
            Scalar::F32 | Scalar::F16 => {
                let v = f32::from_bits(bits);
                let size = v.abs();
                if !v.is_finite() {
                    format!("{v}")
                } else if size >= 1e7 || (size < 1e-3 && size > 0.0) {
                    format!("{v:.3e}")
                } else if v == v.trunc() {
                    format!("{v:.0}")
                } else {
                    format!("{v:.4}")
                }
            }
            Scalar::Bool => (bits != 0).to_string(),
            Scalar::U32 if bits > 0xffff => format!("{bits:#010x}"),
            _ => format!("{}", self.value(bits)),
        }
    }

    /// The number an element's bits hold: exact for every integer and every `f32`.
    pub fn value(self, bits: u32) -> f64 {
        match self {
            Scalar::F32 | Scalar::F16 => f64::from(f32::from_bits(bits)),
            Scalar::I32 | Scalar::I8 => f64::from(bits as i32),
            Scalar::U32 | Scalar::U8 | Scalar::I64 | Scalar::U64 => f64::from(bits),
            Scalar::Bool => f64::from(u32::from(bits != 0)),
        }
    }
}

/// A 64-bit element from its words in a tensor's `bits`, the low first (a missing word is 0).
pub fn join_words(words: &[u32]) -> u64 {
    let word = |i: usize| u64::from(words.get(i).copied().unwrap_or(0));
    word(0) | word(1) << 32
}

/// A 64-bit element's words, the low first, as a tensor's `bits` hold them.
pub fn split_words(value: u64) -> [u32; 2] {
    [value as u32, (value >> 32) as u32]
}

/// The `f16` nearest the `f32` with bits `bits` (ties to even; past the largest `f16`, an
/// infinity; below the smallest, a signed zero), as an `f32`'s bits. NaN stays NaN.
pub fn f16_round(bits: u32) -> u32 {
    f16_nearest(f64::from(f32::from_bits(bits))).to_bits()
}

/// The `f16` nearest `value`, rounded once from `value` itself (through `f32` first would
/// round twice), as an `f32`. `half::f16::from_f64` is not this: it reads only the top 32 bits
/// of an `f64` and so misses a value just past a halfway point.
fn f16_nearest(value: f64) -> f32 {
    if value.is_nan() {
        return f32::NAN;
    }
    let magnitude = value.abs();
    // The spacing of the f16s around `magnitude`: 2^-24 below 2^-14 (the subnormals), else 10
    // bits below its leading bit. Dividing and multiplying by it is exact.
    let spacing = if magnitude < 2f64.powi(-14) {
        2f64.powi(-24)
    } else {
        let exponent = ((magnitude.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        2f64.powi(exponent - 10)
    };
    let rounded = (magnitude / spacing).round_ties_even() * spacing;
    // 65520 and up: past the largest f16 (65504), and its halfway point rounds to even, 2^16.
    let rounded = if rounded > 65504.0 {
        f64::INFINITY
    } else {
        rounded
    };
    rounded.copysign(value) as f32
}

/// The two bytes (IEEE binary16) memory holds for an `f16` whose `f32` bits are `bits`: exact
/// for every value [`f16_round`] gives.
pub fn f16_storage(bits: u32) -> u16 {
    half::f16::from_f32(f32::from_bits(bits)).to_bits()
}

/// An `f16` read from memory, as its `f32`'s bits (exact).
pub fn f16_from_storage(half: u16) -> u32 {
    half::f16::from_bits(half).to_f32().to_bits()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Axis {
    X,
    Y,
    Z,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CtxField {
    Blocks(Axis),
    Block(Axis),
    Threads,
    Warps,
    Lanes,
    Warp,
    Thread,
    Lane,
    /// Not a source field: 1 where a warp's m16n8k16 `mma` runs (warps of 32 lanes in the
    /// simulator and WGSL, sm_80 and later in PTX), else 0. The tile product on tensor cores
    /// (`ir/tiles.rs`) branches on it, and both branches give the same bits.
    TensorCores,
}

impl CtxField {
    pub fn name(self) -> String {
        let axis = |axis: Axis| match axis {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        };
        match self {
            CtxField::Blocks(a) => format!("ctx.blocks.{}", axis(a)),
            CtxField::Block(a) => format!("ctx.block.{}", axis(a)),
            CtxField::Threads => "ctx.threads".into(),
            CtxField::Warps => "ctx.warps".into(),
            CtxField::Lanes => "ctx.lanes".into(),
            CtxField::Warp => "ctx.warp".into(),
            CtxField::Thread => "ctx.thread".into(),
            CtxField::Lane => "ctx.lane".into(),
            CtxField::TensorCores => "tensor_cores".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Scalar;

    #[test]
    fn integers_wrap_to_32_bits_and_floats_round() {
        assert_eq!(Scalar::I32.bits(-1.0), 0xffff_ffff);
        assert_eq!(Scalar::I32.bits(4_294_967_295.0), 0xffff_ffff);
        assert_eq!(Scalar::I32.bits(2_147_483_648.0), 0x8000_0000);
        assert_eq!(Scalar::U32.bits(-1.0), 0xffff_ffff);
        assert_eq!(Scalar::U32.bits(4_294_967_296.0), 0);
        assert_eq!(Scalar::U32.bits(1e20), (1e20f64 % 4_294_967_296.0) as u32);
        assert_eq!(
            Scalar::I32.bits(-2.7),
            (-2i32) as u32,
            "the fraction goes toward zero"
        );
        assert_eq!(Scalar::I32.bits(f64::NAN), 0);
        assert_eq!(Scalar::U32.bits(f64::INFINITY), 0);
        assert_eq!(Scalar::F32.bits(0.1), 0.1f32.to_bits());
        assert_eq!(Scalar::Bool.bits(2.0), 1);
        assert_eq!(Scalar::Bool.bits(0.0), 0);
    }

    #[test]
    fn f16_values_round_once_to_nearest_even() {
        use super::{f16_from_storage, f16_round, f16_storage};
        let f16 = |v: f64| f32::from_bits(Scalar::F16.bits(v));
        assert_eq!(f16(1.0), 1.0);
        assert_eq!(f16(0.1), 0.099_975_586, "0.1 is 0x2e66");
        // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: to even, 1.
        assert_eq!(f16(1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(f16(1.0 + 3.0 * 2f64.powi(-11)), 1.0 + 2f32.powi(-9));
        // Just above the halfway point, from a literal's own value: up. Through `f32` first,
        // 1 + 2^-11 + 2^-40 would round to the halfway point and then down.
        assert_eq!(
            f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
            1.0 + 2f32.powi(-10)
        );
        assert_eq!(f16(65504.0), 65504.0, "the largest f16");
        assert_eq!(f16(65519.0), 65504.0);
        assert_eq!(
            f16(65520.0),
            f32::INFINITY,
            "halfway to 2^16 rounds to even: infinity"
        );
        assert_eq!(
            f16(2f64.powi(-24)),
            2f32.powi(-24),
            "the smallest subnormal"
        );
        assert_eq!(f16(2f64.powi(-25)), 0.0, "halfway to it: to even, zero");
        assert_eq!(f16(-3.0 * 2f64.powi(-26)), -(2f32.powi(-24)));
        assert!(f16(f64::NAN).is_nan());
        assert_eq!(f16_round(1.000_244_1f32.to_bits()), 1.0f32.to_bits());
        // Every f16 survives the trip through memory, and is what rounding gives it.
        for half in 0..=u16::MAX {
            let bits = f16_from_storage(half);
            if f32::from_bits(bits).is_nan() {
                continue;
            }
            assert_eq!(f16_storage(bits), half, "{half:#06x}");
            assert_eq!(f16_round(bits), bits, "{half:#06x}");
        }
    }

    /// From an `f32`, the rounding agrees with the `half` crate's (which is right for `f32`s,
    /// though not for every `f64`), over a sample of every kind of `f32`.
    #[test]
    fn f16_rounding_of_f32s_agrees_with_the_half_crate() {
        for bits in (0..=u32::MAX).step_by(4099).chain(0x3300_0000..0x3300_0100) {
            let x = f32::from_bits(bits);
            if x.is_nan() {
                continue;
            }
            let want = half::f16::from_f32(x).to_f32().to_bits();
            assert_eq!(super::f16_round(bits), want, "{x:e} ({bits:#010x})");
        }
    }

    #[test]
    fn values_show_as_a_reader_expects() {
        assert_eq!(Scalar::F32.show(3.0f32.to_bits()), "3");
        assert_eq!(Scalar::F32.show(0.5f32.to_bits()), "0.5000");
        // Small and large values keep their digits (a softmax over long rows: issue 68).
        assert_eq!(Scalar::F32.show(1e-5f32.to_bits()), "1.000e-5");
        assert_eq!(Scalar::F32.show(1.2345e-5f32.to_bits()), "1.234e-5");
        assert_eq!(Scalar::F32.show(0.001f32.to_bits()), "0.0010");
        assert_eq!(Scalar::F32.show(3e9f32.to_bits()), "3.000e9");
        assert_eq!(Scalar::F32.show((-0.0f32).to_bits()), "-0");
        assert_eq!(Scalar::F32.show(f32::NAN.to_bits()), "NaN");
        assert_eq!(Scalar::F32.show(f32::NEG_INFINITY.to_bits()), "-inf");
        assert_eq!(Scalar::F32.show(f32::from_bits(1).to_bits()), "1.401e-45");
        // In full, the shortest decimal that reads back as the same bits.
        assert_eq!(Scalar::F32.show_exact(0.1f32.to_bits()), "0.1");
        assert_eq!(
            Scalar::F32.show_exact(1.0000001e-5f32.to_bits()),
            "1.0000001e-5"
        );
        assert_eq!(
            Scalar::F32.show_exact(0.33333334f32.to_bits()),
            "0.33333334"
        );
        for v in [
            1e-5f32,
            1.0000001e-5,
            123.456,
            1e20,
            f32::MIN_POSITIVE,
            -7.5e-39,
        ] {
            let shown = Scalar::F32.show_exact(v.to_bits());
            assert_eq!(
                shown.parse::<f32>().map(f32::to_bits),
                Ok(v.to_bits()),
                "{shown}"
            );
        }
        assert_eq!(Scalar::I32.show((-4i32) as u32), "-4");
        assert_eq!(Scalar::U32.show(0xffff_ffff), "0xffffffff");
        assert_eq!(Scalar::U32.show(12), "12");
        assert_eq!(Scalar::Bool.show(1), "true");
    }

    #[test]
    fn bits_read_back_as_the_value_they_hold() {
        for ty in [Scalar::I32, Scalar::U32, Scalar::F32, Scalar::Bool] {
            for bits in [0, 1, 7, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x3f80_0000] {
                let bits = if ty == Scalar::Bool {
                    bits.min(1)
                } else {
                    bits
                };
                if ty == Scalar::F32 && f32::from_bits(bits).is_nan() {
                    continue;
                }
                assert_eq!(ty.bits(ty.value(bits)), bits, "{ty:?} {bits:#x}");
            }
        }
        assert_eq!(Scalar::I32.value(0xffff_ffff), -1.0);
        assert_eq!(Scalar::U32.value(0xffff_ffff), 4_294_967_295.0);
    }
}
