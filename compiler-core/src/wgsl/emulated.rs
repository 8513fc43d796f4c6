//! Emulated-warp mode: warps of any width on any GPU, in workgroup memory.
//!
//! Lanes meet only at collectives, votes, scans, shuffles (and so `mma`, made of shuffles) and
//! barriers, which exchange values through workgroup memory between barriers; WGSL wants every
//! barrier in uniform control flow. So statements are of two kinds ([`alone`]):
//! - A statement that meets no other lane, however much control flow it holds, is plain
//!   per-invocation code, as in subgroup mode: its `if`s branch and its loops go round in each
//!   invocation by itself, as independent thread scheduling runs a warp's threads since Volta.
//! - A statement that holds a meeting runs as the simulator runs it: every invocation of the
//!   workgroup follows the same (uniform) control flow, and a per-invocation `active` flag says
//!   which ones take effect. Such an `if` runs both branches, each for the invocations its
//!   condition selects; such a loop goes round while any invocation of the workgroup is still
//!   in it (a workgroup vote read back with `workgroupUniformLoad`: one atomic, a barrier and a
//!   load a trip, for a loop that meets the other lanes in every trip anyway); `break`,
//!   `continue` and `return` clear flags.
//!
//! **Decision (issue 55):** the first version ran every statement the second way, so a loop
//! with no meeting in it paid a vote and its barrier on every trip, and both branches of every
//! `if`: 6 to 36 times the device's own subgroups on lavapipe. Plain code runs at their speed.
//!
//! The emulation has no loop of its own (issue 51: lavapipe gives an invocation one budget of
//! 65,535 loop trips for all of a shader's loops, which per-trip scans of the lanes spent): a
//! loop's vote is one atomic in workgroup memory, and reductions, votes and scans are trees
//! over the lanes' positions, log2 of the width in steps between barriers. In a full warp they
//! combine in the simulator's order (its butterfly, its Hillis-Steele scan), so results are its
//! bits; an inactive lane holds the identity at its position where the simulator packs the
//! active lanes first, so a float sum then agrees within rounding.

use super::{naga_scalar, Builder};
use crate::ir::Scalar;
use crate::ir::{self, Op, Over, Shuffle, StmtKind, Vote};
use naga::{
    AddressSpace, ArraySize, Barrier, BinaryOperator as B, Block, Expression as E, GlobalVariable,
    Handle, Literal, LocalVariable, MemoryDecorations, ScalarKind, Statement as St, Type,
    TypeInner, UnaryOperator,
};
use std::num::NonZeroU32;

/// How a tree combines two lanes' bits into one (u32s: a value's bits, or a vote's).
type Combine<'b> = dyn Fn(&mut Builder<'b>, &mut Block, Handle<E>, Handle<E>) -> Handle<E>;

/// The workgroup memory and flags emulation needs.
pub(super) struct Emulation {
    active: Handle<LocalVariable>,
    exited: Handle<LocalVariable>,
    /// A slot per invocation for the collectives' trees and shuffles, and each invocation's
    /// active flag (shuffles read their source's).
    values: Handle<GlobalVariable>,
    /// A second slot per invocation: a tree's steps read one array and write the other.
    spare: Handle<GlobalVariable>,
    flags: Handle<GlobalVariable>,
    /// The workgroup's vote: is any invocation still in the loop? The highest vote number an
    /// active invocation reached (`votes`, atomic), copied where `workgroupUniformLoad` reads
    /// it (`any`), and this invocation's count of votes (the same in all).
    any: Handle<GlobalVariable>,
    votes: Handle<GlobalVariable>,
    vote_number: Handle<LocalVariable>,
    /// (broken, continued) flags of each enclosing loop.
    loops: Vec<(Handle<LocalVariable>, Handle<LocalVariable>)>,
    /// Building statements that meet no other lane, as plain per-invocation code.
    alone: bool,
}

impl<'k> Builder<'k> {
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
        let spare = self.workgroup_array("lane_spare", threads);
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
        let atomic_u32 = self.ty(TypeInner::Atomic(naga::Scalar::U32));
        let votes = self.module.global_variables.append(
            GlobalVariable {
                name: Some("workgroup_votes".into()),
                space: AddressSpace::WorkGroup,
                binding: None,
                ty: atomic_u32,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            naga::Span::UNDEFINED,
        );
        let vote_number = self.local("vote_number", Scalar::U32);
        self.emulation = Some(Emulation {
            active,
            exited,
            values,
            spare,
            flags,
            any,
            votes,
            vote_number,
            loops: Vec::new(),
            alone: false,
        });
        let yes = self.lit(block, Literal::Bool(true));
        let no = self.lit(block, Literal::Bool(false));
        self.set_local(block, active, yes);
        self.set_local(block, exited, no);
        let zero = self.lit(block, Literal::U32(0));
        self.set_local(block, vote_number, zero);
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

    /// Whether statements are built as the emulation runs them (not plain code).
    pub(super) fn emulating(&self) -> bool {
        self.emulation.as_ref().is_some_and(|e| !e.alone)
    }

    /// A block in emulated mode. Each run of statements that meet no other lane ([`alone`])
    /// is plain per-invocation code, as in subgroup mode, under one `if active`: its `if`s
    /// branch and its loops go round per invocation, with no vote and no barrier. The other
    /// statements run as the emulation runs them.
    pub(super) fn block_emulated(&mut self, block: &mut Block, stmts: &[ir::Stmt]) {
        let mut rest = stmts;
        while let Some(first) = rest.first() {
            let plain = rest.iter().take_while(|s| alone(s, 0)).count();
            if plain == 0 {
                self.at(first);
                self.stmt_emulated(block, first);
                rest = &rest[1..];
                continue;
            }
            let (run, after) = rest.split_at(plain);
            self.at(&run[0]);
            self.predicated(block, |b, inner| {
                b.set_alone(true);
                for stmt in run {
                    b.at(stmt);
                    b.stmt(inner, stmt);
                }
                b.set_alone(false);
            });
            rest = after;
        }
    }

    fn set_alone(&mut self, alone: bool) {
        if let Some(e) = self.emulation.as_mut() {
            e.alone = alone;
        }
    }

    pub(super) fn stmt_emulated(&mut self, block: &mut Block, stmt: &ir::Stmt) {
        match &stmt.kind {
            StmtKind::Let { dst, op } if is_collective(op) => self.collective(block, *dst, op),
            StmtKind::Let { .. }
            | StmtKind::Store { .. }
            | StmtKind::SharedStore { .. }
            | StmtKind::LocalStore { .. }
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
                let counted = self.counts_trips(stmt);
                self.emulated_loop(block, (stmt.span, counted), body, continuing)
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
            // `emit` wrote each `mma` as shuffles and arithmetic (`ir::matrix::expand`).
            StmtKind::Mma { .. } => {}
        }
    }

    fn emulated_loop(
        &mut self,
        block: &mut Block,
        (span, counted): (crate::span::Span, bool),
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
        if let Some(watched) = watched.filter(|_| counted) {
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

    /// 1 if any invocation is active, else 0, the same in all, with no loop: each vote has a
    /// number, the same in every invocation (control is uniform here), and each active
    /// invocation raises the workgroup's atomic to it; after a barrier one invocation copies
    /// the atomic where `workgroupUniformLoad` hands it to all, and the vote holds when it
    /// reached this vote's number. So nothing is reset between votes. (A loop over the CTA's
    /// flags here spent lavapipe's budget of 65,535 loop trips an invocation, which every loop
    /// of a shader shares, on ordinary loops of a few hundred trips: issue 51.)
    fn workgroup_any(&mut self, block: &mut Block) -> Handle<E> {
        let Some(emulation) = self.emulation.as_ref() else {
            unreachable_emulation()
        };
        let (any, votes, number) = (emulation.any, emulation.votes, emulation.vote_number);
        let count = self.get_local(block, number);
        let one = self.lit(block, Literal::U32(1));
        let next = self.binary(block, B::Add, count, one);
        self.set_local(block, number, next);
        self.predicated(block, |b, inner| {
            let pointer = b.add(inner, E::GlobalVariable(votes));
            let value = b.get_local(inner, number);
            b.push(
                inner,
                St::Atomic {
                    pointer,
                    fun: naga::AtomicFunction::Max,
                    value,
                    result: None,
                },
            );
        });
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        let index = self.argument(block, 0);
        let zero = self.lit(block, Literal::U32(0));
        let first = self.binary(block, B::Equal, index, zero);
        self.flush(block);
        let mut copy = Block::new();
        let pointer = self.add(&mut copy, E::GlobalVariable(votes));
        let reached = self.add(&mut copy, E::Load { pointer });
        let pointer = self.add(&mut copy, E::GlobalVariable(any));
        self.push(
            &mut copy,
            St::Store {
                pointer,
                value: reached,
            },
        );
        block.push(
            St::If {
                condition: first,
                accept: copy,
                reject: Block::new(),
            },
            self.span,
        );
        let u32_t = super::scalar_type(&mut self.module, naga::Scalar::U32);
        let pointer = self.add(block, E::GlobalVariable(any));
        let result = self.add(block, E::WorkGroupUniformLoadResult { ty: u32_t });
        self.push(block, St::WorkGroupUniformLoad { pointer, result });
        let count = self.get_local(block, number);
        let held = self.binary(block, B::Equal, result, count);
        self.convert(block, held, Scalar::U32)
    }

    /// Collectives through workgroup memory. Reductions, votes and scans are trees over the
    /// lanes' positions (`tree`, `scan`): log2 of the width in steps between barriers, and no
    /// loop, so they spend none of a driver's budget of loop trips (lavapipe's 65,535; issue
    /// 51). A full warp combines in the simulator's butterfly order, so its results are the
    /// simulator's bit for bit; an inactive lane holds the identity at its position (the
    /// simulator packs the active lanes first), which changes a float sum by rounding only.
    fn collective(&mut self, block: &mut Block, dst: ir::Reg, op: &Op) {
        let (ty, argument) = match op {
            Op::Reduce(_, _, t, a) | Op::PrefixSum(t, a) => (*t, *a),
            Op::Vote(_, a) => (Scalar::Bool, *a),
            Op::Shuffle(..) => return self.exchange_shuffle(block, dst, op),
            _ => return,
        };
        let (active, _) = self.emulation();
        // A CTA reduction is a barrier for tensors too (the spec's), as `barrier()` is:
        // `workgroupBarrier()` orders workgroup memory only. The barrier also keeps the last
        // collective's readers ahead of this one's writers.
        let barrier = if matches!(op, Op::Reduce(_, Over::Cta, ..)) {
            Barrier::WORK_GROUP | Barrier::STORAGE
        } else {
            Barrier::WORK_GROUP
        };
        self.push(block, St::ControlBarrier(barrier));
        let own = self.operand(block, argument, ty);
        let on = self.get_local(block, active);
        let kind = scalar_kind(ty);
        let result = match *op {
            Op::Reduce(r, over, t, _) => {
                let identity = r.identity(t);
                let bits = self.bitcast(block, own, ScalarKind::Uint);
                let own = self.select_bits(block, on, bits, identity);
                let combine = move |b: &mut Self, blk: &mut Block, x, y| {
                    let (x, y) = (b.typed(blk, x, kind), b.typed(blk, y, kind));
                    let c = b.combine(blk, r, x, y);
                    b.bitcast(blk, c, ScalarKind::Uint)
                };
                let warp = self.warp_tree(block, own, identity, &combine);
                let bits = match over {
                    Over::Warp => warp,
                    Over::Cta => self.cta_tree(block, warp, identity, &combine),
                };
                self.typed(block, bits, kind)
            }
            Op::Vote(vote, _) => {
                let (one, zero) = (
                    self.lit(block, Literal::U32(1)),
                    self.lit(block, Literal::U32(0)),
                );
                let (own, identity, b) = match vote {
                    // A lane's bit where it is active and its value holds.
                    Vote::Any | Vote::Ballot => {
                        let both = self.binary(block, B::LogicalAnd, on, own);
                        let bit = if vote == Vote::Ballot {
                            let lane = self.lane(block);
                            let lane = self.bitcast(block, lane, ScalarKind::Uint);
                            self.binary(block, B::ShiftLeft, one, lane)
                        } else {
                            one
                        };
                        let own = self.add(
                            block,
                            E::Select {
                                condition: both,
                                accept: bit,
                                reject: zero,
                            },
                        );
                        (own, 0, B::InclusiveOr)
                    }
                    // Holds unless an active lane's value does not.
                    Vote::All => {
                        let off = self.not(block, on);
                        let either = self.binary(block, B::LogicalOr, off, own);
                        let own = self.add(
                            block,
                            E::Select {
                                condition: either,
                                accept: one,
                                reject: zero,
                            },
                        );
                        (own, 1, B::And)
                    }
                };
                let combine = move |s: &mut Self, blk: &mut Block, x, y| s.binary(blk, b, x, y);
                let bits = self.warp_tree(block, own, identity, &combine);
                if vote == Vote::Ballot {
                    bits
                } else {
                    let zero = self.lit(block, Literal::U32(0));
                    self.binary(block, B::NotEqual, bits, zero)
                }
            }
            Op::PrefixSum(t, _) => {
                // -0.0 for floats: the one `x + i = x` for every x, signed zeros included.
                let identity = if t.is_float() { 0x8000_0000 } else { 0 };
                let bits = self.bitcast(block, own, ScalarKind::Uint);
                let own = self.select_bits(block, on, bits, identity);
                let bits = self.scan(block, own, kind);
                self.typed(block, bits, kind)
            }
            _ => return,
        };
        self.flush(block);
        self.predicated(block, |b, inner| b.store_reg(inner, dst, result));
    }

    /// A u32's bits as a value of `kind` (unchanged for u32).
    fn typed(&mut self, block: &mut Block, bits: Handle<E>, kind: ScalarKind) -> Handle<E> {
        match kind {
            ScalarKind::Uint => bits,
            _ => self.bitcast(block, bits, kind),
        }
    }

    /// `bits` where `on`, else the constant `otherwise`, chosen among u32s at run time (a
    /// float identity such as -inf is never a float constant, which Chromium refuses).
    fn select_bits(
        &mut self,
        block: &mut Block,
        on: Handle<E>,
        bits: Handle<E>,
        otherwise: u32,
    ) -> Handle<E> {
        let otherwise = self.lit(block, Literal::U32(otherwise));
        self.add(
            block,
            E::Select {
                condition: on,
                accept: bits,
                reject: otherwise,
            },
        )
    }

    /// The exchange's slot `index` (an i32).
    fn slot(&mut self, block: &mut Block, index: Handle<E>) -> Handle<E> {
        let Some(values) = self.emulation.as_ref().map(|e| e.values) else {
            unreachable_emulation()
        };
        self.slot_in(block, values, index)
    }

    fn slot_in(
        &mut self,
        block: &mut Block,
        buffer: Handle<GlobalVariable>,
        index: Handle<E>,
    ) -> Handle<E> {
        let base = self.add(block, E::GlobalVariable(buffer));
        let index = self.bitcast(block, index, ScalarKind::Uint);
        self.add(block, E::Access { base, index })
    }

    fn store_slot(&mut self, block: &mut Block, index: Handle<E>, value: Handle<E>) {
        let pointer = self.slot(block, index);
        self.push(block, St::Store { pointer, value });
    }

    fn store_slot_in(
        &mut self,
        block: &mut Block,
        buffer: Handle<GlobalVariable>,
        index: Handle<E>,
        value: Handle<E>,
    ) {
        let pointer = self.slot_in(block, buffer, index);
        self.push(block, St::Store { pointer, value });
    }

    fn load_slot(&mut self, block: &mut Block, index: Handle<E>) -> Handle<E> {
        let pointer = self.slot(block, index);
        self.add(block, E::Load { pointer })
    }

    fn load_slot_in(
        &mut self,
        block: &mut Block,
        buffer: Handle<GlobalVariable>,
        index: Handle<E>,
    ) -> Handle<E> {
        let pointer = self.slot_in(block, buffer, index);
        self.add(block, E::Load { pointer })
    }

    /// The combination of every lane's `own` bits over its warp, in every invocation: the
    /// warp's positions (its lanes) halved each step, position `p` combining `p + o`'s value
    /// into its own, as the xor butterfly's lane 0 does; positions past the warp or the CTA
    /// give `identity`.
    fn warp_tree(
        &mut self,
        block: &mut Block,
        own: Handle<E>,
        identity: u32,
        combine: &Combine<'k>,
    ) -> Handle<E> {
        let lane = self.lane(block);
        let thread = self.thread(block);
        let base = self.binary(block, B::Subtract, thread, lane);
        // The warp's lanes that hold a thread: fewer in a partial last warp.
        let threads = self.lit(block, Literal::I32(self.kernel.threads as i32));
        let left = self.binary(block, B::Subtract, threads, base);
        let lanes = self.lit(block, Literal::I32(self.lanes as i32));
        let limit = self.add(
            block,
            E::Math {
                fun: naga::MathFunction::Min,
                arg: lanes,
                arg1: Some(left),
                arg2: None,
                arg3: None,
            },
        );
        let width = self.lanes.next_power_of_two();
        self.tree(block, own, identity, combine, (base, lane, limit), width)
    }

    /// A CTA's combination from its warps' (`warp`, the same in each lane of a warp): lane 0
    /// of each warp publishes it at the warp's position, and a tree over the positions
    /// combines them, as the simulator's butterfly over the warps' results does.
    fn cta_tree(
        &mut self,
        block: &mut Block,
        warp: Handle<E>,
        identity: u32,
        combine: &Combine<'k>,
    ) -> Handle<E> {
        let warps = self.kernel.threads.div_ceil(self.lanes);
        self.flush(block);
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        let lane = self.lane(block);
        let zero = self.lit(block, Literal::I32(0));
        let first = self.binary(block, B::Equal, lane, zero);
        let thread = self.thread(block);
        let lanes = self.lit(block, Literal::I32(self.lanes as i32));
        let index = self.binary(block, B::Divide, thread, lanes);
        self.flush(block);
        let mut publish = Block::new();
        self.store_slot(&mut publish, index, warp);
        self.flush(&mut publish);
        block.push(
            St::If {
                condition: first,
                accept: publish,
                reject: Block::new(),
            },
            self.span,
        );
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        // Position t holds warp t's result; past the warps, the identity.
        let thread = self.thread(block);
        let count = self.lit(block, Literal::I32(warps as i32));
        let inside = self.binary(block, B::Less, thread, count);
        let at = self.add(
            block,
            E::Select {
                condition: inside,
                accept: thread,
                reject: zero,
            },
        );
        let theirs = self.load_slot(block, at);
        let own = self.select_bits(block, inside, theirs, identity);
        let width = warps.next_power_of_two();
        self.tree(block, own, identity, combine, (zero, thread, count), width)
    }

    /// The halving tree itself, at `base + position` for positions below `limit` (the
    /// tree's `width` a power of two at least `limit`): at offset `o`, position `p` combines
    /// position `p + o`'s value into its own; the result is position 0's. Each invocation
    /// publishes its value, then [`TREE_STEP`] levels at a time ([`Builder::tree_step`]) it
    /// computes its position's value from the last step's array and writes it to the other
    /// (one barrier a step, none between a step's reads and the next step's writes); the last
    /// step is position 0's, which every invocation computes. Positions at or past
    /// `width / 2 ^ k` compute values no later step reads, so every invocation runs the same
    /// statements.
    fn tree(
        &mut self,
        block: &mut Block,
        own: Handle<E>,
        identity: u32,
        combine: &Combine<'k>,
        (base, position, limit): (Handle<E>, Handle<E>, Handle<E>),
        width: u32,
    ) -> Handle<E> {
        let at = self.binary(block, B::Add, base, position);
        let Some(buffers) = self.emulation.as_ref().map(|e| [e.values, e.spare]) else {
            unreachable_emulation()
        };
        self.store_slot_in(block, buffers[0], at, own);
        let offsets: Vec<u32> = std::iter::successors(Some(width / 2), |o| Some(o / 2))
            .take_while(|&o| o > 0)
            .collect();
        let mut steps: Vec<&[u32]> = offsets.chunks(TREE_STEP).collect();
        // The last step is position 0's, computed in every invocation (for a tree of width 1,
        // the read of position 0 alone).
        let last = steps.pop().unwrap_or(&[]);
        let mut from = 0;
        for step in steps {
            self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
            let value = self.tree_step(
                block,
                buffers[from],
                (base, position, limit),
                step,
                identity,
                combine,
            );
            self.store_slot_in(block, buffers[1 - from], at, value);
            from = 1 - from;
        }
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        let zero = self.lit(block, Literal::I32(0));
        self.tree_step(
            block,
            buffers[from],
            (base, zero, limit),
            last,
            identity,
            combine,
        )
    }

    /// Position `p`'s value after the levels at `offsets` (halving), from the values in
    /// `buffer` before them: the tree's own order, `combine(x[q], x[q + o])` at each level, from
    /// the `2 ^ offsets.len()` positions it rests on (those at or past `limit`: `identity`).
    fn tree_step(
        &mut self,
        block: &mut Block,
        buffer: Handle<GlobalVariable>,
        (base, p, limit): (Handle<E>, Handle<E>, Handle<E>),
        offsets: &[u32],
        identity: u32,
        combine: &Combine<'k>,
    ) -> Handle<E> {
        let Some((&outer, inner)) = offsets.split_last() else {
            let inside = self.binary(block, B::Less, p, limit);
            let there = self.binary(block, B::Add, base, p);
            let index = self.add(
                block,
                E::Select {
                    condition: inside,
                    accept: there,
                    reject: base,
                },
            );
            let theirs = self.load_slot_in(block, buffer, index);
            return self.select_bits(block, inside, theirs, identity);
        };
        // `outer` is this step's last level: its operands are the levels before at p and p + o.
        let o = self.lit(block, Literal::I32(outer as i32));
        let q = self.binary(block, B::Add, p, o);
        let x = self.tree_step(block, buffer, (base, p, limit), inner, identity, combine);
        let y = self.tree_step(block, buffer, (base, q, limit), inner, identity, combine);
        combine(self, block, x, y)
    }

    /// Each lane's inclusive sum over its warp's lanes up to its own (`own` is the identity
    /// where inactive), in Hillis-Steele steps as the simulator's scan: at distance `d`, lane
    /// `l` adds lane `l - d`'s value before its own.
    fn scan(&mut self, block: &mut Block, own: Handle<E>, kind: ScalarKind) -> Handle<E> {
        let mine = self.local("scan", Scalar::U32);
        self.set_local(block, mine, own);
        let thread = self.thread(block);
        self.store_slot(block, thread, own);
        let mut distance = 1;
        while distance < self.lanes {
            self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
            let lane = self.lane(block);
            let thread = self.thread(block);
            let d = self.lit(block, Literal::I32(distance as i32));
            let takes = self.binary(block, B::GreaterEqual, lane, d);
            let below = self.binary(block, B::Subtract, thread, d);
            let index = self.add(
                block,
                E::Select {
                    condition: takes,
                    accept: below,
                    reject: thread,
                },
            );
            let theirs = self.load_slot(block, index);
            let current = self.get_local(block, mine);
            let (x, y) = (
                self.typed(block, theirs, kind),
                self.typed(block, current, kind),
            );
            let sum = self.binary(block, B::Add, x, y);
            let sum = self.bitcast(block, sum, ScalarKind::Uint);
            let next = self.add(
                block,
                E::Select {
                    condition: takes,
                    accept: sum,
                    reject: current,
                },
            );
            self.set_local(block, mine, next);
            self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
            let value = self.get_local(block, mine);
            self.store_slot(block, thread, value);
            distance *= 2;
        }
        self.get_local(block, mine)
    }

    /// A shuffle through workgroup memory: every invocation publishes its value and whether
    /// it is active, and each active one reads its source lane's (its own where the source is
    /// outside the warp, holds no thread or is inactive, as the simulator's).
    fn exchange_shuffle(&mut self, block: &mut Block, dst: ir::Reg, op: &Op) {
        let Op::Shuffle(shuffle, x, l) = *op else {
            return;
        };
        let Some(emulation) = self.emulation.as_ref() else {
            unreachable_emulation()
        };
        let (flags, active) = (emulation.flags, emulation.active);
        let ty = self.reg_ty(dst);
        let kind = scalar_kind(ty);
        self.push(block, St::ControlBarrier(Barrier::WORK_GROUP));
        let own = self.operand(block, x, ty);
        let bits = if ty == Scalar::Bool {
            self.convert(block, own, Scalar::U32)
        } else {
            self.bitcast(block, own, ScalarKind::Uint)
        };
        let thread = self.thread(block);
        self.store_slot(block, thread, bits);
        let index = self.argument(block, 0);
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
        let lanes = self.lanes;
        let threads = self.kernel.threads;
        self.predicated(block, |b, inner| {
            let lane = b.lane(inner);
            let thread = b.thread(inner);
            let first = b.binary(inner, B::Subtract, thread, lane);
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
            // The source invocation, if it exists and is active.
            let limit = b.lit(inner, Literal::I32(threads as i32));
            let exists = b.binary(inner, B::Less, t, limit);
            let valid = b.binary(inner, B::LogicalAnd, in_warp, exists);
            let t = b.add(
                inner,
                E::Select {
                    condition: valid,
                    accept: t,
                    reject: thread,
                },
            );
            let base = b.add(inner, E::GlobalVariable(flags));
            let tu = b.bitcast(inner, t, ScalarKind::Uint);
            let p = b.add(inner, E::Access { base, index: tu });
            let f = b.add(inner, E::Load { pointer: p });
            let zero = b.lit(inner, Literal::U32(0));
            let on = b.binary(inner, B::NotEqual, f, zero);
            let valid = b.binary(inner, B::LogicalAnd, valid, on);
            let theirs = b.load_slot(inner, t);
            let mine = b.load_slot(inner, thread);
            let chosen = b.add(
                inner,
                E::Select {
                    condition: valid,
                    accept: theirs,
                    reject: mine,
                },
            );
            let value = if ty == Scalar::Bool {
                let zero = b.lit(inner, Literal::U32(0));
                b.binary(inner, B::NotEqual, chosen, zero)
            } else {
                b.typed(inner, chosen, kind)
            };
            b.store_reg(inner, dst, value);
        });
    }
}

/// Levels of a reduction tree an invocation combines between two barriers
/// ([`Builder::tree_step`]), reading `2 ^ TREE_STEP` positions.
const TREE_STEP: usize = 2;

/// Whether `stmt` meets no other lane, so an invocation can run it by itself: no collective,
/// vote, scan or shuffle (which read other lanes), no barrier, no `return` (an invocation that
/// returns still takes part in the barriers after), and no `break` or `continue` of a loop
/// outside it (`loops`: the loops within `stmt` around this one).
fn alone(stmt: &ir::Stmt, loops: usize) -> bool {
    let all = |stmts: &[ir::Stmt], loops| stmts.iter().all(|s| alone(s, loops));
    match &stmt.kind {
        StmtKind::Let { op, .. } => !is_collective(op),
        StmtKind::Store { .. }
        | StmtKind::SharedStore { .. }
        | StmtKind::LocalStore { .. }
        | StmtKind::Atomic(_) => true,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => all(then_block, loops) && all(else_block, loops),
        StmtKind::Loop { body, continuing } => all(body, loops + 1) && all(continuing, loops + 1),
        StmtKind::Break | StmtKind::Continue => loops > 0,
        StmtKind::Return | StmtKind::Barrier | StmtKind::Mma { .. } => false,
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
        // `ir::wide` leaves no 64-bit value in a kernel WGSL is made from.
        Scalar::U32 | Scalar::U8 | Scalar::I64 | Scalar::U64 => ScalarKind::Uint,
        Scalar::Bool => ScalarKind::Bool,
    }
}

fn unreachable_emulation() -> ! {
    // Only the emulated-mode entry point calls these, after `start_emulation`.
    unreachable!("emulation used before start_emulation")
}
