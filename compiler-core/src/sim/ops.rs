//! Operations: each IR `Op` on every active thread, collectives, votes, scans and shuffles
//! over the warp or the CTA.

use super::arith::*;
use super::*;

impl<'a> Cta<'a> {
    pub(super) fn op(&mut self, dst: Reg, op: &Op, mask: &[bool], span: Span) -> Result<(), Fault> {
        let threads = self.threads;
        match op {
            Op::Copy(a) => {
                self.zip2(dst, mask, *a, *a, |x, _| x);
                Ok(())
            }
            Op::Ctx(field) => self.lanewise(dst, mask, |c, t| c.ctx(*field, t)),
            Op::Dim(i) => {
                let value = self.args.dims.get(*i).copied().unwrap_or(0) as u32;
                self.lanewise(dst, mask, |_, _| value)
            }
            Op::Scalar(i) | Op::ScalarHigh(i) => {
                let bits = match self.args.params.get(*i) {
                    Some(Arg::Scalar(bits)) => *bits,
                    _ => 0,
                };
                let [low, high] = crate::ir::split_words(bits);
                let value = if matches!(op, Op::Scalar(_)) {
                    low
                } else {
                    high
                };
                self.lanewise(dst, mask, |_, _| value)
            }
            Op::Unary(u, ty, a) => self.lanewise(dst, mask, |c, t| unary(*u, *ty, c.get(*a, t))),
            Op::Binary(b, ty, x, y)
                if !matches!(b, BinaryOp::Div | BinaryOp::Rem) || ty.is_float() =>
            {
                self.binary_lanes(dst, mask, *b, *ty, *x, *y);
                Ok(())
            }
            Op::Binary(b, ty, x, y) => {
                for t in 0..threads {
                    if mask[t] {
                        match binary(*b, *ty, self.get(*x, t), self.get(*y, t)) {
                            Some(v) => self.set(dst, t, v),
                            None => {
                                return Err(self.fault(
                                    Code::E0511,
                                    span,
                                    t,
                                    format!(
                                        "integer {} by zero: {} {} 0",
                                        if *b == BinaryOp::Div {
                                            "division"
                                        } else {
                                            "remainder"
                                        },
                                        self.get(*x, t) as i32,
                                        if *b == BinaryOp::Div { "/" } else { "%" }
                                    ),
                                ));
                            }
                        }
                    }
                }
                Ok(())
            }
            Op::Compare(c, ty, x, y) => {
                let (c, ty) = (*c, *ty);
                match (ty, c) {
                    (Scalar::I32, CompareOp::Lt) => {
                        self.zip2(dst, mask, *x, *y, |p, q| u32::from((p as i32) < (q as i32)))
                    }
                    (Scalar::U32, CompareOp::Lt) => {
                        self.zip2(dst, mask, *x, *y, |p, q| u32::from(p < q))
                    }
                    _ => self.zip2(dst, mask, *x, *y, |p, q| u32::from(compare(c, ty, p, q))),
                }
                Ok(())
            }
            Op::Select(c, a, b) => self.lanewise(dst, mask, |s, t| {
                if s.get(*c, t) != 0 {
                    s.get(*a, t)
                } else {
                    s.get(*b, t)
                }
            }),
            Op::Fma(a, b, c) => self.lanewise(dst, mask, |s, t| {
                fma(s.get(*a, t), s.get(*b, t), s.get(*c, t))
            }),
            Op::Pow(x, y) => self.lanewise(dst, mask, |s, t| pow(s.get(*x, t), s.get(*y, t))),
            Op::Math(f, ty, a) => self.lanewise(dst, mask, |s, t| math(*f, *ty, s.get(*a, t))),
            Op::Cast { from, to, value } => {
                self.lanewise(dst, mask, |s, t| cast(*from, *to, s.get(*value, t)))
            }
            // Registers hold bits: a bitcast keeps them.
            // `ir::wide` leaves none: the simulator runs 64-bit values as words.
            Op::Const64(bits) => self.lanewise(dst, mask, |_, _| *bits as u32),
            Op::Bitcast { value, .. } => self.lanewise(dst, mask, |s, t| s.get(*value, t)),
            Op::Load {
                tensor,
                indices,
                guarded: false,
            } if indices.len() <= 4 => {
                let coordinates: Vec<Vec<u32>> = indices
                    .iter()
                    .enumerate()
                    .map(|(slot, i)| self.load(slot, *i))
                    .collect();
                let Some(Arg::Tensor(data)) = self.args.params.get(*tensor) else {
                    return Err(self.fault(
                        Code::E0515,
                        span,
                        0,
                        "a tensor argument is missing".into(),
                    ));
                };
                let rank_fits = indices.len() == data.shape.len();
                let cells = self
                    .global
                    .cells
                    .get(*tensor)
                    .map_or(&[][..], Vec::as_slice);
                let start = dst.0 as usize * threads;
                let mut outside = None;
                let out = &mut self.regs[start..start + threads];
                for t in 0..threads {
                    if !mask[t] {
                        continue;
                    }
                    let mut flat = 0usize;
                    let mut inside = rank_fits;
                    for (values, extent) in coordinates.iter().zip(&data.shape) {
                        let i = values[t] as i32 as isize;
                        inside &= i >= 0 && (i as usize) < *extent;
                        flat = flat.wrapping_mul(*extent).wrapping_add(i as usize);
                    }
                    match cells.get(flat) {
                        Some(cell) if inside => out[t] = cell.load(Ordering::Relaxed),
                        _ => {
                            outside = Some(t);
                            break;
                        }
                    }
                }
                for (slot, values) in coordinates.into_iter().enumerate() {
                    self.scratch[slot] = values;
                }
                if let Some(t) = outside {
                    return self.element(*tensor, indices, t, span).map(|_| ());
                }
                // Only a tensor the kernel writes can be raced on.
                if self.global.races.get(*tensor).is_some_and(Option::is_some) {
                    for t in (0..threads).filter(|&t| mask[t]) {
                        let at = self.element(*tensor, indices, t, span)?;
                        self.touch_tensor(*tensor, at, t, Touch::Read, span)?;
                    }
                }
                Ok(())
            }
            Op::Load {
                tensor,
                indices,
                guarded,
            } => {
                for t in 0..threads {
                    if !mask[t] {
                        continue;
                    }
                    let bits = match self.element(*tensor, indices, t, span) {
                        Ok(at) => {
                            self.touch_tensor(*tensor, at, t, Touch::Read, span)?;
                            self.global.cells[*tensor][at].load(Ordering::Relaxed)
                        }
                        // A tile load reads 0 outside the tensor.
                        Err(fault) if *guarded && fault.code == Code::E0510 => 0,
                        Err(fault) => return Err(fault),
                    };
                    self.set(dst, t, bits);
                }
                Ok(())
            }
            // A constant index inside the array (an unrolled loop's): one check, then the
            // threads' elements, side by side as a register's are, copied as a register is.
            Op::LocalLoad {
                array,
                index: Operand::Const(at),
                coordinates,
            } if self.constant_element(*array, *at, coordinates) => {
                let (start, from) = (dst.0 as usize * threads, *at as usize * threads);
                let element = &self.locals[*array][from..from + threads];
                let out = &mut self.regs[start..start + threads];
                for ((o, m), v) in out.iter_mut().zip(mask).zip(element) {
                    if *m {
                        *o = *v;
                    }
                }
                Ok(())
            }
            Op::LocalLoad {
                array,
                index,
                coordinates,
            } => {
                for t in 0..threads {
                    if mask[t] {
                        let at = self.local_element(*array, *index, coordinates, t, span)?;
                        let bits = self.locals[*array][at];
                        self.set(dst, t, bits);
                    }
                }
                Ok(())
            }
            Op::SharedLoad { array, indices } => {
                for t in 0..threads {
                    if mask[t] {
                        let at = self.shared_element(*array, indices, t, span)?;
                        self.touch(*array, at, t, Touch::Read, span)?;
                        let bits = self.shared[*array][at];
                        self.set(dst, t, bits);
                    }
                }
                Ok(())
            }
            Op::Reduce(r, over, ty, a) => {
                // Each warp's butterfly; over the CTA, then a butterfly over the warps' results.
                let lanes = self.options.lanes.max(1) as usize;
                let warps: Vec<Vec<usize>> = (0..threads)
                    .step_by(lanes)
                    .map(|start| {
                        (start..(start + lanes).min(threads))
                            .filter(|&t| mask[t])
                            .collect()
                    })
                    .filter(|members: &Vec<usize>| !members.is_empty())
                    .collect();
                let mut results: Vec<u32> = warps
                    .iter()
                    .map(|members| {
                        let mut values: Vec<u32> =
                            members.iter().map(|&t| self.get(*a, t)).collect();
                        // A partial warp pads its missing lanes with the identity up to the
                        // full width, as the shuffle butterfly on a GPU does.
                        butterfly(*r, *ty, &mut values, lanes)
                    })
                    .collect();
                if *over == Over::Cta {
                    let total = butterfly(*r, *ty, &mut results.clone(), 1);
                    results.iter_mut().for_each(|v| *v = total);
                    // Every thread arrives before any leaves, as at a barrier (the PTX's
                    // `bar.sync`, WGSL's `workgroupBarrier()`): accesses on either side of it
                    // cannot race.
                    self.next_epoch();
                }
                for (members, value) in warps.iter().zip(results) {
                    for &t in members {
                        self.set(dst, t, value);
                    }
                }
                Ok(())
            }
            Op::Vote(v, a) => {
                let lanes = self.options.lanes.max(1) as usize;
                self.warp_collective(dst, mask, |s, members| {
                    let result = match v {
                        Vote::Any => u32::from(members.iter().any(|&t| s.get(*a, t) != 0)),
                        Vote::All => u32::from(members.iter().all(|&t| s.get(*a, t) != 0)),
                        Vote::Ballot => members
                            .iter()
                            .filter(|&&t| s.get(*a, t) != 0)
                            .fold(0u32, |bits, &t| {
                                bits | 1u32.checked_shl((t % lanes) as u32).unwrap_or(0)
                            }),
                    };
                    vec![result; members.len()]
                });
                Ok(())
            }
            Op::PrefixSum(ty, a) => {
                // Hillis-Steele order (distance 1, 2, 4, …), as a GPU's shuffle-up scan adds,
                // so float results match it bit for bit.
                self.warp_collective(dst, mask, |s, members| {
                    let mut values: Vec<u32> = members.iter().map(|&t| s.get(*a, t)).collect();
                    let mut distance = 1;
                    while distance < values.len() {
                        let previous = values.clone();
                        for l in distance..values.len() {
                            values[l] =
                                combine(Reduce::Sum, *ty, previous[l - distance], previous[l]);
                        }
                        distance *= 2;
                    }
                    values
                });
                Ok(())
            }
            Op::Shuffle(kind, x, l) => {
                let out: Vec<u32> = (0..threads)
                    .map(|t| {
                        let source = self.shuffle_source(*kind, *l, mask, t).unwrap_or(t);
                        self.get(*x, source)
                    })
                    .collect();
                for t in 0..threads {
                    if mask[t] {
                        self.set(dst, t, out[t]);
                    }
                }
                Ok(())
            }
        }
    }

    /// The thread whose value thread `t` takes in a shuffle whose lane operand is `lane`, or
    /// `None` when the source lane is outside the warp, holds no thread or is inactive: then
    /// `t` keeps its own value.
    pub(super) fn shuffle_source(
        &self,
        kind: Shuffle,
        lane: Operand,
        mask: &[bool],
        t: usize,
    ) -> Option<usize> {
        let lanes = self.options.lanes.max(1) as i64;
        let own = (t as i64) % lanes;
        let arg = self.get(lane, t) as i32 as i64;
        let source = match kind {
            Shuffle::Index | Shuffle::Broadcast => arg.rem_euclid(lanes),
            Shuffle::Xor => own ^ arg,
            Shuffle::Up => own - arg,
            Shuffle::Down => own + arg,
        };
        let thread = (t as i64 - own + source) as usize;
        ((0..lanes).contains(&source) && thread < self.threads && mask[thread]).then_some(thread)
    }

    /// `dst = x b y` in every active thread, for an operation that cannot fault. The common
    /// operations get a loop of their own (the operation chosen once per statement, not per
    /// lane), which the compiler can vectorise; the rest go through [`binary`].
    fn binary_lanes(
        &mut self,
        dst: Reg,
        mask: &[bool],
        b: BinaryOp,
        ty: Scalar,
        x: Operand,
        y: Operand,
    ) {
        use BinaryOp::*;
        let f = |bits: u32| f32::from_bits(bits);
        match (ty, b) {
            (Scalar::F32, Add) => self.zip2(dst, mask, x, y, |p, q| (f(p) + f(q)).to_bits()),
            (Scalar::F32, Sub) => self.zip2(dst, mask, x, y, |p, q| (f(p) - f(q)).to_bits()),
            (Scalar::F32, Mul) => self.zip2(dst, mask, x, y, |p, q| (f(p) * f(q)).to_bits()),
            (Scalar::I32 | Scalar::U32, Add) => self.zip2(dst, mask, x, y, u32::wrapping_add),
            (Scalar::I32 | Scalar::U32, Sub) => self.zip2(dst, mask, x, y, u32::wrapping_sub),
            (Scalar::I32 | Scalar::U32, Mul) => self.zip2(dst, mask, x, y, u32::wrapping_mul),
            (Scalar::I32 | Scalar::U32 | Scalar::Bool, And) => {
                self.zip2(dst, mask, x, y, |p, q| p & q)
            }
            (Scalar::I32 | Scalar::U32 | Scalar::Bool, Or) => {
                self.zip2(dst, mask, x, y, |p, q| p | q)
            }
            (Scalar::I32 | Scalar::U32 | Scalar::Bool, Xor) => {
                self.zip2(dst, mask, x, y, |p, q| p ^ q)
            }
            _ => self.zip2(dst, mask, x, y, |p, q| binary(b, ty, p, q).unwrap_or(0)),
        }
    }

    pub(super) fn lanewise(
        &mut self,
        dst: Reg,
        mask: &[bool],
        f: impl Fn(&Self, usize) -> u32,
    ) -> Result<(), Fault> {
        for t in 0..self.threads {
            if mask[t] {
                let v = f(self, t);
                self.set(dst, t, v);
            }
        }
        Ok(())
    }

    /// Calls `f` with the active threads of each warp, in lane order, and writes back what it
    /// returns for each.
    pub(super) fn warp_collective(
        &mut self,
        dst: Reg,
        mask: &[bool],
        f: impl Fn(&Self, &[usize]) -> Vec<u32>,
    ) {
        let lanes = self.options.lanes.max(1) as usize;
        for start in (0..self.threads).step_by(lanes) {
            let end = (start + lanes).min(self.threads);
            let members: Vec<usize> = (start..end).filter(|&t| mask[t]).collect();
            if !members.is_empty() {
                let results = f(self, &members);
                for (&t, v) in members.iter().zip(results) {
                    self.set(dst, t, v);
                }
            }
        }
    }
}
