//! Tensor cores' fragments: which lane of a warp holds which element of each operand of a
//! warp's matrix operation, `mma` of shape m16n8k16 (A 16 × 16 of `f16`, B 16 × 8 of `f16`,
//! C and D 16 × 8 of `f32`).
//!
//! In: an operand, a lane and the index of an element in that lane's fragment (or a row and a
//! column). Out: the element's row and column (or the lane and index that hold it).
//!
//! This is the one table the simulator, PTX and WGSL follow, and what `tessera mma m16n8k16`
//! prints. It is the PTX ISA's, section "Matrix Fragments for `mma.m16n8k16` with floating
//! point type" (figures "MMA .m16n8k16 fragment layout for matrix A / B / C"): with
//! `group = lane / 4` and `thread_in_group = lane % 4`,
//! - A's `a0 … a7`: row `group` for `a0 a1 a4 a5` and `group + 8` for the others, column
//!   `2 · thread_in_group + (i & 1)`, plus 8 for `a4 … a7`;
//! - B's `b0 … b3`: row `2 · thread_in_group + (i & 1)`, plus 8 for `b2 b3`, column `group`;
//! - C's (and D's) `c0 … c3`: row `group`, plus 8 for `c2 c3`, column
//!   `2 · thread_in_group + (i & 1)`.
//!
//! Invariant: for each operand the table is a bijection between (lane, index) over the 32
//! lanes and (row, column) over the operand's matrix.

use serde::Serialize;

/// The lanes of a warp that `mma` takes: all 32.
pub const MMA_LANES: u32 = 32;

/// The one shape: m16n8k16.
pub const SHAPE: &str = "m16n8k16";

/// The product's extents: `M × K` times `K × N`.
pub const M: u32 = 16;
pub const N: u32 = 8;
pub const K: u32 = 16;

/// An operand of `mma`: `d = a · b + c`, where D has C's fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Operand {
    A,
    B,
    C,
}

impl Operand {
    pub const ALL: [Operand; 3] = [Operand::A, Operand::B, Operand::C];

    /// `a`, `b` or `c`, as the JSON names it.
    pub fn name(self) -> &'static str {
        match self {
            Operand::A => "a",
            Operand::B => "b",
            Operand::C => "c",
        }
    }

    /// The operand's matrix: rows and columns.
    pub fn extents(self) -> (u32, u32) {
        match self {
            Operand::A => (M, K),
            Operand::B => (K, N),
            Operand::C => (M, N),
        }
    }

    /// Elements each lane holds: 8 of A, 4 of B, 4 of C.
    pub fn per_lane(self) -> u32 {
        let (rows, cols) = self.extents();
        rows * cols / MMA_LANES
    }

    /// The row and column of element `index` of lane `lane`'s fragment (`lane` < 32, `index` <
    /// [`Operand::per_lane`]).
    pub fn element(self, lane: u32, index: u32) -> (u32, u32) {
        let (group, in_group) = (lane / 4, lane % 4);
        let pair = 2 * in_group + (index & 1);
        match self {
            Operand::A => (group + 8 * ((index >> 1) & 1), pair + 8 * (index >> 2)),
            Operand::B => (pair + 8 * (index >> 1), group),
            Operand::C => (group + 8 * (index >> 1), pair),
        }
    }

    /// The lane and index that hold element (`row`, `col`): the inverse of
    /// [`Operand::element`].
    pub fn holder(self, row: u32, col: u32) -> (u32, u32) {
        let (group, pair, high, eight) = match self {
            Operand::A => (row % 8, col % 8, row / 8, col / 8),
            Operand::B => (col, row % 8, 0, row / 8),
            Operand::C => (row % 8, col, row / 8, 0),
        };
        let lane = 4 * group + pair / 2;
        let index = match self {
            Operand::A => (pair & 1) + 2 * high + 4 * eight,
            Operand::B => (pair & 1) + 2 * eight,
            Operand::C => (pair & 1) + 2 * high,
        };
        (lane, index)
    }

    /// Every element of the operand, lane by lane, each lane's in index order.
    pub fn table(self) -> Vec<Element> {
        (0..MMA_LANES)
            .flat_map(|lane| {
                (0..self.per_lane()).map(move |index| {
                    let (row, col) = self.element(lane, index);
                    Element {
                        lane,
                        index,
                        row,
                        col,
                    }
                })
            })
            .collect()
    }
}

/// One element of a fragment: lane `lane`'s element `index` is (`row`, `col`) of its matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Element {
    pub lane: u32,
    pub index: u32,
    pub row: u32,
    pub col: u32,
}

/// The three operands' tables, as `tessera mma m16n8k16 --json` prints them.
#[derive(Clone, Debug, Serialize)]
pub struct Fragments {
    pub shape: &'static str,
    pub a: Vec<Element>,
    pub b: Vec<Element>,
    pub c: Vec<Element>,
}

impl Fragments {
    pub fn new() -> Self {
        Fragments {
            shape: SHAPE,
            a: Operand::A.table(),
            b: Operand::B.table(),
            c: Operand::C.table(),
        }
    }
}

impl Default for Fragments {
    fn default() -> Self {
        Self::new()
    }
}

/// `d = a · b + c` over the warp, by Tessera's rule: element `[i, j]` of D is the sum of
/// `a[i, k] · b[k, j]` in increasing `k`, starting from the product for `k = 0`, each product
/// exact in `f32` (an `f16` × `f16` product is) and each addition rounded to `f32`, then added
/// to `c[i, j]`, rounded once more. (Starting from the first product rather than from +0 keeps
/// a sum of -0 products -0, as GPU compilers do that fold `0 + x` to `x`.) `a`, `b` and `c`
/// are each lane's fragments (lane-major, [`Operand::per_lane`] values a lane) as `f32`
/// values; the result is D's fragments the same way.
pub fn multiply(a: &[f32], b: &[f32], c: &[f32]) -> Vec<f32> {
    // Each operand as its matrix, row-major, from the lanes' fragments.
    let matrix = |operand: Operand, values: &[f32]| {
        let (rows, cols) = operand.extents();
        let mut m = vec![0.0f32; (rows * cols) as usize];
        for (e, &v) in operand.table().iter().zip(values) {
            m[(e.row * cols + e.col) as usize] = v;
        }
        m
    };
    let (a, b, c) = (
        matrix(Operand::A, a),
        matrix(Operand::B, b),
        matrix(Operand::C, c),
    );
    let (k, n) = (K as usize, N as usize);
    Operand::C
        .table()
        .iter()
        .map(|e| {
            let (row, col) = (e.row as usize, e.col as usize);
            let mut sum = a[row * k] * b[col];
            for kk in 1..k {
                sum += a[row * k + kk] * b[kk * n + col];
            }
            c[row * n + col] + sum
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_is_a_bijection_and_holder_inverts_element() {
        for operand in Operand::ALL {
            let (rows, cols) = operand.extents();
            let mut seen = vec![false; (rows * cols) as usize];
            for e in operand.table() {
                assert!(e.row < rows && e.col < cols, "{operand:?} {e:?}");
                let cell = &mut seen[(e.row * cols + e.col) as usize];
                assert!(!*cell, "{operand:?}: ({}, {}) held twice", e.row, e.col);
                *cell = true;
                assert_eq!(operand.holder(e.row, e.col), (e.lane, e.index), "{e:?}");
            }
            assert!(seen.iter().all(|&s| s), "{operand:?}");
        }
    }
}
