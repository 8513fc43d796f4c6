//! A warp's matrix operation in PTX: `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
//! (PTX ISA 7.0, sm_80 and later). sm_70 has no m16n8k16: a kernel whose source uses `mma` is
//! refused there (E0522), and a tile product's `mma`, under `tensor_cores` (0 on sm_70), is a
//! `trap` never reached.
//!
//! A's and B's `f16`s are packed two to a `.b32`, the lower element in the low half, as the
//! ISA's fragments are: from a fragment's `.b16` element registers (`locals`) as they are, or
//! from `.local` memory rounded to `.f16` (exact: they are `f16` values). C and D are four
//! `.f32` registers each. A fragment kept in registers (every index a constant, as a
//! fragment's always are unless the kernel indexes it at run time) is read and written in
//! place: the instruction takes C's element registers and writes D's, the same ones for
//! `acc = mma(a, b, acc)` (an instruction reads its sources before it writes).

use super::*;

impl Emitter<'_> {
    pub(super) fn mma(&mut self, a: usize, b: usize, c: usize, d: usize) {
        if !self.arch.has_mma() {
            // Only a tile product's, under `tensor_cores` (0 here): never reached.
            self.line(
                "trap; // sm_70 has no mma.m16n8k16: the tile product's other branch runs",
                None,
            );
            return;
        }
        let a = self.packed_halves(a, 8);
        let b = self.packed_halves(b, 4);
        let c: Vec<String> = (0..4).map(|i| self.element(c, i)).collect();
        let in_place = self.locals.get(d).is_some_and(|regs| regs.len() == 4);
        let out: Vec<String> = match in_place {
            true => self.locals[d].clone(),
            false => (0..4).map(|_| self.temp(Kind::F32)).collect(),
        };
        self.line(
            format!(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{}}}, {{{}}}, {{{}}}, {{{}}};",
                out.join(", "),
                a.join(", "),
                b.join(", "),
                c.join(", ")
            ),
            None,
        );
        if !in_place {
            for (i, r) in out.iter().enumerate() {
                self.local_store_register(d, i as u32, r);
            }
        }
    }

    /// Element `i` of `array` as a register: the element's own where the array is in
    /// registers, else a load into a new one.
    fn element(&mut self, array: usize, i: u32) -> String {
        match self.locals.get(array).and_then(|regs| regs.get(i as usize)) {
            Some(r) => r.clone(),
            None => {
                let r = self.temp(Kind::F32);
                self.local_load(&r, array, Operand::Const(i));
                r
            }
        }
    }

    /// Array `array`'s `n` elements as `f16` pairs in `.b32` registers: an in-register
    /// array's `.b16` elements as they are, a `.local` one's loaded and rounded.
    fn packed_halves(&mut self, array: usize, n: u32) -> Vec<String> {
        (0..n / 2)
            .map(|pair| {
                let halves: Vec<String> = (2 * pair..2 * pair + 2)
                    .map(|i| {
                        if let Some(h) = self.locals.get(array).and_then(|r| r.get(i as usize)) {
                            return h.clone();
                        }
                        let f = self.temp(Kind::F32);
                        self.local_load(&f, array, Operand::Const(i));
                        let h = self.temp(Kind::B16);
                        self.line(format!("cvt.rn.f16.f32 {h}, {f};"), None);
                        h
                    })
                    .collect();
                let r = self.temp(Kind::B32);
                self.line(format!("mov.b32 {r}, {{{}}};", halves.join(", ")), None);
                r
            })
            .collect()
    }
}
