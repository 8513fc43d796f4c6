//! A warp's matrix operation in PTX: `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`
//! (PTX ISA 7.0, sm_80 and later; sm_70 has no m16n8k16 and the kernel is refused there,
//! E0522). A's and B's `f16`s, held as `f32` values (the spec's `f16` on PTX), are rounded to
//! `.f16` (exact: they are `f16` values) and packed two to a `.b32`, the lower element in the
//! low half, as the ISA's fragments are; C and D are four `.f32` registers each.

use super::*;

impl Emitter<'_> {
    pub(super) fn mma(&mut self, a: usize, b: usize, c: usize, d: usize) {
        let a = self.packed_halves(a, 8);
        let b = self.packed_halves(b, 4);
        let c: Vec<String> = (0..4)
            .map(|i| {
                let r = self.temp(Kind::F32);
                self.local_load(&r, c, Operand::Const(i));
                r
            })
            .collect();
        let out: Vec<String> = (0..4).map(|_| self.temp(Kind::F32)).collect();
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
        for (i, r) in out.iter().enumerate() {
            self.local_store_register(d, i as u32, r);
        }
    }

    /// Array `array`'s `n` elements as `f16` pairs in `.b32` registers.
    fn packed_halves(&mut self, array: usize, n: u32) -> Vec<String> {
        (0..n / 2)
            .map(|pair| {
                let halves: Vec<String> = (2 * pair..2 * pair + 2)
                    .map(|i| {
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
