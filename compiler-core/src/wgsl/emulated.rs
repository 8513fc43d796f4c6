//! Emulated-warp mode: warps of any width on any GPU, in workgroup memory.
//!
//! The kernel runs as the simulator runs it: every invocation of the workgroup follows the same
//! (uniform) control flow, and a per-invocation `active` flag says which ones take effect. An
//! `if` runs both branches, each for the invocations its condition selects; a loop goes round
//! while any invocation of the workgroup is still in it (a workgroup vote read back with
//! `workgroupUniformLoad`); `break`, `continue` and `return` clear flags. Collectives, votes,
//! scans and shuffles exchange values through workgroup memory between barriers. So every
//! barrier is in uniform control flow, as WGSL requires, whatever the warp width.
//!
//! Reductions and scans combine lanes in lane order here (the simulator uses butterfly and
//! Hillis-Steele order), so integer results are exact and float results agree within rounding.

use super::{literal, naga_scalar, Builder};
use crate::ir::Scalar;
use crate::ir::{self, Op, Over, Shuffle, StmtKind, Vote};
use naga::{
    AddressSpace, ArraySize, Barrier, BinaryOperator as B, Block, Expression as E, GlobalVariable,
    Handle, Literal, LocalVariable, MemoryDecorations, ScalarKind, Statement as St, Type,
    TypeInner, UnaryOperator,
};
use std::num::NonZeroU32;

/// The workgroup memory and flags emulation needs.
pub(super) struct Emulation {
    active: Handle<LocalVariable>,
    exited: Handle<LocalVariable>,
    /// Each invocation's value and active flag, for collectives.
    values: Handle<GlobalVariable>,
    flags: Handle<GlobalVariable>,
    /// The workgroup's vote: is any invocation still in the loop?
    any: Handle<GlobalVariable>,
    /// (broken, continued) flags of each enclosing loop.
    loops: Vec<(Handle<LocalVariable>, Handle<LocalVariable>)>,
}

impl Builder<'_> {
    fn ty(&mut self, inner: TypeInner) -> Handle<Type> {
        self.module
            .types
            .insert(Type { name: None, inner }, naga::Span::UNDEFINED)
    }

    fn local(&mut self, name: &str, ty: Scalar) -> Handle<LocalVariable> {
        let ty = super::scalar_type(&mut self.module, naga_scalar(ty));
        let name = format!("{name}_{}", self.function.local_variables.len());
        self.function.local_variables.append(
            LocalVariable {
                name: Some(name),
                ty,
                init: None,
            },
            naga::Span::UNDEFINED,
        )
    }

    fn workgroup_array(&mut self, name: &str, len: u32) -> Handle<GlobalVariable> {
        let u32_t = super::scalar_type(&mut self.module, naga::Scalar::U32);
        let size = NonZeroU32::new(len.max(1)).map_or(ArraySize::Dynamic, ArraySize::Constant);
        let ty = self.ty(TypeInner::Array {
            base: u32_t,
            size,
            stride: 4,
        });
        self.module.global_variables.append(
            GlobalVariable {
                name: Some(name.into()),
                space: AddressSpace::WorkGroup,
                binding: None,
                ty,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            naga::Span::UNDEFINED,
        )
    }

    /// Sets up the flags and workgroup memory, and starts every invocation active.
    pub(super) fn start_emulation(&mut self, block: &mut Block) {
        let threads = self.kernel.threads;
        let active = self.local("active", Scalar::Bool);
        let exited = self.local("exited", Scalar::Bool);
        let values = self.workgroup_array("lane_values", threads);
        let flags = self.workgroup_array("lane_active", threads);
        let u32_t = super::scalar_type(&mut self.module, naga::Scalar::U32);
        let any = self.module.global_variables.append(
            GlobalVariable {
                name: Some("workgroup_any".into()),
                space: AddressSpace::WorkGroup,
                binding: None,
                ty: u32_t,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            naga::Span::UNDEFINED,
        );
        self.emulation = Some(Emulation {
            active,
            exited,
            values,
            flags,
            any,
            loops: Vec::new(),
        });
        let yes = self.lit(block, Literal::Bool(true));
        let no = self.lit(block, Literal::Bool(false));
        self.set_local(block, active, yes);
        self.set_local(block, exited, no);
    }

    pub(super) fn not(&mut self, block: &mut Block, expr: Handle<E>) -> Handle<E> {
        self.add(
            block,
            E::Unary {
                op: UnaryOperator::LogicalNot,
                expr,
            },
        )
    }

    pub(super) fn get_local(
        &mut self,
        block: &mut Block,
        local: Handle<LocalVariable>,
    ) -> Handle<E> {
        let pointer = self.add(block, E::LocalVariable(local));
        self.add(block, E::Load { pointer })
    }

    pub(super) fn set_local(
        &mut self,
        block: &mut Block,
        local: Handle<LocalVariable>,
        value: Handle<E>,
    ) {
        let pointer = self.add(block, E::LocalVariable(local));
        self.push(block, St::Store { pointer, value });
    }

    fn emulation(&self) -> (Handle<LocalVariable>, Handle<LocalVariable>) {
        self.emulation
            .as_ref()
            .map(|e| (e.active, e.exited))
            .unwrap_or_else(|| unreachable_emulation())
    }

    /// `then` runs only in active invocations: `if active { then }`.
    fn predicated(&mut self, block: &mut Block, then: impl FnOnce(&mut Self, &mut Block)) {
        let (active, _) = self.emulation();
        let condition = self.get_local(block, active);
        self.flush(block);
        let mut accept = Block::new();
        then(self, &mut accept);
        self.flush(&mut accept);
        block.push(
            St::If {
                condition,
                accept,
                reject: Block::new(),
            },
            self.span,
        );
    }

    /// `active = within && !exited && !broken && !continued` (the innermost loop's flags).
    fn refresh_active(&mut self, block: &mut Block, within: Handle<E>) {
        let (active, exited) = self.emulation();
        let gone = self.get_local(block, exited);
        let mut left = gone;
        if let Some((broken, continued)) = self
            .emulation
            .as_ref()
            .and_then(|e| e.loops.last().copied())
        {
            let b = self.get_local(block, broken);
            let c = self.get_local(block, continued);
            let either = self.binary(block, B::LogicalOr, b, c);
            left = self.binary(block, B::LogicalOr, left, either);
        }
        let stay = self.not(block, left);
        let value = self.binary(block, B::LogicalAnd, within, stay);
        self.set_local(block, active, value);
    }

    pub(super) fn stmt_emulated(&mut self, block: &mut Block, stmt: &ir::Stmt) {
        match &stmt.kind {
            StmtKind::Let { dst, op } if is_collective(op) => self.collective(block, *dst, op),
            StmtKind::Let { .. }
            | StmtKind::Store { .. }
            | StmtKind::SharedStore { .. }
            | StmtKind::Atomic(_) => {
                self.predicated(block, |builder, inner| builder.stmt(inner, stmt));
            }
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let (active, _) = self.emulation();
                let saved = self.local("saved", Scalar::Bool);
                let taken = self.local("taken", Scalar::Bool);
                let was = self.get_local(block, active);
                self.set_local(block, saved, was);
                let c = self.operand(block, *condition, Scalar::Bool);
                let was = self.get_local(block, saved);
                let yes = self.binary(block, B::LogicalAnd, was, c);
                self.set_local(block, taken, yes);
                self.set_local(block, active, yes);
                self.flush(block);
                let then_part = self.block(then_block);
                block.push(St::Block(then_part), self.span);
                let was = self.get_local(block, saved);
                let took = self.get_local(block, taken);
                let not_taken = self.not(block, took);
                let other = self.binary(block, B::LogicalAnd, was, not_taken);
                self.refresh_active(block, other);
                self.flush(block);
                let else_part = self.block(else_block);
                block.push(St::Block(else_part), self.span);
                let was = self.get_local(block, saved);
                self.refresh_active(block, was);
            }
            StmtKind::Loop { body, continuing } => {
                self.emulated_loop(block, stmt.span, body, continuing)
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(stmt.kind, StmtKind::Break);
                let (active, _) = self.emulation();
                if let Some((broken, continued)) = self
                    .emulation
                    .as_ref()
                    .and_then(|e| e.loops.last().copied())
                {
                    let flag = if is_break { broken } else { continued };
                    let now = self.get_local(block, active);
                    let before = self.get_local(block, flag);
                    let set = self.binary(block, B::LogicalOr, before, now);
                    self.set_local(block, flag, set);
                }
                let no = self.lit(block, Literal::Bool(false));
                self.set_local(block, active, no);
            }
            StmtKind::Return => {
                let (active, exited) = self.emulation();
                let now = self.get_local(block, active);
                let before = self.get_local(block, exited);
                let set = self.binary(block, B::LogicalOr, before, now);
                self.set_local(block, exited, set);
                let no = self.lit(block, Literal::Bool(false));
                self.set_local(block, active, no);
            }
            // CUDA's `__syncthreads()` orders the CTA's global accesses too; WGSL's
            // `workgroupBarrier()` only workgroup memory, so `storageBarrier()` comes with it.
            StmtKind::Barrier => self.push(
                block,
                St::ControlBarrier(Barrier::WORK_GROUP | Barrier::STORAGE),
            ),
        }
    }

    fn emulated_loop(
        &mut self,
        block: &mut Block,
        span: crate::span::Span,
        body: &[ir::Stmt],
        continuing: &[ir::Stmt],
    ) {
        let (active, _) = self.emulation();
        let entry = self.local("entry", Scalar::Bool);
        let broken = self.local("broken", Scalar::Bool);
        let continued = self.local("continued", Scalar::Bool);
        let now = self.get_local(block, active);
        self.set_local(block, entry, now);
        let no = self.lit(block, Literal::Bool(false));
        self.set_local(block, broken, no);
        let watched = self.guard_loop_start(block, span);
        self.flush(block);
        if let Some(e) = self.emulation.as_mut() {
            e.loops.push((broken, continued));
        }
        let mut head = Block::new();
        let no = self.lit(&mut head, Literal::Bool(false));
        self.set_local(&mut head, continued, no);
        let inside = self.get_local(&mut head, entry);
        self.refresh_active(&mut head, inside);
        // Leave when no invocation of the workgroup is still in the loop: a uniform decision.
        let any = self.workgroup_any(&mut head);
        let zero = self.lit(&mut head, Literal::U32(0));
        let none = self.binary(&mut head, B::Equal, any, zero);
        self.flush(&mut head);
        // The loop's one exit: every invocation has left it.
        let mut leave = Block::new();
        self.guard_exit(&mut leave);
        leave.push(St::Break, self.span);
        head.push(
            St::If {
                condition: none,
                accept: leave,
                reject: Block::new(),
            },
            self.span,
        );
        if let Some(watched) = watched {
            let (active, exited) = self.emulation();
            self.predicated(&mut head, |b, inner| {
                b.guard_trip_emulated(inner, watched, exited, active)
            });
        }
        let body_part = self.block(body);
        head.push(St::Block(body_part), self.span);
        let mut tail = Block::new();
        let inside = self.get_local(&mut tail, entry);
        // Those that continued take part in `continuing` again.
        let no = self.lit(&mut tail, Literal::Bool(false));
        self.set_local(&mut tail, continued, no);
        self.refresh_active(&mut tail, inside);
        self.flush(&mut tail);
        let continuing_part = self.block(continuing);
        tail.push(St::Block(continuing_part), self.span);
        self.flush(&mut tail);
        block.push(
            St::Loop {
                body: head,
                continuing: tail,
                break_if: None,
            },
            self.span,
        );
        if let Some(e) = self.emulation.as_mut() {
            e.loops.pop();
        }
        self.guard_loop_end(block, watched);
        let was = self.get_local(block, entry);
        self.refresh_active(block, was);
    }

    /// 1 if any invocation is active, else 0, the same in all: each writes its flag, one
    /// combines them, and `workgroupUniformLoad` hands the result to all.
    fn workgroup_any(&mut self, block: &mut Block) -> Handle<E> {
        let Some(emulation) = self.emulation.as_ref() else {
            unreachable_emulation()
        };
        let (flags, any, active) = (emulation.flags, emulation.any, emulation.active);
        let index = self.argument(block, 0);
        let base = self.add(block, E::GlobalVariable(flags));
        let slot = self.add(block, E::Access { base, index });
        let a = self.get_local(block, active);
        let bit = self.convert(block, a, Scalar::U32);
        self.push(
            block,
            St::Store {
                pointer: slot,
                value: bit,
            },
        );
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        let index = self.argument(block, 0);
        let zero = self.lit(block, Literal::U32(0));
        let first = self.binary(block, B::Equal, index, zero);
        self.flush(block);
        let mut combine = Block::new();
        let total = self.local("any", Scalar::U32);
        let zero = self.lit(&mut combine, Literal::U32(0));
        self.set_local(&mut combine, total, zero);
        let threads = self.kernel.threads;
        self.counted_naga(&mut combine, threads, |b, inner, i| {
            let base = b.add(inner, E::GlobalVariable(flags));
            let iu = b.bitcast(inner, i, ScalarKind::Uint);
            let p = b.add(inner, E::Access { base, index: iu });
            let f = b.add(inner, E::Load { pointer: p });
            let t = b.get_local(inner, total);
            let or = b.binary(inner, B::InclusiveOr, t, f);
            b.set_local(inner, total, or);
        });
        let pointer = self.add(&mut combine, E::GlobalVariable(any));
        let t = self.get_local(&mut combine, total);
        self.push(&mut combine, St::Store { pointer, value: t });
        self.flush(&mut combine);
        block.push(
            St::If {
                condition: first,
                accept: combine,
                reject: Block::new(),
            },
            self.span,
        );
        let u32_t = super::scalar_type(&mut self.module, naga::Scalar::U32);
        let pointer = self.add(block, E::GlobalVariable(any));
        let result = self.add(block, E::WorkGroupUniformLoadResult { ty: u32_t });
        self.push(block, St::WorkGroupUniformLoad { pointer, result });
        result
    }

    /// `for i in 0..count { body(i) }` with an i32 counter, in naga.
    fn counted_naga(
        &mut self,
        block: &mut Block,
        count: u32,
        body: impl FnOnce(&mut Self, &mut Block, Handle<E>),
    ) {
        let counter = self.local("i", Scalar::I32);
        let zero = self.lit(block, Literal::I32(0));
        self.set_local(block, counter, zero);
        self.flush(block);
        let mut head = Block::new();
        let i = self.get_local(&mut head, counter);
        let end = self.lit(&mut head, Literal::I32(count as i32));
        let done = self.binary(&mut head, B::GreaterEqual, i, end);
        self.flush(&mut head);
        head.push(
            St::If {
                condition: done,
                accept: Block::from_vec(vec![St::Break]),
                reject: Block::new(),
            },
            self.span,
        );
        body(self, &mut head, i);
        self.flush(&mut head);
        let mut tail = Block::new();
        let i = self.get_local(&mut tail, counter);
        let one = self.lit(&mut tail, Literal::I32(1));
        let next = self.binary(&mut tail, B::Add, i, one);
        self.set_local(&mut tail, counter, next);
        self.flush(&mut tail);
        block.push(
            St::Loop {
                body: head,
                continuing: tail,
                break_if: None,
            },
            self.span,
        );
    }

    /// Collectives through workgroup memory: every invocation publishes its value and flag,
    /// then each active one computes its result from its warp's (or the CTA's) entries.
    fn collective(&mut self, block: &mut Block, dst: ir::Reg, op: &Op) {
        let Some(emulation) = self.emulation.as_ref() else {
            unreachable_emulation()
        };
        let (values, flags, active) = (emulation.values, emulation.flags, emulation.active);
        let (ty, argument) = match op {
            Op::Reduce(_, _, t, a) | Op::PrefixSum(t, a) => (*t, *a),
            Op::Vote(_, a) => (Scalar::Bool, *a),
            Op::Shuffle(_, x, _) => (self.reg_ty(dst), *x),
            _ => return,
        };
        let kind = scalar_kind(ty);
        // Publish. A CTA reduction is a barrier for tensors too (the spec's), as `barrier()`
        // is: `workgroupBarrier()` orders workgroup memory only.
        let barrier = if matches!(op, Op::Reduce(_, Over::Cta, ..)) {
            Barrier::WORK_GROUP | Barrier::STORAGE
        } else {
            Barrier::WORK_GROUP
        };
        self.push(block, St::ControlBarrier(barrier));
        let own = self.operand(block, argument, ty);
        let bits = if ty == Scalar::Bool {
            self.convert(block, own, Scalar::U32)
        } else {
            self.bitcast(block, own, ScalarKind::Uint)
        };
        let index = self.argument(block, 0);
        let base = self.add(block, E::GlobalVariable(values));
        let slot = self.add(block, E::Access { base, index });
        self.push(
            block,
            St::Store {
                pointer: slot,
                value: bits,
            },
        );
        let base = self.add(block, E::GlobalVariable(flags));
        let slot = self.add(block, E::Access { base, index });
        let a = self.get_local(block, active);
        let flag = self.convert(block, a, Scalar::U32);
        self.push(
            block,
            St::Store {
                pointer: slot,
                value: flag,
            },
        );
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        // Compute, in active invocations.
        let lanes = self.lanes;
        let threads = self.kernel.threads;
        let op = op.clone();
        self.predicated(block, |b, inner| {
            let lane = b.lane(inner);
            let thread = b.thread(inner);
            let first = b.binary(inner, B::Subtract, thread, lane);
            let (start, count) = match op {
                Op::Reduce(_, Over::Cta, ..) => (b.lit(inner, Literal::I32(0)), threads),
                _ => (first, lanes),
            };
            let value_at = |b: &mut Self, inner: &mut Block, t: Handle<E>| {
                let base = b.add(inner, E::GlobalVariable(values));
                let tu = b.bitcast(inner, t, ScalarKind::Uint);
                let p = b.add(inner, E::Access { base, index: tu });
                let raw = b.add(inner, E::Load { pointer: p });
                if ty == Scalar::Bool {
                    let zero = b.lit(inner, Literal::U32(0));
                    b.binary(inner, B::NotEqual, raw, zero)
                } else {
                    b.bitcast(inner, raw, kind)
                }
            };
            // Whether invocation t exists and is active.
            let member = |b: &mut Self, inner: &mut Block, t: Handle<E>| {
                let limit = b.lit(inner, Literal::I32(threads as i32));
                let inside = b.binary(inner, B::Less, t, limit);
                let clamped = b.add(
                    inner,
                    E::Select {
                        condition: inside,
                        accept: t,
                        reject: thread,
                    },
                );
                let base = b.add(inner, E::GlobalVariable(flags));
                let tu = b.bitcast(inner, clamped, ScalarKind::Uint);
                let p = b.add(inner, E::Access { base, index: tu });
                let f = b.add(inner, E::Load { pointer: p });
                let zero = b.lit(inner, Literal::U32(0));
                let on = b.binary(inner, B::NotEqual, f, zero);
                b.binary(inner, B::LogicalAnd, inside, on)
            };
            let result = match op {
                Op::Shuffle(shuffle, _, l) => {
                    let arg = b.operand(inner, l, Scalar::I32);
                    let lanes_lit = b.lit(inner, Literal::I32(lanes as i32));
                    let source = match shuffle {
                        Shuffle::Index | Shuffle::Broadcast => {
                            let m = b.binary(inner, B::Modulo, arg, lanes_lit);
                            let w = b.binary(inner, B::Add, m, lanes_lit);
                            b.binary(inner, B::Modulo, w, lanes_lit)
                        }
                        Shuffle::Xor => b.binary(inner, B::ExclusiveOr, lane, arg),
                        Shuffle::Up => b.binary(inner, B::Subtract, lane, arg),
                        Shuffle::Down => b.binary(inner, B::Add, lane, arg),
                    };
                    let zero = b.lit(inner, Literal::I32(0));
                    let low = b.binary(inner, B::GreaterEqual, source, zero);
                    let high = b.binary(inner, B::Less, source, lanes_lit);
                    let in_warp = b.binary(inner, B::LogicalAnd, low, high);
                    let t = b.binary(inner, B::Add, first, source);
                    let t = b.add(
                        inner,
                        E::Select {
                            condition: in_warp,
                            accept: t,
                            reject: thread,
                        },
                    );
                    let exists = member(b, inner, t);
                    let valid = b.binary(inner, B::LogicalAnd, in_warp, exists);
                    let theirs = value_at(b, inner, t);
                    let mine = value_at(b, inner, thread);
                    b.add(
                        inner,
                        E::Select {
                            condition: valid,
                            accept: theirs,
                            reject: mine,
                        },
                    )
                }
                _ => {
                    let acc = b.local(
                        "acc",
                        if matches!(op, Op::Vote(Vote::Ballot, _)) {
                            Scalar::U32
                        } else {
                            ty
                        },
                    );
                    let init = match op {
                        Op::Reduce(r, _, t, _) => b.constant(inner, r.identity(t), t),
                        Op::PrefixSum(t, _) => b.lit(inner, literal(0, t)),
                        Op::Vote(Vote::Any, _) => b.lit(inner, Literal::Bool(false)),
                        Op::Vote(Vote::All, _) => b.lit(inner, Literal::Bool(true)),
                        _ => b.lit(inner, Literal::U32(0)),
                    };
                    b.set_local(inner, acc, init);
                    let op2 = op.clone();
                    b.counted_naga(inner, count, |b, body, k| {
                        let t = b.binary(body, B::Add, start, k);
                        let takes_part = member(b, body, t);
                        // A scan adds only the lanes up to the caller's.
                        let takes_part = if matches!(op2, Op::PrefixSum(..)) {
                            let up_to = b.binary(body, B::LessEqual, t, thread);
                            b.binary(body, B::LogicalAnd, takes_part, up_to)
                        } else {
                            takes_part
                        };
                        b.flush(body);
                        let mut add = Block::new();
                        let v = value_at(b, &mut add, t);
                        let current = b.get_local(&mut add, acc);
                        let next = match op2 {
                            Op::Reduce(r, ..) => b.combine(&mut add, r, current, v),
                            Op::PrefixSum(..) => b.binary(&mut add, B::Add, current, v),
                            Op::Vote(Vote::Any, _) => b.binary(&mut add, B::LogicalOr, current, v),
                            Op::Vote(Vote::All, _) => b.binary(&mut add, B::LogicalAnd, current, v),
                            _ => {
                                // Ballot: bit k for lane k.
                                let one = b.lit(&mut add, Literal::U32(1));
                                let ku = b.bitcast(&mut add, k, ScalarKind::Uint);
                                let bit = b.binary(&mut add, B::ShiftLeft, one, ku);
                                let zero = b.lit(&mut add, Literal::U32(0));
                                let chosen = b.add(
                                    &mut add,
                                    E::Select {
                                        condition: v,
                                        accept: bit,
                                        reject: zero,
                                    },
                                );
                                b.binary(&mut add, B::InclusiveOr, current, chosen)
                            }
                        };
                        b.set_local(&mut add, acc, next);
                        b.flush(&mut add);
                        body.push(
                            St::If {
                                condition: takes_part,
                                accept: add,
                                reject: Block::new(),
                            },
                            b.span,
                        );
                    });
                    b.get_local(inner, acc)
                }
            };
            b.store_reg(inner, dst, result);
        });
        // Nobody overwrites the exchange until everyone has read it.
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
    }
}

fn is_collective(op: &Op) -> bool {
    matches!(
        op,
        Op::Reduce(..) | Op::Vote(..) | Op::PrefixSum(..) | Op::Shuffle(..)
    )
}

fn scalar_kind(ty: Scalar) -> ScalarKind {
    match ty {
        Scalar::F32 | Scalar::F16 => ScalarKind::Float,
        Scalar::I32 | Scalar::I8 => ScalarKind::Sint,
        Scalar::U32 | Scalar::U8 => ScalarKind::Uint,
        Scalar::Bool => ScalarKind::Bool,
    }
}

fn unreachable_emulation() -> ! {
    // Only the emulated-mode entry point calls these, after `start_emulation`.
    unreachable!("emulation used before start_emulation")
}
