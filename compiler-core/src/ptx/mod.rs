//! The PTX backend: an IR kernel to PTX text for NVIDIA GPUs (`ctx.lanes` = 32).
//!
//! In: an IR kernel, the source (for line comments) and an [`Arch`]. Out: [`Ptx`]: the text
//! and a line map (PTX line → source span) for the playground.
//!
//! Invariants: the `.version` is the lowest the target allows (sm_70: 6.0, sm_80: 7.0,
//! sm_90: 7.8), since drivers reject PTX newer than they know; the warp index is
//! `%tid.x / 32`, never `%warpid`; every `*.sync` names exactly the lanes that exist (the last
//! warp's mask is known from `@launch`); float `+ - *` are `.rn` so ptxas does not contract them
//! into FMAs and results match the simulator; warp reductions are xor butterflies (or
//! `redux.sync` for integers on sm_80+), so they match the simulator bit for bit. Two
//! rewrites nvcc's front end would have made before ptxas: counting loops advance a pointer per
//! access (`induction`), and integer division by a power of two is a shift.
//!
//! Here: the targets, the emitter's state, the prologue and the kernel's entry, statements.
//! Beside it: `operations` (each IR operation), `addressing` (tensor and tile addresses),
//! `atomics` (`atom` and `red`),
//! `collectives` (reductions, votes, shuffles) and `induction` (the pointer rewrite).

mod addressing;
mod atomics;
mod collectives;
mod induction;
mod locals;
mod matrix;
mod operations;

use crate::diagnostic::{Code, Diagnostic};
pub use crate::guard::Guard;
use crate::ir::*;
use crate::span::{LineIndex, Span};
pub use crate::target::Arch;
use induction::{counting_induction, strided_accesses, Access};
use serde::Serialize;
use std::fmt::Write;

/// PTX text and where each of its lines came from.
#[derive(Clone, Debug, Serialize)]
pub struct Ptx {
    pub text: String,
    /// (PTX line, 1-based; the source span it was generated from).
    pub line_map: Vec<(usize, Span)>,
    /// The static shared memory the kernel declares (its tiles and the reductions' scratch),
    /// in bytes: what occupancy counts.
    pub shared_bytes: u64,
    /// With a loop guard: its budget, and each guarded loop's span in the source.
    pub loop_guard: Option<LoopGuard>,
}

/// What a guarded kernel's PTX tells its runner.
#[derive(Clone, Debug, Serialize)]
pub struct LoopGuard {
    /// Trips a thread may run of one loop.
    pub budget: u32,
    /// Each guarded loop's span, by number minus one (the number a thread past the budget
    /// writes through the last parameter).
    pub loops: Vec<Span>,
}

impl Ptx {
    /// The loop that ran past the guard's budget, from the guard's word after a launch: `None`
    /// when the word is 0 (every loop ended) or the PTX has no guard.
    pub fn runaway(&self, word: u32) -> Option<Span> {
        let index = usize::try_from(word.checked_sub(1)?).ok()?;
        self.loop_guard.as_ref()?.loops.get(index).copied()
    }
}

const WARP: u32 = 32;

/// One `.param` of a kernel's entry: the order [`entry_params`] gives is the order the PTX
/// declares them and a launch passes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryParam {
    /// A tensor's global address (`.u64`): the kernel's parameter `param`.
    Tensor { param: usize },
    /// A dimension's value (`.u32`): the kernel's dimension `dim`.
    Dim { dim: usize },
    /// A scalar's bits (`.f32`, `.u32`, or `.u64` for a 64-bit one): the kernel's parameter
    /// `param`.
    Scalar { param: usize, ty: Scalar },
    /// The loop guard's word's global address (`.u64`): a `u32`, 0 before the launch.
    LoopGuard,
}

impl EntryParam {
    /// The PTX type of the parameter.
    pub fn ptx_type(self) -> &'static str {
        match self {
            EntryParam::Tensor { .. } | EntryParam::LoopGuard => "u64",
            EntryParam::Dim { .. } => "u32",
            EntryParam::Scalar {
                ty: Scalar::F32, ..
            } => "f32",
            EntryParam::Scalar { ty, .. } if ty.is_wide() => "u64",
            EntryParam::Scalar { .. } => "u32",
        }
    }

    /// The parameter's name in the PTX, e.g. `matvec_param_A`, `matvec_dim_N`.
    pub fn ptx_name(self, kernel: &Kernel) -> String {
        let name = &kernel.name;
        match self {
            EntryParam::Tensor { param } | EntryParam::Scalar { param, .. } => {
                format!("{name}_param_{}", kernel.params[param].name())
            }
            EntryParam::Dim { dim } => format!("{name}_dim_{}", kernel.dim_symbol(dim)),
            EntryParam::LoopGuard => format!("{name}_loop_guard"),
        }
    }
}

/// The entry's parameters, in order: tensor pointers, dimension values, scalars, and with a
/// loop guard its word's pointer last.
pub fn entry_params(kernel: &Kernel, guard: Guard) -> Vec<EntryParam> {
    let tensors = kernel.params.iter().enumerate().filter_map(|(param, p)| {
        matches!(p, Param::Tensor { .. }).then_some(EntryParam::Tensor { param })
    });
    let dims = (0..kernel.dims.len()).map(|dim| EntryParam::Dim { dim });
    let scalars = kernel
        .params
        .iter()
        .enumerate()
        .filter_map(|(param, p)| match p {
            Param::Scalar { ty, .. } => Some(EntryParam::Scalar { param, ty: *ty }),
            Param::Tensor { .. } => None,
        });
    let guard = matches!(guard, Guard::Trips(_)).then_some(EntryParam::LoopGuard);
    tensors.chain(dims).chain(scalars).chain(guard).collect()
}

/// Bytes of `.shared` `kernel`'s PTX declares: its tiles (a slot per 32-lane warp for a CTA
/// scan's totals), and 128 for the warps' partial results of a CTA-wide reduction. Known
/// without emitting (the playground's occupancy, the tiles' padding).
pub fn shared_bytes(kernel: &Kernel) -> u64 {
    kernel.shared_bytes_at(WARP) + if kernel.reduces_over_cta() { 128 } else { 0 }
}

/// Emits one kernel, or says why the target cannot run it (E0521: more shared memory than a
/// CTA may have). With [`Guard::Trips`], the loop guard: a last parameter, `.u64` `NAME_loop_guard`,
/// points to a `u32` that is 0 before the launch; each thread counts its loop trips, and past
/// the budget writes the loop's number there and exits.
/// One PTX module with an entry per kernel, in order (a program's, which its runner launches
/// one after another): each kernel's text as [`emit`] makes it, the `.version`, `.target` and
/// `.address_size` lines once. The line map covers every entry; the shared memory is the
/// largest entry's (each launch has its own).
pub fn emit_module(
    kernels: &[&Kernel],
    source: &str,
    arch: Arch,
    guard: Guard,
) -> Result<Ptx, Diagnostic> {
    let mut module: Option<Ptx> = None;
    for kernel in kernels {
        let ptx = emit(kernel, source, arch, guard)?;
        let Some(whole) = module.as_mut() else {
            module = Some(ptx);
            continue;
        };
        let directive = |line: &str| {
            [".version", ".target", ".address_size"]
                .iter()
                .any(|d| line.starts_with(d))
        };
        let offset = whole.text.lines().count() + 1;
        let mut kept = 0;
        let mut map = ptx.line_map.iter().peekable();
        whole.text.push('\n');
        for (n, line) in ptx.text.lines().enumerate() {
            if directive(line) {
                continue;
            }
            while let Some((at, span)) = map.peek() {
                if *at < n + 1 {
                    map.next();
                } else {
                    if *at == n + 1 {
                        whole.line_map.push((offset + kept, *span));
                    }
                    break;
                }
            }
            whole.text.push_str(line);
            whole.text.push('\n');
            kept += 1;
        }
        whole.shared_bytes = whole.shared_bytes.max(ptx.shared_bytes);
        whole.loop_guard = None;
    }
    module.ok_or_else(|| {
        Diagnostic::error(Code::E0515, Span::empty(0), "a PTX module needs a kernel")
    })
}

/// Why `arch` has no instruction for an operation of `kernel`, if it has none (E0522: the
/// source's own `mma` on sm_70; a tile product's `mma`s sit under `tensor_cores`, 0 on sm_70,
/// whose other branch computes the same product). [`emit`] refuses by it; the playground
/// picks its target by it ([`lowest_arch`]).
pub fn refusal(kernel: &Kernel, arch: Arch) -> Option<Diagnostic> {
    let at = kernel.mma.filter(|_| !arch.has_mma())?;
    Some(Diagnostic::error(
        Code::E0522,
        at,
        format!(
            "kernel `{}` uses mma<over ctx.lane>, and {} has no m16n8k16 matrix instruction",
            kernel.name,
            arch.name()
        ),
    )
    .with_help("choose sm_80 or sm_90 (A100, H100 and later), where mma.sync.m16n8k16 runs on the tensor cores"))
}

/// The lowest target with every operation `kernel` uses and room for its shared memory (as
/// [`shared_bytes`] counts it), if one has: what a host opens its PTX and occupancy on.
pub fn lowest_arch(kernel: &Kernel) -> Option<Arch> {
    let shared = shared_bytes(kernel);
    Arch::ALL
        .into_iter()
        .find(|&arch| refusal(kernel, arch).is_none() && shared <= arch.static_shared_bytes())
}

pub fn emit(kernel: &Kernel, source: &str, arch: Arch, guard: Guard) -> Result<Ptx, Diagnostic> {
    if let Some(refused) = refusal(kernel, arch) {
        return Err(refused);
    }
    let mut emitter = Emitter::new(kernel, source, arch);
    if let Guard::Trips(budget) = guard {
        emitter.guard = Some(PtxGuard {
            budget,
            trips: String::new(),
            word: String::new(),
            loops: Vec::new(),
        });
    }
    emitter.prologue();
    emitter.block(&kernel.body);
    emitter.line("ret;", None);
    emitter.guard_stops();
    let shared = emitter.shared_bytes();
    let most = arch.static_shared_bytes();
    if shared > most {
        return Err(Diagnostic::error(
            Code::E0521,
            Span::empty(kernel.span.start),
            format!(
                "kernel `{}` needs {shared} bytes of shared memory; a CTA on {} may have {most}",
                kernel.name,
                arch.name()
            ),
        )
        .with_help("make the tiles smaller: a 64 x 64 tile of f32 takes 16384 bytes"));
    }
    Ok(emitter.finish())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    B32,
    F32,
    Pred,
    B64,
    /// An `f16` in memory's format, on its way to or from memory.
    B16,
}

struct Emitter<'a> {
    kernel: &'a Kernel,
    source: &'a str,
    index: LineIndex,
    arch: Arch,
    lines: Vec<(String, Option<Span>)>,
    counts: [u32; 5],
    regs: Vec<String>,
    labels: u32,
    loops: Vec<(String, String)>,
    last_line: Option<usize>,
    tensors: Vec<Option<String>>,
    params: Vec<Option<String>>,
    dims: Vec<String>,
    tid: String,
    lane: String,
    warp: String,
    /// The warp's member mask: an immediate when every warp is full.
    mask: String,
    /// Lanes of this warp that hold a thread, when a warp can be partial.
    present: Option<String>,
    /// Pointers that advance with the enclosing loops' induction registers.
    strided: Vec<(Access, String)>,
    guard: Option<PtxGuard>,
    /// Each per-thread array's element registers (none for one in `.local` memory).
    locals: Vec<Vec<String>>,
    /// The `.b16` element register the next `f16` load goes straight into (`block`'s fusion of
    /// a load and the store of it into an `f16` array in registers).
    f16_into: Option<String>,
}

/// The loop guard's registers and the loops it numbered.
struct PtxGuard {
    budget: u32,
    /// The thread's trips of every loop together.
    trips: String,
    /// The global address of the guard's word.
    word: String,
    /// Each loop's span, and the label its threads past the budget go to.
    loops: Vec<(Span, String)>,
}

fn kind_of(ty: Scalar) -> Kind {
    match ty {
        Scalar::F32 | Scalar::F16 => Kind::F32,
        Scalar::Bool => Kind::Pred,
        Scalar::I64 | Scalar::U64 => Kind::B64,
        _ => Kind::B32,
    }
}

/// The `mov`/`selp` type of a register of `ty`.
fn move_type(ty: Scalar) -> &'static str {
    match kind_of(ty) {
        Kind::Pred => "pred",
        Kind::F32 => "f32",
        Kind::B64 => "b64",
        _ => "b32",
    }
}

fn suffix(ty: Scalar) -> &'static str {
    match ty {
        Scalar::F32 | Scalar::F16 => "f32",
        Scalar::I32 | Scalar::I8 => "s32",
        Scalar::U32 | Scalar::U8 => "u32",
        Scalar::I64 => "s64",
        Scalar::U64 => "u64",
        Scalar::Bool => "pred",
    }
}

fn immediate(bits: u32, ty: Scalar) -> String {
    match ty {
        Scalar::F32 | Scalar::F16 => format!("0f{bits:08X}"),
        Scalar::I32 => (bits as i32).to_string(),
        _ => bits.to_string(),
    }
}

fn identity(reduce: Reduce, ty: Scalar) -> String {
    immediate(reduce.identity(ty), ty)
}

impl<'a> Emitter<'a> {
    fn new(kernel: &'a Kernel, source: &'a str, arch: Arch) -> Self {
        let mut emitter = Self {
            kernel,
            source,
            index: LineIndex::new(source),
            arch,
            lines: Vec::new(),
            counts: [0; 5],
            regs: Vec::new(),
            labels: 0,
            loops: Vec::new(),
            last_line: None,
            tensors: vec![None; kernel.params.len()],
            params: vec![None; kernel.params.len()],
            dims: Vec::new(),
            tid: String::new(),
            lane: String::new(),
            warp: String::new(),
            mask: "-1".into(),
            present: None,
            strided: Vec::new(),
            guard: None,
            locals: Vec::new(),
            f16_into: None,
        };
        emitter.regs = kernel
            .regs
            .iter()
            .map(|info| emitter.temp(kind_of(info.ty)))
            .collect();
        emitter.locals = emitter.local_registers();
        emitter
    }

    fn temp(&mut self, kind: Kind) -> String {
        let slot = kind as usize;
        self.counts[slot] += 1;
        let prefix = ["%r", "%f", "%p", "%rd", "%h"][slot];
        format!("{prefix}{}", self.counts[slot])
    }

    fn line(&mut self, text: impl Into<String>, span: Option<Span>) {
        self.lines.push((format!("    {}", text.into()), span));
    }

    fn label(&mut self, name: &str) {
        self.lines.push((format!("{name}:"), None));
    }

    fn fresh_label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}_{}", self.labels)
    }

    fn reg(&self, r: Reg) -> String {
        self.regs.get(r.0 as usize).cloned().unwrap_or_default()
    }

    fn ty(&self, r: Reg) -> Scalar {
        self.kernel
            .regs
            .get(r.0 as usize)
            .map_or(Scalar::I32, |i| i.ty)
    }

    /// An operand as an instruction source: a register or an immediate.
    fn src(&mut self, o: Operand, ty: Scalar) -> String {
        match o {
            Operand::Reg(r) => self.reg(r),
            Operand::Const(bits) if ty == Scalar::Bool => {
                let r = self.temp(Kind::B32);
                let p = self.temp(Kind::Pred);
                self.line(format!("mov.u32 {r}, {bits};"), None);
                self.line(format!("setp.ne.u32 {p}, {r}, 0;"), None);
                p
            }
            Operand::Const(bits) => immediate(bits, ty),
        }
    }

    /// A value as a store of an element of type `element` takes it: an `f16` in its two bytes
    /// (exact: an `f16` register holds an `f16`'s value).
    fn stored(&mut self, value: Operand, element: Scalar) -> String {
        let v = self.in_reg(value, element);
        if element != Scalar::F16 {
            return v;
        }
        let h = self.temp(Kind::B16);
        self.line(format!("cvt.rn.f16.f32 {h}, {v};"), None);
        h
    }

    /// Loads an element of type `element` at `address` in `space` into `d`, under predicate
    /// `p` if given: an `f16` widened to its `f32`.
    fn load(&mut self, d: &str, space: &str, element: Scalar, address: &str, p: Option<&str>) {
        let guard = p.map(|p| format!("@{p} ")).unwrap_or_default();
        if element == Scalar::F16 {
            match (self.f16_into.take(), p) {
                // Into a fragment's element register, which holds +0 where the load is outside.
                (Some(h), Some(_)) => {
                    self.line(format!("mov.b16 {h}, 0x0000;"), None);
                    self.line(format!("{guard}ld.{space}.b16 {h}, [{address}];"), None);
                    self.line(format!("cvt.f32.f16 {d}, {h};"), None);
                }
                (h, _) => {
                    let h = h.unwrap_or_else(|| self.temp(Kind::B16));
                    self.line(format!("{guard}ld.{space}.b16 {h}, [{address}];"), None);
                    self.line(format!("{guard}cvt.f32.f16 {d}, {h};"), None);
                }
            }
        } else {
            let t = memory_type(element);
            self.line(format!("{guard}ld.{space}.{t} {d}, [{address}];"), None);
        }
    }

    /// An operand in a register (for instructions that take no immediate there).
    fn in_reg(&mut self, o: Operand, ty: Scalar) -> String {
        match o {
            Operand::Reg(r) => self.reg(r),
            Operand::Const(_) if ty == Scalar::Bool => self.src(o, ty),
            Operand::Const(bits) => {
                let r = self.temp(kind_of(ty));
                let mov = move_type(ty);
                self.line(format!("mov.{mov} {r}, {};", immediate(bits, ty)), None);
                r
            }
        }
    }

    fn prologue(&mut self) {
        let name = self.kernel.name.clone();
        for (i, param) in self.kernel.params.iter().enumerate() {
            match param {
                Param::Tensor { name: p, .. } => {
                    let raw = self.temp(Kind::B64);
                    let global = self.temp(Kind::B64);
                    self.line(format!("ld.param.u64 {raw}, [{name}_param_{p}];"), None);
                    self.line(format!("cvta.to.global.u64 {global}, {raw};"), None);
                    self.tensors[i] = Some(global);
                }
                Param::Scalar { name: p, ty } => {
                    let r = self.temp(kind_of(*ty));
                    let t = EntryParam::Scalar { param: i, ty: *ty }.ptx_type();
                    self.line(format!("ld.param.{t} {r}, [{name}_param_{p}];"), None);
                    self.params[i] = Some(r);
                }
            }
        }
        for dim in 0..self.kernel.dims.len() {
            let r = self.temp(Kind::B32);
            let dim = self.kernel.dim_symbol(dim);
            self.line(format!("ld.param.u32 {r}, [{name}_dim_{dim}];"), None);
            self.dims.push(r);
        }
        if self.guard.is_some() {
            let (raw, word, trips) = (
                self.temp(Kind::B64),
                self.temp(Kind::B64),
                self.temp(Kind::B32),
            );
            self.line(format!("ld.param.u64 {raw}, [{name}_loop_guard];"), None);
            self.line(format!("cvta.to.global.u64 {word}, {raw};"), None);
            self.line(format!("mov.u32 {trips}, 0;"), None);
            if let Some(guard) = &mut self.guard {
                (guard.word, guard.trips) = (word, trips);
            }
        }
        self.tid = self.temp(Kind::B32);
        self.lane = self.temp(Kind::B32);
        self.warp = self.temp(Kind::B32);
        let (tid, lane, warp) = (self.tid.clone(), self.lane.clone(), self.warp.clone());
        self.line(format!("mov.u32 {tid}, %tid.x;"), None);
        self.line(format!("and.b32 {lane}, {tid}, 31;"), None);
        // The warp index is the thread index over 32: %warpid is not stable across a run.
        self.line(format!("shr.u32 {warp}, {tid}, 5;"), None);
        let threads = self.kernel.threads;
        let tail = threads % WARP;
        if tail != 0 {
            let last = self.temp(Kind::Pred);
            let mask = self.temp(Kind::B32);
            let present = self.temp(Kind::B32);
            let partial = (1u32 << tail) - 1;
            self.line(
                format!("setp.eq.u32 {last}, {warp}, {};", threads / WARP),
                None,
            );
            self.line(
                format!("selp.b32 {mask}, {partial:#010x}, -1, {last};"),
                None,
            );
            self.line(format!("selp.b32 {present}, {tail}, 32, {last};"), None);
            self.mask = mask;
            self.present = Some(present);
        }
    }

    fn shared_bytes(&self) -> u64 {
        shared_bytes(self.kernel)
    }

    fn finish(mut self) -> Ptx {
        let kernel = self.kernel;
        let name = &kernel.name;
        let mut header = String::new();
        let tensors: Vec<&str> = kernel
            .params
            .iter()
            .filter(|p| matches!(p, Param::Tensor { .. }))
            .map(Param::name)
            .collect();
        let scalars: Vec<&str> = kernel
            .params
            .iter()
            .filter(|p| matches!(p, Param::Scalar { .. }))
            .map(Param::name)
            .collect();
        let _ = writeln!(header, "//");
        let _ = writeln!(
            header,
            "// Generated by Tessera {} for {}.",
            env!("CARGO_PKG_VERSION"),
            self.arch.name()
        );
        let _ = writeln!(
            header,
            "// kernel {name}: @launch({}): launch with blockDim = ({}, 1, 1);",
            kernel.threads, kernel.threads
        );
        let _ = writeln!(
            header,
            "//   gridDim = (ctx.blocks.x, ctx.blocks.y, ctx.blocks.z); ctx.lanes = 32."
        );
        let _ = writeln!(header, "// Parameters, in order: tensor pointers ({}), then dimension values ({}), then scalars ({}).", tensors.join(", "), kernel.dims.join(", "), scalars.join(", "));
        if let Some(guard) = &self.guard {
            let _ = writeln!(header, "// Loops guarded: the last parameter points to a u32, 0 before the launch; a thread past {} loop trips", guard.budget);
            let _ = writeln!(
                header,
                "// writes the loop's number there (1 is the first loop below) and exits."
            );
        }
        if self.shared_bytes() > 0 {
            let _ = writeln!(header, "// Shared memory: {} bytes.", self.shared_bytes());
        }
        for array in kernel.shared.iter().filter(|a| a.is_padded()) {
            let _ = writeln!(
                header,
                "// Tile {} is stored with rows of {} words, one more than its {}, so that a column spans 32 banks.",
                array.name, array.storage[1], array.shape[1]
            );
        }
        let _ = writeln!(
            header,
            "// A launch holds tensors of at most {} elements (2^26), a cap that guards memory; indices are 32-bit.",
            crate::target::MAX_ELEMENTS
        );
        let _ = writeln!(
            header,
            "// Unchecked, as on any GPU: an index outside a tensor, and an integer division by zero"
        );
        let _ = writeln!(
            header,
            "// (its result unspecified); the simulator stops at both (E0510, E0511)."
        );
        let _ = writeln!(header, "//");
        let _ = writeln!(header, ".version {}", self.arch.version());
        let _ = writeln!(header, ".target {}", self.arch.name());
        let _ = writeln!(header, ".address_size 64");
        let _ = writeln!(header);
        let guard = match &self.guard {
            Some(guard) => Guard::Trips(guard.budget),
            None => Guard::Off,
        };
        let params: Vec<String> = entry_params(kernel, guard)
            .into_iter()
            .map(|p| format!("    .param .{} {}", p.ptx_type(), p.ptx_name(kernel)))
            .collect();
        let _ = writeln!(header, ".visible .entry {name}(");
        let _ = writeln!(header, "{}", params.join(",\n"));
        // Every launch uses exactly `@launch` threads; saying so lets ptxas bound %tid.x.
        let _ = writeln!(header, ")");
        let _ = writeln!(header, ".reqntid {}, 1, 1", kernel.threads);
        let _ = writeln!(header, "{{");
        for (kind, count) in ["b32 %r", "f32 %f", "pred %p", "b64 %rd", "b16 %h"]
            .iter()
            .zip(self.counts)
            .filter(|(kind, count)| *count > 0 || !kind.starts_with("b16"))
        {
            let _ = writeln!(header, "    .reg .{kind}<{}>;", count + 1);
        }
        for (i, array) in kernel.shared.iter().enumerate() {
            let _ = writeln!(
                header,
                "    .shared .align 4 .b8 {name}_tile{i}_{}[{}];",
                array.name,
                array.stored_len_at(WARP) as u64 * array.element.size()
            );
        }
        if self.kernel.reduces_over_cta() {
            let _ = writeln!(
                header,
                "    .shared .align 4 .b8 {name}_warp_partials[128];"
            );
        }
        header += &self.local_declarations();
        let _ = writeln!(header);
        let mut text = header;
        let mut line_map = Vec::new();
        let first = text.lines().count() + 1;
        for (i, (line, span)) in std::mem::take(&mut self.lines).into_iter().enumerate() {
            text += &line;
            text.push('\n');
            if let Some(span) = span {
                line_map.push((first + i, span));
            }
        }
        text += "}\n";
        let shared_bytes = self.shared_bytes();
        Ptx {
            text,
            line_map,
            shared_bytes,
            loop_guard: self.guard.map(|g| LoopGuard {
                budget: g.budget,
                loops: g.loops.into_iter().map(|(span, _)| span).collect(),
            }),
        }
    }

    /// At the top of the loop at `span`: the thread's trips counted, past the budget to the
    /// loop's stop.
    fn count_trip(&mut self, span: Span) {
        let Some(guard) = &self.guard else { return };
        let (trips, budget) = (guard.trips.clone(), guard.budget);
        let stop = self.fresh_label("guard_stop");
        let over = self.temp(Kind::Pred);
        self.line(format!("add.u32 {trips}, {trips}, 1;"), None);
        self.line(format!("setp.gt.u32 {over}, {trips}, {budget};"), None);
        self.line(format!("@{over} bra {stop};"), None);
        if let Some(guard) = &mut self.guard {
            guard.loops.push((span, stop));
        }
    }

    /// After the kernel's last instruction: each loop's stop writes its number and exits.
    fn guard_stops(&mut self) {
        let Some(guard) = self.guard.take() else {
            return;
        };
        for (number, (_, stop)) in guard.loops.iter().enumerate() {
            self.label(stop);
            self.line(
                format!("st.global.u32 [{}], {};", guard.word, number + 1),
                None,
            );
            self.line("exit;", None);
        }
        self.guard = Some(guard);
    }

    fn comment_source(&mut self, span: Span) {
        let line = self.index.line_of(span.start.min(self.source.len()));
        if self.last_line == Some(line) {
            return;
        }
        self.last_line = Some(line);
        let text = self.index.line_text(self.source, line).trim().to_owned();
        self.lines
            .push((format!("    // {}: {text}", line + 1), Some(span)));
    }

    fn block(&mut self, stmts: &[Stmt]) {
        let mut stored = false;
        for (i, stmt) in stmts.iter().enumerate() {
            if std::mem::take(&mut stored) {
                continue;
            }
            // An `f16` loaded and stored at once into an `f16` array kept in registers (a
            // tensor-core fragment's load): the load goes into the element's `.b16` itself,
            // and the load's own `f32` register is still written from it (dead where, as for a
            // fragment, nothing else reads it: ptxas drops it).
            let fused = stmts
                .get(i + 1)
                .and_then(|next| self.fused_element(stmt, next));
            self.f16_into.clone_from(&fused);
            self.stmt(stmt);
            // The load took the register: the store is done.
            stored = fused.is_some() && self.f16_into.take().is_none();
        }
    }

    /// The `.b16` element register `next` stores `stmt`'s loaded `f16` into, where the two
    /// fuse: an `f16` load into a register that `next` stores, at a constant index, into an
    /// `f16` array in registers (a guarded load's element register is +0 outside).
    fn fused_element(&self, stmt: &Stmt, next: &Stmt) -> Option<String> {
        let StmtKind::Let { dst, op } = &stmt.kind else {
            return None;
        };
        let loads = matches!(op, Op::Load { .. } | Op::SharedLoad { .. });
        let StmtKind::LocalStore {
            array,
            index: Operand::Const(at),
            value: Operand::Reg(stored),
            ..
        } = &next.kind
        else {
            return None;
        };
        (loads && stored == dst && self.ty(*dst) == Scalar::F16)
            .then(|| self.kernel.locals.get(*array))
            .flatten()
            .filter(|a| a.element == Scalar::F16)
            .and_then(|_| self.locals.get(*array)?.get(*at as usize).cloned())
    }

    fn stmt(&mut self, stmt: &Stmt) {
        self.comment_source(stmt.span);
        let span = Some(stmt.span);
        let start = self.lines.len();
        match &stmt.kind {
            StmtKind::Let { dst, op } => self.op(*dst, op),
            StmtKind::Store {
                tensor,
                indices,
                value,
                guarded,
            } => {
                let element = self.element_type(*tensor);
                let (address, inside) = self.address(*tensor, indices, *guarded);
                let v = self.stored(*value, element);
                let guard = inside.map(|p| format!("@{p} ")).unwrap_or_default();
                self.line(
                    format!(
                        "{guard}st.global.{} [{address}], {v};",
                        memory_type(element)
                    ),
                    None,
                );
            }
            StmtKind::SharedStore {
                array,
                indices,
                value,
            } => {
                let element = self.kernel.shared[*array].element;
                let address = self.shared_address(*array, indices);
                let v = self.stored(*value, element);
                self.line(
                    format!("st.shared.{} [{address}], {v};", memory_type(element)),
                    None,
                );
            }
            StmtKind::LocalStore {
                array,
                index,
                value,
                ..
            } => self.local_store(*array, *index, *value),
            StmtKind::Atomic(atomic) => self.atomic(atomic),
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let p = self.src(*condition, Scalar::Bool);
                let end = self.fresh_label("endif");
                if else_block.is_empty() {
                    self.line(format!("@!{p} bra {end};"), span);
                    self.block(then_block);
                } else {
                    let otherwise = self.fresh_label("else");
                    self.line(format!("@!{p} bra {otherwise};"), span);
                    self.block(then_block);
                    self.line(format!("bra {end};"), span);
                    self.label(&otherwise);
                    self.block(else_block);
                }
                self.label(&end);
            }
            StmtKind::Loop { body, continuing } => {
                let (top, next, done) = (
                    self.fresh_label("loop"),
                    self.fresh_label("continue"),
                    self.fresh_label("break"),
                );
                let outer_pointers = self.strided.len();
                let advances = self.induction_pointers(body, continuing);
                self.label(&top);
                self.count_trip(stmt.span);
                self.loops.push((next.clone(), done.clone()));
                self.block(body);
                self.label(&next);
                self.block(continuing);
                for (pointer, bytes) in advances {
                    self.line(format!("add.s64 {pointer}, {pointer}, {bytes};"), None);
                }
                self.loops.pop();
                self.line(format!("bra {top};"), span);
                self.label(&done);
                self.strided.truncate(outer_pointers);
            }
            StmtKind::Break => {
                if let Some((_, done)) = self.loops.last().cloned() {
                    self.line(format!("bra {done};"), span);
                }
            }
            StmtKind::Continue => {
                if let Some((next, _)) = self.loops.last().cloned() {
                    self.line(format!("bra {next};"), span);
                }
            }
            StmtKind::Return => self.line("ret;", span),
            StmtKind::Barrier => self.line("bar.sync 0;", span),
            StmtKind::Mma { a, b, c, d } => self.mma(*a, *b, *c, *d),
        }
        for line in &mut self.lines[start..] {
            if line.1.is_none() && !line.0.ends_with(':') {
                line.1 = span;
            }
        }
    }
}

fn suffix_b(ty: Scalar) -> &'static str {
    match ty {
        Scalar::F32 | Scalar::F16 => "f32",
        Scalar::I64 | Scalar::U64 => "u64",
        _ => "u32",
    }
}

/// The type of a load or store of an element: an `f16` moves as its two bytes, an 8-bit
/// integer as its byte (a load sign- or zero-extends it into the 32-bit register, a store keeps
/// the register's low byte).
fn memory_type(ty: Scalar) -> &'static str {
    match ty {
        Scalar::F16 => "b16",
        Scalar::I8 => "s8",
        Scalar::U8 => "u8",
        _ => suffix_b(ty),
    }
}

fn axis(a: Axis) -> &'static str {
    match a {
        Axis::X => "x",
        Axis::Y => "y",
        Axis::Z => "z",
    }
}

#[cfg(test)]
mod tests {
    use super::Arch;

    #[test]
    fn a_gpu_runs_the_newest_target_its_compute_capability_allows() {
        let pick = |major, minor| Arch::for_compute_capability(major, minor);
        assert_eq!(pick(6, 1), None);
        assert_eq!(pick(7, 0), Some(Arch::Sm70));
        assert_eq!(pick(7, 5), Some(Arch::Sm70));
        assert_eq!(pick(8, 6), Some(Arch::Sm80));
        assert_eq!(pick(8, 9), Some(Arch::Sm80));
        assert_eq!(pick(9, 0), Some(Arch::Sm90));
        assert_eq!(pick(12, 0), Some(Arch::Sm90));
    }

    /// A host opens a kernel's PTX on the lowest target that builds it: sm_80 for its own
    /// `mma`, sm_70 for a tile product (whose other branch runs there) and anything else.
    #[test]
    fn the_lowest_target_is_the_first_that_builds_the_kernel() {
        let lowest = |name: &str| {
            let example = crate::examples::find(name).unwrap_or_else(|| panic!("{name}"));
            let compilation = crate::compile(example.source);
            let kernel = compilation.kernel(None).unwrap_or_else(|d| panic!("{d:?}"));
            let refused: Vec<Arch> = Arch::ALL
                .into_iter()
                .filter(|&a| super::refusal(kernel, a).is_some())
                .collect();
            (super::lowest_arch(kernel), refused)
        };
        assert_eq!(lowest("mma_gemm"), (Some(Arch::Sm80), vec![Arch::Sm70]));
        assert_eq!(lowest("gemm_f16_f32"), (Some(Arch::Sm70), vec![]));
        assert_eq!(lowest("saxpy"), (Some(Arch::Sm70), vec![]));
    }
}
