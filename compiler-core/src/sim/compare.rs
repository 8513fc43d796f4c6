//! Comparing another run of a tensor (a GPU's) with the simulator's: the one rule the
//! playground's verdict and the GPU tests share.

use crate::ir::{join_words, Scalar};

/// A GPU's floats agree with the simulator's when within this difference, relative to the
/// simulator's value (at least 1): subgroup reductions may add in another order, and `exp` and
/// friends may be approximate (the spec allows both).
pub const FLOAT_TOLERANCE: f64 = 1e-4;

/// How another run of a tensor (a GPU's) compares with the simulator's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// The largest difference between two elements (infinite where one is NaN).
    pub largest: f64,
    /// The first element that does not agree, if any.
    pub first_mismatch: Option<usize>,
}

impl Comparison {
    pub fn agree(&self) -> bool {
        self.first_mismatch.is_none()
    }
}

/// Compares `got` with the reference `want`, both of `element`s: integers must be equal,
/// floats within [`FLOAT_TOLERANCE`] (NaN agrees only with NaN, an infinity only with itself),
/// and the lengths the same. A 64-bit integer is compared whole, from its two words; the
/// mismatch is its index among the elements.
pub fn compare_tensor(element: Scalar, got: &[u32], want: &[u32]) -> Comparison {
    if element.is_wide() {
        let mut first_mismatch = (got.len() != want.len()).then_some(got.len().min(want.len()) / 2);
        let mut largest = 0.0f64;
        for (i, (g, w)) in got.chunks(2).zip(want.chunks(2)).enumerate() {
            let (g, w) = (join_words(g), join_words(w));
            if g != w {
                let (g, w) = (element.wide_value(g), element.wide_value(w));
                largest = largest.max((g - w).abs().max(1.0));
                if first_mismatch.is_none_or(|m| i < m) {
                    first_mismatch = Some(i);
                }
            }
        }
        return Comparison {
            largest,
            first_mismatch,
        };
    }
    let mut largest = 0.0f64;
    let mut first_mismatch = (got.len() != want.len()).then_some(got.len().min(want.len()));
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (element.value(g), element.value(w));
        let same = g == w || (g.is_nan() && w.is_nan());
        let d = match (g - w).abs() {
            _ if same => 0.0,
            d if d.is_nan() => f64::INFINITY,
            d => d,
        };
        largest = largest.max(d);
        let agree = if element.is_float() {
            // An infinity agrees only with itself: no tolerance scaled by it.
            same || (w.is_finite() && g.is_finite() && d <= FLOAT_TOLERANCE * w.abs().max(1.0))
        } else {
            d == 0.0
        };
        if !agree && first_mismatch.is_none_or(|m| i < m) {
            first_mismatch = Some(i);
        }
    }
    Comparison {
        largest,
        first_mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_infinity_agrees_with_itself_alone() {
        let f = |v: f32| v.to_bits();
        let inf = f32::INFINITY;
        assert!(compare_tensor(Scalar::F32, &[f(inf), f(-inf)], &[f(inf), f(-inf)]).agree());
        assert_eq!(
            compare_tensor(Scalar::F32, &[f(inf)], &[f(inf)]).largest,
            0.0
        );
        let near = compare_tensor(Scalar::F32, &[f(3.0e38)], &[f(inf)]);
        assert_eq!(
            near.first_mismatch,
            Some(0),
            "a finite value is not an infinity"
        );
        assert!(!compare_tensor(Scalar::F32, &[f(inf)], &[f(3.0e38)]).agree());
        assert!(!compare_tensor(Scalar::F32, &[f(-inf)], &[f(inf)]).agree());
    }

    #[test]
    fn floats_agree_within_the_tolerance_integers_exactly() {
        let f = |v: f32| v.to_bits();
        let same = compare_tensor(Scalar::F32, &[f(1.0), f(2.0)], &[f(1.0), f(2.0)]);
        assert_eq!(
            same,
            Comparison {
                largest: 0.0,
                first_mismatch: None
            }
        );
        let close = compare_tensor(Scalar::F32, &[f(1000.0)], &[f(1000.05)]);
        assert!(close.agree() && close.largest > 0.0);
        let far = compare_tensor(
            Scalar::F32,
            &[f(1.0), f(1.0), f(1.1)],
            &[f(1.0), f(1.1), f(1.0)],
        );
        assert_eq!(far.first_mismatch, Some(1));
        assert!(!compare_tensor(Scalar::I32, &[1], &[2]).agree());
        assert!(!compare_tensor(Scalar::F32, &[f(f32::NAN)], &[f(1.0)]).agree());
        assert!(compare_tensor(Scalar::F32, &[f(f32::NAN)], &[f(f32::NAN)]).agree());
        assert_eq!(
            compare_tensor(Scalar::I32, &[1, 2], &[1]).first_mismatch,
            Some(1),
            "lengths differ"
        );
    }
}
