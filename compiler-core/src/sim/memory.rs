//! Memory: tensor and shared-memory elements, bounds (E0510) and the shared-memory race
//! detector (E0513), which records who touched each shared element since the last barrier.

use super::arith;
use super::*;

/// Reads of one element finding one value, in a row, after which a CTA stopped at its step
/// limit is taken to be waiting for another CTA.
const POLLS: u64 = 1000;

impl<'a> Cta<'a> {
    /// Where thread `t`'s `tile[indices]` is stored (a padded tile's rows are one word longer
    /// than its shape's), if every coordinate is inside the tile's shape.
    pub(super) fn stored_index(
        &self,
        info: &SharedArray,
        indices: &[Operand],
        t: usize,
    ) -> Option<usize> {
        if indices.len() != info.shape.len() {
            return None;
        }
        let mut flat = 0usize;
        for ((index, &extent), &stored) in indices.iter().zip(&info.shape).zip(&info.storage) {
            let i = self.get(*index, t) as i32;
            if i < 0 || i as u32 >= extent {
                return None;
            }
            flat = flat * stored as usize + i as usize;
        }
        Some(flat)
    }

    /// The stored index of `tile[indices]` for thread `t`, or the out-of-bounds fault.
    pub(super) fn shared_element(
        &self,
        array: usize,
        indices: &[Operand],
        t: usize,
        span: Span,
    ) -> Result<usize, Fault> {
        let Some(info) = self.kernel.shared.get(array) else {
            return Err(self.fault(Code::E0515, span, t, "a shared array is missing".into()));
        };
        self.stored_index(info, indices, t).ok_or_else(|| {
            let shape: Vec<usize> = info.shape.iter().map(|&n| n as usize).collect();
            let (coordinates, shape) = self.describe_access(indices, &shape, t);
            let message = format!(
                "{}[{coordinates}] is outside the tile's shape [{shape}]",
                info.name
            );
            self.fault(Code::E0510, span, t, message)
        })
    }

    /// Thread `t`'s row-major index of `indices` in `shape`, if every coordinate is inside.
    pub(super) fn flat_index(
        &self,
        indices: &[Operand],
        shape: &[usize],
        t: usize,
    ) -> Option<usize> {
        if indices.len() != shape.len() {
            return None;
        }
        indices
            .iter()
            .zip(shape)
            .try_fold(0usize, |flat, (index, &extent)| {
                let i = self.get(*index, t) as i32;
                (i >= 0 && (i as usize) < extent).then(|| flat * extent + i as usize)
            })
    }

    /// "5, 300" and "4, 256": the coordinates thread `t` used and the shape, for a fault. An
    /// index is read as an `i32`, or as a `u32` where its register is one (`ir`'s
    /// `Lowering::index`): 4294967288, not -8.
    pub(super) fn describe_access(
        &self,
        indices: &[Operand],
        shape: &[usize],
        t: usize,
    ) -> (String, String) {
        let coordinates: Vec<String> = indices
            .iter()
            .map(|i| {
                let bits = self.get(*i, t);
                match i {
                    Operand::Reg(r) if self.kernel.regs[r.0 as usize].ty == Scalar::U32 => {
                        bits.to_string()
                    }
                    _ => (bits as i32).to_string(),
                }
            })
            .collect();
        let shape: Vec<String> = shape.iter().map(usize::to_string).collect();
        (coordinates.join(", "), shape.join(", "))
    }

    /// Records thread `t`'s access to a shared element; a second thread touching it in the same
    /// epoch, one of them writing plainly, or one plainly and one by an atomic, is a data race.
    pub(super) fn touch(
        &mut self,
        array: usize,
        at: usize,
        t: usize,
        how: Touch,
        span: Span,
    ) -> Result<(), Fault> {
        let epoch = self.epoch;
        let Some((who, what)) = self.accesses[array][at].conflict(epoch, t, how) else {
            return Ok(());
        };
        let name = self
            .kernel
            .shared
            .get(array)
            .map_or("?", |a| a.name.as_str());
        Err(self.fault(
            Code::E0513,
            span,
            t,
            format!(
                "data race on element {at} of tile `{name}`: thread {t} {} after {} {what}, with no barrier() between",
                how.verb(),
                thread_phrase(who)
            ),
        ))
    }

    /// Records thread `t`'s access to a tensor element: within the CTA, a second thread
    /// touching it since the last barrier, one of them writing (an atomic and a plain access
    /// included), is a data race; across CTAs, which nothing orders within a launch, so is a
    /// second CTA touching it, one of them writing, unless both only read or both use atomics.
    pub(super) fn touch_tensor(
        &mut self,
        tensor: usize,
        at: usize,
        t: usize,
        how: Touch,
        span: Span,
    ) -> Result<(), Fault> {
        let global = self.global;
        let Some(record) = global
            .races
            .get(tensor)
            .and_then(Option::as_ref)
            .and_then(|r| r.get(at))
        else {
            return Ok(());
        };
        let epoch = self.epoch;
        let key = (tensor as u64) << 32 | at as u64;
        let access = self.tensor_accesses.entry(key).or_default();
        if let Some((who, what)) = access.conflict(epoch, t, how) {
            let message = format!(
                "data race on {}: thread {t} {} after {} {what}, with no barrier() between",
                self.tensor_element(tensor, at),
                how.verb(),
                thread_phrase(who)
            );
            return Err(self.fault(Code::E0516, span, t, message));
        }
        // CTAs past 2^32 in grid order go unchecked across CTAs.
        let Ok(cta) = u32::try_from(self.index) else {
            return Ok(());
        };
        let Err(word) = record.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |word| {
            cross_cta(word, cta, t as u32, how)
        }) else {
            return Ok(());
        };
        let other = CrossCta::of(word);
        let message = format!(
            "data race on {}: thread {t} of block {} {}, and block {} {} (its thread {} touched it first) in the same launch; nothing orders two CTAs of a launch: they may touch one element only if both only read it or both only change it by atomics",
            self.tensor_element(tensor, at),
            coordinates(self.block),
            how.verb(),
            coordinates(self.global.block_of(u64::from(other.cta))),
            other.against(how),
            other.thread,
        );
        Err(self.fault(Code::E0516, span, t, message))
    }

    /// After a barrier: accesses before it cannot race with those after it.
    pub(super) fn next_epoch(&mut self) {
        self.epoch += 1;
        self.tensor_accesses.clear();
    }

    /// `X[3, 4]`: a tensor's element by its coordinates, from its row-major index.
    fn tensor_element(&self, tensor: usize, at: usize) -> String {
        let name = self.kernel.params.get(tensor).map_or("?", |p| p.name());
        let (shape, at) = match self.args.params.get(tensor) {
            // A 64-bit element's two words (`ir::wide`) are one element of the source.
            Some(Arg::Tensor(t)) if t.element.is_wide() => {
                (t.shape[..t.shape.len().saturating_sub(1)].to_vec(), at / 2)
            }
            Some(Arg::Tensor(t)) => (t.shape.clone(), at),
            _ => (vec![at + 1], at),
        };
        let mut rest = at;
        let mut coordinates = vec![0; shape.len()];
        for (c, &extent) in coordinates.iter_mut().zip(&shape).rev() {
            *c = rest % extent.max(1);
            rest /= extent.max(1);
        }
        let coordinates: Vec<String> = coordinates.iter().map(usize::to_string).collect();
        format!("{name}[{}]", coordinates.join(", "))
    }

    /// An atomic on every active thread, in thread order: the order the spec gives atomics of
    /// one statement (and CTAs run in grid order when the results could depend on it).
    pub(super) fn atomic(
        &mut self,
        atomic: &Atomic,
        mask: &[bool],
        span: Span,
    ) -> Result<(), Fault> {
        let Atomic {
            dst,
            op,
            ty,
            ref place,
            value,
            expected,
        } = *atomic;
        let first = mask.iter().position(|&m| m);
        for t in 0..self.threads {
            if !mask[t] {
                continue;
            }
            let operand = self.get(value, t);
            let expected = expected.map_or(0, |e| self.get(e, t));
            let change = |old: u32| arith::atomic(op, ty, old, operand, expected);
            let old = match place {
                Place::Tensor { tensor, indices } => {
                    let at = self.element(*tensor, indices, t, span)?;
                    self.touch_tensor(*tensor, at, t, Touch::Atomic, span)?;
                    let Some(cell) = self.global.cells.get(*tensor).and_then(|c| c.get(at)) else {
                        continue;
                    };
                    let flushed = op == AtomicOp::Add && ty == Scalar::F32;
                    let on_tensor = |old: u32| {
                        if flushed {
                            arith::global_float_add(old, operand)
                        } else {
                            change(old)
                        }
                    };
                    let old = match cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                        Some(on_tensor(old))
                    }) {
                        Ok(old) | Err(old) => old,
                    };
                    let new = on_tensor(old);
                    if flushed && arith::order_shows(old, operand, new) {
                        self.stats.order_dependent_sums = true;
                    }
                    // A poll (`atomic_add(F[0], 0)`, its old value used) that leaves the element
                    // as it was writes nothing, so the CTA another waits for is the one named.
                    // (An atomic whose old value is used runs its CTAs in order on one thread,
                    // so what it finds, and so who writes, is the same on every run.)
                    if let Some(slot) = self
                        .writers
                        .and_then(|w| w.get(*tensor))
                        .and_then(|w| w.get(at))
                        .filter(|_| dst.is_none() || new != old)
                    {
                        self.record_writer(slot, t);
                    }
                    if dst.is_some() && first == Some(t) {
                        self.polled(*tensor, at, old);
                    }
                    old
                }
                Place::Shared { array, indices } => {
                    let at = self.shared_element(*array, indices, t, span)?;
                    self.touch(*array, at, t, Touch::Atomic, span)?;
                    let old = self.shared[*array][at];
                    self.shared[*array][at] = change(old);
                    old
                }
            };
            if let Some(dst) = dst {
                self.set(dst, t, old);
            }
        }
        Ok(())
    }

    /// Counts a read by an atomic of the CTA's first active thread: the same element found
    /// with the same value again, or another.
    fn polled(&mut self, tensor: usize, at: usize, found: u32) {
        self.polls = match self.polls {
            Some((t, a, v, n)) if (t, a, v) == (tensor, at, found) => Some((t, a, v, n + 1)),
            _ => Some((tensor, at, found, 1)),
        };
    }

    /// What the CTA waits for, when it stopped while polling one element: found unchanged by
    /// its last [`POLLS`] reads at least.
    pub(super) fn waits(&self) -> Option<Box<Waits>> {
        let (tensor, element, _, count) = self.polls?;
        (count >= POLLS).then(|| {
            Box::new(Waits {
                tensor,
                element,
                name: self.tensor_element(tensor, element),
                changed_by: None,
            })
        })
    }

    /// Records thread `t` as the last writer of an element, unless a later CTA in grid order
    /// (whose threads have higher launch indices) already wrote it on another OS thread: so
    /// the writers are those of one thread running the CTAs in order.
    pub(super) fn record_writer(&self, slot: &AtomicU32, t: usize) {
        let me = self.first_thread + t as u32 + 1;
        let after_this_cta = self.first_thread + self.threads as u32;
        let _ = slot.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |writer| {
            (writer <= after_this_cta).then_some(me)
        });
    }

    /// The flat index of `tensor[indices]` for thread `t`, or the out-of-bounds fault.
    pub(super) fn element(
        &self,
        tensor: usize,
        indices: &[Operand],
        t: usize,
        span: Span,
    ) -> Result<usize, Fault> {
        let Some(Arg::Tensor(data)) = self.args.params.get(tensor) else {
            return Err(self.fault(Code::E0515, span, t, "a tensor argument is missing".into()));
        };
        match self.flat_index(indices, &data.shape, t) {
            Some(flat) if flat < self.global.cells.get(tensor).map_or(0, Vec::len) => Ok(flat),
            _ => {
                let name = self.kernel.params.get(tensor).map_or("?", |p| p.name());
                // A 64-bit element's word (`ir::wide`) is not the source's coordinate.
                let words = usize::from(self.kernel.params[tensor].element().is_wide());
                let (coordinates, shape) = self.describe_access(
                    &indices[..indices.len() - words],
                    &data.shape[..data.shape.len() - words],
                    t,
                );
                let message = format!("{name}[{coordinates}] is outside {name}'s shape [{shape}]");
                Err(self.fault(Code::E0510, span, t, message))
            }
        }
    }
}

/// "(1, 0, 0)".
fn coordinates(block: Dim3) -> String {
    format!("({}, {}, {})", block.x, block.y, block.z)
}

/// "thread 3", or "other threads" for several.
fn thread_phrase(who: u32) -> String {
    if who == u32::MAX {
        "other threads".to_owned()
    } else {
        format!("thread {}", who - 1)
    }
}

impl Access {
    /// Records thread `t`'s access in `epoch`; the thread (index + 1, `u32::MAX` for several)
    /// it races with and what that one did, if it races: two threads on one element since the
    /// last barrier, one of them writing plainly, or one plainly and one by an atomic.
    fn conflict(&mut self, epoch: u32, t: usize, how: Touch) -> Option<(u32, &'static str)> {
        let me = t as u32 + 1;
        if self.epoch != epoch {
            *self = Access {
                epoch,
                ..Access::default()
            };
        }
        let other = |who: u32| who != 0 && who != me;
        if other(self.writer) {
            return Some((self.writer, "wrote it"));
        } else if how != Touch::Read && other(self.reader) {
            return Some((self.reader, "read it"));
        } else if how != Touch::Atomic && other(self.atomic) {
            return Some((self.atomic, "changed it by an atomic"));
        }
        let slot = match how {
            Touch::Read => &mut self.reader,
            Touch::Write => &mut self.writer,
            Touch::Atomic => &mut self.atomic,
        };
        *slot = if *slot == 0 || *slot == me || how == Touch::Write {
            me
        } else {
            u32::MAX
        };
        None
    }
}

impl Touch {
    fn verb(self) -> &'static str {
        match self {
            Touch::Read => "reads it",
            Touch::Write => "writes it",
            Touch::Atomic => "changes it by an atomic",
        }
    }

    fn bit(self) -> u64 {
        match self {
            Touch::Read => 1,
            Touch::Write => 2,
            Touch::Atomic => 4,
        }
    }
}

/// An element's record across CTAs, in one word: the mode (bits 62-63: 0 untouched, 1 one CTA
/// so far, 2 several CTAs, all reading, 3 several CTAs, all by atomics), how the first CTA
/// touched it (bits 59-61: read 1, write 2, atomic 4), its first thread there (bits 32-42)
/// and the CTA's index in grid order (bits 0-31).
struct CrossCta {
    mode: u64,
    kinds: u64,
    thread: u32,
    cta: u32,
}

impl CrossCta {
    fn of(word: u64) -> Self {
        Self {
            mode: word >> 62,
            kinds: (word >> 59) & 7,
            thread: ((word >> 32) & 0x7FF) as u32,
            cta: word as u32,
        }
    }

    fn word(&self) -> u64 {
        self.mode << 62 | self.kinds << 59 | u64::from(self.thread) << 32 | u64::from(self.cta)
    }

    /// What the recorded CTA did that races with an access `how`: a plain write first, then
    /// the kind of access that may not meet `how` (a plain read meets only reads, an atomic
    /// only atomics).
    fn against(&self, how: Touch) -> &'static str {
        let (read, atomic) = (self.kinds & 1 != 0, self.kinds & 4 != 0);
        if self.kinds & 2 != 0 {
            "wrote it"
        } else if atomic && how != Touch::Atomic {
            "changed it by an atomic"
        } else if read && how != Touch::Read {
            "read it"
        } else if atomic {
            "changed it by an atomic"
        } else {
            "read it"
        }
    }
}

/// The record after thread `thread` of CTA `cta` touched the element `how`, or `None` when that
/// races with another CTA's access.
fn cross_cta(word: u64, cta: u32, thread: u32, how: Touch) -> Option<u64> {
    let mut record = CrossCta::of(word);
    let bit = how.bit();
    match record.mode {
        0 => {
            record = CrossCta {
                mode: 1,
                kinds: bit,
                thread,
                cta,
            }
        }
        1 if record.cta == cta => record.kinds |= bit,
        // A second CTA: both reading, or both by atomics, and nothing else.
        1 if record.kinds == bit && how != Touch::Write => {
            record.mode = if how == Touch::Read { 2 } else { 3 }
        }
        2 if how == Touch::Read => {}
        3 if how == Touch::Atomic => {}
        _ => return None,
    }
    Some(record.word())
}

impl Cta<'_> {
    /// Whether the constant index `at` (with `coordinates`, all constants) lies inside array
    /// `array` for every thread alike: then no thread can fault there.
    pub(super) fn constant_element(&self, array: usize, at: u32, coordinates: &[Operand]) -> bool {
        let local = &self.kernel.locals[array];
        (at as usize) < local.len()
            && coordinates
                .iter()
                .zip(&local.shape)
                .all(|(c, &extent)| matches!(c, Operand::Const(c) if *c < extent))
    }

    /// Where thread `t`'s element `index` of its array `array` is, or E0518 outside it (or,
    /// for a two-axis array, with one of its `coordinates` outside that axis).
    pub(super) fn local_element(
        &self,
        array: usize,
        index: Operand,
        coordinates: &[Operand],
        t: usize,
        span: Span,
    ) -> Result<usize, Fault> {
        let len = self.kernel.locals.get(array).map_or(0, LocalArray::len);
        let at = self.get(index, t) as i32;
        let local = &self.kernel.locals[array];
        let outside = coordinates
            .iter()
            .zip(&local.shape)
            .any(|(&c, &extent)| self.get(c, t) >= extent);
        if at < 0 || at as usize >= len || outside {
            let shape: Vec<String> = local.shape.iter().map(u32::to_string).collect();
            // An index as its type reads: a u32's 4294967295 is not -1.
            let shown = |o: Operand| match o {
                Operand::Reg(r) if self.kernel.regs[r.0 as usize].ty == Scalar::U32 => {
                    self.get(o, t).to_string()
                }
                _ => (self.get(o, t) as i32).to_string(),
            };
            // A 64-bit element's word (`ir::wide`) is not the source's coordinate.
            let words = usize::from(local.element.is_wide());
            let (coordinates, shape) = (
                &coordinates[..coordinates.len().saturating_sub(words)],
                &shape[..shape.len() - words],
            );
            let index = match coordinates {
                [] if words == 1 => format!("index {}", at.div_euclid(2)),
                [] => format!("index {}", shown(index)),
                _ => {
                    let at: Vec<String> = coordinates.iter().map(|&c| shown(c)).collect();
                    format!("index [{}]", at.join(", "))
                }
            };
            let message = format!(
                "{index} is outside `{}`, an array<{}>[{}] of {len} elements",
                local.name,
                local.element.name(),
                shape.join(", "),
                len = len / (1 + words)
            );
            return Err(self.fault(Code::E0518, span, t, message));
        }
        Ok(at as usize * self.threads + t)
    }
}
