//! The launch hierarchy as numbers: grid → CTA → warp → lane.
//!
//! In: a [`LaunchShape`] (the grid's extents, threads per CTA from `@launch`, lanes per warp
//! from the target) and a thread's place in it. Out: the eight `ctx` fields of that thread, each
//! with the reason for its value ([`ThreadCtx::explain`]), and every warp's active mask.
//!
//! Invariant: warps are cut from the linear thread index, so for every thread a shape holds
//! `thread == warp * lanes + lane`, and only the last warp of a CTA can be partial. The
//! simulator, the backends, the diagram and the docs all take these numbers from here, and
//! two more rules: a thread's index in the whole launch and the node of a `@cluster` super-tile.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The most threads one CTA may have (`@launch(1..=1024)`), as on NVIDIA and in WebGPU's
/// default `maxComputeInvocationsPerWorkgroup` ceiling.
pub const MAX_THREADS_PER_CTA: u32 = 1024;
/// The widest warp we model: WebGPU allows subgroups of up to 128 invocations.
pub const MAX_LANES: u32 = 128;
/// The warp width of every NVIDIA GPU.
pub const NVIDIA_LANES: u32 = 32;

/// Extents or indices along the three grid axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }

    /// How many cells a grid of these extents holds.
    pub fn volume(self) -> u64 {
        u64::from(self.x) * u64::from(self.y) * u64::from(self.z)
    }

    /// The CTA at `index` in this grid's order: x fastest, then y, then z.
    pub fn block_at(self, index: u64) -> Dim3 {
        let (x, y) = (u64::from(self.x.max(1)), u64::from(self.y.max(1)));
        Dim3::new(
            (index % x) as u32,
            (index / x % y) as u32,
            (index / (x * y)) as u32,
        )
    }

    fn contains(self, index: Dim3) -> bool {
        index.x < self.x && index.y < self.y && index.z < self.z
    }
}

/// A thread's index in the whole launch, numbering threads CTA by CTA in x, y, z order: what
/// the simulator records as an element's writer.
pub fn launch_thread(grid: Dim3, block: Dim3, threads: u32, thread: u32) -> u32 {
    ((block.z * grid.y + block.y) * grid.x + block.x) * threads + thread
}

/// The node that runs super-tile `index` of a kernel under `@cluster`: round robin, as the spec
/// states. The runners and the diagram's cluster tier both deal them by this rule.
pub fn node_of_supertile(index: usize, nodes: usize) -> usize {
    index % nodes.max(1)
}

/// The shape of one launch: what `ctx.blocks`, `ctx.threads` and `ctx.lanes` say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchShape {
    pub grid: Dim3,
    pub threads: u32,
    pub lanes: u32,
}

/// Why a shape or a place in it is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    EmptyGrid { grid: Dim3 },
    Threads { threads: u32 },
    Lanes { lanes: u32 },
    BlockOutside { block: Dim3, grid: Dim3 },
    ThreadOutside { thread: u32, threads: u32 },
    WarpOutside { warp: u32, warps: u32 },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyGrid { grid } => write!(
                f,
                "the grid {} x {} x {} has no CTAs: every extent must be at least 1",
                grid.x, grid.y, grid.z
            ),
            Self::Threads { threads } => write!(
                f,
                "a CTA has 1 to {MAX_THREADS_PER_CTA} threads, not {threads}"
            ),
            Self::Lanes { lanes } => write!(f, "a warp has 1 to {MAX_LANES} lanes, not {lanes}"),
            Self::BlockOutside { block, grid } => write!(
                f,
                "block ({}, {}, {}) is outside the {} x {} x {} grid",
                block.x, block.y, block.z, grid.x, grid.y, grid.z
            ),
            Self::ThreadOutside { thread, threads } => write!(
                f,
                "thread {thread} is outside the CTA: ctx.thread runs from 0 to {}",
                threads - 1
            ),
            Self::WarpOutside { warp, warps } => write!(
                f,
                "warp {warp} is outside the CTA: ctx.warp runs from 0 to {}",
                warps - 1
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

/// The lanes of one warp that hold a thread: bit N set means lane N exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneMask {
    pub bits: u128,
    /// The warp width, which sets how many hex digits the mask prints with.
    pub lanes: u32,
}

impl LaneMask {
    /// Lanes `0..present` of a `lanes`-wide warp: the shape of every launch-time mask.
    fn lowest(present: u32, lanes: u32) -> Self {
        let bits = u128::MAX.checked_shr(128 - present).unwrap_or(0);
        Self { bits, lanes }
    }

    pub fn contains(self, lane: u32) -> bool {
        lane < self.lanes && (self.bits >> lane) & 1 == 1
    }

    pub fn count(self) -> u32 {
        self.bits.count_ones()
    }
}

/// Printed as CUDA prints `__activemask()`: one hex digit per four lanes, so 32 lanes give
/// `0x0000ffff`.
impl fmt::Display for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.lanes.div_ceil(4) as usize;
        write!(f, "0x{:0digits$x}", self.bits)
    }
}

impl LaunchShape {
    /// The schematic of the hierarchy page: a 4 x 3 grid launched with `@launch(256)` on NVIDIA.
    pub const SCHEMATIC: LaunchShape = LaunchShape {
        grid: Dim3::new(4, 3, 1),
        threads: 256,
        lanes: NVIDIA_LANES,
    };

    pub fn new(grid: Dim3, threads: u32, lanes: u32) -> Result<Self, ShapeError> {
        if grid.volume() == 0 {
            return Err(ShapeError::EmptyGrid { grid });
        }
        if !(1..=MAX_THREADS_PER_CTA).contains(&threads) {
            return Err(ShapeError::Threads { threads });
        }
        if !(1..=MAX_LANES).contains(&lanes) {
            return Err(ShapeError::Lanes { lanes });
        }
        Ok(Self {
            grid,
            threads,
            lanes,
        })
    }

    /// `ctx.warps`: a partial last warp still counts as a warp.
    pub fn warps(&self) -> u32 {
        self.threads.div_ceil(self.lanes)
    }

    /// How many lanes of `warp` hold a thread: `lanes`, except in a partial last warp.
    pub fn lanes_in_warp(&self, warp: u32) -> Result<u32, ShapeError> {
        self.check_warp(warp)?;
        Ok(self.present_lanes(warp))
    }

    /// The active mask every thread of `warp` sees at the start of the kernel.
    pub fn active_mask(&self, warp: u32) -> Result<LaneMask, ShapeError> {
        self.check_warp(warp)?;
        Ok(LaneMask::lowest(self.present_lanes(warp), self.lanes))
    }

    /// The `ctx` of one thread, named by its CTA and its index in the CTA.
    pub fn locate(&self, block: Dim3, thread: u32) -> Result<ThreadCtx, ShapeError> {
        if !self.grid.contains(block) {
            return Err(ShapeError::BlockOutside {
                block,
                grid: self.grid,
            });
        }
        if thread >= self.threads {
            return Err(ShapeError::ThreadOutside {
                thread,
                threads: self.threads,
            });
        }
        Ok(ThreadCtx {
            shape: *self,
            block,
            thread,
        })
    }

    /// The grid axes worth naming: `x` always, `y` for a 2-D grid, `z` for a 3-D one.
    fn named_axes(&self) -> usize {
        if self.grid.z > 1 {
            3
        } else if self.grid.y > 1 {
            2
        } else {
            1
        }
    }

    /// Lanes holding a thread in a warp already known to be in the CTA.
    fn present_lanes(&self, warp: u32) -> u32 {
        (self.threads - warp * self.lanes).min(self.lanes)
    }

    fn check_warp(&self, warp: u32) -> Result<(), ShapeError> {
        let warps = self.warps();
        if warp < warps {
            Ok(())
        } else {
            Err(ShapeError::WarpOutside { warp, warps })
        }
    }
}

/// One thread of a launch: everything `ctx` says to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadCtx {
    pub shape: LaunchShape,
    pub block: Dim3,
    pub thread: u32,
}

/// One row of the readout: a `ctx` field, its value for this thread, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldValue {
    pub field: String,
    pub value: String,
    pub why: String,
}

impl ThreadCtx {
    pub fn warp(&self) -> u32 {
        self.thread / self.shape.lanes
    }

    pub fn lane(&self) -> u32 {
        self.thread % self.shape.lanes
    }

    /// The active mask of this thread's warp.
    pub fn active_mask(&self) -> LaneMask {
        LaneMask::lowest(self.shape.present_lanes(self.warp()), self.shape.lanes)
    }

    /// "block (2, 1), warp 3, lane 17, thread 113": where this thread sits, in words.
    pub fn sentence(&self) -> String {
        format!(
            "block {}, warp {}, lane {}, thread {}",
            self.block_coordinates(),
            self.warp(),
            self.lane(),
            self.thread
        )
    }

    /// `ctx.thread = ctx.warp * ctx.lanes + ctx.lane` with this thread's numbers.
    pub fn relation(&self) -> String {
        format!(
            "{} = {} * {} + {}",
            self.thread,
            self.warp(),
            self.shape.lanes,
            self.lane()
        )
    }

    /// The eight fields in the order of the hierarchy page's worked example, each with its
    /// value and the arithmetic or source it comes from.
    pub fn explain(&self) -> Vec<FieldValue> {
        let shape = &self.shape;
        let axes = shape.named_axes();
        let (threads, lanes, thread) = (shape.threads, shape.lanes, self.thread);
        let warps_why = if threads % lanes == 0 {
            format!("{threads} / {lanes}")
        } else {
            format!("{threads} / {lanes}, rounded up: the last warp is partial")
        };
        vec![
            row(
                &axis_fields("ctx.blocks", axes),
                axis_values(shape.grid, axes),
                "the grid the host launched",
            ),
            row(
                &axis_fields("ctx.block", axes),
                axis_values(self.block, axes),
                "the CTA picked",
            ),
            row(
                "ctx.threads",
                threads.to_string(),
                &format!("@launch({threads})"),
            ),
            row("ctx.lanes", lanes.to_string(), "the target"),
            row("ctx.warps", shape.warps().to_string(), &warps_why),
            row("ctx.thread", thread.to_string(), "the thread picked"),
            row(
                "ctx.warp",
                self.warp().to_string(),
                &format!("{thread} / {lanes}, rounded down"),
            ),
            row(
                "ctx.lane",
                self.lane().to_string(),
                &format!("{thread} - {} * {lanes}", self.warp()),
            ),
        ]
    }

    fn block_coordinates(&self) -> String {
        match self.shape.named_axes() {
            1 => self.block.x.to_string(),
            axes => format!("({})", axis_values(self.block, axes)),
        }
    }
}

fn row(field: &str, value: String, why: &str) -> FieldValue {
    FieldValue {
        field: field.to_owned(),
        value,
        why: why.to_owned(),
    }
}

fn axis_fields(base: &str, axes: usize) -> String {
    ["x", "y", "z"][..axes]
        .iter()
        .map(|axis| format!("{base}.{axis}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn axis_values(index: Dim3, axes: usize) -> String {
    [index.x, index.y, index.z][..axes]
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn shape(grid: (u32, u32, u32), threads: u32, lanes: u32) -> LaunchShape {
        match LaunchShape::new(Dim3::new(grid.0, grid.1, grid.2), threads, lanes) {
            Ok(shape) => shape,
            Err(error) => panic!("test shape rejected: {error}"),
        }
    }

    fn table(ctx: &ThreadCtx) -> Vec<(String, String, String)> {
        ctx.explain()
            .into_iter()
            .map(|r| (r.field, r.value, r.why))
            .collect()
    }

    #[test]
    fn worked_example_of_the_hierarchy_page() {
        let ctx = LaunchShape::SCHEMATIC
            .locate(Dim3::new(2, 1, 0), 113)
            .map_err(|e| e.to_string());
        let Ok(ctx) = ctx else { panic!("{ctx:?}") };
        assert_eq!(ctx.sentence(), "block (2, 1), warp 3, lane 17, thread 113");
        assert_eq!(ctx.relation(), "113 = 3 * 32 + 17");
        let expected = [
            (
                "ctx.blocks.x, ctx.blocks.y",
                "4, 3",
                "the grid the host launched",
            ),
            ("ctx.block.x, ctx.block.y", "2, 1", "the CTA picked"),
            ("ctx.threads", "256", "@launch(256)"),
            ("ctx.lanes", "32", "the target"),
            ("ctx.warps", "8", "256 / 32"),
            ("ctx.thread", "113", "the thread picked"),
            ("ctx.warp", "3", "113 / 32, rounded down"),
            ("ctx.lane", "17", "113 - 3 * 32"),
        ]
        .map(|(f, v, w)| (f.to_owned(), v.to_owned(), w.to_owned()));
        assert_eq!(table(&ctx), expected);
    }

    #[test]
    fn partial_warp_masks_match_the_measured_t4_table() {
        let cta48 = shape((1, 1, 1), 48, 32);
        assert_eq!(cta48.warps(), 2);
        assert_eq!(
            cta48.active_mask(0).map(|m| m.to_string()),
            Ok("0xffffffff".into())
        );
        assert_eq!(
            cta48.active_mask(1).map(|m| m.to_string()),
            Ok("0x0000ffff".into())
        );
        let cta33 = shape((1, 1, 1), 33, 32);
        assert_eq!(
            cta33.active_mask(1).map(|m| m.to_string()),
            Ok("0x00000001".into())
        );
        let thread32 = cta48.locate(Dim3::new(0, 0, 0), 32);
        assert_eq!(thread32.map(|t| (t.warp(), t.lane())), Ok((1, 0)));
        let thread47 = cta48.locate(Dim3::new(0, 0, 0), 47);
        assert_eq!(thread47.map(|t| (t.warp(), t.lane())), Ok((1, 15)));
    }

    #[test]
    fn a_one_dimensional_grid_names_only_x() {
        let ctx = shape((10, 1, 1), 48, 32).locate(Dim3::new(7, 0, 0), 40);
        let Ok(ctx) = ctx else { panic!("{ctx:?}") };
        assert_eq!(ctx.sentence(), "block 7, warp 1, lane 8, thread 40");
        let rows = table(&ctx);
        assert_eq!(rows[0].0, "ctx.blocks.x");
        assert_eq!(rows[4].2, "48 / 32, rounded up: the last warp is partial");
    }

    #[test]
    fn places_outside_the_launch_are_errors_that_say_the_range() {
        let s = LaunchShape::SCHEMATIC;
        let outside = s.locate(Dim3::new(0, 0, 0), 256).map_err(|e| e.to_string());
        assert_eq!(
            outside,
            Err("thread 256 is outside the CTA: ctx.thread runs from 0 to 255".into())
        );
        assert!(matches!(
            s.locate(Dim3::new(4, 0, 0), 0),
            Err(ShapeError::BlockOutside { .. })
        ));
        assert_eq!(
            s.active_mask(8),
            Err(ShapeError::WarpOutside { warp: 8, warps: 8 })
        );
        assert_eq!(
            LaunchShape::new(Dim3::new(1, 1, 1), 1025, 32),
            Err(ShapeError::Threads { threads: 1025 })
        );
        assert_eq!(
            LaunchShape::new(Dim3::new(1, 0, 1), 32, 32),
            Err(ShapeError::EmptyGrid {
                grid: Dim3::new(1, 0, 1)
            })
        );
        assert_eq!(
            LaunchShape::new(Dim3::new(1, 1, 1), 32, 0),
            Err(ShapeError::Lanes { lanes: 0 })
        );
    }

    #[test]
    fn a_128_lane_warp_has_a_full_mask() {
        let mask = shape((1, 1, 1), 128, 128).active_mask(0);
        assert_eq!(mask.as_ref().map(|m| m.count()), Ok(128));
        assert_eq!(mask.map(|m| m.to_string().len()), Ok(2 + 32));
    }

    proptest! {
        #[test]
        fn every_thread_is_its_warp_times_lanes_plus_its_lane(
            threads in 1u32..=MAX_THREADS_PER_CTA,
            lanes in 1u32..=MAX_LANES,
            pick in 0u32..MAX_THREADS_PER_CTA,
        ) {
            let s = shape((1, 1, 1), threads, lanes);
            let ctx = s.locate(Dim3::new(0, 0, 0), pick % threads);
            prop_assert!(ctx.is_ok());
            if let Ok(ctx) = ctx {
                prop_assert_eq!(ctx.thread, ctx.warp() * lanes + ctx.lane());
                prop_assert!(ctx.warp() < s.warps());
                prop_assert!(ctx.active_mask().contains(ctx.lane()));
                prop_assert_eq!(Ok(ctx.active_mask()), s.active_mask(ctx.warp()));
            }
            let live: u32 = (0..s.warps()).filter_map(|w| s.active_mask(w).ok()).map(LaneMask::count).sum();
            prop_assert_eq!(live, threads);
        }
    }
}
