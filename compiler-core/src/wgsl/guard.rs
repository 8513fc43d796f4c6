//! The loop guard: a trip budget per invocation, so a kernel whose loop never ends stops on
//! the GPU as it does on the simulator (E0514), instead of hanging the device or, where the
//! driver bounds loops by itself, returning made-up results.
//!
//! In: [`Guard::Trips`] (the budget: the run's step limit, which no thread of a kernel the
//! simulator finishes can exceed, since every trip runs at least one statement). Out: each loop
//! counts its trips at the top of its body; past the budget it writes the loop's number (from
//! 1, an index into [`GuardLayout::loops`] plus one) to the storage word at
//! [`GuardLayout::binding`] and stops. The runner reads the word back.
//!
//! A driver may end a loop by itself: Mesa's lavapipe leaves any loop after 65,535 trips and
//! goes on after it, so an endless loop "finishes" with made-up results. So each guarded loop
//! also notes that it left by one of its own exits (its `break`s, the guard's), and code after
//! the loop that finds no such note writes the loop's number with [`DRIVER_CUT`] set.
//!
//! Invariants: the guard never changes what a kernel within its budget computes, and it keeps
//! the uniformity every barrier needs (Chromium's WGSL compiler checks it):
//! - in subgroup mode, a loop that holds a barrier (or a CTA-wide reduction, which uses one) is
//!   in uniform control, so it counts its own trips in a counter of its own, which only
//!   uniform control touches, and `break`s; every other loop counts in the invocation's one
//!   counter and `break`s, and once that counter is past the budget every such loop leaves on
//!   its first trip, so a runaway kernel ends after about one budget of trips per loop;
//! - in emulated-warp mode every invocation follows one uniform control flow anyway: an
//!   invocation past its budget leaves the kernel as `return` does (its `exited` flag);
//! - a counting loop whose trips a constant bounds within the budget (`ir::bounds`) counts
//!   none, and still notes its exits.

use super::*;
pub use crate::guard::Guard;

/// Where a guarded kernel reports a runaway loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GuardLayout {
    /// A read-write storage buffer of one `u32`, zero before the run: after it, 0 or the
    /// number of a loop that ran past the budget.
    pub binding: u32,
    pub budget: u32,
    /// Each loop's span in the source (its header), by number minus one.
    pub loops: Vec<crate::span::Span>,
}

/// Set in the guard's word when the driver, not the guard, ended the loop.
pub const DRIVER_CUT: u32 = 1 << 31;

/// What stopped a runaway loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The loop guard: the loop ran past the budget.
    Guard,
    /// The GPU's driver ended the loop before it finished (it bounds loops).
    Driver,
}

impl GuardLayout {
    /// The loop that was stopped, and by what, from the word read back (0: none).
    pub fn runaway(&self, word: u32) -> Option<(crate::span::Span, Stopped)> {
        let by = if word & DRIVER_CUT != 0 {
            Stopped::Driver
        } else {
            Stopped::Guard
        };
        let number = word & !DRIVER_CUT;
        Some((*self.loops.get(number.checked_sub(1)? as usize)?, by))
    }
}

pub(super) struct GuardState {
    budget: u32,
    binding: u32,
    word: Handle<GlobalVariable>,
    /// The invocation's count of trips of loops without a barrier.
    trips: Handle<LocalVariable>,
    loops: Vec<crate::span::Span>,
    /// The loops being built, innermost last.
    open: Vec<GuardedLoop>,
    /// Counting loops a constant bounds within the budget (`ir::bounds`): no trip counter.
    bounded: std::collections::HashSet<ir::bounds::LoopId>,
}

/// A loop the guard watches: its number, and the flag its own exits set.
#[derive(Clone, Copy)]
pub(super) struct GuardedLoop {
    number: u32,
    left: Handle<LocalVariable>,
}

impl Builder<'_> {
    /// Declares the guard's storage word and the invocation's counter.
    pub(super) fn start_guard(&mut self, budget: u32) {
        let u32_t = scalar_type(&mut self.module, naga::Scalar::U32);
        let array = self.module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Array {
                    base: u32_t,
                    size: ArraySize::Dynamic,
                    stride: 4,
                },
            },
            SP,
        );
        let binding = self.uniform_binding + 1;
        let word = self.module.global_variables.append(
            GlobalVariable {
                name: Some("loop_guard".into()),
                space: AddressSpace::Storage {
                    access: StorageAccess::LOAD | StorageAccess::STORE,
                },
                binding: Some(ResourceBinding { group: 0, binding }),
                ty: array,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            SP,
        );
        // Nothing is emitted yet, so the literal's `Emit` bookkeeping leaves this block empty.
        let trips = self.zeroed_counter(&mut Block::new(), "trips");
        let bounded = ir::bounds::trip_bounds(self.kernel)
            .into_iter()
            .filter(|&(_, trips)| trips <= i64::from(budget))
            .map(|(id, _)| id)
            .collect();
        self.guard = Some(GuardState {
            budget,
            binding,
            word,
            trips,
            loops: Vec::new(),
            open: Vec::new(),
            bounded,
        });
    }

    pub(super) fn guard_layout(&self) -> Option<GuardLayout> {
        self.guard.as_ref().map(|g| GuardLayout {
            binding: g.binding,
            budget: g.budget,
            loops: g.loops.clone(),
        })
    }

    /// A `u32` local that starts at 0 (an initializer, not a store, so no control flow
    /// touches it before its loop does).
    fn zeroed_counter(&mut self, block: &mut Block, name: &str) -> Handle<LocalVariable> {
        let zero = self.lit(block, Literal::U32(0));
        self.initialized_local(name, naga::Scalar::U32, zero)
    }

    pub(super) fn initialized_local(
        &mut self,
        name: &str,
        scalar: naga::Scalar,
        init: Handle<E>,
    ) -> Handle<LocalVariable> {
        let ty = scalar_type(&mut self.module, scalar);
        let name = format!("{name}_{}", self.function.local_variables.len());
        self.function.local_variables.append(
            LocalVariable {
                name: Some(name),
                ty,
                init: Some(init),
            },
            SP,
        )
    }

    fn store_flag(&mut self, block: &mut Block, flag: Handle<LocalVariable>, value: bool) {
        let value = self.lit(block, Literal::Bool(value));
        self.set_local(block, flag, value);
    }

    /// Numbers the loop at `span` and clears its flag, before the loop in `block`; `None` when
    /// the guard is off.
    pub(super) fn guard_loop_start(
        &mut self,
        block: &mut Block,
        span: crate::span::Span,
    ) -> Option<GuardedLoop> {
        self.guard.as_ref()?;
        let no = self.lit(block, Literal::Bool(false));
        let left = self.initialized_local("left", naga::Scalar::BOOL, no);
        self.store_flag(block, left, false);
        let guard = self.guard.as_mut()?;
        guard.loops.push(span);
        let watched = GuardedLoop {
            number: guard.loops.len() as u32,
            left,
        };
        guard.open.push(watched);
        Some(watched)
    }

    /// Before one of the innermost loop's own exits: notes that it left by it.
    pub(super) fn guard_exit(&mut self, block: &mut Block) {
        if let Some(watched) = self.guard.as_ref().and_then(|g| g.open.last().copied()) {
            self.store_flag(block, watched.left, true);
        }
    }

    /// Whether loop `stmt` counts its trips: not where a constant bounds them within the
    /// budget (it still notes its exits, so a driver's cut is seen).
    pub(super) fn counts_trips(&self, stmt: &ir::Stmt) -> bool {
        self.guard
            .as_ref()
            .is_some_and(|g| !g.bounded.contains(&ir::bounds::id(stmt)))
    }

    /// After the loop in `block`: a loop that left by none of its exits was ended by the
    /// driver, which the word says.
    pub(super) fn guard_loop_end(&mut self, block: &mut Block, watched: Option<GuardedLoop>) {
        let Some(watched) = watched else { return };
        if let Some(guard) = self.guard.as_mut() {
            guard.open.pop();
        }
        let left = self.get_local(block, watched.left);
        let cut = self.not(block, left);
        self.flush(block);
        let mut accept = Block::new();
        self.write_runaway(&mut accept, watched.number | DRIVER_CUT);
        self.flush(&mut accept);
        block.push(
            St::If {
                condition: cut,
                accept,
                reject: Block::new(),
            },
            self.span,
        );
    }

    /// Subgroup mode: the top of loop `body`'s trip: count it, and past the budget write the
    /// loop's number and `break`.
    pub(super) fn guard_trip(
        &mut self,
        block: &mut Block,
        watched: Option<GuardedLoop>,
        body: &[ir::Stmt],
    ) {
        let Some(watched) = watched else { return };
        let counter = if holds_barrier(body) {
            self.zeroed_counter(block, "loop_trips")
        } else {
            let Some(guard) = &self.guard else { return };
            guard.trips
        };
        let mut stop = Block::new();
        self.write_runaway(&mut stop, watched.number);
        self.store_flag(&mut stop, watched.left, true);
        stop.push(St::Break, self.span);
        self.count_trip(block, counter, stop);
    }

    /// Emulated-warp mode: the same for the active invocations, which leave the kernel past the
    /// budget (their `exited` flag set, their `active` flag cleared).
    pub(super) fn guard_trip_emulated(
        &mut self,
        block: &mut Block,
        watched: GuardedLoop,
        exited: Handle<LocalVariable>,
        active: Handle<LocalVariable>,
    ) {
        let Some(counter) = self.guard.as_ref().map(|g| g.trips) else {
            return;
        };
        let mut stop = Block::new();
        self.write_runaway(&mut stop, watched.number);
        self.store_flag(&mut stop, exited, true);
        self.store_flag(&mut stop, active, false);
        self.count_trip(block, counter, stop);
    }

    /// `counter += 1; if counter > budget { stop }`.
    fn count_trip(&mut self, block: &mut Block, counter: Handle<LocalVariable>, mut stop: Block) {
        let budget = self.guard.as_ref().map_or(u32::MAX, |g| g.budget);
        let pointer = self.add(block, E::LocalVariable(counter));
        let trips = self.add(block, E::Load { pointer });
        let one = self.lit(block, Literal::U32(1));
        let next = self.binary(block, B::Add, trips, one);
        self.push(
            block,
            St::Store {
                pointer,
                value: next,
            },
        );
        let limit = self.lit(block, Literal::U32(budget));
        let over = self.binary(block, B::Greater, next, limit);
        self.flush(block);
        self.flush(&mut stop);
        block.push(
            St::If {
                condition: over,
                accept: stop,
                reject: Block::new(),
            },
            self.span,
        );
    }

    /// `loop_guard[0] = number`.
    fn write_runaway(&mut self, block: &mut Block, number: u32) {
        let Some(word) = self.guard.as_ref().map(|g| g.word) else {
            return;
        };
        let base = self.add(block, E::GlobalVariable(word));
        let index = self.lit(block, Literal::U32(0));
        let pointer = self.add(block, E::Access { base, index });
        let value = self.lit(block, Literal::U32(number));
        self.push(block, St::Store { pointer, value });
    }
}

/// Whether `stmts` hold a barrier, or a CTA-wide reduction (which uses barriers in subgroup
/// mode): such a loop must leave in uniform control.
fn holds_barrier(stmts: &[ir::Stmt]) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Barrier => true,
        StmtKind::Let {
            op: ir::Op::Reduce(_, Over::Cta, ..),
            ..
        } => true,
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => holds_barrier(then_block) || holds_barrier(else_block),
        StmtKind::Loop { body, continuing } => holds_barrier(body) || holds_barrier(continuing),
        _ => false,
    })
}
