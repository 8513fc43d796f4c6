//! Atomics: WGSL's `atomic<i32>` and `atomic<u32>` storage for the tensors and tiles atomics
//! change (every access to them is then `atomicLoad` / `atomicStore`, which naga writes for a
//! load or store through an atomic pointer), the integer atomics as naga's, `atomic_add` on
//! f32, which WGSL lacks, as a compare-exchange loop on the element's bits, and the spec's
//! (strong) compare-exchange as WGSL's weak one retried while it fails on the expected value.

use super::*;
use crate::ir::{Atomic, AtomicOp, Place};
use naga::{AtomicFunction, PredeclaredType};

impl<'k> Builder<'k> {
    /// A value of type `element` as its storage holds it: an f32 in atomic storage is its bits.
    pub(super) fn as_stored(
        &mut self,
        block: &mut Block,
        value: Handle<E>,
        element: Scalar,
        atomic: bool,
    ) -> Handle<E> {
        if atomic && element.is_float() {
            self.bitcast(block, value, ScalarKind::Uint)
        } else {
            value
        }
    }

    /// The value of type `element` at `pointer`, from storage that may be atomic.
    pub(super) fn load_stored(
        &mut self,
        block: &mut Block,
        pointer: Handle<E>,
        element: Scalar,
        atomic: bool,
    ) -> Handle<E> {
        let value = self.add(block, E::Load { pointer });
        if atomic && element.is_float() {
            self.bitcast(block, value, ScalarKind::Float)
        } else {
            value
        }
    }

    pub(super) fn atomic(&mut self, block: &mut Block, atomic: &Atomic) {
        let Atomic {
            dst,
            op,
            ty,
            ref place,
            value,
            expected,
        } = *atomic;
        let pointer = match place {
            Place::Tensor { tensor, indices } => {
                self.tensor_pointer(block, *tensor, indices, false).0
            }
            Place::Shared { array, indices } => self.shared_pointer(block, *array, indices),
        };
        let value = self.operand(block, value, ty);
        if ty.is_float() {
            let global = matches!(place, Place::Tensor { .. });
            self.float_add(block, dst, pointer, value, global);
            return;
        }
        if op == AtomicOp::CompareExchange {
            let expected = self.operand(block, expected.unwrap_or(Operand::Const(0)), ty);
            self.compare_exchange(block, dst, pointer, expected, value, ty);
            return;
        }
        let fun = match op {
            AtomicOp::Add => AtomicFunction::Add,
            AtomicOp::Sub => AtomicFunction::Subtract,
            AtomicOp::Min => AtomicFunction::Min,
            AtomicOp::Max => AtomicFunction::Max,
            AtomicOp::And => AtomicFunction::And,
            AtomicOp::Or => AtomicFunction::InclusiveOr,
            AtomicOp::Xor => AtomicFunction::ExclusiveOr,
            AtomicOp::Exchange | AtomicOp::CompareExchange => {
                AtomicFunction::Exchange { compare: None }
            }
        };
        // naga wants a result for an exchange (without one it would be a store).
        let wants_result = dst.is_some() || op == AtomicOp::Exchange;
        self.flush(block);
        let result = wants_result.then(|| {
            let ty = scalar_type(&mut self.module, atomic_scalar(ty));
            self.add(
                block,
                E::AtomicResult {
                    ty,
                    comparison: false,
                },
            )
        });
        self.push(
            block,
            St::Atomic {
                pointer,
                fun,
                value,
                result,
            },
        );
        if let (Some(dst), Some(result)) = (dst, result) {
            self.store_reg(block, dst, result);
        }
    }

    /// `atomicCompareExchangeWeak(p, expected, value)` until it says what the element held:
    /// the weak exchange may fail although the element held `expected` (WGSL allows it), and
    /// the spec's compare-exchange stores whenever the element holds `expected`, so a failure
    /// that found `expected` is tried again.
    fn compare_exchange(
        &mut self,
        block: &mut Block,
        dst: Option<Reg>,
        pointer: Handle<E>,
        expected: Handle<E>,
        value: Handle<E>,
        ty: Scalar,
    ) {
        let zero = self.lit(block, literal(0, ty));
        let found = self.initialized_local("cas_found", atomic_scalar(ty), zero);
        let found_pointer = self.add(block, E::LocalVariable(found));
        self.flush(block);
        let mut body = Block::new();
        let result = self.weak_exchange(&mut body, pointer, expected, value, atomic_scalar(ty));
        let old = self.add(
            &mut body,
            E::AccessIndex {
                base: result,
                index: 0,
            },
        );
        self.push(
            &mut body,
            St::Store {
                pointer: found_pointer,
                value: old,
            },
        );
        let exchanged = self.add(
            &mut body,
            E::AccessIndex {
                base: result,
                index: 1,
            },
        );
        let other = self.binary(&mut body, B::NotEqual, old, expected);
        let settled = self.binary(&mut body, B::LogicalOr, exchanged, other);
        self.break_if(&mut body, settled);
        self.push_loop(block, body);
        if let Some(dst) = dst {
            let old = self.add(
                block,
                E::Load {
                    pointer: found_pointer,
                },
            );
            self.store_reg(block, dst, old);
        }
    }

    /// One `atomicCompareExchangeWeak` at the end of `block`; its result (old value, whether it
    /// exchanged).
    fn weak_exchange(
        &mut self,
        block: &mut Block,
        pointer: Handle<E>,
        compare: Handle<E>,
        value: Handle<E>,
        scalar: naga::Scalar,
    ) -> Handle<E> {
        self.flush(block);
        let ty = self
            .module
            .generate_predeclared_type(PredeclaredType::AtomicCompareExchangeWeakResult(scalar));
        let result = self.add(
            block,
            E::AtomicResult {
                ty,
                comparison: true,
            },
        );
        self.push(
            block,
            St::Atomic {
                pointer,
                fun: AtomicFunction::Exchange {
                    compare: Some(compare),
                },
                value,
                result: Some(result),
            },
        );
        result
    }

    /// `loop { body }` at the end of `block`.
    fn push_loop(&mut self, block: &mut Block, body: Block) {
        self.flush(block);
        block.push(
            St::Loop {
                body,
                continuing: Block::new(),
                break_if: None,
            },
            self.span,
        );
    }

    /// `if condition { break }` at the end of `block`.
    fn break_if(&mut self, block: &mut Block, condition: Handle<E>) {
        self.flush(block);
        let mut done = Block::new();
        done.push(St::Break, self.span);
        block.push(
            St::If {
                condition,
                accept: done,
                reject: Block::new(),
            },
            self.span,
        );
    }

    /// `atomic_add` on an f32 held as bits in an `atomic<u32>`:
    /// `old = atomicLoad(p); loop { r = atomicCompareExchangeWeak(p, old, bits(f32(old) + v));
    /// if r.exchanged { break } old = r.old_value }`. The old value is the one the exchange
    /// replaced. On a tensor (`global`), subnormal inputs and results are flushed to a zero of
    /// their sign, as NVIDIA's `atom.add.f32` on global memory does (the spec's "Atomics").
    fn float_add(
        &mut self,
        block: &mut Block,
        dst: Option<Reg>,
        pointer: Handle<E>,
        value: Handle<E>,
        global: bool,
    ) {
        let value = if global {
            let bits = self.bitcast(block, value, ScalarKind::Uint);
            let bits = self.flush_subnormal(block, bits);
            self.bitcast(block, bits, ScalarKind::Float)
        } else {
            value
        };
        let zero = self.lit(block, Literal::U32(0));
        let old = self.initialized_local("cas_old", naga::Scalar::U32, zero);
        let first = self.add(block, E::Load { pointer });
        let old_pointer = self.add(block, E::LocalVariable(old));
        self.push(
            block,
            St::Store {
                pointer: old_pointer,
                value: first,
            },
        );
        let mut body = Block::new();
        let old_bits = self.add(
            &mut body,
            E::Load {
                pointer: old_pointer,
            },
        );
        let addend = if global {
            self.flush_subnormal(&mut body, old_bits)
        } else {
            old_bits
        };
        let old_float = self.bitcast(&mut body, addend, ScalarKind::Float);
        let sum = self.binary(&mut body, B::Add, old_float, value);
        let new_bits = self.bitcast(&mut body, sum, ScalarKind::Uint);
        let new_bits = if global {
            self.flush_subnormal(&mut body, new_bits)
        } else {
            new_bits
        };
        let result = self.weak_exchange(&mut body, pointer, old_bits, new_bits, naga::Scalar::U32);
        let exchanged = self.add(
            &mut body,
            E::AccessIndex {
                base: result,
                index: 1,
            },
        );
        self.break_if(&mut body, exchanged);
        let found = self.add(
            &mut body,
            E::AccessIndex {
                base: result,
                index: 0,
            },
        );
        self.push(
            &mut body,
            St::Store {
                pointer: old_pointer,
                value: found,
            },
        );
        self.push_loop(block, body);
        if let Some(dst) = dst {
            let bits = self.add(
                block,
                E::Load {
                    pointer: old_pointer,
                },
            );
            let old = self.bitcast(block, bits, ScalarKind::Float);
            self.store_reg(block, dst, old);
        }
    }

    /// An f32's bits with a subnormal value (exponent bits 0, fraction not) as the zero of its
    /// sign: by the bits, since WGSL lets a GPU flush or keep subnormals in arithmetic.
    fn flush_subnormal(&mut self, block: &mut Block, bits: Handle<E>) -> Handle<E> {
        let exponent_mask = self.lit(block, Literal::U32(0x7f80_0000));
        let exponent = self.binary(block, B::And, bits, exponent_mask);
        let zero = self.lit(block, Literal::U32(0));
        let tiny = self.binary(block, B::Equal, exponent, zero);
        let sign_mask = self.lit(block, Literal::U32(0x8000_0000));
        let sign = self.binary(block, B::And, bits, sign_mask);
        self.add(
            block,
            E::Select {
                condition: tiny,
                accept: sign,
                reject: bits,
            },
        )
    }
}
