//! Memory behaviour, counted as a run goes: for each access in the kernel (a tensor's or a
//! tile's element read or written, the compiler's own tile copies included), how its warps'
//! requests fall into global memory's 32-byte sectors and 128-byte lines, or onto shared
//! memory's 32 banks.
//!
//! In: the IR statement about to run and the CTA's active mask (a hook beside the trace's, in
//! `control.rs`). Out: a [`MemoryProfile`], one [`AccessSite`] per access in the source,
//! summed over every warp of every CTA. Counting is off unless a run asks for it.
//!
//! The rules (the spec's "Memory behaviour", after NVIDIA's CUDA C++ Best Practices Guide,
//! "Coalesced Access to Global Memory" and "Shared Memory", and the Programming Guide's
//! shared-memory section for compute capability 5.x and later):
//! - a **request** is one access run by 32 lanes of a warp (a whole warp of 32 or fewer lanes;
//!   a 64-lane warp makes two, as NVIDIA's hardware splits any access into 32-lane requests)
//!   with at least one active lane; only active lanes count;
//! - **global**: each tensor starts 256-byte aligned and its elements are `b` bytes (4; 2 for
//!   `f16`), so element `e` is bytes `be .. be + b` from an aligned start; a request touches the
//!   distinct 32-byte sectors `be / 32` and 128-byte lines `be / 128` of its lanes' elements; it asks for the
//!   bytes of its distinct elements (lanes on one element share it), which could fit in
//!   `⌈bytes / 32⌉` sectors, its **ideal**; the sectors moved past the ideal are its
//!   **excess**, as Nsight Compute and CUPTI report uncoalesced accesses;
//! - **shared**: each tile starts at bank 0, so the element stored at `e` (the compiler pads
//!   some tiles' rows: `ir::tiles::pad_tiles`) is in the 4-byte word `be / 4`, in bank
//!   `be / 4 mod 32` (two `f16` elements share a word, and a bank); a request's
//!   conflict degree is the most distinct elements any one bank must serve (lanes reading one
//!   element get it by broadcast, not a conflict); degree 1 is conflict-free, and a request
//!   takes as many wavefronts (passes) as its degree, where `⌈distinct words / 32⌉` is the
//!   ideal; the rest is its excess.
//! - **atomics** are counted as the accesses they are (sectors or banks), and for their
//!   **contention**: the lanes of a request on one element take turns there, so a request
//!   takes as many turns as the most lanes on one of its elements (1 when every lane has its
//!   own element, 32 when a warp adds to one counter); one turn a request is the ideal.
//! - a **CTA collective** (`sum<over ctx.thread>` and its kin) passes its warps' results
//!   through shared memory as the PTX does (`ptx/collectives.rs`): lane 0 of each warp stores
//!   its warp's result (a request of one lane), then each warp reads every warp's result, one
//!   broadcast request a result (one wavefront each): per CTA of `W` warps, `W` store requests
//!   and `W²` load requests (a 64-lane warp's loads are two requests each), at the collective's
//!   span under the name [`PARTIALS`];
//! - An access is **marked** when at least half of what it moved (sectors, wavefronts) is
//!   excess: a stride-2 read (8 sectors, ideal 4) and a 2-way conflict are; a broadcast or one
//!   lane's store (1 sector, ideal 1) never is. An atomic is marked, too, when at least half
//!   of its turns are past the ideal (its lanes meet two to an element on average).
//!
//! Invariant: counting changes nothing the run computes.

use super::trace::Memory;
use super::*;
use serde::{Deserialize, Serialize};
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

/// Bytes in a sector, the unit global memory moves.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes in a cache line: four sectors.
pub const LINE_BYTES: u64 = 128;
/// Shared memory's banks, each serving one 4-byte word per pass.
pub const BANKS: usize = 32;
/// Bytes in a shared-memory word, what one bank serves a pass.
const WORD_BYTES: u64 = 4;
/// The lanes of one request: NVIDIA's warp. A wider warp's access is several requests.
pub const REQUEST_LANES: usize = 32;
/// What the memory view calls a CTA collective's warp results in shared memory.
pub const PARTIALS: &str = "warp partials";

/// One access in the source, over the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessSite {
    /// The access's own span (for a tile statement, the statement).
    pub span: Span,
    pub memory: Memory,
    /// The tensor's or the tile's name.
    pub name: String,
    pub write: bool,
    /// An atomic (which reads and writes its element: `write` is set).
    pub atomic: bool,
    /// Warp-level requests.
    pub requests: u64,
    /// Active lanes over all requests.
    pub lanes: u64,
    /// Global: the bytes asked for (each request's distinct elements).
    pub bytes: u64,
    /// Global: sectors and lines moved, summed over requests.
    pub sectors: u64,
    /// Global: the fewest sectors that could hold each request's bytes, summed over requests.
    pub ideal_sectors: u64,
    pub lines: u64,
    /// Shared: wavefronts (each request's conflict degree), summed over requests.
    pub wavefronts: u64,
    /// Shared: the fewest wavefronts each request's distinct words need, summed.
    pub ideal_wavefronts: u64,
    /// Shared: the worst request's conflict degree.
    pub worst_degree: u32,
    /// Atomics: the turns their lanes take, each request's most lanes on one element, summed.
    pub turns: u64,
    /// Atomics: the most lanes of one request on one element.
    pub worst_contention: u32,
}

impl AccessSite {
    fn new(span: Span, memory: Memory, name: String, write: bool, atomic: bool) -> Self {
        Self {
            span,
            memory,
            name,
            write,
            atomic,
            requests: 0,
            lanes: 0,
            bytes: 0,
            sectors: 0,
            ideal_sectors: 0,
            lines: 0,
            wavefronts: 0,
            ideal_wavefronts: 0,
            worst_degree: 0,
            turns: 0,
            worst_contention: 0,
        }
    }

    pub fn is_shared(&self) -> bool {
        matches!(self.memory, Memory::Shared(_) | Memory::Partials)
    }

    /// A per-thread array's `.local` memory: sectors, as global memory's.
    pub fn is_local(&self) -> bool {
        matches!(self.memory, Memory::Local(_))
    }

    fn per_request(&self, total: u64) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            total as f64 / self.requests as f64
        }
    }

    /// Global: sectors per request (4 is a full warp on consecutive f32 elements).
    pub fn sectors_per_request(&self) -> f64 {
        self.per_request(self.sectors)
    }

    /// Global: sectors moved past the ideal.
    pub fn excess_sectors(&self) -> u64 {
        self.sectors - self.ideal_sectors
    }

    /// Shared: wavefronts past the ideal.
    pub fn excess_wavefronts(&self) -> u64 {
        self.wavefronts - self.ideal_wavefronts
    }

    /// Shared: the mean conflict degree (1 is conflict-free).
    pub fn mean_degree(&self) -> f64 {
        self.per_request(self.wavefronts)
    }

    /// Atomics: the mean turns a request takes (1 is no contention).
    pub fn mean_contention(&self) -> f64 {
        self.per_request(self.turns)
    }

    /// Atomics: turns past one a request.
    pub fn excess_turns(&self) -> u64 {
        self.turns.saturating_sub(self.requests)
    }

    /// "global read", "shared write", "global atomic", …
    pub fn kind(&self) -> &'static str {
        if self.is_local() {
            return if self.write {
                "local write"
            } else {
                "local read"
            };
        }
        match (self.is_shared(), self.write, self.atomic) {
            (false, _, true) => "global atomic",
            (true, _, true) => "shared atomic",
            (false, false, _) => "global read",
            (false, true, _) => "global write",
            (true, false, _) => "shared read",
            (true, true, _) => "shared write",
        }
    }

    /// Atomics: "up to 32 lanes on one element, 32.0 on average".
    pub fn contention(&self) -> Option<String> {
        self.atomic.then(|| {
            format!(
                "up to {} lane{} on one element, {:.1} on average",
                self.worst_contention,
                if self.worst_contention == 1 { "" } else { "s" },
                self.mean_contention()
            )
        })
    }

    /// The figures in words: "8.00 sectors per request, 4 excess of 8" or "32-way bank
    /// conflict at worst, 32.0 on average, 31 excess wavefronts of 32".
    pub fn figures(&self) -> String {
        let memory = self.memory_figures();
        match self.contention() {
            Some(contention) => format!("{memory}; {contention}"),
            None => memory,
        }
    }

    fn memory_figures(&self) -> String {
        if self.is_shared() {
            format!(
                "{}-way bank conflict at worst, {:.1} on average, {} excess wavefronts of {}",
                self.worst_degree,
                self.mean_degree(),
                self.excess_wavefronts(),
                self.wavefronts
            )
        } else {
            format!(
                "{:.2} sectors per request, {} excess of {}",
                self.sectors_per_request(),
                self.excess_sectors(),
                self.sectors
            )
        }
    }

    /// Whether to mark the access: at least half of what it moved is excess (the module's
    /// rules).
    pub fn is_poor(&self) -> bool {
        let (moved, excess) = if self.is_shared() {
            (self.wavefronts, self.excess_wavefronts())
        } else {
            (self.sectors, self.excess_sectors())
        };
        let waits = self.atomic && self.excess_turns() > 0 && self.excess_turns() * 2 >= self.turns;
        waits || (excess > 0 && excess * 2 >= moved)
    }
}

/// Every access site of a run, in source order, and the run's arithmetic.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryProfile {
    pub sites: Vec<AccessSite>,
    #[serde(default)]
    pub work: Work,
    /// Where each per-thread array is kept.
    #[serde(default)]
    pub arrays: Vec<ArrayPlace>,
}

/// The run's arithmetic, lane by lane (each active lane's operation is one), counted with the
/// memory accesses. Floating point as Nsight Compute's roofline counts it: adds (and
/// subtractions) and multiplies one operation each, a fused multiply-add two; the rest
/// (divisions, square roots, the approximate built-ins, `min`, `max`, comparisons) apart, since
/// a GPU runs them as sequences or special units. A warp `sum` or `prefix_sum` counts the adds
/// of its butterfly: log2 of the warp's width a lane. Loads, stores, moves, casts and selects
/// are not arithmetic. A warp's matrix operation (`mma`, m16n8k16) counts 2 · 16 · 8 · 16 =
/// 4096 operations a warp, on the tensor cores, apart from the FP32 pipe's. A tile product
/// that may run on tensor cores (`acc += a @ b` of `f16` tiles into `f32`, `ir/tensor_tiles.rs`)
/// is counted apart again, 2 · m · n · k either way: each target runs it on the unit its own
/// PTX uses ([`Work::on`]), whichever branch the simulator took.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Work {
    pub float_adds: u64,
    pub float_muls: u64,
    pub float_fmas: u64,
    pub float_other: u64,
    pub int_ops: u64,
    /// Floating-point operations on the tensor cores: 4096 a warp's `mma`.
    #[serde(default)]
    pub tensor_flops: u64,
    /// Floating-point operations of tile products that run on the tensor cores where the
    /// target has them and on the FP32 pipe elsewhere.
    #[serde(default)]
    pub tile_product_flops: u64,
    /// Whether the kernel has an `mma` of its own, run or not: then it has no sm_70 PTX.
    #[serde(default)]
    pub own_mma: bool,
}

impl Work {
    /// Floating-point operations on the FP32 pipe: an add or a multiply one, a fused
    /// multiply-add two.
    pub fn flops(&self) -> u64 {
        self.float_adds + self.float_muls + 2 * self.float_fmas
    }

    /// Every floating-point operation: the FP32 pipe's and the tensor cores'.
    pub fn all_flops(&self) -> u64 {
        self.flops() + self.tensor_flops + self.tile_product_flops
    }

    /// The operations `arch`'s PTX runs on the FP32 pipe and on the tensor cores: a tile
    /// product on the tensor cores where it has `mma`, on the FP32 pipe elsewhere. `None` where
    /// the kernel has no PTX for `arch` (its own `mma` on sm_70: E0522).
    pub fn on(&self, arch: crate::target::Arch) -> Option<(u64, u64)> {
        match arch.has_mma() {
            true => Some((self.flops(), self.tensor_flops + self.tile_product_flops)),
            false if self.own_mma || self.tensor_flops > 0 => None,
            false => Some((self.flops() + self.tile_product_flops, 0)),
        }
    }

    fn add(&mut self, other: &Work) {
        self.float_adds += other.float_adds;
        self.float_muls += other.float_muls;
        self.float_fmas += other.float_fmas;
        self.float_other += other.float_other;
        self.int_ops += other.int_ops;
        self.tensor_flops += other.tensor_flops;
        self.tile_product_flops += other.tile_product_flops;
        self.own_mma |= other.own_mma;
    }

    /// Counts `op` run by `active` lanes of warps `lanes` wide.
    fn count(&mut self, op: &Op, active: u64, lanes: u32) {
        let butterfly = u64::from(lanes.max(1).trailing_zeros().max(1));
        let float = |t: &Scalar| t.is_float();
        let (slot, times) = match op {
            Op::Binary(BinaryOp::Add | BinaryOp::Sub, t, _, _) if float(t) => {
                (&mut self.float_adds, 1)
            }
            Op::Binary(BinaryOp::Mul, t, _, _) if float(t) => (&mut self.float_muls, 1),
            Op::Fma(..) => (&mut self.float_fmas, 1),
            Op::Reduce(Reduce::Sum, _, t, _) | Op::PrefixSum(t, _) if float(t) => {
                (&mut self.float_adds, butterfly)
            }
            Op::Reduce(Reduce::Sum, _, _, _) | Op::PrefixSum(..) => (&mut self.int_ops, butterfly),
            Op::Binary(_, t, _, _)
            | Op::Unary(_, t, _)
            | Op::Compare(_, t, _, _)
            | Op::Math(_, t, _)
            | Op::Reduce(_, _, t, _) => {
                if float(t) {
                    (&mut self.float_other, 1)
                } else if t.is_integer() {
                    (&mut self.int_ops, 1)
                } else {
                    return;
                }
            }
            Op::Pow(..) => (&mut self.float_other, 1),
            _ => return,
        };
        *slot += active * times;
    }
}

/// Counts as the run goes; the sites by (span, memory, write), for source order at the end.
#[derive(Default)]
pub(super) struct Counter {
    sites: BTreeMap<(Span, u8, usize, bool), AccessSite>,
    /// The current request's elements, reused.
    elements: Vec<u64>,
    work: Work,
    pub(super) arrays: Vec<ArrayPlace>,
    /// The conditions of the kernel's tile products' branches on `tensor_cores`
    /// ([`tile_product_conditions`]), and how deep the run is inside such a branch now.
    tile_conditions: Vec<Reg>,
    tile_depth: u32,
}

/// The registers that hold `tensor_cores != 0`: each tile product's branch between `mma` and
/// the FP32 pipe (`ir/tensor_tiles.rs`) tests one.
fn tile_product_conditions(kernel: &Kernel) -> Vec<Reg> {
    let mut present = Vec::new();
    let mut conditions = Vec::new();
    kernel.visit(&mut |stmt| match stmt {
        StmtKind::Let {
            dst,
            op: Op::Ctx(CtxField::TensorCores),
        } => present.push(*dst),
        StmtKind::Let {
            dst,
            op: Op::Compare(_, _, Operand::Reg(r), _),
        } if present.contains(r) => conditions.push(*dst),
        _ => {}
    });
    conditions
}

/// Where PTX keeps a per-thread array: the memory view says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayPlace {
    /// `acc: f32[8]`.
    pub array: String,
    /// Every index a constant: a register per element, no memory traffic. Otherwise `.local`
    /// memory, whose accesses are rows of the profile.
    pub in_registers: bool,
}

impl ArrayPlace {
    pub fn of(kernel: &Kernel) -> Vec<ArrayPlace> {
        kernel
            .locals
            .iter()
            .map(|a| {
                let shape: Vec<String> = a.shape.iter().map(u32::to_string).collect();
                ArrayPlace {
                    array: format!("{}: {}[{}]", a.name, a.element.name(), shape.join(", ")),
                    in_registers: a.in_registers,
                }
            })
            .collect()
    }

    /// "acc: f32[8] in registers (every index a constant)".
    pub fn describe(&self) -> String {
        match self.in_registers {
            true => format!("{} in registers (every index a constant)", self.array),
            false => format!(
                "{} in local memory (an index known at run time)",
                self.array
            ),
        }
    }
}

impl Counter {
    /// A counter for a run of `kernel`.
    pub(super) fn new(kernel: &Kernel) -> Self {
        Self {
            arrays: ArrayPlace::of(kernel),
            tile_conditions: tile_product_conditions(kernel),
            work: Work {
                own_mma: kernel.mma.is_some(),
                ..Work::default()
            },
            ..Self::default()
        }
    }

    /// Whether `stmt` is a tile product's branch on `tensor_cores`; if so, the run is inside
    /// one until [`Counter::leave`].
    pub(super) fn enter(&mut self, stmt: &Stmt) -> bool {
        let entered = matches!(&stmt.kind, StmtKind::If { condition: Operand::Reg(r), .. } if self.tile_conditions.contains(r));
        self.tile_depth += u32::from(entered);
        entered
    }

    pub(super) fn leave(&mut self) {
        self.tile_depth -= 1;
    }

    /// Adds what another thread counted (sums and maxima, so the order does not matter).
    pub(super) fn merge(&mut self, other: Counter) {
        self.work.add(&other.work);
        for place in other.arrays {
            if !self.arrays.contains(&place) {
                self.arrays.push(place);
            }
        }
        for (key, site) in other.sites {
            match self.sites.entry(key) {
                Entry::Vacant(entry) => {
                    entry.insert(site);
                }
                Entry::Occupied(mut entry) => {
                    let into = entry.get_mut();
                    into.requests += site.requests;
                    into.lanes += site.lanes;
                    into.bytes += site.bytes;
                    into.sectors += site.sectors;
                    into.ideal_sectors += site.ideal_sectors;
                    into.lines += site.lines;
                    into.wavefronts += site.wavefronts;
                    into.ideal_wavefronts += site.ideal_wavefronts;
                    into.worst_degree = into.worst_degree.max(site.worst_degree);
                    into.turns += site.turns;
                    into.worst_contention = into.worst_contention.max(site.worst_contention);
                }
            }
        }
    }

    pub(super) fn finish(self) -> MemoryProfile {
        MemoryProfile {
            sites: self.sites.into_values().collect(),
            work: self.work,
            arrays: self.arrays,
        }
    }
}

impl From<MemoryProfile> for Counter {
    fn from(profile: MemoryProfile) -> Self {
        let sites = profile.sites.into_iter().map(|site| {
            let (kind, index) = match site.memory {
                Memory::Tensor(i) => (0, i),
                Memory::Shared(i) => (1, i),
                Memory::Partials => (2, 0),
                Memory::Local(i) => (3, i),
            };
            ((site.span, kind, index, site.write), site)
        });
        Counter {
            sites: sites.collect(),
            elements: Vec::new(),
            work: profile.work,
            arrays: profile.arrays,
            ..Counter::default()
        }
    }
}

impl MemoryProfile {
    /// Adds another run's counts (a program's next launch): the counts of one access in the
    /// source add up, as two threads' counts of one launch do.
    pub fn merge(&mut self, other: MemoryProfile) {
        let mut counter = Counter::from(std::mem::take(self));
        counter.merge(Counter::from(other));
        *self = counter.finish();
    }
}

/// The word an element is stored at: a tensor's element index (row-major), a tile's index in
/// its storage (a padded tile's rows are longer than its shape's), from the element's logical
/// row-major index, as a trace records it.
pub fn stored_word(kernel: &Kernel, memory: Memory, element: u32) -> u64 {
    let Memory::Shared(array) = memory else {
        return u64::from(element);
    };
    let Some(info) = kernel.shared.get(array).filter(|a| a.is_padded()) else {
        return u64::from(element);
    };
    // Row-major coordinates by the shape, then the index by the storage.
    let mut rest = u64::from(element);
    let mut coordinates = vec![0u64; info.shape.len()];
    for (c, &extent) in coordinates.iter_mut().zip(&info.shape).rev() {
        *c = rest % u64::from(extent.max(1));
        rest /= u64::from(extent.max(1));
    }
    coordinates
        .iter()
        .zip(&info.storage)
        .fold(0, |flat, (&c, &extent)| flat * u64::from(extent) + c)
}

/// Bytes in an element of the tensor or tile `memory` of `kernel`.
pub fn element_bytes(kernel: &Kernel, memory: Memory) -> u64 {
    let element = match memory {
        Memory::Tensor(i) => kernel.params.get(i).map(Param::element),
        Memory::Shared(i) => kernel.shared.get(i).map(|a| a.element),
        Memory::Partials | Memory::Local(_) => None, // a 4-byte word
    };
    element.map_or(4, Scalar::size)
}

/// A global request's sector of element `e`, `bytes` bytes an element.
pub fn sector_of(element: u64, bytes: u64) -> u64 {
    element * bytes / SECTOR_BYTES
}

/// The shared-memory word that holds element `e` of a tile, `bytes` bytes an element.
pub fn word_of(element: u64, bytes: u64) -> u64 {
    element * bytes / WORD_BYTES
}

pub fn bank_of(word: u64) -> u64 {
    word % BANKS as u64
}

/// Adds one global request over `elements` (its active lanes' element indices).
fn count_global(site: &mut AccessSite, elements: &mut [u64], bytes: u64) {
    elements.sort_unstable();
    let distinct = distinct_by(elements, |e| e);
    site.bytes += distinct * bytes;
    site.sectors += sectors(elements, bytes);
    site.ideal_sectors += (distinct * bytes).div_ceil(SECTOR_BYTES);
    site.lines += distinct_by(elements, |e| e * bytes / LINE_BYTES);
}

/// Adds one shared request.
fn count_shared(site: &mut AccessSite, elements: &mut [u64]) {
    elements.sort_unstable();
    let degree = conflict_degree(elements);
    site.wavefronts += u64::from(degree);
    site.ideal_wavefronts += distinct_by(elements, |e| e).div_ceil(BANKS as u64);
    site.worst_degree = site.worst_degree.max(degree);
}

/// A CTA collective's shared traffic (the module's rules), for the active lanes `mask` of a
/// CTA of `threads` threads in warps of `lanes`: each warp's store of its result, then each
/// warp's broadcast read of every warp's result.
fn count_partials(counter: &mut Counter, span: Span, mask: &[bool], lanes: u32, threads: usize) {
    let lanes = lanes.max(1) as usize;
    let warps = threads.div_ceil(lanes) as u64;
    for write in [true, false] {
        let site = counter.sites.entry((span, 2, 0, write)).or_insert_with(|| {
            AccessSite::new(span, Memory::Partials, PARTIALS.to_owned(), write, false)
        });
        for warp in (0..threads).step_by(lanes) {
            let end = (warp + lanes).min(threads);
            if !(warp..end).any(|t| mask[t]) {
                continue;
            }
            if write {
                // Lane 0 stores the warp's result: one lane, one word.
                site.requests += 1;
                site.lanes += 1;
                site.wavefronts += 1;
                site.ideal_wavefronts += 1;
            } else {
                // Every warp's result, read by all of this warp's lanes at once (a broadcast),
                // in requests of 32 lanes.
                for start in (warp..end).step_by(REQUEST_LANES) {
                    let active = (start..(start + REQUEST_LANES).min(end))
                        .filter(|&t| mask[t])
                        .count() as u64;
                    if active > 0 {
                        site.requests += warps;
                        site.lanes += active * warps;
                        site.wavefronts += warps;
                        site.ideal_wavefronts += warps;
                    }
                }
            }
            site.worst_degree = site.worst_degree.max(1);
        }
    }
}

/// The most lanes on one element of a request (`elements` sorted): the turns an atomic takes.
fn most_on_one(elements: &[u64]) -> u32 {
    elements
        .chunk_by(|a, b| a == b)
        .map(|run| run.len() as u32)
        .max()
        .unwrap_or(0)
}

/// A shared request's conflict degree: the most distinct words (sorted `words`) in one bank.
pub fn conflict_degree(words: &[u64]) -> u32 {
    let mut per_bank = [0u32; BANKS];
    let mut last = None;
    for &w in words {
        if last != Some(w) {
            per_bank[bank_of(w) as usize] += 1;
            last = Some(w);
        }
    }
    per_bank.into_iter().max().unwrap_or(0)
}

/// A global request's sectors: the distinct 32-byte sectors of (sorted) `elements`.
pub fn sectors(elements: &[u64], bytes: u64) -> u64 {
    distinct_by(elements, |e| sector_of(e, bytes))
}

/// The distinct values of `f` over sorted `elements`, where `f` never decreases.
fn distinct_by(elements: &[u64], f: impl Fn(u64) -> u64) -> u64 {
    let mut count = 0;
    let mut last = None;
    for &e in elements {
        let v = f(e);
        if last != Some(v) {
            count += 1;
            last = Some(v);
        }
    }
    count
}

impl<'a> Cta<'a> {
    /// Before `stmt` runs: counts its arithmetic, and its requests, warp by warp, if it
    /// accesses memory.
    pub(super) fn profile_before(&mut self, stmt: &Stmt, mask: &[bool]) {
        if let (StmtKind::Let { op, .. }, Some(counter)) = (&stmt.kind, self.profile.as_deref_mut())
        {
            let active = mask.iter().filter(|&&m| m).count() as u64;
            match counter.tile_depth {
                0 => counter.work.count(op, active, self.options.lanes),
                _ => {
                    // A tile product's: its floating-point work apart, on whichever unit.
                    let mut work = Work::default();
                    work.count(op, active, self.options.lanes);
                    counter.work.tile_product_flops += work.flops();
                    work.float_adds = 0;
                    work.float_muls = 0;
                    work.float_fmas = 0;
                    counter.work.add(&work);
                }
            }
        }
        if let (StmtKind::Mma { .. }, Some(counter)) = (&stmt.kind, self.profile.as_deref_mut()) {
            let warps =
                mask.iter().filter(|&&m| m).count() as u64 / u64::from(crate::mma::MMA_LANES);
            let flops = warps * u64::from(2 * crate::mma::M * crate::mma::N * crate::mma::K);
            match counter.tile_depth {
                0 => counter.work.tensor_flops += flops,
                _ => counter.work.tile_product_flops += flops,
            }
        }
        if let StmtKind::Let {
            op: Op::Reduce(_, Over::Cta, ..),
            ..
        } = &stmt.kind
        {
            if let Some(counter) = self.profile.as_deref_mut() {
                let lanes = self.options.lanes;
                count_partials(counter, stmt.span, mask, lanes, self.threads);
            }
            return;
        }
        let (memory, indices, write) = match &stmt.kind {
            StmtKind::Let {
                op: Op::Load {
                    tensor, indices, ..
                },
                ..
            } => (Memory::Tensor(*tensor), indices, false),
            StmtKind::Let {
                op: Op::SharedLoad { array, indices },
                ..
            } => (Memory::Shared(*array), indices, false),
            StmtKind::Store {
                tensor, indices, ..
            } => (Memory::Tensor(*tensor), indices, true),
            StmtKind::SharedStore { array, indices, .. } => (Memory::Shared(*array), indices, true),
            StmtKind::Atomic(Atomic {
                place: Place::Tensor { tensor, indices },
                ..
            }) => (Memory::Tensor(*tensor), indices, true),
            StmtKind::Atomic(Atomic {
                place: Place::Shared { array, indices },
                ..
            }) => (Memory::Shared(*array), indices, true),
            StmtKind::Let {
                op: Op::LocalLoad { array, index, .. },
                ..
            } => return self.count_local(*array, *index, stmt.span, mask, false),
            StmtKind::LocalStore { array, index, .. } => {
                return self.count_local(*array, *index, stmt.span, mask, true)
            }
            _ => return,
        };
        let atomic = matches!(stmt.kind, StmtKind::Atomic(_));
        let Some(counter) = self.profile.take() else {
            return;
        };
        self.count_requests(counter, stmt.span, memory, indices, mask, (write, atomic));
        self.profile = Some(counter);
    }

    /// An access to a per-thread array in `.local` memory (none for one in registers): each
    /// warp's request over the words `index * 32 + lane`, 4 bytes each.
    fn count_local(
        &mut self,
        array: usize,
        index: Operand,
        span: Span,
        mask: &[bool],
        write: bool,
    ) {
        let Some(local) = self.kernel.locals.get(array).filter(|a| !a.in_registers) else {
            return;
        };
        let name = local.name.clone();
        let Some(counter) = self.profile.take() else {
            return;
        };
        let site = counter
            .sites
            .entry((span, 3, array, write))
            .or_insert_with(|| AccessSite::new(span, Memory::Local(array), name, write, false));
        let elements = &mut counter.elements;
        let lanes = (self.options.lanes.max(1) as usize).min(REQUEST_LANES);
        for start in (0..self.threads).step_by(lanes) {
            elements.clear();
            let active: Vec<usize> = (start..(start + lanes).min(self.threads))
                .filter(|&t| mask[t])
                .collect();
            if active.is_empty() {
                continue;
            }
            for &t in &active {
                let lane = (t % REQUEST_LANES) as u64;
                elements.push(u64::from(self.get(index, t)) * REQUEST_LANES as u64 + lane);
            }
            site.requests += 1;
            site.lanes += active.len() as u64;
            count_global(site, elements, 4);
        }
        self.profile = Some(counter);
    }

    fn count_requests(
        &self,
        counter: &mut Counter,
        span: Span,
        memory: Memory,
        indices: &[Operand],
        mask: &[bool],
        (write, atomic): (bool, bool),
    ) {
        let (kind, index, name) = match memory {
            Memory::Tensor(i) => match (self.args.params.get(i), self.kernel.params.get(i)) {
                (Some(Arg::Tensor(_)), Some(p)) => (0, i, p.name()),
                _ => return,
            },
            Memory::Shared(i) => match self.kernel.shared.get(i) {
                Some(a) => (1, i, a.name.as_str()),
                None => return,
            },
            Memory::Partials | Memory::Local(_) => return,
        };
        // Where each lane's element is stored: a tensor's row-major index, a tile's index in
        // its storage (a padded tile's rows are one word longer).
        let tensor_shape: &[usize] = match self.args.params.get(index) {
            Some(Arg::Tensor(t)) if kind == 0 => &t.shape,
            _ => &[],
        };
        let stored = |t: usize| match memory {
            Memory::Tensor(_) => self.flat_index(indices, tensor_shape, t),
            Memory::Shared(i) => self
                .kernel
                .shared
                .get(i)
                .and_then(|a| self.stored_index(a, indices, t)),
            Memory::Partials | Memory::Local(_) => None,
        };
        // A 64-bit element moves as its two words (`ir::wide`); a GPU moves it as one 8-byte
        // access, counted at its low word.
        let wide = matches!(memory, Memory::Tensor(_))
            && self
                .kernel
                .params
                .get(index)
                .is_some_and(|p| p.element().is_wide());
        if wide && indices.last() == Some(&Operand::Const(1)) {
            return;
        }
        let site = counter
            .sites
            .entry((span, kind, index, write))
            .or_insert_with(|| AccessSite::new(span, memory, name.to_owned(), write, atomic));
        let elements = &mut counter.elements;
        let bytes = element_bytes(self.kernel, memory);
        // Warps of 32 lanes or fewer make a request each; a wider warp, one per 32 lanes.
        let lanes = (self.options.lanes.max(1) as usize).min(REQUEST_LANES);
        for start in (0..self.threads).step_by(lanes) {
            elements.clear();
            let mut active = 0;
            for t in (start..(start + lanes).min(self.threads)).filter(|&t| mask[t]) {
                active += 1;
                // An element outside is not counted: a tile's guarded access skips it, and an
                // unguarded one faults, which ends the run.
                if let Some(e) = stored(t) {
                    let e = e as u64;
                    elements.push(match memory {
                        Memory::Tensor(_) if wide => e / 2,
                        Memory::Tensor(_) | Memory::Local(_) => e,
                        Memory::Shared(_) | Memory::Partials => word_of(e, bytes),
                    });
                }
            }
            if active == 0 {
                continue;
            }
            site.requests += 1;
            site.lanes += active;
            match memory {
                Memory::Tensor(_) | Memory::Local(_) => count_global(site, elements, bytes),
                Memory::Shared(_) | Memory::Partials => count_shared(site, elements),
            }
            if atomic {
                // Both counts sorted the elements.
                let most = most_on_one(elements);
                site.turns += u64::from(most);
                site.worst_contention = site.worst_contention.max(most);
            }
        }
    }
}

impl MemoryProfile {
    /// Global memory's traffic: every sector the requests moved (32 bytes each), what DRAM
    /// would see with no cache.
    pub fn global_bytes(&self) -> u64 {
        self.global_sites().map(|s| s.sectors * SECTOR_BYTES).sum()
    }

    /// The bytes the global requests asked for (each request's distinct elements).
    pub fn requested_bytes(&self) -> u64 {
        self.global_sites().map(|s| s.bytes).sum()
    }

    /// Shared memory's wavefronts, summed over its requests.
    pub fn shared_wavefronts(&self) -> u64 {
        self.sites
            .iter()
            .filter(|s| s.is_shared())
            .map(|s| s.wavefronts)
            .sum()
    }

    fn global_sites(&self) -> impl Iterator<Item = &AccessSite> {
        self.sites
            .iter()
            .filter(|s| !s.is_shared() && !s.is_local())
    }

    /// Local memory's traffic (per-thread arrays indexed at run time): its sectors' bytes.
    pub fn local_bytes(&self) -> u64 {
        self.sites
            .iter()
            .filter(|s| s.is_local())
            .map(|s| s.sectors * SECTOR_BYTES)
            .sum()
    }

    /// Floating-point operations per byte of global traffic; `None` without traffic.
    pub fn intensity(&self) -> Option<f64> {
        let bytes = self.global_bytes();
        (bytes > 0).then(|| self.work.all_flops() as f64 / bytes as f64)
    }

    /// The run's work in a few lines: floating-point operations, integer operations, global
    /// traffic against what was asked for, shared wavefronts; then its place on each target's
    /// roofline.
    pub fn summary(&self) -> String {
        let w = &self.work;
        let mut text = format!(
            "\nwork: {} floating-point operations ({} adds, {} multiplies, {} fused multiply-adds counting 2; {} other float operations apart), {} integer operations{}\nglobal memory: {} bytes moved in 32-byte sectors, {} bytes asked for; shared memory: {} wavefronts\n",
            w.flops(),
            w.float_adds,
            w.float_muls,
            w.float_fmas,
            w.float_other,
            w.int_ops,
            match w.tensor_flops {
                0 => String::new(),
                n => format!("; {n} floating-point operations on the tensor cores (mma, 4096 a warp)"),
            } + &match w.tile_product_flops {
                0 => String::new(),
                n => format!("; {n} floating-point operations of tile products (2 m n k each: on the tensor cores from sm_80, on the FP32 pipe on sm_70)"),
            },
            self.global_bytes(),
            self.requested_bytes(),
            self.shared_wavefronts()
        );
        if !self.arrays.is_empty() {
            let places: Vec<String> = self.arrays.iter().map(ArrayPlace::describe).collect();
            text += &format!(
                "per-thread arrays on PTX: {}; local memory: {} bytes moved in 32-byte sectors\n",
                places.join("; "),
                self.local_bytes()
            );
        }
        text + &self.roofline_text(None)
    }

    /// The run's place on each target's roofline (`arch`'s alone when given), as
    /// [`MemoryProfile::summary`] ends: empty without global traffic.
    pub fn roofline_text(&self, arch: Option<crate::target::Arch>) -> String {
        let w = &self.work;
        let Some(intensity) = self.intensity() else {
            return String::new();
        };
        let mut text = format!(
            "roofline: {intensity:.3} FLOP/byte; the least time at each GPU's peaks (a bound, not a measurement: no caches, no latency):\n"
        );
        let archs = crate::target::Arch::ALL
            .into_iter()
            .filter(|a| arch.is_none_or(|only| only == *a));
        for arch in archs {
            let peak = arch.peak();
            // What this target's own PTX executes on each unit.
            let Some((flops, tensor_flops)) = w.on(arch) else {
                text += &format!(
                    "  {} {}: no PTX (the kernel's mma needs sm_80 or later, E0522)\n",
                    arch.name(),
                    peak.gpu
                );
                continue;
            };
            let (seconds, bound) = peak.least_seconds(flops, tensor_flops, self.global_bytes());
            let bound = bound.name();
            let tensor = match tensor_flops {
                0 => String::new(),
                _ => format!(
                    ", {:.0} on tensor cores",
                    peak.tensor_flops_per_second / 1e12
                ),
            };
            text += &format!(
                "  {} {} ({:.1} TFLOP/s{tensor}, {:.0} GB/s, ridge {:.1} FLOP/byte): {bound}, at least {:.3} µs\n",
                arch.name(),
                peak.gpu,
                peak.flops_per_second / 1e12,
                peak.bytes_per_second / 1e9,
                peak.ridge(),
                seconds * 1e6
            );
        }
        text
    }

    /// The profile as JSON (`tessera run --profile --json`, Python's `Profile.data`): each
    /// access with its line and column (1-based) and its figures.
    pub fn to_json(&self, source: &str) -> String {
        let profile = self;
        let lines = crate::span::LineIndex::new(source);
        let sites: Vec<serde_json::Value> = profile
            .sites
            .iter()
            .map(|site| {
                let at = lines.line_column(source, site.span.start);
                let mut value = serde_json::to_value(site).unwrap_or_default();
                if let Some(object) = value.as_object_mut() {
                    object.insert("line".into(), at.line.into());
                    object.insert("column".into(), at.column.into());
                    object.insert(
                        "sectors_per_request".into(),
                        site.sectors_per_request().into(),
                    );
                    if site.is_shared() {
                        object.insert("excess_wavefronts".into(), site.excess_wavefronts().into());
                    } else {
                        object.insert("excess_sectors".into(), site.excess_sectors().into());
                    }
                    object.insert("mean_degree".into(), site.mean_degree().into());
                    object.insert("poor".into(), site.is_poor().into());
                }
                value
            })
            .collect();
        serde_json::to_string_pretty(&serde_json::json!({
            "flops": profile.work.flops(),
            "global_bytes": profile.global_bytes(),
            "requested_bytes": profile.requested_bytes(),
            "shared_wavefronts": profile.shared_wavefronts(),
            "work": profile.work,
            "sites": sites,
        }))
        .unwrap_or_default()
    }

    /// The table `tessera run --profile` prints: one row per access, its line and column,
    /// and `!` beside poor figures ([`AccessSite::is_poor`]).
    pub fn to_text(&self, source: &str) -> String {
        let lines = crate::span::LineIndex::new(source);
        let mut text = format!(
            "{:<8} {:<30} {:<13} {:>8} {:>11} {:>14} {:>14} {:>12}\n",
            "line:col",
            "access",
            "memory",
            "requests",
            "sectors/req",
            "excess",
            "bank conflict",
            "contention"
        );
        for site in &self.sites {
            let at = lines.line_column(source, site.span.start);
            let access = site.span.first_line(source);
            let access = if access.chars().count() > 30 {
                format!("{}…", access.chars().take(29).collect::<String>())
            } else {
                access.to_owned()
            };
            let memory = site.kind();
            let (sectors, excess, conflict) = if site.is_shared() {
                let conflict = format!("{}-way, {:.1}", site.worst_degree, site.mean_degree());
                let excess = format!("{} of {}", site.excess_wavefronts(), site.wavefronts);
                (String::new(), excess, conflict)
            } else {
                (
                    format!("{:.2}", site.sectors_per_request()),
                    format!("{} of {}", site.excess_sectors(), site.sectors),
                    String::new(),
                )
            };
            let contention = if site.atomic {
                format!("{}, {:.1}", site.worst_contention, site.mean_contention())
            } else {
                String::new()
            };
            let row = format!(
                "{:<8} {:<30} {:<13} {:>8} {:>11} {:>14} {:>14} {:>12}{}",
                format!("{}:{}", at.line, at.column),
                access,
                memory,
                site.requests,
                sectors,
                excess,
                conflict,
                contention,
                if site.is_poor() { " !" } else { "" }
            );
            text += row.trim_end();
            text.push('\n');
        }
        text += &self.summary();
        text
    }
}
