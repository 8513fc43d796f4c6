//! Tile lowering: tile values become shared-memory arrays, and every tile operation a
//! cooperative loop over `ctx.thread` (element `e` is done by thread `e mod ctx.threads`)
//! followed by a barrier. A scratch tile (`tile<f32>[32](0.0)`) is an array of its own filled
//! the same way.
//!
//! Loads read 0 outside the tensor and stores outside it are dropped (`guarded`), as the
//! brief's tile semantics say; the checker has already made tile starts uniform, lengths
//! literal and the control around tile operations uniform.
//!
//! The product of `f16` tiles into `f32` whose extents are multiples of m16n8k16's, in a CTA of
//! whole warps, goes to tensor cores where the target has them (`tensor_tiles.rs`).

use super::lowering::{Binding, Lowering};
use super::*;
use crate::syntax::ast::{self, ExprKind, IndexArg};

/// The most elements of a product one thread keeps in registers ([`Lowering::product`]).
const BLOCKED: u32 = 8;

/// Where a tile operation's elements come from, per axis of the tensor.
enum Axis {
    /// A tile axis: `start :+ length`, or a whole axis (`start` 0); `ty` is the start's index
    /// type (`Lowering::index`), which its element indices keep.
    Range {
        start: Operand,
        ty: Scalar,
        length: u32,
    },
    /// A single index: the axis is dropped from the tile's shape.
    Fixed(Operand),
}

/// The reduction a tile `sum` or `max` performs, for its identity.
fn reduction(op: BinaryOp) -> Reduce {
    if op == BinaryOp::Max {
        Reduce::Max
    } else {
        Reduce::Sum
    }
}

impl Lowering {
    /// Whether `e` is a tile value (so it lowers to a shared array, not a register).
    pub(super) fn is_tile_value(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Name(name) => matches!(self.lookup(name), Some(Binding::Tile(_))),
            ExprKind::Index { base, indices } => {
                let tensor = matches!(&base.kind, ExprKind::Name(n) if matches!(self.lookup(n), Some(Binding::Tensor(_))));
                tensor && indices.iter().any(|i| !matches!(i, IndexArg::Single(_)))
            }
            ExprKind::Binary(ast::BinaryOp::MatMul, ..) | ExprKind::Scratch { .. } => true,
            ExprKind::Binary(_, l, r) => self.is_tile_value(l) || self.is_tile_value(r),
            ExprKind::Unary(_, operand) => self.is_tile_value(operand),
            ExprKind::Call { callee, args } if is_tile_cast(&callee.name) => {
                args.first().is_some_and(|a| self.is_tile_value(a))
            }
            ExprKind::Call { callee, args } => {
                matches!(callee.name.as_str(), "sum" | "max")
                    && args.first().is_some_and(|a| self.is_tile_value(a))
                    && self.tile_rank_after_reduce(args) > 0
            }
            _ => false,
        }
    }

    fn tile_rank_after_reduce(&self, args: &[ast::Expr]) -> usize {
        self.static_tile_rank(&args[0]).saturating_sub(1)
    }

    fn static_tile_rank(&self, e: &ast::Expr) -> usize {
        match &e.kind {
            ExprKind::Name(name) => match self.lookup(name) {
                Some(Binding::Tile(array)) => self.shared[array].shape.len(),
                _ => 0,
            },
            ExprKind::Index { indices, .. } => indices
                .iter()
                .filter(|i| !matches!(i, IndexArg::Single(_)))
                .count(),
            ExprKind::Binary(ast::BinaryOp::MatMul, ..) => 2,
            ExprKind::Scratch { shape, .. } => shape.len(),
            ExprKind::Binary(_, l, r) => self.static_tile_rank(l).max(self.static_tile_rank(r)),
            ExprKind::Unary(_, operand) => self.static_tile_rank(operand),
            ExprKind::Call { callee, args } if is_tile_cast(&callee.name) => {
                args.first().map_or(0, |a| self.static_tile_rank(a))
            }
            ExprKind::Call { args, .. } => args
                .first()
                .map_or(0, |a| self.static_tile_rank(a))
                .saturating_sub(1),
            _ => 0,
        }
    }

    fn new_array(&mut self, name: &str, element: Scalar, shape: Vec<u32>) -> usize {
        self.shared.push(SharedArray {
            name: name.to_owned(),
            element,
            storage: shape.clone(),
            shape,
            per_warp: false,
        });
        self.shared.len() - 1
    }

    /// `for e in range(ctx.thread, count, ctx.threads) { body(e) }`, then `barrier`. Inside a
    /// source loop a barrier comes first too: the shared array this fills is the one the last
    /// trip filled, and threads may still be reading it there (a race the simulator reports).
    fn cooperative(&mut self, count: u32, span: Span, body: impl FnOnce(&mut Self, Operand)) {
        self.barrier_before_reuse(span);
        let start = Op::Ctx(CtxField::Thread);
        let step = self.value(Op::Ctx(CtxField::Threads), Scalar::I32, span);
        self.counting_loop("e", start, step, Operand::Const(count), span, body);
        self.emit(StmtKind::Barrier, span);
    }

    /// Inside a source loop, the barrier before a tile operation fills an array again, unless
    /// the statement just before is one (two tile operations in a row: the first one's).
    fn barrier_before_reuse(&mut self, span: Span) {
        let after_barrier = self
            .blocks
            .last()
            .and_then(|b| b.last())
            .is_some_and(|s| matches!(s.kind, StmtKind::Barrier));
        if self.loop_depth > 0 && !after_barrier {
            self.emit(StmtKind::Barrier, span);
        }
    }

    /// `for k in range(count) { body(k) }` in every thread.
    pub(super) fn counted(
        &mut self,
        count: u32,
        span: Span,
        body: impl FnOnce(&mut Self, Operand),
    ) {
        self.counting_loop(
            "k",
            Op::Copy(Operand::Const(0)),
            Operand::Const(1),
            Operand::Const(count),
            span,
            body,
        );
    }

    /// `name = start; while name < count { body(name); name += step }`.
    pub(super) fn counting_loop(
        &mut self,
        name: &str,
        start: Op,
        step: Operand,
        count: Operand,
        span: Span,
        body: impl FnOnce(&mut Self, Operand),
    ) {
        let counter = self.internal_reg(Scalar::I32, name);
        self.emit(
            StmtKind::Let {
                dst: counter,
                op: start,
            },
            span,
        );
        let index = Operand::Reg(counter);
        let body = self.nested(|l| {
            let running = l.value(
                Op::Compare(CompareOp::Lt, Scalar::I32, index, count),
                Scalar::Bool,
                span,
            );
            l.exit_unless(running, span);
            body(l, index);
        });
        let continuing = vec![Stmt {
            kind: StmtKind::Let {
                dst: counter,
                op: Op::Binary(BinaryOp::Add, Scalar::I32, index, step),
            },
            span,
            statement: self.statement,
        }];
        self.emit(StmtKind::Loop { body, continuing }, span);
    }

    /// The coordinates of flat element `e` in a row-major `shape`.
    pub(super) fn unflatten(&mut self, e: Operand, shape: &[u32], span: Span) -> Vec<Operand> {
        let mut coordinates = Vec::new();
        let mut stride: u32 = shape.iter().product();
        for &extent in shape {
            stride /= extent.max(1);
            let quotient = self.value(
                Op::Binary(BinaryOp::Div, Scalar::I32, e, Operand::Const(stride.max(1))),
                Scalar::I32,
                span,
            );
            let coordinate = self.value(
                Op::Binary(
                    BinaryOp::Rem,
                    Scalar::I32,
                    quotient,
                    Operand::Const(extent.max(1)),
                ),
                Scalar::I32,
                span,
            );
            coordinates.push(coordinate);
        }
        coordinates
    }

    /// Lowers a tile value to the shared array that holds it (a new one unless it names an
    /// existing tile).
    pub(super) fn tile(&mut self, e: &ast::Expr) -> Option<usize> {
        let span = e.span;
        match &e.kind {
            ExprKind::Name(name) => match self.lookup(name) {
                Some(Binding::Tile(array)) => Some(array),
                _ => None,
            },
            ExprKind::Index { base, indices } => {
                let ExprKind::Name(name) = &base.kind else {
                    return None;
                };
                let Some(Binding::Tensor(tensor)) = self.lookup(name) else {
                    return None;
                };
                let (element, axes) = self.tile_axes(tensor, indices)?;
                // A tile of 8-bit elements holds their widened values.
                let element = element.widened();
                let shape: Vec<u32> = axes
                    .iter()
                    .filter_map(|a| match a {
                        Axis::Range { length, .. } => Some(*length),
                        Axis::Fixed(_) => None,
                    })
                    .collect();
                let array = self.new_array(&format!("{name}_tile"), element, shape.clone());
                let count = shape.iter().product();
                self.cooperative(count, span, |l, e| {
                    let local = l.unflatten(e, &shape, span);
                    let global = l.global_indices(&axes, &local, span);
                    let value = l.value(
                        Op::Load {
                            tensor,
                            indices: global,
                            guarded: true,
                        },
                        element,
                        span,
                    );
                    l.emit(
                        StmtKind::SharedStore {
                            array,
                            indices: local,
                            value,
                        },
                        span,
                    );
                });
                Some(array)
            }
            ExprKind::Scratch {
                element,
                shape,
                fill,
            } => {
                let element = Scalar::from_name(&element.name)?;
                let shape: Vec<u32> = shape
                    .iter()
                    .map(|n| match n {
                        IndexArg::Single(ast::Expr {
                            kind: ExprKind::Int(Some(n)),
                            ..
                        }) => u32::try_from(*n).ok(),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                let (value, _) = self.expr(fill.first()?, Some(element));
                let array = self.new_array("scratch", element, shape.clone());
                self.cooperative(shape.iter().product(), span, |l, e| {
                    let at = l.unflatten(e, &shape, span);
                    l.emit(
                        StmtKind::SharedStore {
                            array,
                            indices: at,
                            value,
                        },
                        span,
                    );
                });
                Some(array)
            }
            ExprKind::Binary(ast::BinaryOp::MatMul, l, r) => self.matmul(l, r, None, span),
            ExprKind::Call { callee, args } if is_tile_cast(&callee.name) => {
                let source = self.tile(args.first()?)?;
                let to = Scalar::from_name(&callee.name)?;
                let (from, shape) = (
                    self.shared[source].element,
                    self.shared[source].shape.clone(),
                );
                let array = self.new_array(&callee.name, to, shape.clone());
                self.cooperative(shape.iter().product(), span, |l, e| {
                    let at = l.unflatten(e, &shape, span);
                    let x = l.value(
                        Op::SharedLoad {
                            array: source,
                            indices: at.clone(),
                        },
                        from,
                        span,
                    );
                    let y = l.value(Op::Cast { from, to, value: x }, to, span);
                    l.emit(
                        StmtKind::SharedStore {
                            array,
                            indices: at,
                            value: y,
                        },
                        span,
                    );
                });
                Some(array)
            }
            ExprKind::Binary(op, l, r) => {
                let op = super::lowering::binary_op(*op)?;
                self.elementwise(l, r, op, span)
            }
            _ => self.tile_rest(e),
        }
    }

    /// `a @ b`: each element a sum over k, in increasing k from 0, of the products. With
    /// `into` the `f32` of the tile it goes into and `f16` operands (`acc += a @ b`), each
    /// product is taken in `f32`, where an `f16` × `f16` product is exact, and the sum is
    /// `f32`'s.
    pub(super) fn matmul(
        &mut self,
        l: &ast::Expr,
        r: &ast::Expr,
        into: Option<Scalar>,
        span: Span,
    ) -> Option<usize> {
        let (a, b) = (self.tile(l)?, self.tile(r)?);
        let (shape, types) = self.product_shape([a, b], into);
        Some(self.product_array([a, b], shape, types, span))
    }

    /// The product of tiles `a` and `b` in an array of its own, on tensor cores where it can.
    fn product_array(
        &mut self,
        [a, b]: [usize; 2],
        shape: [u32; 3],
        types: [Scalar; 2],
        span: Span,
    ) -> usize {
        let array = self.new_array("matmul", types[1], vec![shape[0], shape[2]]);
        if super::tensor_tiles::on_tensor_cores(types[0], types[1], shape, self.threads) {
            self.tensor_core_product(a, b, array, shape, span);
        } else {
            self.product([a, b], shape, types, (array, None), span);
        }
        array
    }

    /// A product's `[m, k, n]` and its `[operand, element]` types (see [`Lowering::matmul`]).
    fn product_shape(&self, [a, b]: [usize; 2], into: Option<Scalar>) -> ([u32; 3], [Scalar; 2]) {
        let operand = self.shared[a].element;
        let element = match into {
            Some(Scalar::F32) if operand == Scalar::F16 => Scalar::F32,
            _ => operand,
        };
        let (m, k, n) = (
            self.shared[a].shape[0],
            self.shared[a].shape[1],
            self.shared[b].shape[1],
        );
        ([m, k, n], [operand, element])
    }

    /// The product of tiles `a` and `b` into `dest`: each element's sum (a register) is stored,
    /// or with `op` combined with the element there (`acc += a @ b` in place, with no tile of
    /// its own in between: the same bits, `acc + (the whole sum)`).
    ///
    /// Thread `t` computes the elements `t`, `t + threads`, … of the row-major product, as
    /// every cooperative loop deals them. Where `threads` is a multiple of `n` and deals each
    /// thread the same number of elements (at most [`BLOCKED`]), those elements share one
    /// column, so the thread keeps one sum a row in registers and goes over `k` once, loading
    /// `b[k, j]` once for all its rows (as a hand-written tiled matmul does; issue 55: 1.7× the
    /// hand-written WGSL's time before). Each sum still adds its products in increasing `k`.
    fn product(
        &mut self,
        [a, b]: [usize; 2],
        [m, k, n]: [u32; 3],
        [operand, element]: [Scalar; 2],
        (dest, op): (usize, Option<BinaryOp>),
        span: Span,
    ) {
        let finish = |lw: &mut Self, ij: Vec<Operand>, acc: Reg| {
            let value = match op {
                Some(op) => {
                    let x = lw.value(
                        Op::SharedLoad {
                            array: dest,
                            indices: ij.clone(),
                        },
                        element,
                        span,
                    );
                    lw.value(Op::Binary(op, element, x, Operand::Reg(acc)), element, span)
                }
                None => Operand::Reg(acc),
            };
            lw.emit(
                StmtKind::SharedStore {
                    array: dest,
                    indices: ij,
                    value,
                },
                span,
            );
        };
        let zeroed = |lw: &mut Self| {
            let acc = lw.internal_reg(element, "acc");
            lw.emit(
                StmtKind::Let {
                    dst: acc,
                    op: Op::Copy(Operand::Const(0)),
                },
                span,
            );
            acc
        };
        let threads = self.threads;
        let rows = (m * n).checked_div(threads).unwrap_or(0);
        let blocked = threads.is_multiple_of(n.max(1)) && (m * n).is_multiple_of(threads.max(1));
        if !(blocked && (1..=BLOCKED).contains(&rows)) {
            self.cooperative(m * n, span, |lw, e| {
                let ij = lw.unflatten(e, &[m, n], span);
                let acc = zeroed(lw);
                lw.counted(k, span, |lw, kk| {
                    let product = lw.product_term([a, b], &ij, kk, [operand, element], span);
                    let sum = Op::Binary(BinaryOp::Add, element, Operand::Reg(acc), product);
                    lw.emit(StmtKind::Let { dst: acc, op: sum }, span);
                });
                finish(lw, ij, acc);
            });
            return;
        }
        self.barrier_before_reuse(span);
        let thread = self.value(Op::Ctx(CtxField::Thread), Scalar::I32, span);
        let n_op = Operand::Const(n);
        let j = self.value(
            Op::Binary(BinaryOp::Rem, Scalar::I32, thread, n_op),
            Scalar::I32,
            span,
        );
        let first = self.value(
            Op::Binary(BinaryOp::Div, Scalar::I32, thread, n_op),
            Scalar::I32,
            span,
        );
        let rows: Vec<Operand> = (0..rows)
            .map(|c| {
                let step = Operand::Const(c * (threads / n));
                self.value(
                    Op::Binary(BinaryOp::Add, Scalar::I32, first, step),
                    Scalar::I32,
                    span,
                )
            })
            .collect();
        let accs: Vec<Reg> = rows.iter().map(|_| zeroed(self)).collect();
        self.counted(k, span, |lw, kk| {
            let y = lw.widened_load(b, vec![kk, j], [operand, element], span);
            for (&i, &acc) in rows.iter().zip(&accs) {
                let x = lw.widened_load(a, vec![i, kk], [operand, element], span);
                let product = lw.value(Op::Binary(BinaryOp::Mul, element, x, y), element, span);
                let sum = Op::Binary(BinaryOp::Add, element, Operand::Reg(acc), product);
                lw.emit(StmtKind::Let { dst: acc, op: sum }, span);
            }
        });
        for (&i, &acc) in rows.iter().zip(&accs) {
            finish(self, vec![i, j], acc);
        }
        self.emit(StmtKind::Barrier, span);
    }

    /// `a[i, kk] * b[kk, j]` of tiles of `operand`, taken in `element` (each factor widened
    /// first where the two differ: an `f16` product in `f32` is exact).
    pub(super) fn product_term(
        &mut self,
        [a, b]: [usize; 2],
        ij: &[Operand],
        kk: Operand,
        types: [Scalar; 2],
        span: Span,
    ) -> Operand {
        let x = self.widened_load(a, vec![ij[0], kk], types, span);
        let y = self.widened_load(b, vec![kk, ij[1]], types, span);
        let element = types[1];
        self.value(Op::Binary(BinaryOp::Mul, element, x, y), element, span)
    }

    /// An element of tile `array` of `operand`s, in `element`.
    fn widened_load(
        &mut self,
        array: usize,
        indices: Vec<Operand>,
        [operand, element]: [Scalar; 2],
        span: Span,
    ) -> Operand {
        let v = self.value(Op::SharedLoad { array, indices }, operand, span);
        if element == operand {
            return v;
        }
        let cast = Op::Cast {
            from: operand,
            to: element,
            value: v,
        };
        self.value(cast, element, span)
    }

    /// The other tile expressions: a negation, a reduction of a tile along an axis.
    fn tile_rest(&mut self, e: &ast::Expr) -> Option<usize> {
        let span = e.span;
        match &e.kind {
            ExprKind::Unary(ast::UnaryOp::Neg, operand) => {
                let source = self.tile(operand)?;
                let (element, shape) = (
                    self.shared[source].element,
                    self.shared[source].shape.clone(),
                );
                let array = self.new_array("neg", element, shape.clone());
                self.cooperative(shape.iter().product(), span, |l, e| {
                    let at = l.unflatten(e, &shape, span);
                    let x = l.value(
                        Op::SharedLoad {
                            array: source,
                            indices: at.clone(),
                        },
                        element,
                        span,
                    );
                    let y = l.value(Op::Unary(UnaryOp::Neg, element, x), element, span);
                    l.emit(
                        StmtKind::SharedStore {
                            array,
                            indices: at,
                            value: y,
                        },
                        span,
                    );
                });
                Some(array)
            }
            ExprKind::Call { callee, args } => {
                let source = self.tile(&args[0])?;
                let axis = match args.get(1).map(|a| &a.kind) {
                    Some(ExprKind::Int(Some(axis))) => *axis as usize,
                    _ => 0,
                };
                let reduce = if callee.name == "max" {
                    BinaryOp::Max
                } else {
                    BinaryOp::Add
                };
                let (element, shape) = (
                    self.shared[source].element,
                    self.shared[source].shape.clone(),
                );
                let mut out_shape = shape.clone();
                let reduced = out_shape.remove(axis.min(shape.len() - 1));
                let array = self.new_array(&callee.name, element, out_shape.clone());
                self.cooperative(out_shape.iter().product(), span, |l, e| {
                    let out_at = l.unflatten(e, &out_shape, span);
                    let acc = l.internal_reg(element, "acc");
                    let start = Operand::Const(reduction(reduce).identity(element));
                    l.emit(
                        StmtKind::Let {
                            dst: acc,
                            op: Op::Copy(start),
                        },
                        span,
                    );
                    l.counted(reduced, span, |l, r| {
                        let mut at = out_at.clone();
                        at.insert(axis, r);
                        let x = l.value(
                            Op::SharedLoad {
                                array: source,
                                indices: at,
                            },
                            element,
                            span,
                        );
                        l.emit(
                            StmtKind::Let {
                                dst: acc,
                                op: Op::Binary(reduce, element, Operand::Reg(acc), x),
                            },
                            span,
                        );
                    });
                    l.emit(
                        StmtKind::SharedStore {
                            array,
                            indices: out_at,
                            value: Operand::Reg(acc),
                        },
                        span,
                    );
                });
                Some(array)
            }
            _ => None,
        }
    }

    /// `sum(t, 0)` / `max(t, 0)` of a 1-D tile: a scalar, computed by every thread (the same
    /// value in each, so it is uniform as the checker says).
    pub(super) fn tile_to_scalar(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> (Operand, Scalar) {
        let Some(source) = self.tile(&args[0]) else {
            return (Operand::Const(0), Scalar::F32);
        };
        let (element, count) = (
            self.shared[source].element,
            self.shared[source].len() as u32,
        );
        let reduce = if name == "max" {
            BinaryOp::Max
        } else {
            BinaryOp::Add
        };
        let acc = self.internal_reg(element, "acc");
        let start = Operand::Const(reduction(reduce).identity(element));
        self.emit(
            StmtKind::Let {
                dst: acc,
                op: Op::Copy(start),
            },
            span,
        );
        self.counted(count, span, |l, i| {
            let x = l.value(
                Op::SharedLoad {
                    array: source,
                    indices: vec![i],
                },
                element,
                span,
            );
            l.emit(
                StmtKind::Let {
                    dst: acc,
                    op: Op::Binary(reduce, element, Operand::Reg(acc), x),
                },
                span,
            );
        });
        (Operand::Reg(acc), element)
    }

    /// `l op r` with at least one tile operand; a scalar operand applies to every element.
    fn elementwise(
        &mut self,
        l: &ast::Expr,
        r: &ast::Expr,
        op: BinaryOp,
        span: Span,
    ) -> Option<usize> {
        let left_tile = self.is_tile_value(l);
        let right_tile = self.is_tile_value(r);
        let a = if left_tile { Some(self.tile(l)?) } else { None };
        let b = if right_tile {
            Some(self.tile(r)?)
        } else {
            None
        };
        let reference = a.or(b)?;
        let (element, shape) = (
            self.shared[reference].element,
            self.shared[reference].shape.clone(),
        );
        let scalar = match (left_tile, right_tile) {
            (true, false) => Some(self.expr(r, Some(element)).0),
            (false, true) => Some(self.expr(l, Some(element)).0),
            _ => None,
        };
        let array = self.new_array("elementwise", element, shape.clone());
        self.cooperative(shape.iter().product(), span, |lw, e| {
            let at = lw.unflatten(e, &shape, span);
            let operand = |tile: Option<usize>, lw: &mut Self| match tile {
                Some(t) => lw.value(
                    Op::SharedLoad {
                        array: t,
                        indices: at.clone(),
                    },
                    element,
                    span,
                ),
                None => scalar.unwrap_or(Operand::Const(0)),
            };
            let x = operand(a, lw);
            let y = operand(b, lw);
            let z = lw.value(Op::Binary(op, element, x, y), element, span);
            lw.emit(
                StmtKind::SharedStore {
                    array,
                    indices: at,
                    value: z,
                },
                span,
            );
        });
        Some(array)
    }

    fn tile_axes(&mut self, tensor: usize, indices: &[IndexArg]) -> Option<(Scalar, Vec<Axis>)> {
        let Param::Tensor { element, dims, .. } = self.params[tensor].clone() else {
            return None;
        };
        let mut axes = Vec::new();
        for (index, dim) in indices.iter().zip(&dims) {
            axes.push(match index {
                IndexArg::Single(e) => Axis::Fixed(self.index(e).0),
                IndexArg::Tile { start, length } => {
                    let (start, ty) = self.index(start);
                    let length = match length.kind {
                        ExprKind::Int(Some(n)) => n as u32,
                        _ => return None,
                    };
                    Axis::Range { start, ty, length }
                }
                IndexArg::Whole(_) => match dim {
                    DimRef::Literal(n) => Axis::Range {
                        start: Operand::Const(0),
                        ty: Scalar::I32,
                        length: *n,
                    },
                    DimRef::Dim(_) => return None,
                },
            });
        }
        Some((element, axes))
    }

    fn global_indices(&mut self, axes: &[Axis], local: &[Operand], span: Span) -> Vec<Operand> {
        let mut local = local.iter();
        axes.iter()
            .map(|axis| match axis {
                Axis::Fixed(index) => *index,
                Axis::Range { start, ty, .. } => {
                    let offset = local.next().copied().unwrap_or(Operand::Const(0));
                    self.value(Op::Binary(BinaryOp::Add, *ty, *start, offset), *ty, span)
                }
            })
            .collect()
    }

    /// `C[r :+ 64, :] = value`: a tile (of the view's shape) or a scalar, stored cooperatively;
    /// elements outside the tensor are dropped.
    pub(super) fn tile_store(
        &mut self,
        tensor: usize,
        indices: &[IndexArg],
        value: &ast::Expr,
        span: Span,
    ) {
        let Some((element, axes)) = self.tile_axes(tensor, indices) else {
            return;
        };
        let shape: Vec<u32> = axes
            .iter()
            .filter_map(|a| match a {
                Axis::Range { length, .. } => Some(*length),
                Axis::Fixed(_) => None,
            })
            .collect();
        let source = if self.is_tile_value(value) {
            self.tile(value)
        } else {
            None
        };
        let scalar = match source {
            Some(_) => None,
            None => Some(self.expr(value, Some(element)).0),
        };
        self.cooperative(shape.iter().product(), span, |l, e| {
            let local = l.unflatten(e, &shape, span);
            let global = l.global_indices(&axes, &local, span);
            let value = match (source, scalar) {
                (Some(array), _) => l.value(
                    Op::SharedLoad {
                        array,
                        indices: local,
                    },
                    element,
                    span,
                ),
                (None, Some(value)) => value,
                (None, None) => Operand::Const(0),
            };
            l.emit(
                StmtKind::Store {
                    tensor,
                    indices: global,
                    value,
                    guarded: true,
                },
                span,
            );
        });
    }

    /// `t = <tile>` or `t op= <tile>` for a tile variable `t`: element by element, in place.
    pub(super) fn tile_assign(
        &mut self,
        target: usize,
        op: Option<BinaryOp>,
        value: &ast::Expr,
        span: Span,
    ) {
        let (element, shape) = (
            self.shared[target].element,
            self.shared[target].shape.clone(),
        );
        // `acc += a @ b` of f16 tiles into an f32 tile: the products and sums in f32.
        let source = match &value.kind {
            ExprKind::Binary(ast::BinaryOp::MatMul, l, r) => {
                let (Some(a), Some(b)) = (self.tile(l), self.tile(r)) else {
                    return;
                };
                let (shape, types) = self.product_shape([a, b], Some(element));
                let tensor =
                    super::tensor_tiles::on_tensor_cores(types[0], types[1], shape, self.threads);
                // Into `target` in place, unless it is an operand too (`t = t @ b`).
                if !tensor && target != a && target != b {
                    self.product([a, b], shape, types, (target, op), value.span);
                    return;
                }
                Some(self.product_array([a, b], shape, types, value.span))
            }
            _ => self.tile(value),
        };
        let Some(source) = source else {
            return;
        };
        self.cooperative(shape.iter().product(), span, |l, e| {
            let at = l.unflatten(e, &shape, span);
            let y = l.value(
                Op::SharedLoad {
                    array: source,
                    indices: at.clone(),
                },
                element,
                span,
            );
            let z = match op {
                Some(op) => {
                    let x = l.value(
                        Op::SharedLoad {
                            array: target,
                            indices: at.clone(),
                        },
                        element,
                        span,
                    );
                    l.value(Op::Binary(op, element, x, y), element, span)
                }
                None => y,
            };
            l.emit(
                StmtKind::SharedStore {
                    array: target,
                    indices: at,
                    value: z,
                },
                span,
            );
        });
    }

    /// `prefix_sum<over ctx.thread>(x)`, lowered as the textbook writes it, so the IR and PTX
    /// tabs show the lesson: each warp scans its lanes; the last lane of each warp writes the
    /// warp's total to a scratch tile with a slot per warp (`threads` slots: warps are
    /// `ctx.lanes` wide, known only at launch); after a barrier, warp 0 scans the totals in
    /// place, `ctx.lanes` at a time with a carry; after another barrier, each thread adds the
    /// totals of the warps before its own. Inside a source loop a barrier comes first, as for
    /// every tile operation: the last trip's threads may still be reading the totals.
    pub(super) fn cta_prefix_sum(&mut self, ty: Scalar, x: Operand, span: Span) -> Operand {
        let threads = self.threads;
        if self.loop_depth > 0 {
            self.emit(StmtKind::Barrier, span);
        }
        let ctx = |l: &mut Self, field| l.value(Op::Ctx(field), Scalar::I32, span);
        let int =
            |l: &mut Self, op, a, b| l.value(Op::Binary(op, Scalar::I32, a, b), Scalar::I32, span);
        let compare = |l: &mut Self, op, a, b| {
            l.value(Op::Compare(op, Scalar::I32, a, b), Scalar::Bool, span)
        };
        // A slot per warp: the IR cannot know the warp width, so the array names the most
        // warps there can be, and each backend stores as many as its warps need.
        let totals = self.new_array("warp_totals", ty, vec![threads]);
        self.shared[totals].per_warp = true;
        let scanned = self.value(Op::PrefixSum(ty, x), ty, span);
        let (lane, lanes, warp) = (
            ctx(self, CtxField::Lane),
            ctx(self, CtxField::Lanes),
            ctx(self, CtxField::Warp),
        );
        // The warp's last lane: a CTA's last warp may be partial.
        let threads_op = ctx(self, CtxField::Threads);
        let first = int(self, BinaryOp::Mul, warp, lanes);
        let left = int(self, BinaryOp::Sub, threads_op, first);
        let width = int(self, BinaryOp::Min, lanes, left);
        let last = int(self, BinaryOp::Sub, width, Operand::Const(1));
        let is_last = compare(self, CompareOp::Eq, lane, last);
        self.when(is_last, span, |l| {
            l.emit(
                StmtKind::SharedStore {
                    array: totals,
                    indices: vec![warp],
                    value: scanned,
                },
                span,
            );
        });
        self.emit(StmtKind::Barrier, span);
        // Warp 0 scans the totals, a warp's width at a time, carrying each chunk's sum.
        let is_first_warp = compare(self, CompareOp::Eq, warp, Operand::Const(0));
        self.when(is_first_warp, span, |l| {
            let warps = ctx(l, CtxField::Warps);
            let carry = l.internal_reg(ty, "carry");
            l.emit(
                StmtKind::Let {
                    dst: carry,
                    op: Op::Copy(Operand::Const(0)),
                },
                span,
            );
            l.counting_loop(
                "base",
                Op::Copy(Operand::Const(0)),
                lanes,
                warps,
                span,
                |l, base| {
                    let at = int(l, BinaryOp::Add, base, lane);
                    let inside = compare(l, CompareOp::Lt, at, warps);
                    // Lanes past the last warp scan a 0 and read no slot.
                    let total = l.internal_reg(ty, "total");
                    l.emit(
                        StmtKind::Let {
                            dst: total,
                            op: Op::Copy(Operand::Const(0)),
                        },
                        span,
                    );
                    l.when(inside, span, |l| {
                        l.emit(
                            StmtKind::Let {
                                dst: total,
                                op: Op::SharedLoad {
                                    array: totals,
                                    indices: vec![at],
                                },
                            },
                            span,
                        );
                    });
                    let chunk = l.value(Op::PrefixSum(ty, Operand::Reg(total)), ty, span);
                    let sum = l.value(
                        Op::Binary(BinaryOp::Add, ty, chunk, Operand::Reg(carry)),
                        ty,
                        span,
                    );
                    l.when(inside, span, |l| {
                        l.emit(
                            StmtKind::SharedStore {
                                array: totals,
                                indices: vec![at],
                                value: sum,
                            },
                            span,
                        );
                    });
                    let top = int(l, BinaryOp::Sub, lanes, Operand::Const(1));
                    l.emit(
                        StmtKind::Let {
                            dst: carry,
                            op: Op::Shuffle(Shuffle::Broadcast, sum, top),
                        },
                        span,
                    );
                },
            );
        });
        self.emit(StmtKind::Barrier, span);
        // The warps before this one: the total up to the last of them, none for warp 0.
        let has_before = compare(self, CompareOp::Gt, warp, Operand::Const(0));
        let before = int(self, BinaryOp::Sub, warp, Operand::Const(1));
        let before = int(self, BinaryOp::Max, before, Operand::Const(0));
        let offset = self.value(
            Op::SharedLoad {
                array: totals,
                indices: vec![before],
            },
            ty,
            span,
        );
        let offset = self.value(Op::Select(has_before, offset, Operand::Const(0)), ty, span);
        self.value(Op::Binary(BinaryOp::Add, ty, scanned, offset), ty, span)
    }

    /// `var t = <tile>`: the array that holds `t` (a copy when the value names another tile,
    /// since tiles are values).
    pub(super) fn tile_binding(&mut self, name: &str, value: &ast::Expr) -> Option<usize> {
        let aliased = matches!(&value.kind, ExprKind::Name(_));
        let array = self.tile(value)?;
        if !aliased {
            self.shared[array].name = name.to_owned();
            return Some(array);
        }
        let (element, shape) = (self.shared[array].element, self.shared[array].shape.clone());
        let copy = self.new_array(name, element, shape.clone());
        self.cooperative(shape.iter().product(), value.span, |l, e| {
            let at = l.unflatten(e, &shape, value.span);
            let x = l.value(
                Op::SharedLoad {
                    array,
                    indices: at.clone(),
                },
                element,
                value.span,
            );
            l.emit(
                StmtKind::SharedStore {
                    array: copy,
                    indices: at,
                    value: x,
                },
                value.span,
            );
        });
        Some(copy)
    }
}

/// Pads by one word the rows of each 2-D tile of 4-byte elements whose rows are an even number
/// of words and which the source indexes by element (`indexed`). Read down a column, 32
/// elements `w` words apart fall in `32 / gcd(w, 32)` banks, a `gcd(w, 32)`-way conflict: 32-way
/// for rows of 32 words (a transpose), 16-way for rows of 16; a row of odd length (one more
/// word) puts them in 32 different banks. Tiles only tile operations touch keep
/// their layout (their copies and products run along rows, and padding would cost shared
/// memory, so occupancy, for nothing), as does a tile some statement indexes flat (one index
/// for a 2-D tile); padding stops where the kernel's shared memory (as the PTX declares it,
/// with a CTA reduction's and a CTA scan's scratch) would pass the smallest static limit of the
/// targets, so padding never makes a kernel refused.
pub(super) fn pad_tiles(kernel: &mut Kernel, indexed: &[bool]) {
    let limit = crate::target::Arch::static_shared_bytes_everywhere();
    let mut flat = vec![false; kernel.shared.len()];
    mark_flat_access(&kernel.body, &kernel.shared, &mut flat);
    let mut bytes = crate::ptx::shared_bytes(kernel);
    for (i, array) in kernel.shared.iter_mut().enumerate() {
        let pads = array.shape.len() == 2
            && array.element.size() == 4
            && array.shape[1].is_multiple_of(2)
            && indexed.get(i).copied().unwrap_or(false)
            && !flat[i];
        if !pads {
            continue;
        }
        let extra = u64::from(array.shape[0]) * array.element.size();
        if bytes + extra > limit {
            break;
        }
        array.storage[1] += 1;
        bytes += extra;
    }
}

/// Marks the tiles some statement in `body` indexes with fewer indices than its rank.
fn mark_flat_access(body: &[Stmt], shared: &[SharedArray], flat: &mut [bool]) {
    let mark = |array: usize, indices: usize, flat: &mut [bool]| {
        if shared.get(array).is_some_and(|a| a.shape.len() != indices) {
            flat[array] = true;
        }
    };
    for stmt in body {
        match &stmt.kind {
            StmtKind::Let {
                op: Op::SharedLoad { array, indices },
                ..
            } => mark(*array, indices.len(), flat),
            StmtKind::SharedStore { array, indices, .. } => mark(*array, indices.len(), flat),
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                mark_flat_access(then_block, shared, flat);
                mark_flat_access(else_block, shared, flat);
            }
            StmtKind::Loop { body, continuing } => {
                mark_flat_access(body, shared, flat);
                mark_flat_access(continuing, shared, flat);
            }
            _ => {}
        }
    }
}

/// `f32(t)` and `f16(t)`: a tile converted element by element.
pub(super) fn is_tile_cast(name: &str) -> bool {
    matches!(name, "f32" | "f16")
}
