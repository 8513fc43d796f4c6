//! Elements narrower than a word, on every device: `f16` (two a word) and `i8` / `u8` (four a
//! word). In registers an `f16` is an `f32` (as everywhere, `ir::half`) and an 8-bit element
//! its widened `i32` / `u32`; in memory such a tensor is a buffer of `u32` words, the first
//! element in the lowest bits (as `sim::Tensor::memory_words` lays it out); a tile of them is
//! a workgroup array of the register type.
//!
//! A store changes only its element's bits of the word, by `atomicAnd` then `atomicOr` on the
//! word (a written packed tensor is `atomic<u32>`), so threads storing neighbouring elements of
//! one word all keep theirs: WGSL has no 8- or 16-bit stores.
//!
//! The `f16` conversions are integer arithmetic on the bits, not `pack2x16float` and
//! `unpack2x16float` nor a shader-`f16` type: WGSL leaves those conversions' rounding of a value
//! between two `f16`s, of a value past the largest, and of subnormals to the implementation,
//! and the spec's rule (each operation rounded once, to nearest even) must give the simulator's
//! bits on every GPU.

use super::*;
use naga::AtomicFunction;

/// `f32` bits: the sign, the magnitude, and the magnitudes where `f16` changes regime.
const SIGN: u32 = 0x8000_0000;
const MAGNITUDE: u32 = 0x7fff_ffff;
const INFINITY: u32 = 0x7f80_0000;
/// 2^-14, the smallest normal `f16`: below it, `f16`s are multiples of 2^-24.
const SMALLEST_NORMAL: u32 = 0x3880_0000;
/// 65520, halfway between the largest `f16` (65504) and 2^16: from it up, an infinity.
const OVERFLOW: u32 = 0x477f_f000;
/// 2^24 and 2^-24, the scale of a subnormal `f16`'s integer significand.
const TWO_TO_24: f32 = 16_777_216.0;
const TWO_TO_MINUS_24: f32 = 1.0 / 16_777_216.0;

impl Builder<'_> {
    fn u32(&mut self, block: &mut Block, value: u32) -> Handle<E> {
        self.lit(block, Literal::U32(value))
    }

    /// The `f16` nearest `x` (an `f32`), ties to even, as an `f32`: `ir::f16_round`.
    pub(super) fn round_to_half(&mut self, block: &mut Block, x: Handle<E>) -> Handle<E> {
        let bits = self.bitcast(block, x, ScalarKind::Uint);
        let mask = self.u32(block, MAGNITUDE);
        let a = self.binary(block, B::And, bits, mask);
        // A normal f16 keeps 10 of the f32's 23 fraction bits: add just under half of the 13
        // dropped, plus the lowest kept bit (ties to even), and drop them; a carry moves into
        // the exponent, as it should.
        let thirteen = self.u32(block, 13);
        let kept = self.binary(block, B::ShiftRight, a, thirteen);
        let one = self.u32(block, 1);
        let lowest = self.binary(block, B::And, kept, one);
        let under_half = self.u32(block, 0xfff);
        let biased = self.binary(block, B::Add, a, under_half);
        let biased = self.binary(block, B::Add, biased, lowest);
        let drop = self.u32(block, !0x1fff);
        let normal = self.binary(block, B::And, biased, drop);
        // Below 2^-14, a multiple of 2^-24: scaled by 2^24 (exact), rounded to an integer
        // (WGSL's round is to even), and scaled back (exact).
        let magnitude = self.bitcast(block, a, ScalarKind::Float);
        let up = self.f32(block, TWO_TO_24);
        let scaled = self.binary(block, B::Multiply, magnitude, up);
        let rounded = self.math(block, MathFunction::Round, &[scaled]);
        let down = self.f32(block, TWO_TO_MINUS_24);
        let small = self.binary(block, B::Multiply, rounded, down);
        let small = self.bitcast(block, small, ScalarKind::Uint);
        let smallest_normal = self.u32(block, SMALLEST_NORMAL);
        let is_small = self.binary(block, B::Less, a, smallest_normal);
        let result = self.select(block, is_small, small, normal);
        let overflow = self.u32(block, OVERFLOW);
        let is_large = self.binary(block, B::GreaterEqual, a, overflow);
        let infinity = self.u32(block, INFINITY);
        let result = self.select(block, is_large, infinity, result);
        // A NaN stays itself.
        let is_nan = self.binary(block, B::Greater, a, infinity);
        let result = self.select(block, is_nan, a, result);
        let sign_mask = self.u32(block, SIGN);
        let sign = self.binary(block, B::And, bits, sign_mask);
        let result = self.binary(block, B::InclusiveOr, result, sign);
        self.bitcast(block, result, ScalarKind::Float)
    }

    /// The 16 bits (in a u32) of the `f16` whose value the `f32` `x` holds exactly.
    fn half_bits(&mut self, block: &mut Block, x: Handle<E>) -> Handle<E> {
        let bits = self.bitcast(block, x, ScalarKind::Uint);
        let mask = self.u32(block, MAGNITUDE);
        let a = self.binary(block, B::And, bits, mask);
        // Normal: the exponent rebiased (127 to 15) and the top 10 fraction bits.
        let thirteen = self.u32(block, 13);
        let shifted = self.binary(block, B::ShiftRight, a, thirteen);
        let rebias = self.u32(block, 112 << 10);
        let normal = self.binary(block, B::Subtract, shifted, rebias);
        // Subnormal (and zero): the significand is the value in units of 2^-24.
        let magnitude = self.bitcast(block, a, ScalarKind::Float);
        let up = self.f32(block, TWO_TO_24);
        let scaled = self.binary(block, B::Multiply, magnitude, up);
        let small = self.convert(block, scaled, Scalar::U32);
        let smallest_normal = self.u32(block, SMALLEST_NORMAL);
        let is_small = self.binary(block, B::Less, a, smallest_normal);
        let result = self.select(block, is_small, small, normal);
        // An infinity, or a quiet NaN.
        let infinity = self.u32(block, INFINITY);
        let is_nan = self.binary(block, B::Greater, a, infinity);
        let nan = self.u32(block, 0x7e00);
        let inf = self.u32(block, 0x7c00);
        let special = self.select(block, is_nan, nan, inf);
        let is_special = self.binary(block, B::GreaterEqual, a, infinity);
        let result = self.select(block, is_special, special, result);
        let sixteen = self.u32(block, 16);
        let sign = self.binary(block, B::ShiftRight, bits, sixteen);
        let sign_mask = self.u32(block, 0x8000);
        let sign = self.binary(block, B::And, sign, sign_mask);
        self.binary(block, B::InclusiveOr, result, sign)
    }

    /// The `f32` of the `f16` whose 16 bits are the low half of the u32 `h` (exact).
    fn half_value(&mut self, block: &mut Block, h: Handle<E>) -> Handle<E> {
        let magnitude_mask = self.u32(block, 0x7fff);
        let m = self.binary(block, B::And, h, magnitude_mask);
        // Normal: the exponent rebiased (15 to 127), the fraction moved up.
        let thirteen = self.u32(block, 13);
        let shifted = self.binary(block, B::ShiftLeft, m, thirteen);
        let rebias = self.u32(block, 112 << 23);
        let normal = self.binary(block, B::Add, shifted, rebias);
        // Infinity and NaN: the largest exponent.
        let infinity = self.u32(block, INFINITY);
        let special = self.binary(block, B::InclusiveOr, shifted, infinity);
        let exponent_mask = self.u32(block, 0x7c00);
        let is_special = self.binary(block, B::GreaterEqual, m, exponent_mask);
        let result = self.select(block, is_special, special, normal);
        // Subnormal (and zero): the significand in units of 2^-24.
        let significand = self.convert(block, m, Scalar::F32);
        let down = self.f32(block, TWO_TO_MINUS_24);
        let small = self.binary(block, B::Multiply, significand, down);
        let small = self.bitcast(block, small, ScalarKind::Uint);
        let smallest_normal = self.u32(block, 0x0400);
        let is_small = self.binary(block, B::Less, m, smallest_normal);
        let result = self.select(block, is_small, small, result);
        let sign_mask = self.u32(block, 0x8000);
        let sign = self.binary(block, B::And, h, sign_mask);
        let sixteen = self.u32(block, 16);
        let sign = self.binary(block, B::ShiftLeft, sign, sixteen);
        let result = self.binary(block, B::InclusiveOr, result, sign);
        self.bitcast(block, result, ScalarKind::Float)
    }

    /// The word that holds element `index` (u32) of a packed tensor of `element`s, and the
    /// shift of the element's bits in the word.
    fn packed_place(
        &mut self,
        block: &mut Block,
        tensor: usize,
        element: Scalar,
        index: Handle<E>,
    ) -> (Handle<E>, Handle<E>) {
        let bits = element.size() as u32 * 8;
        let per_word = 32 / bits;
        let log = self.u32(block, per_word.trailing_zeros());
        let word = self.binary(block, B::ShiftRight, index, log);
        let pointer = self.tensor_word(block, tensor, word);
        let last = self.u32(block, per_word - 1);
        let position = self.binary(block, B::And, index, last);
        let log_bits = self.u32(block, bits.trailing_zeros());
        let shift = self.binary(block, B::ShiftLeft, position, log_bits);
        (pointer, shift)
    }

    /// `tensor[indices]` of a packed tensor, as its register type, and (guarded) whether it
    /// lies inside.
    pub(super) fn load_packed(
        &mut self,
        block: &mut Block,
        tensor: usize,
        element: Scalar,
        indices: &[Operand],
        guarded: bool,
    ) -> (Handle<E>, Option<Handle<E>>) {
        let (index, inside) = self.tensor_index(block, tensor, indices, guarded);
        let (pointer, shift) = self.packed_place(block, tensor, element, index);
        let word = self.add(block, E::Load { pointer });
        let moved = self.binary(block, B::ShiftRight, word, shift);
        let value = match element {
            Scalar::F16 => self.half_value(block, moved),
            Scalar::U8 => {
                let byte = self.u32(block, 0xff);
                self.binary(block, B::And, moved, byte)
            }
            // The low byte, sign-extended: up to the top, then an arithmetic shift down.
            _ => {
                let twenty_four = self.u32(block, 24);
                let top = self.binary(block, B::ShiftLeft, moved, twenty_four);
                let signed = self.bitcast(block, top, ScalarKind::Sint);
                self.binary(block, B::ShiftRight, signed, twenty_four)
            }
        };
        (value, inside)
    }

    /// `tensor[indices] = value` into a packed tensor: its element's bits of the word cleared,
    /// then set.
    pub(super) fn store_packed(
        &mut self,
        block: &mut Block,
        tensor: usize,
        element: Scalar,
        indices: &[Operand],
        value: Handle<E>,
        guarded: bool,
    ) {
        let (index, inside) = self.tensor_index(block, tensor, indices, guarded);
        let (pointer, shift) = self.packed_place(block, tensor, element, index);
        let (bits, ones) = match element {
            Scalar::F16 => (self.half_bits(block, value), 0xffff),
            _ => {
                let unsigned = self.bitcast(block, value, ScalarKind::Uint);
                let byte = self.u32(block, 0xff);
                (self.binary(block, B::And, unsigned, byte), 0xff)
            }
        };
        let bits = self.binary(block, B::ShiftLeft, bits, shift);
        let ones = self.u32(block, ones);
        let place = self.binary(block, B::ShiftLeft, ones, shift);
        let keep = self.add(
            block,
            E::Unary {
                op: UnaryOperator::BitwiseNot,
                expr: place,
            },
        );
        self.flush(block);
        let mut stores = Block::new();
        for (fun, value) in [
            (AtomicFunction::And, keep),
            (AtomicFunction::InclusiveOr, bits),
        ] {
            stores.push(
                St::Atomic {
                    pointer,
                    fun,
                    value,
                    result: None,
                },
                self.span,
            );
        }
        match inside {
            None => block.extend_block(stores),
            Some(condition) => block.push(
                St::If {
                    condition,
                    accept: stores,
                    reject: Block::new(),
                },
                self.span,
            ),
        }
    }
}
