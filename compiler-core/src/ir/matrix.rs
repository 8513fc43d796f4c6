//! A warp's matrix operations (`crate::mma`, shape m16n8k16) in the IR.
//!
//! In: a checked `mma_load_a`, `mma_load_b`, `mma` or `mma_store` (`<over ctx.lane>`). Out:
//! a fragment is a per-thread array ([`LocalArray`], every index a constant, so registers);
//! a load fills it element by element, each lane loading the element `crate::mma`'s table
//! gives it (row and column computed from `ctx.lane`), and a store writes each lane's elements
//! the same way (of a tensor, guarded: an element outside it, axis by axis, loads as 0 and is
//! not stored, as a tile copy's); `mma` is one statement, [`StmtKind::Mma`], which the simulator computes by the
//! rule (`crate::mma::multiply`), PTX emits as `mma.sync.aligned.m16n8k16`, and WGSL gets from
//! [`expand`]: shuffles that bring each lane the rows of A and columns of B its elements of D
//! need, and `f32` products and sums in the rule's order, so WGSL gives the simulator's bits.
//!
//! Invariant: the checker let these through only with their operands' types and block shapes,
//! under warp-uniform control, in a kernel of whole warps; the launch checks that warps have 32
//! lanes, and the simulator again that all 32 lanes of a warp reach each `mma` together.

use super::lowering::{Binding, Lowering};
use super::*;
use crate::mma::{self as table, Operand as Matrix};
use crate::syntax::ast::{self, ExprKind, IndexArg};

/// The matrix operation `value` is, with its arguments: `None` for any other expression.
fn fragment_call(value: &ast::Expr) -> Option<(&str, &[ast::Expr])> {
    match &value.kind {
        ExprKind::Collective { op, args, .. }
            if crate::syntax::builtins::MATRIX.contains(&op.name.as_str()) =>
        {
            Some((op.name.as_str(), args))
        }
        _ => None,
    }
}

impl Lowering {
    /// `let name = mma_load_a<…>(…)` (or `mma_load_b`, `mma`): a new fragment array, filled.
    pub(super) fn fragment_let(&mut self, name: &str, value: &ast::Expr) -> Option<usize> {
        let (op, _) = fragment_call(value).filter(|(op, _)| *op != "mma_store")?;
        let (element, operand) = match op {
            "mma_load_a" => (Scalar::F16, Matrix::A),
            "mma_load_b" => (Scalar::F16, Matrix::B),
            _ => (Scalar::F32, Matrix::C),
        };
        self.locals.push(LocalArray {
            name: name.to_owned(),
            element,
            shape: vec![operand.per_lane()],
            in_registers: true,
        });
        let array = self.locals.len() - 1;
        self.fragment_into(array, value);
        Some(array)
    }

    /// `array = <a matrix operation>`: whether `value` is one (and was lowered into `array`).
    pub(super) fn fragment_into(&mut self, array: usize, value: &ast::Expr) -> bool {
        let Some((op, args)) = fragment_call(value) else {
            return false;
        };
        let span = value.span;
        self.matrix.get_or_insert(span);
        match op {
            "mma_load_a" | "mma_load_b" => {
                let operand = if op == "mma_load_a" {
                    Matrix::A
                } else {
                    Matrix::B
                };
                let Some(block) = self.block_start(&args[0]) else {
                    return true;
                };
                self.load_fragment(operand, &block, array, span);
            }
            "mma" => {
                self.mma.get_or_insert(span);
                let named = |l: &Self, e: &ast::Expr| match &e.kind {
                    ExprKind::Name(n) => match l.lookup(n) {
                        Some(Binding::Local(a)) => Some(a),
                        _ => None,
                    },
                    _ => None,
                };
                if let (Some(a), Some(b), Some(c)) = (
                    named(self, &args[0]),
                    named(self, &args[1]),
                    named(self, &args[2]),
                ) {
                    self.emit(StmtKind::Mma { a, b, c, d: array }, span);
                }
            }
            _ => {}
        }
        true
    }

    /// `mma_store<over ctx.lane>(Y[r :+ 16, c :+ 8], d)`: whether `expr` is one (and was
    /// lowered).
    pub(super) fn fragment_store(&mut self, expr: &ast::Expr) -> bool {
        let Some(("mma_store", args)) = fragment_call(expr) else {
            return false;
        };
        let span = expr.span;
        self.matrix.get_or_insert(span);
        let (Some(block), ExprKind::Name(name)) = (self.block_start(&args[0]), &args[1].kind)
        else {
            return true;
        };
        let Some(Binding::Local(fragment)) = self.lookup(name) else {
            return true;
        };
        self.store_fragment(&block, fragment, span);
        true
    }

    /// Fills fragment `array` with this lane's elements of `operand` (A or B) in `block`, at
    /// the table's places.
    pub(super) fn load_fragment(
        &mut self,
        operand: Matrix,
        block: &Block2,
        array: usize,
        span: Span,
    ) {
        let origin = self.lane_origin(operand, block, span);
        let mut offsets = Vec::new();
        for index in 0..operand.per_lane() {
            let indices = self.element_indices(operand, origin, index, &mut offsets, span);
            let element = self.locals[array].element;
            let loaded = match block.memory {
                Memory::Tensor(tensor) => Op::Load {
                    tensor,
                    indices,
                    guarded: true,
                },
                Memory::Tile(shared) => Op::SharedLoad {
                    array: shared,
                    indices,
                },
            };
            let value = self.value(loaded, element, span);
            self.emit(
                StmtKind::LocalStore {
                    array,
                    index: Operand::Const(index),
                    coordinates: Vec::new(),
                    value,
                },
                span,
            );
        }
    }

    /// Writes this lane's elements of C, fragment `fragment`, to `block`.
    pub(super) fn store_fragment(&mut self, block: &Block2, fragment: usize, span: Span) {
        let origin = self.lane_origin(Matrix::C, block, span);
        let mut offsets = Vec::new();
        for index in 0..Matrix::C.per_lane() {
            let indices = self.element_indices(Matrix::C, origin, index, &mut offsets, span);
            let value = self.value(
                Op::LocalLoad {
                    array: fragment,
                    index: Operand::Const(index),
                    coordinates: Vec::new(),
                },
                Scalar::F32,
                span,
            );
            match block.memory {
                Memory::Tensor(tensor) => self.emit(
                    StmtKind::Store {
                        tensor,
                        indices,
                        value,
                        guarded: true,
                    },
                    span,
                ),
                Memory::Tile(shared) => self.emit(
                    StmtKind::SharedStore {
                        array: shared,
                        indices,
                        value,
                    },
                    span,
                ),
            }
        }
    }

    /// `X[r :+ m, c :+ n]`'s memory and first row and column.
    fn block_start(&mut self, arg: &ast::Expr) -> Option<Block2> {
        let ExprKind::Index { base, indices } = &arg.kind else {
            return None;
        };
        let ExprKind::Name(name) = &base.kind else {
            return None;
        };
        let memory = match self.lookup(name)? {
            Binding::Tensor(t) => Memory::Tensor(t),
            Binding::Tile(s) => Memory::Tile(s),
            _ => return None,
        };
        let mut starts = Vec::new();
        for index in indices {
            let IndexArg::Tile { start, .. } = index else {
                return None;
            };
            starts.push(self.index(start));
        }
        let [(row, row_ty), (col, col_ty)] = starts.try_into().ok()?;
        Some(Block2 {
            memory,
            row,
            col,
            types: [row_ty, col_ty],
        })
    }

    /// Where this lane's fragment of `operand` starts in `block`: the row and column of lane
    /// 0's element 0 plus what the lane adds to every element (the table's form: its group,
    /// `lane / 4`, on one axis, twice its place in the group on the other). Computed once a
    /// load or store; each element adds only its constant (`element_indices`).
    fn lane_origin(
        &mut self,
        operand: Matrix,
        block: &Block2,
        span: Span,
    ) -> [(Operand, Scalar); 2] {
        let i = Scalar::I32;
        let lane = self.value(Op::Ctx(CtxField::Lane), i, span);
        let group = self.value(
            Op::Binary(BinaryOp::Shr, i, lane, Operand::Const(2)),
            i,
            span,
        );
        let place = self.value(
            Op::Binary(BinaryOp::And, i, lane, Operand::Const(3)),
            i,
            span,
        );
        let pair = self.value(
            Op::Binary(BinaryOp::Shl, i, place, Operand::Const(1)),
            i,
            span,
        );
        let (down, across) = match operand {
            Matrix::B => (pair, group),
            Matrix::A | Matrix::C => (group, pair),
        };
        // In each start's own type: a `u32` start stays a `u32` index.
        let [row_ty, col_ty] = block.types;
        [
            (
                self.value(
                    Op::Binary(BinaryOp::Add, row_ty, block.row, down),
                    row_ty,
                    span,
                ),
                row_ty,
            ),
            (
                self.value(
                    Op::Binary(BinaryOp::Add, col_ty, block.col, across),
                    col_ty,
                    span,
                ),
                col_ty,
            ),
        ]
    }

    /// The indices of element `index` of this lane's fragment of `operand`, from its
    /// `origin`: the table's row and column (`crate::mma`). `offsets` keeps each (axis,
    /// constant) index already made for this fragment, so `row + 8` is added once, not for each
    /// element in that row.
    fn element_indices(
        &mut self,
        operand: Matrix,
        origin: [(Operand, Scalar); 2],
        index: u32,
        offsets: &mut Vec<((usize, u32), Operand)>,
        span: Span,
    ) -> Vec<Operand> {
        let (row, col) = operand.element(0, index);
        origin
            .into_iter()
            .zip([row, col])
            .enumerate()
            .map(|(axis, ((at, ty), fixed))| {
                if fixed == 0 {
                    return at;
                }
                if let Some(&(_, made)) = offsets.iter().find(|(key, _)| *key == (axis, fixed)) {
                    return made;
                }
                let made = self.value(
                    Op::Binary(BinaryOp::Add, ty, at, Operand::Const(fixed)),
                    ty,
                    span,
                );
                offsets.push(((axis, fixed), made));
                made
            })
            .collect()
    }
}

/// Where a block lives.
#[derive(Clone, Copy)]
pub(super) enum Memory {
    Tensor(usize),
    Tile(usize),
}

/// A 16 × 16 or 16 × 8 block: its memory and first row and column, and their types (`i32`,
/// or `u32` where the source's start is one: its index arithmetic stays in that type).
pub(super) struct Block2 {
    pub(super) memory: Memory,
    pub(super) row: Operand,
    pub(super) col: Operand,
    pub(super) types: [Scalar; 2],
}

impl Block2 {
    /// A block at `i32` starts.
    pub(super) fn at(memory: Memory, row: Operand, col: Operand) -> Self {
        Self {
            memory,
            row,
            col,
            types: [Scalar::I32; 2],
        }
    }
}

/// The first [`StmtKind::Mma`] in `block`, at any depth: where a target without it says so.
pub fn first_mma(block: &Block) -> Option<Span> {
    block.iter().find_map(|stmt| match &stmt.kind {
        StmtKind::Mma { .. } => Some(stmt.span),
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => first_mma(then_block).or_else(|| first_mma(else_block)),
        StmtKind::Loop { body, continuing } => first_mma(body).or_else(|| first_mma(continuing)),
        _ => None,
    })
}

/// `kernel` with each [`StmtKind::Mma`] written as shuffles and `f32` arithmetic, for a
/// target without matrix instructions (WGSL): each lane takes, for each `k` in increasing
/// order, the A elements of its rows and the B elements of its columns from the lanes that
/// hold them, multiplies them exactly in `f32`, and adds them to sums that start with the
/// first product; then it adds each sum to its element of C. This is `crate::mma::multiply`'s order, so the result is
/// the simulator's, bit for bit. A kernel without `mma` comes back unchanged.
pub fn expand(kernel: &Kernel) -> Kernel {
    let mut out = kernel.clone();
    let mut regs = std::mem::take(&mut out.regs);
    out.body = expand_block(&kernel.body, &mut regs);
    out.regs = regs;
    out
}

fn expand_block(block: &Block, regs: &mut Vec<RegInfo>) -> Block {
    let mut out = Vec::new();
    for stmt in block {
        let kind = match &stmt.kind {
            StmtKind::Mma { a, b, c, d } => {
                let mut x = Expander {
                    regs: &mut *regs,
                    out: &mut out,
                    stmt,
                };
                x.mma(*a, *b, *c, *d);
                continue;
            }
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => StmtKind::If {
                condition: *condition,
                then_block: expand_block(then_block, regs),
                else_block: expand_block(else_block, regs),
            },
            StmtKind::Loop { body, continuing } => StmtKind::Loop {
                body: expand_block(body, regs),
                continuing: expand_block(continuing, regs),
            },
            other => other.clone(),
        };
        out.push(Stmt {
            kind,
            ..stmt.clone()
        });
    }
    out
}

struct Expander<'a> {
    regs: &'a mut Vec<RegInfo>,
    out: &'a mut Block,
    stmt: &'a Stmt,
}

impl Expander<'_> {
    fn value(&mut self, ty: Scalar, op: Op) -> Operand {
        self.regs.push(RegInfo {
            ty,
            name: None,
            variable: false,
            high_of: None,
        });
        let dst = Reg(self.regs.len() as u32 - 1);
        self.out.push(Stmt {
            kind: StmtKind::Let { dst, op },
            ..self.stmt.clone()
        });
        Operand::Reg(dst)
    }

    fn element(&mut self, array: usize, index: u32, ty: Scalar) -> Operand {
        self.value(
            ty,
            Op::LocalLoad {
                array,
                index: Operand::Const(index),
                coordinates: Vec::new(),
            },
        )
    }

    /// This lane's `value` from lane `from` of its warp, as an `f32`.
    fn taken_from(&mut self, array: usize, index: u32, from: Operand) -> Operand {
        let value = self.element(array, index, Scalar::F16);
        let moved = self.value(Scalar::F16, Op::Shuffle(Shuffle::Index, value, from));
        self.value(
            Scalar::F32,
            Op::Cast {
                from: Scalar::F16,
                to: Scalar::F32,
                value: moved,
            },
        )
    }

    fn mma(&mut self, a: usize, b: usize, c: usize, d: usize) {
        let (i, f) = (Scalar::I32, Scalar::F32);
        let lane = self.value(i, Op::Ctx(CtxField::Lane));
        let group = self.value(i, Op::Binary(BinaryOp::Shr, i, lane, Operand::Const(2)));
        let place = self.value(i, Op::Binary(BinaryOp::And, i, lane, Operand::Const(3)));
        // The lanes holding A's rows `group`, `group + 8` (lanes 4 · group …), and B's columns
        // 2 · place and 2 · place + 1 (lanes 8 · place …, 8 · place + 4 …).
        let rows_at = self.value(i, Op::Binary(BinaryOp::Shl, i, group, Operand::Const(2)));
        let cols_at = self.value(i, Op::Binary(BinaryOp::Shl, i, place, Operand::Const(3)));
        let mut sums: [Option<Operand>; 4] = [None; 4];
        for k in 0..table::K {
            let step = Operand::Const((k % 8) / 2);
            let a_lane = self.value(i, Op::Binary(BinaryOp::Add, i, rows_at, step));
            let b_lane = self.value(i, Op::Binary(BinaryOp::Add, i, cols_at, step));
            let b_lane_odd = self.value(i, Op::Binary(BinaryOp::Add, i, b_lane, Operand::Const(4)));
            // The holders' indices: the table's for (row, k) and (k, col).
            let (_, a_index) = Matrix::A.holder(0, k);
            let (_, b_index) = Matrix::B.holder(k, 0);
            let rows = [
                self.taken_from(a, a_index, a_lane),
                self.taken_from(a, a_index + 2, a_lane),
            ];
            let cols = [
                self.taken_from(b, b_index, b_lane),
                self.taken_from(b, b_index, b_lane_odd),
            ];
            for (e, sum) in sums.iter_mut().enumerate() {
                let product = self.value(f, Op::Binary(BinaryOp::Mul, f, rows[e / 2], cols[e % 2]));
                *sum = Some(match *sum {
                    None => product,
                    Some(s) => self.value(f, Op::Binary(BinaryOp::Add, f, s, product)),
                });
            }
        }
        let results: Vec<Operand> = (0..4u32)
            .map(|e| {
                let old = self.element(c, e, f);
                let sum = sums[e as usize].unwrap_or(Operand::Const(0));
                self.value(f, Op::Binary(BinaryOp::Add, f, old, sum))
            })
            .collect();
        for (e, value) in results.into_iter().enumerate() {
            self.out.push(Stmt {
                kind: StmtKind::LocalStore {
                    array: d,
                    index: Operand::Const(e as u32),
                    coordinates: Vec::new(),
                    value,
                },
                ..self.stmt.clone()
            });
        }
    }
}
