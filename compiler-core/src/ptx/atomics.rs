//! Atomics: `atom` where the old value is used, `red` where it is dropped (the hardware need
//! not send it back), on `.global` (device scope, PTX's default for `atom` and `red`) or
//! `.shared` (the CTA's own memory). The default `.relaxed` ordering is the spec's.

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn atomic(&mut self, atomic: &Atomic) {
        let Atomic {
            dst,
            op,
            ty,
            ref place,
            value,
            expected,
        } = *atomic;
        let (space, address) = match place {
            Place::Tensor { tensor, indices } => {
                ("global", self.address(*tensor, indices, false).0)
            }
            Place::Shared { array, indices } => ("shared", self.shared_address(*array, indices)),
        };
        let mut v = self.in_reg(value, ty);
        if op == AtomicOp::Sub {
            // PTX has no `atom.sub`: add the negation (two's complement, so u32 wraps alike).
            let negated = self.temp(Kind::B32);
            self.line(format!("neg.s32 {negated}, {v};"), None);
            v = negated;
        }
        let (operation, kind) = match op {
            AtomicOp::Add | AtomicOp::Sub if ty == Scalar::F32 => ("add", "f32"),
            AtomicOp::Add if ty.is_wide() => ("add", "u64"),
            AtomicOp::Add | AtomicOp::Sub => ("add", "u32"),
            AtomicOp::Min => ("min", suffix(ty)),
            AtomicOp::Max => ("max", suffix(ty)),
            AtomicOp::And => ("and", "b32"),
            AtomicOp::Or => ("or", "b32"),
            AtomicOp::Xor => ("xor", "b32"),
            AtomicOp::Exchange => ("exch", "b32"),
            AtomicOp::CompareExchange => ("cas", "b32"),
        };
        let instruction = format!("{space}.{operation}.{kind}");
        // `red` has no exchange: those take `atom` into a scratch register.
        let reduces = matches!(operation, "add" | "min" | "max" | "and" | "or" | "xor");
        let d = match dst {
            Some(d) => self.reg(d),
            None if reduces => {
                self.line(format!("red.{instruction} [{address}], {v};"), None);
                return;
            }
            None => self.temp(kind_of(ty)),
        };
        match expected {
            Some(expected) => {
                let e = self.in_reg(expected, ty);
                self.line(
                    format!("atom.{instruction} {d}, [{address}], {e}, {v};"),
                    None,
                );
            }
            None => self.line(format!("atom.{instruction} {d}, [{address}], {v};"), None),
        }
    }
}
