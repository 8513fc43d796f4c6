//! Where values live: the `ctx` fields, the uniform block, dimension extents, and pointers
//! into tensors (storage buffers) and tiles (workgroup arrays).

use super::*;

impl<'k> Builder<'k> {
    pub(super) fn argument(&mut self, block: &mut Block, index: u32) -> Handle<E> {
        self.add(block, E::FunctionArgument(index))
    }

    pub(super) fn thread(&mut self, block: &mut Block) -> Handle<E> {
        let index = self.argument(block, 0);
        self.convert(block, index, Scalar::I32)
    }

    pub(super) fn lane(&mut self, block: &mut Block) -> Handle<E> {
        let thread = self.thread(block);
        let lanes = self.lit(block, Literal::I32(self.lanes as i32));
        self.binary(block, B::Modulo, thread, lanes)
    }

    pub(super) fn ctx(&mut self, block: &mut Block, field: CtxField) -> Handle<E> {
        let axis_index = |a: Axis| match a {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        };
        match field {
            CtxField::Thread => self.thread(block),
            CtxField::Lane => self.lane(block),
            CtxField::Warp => {
                let thread = self.thread(block);
                let lanes = self.lit(block, Literal::I32(self.lanes as i32));
                self.binary(block, B::Divide, thread, lanes)
            }
            CtxField::Threads => self.lit(block, Literal::I32(self.kernel.threads as i32)),
            CtxField::Warps => self.lit(
                block,
                Literal::I32(self.kernel.threads.div_ceil(self.lanes) as i32),
            ),
            CtxField::Lanes => self.lit(block, Literal::I32(self.lanes as i32)),
            CtxField::TensorCores => self.lit(
                block,
                Literal::I32(i32::from(self.lanes == crate::mma::MMA_LANES)),
            ),
            CtxField::Block(a) | CtxField::Blocks(a) => {
                let argument = if matches!(field, CtxField::Block(_)) {
                    1
                } else {
                    2
                };
                let vector = self.argument(block, argument);
                let component = self.add(
                    block,
                    E::AccessIndex {
                        base: vector,
                        index: axis_index(a),
                    },
                );
                self.convert(block, component, Scalar::I32)
            }
        }
    }

    pub(super) fn uniform(&mut self, block: &mut Block, member: u32) -> Handle<E> {
        let base = self.add(block, E::GlobalVariable(self.params));
        let pointer = self.add(
            block,
            E::AccessIndex {
                base,
                index: member,
            },
        );
        self.add(block, E::Load { pointer })
    }

    pub(super) fn extent(&mut self, block: &mut Block, dim: DimRef) -> Handle<E> {
        match dim {
            DimRef::Literal(n) => self.lit(block, Literal::I32(n as i32)),
            DimRef::Dim(i) => {
                let member = self.dim_members[i];
                self.uniform(block, member)
            }
        }
    }

    /// The row-major flat index (i32) of `indices` in a space of `extents`.
    pub(super) fn flat(
        &mut self,
        block: &mut Block,
        indices: &[Operand],
        extents: &[Handle<E>],
    ) -> Handle<E> {
        // A `u32` index (`ir`'s `Lowering::index`) is computed with the `i32` extents as the
        // `i32` of its bits; a lone index is the caller's to bitcast.
        let signed = |lw: &mut Self, block: &mut Block, index: Operand| {
            let value = lw.operand(block, index, Scalar::I32);
            match index {
                Operand::Reg(r) if lw.reg_ty(r) == Scalar::U32 => {
                    lw.bitcast(block, value, ScalarKind::Sint)
                }
                _ => value,
            }
        };
        let first = indices.first().copied().unwrap_or(Operand::Const(0));
        let mut flat = match indices.len() {
            1 => self.operand(block, first, Scalar::I32),
            _ => signed(self, block, first),
        };
        for (index, extent) in indices.iter().zip(extents).skip(1) {
            let i = signed(self, block, *index);
            let scaled = self.binary(block, B::Multiply, flat, *extent);
            flat = self.binary(block, B::Add, scaled, i);
        }
        flat
    }

    pub(super) fn tensor_extents(&mut self, block: &mut Block, tensor: usize) -> Vec<Handle<E>> {
        let dims = match &self.kernel.params[tensor] {
            Param::Tensor { dims, .. } => dims.clone(),
            Param::Scalar { .. } => Vec::new(),
        };
        dims.into_iter().map(|d| self.extent(block, d)).collect()
    }

    /// A pointer to `tensor[indices]`, and (for guarded accesses) whether it lies inside.
    pub(super) fn tensor_pointer(
        &mut self,
        block: &mut Block,
        tensor: usize,
        indices: &[Operand],
        guarded: bool,
    ) -> (Handle<E>, Option<Handle<E>>) {
        let (index, inside) = self.tensor_index(block, tensor, indices, guarded);
        (self.tensor_word(block, tensor, index), inside)
    }

    /// A pointer to word `index` (u32) of `tensor`'s buffer.
    pub(super) fn tensor_word(
        &mut self,
        block: &mut Block,
        tensor: usize,
        index: Handle<E>,
    ) -> Handle<E> {
        let global = self.tensors[tensor].unwrap_or(self.params);
        let base = self.add(block, E::GlobalVariable(global));
        self.add(block, E::Access { base, index })
    }

    /// The row-major index (u32) of `tensor[indices]`, and (for guarded accesses) whether it
    /// lies inside.
    pub(super) fn tensor_index(
        &mut self,
        block: &mut Block,
        tensor: usize,
        indices: &[Operand],
        guarded: bool,
    ) -> (Handle<E>, Option<Handle<E>>) {
        let extents = self.tensor_extents(block, tensor);
        let mut inside = None;
        if guarded {
            for (index, extent) in indices.iter().zip(&extents) {
                let i = self.operand(block, *index, Scalar::I32);
                let iu = self.bitcast(block, i, ScalarKind::Uint);
                let eu = self.bitcast(block, *extent, ScalarKind::Uint);
                let within = self.binary(block, B::Less, iu, eu);
                inside = Some(match inside {
                    None => within,
                    Some(previous) => self.binary(block, B::LogicalAnd, previous, within),
                });
            }
        }
        let flat = self.flat(block, indices, &extents);
        (self.bitcast(block, flat, ScalarKind::Uint), inside)
    }

    pub(super) fn shared_pointer(
        &mut self,
        block: &mut Block,
        array: usize,
        indices: &[Operand],
    ) -> Handle<E> {
        // Laid out by its storage: a padded tile's rows are one word longer than its shape's.
        let storage = self.kernel.shared[array].storage.clone();
        let extents: Vec<Handle<E>> = storage
            .iter()
            .map(|&n| self.lit(block, Literal::I32(n as i32)))
            .collect();
        let flat = self.flat(block, indices, &extents);
        let index = self.bitcast(block, flat, ScalarKind::Uint);
        let base = self.add(block, E::GlobalVariable(self.shared[array]));
        self.add(block, E::Access { base, index })
    }
}
