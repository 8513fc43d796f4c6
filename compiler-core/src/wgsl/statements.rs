//! Statements: the IR's structured control flow as naga's (blocks, `if`, loops with a
//! continuing block, `break`, `continue`, `return`, barriers), and stores.

use super::*;

impl<'k> Builder<'k> {
    pub(super) fn block(&mut self, stmts: &[ir::Stmt]) -> Block {
        let mut block = Block::new();
        if self.emulating() {
            self.block_emulated(&mut block, stmts);
        } else {
            for stmt in stmts {
                self.at(stmt);
                self.stmt(&mut block, stmt);
            }
        }
        self.flush(&mut block);
        block
    }

    /// Makes `stmt` the statement whose source the next naga statements carry.
    pub(super) fn at(&mut self, stmt: &ir::Stmt) {
        self.span = naga::Span::new(stmt.span.start as u32, stmt.span.end as u32);
    }

    pub(super) fn stmt(&mut self, block: &mut Block, stmt: &ir::Stmt) {
        match &stmt.kind {
            StmtKind::Let { dst, op } => {
                let ty = self.reg_ty(*dst);
                let value = match self.folded(op) {
                    Some(bits) => {
                        if self.assignments.get(dst.0 as usize) == Some(&1) {
                            self.constants[dst.0 as usize] = Some(bits);
                        }
                        self.constant(block, bits, ty)
                    }
                    None => self.op(block, op, ty),
                };
                self.store_reg(block, *dst, value);
            }
            StmtKind::Store {
                tensor,
                indices,
                value,
                guarded,
            } => {
                let element = self.kernel.params[*tensor].element();
                let v = self.operand(block, *value, element);
                if is_packed(element) {
                    self.store_packed(block, *tensor, element, indices, v, *guarded);
                    return;
                }
                let atomic = self.atomic_tensors.contains(tensor);
                let v = self.as_stored(block, v, element, atomic);
                let (pointer, inside) = self.tensor_pointer(block, *tensor, indices, *guarded);
                match inside {
                    None => self.push(block, St::Store { pointer, value: v }),
                    Some(condition) => {
                        self.flush(block);
                        let mut accept = Block::new();
                        accept.push(St::Store { pointer, value: v }, self.span);
                        block.push(
                            St::If {
                                condition,
                                accept,
                                reject: Block::new(),
                            },
                            self.span,
                        );
                    }
                }
            }
            StmtKind::SharedStore {
                array,
                indices,
                value,
            } => {
                let element = self.kernel.shared[*array].element;
                let v = self.operand(block, *value, element);
                let atomic = self.atomic_arrays.contains(array);
                let v = self.as_stored(block, v, element, atomic);
                let pointer = self.shared_pointer(block, *array, indices);
                self.push(block, St::Store { pointer, value: v });
            }
            // Nothing is stored past the array's end (see `Op::LocalLoad`).
            StmtKind::LocalStore { array, index, .. } if self.outside_array(*array, *index) => {}
            StmtKind::LocalStore {
                array,
                index,
                value,
                ..
            } => {
                let element = self.kernel.locals[*array].element;
                let v = self.operand(block, *value, element);
                let pointer = self.array_pointer(block, *array, *index);
                self.push(block, St::Store { pointer, value: v });
            }
            StmtKind::Atomic(atomic) => self.atomic(block, atomic),
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let condition = self.operand(block, *condition, Scalar::Bool);
                self.flush(block);
                let accept = self.block(then_block);
                let reject = self.block(else_block);
                self.at(stmt);
                block.push(
                    St::If {
                        condition,
                        accept,
                        reject,
                    },
                    self.span,
                );
            }
            StmtKind::Loop { body, continuing } => {
                self.flush(block);
                let watched = self.guard_loop_start(block, stmt.span);
                let mut head = Block::new();
                if self.counts_trips(stmt) {
                    self.guard_trip(&mut head, watched, body);
                }
                let body = self.block(body);
                // Unguarded, the plain loop: no block around its body.
                let head = if watched.is_some() {
                    head.push(St::Block(body), self.span);
                    head
                } else {
                    body
                };
                let continuing = self.block(continuing);
                block.push(
                    St::Loop {
                        body: head,
                        continuing,
                        break_if: None,
                    },
                    self.span,
                );
                self.guard_loop_end(block, watched);
            }
            StmtKind::Break => {
                self.guard_exit(block);
                self.push(block, St::Break)
            }
            StmtKind::Continue => self.push(block, St::Continue),
            StmtKind::Return => self.push(block, St::Return { value: None }),
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
}
