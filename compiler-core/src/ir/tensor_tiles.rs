//! The tile product on tensor cores: `acc += a @ b` (or `acc = a @ b`) of `f16` tiles into an
//! `f32` tile whose extents are multiples of m16n8k16's (M 16, N 8, K 16), in a CTA of whole
//! warps.
//!
//! In: the product's tiles (shared arrays) and the array for its result, from `tiles.rs`'s
//! `matmul`. Out: an IR branch on `tensor_cores` (a `CtxField` each target answers: the
//! simulator and WGSL at 32-lane warps, PTX from sm_80). Where it holds, warp `w` computes the
//! 16 × 8 blocks `w`, `w + ctx.warps`, … of the product, in row-major block order, with
//! fragments and `mma` (`matrix.rs`'s loads and stores). Otherwise each thread computes its
//! elements in `mma`'s order. Then a barrier, as after every tile operation.
//!
//! Invariant: the two branches give the same bits (`crate::mma::multiply`'s rule, chunk by
//! chunk of 16 `k`), so a kernel's results depend neither on the target nor on the warp width.

use super::lowering::Lowering;
use super::matrix::{Block2, Memory};
use super::*;
use crate::mma::Operand as Matrix;

/// The product's factors, `f16`, taken in `f32` (exactly).
const HALVES_IN_F32: [Scalar; 2] = [Scalar::F16, Scalar::F32];

/// Whether `a @ b` into `element` runs on tensor cores where the target has them: `f16` tiles
/// into `f32`, extents multiples of m16n8k16's (M 16, K 16, N 8), a CTA of whole warps.
pub(super) fn on_tensor_cores(
    operand: Scalar,
    element: Scalar,
    [m, k, n]: [u32; 3],
    threads: u32,
) -> bool {
    let whole = |extent: u32, of: u32| extent > 0 && extent.is_multiple_of(of);
    operand == Scalar::F16
        && element == Scalar::F32
        && whole(m, crate::mma::M)
        && whole(k, crate::mma::K)
        && whole(n, crate::mma::N)
        && whole(threads, crate::mma::MMA_LANES)
}

impl Lowering {
    /// `out = a @ b` of `f16` tiles into `f32` on tensor cores, where the target has them
    /// (`CtxField::TensorCores`: 32-lane warps in the simulator and WGSL, sm_80 and later in
    /// PTX). Warp `w` computes C's 16 × 8 blocks `w`, `w + ctx.warps`, … in row-major block
    /// order, each from an accumulator of +0 with one `mma` per 16 columns of A, its fragments
    /// loaded from the tiles. Elsewhere each thread computes its elements by the same rule
    /// (`mma_rule_product`), so the two branches give the same bits. Then a barrier, as after
    /// every tile operation.
    pub(super) fn tensor_core_product(
        &mut self,
        a: usize,
        b: usize,
        out: usize,
        [m, k, n]: [u32; 3],
        span: Span,
    ) {
        if self.loop_depth > 0 {
            self.emit(StmtKind::Barrier, span);
        }
        let present = self.value(Op::Ctx(CtxField::TensorCores), Scalar::I32, span);
        let on = self.value(
            Op::Compare(CompareOp::Ne, Scalar::I32, present, Operand::Const(0)),
            Scalar::Bool,
            span,
        );
        let then_block = self.nested(|lw| lw.warp_blocks(a, b, out, [m, k, n], span));
        let else_block = self.nested(|lw| lw.mma_rule_product(a, b, out, [m, k, n], span));
        self.emit(
            StmtKind::If {
                condition: on,
                then_block,
                else_block,
            },
            span,
        );
        self.emit(StmtKind::Barrier, span);
    }

    /// Each warp's blocks of `out = a @ b` by `mma`.
    fn warp_blocks(&mut self, a: usize, b: usize, out: usize, [m, k, n]: [u32; 3], span: Span) {
        let fragment = |lw: &mut Self, name: &str, element: Scalar, len: u32| {
            lw.locals.push(LocalArray {
                name: name.to_owned(),
                element,
                shape: vec![len],
                in_registers: true,
            });
            lw.locals.len() - 1
        };
        let fa = fragment(self, "mma_a", Scalar::F16, Matrix::A.per_lane());
        let fb = fragment(self, "mma_b", Scalar::F16, Matrix::B.per_lane());
        let fc = fragment(self, "mma_c", Scalar::F32, Matrix::C.per_lane());
        let start = Op::Ctx(CtxField::Warp);
        let step = self.value(Op::Ctx(CtxField::Warps), Scalar::I32, span);
        let blocks = (m / 16) * (n / 8);
        self.counting_loop(
            "block",
            start,
            step,
            Operand::Const(blocks),
            span,
            |lw, block| {
                let at = lw.unflatten(block, &[m / 16, n / 8], span);
                let times = |lw: &mut Self, x: Operand, by: u32| {
                    lw.value(
                        Op::Binary(BinaryOp::Mul, Scalar::I32, x, Operand::Const(by)),
                        Scalar::I32,
                        span,
                    )
                };
                let (row, col) = (times(lw, at[0], 16), times(lw, at[1], 8));
                for i in 0..Matrix::C.per_lane() {
                    lw.emit(
                        StmtKind::LocalStore {
                            array: fc,
                            index: Operand::Const(i),
                            coordinates: Vec::new(),
                            value: Operand::Const(0),
                        },
                        span,
                    );
                }
                lw.counted(k / 16, span, |lw, step| {
                    let k0 = times(lw, step, 16);
                    let tile = Block2::at;
                    lw.load_fragment(Matrix::A, &tile(Memory::Tile(a), row, k0), fa, span);
                    lw.load_fragment(Matrix::B, &tile(Memory::Tile(b), k0, col), fb, span);
                    lw.emit(
                        StmtKind::Mma {
                            a: fa,
                            b: fb,
                            c: fc,
                            d: fc,
                        },
                        span,
                    );
                });
                let block = Block2::at(Memory::Tile(out), row, col);
                lw.store_fragment(&block, fc, span);
            },
        );
    }

    /// `out = a @ b` by `crate::mma`'s rule, a thread an element: for each 16 columns of A in
    /// turn, the products summed in increasing `k` from the first one, then the running total
    /// added to that sum (+0 to begin with), as `warp_blocks`'s `mma`s do.
    fn mma_rule_product(
        &mut self,
        a: usize,
        b: usize,
        out: usize,
        [m, k, n]: [u32; 3],
        span: Span,
    ) {
        let start = Op::Ctx(CtxField::Thread);
        let step = self.value(Op::Ctx(CtxField::Threads), Scalar::I32, span);
        self.counting_loop("e", start, step, Operand::Const(m * n), span, |lw, e| {
            let ij = lw.unflatten(e, &[m, n], span);
            let total = lw.internal_reg(Scalar::F32, "acc");
            lw.emit(
                StmtKind::Let {
                    dst: total,
                    op: Op::Copy(Operand::Const(0)),
                },
                span,
            );
            lw.counted(k / 16, span, |lw, chunk| {
                let k0 = lw.value(
                    Op::Binary(BinaryOp::Mul, Scalar::I32, chunk, Operand::Const(16)),
                    Scalar::I32,
                    span,
                );
                let sum = lw.internal_reg(Scalar::F32, "sum");
                let first = lw.product_term([a, b], &ij, k0, HALVES_IN_F32, span);
                lw.emit(
                    StmtKind::Let {
                        dst: sum,
                        op: Op::Copy(first),
                    },
                    span,
                );
                let next = lw.value(
                    Op::Binary(BinaryOp::Add, Scalar::I32, k0, Operand::Const(1)),
                    Scalar::I32,
                    span,
                );
                lw.counted(15, span, |lw, j| {
                    let kk = lw.value(
                        Op::Binary(BinaryOp::Add, Scalar::I32, next, j),
                        Scalar::I32,
                        span,
                    );
                    let p = lw.product_term([a, b], &ij, kk, HALVES_IN_F32, span);
                    lw.emit(
                        StmtKind::Let {
                            dst: sum,
                            op: Op::Binary(BinaryOp::Add, Scalar::F32, Operand::Reg(sum), p),
                        },
                        span,
                    );
                });
                lw.emit(
                    StmtKind::Let {
                        dst: total,
                        op: Op::Binary(
                            BinaryOp::Add,
                            Scalar::F32,
                            Operand::Reg(sum),
                            Operand::Reg(total),
                        ),
                    },
                    span,
                );
            });
            lw.emit(
                StmtKind::SharedStore {
                    array: out,
                    indices: ij,
                    value: Operand::Reg(total),
                },
                span,
            );
        });
    }
}
