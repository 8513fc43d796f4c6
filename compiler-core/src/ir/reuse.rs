//! Shared memory reused by liveness: the arrays of tile expressions whose values are dead
//! share storage.
//!
//! In: a lowered kernel, and which of its shared arrays are named (a tile variable, a
//! function's tile parameter, a scratch tile: any the source can read again later). Out: the
//! same kernel where each unnamed array (a tile load `X[r :+ 32, k :+ 32]`, a product's or an
//! operation's result) is merged into an earlier one of the same element type and layout whose
//! last access comes before its first, and the arrays left are renumbered.
//!
//! Invariants: an unnamed array is filled whole by the tile operation that makes it before any
//! read, and every tile operation ends with a barrier, so an array is free again at the first
//! barrier after its last access (not before it: while some threads of an operation still
//! read its operands, others write its result); an access inside a loop to an array first accessed
//! before the loop keeps the array live to the loop's end (the next trip reads it again).
//! Named arrays and per-warp slots are never merged. So every backend sees plain arrays, with
//! no aliases, and the simulator's race checks hold as before.
//!
//! **Decision (issue 55):** a SwiGLU block (`g += x @ W_gate`, `u += x @ W_up`, 32 × 32 tiles)
//! took an array for each operand of each product; merged, its operands take two arrays, so
//! it fits a WebGPU device's 32 KiB of workgroup memory with room to spare.

use super::{Kernel, Op, Place, Stmt, StmtKind};

/// Merges the unnamed arrays of `kernel` by liveness (`named[i]`: array `i` is named).
pub(super) fn reuse_tiles(kernel: &mut Kernel, named: &[bool]) {
    let count = kernel.shared.len();
    let mut live: Vec<Option<(usize, usize)>> = vec![None; count];
    let mut position = 0;
    let (mut loops, mut barriers) = (Vec::new(), Vec::new());
    accesses(
        &kernel.body,
        &mut position,
        &mut live,
        (&mut loops, &mut barriers),
    );
    // Accessed in a loop but first before it: live to the loop's end.
    for &(start, end) in &loops {
        for range in live.iter_mut().flatten() {
            let inside = |p: usize| (start..=end).contains(&p);
            if range.0 < start && (inside(range.1) || range.1 > end) {
                range.1 = range.1.max(end);
            }
        }
    }
    let mut unnamed: Vec<usize> = (0..count)
        .filter(|&i| !named.get(i).copied().unwrap_or(false) && !kernel.shared[i].per_warp)
        .filter(|&i| live[i].is_some())
        .collect();
    unnamed.sort_by_key(|&i| live[i].map(|r| r.0));
    // Each slot: the array the others go into, and the position where it is free again.
    let mut into: Vec<usize> = (0..count).collect();
    let mut slots: Vec<(usize, usize)> = Vec::new();
    for &array in &unnamed {
        let Some((first, last)) = live[array] else {
            continue;
        };
        let same = |other: usize| {
            let (a, b) = (&kernel.shared[array], &kernel.shared[other]);
            a.element == b.element && a.shape == b.shape && a.storage == b.storage
        };
        // Free at the first barrier after the last access: a tile operation's threads may
        // still read its operands while others write its result.
        let free = barriers
            .iter()
            .copied()
            .find(|&b| b > last)
            .unwrap_or(usize::MAX);
        match slots
            .iter_mut()
            .find(|(owner, at)| *at < first && same(*owner))
        {
            Some(slot) => {
                into[array] = slot.0;
                slot.1 = free;
            }
            None => slots.push((array, free)),
        }
    }
    if into.iter().enumerate().all(|(i, &j)| i == j) {
        return;
    }
    // A merged array is named for every value it holds (`Wg_tile_or_Wu_tile`).
    for (array, &owner) in into.iter().enumerate() {
        if owner != array {
            let name = kernel.shared[array].name.clone();
            let names = &mut kernel.shared[owner].name;
            if !names.split("_or_").any(|n| n == name) {
                *names = format!("{names}_or_{name}");
            }
        }
    }
    // Renumber the arrays that remain, in their order.
    let mut number = vec![usize::MAX; count];
    let mut kept = Vec::new();
    for (i, array) in kernel.shared.drain(..).enumerate() {
        if into[i] == i {
            number[i] = kept.len();
            kept.push(array);
        }
    }
    kernel.shared = kept;
    let renamed: Vec<usize> = (0..count).map(|i| number[into[i]]).collect();
    rename(&mut kernel.body, &renamed);
}

/// Numbers `stmts` in order, noting each array's first and last access, each loop's span of
/// numbers and each barrier's number (in order).
fn accesses(
    stmts: &[Stmt],
    position: &mut usize,
    live: &mut [Option<(usize, usize)>],
    (loops, barriers): (&mut Vec<(usize, usize)>, &mut Vec<usize>),
) {
    for stmt in stmts {
        *position += 1;
        let p = *position;
        let mut touch = |array: usize| {
            if let Some(range) = live.get_mut(array) {
                let (first, _) = range.unwrap_or((p, p));
                *range = Some((first, p));
            }
        };
        match &stmt.kind {
            StmtKind::Let {
                op: Op::SharedLoad { array, .. },
                ..
            }
            | StmtKind::SharedStore { array, .. } => touch(*array),
            StmtKind::Atomic(atomic) => {
                if let Place::Shared { array, .. } = atomic.place {
                    touch(array);
                }
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                accesses(then_block, position, live, (&mut *loops, &mut *barriers));
                accesses(else_block, position, live, (&mut *loops, &mut *barriers));
            }
            StmtKind::Loop { body, continuing } => {
                accesses(body, position, live, (&mut *loops, &mut *barriers));
                accesses(continuing, position, live, (&mut *loops, &mut *barriers));
                loops.push((p, *position));
            }
            StmtKind::Barrier => barriers.push(p),
            _ => {}
        }
    }
}

/// Points every access at array `renamed[old]`.
fn rename(stmts: &mut [Stmt], renamed: &[usize]) {
    for stmt in stmts {
        match &mut stmt.kind {
            StmtKind::Let {
                op: Op::SharedLoad { array, .. },
                ..
            }
            | StmtKind::SharedStore { array, .. } => *array = renamed[*array],
            StmtKind::Atomic(atomic) => {
                if let Place::Shared { array, .. } = &mut atomic.place {
                    *array = renamed[*array];
                }
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                rename(then_block, renamed);
                rename(else_block, renamed);
            }
            StmtKind::Loop { body, continuing } => {
                rename(body, renamed);
                rename(continuing, renamed);
            }
            _ => {}
        }
    }
}
