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

mod induction;

use crate::ir::Scalar;
use crate::ir::*;
use crate::ir::{Axis, CtxField};
use crate::span::{LineIndex, Span};
use induction::{counting_induction, strided_accesses, Access};
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arch {
    #[default]
    #[serde(rename = "sm_70")]
    Sm70,
    #[serde(rename = "sm_80")]
    Sm80,
    #[serde(rename = "sm_90")]
    Sm90,
}

impl Arch {
    pub const ALL: [Arch; 3] = [Arch::Sm70, Arch::Sm80, Arch::Sm90];

    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm70 => "sm_70",
            Arch::Sm80 => "sm_80",
            Arch::Sm90 => "sm_90",
        }
    }

    /// The lowest PTX ISA version the target accepts.
    pub fn version(self) -> &'static str {
        match self {
            Arch::Sm70 => "6.0",
            Arch::Sm80 => "7.0",
            Arch::Sm90 => "7.8",
        }
    }

    /// `redux.sync` (integer warp reductions in one instruction) exists from sm_80.
    fn has_redux(self) -> bool {
        self != Arch::Sm70
    }
}

impl FromStr for Arch {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| format!("`{text}` is not a target: use sm_70, sm_80 or sm_90"))
    }
}

/// PTX text and where each of its lines came from.
#[derive(Clone, Debug, Serialize)]
pub struct Ptx {
    pub text: String,
    /// (PTX line, 1-based; the source span it was generated from).
    pub line_map: Vec<(usize, Span)>,
}

const WARP: u32 = 32;

/// Emits one kernel.
pub fn emit(kernel: &Kernel, source: &str, arch: Arch) -> Ptx {
    let mut emitter = Emitter::new(kernel, source, arch);
    emitter.prologue();
    emitter.block(&kernel.body);
    emitter.line("ret;", None);
    emitter.finish()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    B32,
    F32,
    Pred,
    B64,
}

struct Emitter<'a> {
    kernel: &'a Kernel,
    source: &'a str,
    index: LineIndex,
    arch: Arch,
    lines: Vec<(String, Option<Span>)>,
    counts: [u32; 4],
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
    uses_partials: bool,
    /// Pointers that advance with the enclosing loops' induction registers.
    strided: Vec<(Access, String)>,
}

fn kind_of(ty: Scalar) -> Kind {
    match ty {
        Scalar::F32 | Scalar::F16 => Kind::F32,
        Scalar::Bool => Kind::Pred,
        _ => Kind::B32,
    }
}

fn suffix(ty: Scalar) -> &'static str {
    match ty {
        Scalar::F32 | Scalar::F16 => "f32",
        Scalar::I32 => "s32",
        Scalar::U32 => "u32",
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
            counts: [0; 4],
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
            uses_partials: false,
            strided: Vec::new(),
        };
        emitter.regs = kernel
            .regs
            .iter()
            .map(|info| emitter.temp(kind_of(info.ty)))
            .collect();
        emitter
    }

    fn temp(&mut self, kind: Kind) -> String {
        let slot = kind as usize;
        self.counts[slot] += 1;
        let prefix = ["%r", "%f", "%p", "%rd"][slot];
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

    /// An operand in a register (for instructions that take no immediate there).
    fn in_reg(&mut self, o: Operand, ty: Scalar) -> String {
        match o {
            Operand::Reg(r) => self.reg(r),
            Operand::Const(_) if ty == Scalar::Bool => self.src(o, ty),
            Operand::Const(bits) => {
                let kind = kind_of(ty);
                let r = self.temp(kind);
                let mov = if kind == Kind::F32 { "f32" } else { "b32" };
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
                    let t = if *ty == Scalar::F32 { "f32" } else { "u32" };
                    self.line(format!("ld.param.{t} {r}, [{name}_param_{p}];"), None);
                    self.params[i] = Some(r);
                }
            }
        }
        for dim in self.kernel.dims.clone() {
            let r = self.temp(Kind::B32);
            self.line(format!("ld.param.u32 {r}, [{name}_dim_{dim}];"), None);
            self.dims.push(r);
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
        if kernel.shared_bytes() > 0 {
            let _ = writeln!(
                header,
                "// Shared memory: {} bytes.",
                kernel.shared_bytes() + if self.uses_partials { 128 } else { 0 }
            );
        }
        let _ = writeln!(header, "//");
        let _ = writeln!(header, ".version {}", self.arch.version());
        let _ = writeln!(header, ".target {}", self.arch.name());
        let _ = writeln!(header, ".address_size 64");
        let _ = writeln!(header);
        let mut params: Vec<String> = Vec::new();
        for p in &kernel.params {
            if let Param::Tensor { name: p, .. } = p {
                params.push(format!("    .param .u64 {name}_param_{p}"));
            }
        }
        for d in &kernel.dims {
            params.push(format!("    .param .u32 {name}_dim_{d}"));
        }
        for p in &kernel.params {
            if let Param::Scalar { name: p, ty } = p {
                let t = if *ty == Scalar::F32 { "f32" } else { "u32" };
                params.push(format!("    .param .{t} {name}_param_{p}"));
            }
        }
        let _ = writeln!(header, ".visible .entry {name}(");
        let _ = writeln!(header, "{}", params.join(",\n"));
        // Every launch uses exactly `@launch` threads; saying so lets ptxas bound %tid.x.
        let _ = writeln!(header, ")");
        let _ = writeln!(header, ".reqntid {}, 1, 1", kernel.threads);
        let _ = writeln!(header, "{{");
        for (kind, count) in ["b32 %r", "f32 %f", "pred %p", "b64 %rd"]
            .iter()
            .zip(self.counts)
        {
            let _ = writeln!(header, "    .reg .{kind}<{}>;", count + 1);
        }
        for (i, array) in kernel.shared.iter().enumerate() {
            let _ = writeln!(
                header,
                "    .shared .align 4 .b8 {name}_tile{i}_{}[{}];",
                array.name,
                array.len() * 4
            );
        }
        if self.uses_partials {
            let _ = writeln!(
                header,
                "    .shared .align 4 .b8 {name}_warp_partials[128];"
            );
        }
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
        Ptx { text, line_map }
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
        for stmt in stmts {
            self.stmt(stmt);
        }
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
                let v = self.in_reg(*value, element);
                let guard = inside.map(|p| format!("@{p} ")).unwrap_or_default();
                self.line(
                    format!("{guard}st.global.{} [{address}], {v};", suffix_b(element)),
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
                let v = self.in_reg(*value, element);
                self.line(
                    format!("st.shared.{} [{address}], {v};", suffix_b(element)),
                    None,
                );
            }
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
        }
        for line in &mut self.lines[start..] {
            if line.1.is_none() && !line.0.ends_with(':') {
                line.1 = span;
            }
        }
    }

    fn element_type(&self, tensor: usize) -> Scalar {
        self.kernel
            .params
            .get(tensor)
            .map_or(Scalar::F32, Param::element)
    }

    /// Before a counting loop: a pointer for each access that moves with its induction
    /// register (see `induction`), and what to add to each pointer per trip.
    fn induction_pointers(&mut self, body: &Block, continuing: &Block) -> Vec<(String, String)> {
        let Some(induction) = counting_induction(body, continuing) else {
            return Vec::new();
        };
        let mut advances = Vec::new();
        for access in strided_accesses(body, continuing, &induction) {
            let (entry, _) = self.address(access.tensor, &access.indices, false);
            let pointer = self.temp(Kind::B64);
            self.line(format!("mov.b64 {pointer}, {entry};"), None);
            let bytes = self.bytes_per_trip(&access, induction.iv, induction.step);
            let tensor = self
                .kernel
                .params
                .get(access.tensor)
                .map_or("", Param::name);
            self.line(
                format!("// {pointer} walks {tensor} with the loop: {bytes} bytes per trip"),
                None,
            );
            advances.push((pointer.clone(), bytes));
            self.strided.push((access, pointer));
        }
        advances
    }

    /// `4 * step * (sum of the strides of the dimensions the induction register indexes)`, as a
    /// 64-bit immediate or register.
    fn bytes_per_trip(&mut self, access: &Access, iv: Reg, step: Operand) -> String {
        let extents = self.extents(access.tensor);
        let mut elements = self.in_reg(step, Scalar::I32);
        let mut stride_sum: Option<String> = None;
        for (position, index) in access.indices.iter().enumerate() {
            if *index != Operand::Reg(iv) {
                continue;
            }
            let mut stride = "1".to_string();
            for extent in &extents[position + 1..] {
                let product = self.temp(Kind::B32);
                self.line(format!("mul.lo.s32 {product}, {extent}, {stride};"), None);
                stride = product;
            }
            stride_sum = Some(match stride_sum {
                None => stride,
                Some(sum) => {
                    let total = self.temp(Kind::B32);
                    self.line(format!("add.s32 {total}, {sum}, {stride};"), None);
                    total
                }
            });
        }
        if let Some(stride) = stride_sum.filter(|s| s != "1") {
            let scaled = self.temp(Kind::B32);
            self.line(format!("mul.lo.s32 {scaled}, {elements}, {stride};"), None);
            elements = scaled;
        }
        let bytes = self.temp(Kind::B64);
        self.line(format!("mul.wide.s32 {bytes}, {elements}, 4;"), None);
        bytes
    }

    fn extents(&self, tensor: usize) -> Vec<String> {
        match self.kernel.params.get(tensor) {
            Some(Param::Tensor { dims, .. }) => dims
                .iter()
                .map(|d| match d {
                    DimRef::Literal(n) => n.to_string(),
                    DimRef::Dim(i) => self.dims.get(*i).cloned().unwrap_or_default(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The global address of `tensor[indices]` and, for a guarded access, the predicate that
    /// says it lies inside the tensor.
    fn address(
        &mut self,
        tensor: usize,
        indices: &[Operand],
        guarded: bool,
    ) -> (String, Option<String>) {
        if !guarded {
            let strided = self
                .strided
                .iter()
                .rev()
                .find(|(a, _)| a.tensor == tensor && a.indices == indices);
            if let Some((_, pointer)) = strided {
                return (pointer.clone(), None);
            }
        }
        let extents = self.extents(tensor);
        let mut inside: Option<String> = None;
        if guarded {
            for (index, extent) in indices.iter().zip(&extents) {
                let i = self.src(*index, Scalar::I32);
                let p = self.temp(Kind::Pred);
                // Unsigned, so a negative index is outside too.
                self.line(format!("setp.lt.u32 {p}, {i}, {extent};"), None);
                inside = Some(match inside {
                    None => p,
                    Some(q) => {
                        self.line(format!("and.pred {q}, {q}, {p};"), None);
                        q
                    }
                });
            }
        }
        let flat = self.flatten(indices, &extents);
        let offset = self.temp(Kind::B64);
        let address = self.temp(Kind::B64);
        let base = self
            .tensors
            .get(tensor)
            .cloned()
            .flatten()
            .unwrap_or_default();
        self.line(format!("mul.wide.s32 {offset}, {flat}, 4;"), None);
        self.line(format!("add.s64 {address}, {base}, {offset};"), None);
        (address, inside)
    }

    /// `((i0 * e1 + i1) * e2 + i2)`, row-major, in a 32-bit register.
    fn flatten(&mut self, indices: &[Operand], extents: &[String]) -> String {
        let first = indices.first().copied().unwrap_or(Operand::Const(0));
        let mut flat = self.in_reg(first, Scalar::I32);
        for (index, extent) in indices.iter().zip(extents).skip(1) {
            let next = self.temp(Kind::B32);
            let i = self.src(*index, Scalar::I32);
            self.line(format!("mad.lo.s32 {next}, {flat}, {extent}, {i};"), None);
            flat = next;
        }
        flat
    }

    fn shared_address(&mut self, array: usize, indices: &[Operand]) -> String {
        let info = &self.kernel.shared[array];
        let extents: Vec<String> = info.shape.iter().map(u32::to_string).collect();
        let symbol = format!("{}_tile{array}_{}", self.kernel.name, info.name);
        let flat = self.flatten(indices, &extents);
        let base = self.temp(Kind::B64);
        let offset = self.temp(Kind::B64);
        let address = self.temp(Kind::B64);
        self.line(format!("mov.u64 {base}, {symbol};"), None);
        self.line(format!("mul.wide.s32 {offset}, {flat}, 4;"), None);
        self.line(format!("add.s64 {address}, {base}, {offset};"), None);
        address
    }

    fn op(&mut self, dst: Reg, op: &Op) {
        let d = self.reg(dst);
        let ty = self.ty(dst);
        match op {
            Op::Copy(a) => {
                let a = self.src(*a, ty);
                let t = match kind_of(ty) {
                    Kind::Pred => "pred",
                    Kind::F32 => "f32",
                    _ => "b32",
                };
                self.line(format!("mov.{t} {d}, {a};"), None);
            }
            Op::Ctx(field) => {
                let value = match field {
                    CtxField::Thread => self.tid.clone(),
                    CtxField::Lane => self.lane.clone(),
                    CtxField::Warp => self.warp.clone(),
                    CtxField::Threads => self.kernel.threads.to_string(),
                    CtxField::Warps => self.kernel.threads.div_ceil(WARP).to_string(),
                    CtxField::Lanes => WARP.to_string(),
                    CtxField::Block(a) => format!("%ctaid.{}", axis(*a)),
                    CtxField::Blocks(a) => format!("%nctaid.{}", axis(*a)),
                };
                self.line(format!("mov.u32 {d}, {value};"), None);
            }
            Op::Dim(i) => {
                let r = self.dims.get(*i).cloned().unwrap_or_default();
                self.line(format!("mov.u32 {d}, {r};"), None);
            }
            Op::Scalar(i) => {
                let r = self.params.get(*i).cloned().flatten().unwrap_or_default();
                let t = if ty == Scalar::F32 { "f32" } else { "b32" };
                self.line(format!("mov.{t} {d}, {r};"), None);
            }
            Op::Unary(u, t, a) => {
                let a = self.src(*a, *t);
                let text = match (u, t) {
                    (UnaryOp::Neg, Scalar::F32) => format!("neg.f32 {d}, {a};"),
                    (UnaryOp::Neg, _) => format!("neg.s32 {d}, {a};"),
                    (UnaryOp::Not, _) => format!("not.pred {d}, {a};"),
                    (UnaryOp::BitNot, _) => format!("not.b32 {d}, {a};"),
                };
                self.line(text, None);
            }
            Op::Binary(b, t, x, y) => self.binary(&d, *b, *t, *x, *y),
            Op::Compare(c, t, x, y) => {
                let x = self.in_reg(*x, *t);
                let y = self.src(*y, *t);
                if *t == Scalar::Bool {
                    self.line(format!("xor.pred {d}, {x}, {y};"), None);
                    if *c == CompareOp::Eq {
                        self.line(format!("not.pred {d}, {d};"), None);
                    }
                    return;
                }
                let name = match c {
                    CompareOp::Lt => "lt",
                    CompareOp::Le => "le",
                    CompareOp::Gt => "gt",
                    CompareOp::Ge => "ge",
                    CompareOp::Eq => "eq",
                    // Unordered: NaN != NaN holds, as in the simulator.
                    CompareOp::Ne if *t == Scalar::F32 => "neu",
                    CompareOp::Ne => "ne",
                };
                self.line(format!("setp.{name}.{} {d}, {x}, {y};", suffix(*t)), None);
            }
            Op::Select(c, a, b) => {
                let p = self.src(*c, Scalar::Bool);
                if ty == Scalar::Bool {
                    let (a, b) = (self.src(*a, ty), self.src(*b, ty));
                    let t = self.temp(Kind::Pred);
                    self.line(format!("and.pred {t}, {p}, {a};"), None);
                    self.line(format!("not.pred {d}, {p};"), None);
                    self.line(format!("and.pred {d}, {d}, {b};"), None);
                    self.line(format!("or.pred {d}, {d}, {t};"), None);
                } else {
                    let (a, b) = (self.src(*a, ty), self.src(*b, ty));
                    let t = if ty == Scalar::F32 { "f32" } else { "b32" };
                    self.line(format!("selp.{t} {d}, {a}, {b}, {p};"), None);
                }
            }
            Op::Fma(a, b, c) => {
                let a = self.in_reg(*a, Scalar::F32);
                let (b, c) = (self.src(*b, Scalar::F32), self.src(*c, Scalar::F32));
                self.line(format!("fma.rn.f32 {d}, {a}, {b}, {c};"), None);
            }
            Op::Math(f, t, a) => self.math(&d, *f, *t, *a),
            Op::Cast { from, to, value } => self.cast(&d, *from, *to, *value),
            Op::Load {
                tensor,
                indices,
                guarded,
            } => {
                let element = self.element_type(*tensor);
                let (address, inside) = self.address(*tensor, indices, *guarded);
                match inside {
                    Some(p) => {
                        self.line(
                            format!("mov.{} {d}, {};", suffix_b(element), immediate(0, element)),
                            None,
                        );
                        self.line(
                            format!("@{p} ld.global.{} {d}, [{address}];", suffix_b(element)),
                            None,
                        );
                    }
                    None => self.line(
                        format!("ld.global.{} {d}, [{address}];", suffix_b(element)),
                        None,
                    ),
                }
            }
            Op::SharedLoad { array, indices } => {
                let element = self.kernel.shared[*array].element;
                let address = self.shared_address(*array, indices);
                self.line(
                    format!("ld.shared.{} {d}, [{address}];", suffix_b(element)),
                    None,
                );
            }
            Op::Reduce(r, over, t, a) => self.reduce(&d, *r, *over, *t, *a),
            Op::Vote(v, a) => {
                let p = self.src(*a, Scalar::Bool);
                let mask = self.mask.clone();
                match v {
                    Vote::Any => self.line(format!("vote.sync.any.pred {d}, {p}, {mask};"), None),
                    Vote::All => self.line(format!("vote.sync.all.pred {d}, {p}, {mask};"), None),
                    Vote::Ballot => {
                        self.line(format!("vote.sync.ballot.b32 {d}, {p}, {mask};"), None)
                    }
                }
            }
            Op::PrefixSum(t, a) => {
                let a = self.src(*a, *t);
                let kind = if *t == Scalar::F32 { "f32" } else { "b32" };
                self.line(format!("mov.{kind} {d}, {a};"), None);
                let mask = self.mask.clone();
                let mut distance = 1;
                while distance < WARP {
                    let shifted = self.temp(kind_of(*t));
                    let from_below = self.temp(Kind::Pred);
                    self.line(
                        format!(
                            "shfl.sync.up.b32 {shifted}|{from_below}, {d}, {distance}, 0, {mask};"
                        ),
                        None,
                    );
                    let add = if *t == Scalar::F32 {
                        "add.rn.f32"
                    } else {
                        "add.s32"
                    };
                    self.line(format!("@{from_below} {add} {d}, {shifted}, {d};"), None);
                    distance *= 2;
                }
            }
            Op::Shuffle(kind, x, l) => self.shuffle(&d, ty, *kind, *x, *l),
        }
    }

    fn binary(&mut self, d: &str, b: BinaryOp, t: Scalar, x: Operand, y: Operand) {
        if let Some(shift) = power_of_two_divisor(b, t, y) {
            let x = self.in_reg(x, t);
            return self.divide_by_power_of_two(d, b, t, &x, shift);
        }
        let x = self.in_reg(x, t);
        let y = self.src(y, t);
        let s = suffix(t);
        let float = t == Scalar::F32;
        let text = match b {
            // `.rn` keeps ptxas from contracting into FMA: results match the simulator.
            BinaryOp::Add if float => format!("add.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Sub if float => format!("sub.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Mul if float => format!("mul.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Div if float => format!("div.rn.f32 {d}, {x}, {y};"),
            BinaryOp::Rem if float => {
                // x - trunc(x / y) * y, as C's fmodf for the values kernels use.
                let q = self.temp(Kind::F32);
                self.line(format!("div.rn.f32 {q}, {x}, {y};"), None);
                self.line(format!("cvt.rzi.f32.f32 {q}, {q};"), None);
                self.line(format!("neg.f32 {q}, {q};"), None);
                format!("fma.rn.f32 {d}, {q}, {y}, {x};")
            }
            BinaryOp::Min => format!("min.{s} {d}, {x}, {y};"),
            BinaryOp::Max => format!("max.{s} {d}, {x}, {y};"),
            BinaryOp::Add => format!("add.{s} {d}, {x}, {y};"),
            BinaryOp::Sub => format!("sub.{s} {d}, {x}, {y};"),
            BinaryOp::Mul => format!("mul.lo.{s} {d}, {x}, {y};"),
            BinaryOp::Div => format!("div.{s} {d}, {x}, {y};"),
            BinaryOp::Rem => format!("rem.{s} {d}, {x}, {y};"),
            BinaryOp::And => format!("and.b32 {d}, {x}, {y};"),
            BinaryOp::Or => format!("or.b32 {d}, {x}, {y};"),
            BinaryOp::Xor => format!("xor.b32 {d}, {x}, {y};"),
            BinaryOp::Shl | BinaryOp::Shr => {
                // Tessera shifts by the count's low 5 bits; PTX would clamp larger counts.
                let count = self.temp(Kind::B32);
                self.line(format!("and.b32 {count}, {y}, 31;"), None);
                let op = match (b, t) {
                    (BinaryOp::Shl, _) => "shl.b32",
                    (_, Scalar::I32) => "shr.s32",
                    _ => "shr.u32",
                };
                format!("{op} {d}, {x}, {count};")
            }
        };
        self.line(text, None);
    }

    /// `x / 2^shift` or `x % 2^shift` with shifts: ptxas divides by a constant in a register
    /// the long way (a reciprocal and corrections), where nvcc's front end would have shifted.
    /// Signed division truncates toward zero, so a negative `x` is biased by `2^shift - 1` first.
    fn divide_by_power_of_two(&mut self, d: &str, b: BinaryOp, t: Scalar, x: &str, shift: u32) {
        let mask = (1u32 << shift) - 1;
        if t == Scalar::U32 {
            let text = if b == BinaryOp::Div {
                format!("shr.u32 {d}, {x}, {shift};")
            } else {
                format!("and.b32 {d}, {x}, {mask};")
            };
            return self.line(text, None);
        }
        if shift == 0 {
            let value = if b == BinaryOp::Div { x } else { "0" };
            return self.line(format!("mov.b32 {d}, {value};"), None);
        }
        let biased = self.temp(Kind::B32);
        self.line(format!("shr.s32 {biased}, {x}, 31;"), None);
        self.line(format!("shr.u32 {biased}, {biased}, {};", 32 - shift), None);
        self.line(format!("add.s32 {biased}, {x}, {biased};"), None);
        if b == BinaryOp::Div {
            self.line(format!("shr.s32 {d}, {biased}, {shift};"), None);
        } else {
            self.line(format!("and.b32 {biased}, {biased}, {};", !mask), None);
            self.line(format!("sub.s32 {d}, {x}, {biased};"), None);
        }
    }

    fn math(&mut self, d: &str, f: MathFn, t: Scalar, a: Operand) {
        let a = self.src(a, t);
        if t != Scalar::F32 {
            let text = match (f, t) {
                (MathFn::Abs, Scalar::I32) => format!("abs.s32 {d}, {a};"),
                _ => format!("mov.b32 {d}, {a};"),
            };
            self.line(text, None);
            return;
        }
        const LOG2_E: &str = "0f3FB8AA3B";
        const LN_2: &str = "0f3F317218";
        match f {
            MathFn::Abs => self.line(format!("abs.f32 {d}, {a};"), None),
            MathFn::Sqrt => self.line(format!("sqrt.rn.f32 {d}, {a};"), None),
            MathFn::Rsqrt => self.line(format!("rsqrt.approx.f32 {d}, {a};"), None),
            MathFn::Exp => {
                self.line(format!("mul.rn.f32 {d}, {a}, {LOG2_E};"), None);
                self.line(format!("ex2.approx.f32 {d}, {d};"), None);
            }
            MathFn::Exp2 => self.line(format!("ex2.approx.f32 {d}, {a};"), None),
            MathFn::Log => {
                self.line(format!("lg2.approx.f32 {d}, {a};"), None);
                self.line(format!("mul.rn.f32 {d}, {d}, {LN_2};"), None);
            }
            MathFn::Log2 => self.line(format!("lg2.approx.f32 {d}, {a};"), None),
            MathFn::Sin => self.line(format!("sin.approx.f32 {d}, {a};"), None),
            MathFn::Cos => self.line(format!("cos.approx.f32 {d}, {a};"), None),
            MathFn::Tanh => {
                // tanh(x) = 1 - 2 / (exp(2x) + 1); tanh.approx needs sm_75.
                let e = self.temp(Kind::F32);
                self.line(format!("mul.rn.f32 {e}, {a}, 0f4038AA3B;"), None);
                self.line(format!("ex2.approx.f32 {e}, {e};"), None);
                self.line(format!("add.rn.f32 {e}, {e}, 0f3F800000;"), None);
                self.line(format!("div.rn.f32 {e}, 0f40000000, {e};"), None);
                self.line(format!("sub.rn.f32 {d}, 0f3F800000, {e};"), None);
            }
            MathFn::Floor => self.line(format!("cvt.rmi.f32.f32 {d}, {a};"), None),
            MathFn::Ceil => self.line(format!("cvt.rpi.f32.f32 {d}, {a};"), None),
        }
    }

    fn cast(&mut self, d: &str, from: Scalar, to: Scalar, value: Operand) {
        let v = self.src(value, from);
        let text = match (from, to) {
            (Scalar::Bool, Scalar::F32) => format!("selp.f32 {d}, 0f3F800000, 0f00000000, {v};"),
            (Scalar::Bool, Scalar::Bool) => format!("mov.pred {d}, {v};"),
            (Scalar::Bool, _) => format!("selp.u32 {d}, 1, 0, {v};"),
            (_, Scalar::Bool) => format!("setp.ne.b32 {d}, {v}, 0;"),
            (Scalar::F32, Scalar::F32) => format!("mov.f32 {d}, {v};"),
            // Saturating, and NaN gives 0, as in the simulator.
            (Scalar::F32, Scalar::I32) => format!("cvt.rzi.sat.s32.f32 {d}, {v};"),
            (Scalar::F32, _) => format!("cvt.rzi.sat.u32.f32 {d}, {v};"),
            (Scalar::I32, Scalar::F32) => format!("cvt.rn.f32.s32 {d}, {v};"),
            (_, Scalar::F32) => format!("cvt.rn.f32.u32 {d}, {v};"),
            _ => format!("mov.b32 {d}, {v};"),
        };
        self.line(text, None);
    }

    /// Whether lane `source` holds a thread: always, unless the last warp is partial.
    fn lane_exists(&mut self, source: &str) -> Option<String> {
        let present = self.present.clone()?;
        let p = self.temp(Kind::Pred);
        self.line(format!("setp.lt.u32 {p}, {source}, {present};"), None);
        Some(p)
    }

    fn warp_butterfly(&mut self, d: &str, r: Reduce, t: Scalar, a: Operand) {
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

    fn combine(&mut self, d: &str, r: Reduce, t: Scalar, other: &str) {
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

    fn reduce(&mut self, d: &str, r: Reduce, over: Over, t: Scalar, a: Operand) {
        self.warp_butterfly(d, r, t, a);
        if over == Over::Warp {
            return;
        }
        // Over the CTA: lane 0 of each warp publishes its warp's result, then every thread
        // combines the warps' results in butterfly order.
        self.uses_partials = true;
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

    fn shuffle(&mut self, d: &str, ty: Scalar, kind: Shuffle, x: Operand, l: Operand) {
        let x = self.in_reg(x, ty);
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

/// The `k` of an integer division or remainder by the constant `2^k`.
fn power_of_two_divisor(b: BinaryOp, t: Scalar, y: Operand) -> Option<u32> {
    let Operand::Const(bits) = y else { return None };
    let integer = matches!(t, Scalar::I32 | Scalar::U32);
    let positive = t == Scalar::U32 || (bits as i32) > 0;
    (matches!(b, BinaryOp::Div | BinaryOp::Rem) && integer && positive && bits.is_power_of_two())
        .then(|| bits.trailing_zeros())
}

fn suffix_b(ty: Scalar) -> &'static str {
    match ty {
        Scalar::F32 | Scalar::F16 => "f32",
        _ => "u32",
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
    use super::*;

    /// Runs the straight-line integer PTX that `divide_by_power_of_two` writes, register by
    /// register, so the shift sequences are checked against Rust's `/` and `%` without a GPU.
    fn run_lines(lines: &[(String, Option<Span>)], x: u32) -> u32 {
        let mut regs = std::collections::HashMap::from([("%x".to_string(), x)]);
        let value = |regs: &std::collections::HashMap<String, u32>, s: &str| {
            regs.get(s)
                .copied()
                .unwrap_or_else(|| s.parse::<i64>().map_or(0, |v| v as u32))
        };
        for (line, _) in lines {
            let line = line.trim().trim_end_matches(';');
            let (op, args) = line.split_once(' ').unwrap_or((line, ""));
            let args: Vec<&str> = args.split(", ").collect();
            let a = value(&regs, args[1]);
            let b = args.get(2).map_or(0, |s| value(&regs, s));
            let result = match op {
                "mov.b32" => a,
                "shr.s32" => ((a as i32) >> b) as u32,
                "shr.u32" => a >> b,
                "add.s32" => a.wrapping_add(b),
                "sub.s32" => a.wrapping_sub(b),
                "and.b32" => a & b,
                other => panic!("unexpected instruction {other}"),
            };
            regs.insert(args[0].to_string(), result);
        }
        regs["%d"]
    }

    fn shifted(b: BinaryOp, t: Scalar, divisor: u32, x: u32) -> u32 {
        let source = "kernel k() {}";
        let kernel = Kernel {
            name: "k".into(),
            threads: 32,
            params: Vec::new(),
            dims: Vec::new(),
            regs: Vec::new(),
            shared: Vec::new(),
            body: Vec::new(),
            span: Span { start: 0, end: 0 },
            cluster: None,
        };
        let mut emitter = Emitter::new(&kernel, source, Arch::Sm70);
        let shift = power_of_two_divisor(b, t, Operand::Const(divisor));
        emitter.divide_by_power_of_two("%d", b, t, "%x", shift.unwrap_or(99));
        run_lines(&emitter.lines, x)
    }

    #[test]
    fn division_by_a_power_of_two_truncates_toward_zero_like_the_simulator() {
        let samples = [
            0,
            1,
            5,
            31,
            32,
            33,
            1000,
            -1,
            -5,
            -31,
            -32,
            -33,
            -1000,
            i32::MAX,
            i32::MIN,
        ];
        for shift in [0, 1, 5, 30] {
            let divisor = 1i32 << shift;
            for x in samples {
                let (q, r) = (x / divisor, x % divisor);
                let div = shifted(BinaryOp::Div, Scalar::I32, divisor as u32, x as u32);
                let rem = shifted(BinaryOp::Rem, Scalar::I32, divisor as u32, x as u32);
                assert_eq!((div as i32, rem as i32), (q, r), "{x} by {divisor}");
                let (ux, ud) = (x as u32, divisor as u32);
                assert_eq!(shifted(BinaryOp::Div, Scalar::U32, ud, ux), ux / ud);
                assert_eq!(shifted(BinaryOp::Rem, Scalar::U32, ud, ux), ux % ud);
            }
        }
    }

    #[test]
    fn only_positive_powers_of_two_become_shifts() {
        let divisor = |bits: u32, t| power_of_two_divisor(BinaryOp::Div, t, Operand::Const(bits));
        assert_eq!(divisor(32, Scalar::I32), Some(5));
        assert_eq!(divisor(1 << 31, Scalar::U32), Some(31));
        assert_eq!(divisor(1 << 31, Scalar::I32), None, "i32::MIN is negative");
        assert_eq!(divisor(24, Scalar::I32), None);
        assert_eq!(divisor(0, Scalar::U32), None);
        assert_eq!(divisor(32, Scalar::F32), None);
        let add = power_of_two_divisor(BinaryOp::Add, Scalar::I32, Operand::Const(32));
        assert_eq!(add, None);
    }
}
