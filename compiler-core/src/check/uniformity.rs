//! The uniformity lattice and the causes of divergent control.
//!
//! `Uniform < WarpUniform < Varying`: a value is the same in every thread of the CTA, in every
//! lane of a warp, or may differ per thread. An operation takes the join (the larger) of its
//! operands. Control carries a stack of [`Cause`]s, each the condition (or early exit) that
//! made it diverge, so an error can name the one responsible, as naga's uniformity analysis
//! names its `UniformityDisruptor`.

use crate::span::Span;
use serde::Serialize;
use std::fmt;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Uniformity {
    #[default]
    Uniform,
    WarpUniform,
    Varying,
}

impl Uniformity {
    pub fn join(self, other: Uniformity) -> Uniformity {
        self.max(other)
    }

    pub fn name(self) -> &'static str {
        match self {
            Uniformity::Uniform => "uniform",
            Uniformity::WarpUniform => "warp-uniform",
            Uniformity::Varying => "varying",
        }
    }

    /// "differs between threads" / "differs between warps".
    pub fn differs_between(self) -> &'static str {
        match self {
            Uniformity::Varying => "differs between threads",
            _ => "differs between warps",
        }
    }
}

impl fmt::Display for Uniformity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How control came to depend on a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CauseKind {
    /// The condition of an `if`, a `while`, the left side of `&&`/`||`.
    Condition,
    /// The bounds of a `for` loop's range: its trip count.
    TripCount,
    /// An early `break`, `continue` or `return` at `jump`, taken under the condition.
    EarlyExit { jump: Span, keyword: &'static str },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cause {
    pub uniformity: Uniformity,
    /// The condition (or range) whose value decides the control.
    pub span: Span,
    pub kind: CauseKind,
}

impl Cause {
    /// The secondary label that points at this cause.
    pub fn label(&self) -> String {
        let differs = self.uniformity.differs_between();
        match self.kind {
            CauseKind::Condition => format!("this condition {differs}"),
            CauseKind::TripCount => format!("the trip count of this loop {differs}"),
            CauseKind::EarlyExit { keyword, .. } => {
                format!("this condition {differs}, and some threads `{keyword}` under it")
            }
        }
    }
}

/// The most divergent cause in `causes` (the first of equals, the outermost).
pub fn strongest(causes: &[Cause]) -> Option<Cause> {
    causes
        .iter()
        .copied()
        .fold(None, |best: Option<Cause>, c| match best {
            Some(b) if b.uniformity >= c.uniformity => Some(b),
            _ => Some(c),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_the_larger() {
        use Uniformity::*;
        assert_eq!(Uniform.join(WarpUniform), WarpUniform);
        assert_eq!(Varying.join(WarpUniform), Varying);
        assert_eq!(Uniform.join(Uniform), Uniform);
    }
}
