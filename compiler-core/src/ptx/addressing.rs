//! Addressing: a tensor element's 64-bit address (`cvta.to.global`, `mul.wide`), pointers a
//! counting loop advances instead of recomputing (`induction`), and tile elements in `.shared`.

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn element_type(&self, tensor: usize) -> Scalar {
        self.kernel
            .params
            .get(tensor)
            .map_or(Scalar::F32, Param::element)
    }

    /// Before a counting loop: a pointer for each access that moves with its induction
    /// register (see `induction`), and what to add to each pointer per trip.
    pub(super) fn induction_pointers(
        &mut self,
        body: &Block,
        continuing: &Block,
    ) -> Vec<(String, String)> {
        let Some(induction) = counting_induction(body, continuing) else {
            return Vec::new();
        };
        let mut advances = Vec::new();
        for access in strided_accesses(body, continuing, &induction) {
            let pointer = self.wide_address(access.tensor, &access.indices);
            let bytes = self.bytes_per_trip(&access, induction.iv, induction.step);
            let tensor = self
                .kernel
                .params
                .get(access.tensor)
                .map_or("", Param::name);
            self.line(
                format!("// {pointer} walks {tensor} with the loop: {bytes} bytes per trip"),
                None,
            );
            advances.push((pointer.clone(), bytes));
            self.strided.push((access, pointer));
        }
        advances
    }

    /// The address of `tensor[indices]` with the flat index in 64 bits: where an induction
    /// pointer starts. The loop's first index may lie far outside the tensor (a range that
    /// starts negative, a guard that skips the first trips), and its 32-bit flat index would
    /// wrap while the pointer, advancing in 64 bits, never wraps back.
    fn wide_address(&mut self, tensor: usize, indices: &[Operand]) -> String {
        let extents = self.extents(tensor);
        let first = indices.first().copied().unwrap_or(Operand::Const(0));
        let first = self.in_reg(first, Scalar::I32);
        let flat = self.temp(Kind::B64);
        self.line(format!("cvt.s64.s32 {flat}, {first};"), None);
        for (index, extent) in indices.iter().zip(&extents).skip(1) {
            let extent = self.wide(extent);
            let i = self.in_reg(*index, Scalar::I32);
            let i = self.wide(&i);
            self.line(format!("mul.lo.s64 {flat}, {flat}, {extent};"), None);
            self.line(format!("add.s64 {flat}, {flat}, {i};"), None);
        }
        let base = self.tensor_base(tensor);
        let pointer = self.temp(Kind::B64);
        let shift = self.element_type(tensor).size().trailing_zeros();
        self.line(format!("shl.b64 {flat}, {flat}, {shift};"), None);
        self.line(format!("add.s64 {pointer}, {base}, {flat};"), None);
        pointer
    }

    /// The register that holds `tensor`'s global address.
    fn tensor_base(&self, tensor: usize) -> String {
        self.tensors
            .get(tensor)
            .cloned()
            .flatten()
            .unwrap_or_default()
    }

    /// A 32-bit register or immediate as a 64-bit value (sign-extended).
    fn wide(&mut self, value: &str) -> String {
        if !value.starts_with('%') {
            return value.to_owned();
        }
        let wide = self.temp(Kind::B64);
        self.line(format!("cvt.s64.s32 {wide}, {value};"), None);
        wide
    }

    /// `bytes * step * (sum of the strides of the dimensions the induction register indexes)`, as a
    /// 64-bit register: the step times the strides in 64 bits, so a large step cannot wrap.
    pub(super) fn bytes_per_trip(&mut self, access: &Access, iv: Reg, step: Operand) -> String {
        let extents = self.extents(access.tensor);
        let step = self.in_reg(step, Scalar::I32);
        let mut stride_sum: Option<String> = None;
        for (position, index) in access.indices.iter().enumerate() {
            if *index != Operand::Reg(iv) {
                continue;
            }
            // A stride is a product of extents: below 2^26, the most elements a tensor holds.
            let mut stride = "1".to_string();
            for extent in &extents[position + 1..] {
                let product = self.temp(Kind::B32);
                self.line(format!("mul.lo.s32 {product}, {extent}, {stride};"), None);
                stride = product;
            }
            stride_sum = Some(match stride_sum {
                None => stride,
                Some(sum) => {
                    let total = self.temp(Kind::B32);
                    self.line(format!("add.s32 {total}, {sum}, {stride};"), None);
                    total
                }
            });
        }
        let bytes = self.temp(Kind::B64);
        let size = self.element_type(access.tensor).size();
        match stride_sum.filter(|s| s != "1") {
            Some(stride) => {
                self.line(format!("mul.wide.s32 {bytes}, {step}, {stride};"), None);
                let shift = size.trailing_zeros();
                self.line(format!("shl.b64 {bytes}, {bytes}, {shift};"), None);
            }
            None => self.line(format!("mul.wide.s32 {bytes}, {step}, {size};"), None),
        }
        bytes
    }

    pub(super) fn extents(&self, tensor: usize) -> Vec<String> {
        match self.kernel.params.get(tensor) {
            Some(Param::Tensor { dims, .. }) => dims
                .iter()
                .map(|d| match d {
                    DimRef::Literal(n) => n.to_string(),
                    DimRef::Dim(i) => self.dims.get(*i).cloned().unwrap_or_default(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The global address of `tensor[indices]` and, for a guarded access, the predicate that
    /// says it lies inside the tensor.
    pub(super) fn address(
        &mut self,
        tensor: usize,
        indices: &[Operand],
        guarded: bool,
    ) -> (String, Option<String>) {
        if !guarded {
            let strided = self
                .strided
                .iter()
                .rev()
                .find(|(a, _)| a.tensor == tensor && a.indices == indices);
            if let Some((_, pointer)) = strided {
                return (pointer.clone(), None);
            }
        }
        let extents = self.extents(tensor);
        let mut inside: Option<String> = None;
        if guarded {
            for (index, extent) in indices.iter().zip(&extents) {
                let i = self.src(*index, Scalar::I32);
                let p = self.temp(Kind::Pred);
                // Unsigned, so a negative index is outside too.
                self.line(format!("setp.lt.u32 {p}, {i}, {extent};"), None);
                inside = Some(match inside {
                    None => p,
                    Some(q) => {
                        self.line(format!("and.pred {q}, {q}, {p};"), None);
                        q
                    }
                });
            }
        }
        let flat = self.flatten(indices, &extents);
        let offset = self.temp(Kind::B64);
        let address = self.temp(Kind::B64);
        let base = self.tensor_base(tensor);
        let size = self.element_type(tensor).size();
        self.line(format!("mul.wide.s32 {offset}, {flat}, {size};"), None);
        self.line(format!("add.s64 {address}, {base}, {offset};"), None);
        (address, inside)
    }

    /// `((i0 * e1 + i1) * e2 + i2)`, row-major, in a 32-bit register.
    pub(super) fn flatten(&mut self, indices: &[Operand], extents: &[String]) -> String {
        let first = indices.first().copied().unwrap_or(Operand::Const(0));
        let mut flat = self.in_reg(first, Scalar::I32);
        for (index, extent) in indices.iter().zip(extents).skip(1) {
            let next = self.temp(Kind::B32);
            let i = self.src(*index, Scalar::I32);
            self.line(format!("mad.lo.s32 {next}, {flat}, {extent}, {i};"), None);
            flat = next;
        }
        flat
    }

    pub(super) fn shared_address(&mut self, array: usize, indices: &[Operand]) -> String {
        let info = &self.kernel.shared[array];
        // Laid out by its storage: a padded tile's rows are one word longer than its shape's.
        let extents: Vec<String> = info.storage.iter().map(u32::to_string).collect();
        let symbol = format!("{}_tile{array}_{}", self.kernel.name, info.name);
        let flat = self.flatten(indices, &extents);
        let base = self.temp(Kind::B64);
        let offset = self.temp(Kind::B64);
        let address = self.temp(Kind::B64);
        let size = info.element.size();
        self.line(format!("mov.u64 {base}, {symbol};"), None);
        self.line(format!("mul.wide.s32 {offset}, {flat}, {size};"), None);
        self.line(format!("add.s64 {address}, {base}, {offset};"), None);
        address
    }
}
