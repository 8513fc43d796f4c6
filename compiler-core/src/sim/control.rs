//! Control flow under the active mask: blocks, statements (the step limit, E0514, and the
//! host's stop), `if`, loops with `break` and `continue`, `return`, and barriers (E0512).

use super::*;

impl<'a> Cta<'a> {
    pub(super) fn take_mask(&mut self) -> Vec<bool> {
        let mut mask = self.masks.pop().unwrap_or_default();
        mask.clear();
        mask
    }

    /// Drops from `mask` the threads that have left through `return`, `break` or `continue`.
    pub(super) fn prune(&self, mask: &mut [bool]) {
        let frame = self.loops.last();
        if !self.any_exited && frame.is_none_or(|f| !f.any_broken && !f.any_continued) {
            return;
        }
        for (t, active) in mask.iter_mut().enumerate() {
            if *active && (self.exited[t] || frame.is_some_and(|f| f.broken[t] || f.continued[t])) {
                *active = false;
            }
        }
    }

    pub(super) fn block(&mut self, stmts: &[Stmt], mask: &mut [bool]) -> Result<(), Fault> {
        // Only control statements change the mask: count the active threads after those.
        let mut active = mask.iter().filter(|&&m| m).count() as u64;
        for stmt in stmts {
            if active == 0 {
                return Ok(());
            }
            self.stats.steps += 1;
            self.steps += 1;
            // At a CTA's first statement and every STOP_CHECK after, so each CTA claimed
            // after the host asked stops at once, and the run reports a fault, never a
            // result with CTAs left out.
            if (self.steps - 1).is_multiple_of(STOP_CHECK) && self.global.stopped() {
                let first = mask.iter().position(|&m| m).unwrap_or(0);
                return Err(self.fault(Code::E0514, stmt.span, first, INTERRUPTED.to_owned()));
            }
            if self.steps > self.options.step_limit {
                let first = mask.iter().position(|&m| m).unwrap_or(0);
                let mut fault = self.fault(
                    Code::E0514,
                    stmt.span,
                    first,
                    format!(
                        "the CTA ran {} statements, its step limit, and had not finished",
                        self.options.step_limit
                    ),
                );
                fault.waits = self.waits();
                return Err(fault);
            }
            self.stats.lane_ops += active;
            self.trace_before(stmt, mask);
            let mut tile_product = false;
            if let Some(counter) = self.profile.as_deref_mut() {
                tile_product = counter.enter(stmt);
                self.profile_before(stmt, mask);
            }
            let result = self.stmt(stmt, mask);
            if let (true, Some(counter)) = (tile_product, self.profile.as_deref_mut()) {
                counter.leave();
            }
            result?;
            self.trace_after(stmt, mask);
            if !matches!(
                stmt.kind,
                StmtKind::Let { .. }
                    | StmtKind::Store { .. }
                    | StmtKind::Atomic(_)
                    | StmtKind::Barrier
            ) {
                active = mask.iter().filter(|&&m| m).count() as u64;
            }
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt, mask: &mut [bool]) -> Result<(), Fault> {
        match &stmt.kind {
            StmtKind::Let { dst, op } => self.op(*dst, op, mask, stmt.span),
            StmtKind::Store {
                tensor,
                indices,
                value,
                guarded,
            } => {
                // An 8-bit element keeps the value's low byte.
                let element = self
                    .kernel
                    .params
                    .get(*tensor)
                    .map_or(Scalar::F32, Param::element);
                for t in 0..self.threads {
                    if !mask[t] {
                        continue;
                    }
                    let at = match self.element(*tensor, indices, t, stmt.span) {
                        Ok(at) => at,
                        // A tile store drops what falls outside the tensor.
                        Err(fault) if *guarded && fault.code == Code::E0510 => continue,
                        Err(fault) => return Err(fault),
                    };
                    self.touch_tensor(*tensor, at, t, Touch::Write, stmt.span)?;
                    let bits = element.narrow(self.get(*value, t));
                    if let Some(cell) = self.global.cells.get(*tensor).and_then(|c| c.get(at)) {
                        cell.store(bits, Ordering::Relaxed);
                    }
                    if let Some(slot) = self
                        .writers
                        .and_then(|w| w.get(*tensor))
                        .and_then(|w| w.get(at))
                    {
                        self.record_writer(slot, t);
                    }
                }
                Ok(())
            }
            StmtKind::SharedStore {
                array,
                indices,
                value,
            } => {
                for t in 0..self.threads {
                    if mask[t] {
                        let at = self.shared_element(*array, indices, t, stmt.span)?;
                        self.touch(*array, at, t, Touch::Write, stmt.span)?;
                        let bits = self.get(*value, t);
                        self.shared[*array][at] = bits;
                    }
                }
                Ok(())
            }
            StmtKind::LocalStore {
                array,
                index: Operand::Const(at),
                coordinates,
                value,
            } if self.constant_element(*array, *at, coordinates) => {
                let values = self.load(0, *value);
                let from = *at as usize * self.threads;
                let element = &mut self.locals[*array][from..from + self.threads];
                for ((o, m), v) in element.iter_mut().zip(mask.iter()).zip(&values) {
                    if *m {
                        *o = *v;
                    }
                }
                self.scratch[0] = values;
                Ok(())
            }
            StmtKind::LocalStore {
                array,
                index,
                coordinates,
                value,
            } => {
                for t in 0..self.threads {
                    if mask[t] {
                        let at = self.local_element(*array, *index, coordinates, t, stmt.span)?;
                        self.locals[*array][at] = self.get(*value, t);
                    }
                }
                Ok(())
            }
            StmtKind::Atomic(atomic) => self.atomic(atomic, mask, stmt.span),
            StmtKind::Mma { a, b, c, d } => self.mma([*a, *b, *c, *d], mask, stmt.span),
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let mut then_mask = self.take_mask();
                then_mask
                    .extend((0..self.threads).map(|t| mask[t] && self.get(*condition, t) != 0));
                let mut result = self.block(then_block, &mut then_mask);
                if !else_block.is_empty() && result.is_ok() {
                    let mut else_mask = self.take_mask();
                    else_mask.extend(
                        (0..self.threads)
                            .map(|t| mask[t] && !then_mask[t] && self.get(*condition, t) == 0),
                    );
                    result = self.block(else_block, &mut else_mask);
                    self.masks.push(else_mask);
                }
                self.masks.push(then_mask);
                result?;
                self.prune(mask);
                Ok(())
            }
            StmtKind::Loop { body, continuing } => {
                let entry = mask.to_vec();
                self.loops.push(LoopFrame::new(self.threads));
                let result = self.run_loop(&entry, body, continuing);
                self.loops.pop();
                result?;
                self.prune(mask);
                Ok(())
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(stmt.kind, StmtKind::Break);
                if let Some(frame) = self.loops.last_mut() {
                    let (target, any) = if is_break {
                        (&mut frame.broken, &mut frame.any_broken)
                    } else {
                        (&mut frame.continued, &mut frame.any_continued)
                    };
                    for (t, active) in mask.iter_mut().enumerate() {
                        if *active {
                            target[t] = true;
                            *any = true;
                            *active = false;
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Return => {
                for (t, active) in mask.iter_mut().enumerate() {
                    if *active {
                        self.exited[t] = true;
                        self.any_exited = true;
                        *active = false;
                    }
                }
                Ok(())
            }
            StmtKind::Barrier => {
                let missing = (0..self.threads).find(|&t| !mask[t] && !self.exited[t]);
                match missing {
                    None => {
                        // Accesses before the barrier cannot race with those after it.
                        self.next_epoch();
                        Ok(())
                    }
                    Some(t) => {
                        let present = mask.iter().position(|&m| m).unwrap_or(0);
                        Err(self.fault(
                            Code::E0512,
                            stmt.span,
                            t,
                            format!("barrier() is reached by thread {present} but not by thread {t}, which has not finished"),
                        ))
                    }
                }
            }
        }
    }

    pub(super) fn run_loop(
        &mut self,
        entry: &[bool],
        body: &[Stmt],
        continuing: &[Stmt],
    ) -> Result<(), Fault> {
        loop {
            let mut body_mask = self.still_looping(entry);
            if !body_mask.iter().any(|&m| m) {
                self.masks.push(body_mask);
                return Ok(());
            }
            let result = self.block(body, &mut body_mask);
            self.masks.push(body_mask);
            result?;
            let mut continue_mask = self.still_looping(entry);
            let result = self.block(continuing, &mut continue_mask);
            self.masks.push(continue_mask);
            result?;
        }
    }

    /// The threads that entered the innermost loop and have neither left it nor the kernel;
    /// those that continued take part again, so their flags are cleared.
    /// The mask comes from the pool (an iteration allocates nothing); give it back after use.
    pub(super) fn still_looping(&mut self, entry: &[bool]) -> Vec<bool> {
        let mut mask = self.take_mask();
        let frame = self.loops.last();
        if !self.any_exited && frame.is_none_or(|f| !f.any_broken) {
            mask.extend_from_slice(entry);
        } else {
            mask.extend(
                (0..self.threads)
                    .map(|t| entry[t] && !self.exited[t] && !frame.is_some_and(|f| f.broken[t])),
            );
        }
        if let Some(frame) = self.loops.last_mut().filter(|f| f.any_continued) {
            frame.continued.iter_mut().for_each(|c| *c = false);
            frame.any_continued = false;
        }
        mask
    }
}
