//! Memory: tensor and shared-memory elements, bounds (E0510) and the shared-memory race
//! detector (E0513), which records who touched each shared element since the last barrier.

use super::arith;
use super::*;

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

    /// "5, 300" and "4, 256": the coordinates thread `t` used and the shape, for a fault.
    pub(super) fn describe_access(
        &self,
        indices: &[Operand],
        shape: &[usize],
        t: usize,
    ) -> (String, String) {
        let coordinates: Vec<String> = indices
            .iter()
            .map(|i| (self.get(*i, t) as i32).to_string())
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
        let me = t as u32 + 1;
        let epoch = self.epoch;
        let access = &mut self.accesses[array][at];
        if access.epoch != epoch {
            *access = Access {
                epoch,
                ..Access::default()
            };
        }
        let other = |who: u32| who != 0 && who != me;
        let conflict = if other(access.writer) {
            Some((access.writer, "wrote"))
        } else if how != Touch::Read && other(access.reader) {
            Some((access.reader, "read"))
        } else if how != Touch::Atomic && other(access.atomic) {
            Some((access.atomic, "changed by an atomic"))
        } else {
            None
        };
        if let Some((who, what)) = conflict {
            let who = if who == u32::MAX {
                "other threads".to_owned()
            } else {
                format!("thread {}", who - 1)
            };
            let name = self
                .kernel
                .shared
                .get(array)
                .map_or("?", |a| a.name.as_str());
            let verb = match how {
                Touch::Read => "reads",
                Touch::Write => "writes",
                Touch::Atomic => "changes by an atomic",
            };
            return Err(self.fault(
                Code::E0513,
                span,
                t,
                format!("data race on element {at} of tile `{name}`: thread {t} {verb} it after {who} {what} it, with no barrier() between"),
            ));
        }
        let slot = match how {
            Touch::Read => &mut access.reader,
            Touch::Write => &mut access.writer,
            Touch::Atomic => &mut access.atomic,
        };
        *slot = if *slot == 0 || *slot == me || how == Touch::Write {
            me
        } else {
            u32::MAX
        };
        Ok(())
    }

    /// An atomic on every active thread, in thread order: the order the spec gives atomics of
    /// one statement (and CTAs run in grid order when the results could depend on it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        dst: Option<Reg>,
        op: AtomicOp,
        ty: Scalar,
        place: &Place,
        value: Operand,
        expected: Option<Operand>,
        mask: &[bool],
        span: Span,
    ) -> Result<(), Fault> {
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
                    let Some(cell) = self.global.cells.get(*tensor).and_then(|c| c.get(at)) else {
                        continue;
                    };
                    let old = match cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                        Some(change(old))
                    }) {
                        Ok(old) | Err(old) => old,
                    };
                    if let Some(slot) = self
                        .writers
                        .and_then(|w| w.get(*tensor))
                        .and_then(|w| w.get(at))
                    {
                        self.record_writer(slot, t);
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
                let (coordinates, shape) = self.describe_access(indices, &data.shape, t);
                let message = format!("{name}[{coordinates}] is outside {name}'s shape [{shape}]");
                Err(self.fault(Code::E0510, span, t, message))
            }
        }
    }
}
