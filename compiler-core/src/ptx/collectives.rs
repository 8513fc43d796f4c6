//! Collectives: warp reductions as `shfl.sync.bfly` butterflies (or `redux.sync` for
//! integers from sm_80), CTA reductions through `.shared`, and shuffles with the member mask of
//! the lanes that exist.

use super::*;

impl<'a> Emitter<'a> {
    /// Whether lane `source` holds a thread: always, unless the last warp is partial.
    pub(super) fn lane_exists(&mut self, source: &str) -> Option<String> {
        let present = self.present.clone()?;
        let p = self.temp(Kind::Pred);
        self.line(format!("setp.lt.u32 {p}, {source}, {present};"), None);
        Some(p)
    }

    pub(super) fn warp_butterfly(&mut self, d: &str, r: Reduce, t: Scalar, a: Operand) {
        let a = self.in_reg(a, t);
        let integer = t != Scalar::F32;
        let mask = self.mask.clone();
        if integer && self.arch.has_redux() {
            let op = match (r, t) {
                (Reduce::Sum, Scalar::I32) => "add.s32",
                (Reduce::Sum, _) => "add.u32",
                (Reduce::Max, Scalar::I32) => "max.s32",
                (Reduce::Max, _) => "max.u32",
                (Reduce::Min, Scalar::I32) => "min.s32",
                (Reduce::Min, _) => "min.u32",
                (Reduce::And, _) => "and.b32",
                (Reduce::Or, _) => "or.b32",
                (Reduce::Xor, _) => "xor.b32",
            };
            self.line(format!("redux.sync.{op} {d}, {a}, {mask};"), None);
            return;
        }
        let kind = if integer { "b32" } else { "f32" };
        self.line(format!("mov.{kind} {d}, {a};"), None);
        let mut offset = WARP / 2;
        while offset > 0 {
            let other = self.temp(kind_of(t));
            self.line(
                format!("shfl.sync.bfly.b32 {other}, {d}, {offset}, 31, {mask};"),
                None,
            );
            if self.present.is_some() {
                let source = self.temp(Kind::B32);
                let lane = self.lane.clone();
                self.line(format!("xor.b32 {source}, {lane}, {offset};"), None);
                if let Some(exists) = self.lane_exists(&source) {
                    self.line(
                        format!(
                            "selp.{kind} {other}, {other}, {}, {exists};",
                            identity(r, t)
                        ),
                        None,
                    );
                }
            }
            self.combine(d, r, t, &other);
            offset /= 2;
        }
    }

    pub(super) fn combine(&mut self, d: &str, r: Reduce, t: Scalar, other: &str) {
        let s = suffix(t);
        let text = match (r, t) {
            (Reduce::Sum, Scalar::F32) => format!("add.rn.f32 {d}, {d}, {other};"),
            (Reduce::Sum, _) => format!("add.{s} {d}, {d}, {other};"),
            (Reduce::Max, _) => format!("max.{s} {d}, {d}, {other};"),
            (Reduce::Min, _) => format!("min.{s} {d}, {d}, {other};"),
            (Reduce::And, _) => format!("and.b32 {d}, {d}, {other};"),
            (Reduce::Or, _) => format!("or.b32 {d}, {d}, {other};"),
            (Reduce::Xor, _) => format!("xor.b32 {d}, {d}, {other};"),
        };
        self.line(text, None);
    }

    pub(super) fn reduce(&mut self, d: &str, r: Reduce, over: Over, t: Scalar, a: Operand) {
        self.warp_butterfly(d, r, t, a);
        if over == Over::Warp {
            return;
        }
        // Over the CTA: lane 0 of each warp publishes its warp's result, then every thread
        // combines the warps' results in butterfly order.
        let symbol = format!("{}_warp_partials", self.kernel.name);
        let kind = if t == Scalar::F32 { "f32" } else { "b32" };
        let (lane, warp) = (self.lane.clone(), self.warp.clone());
        let first = self.temp(Kind::Pred);
        let base = self.temp(Kind::B64);
        let slot = self.temp(Kind::B64);
        self.line(format!("setp.eq.u32 {first}, {lane}, 0;"), None);
        self.line(format!("mov.u64 {base}, {symbol};"), None);
        self.line(format!("mul.wide.u32 {slot}, {warp}, 4;"), None);
        self.line(format!("add.s64 {slot}, {base}, {slot};"), None);
        self.line(format!("@{first} st.shared.{kind} [{slot}], {d};"), None);
        self.line("bar.sync 0;", None);
        let warps = self.kernel.threads.div_ceil(WARP) as usize;
        let width = warps.next_power_of_two();
        let mut values = Vec::new();
        for w in 0..width {
            let v = self.temp(kind_of(t));
            if w < warps {
                self.line(format!("ld.shared.{kind} {v}, [{base}+{}];", w * 4), None);
            } else {
                self.line(format!("mov.{kind} {v}, {};", identity(r, t)), None);
            }
            values.push(v);
        }
        let mut offset = width / 2;
        while offset > 0 {
            for i in 0..offset {
                let (target, other) = (values[i].clone(), values[i + offset].clone());
                self.combine(&target, r, t, &other);
            }
            offset /= 2;
        }
        self.line(format!("mov.{kind} {d}, {};", values[0]), None);
        // The next CTA reduction may reuse the slots only after everyone has read them.
        self.line("bar.sync 0;", None);
    }

    pub(super) fn shuffle(&mut self, d: &str, ty: Scalar, kind: Shuffle, x: Operand, l: Operand) {
        let x = self.in_reg(x, ty);
        if ty.is_wide() {
            // `shfl` moves 32 bits: a 64-bit value goes as its two words, from the same lane.
            let (lo, hi) = (self.temp(Kind::B32), self.temp(Kind::B32));
            self.line(format!("mov.b64 {{{lo}, {hi}}}, {x};"), None);
            let (dlo, dhi) = (self.temp(Kind::B32), self.temp(Kind::B32));
            self.shuffle_word(&dlo, Scalar::U32, kind, &lo, l);
            self.shuffle_word(&dhi, Scalar::U32, kind, &hi, l);
            return self.line(format!("mov.b64 {d}, {{{dlo}, {dhi}}};"), None);
        }
        self.shuffle_word(d, ty, kind, &x, l);
    }

    fn shuffle_word(&mut self, d: &str, ty: Scalar, kind: Shuffle, x: &str, l: Operand) {
        let lane = self.lane.clone();
        let mask = self.mask.clone();
        let source = self.temp(Kind::B32);
        let l_src = self.src(l, Scalar::I32);
        let constant_distance = matches!(l, Operand::Const(c) if (c as i32) >= 0);
        let instruction = match kind {
            Shuffle::Index | Shuffle::Broadcast => {
                self.line(format!("and.b32 {source}, {l_src}, 31;"), None);
                format!("shfl.sync.idx.b32 {d}, {x}, {source}, 31, {mask};")
            }
            Shuffle::Xor => {
                self.line(format!("xor.b32 {source}, {lane}, {l_src};"), None);
                format!("shfl.sync.bfly.b32 {d}, {x}, {l_src}, 31, {mask};")
            }
            Shuffle::Up => {
                self.line(format!("sub.s32 {source}, {lane}, {l_src};"), None);
                if constant_distance {
                    format!("shfl.sync.up.b32 {d}, {x}, {l_src}, 0, {mask};")
                } else {
                    format!("shfl.sync.idx.b32 {d}, {x}, {source}, 31, {mask};")
                }
            }
            Shuffle::Down => {
                self.line(format!("add.s32 {source}, {lane}, {l_src};"), None);
                if constant_distance {
                    format!("shfl.sync.down.b32 {d}, {x}, {l_src}, 31, {mask};")
                } else {
                    format!("shfl.sync.idx.b32 {d}, {x}, {source}, 31, {mask};")
                }
            }
        };
        self.line(instruction, None);
        // A source lane outside the warp, or without a thread, gives the caller its own value.
        let limit = self.present.clone().unwrap_or_else(|| "32".into());
        let exists = self.temp(Kind::Pred);
        self.line(format!("setp.lt.u32 {exists}, {source}, {limit};"), None);
        let k = if ty == Scalar::F32 { "f32" } else { "b32" };
        self.line(format!("selp.{k} {d}, {d}, {x}, {exists};"), None);
    }
}
