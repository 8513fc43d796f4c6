//! Per-thread arrays in PTX: a register per element where every index is a constant
//! ([`LocalArray::in_registers`]), else `.local` memory, 4 bytes an element (an `f16` as its
//! `f32` value, a `bool` as 0 or 1) and 8 for an `i64` or `u64`, addressed by the flat index. The listing says which, in a
//! comment at the kernel's head. An `f16` array's element registers are `.b16`, holding the
//! `f16` itself (a read converts it to the `f32` the spec's `f16` arithmetic uses, a write
//! rounds back, exactly: its values are `f16`s): so a tensor-core fragment reaches `mma`
//! packed as it was loaded, with no conversion between.

use super::*;

impl Emitter<'_> {
    /// Each in-register array's element registers; empty for an array in `.local` memory.
    pub(super) fn local_registers(&mut self) -> Vec<Vec<String>> {
        let kernel = self.kernel;
        kernel
            .locals
            .iter()
            .map(|array| match array.in_registers {
                true => (0..array.len())
                    .map(|_| self.temp(register_kind(array.element)))
                    .collect(),
                false => Vec::new(),
            })
            .collect()
    }

    /// The `.local` declarations and a comment per array, for the kernel's head.
    pub(super) fn local_declarations(&self) -> String {
        let mut out = String::new();
        for (i, array) in self.kernel.locals.iter().enumerate() {
            let shape: Vec<String> = array.shape.iter().map(u32::to_string).collect();
            let what = format!(
                "{}<{}>[{}]",
                array.name,
                array.element.name(),
                shape.join(", ")
            );
            if array.in_registers {
                let _ = writeln!(out, "    // per-thread array {what}: every index a constant, so a register per element");
            } else {
                let _ = writeln!(
                    out,
                    "    // per-thread array {what}: an index known at run time, so .local memory"
                );
                let size = local_size(array.element);
                let _ = writeln!(
                    out,
                    "    .local .align {size} .b8 {}[{}];",
                    self.local_symbol(i),
                    array.len() * size
                );
            }
        }
        out
    }

    fn local_symbol(&self, array: usize) -> String {
        format!(
            "{}_local{array}_{}",
            self.kernel.name, self.kernel.locals[array].name
        )
    }

    fn local_address(&mut self, array: usize, index: Operand) -> String {
        let symbol = self.local_symbol(array);
        let size = local_size(self.kernel.locals[array].element);
        let index = self.src(index, Scalar::I32);
        let base = self.temp(Kind::B64);
        let offset = self.temp(Kind::B64);
        let address = self.temp(Kind::B64);
        self.line(format!("mov.u64 {base}, {symbol};"), None);
        self.line(format!("mul.wide.s32 {offset}, {index}, {size};"), None);
        self.line(format!("add.s64 {address}, {base}, {offset};"), None);
        address
    }

    /// `d = array[index]`. An in-register array's constant index past its end (an unrolled
    /// copy that the simulator stops at, E0518) reads 0: PTX checks nothing, as for a tensor.
    pub(super) fn local_load(&mut self, d: &str, array: usize, index: Operand) {
        let element = self.kernel.locals[array].element;
        if let (Some(regs), Operand::Const(at)) = (self.locals.get(array), index) {
            if !regs.is_empty() {
                match regs.get(at as usize).cloned() {
                    Some(source) if element == Scalar::F16 => {
                        self.line(format!("cvt.f32.f16 {d}, {source};"), None)
                    }
                    Some(source) => {
                        self.line(format!("mov.{} {d}, {source};", move_type(element)), None)
                    }
                    None => {
                        let zero = self.src(Operand::Const(0), element);
                        self.line(
                            format!(
                                "mov.{} {d}, {zero}; // index {} is outside the array",
                                move_type(element),
                                at as i32
                            ),
                            None,
                        )
                    }
                }
                return;
            }
        }
        let address = self.local_address(array, index);
        match element {
            Scalar::Bool => {
                let r = self.temp(Kind::B32);
                self.line(format!("ld.local.u32 {r}, [{address}];"), None);
                self.line(format!("setp.ne.u32 {d}, {r}, 0;"), None);
            }
            _ => self.line(
                format!("ld.local.{} {d}, [{address}];", local_type(element)),
                None,
            ),
        }
    }

    /// `array[index] = r`, `r` a register of the array's element type.
    pub(super) fn local_store_register(&mut self, array: usize, index: u32, r: &str) {
        let element = self.kernel.locals[array].element;
        match self
            .locals
            .get(array)
            .and_then(|regs| regs.get(index as usize))
            .cloned()
        {
            Some(target) => self.set_element(&target, element, r),
            None => {
                let address = self.local_address(array, Operand::Const(index));
                self.line(
                    format!("st.local.{} [{address}], {r};", local_type(element)),
                    None,
                );
            }
        }
    }

    /// `array[index] = value`; in an in-register array, a constant index past its end
    /// stores nothing (as `local_load`).
    pub(super) fn local_store(&mut self, array: usize, index: Operand, value: Operand) {
        let element = self.kernel.locals[array].element;
        if let (Some(regs), Operand::Const(at)) = (self.locals.get(array), index) {
            if !regs.is_empty() {
                match regs.get(at as usize).cloned() {
                    Some(target) if element == Scalar::F16 => {
                        let v = self.in_reg(value, element);
                        self.set_element(&target, element, &v);
                    }
                    Some(target) => {
                        let v = self.src(value, element);
                        self.set_element(&target, element, &v);
                    }
                    None => self.line(
                        format!(
                            "// array[{}] is outside the array: nothing stored",
                            at as i32
                        ),
                        None,
                    ),
                }
                return;
            }
        }
        let address = self.local_address(array, index);
        let v = match element {
            Scalar::Bool => {
                let p = self.src(value, element);
                let r = self.temp(Kind::B32);
                self.line(format!("selp.u32 {r}, 1, 0, {p};"), None);
                r
            }
            _ => self.in_reg(value, element),
        };
        let t = match element {
            Scalar::Bool => "u32",
            other => local_type(other),
        };
        self.line(format!("st.local.{t} [{address}], {v};"), None);
    }

    /// An in-register element `target` set to `v` (a register or an immediate of the array's
    /// element type; an `f16`'s `f32` value is rounded into its `.b16`, exactly).
    fn set_element(&mut self, target: &str, element: Scalar, v: &str) {
        match element {
            Scalar::F16 => self.line(format!("cvt.rn.f16.f32 {target}, {v};"), None),
            _ => self.line(format!("mov.{} {target}, {v};", move_type(element)), None),
        }
    }
}

/// The register an in-register element is kept in: an `f16` as itself, in a `.b16`.
pub(super) fn register_kind(element: Scalar) -> Kind {
    match element {
        Scalar::F16 => Kind::B16,
        other => kind_of(other),
    }
}

/// The bytes an element takes in `.local` memory.
fn local_size(element: Scalar) -> usize {
    match element {
        Scalar::I64 | Scalar::U64 => 8,
        _ => 4,
    }
}

/// The type an element is kept in in `.local` memory: an `f16` as its `f32` value, a 64-bit
/// integer whole (a `.u32` store of its register would keep the low word only).
fn local_type(element: Scalar) -> &'static str {
    match element {
        Scalar::F32 | Scalar::F16 => "f32",
        Scalar::I32 => "s32",
        Scalar::I64 => "s64",
        Scalar::U64 => "u64",
        _ => "u32",
    }
}
