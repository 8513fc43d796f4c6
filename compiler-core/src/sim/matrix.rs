//! A warp's matrix operation, [`StmtKind::Mma`]: each warp's 32 lanes give their fragments of
//! A, B and C, and get theirs of `d = a · b + c`, computed by the rule (`crate::mma::multiply`:
//! exact products, `f32` sums in increasing `k`, then C added).
//!
//! In: the statement's arrays and the active mask. Out: the `d` array of every lane of every
//! warp that runs it, or a fault where a warp runs it with some of its lanes but not all
//! (E0402, the checker's rule, which it enforces first) or warps are not 32 lanes (E0515, a
//! launch the kernel does not fit, which the launch refuses first): the simulator's last guard,
//! as PTX's `.aligned` is undefined behaviour on a GPU.

use super::*;

impl Cta<'_> {
    pub(super) fn mma(
        &mut self,
        [a, b, c, d]: [usize; 4],
        mask: &[bool],
        span: Span,
    ) -> Result<(), Fault> {
        let lanes = crate::mma::MMA_LANES as usize;
        if self.options.lanes as usize != lanes {
            let first = mask.iter().position(|&m| m).unwrap_or(0);
            return Err(self.fault(
                Code::E0515,
                span,
                first,
                format!(
                    "mma<over ctx.lane> takes a warp of 32 lanes, and this run's warps have {}",
                    self.options.lanes
                ),
            ));
        }
        for warp in (0..self.threads).step_by(lanes) {
            let members = warp..(warp + lanes).min(self.threads);
            let active = members.clone().filter(|&t| mask[t]).count();
            if active == 0 {
                continue;
            }
            if active < lanes {
                let missing = (warp..warp + lanes)
                    .find(|&t| t >= self.threads || !mask[t])
                    .unwrap_or(warp);
                let present = members.clone().find(|&t| mask[t]).unwrap_or(warp);
                let why = if missing >= self.threads {
                    "past the CTA's last thread (a partial warp)".to_owned()
                } else if self.exited[missing] {
                    "which has returned".to_owned()
                } else {
                    "which took another branch".to_owned()
                };
                return Err(self.fault(
                    Code::E0402,
                    span,
                    present,
                    format!(
                        "mma<over ctx.lane> is reached by lane {} of warp {} but not by lane {}, {why}: all 32 lanes run it together",
                        present - warp,
                        warp / lanes,
                        missing - warp
                    ),
                ));
            }
            // Element `e` of thread `t` is at `e * threads + t` (`Cta::local_element`).
            let threads = self.threads;
            let gather = |locals: &[u32], n: usize| -> Vec<f32> {
                (0..lanes)
                    .flat_map(|l| (0..n).map(move |e| (l, e)))
                    .map(|(l, e)| {
                        f32::from_bits(locals.get(e * threads + warp + l).copied().unwrap_or(0))
                    })
                    .collect()
            };
            let av = gather(&self.locals[a], 8);
            let bv = gather(&self.locals[b], 4);
            let cv = gather(&self.locals[c], 4);
            let dv = crate::mma::multiply(&av, &bv, &cv);
            for l in 0..lanes {
                for e in 0..4 {
                    if let Some(slot) = self.locals[d].get_mut(e * threads + warp + l) {
                        *slot = dv[l * 4 + e].to_bits();
                    }
                }
            }
        }
        Ok(())
    }
}
