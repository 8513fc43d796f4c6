//! The WGSL backend: an IR kernel to a `naga::Module`, built directly (no WGSL text in
//! between), validated by naga's `Validator`, and written out by naga's WGSL backend.
//!
//! In: an IR kernel and the warp width (`ctx.lanes`, the device's subgroup size in subgroup
//! mode). Out: [`Wgsl`]: the text, the binding layout, the workgroup size.
//!
//! Two modes ([`WarpMode`]). **Subgroups**: warps are the GPU's subgroups, so collectives,
//! votes, scans and shuffles are subgroup built-ins. Lanes are numbered
//! `local_invocation_index % lanes`, which assumes that subgroups are cut from consecutive
//! invocations of a one-dimensional workgroup (true of the drivers we test on). **Emulated**
//! (`emulated`): warps of any width on any GPU, laid out in workgroup memory, the workgroup in
//! uniform control flow with a per-invocation `active` flag, which removes that assumption. In
//! both, shuffles select the caller's own value for a source lane outside the warp, as the
//! simulator does; integer division by zero gives WGSL's result instead of a fault, and
//! unguarded out-of-bounds accesses are clamped, as WGSL specifies.
//!
//! Here: the module's skeleton (bindings, the entry point, validation, writing) and the
//! builder's small tools. Beside it: `memory` (`ctx`, uniforms, pointers), `statements`,
//! `expressions` (each operation), `collectives` (subgroup mode's reductions and shuffles),
//! `emulated` (the emulated-warp mode).
//!
//! Invariants: naga types stop in this module; the module is validated before it is written;
//! the text has no `enable subgroups;` (naga's own parser rejects it): [`Wgsl::browser_text`]
//! prepends it for browsers.

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    self, Axis, CtxField, DimRef, Kernel, Operand, Over, Param, Reduce, Reg, Scalar, Shuffle,
    StmtKind, Vote,
};
use naga::{
    AddressSpace, ArraySize, Barrier, BinaryOperator as B, Binding, Block, BuiltIn,
    CollectiveOperation, EntryPoint, Expression as E, Function, FunctionArgument, GatherMode,
    GlobalVariable, Handle, Literal, LocalVariable, MathFunction, MemoryDecorations, Module,
    ResourceBinding, ScalarKind, ShaderStage, Statement as St, StorageAccess, StructMember,
    SubgroupOperation, Type, TypeInner, UnaryOperator, VectorSize,
};
use serde::{Deserialize, Serialize};
use std::num::NonZeroU32;

mod atomics;
mod collectives;
mod emulated;
mod expressions;
mod guard;
mod memory;
mod packed;
mod statements;

pub use guard::{Guard, GuardLayout, Stopped, DRIVER_CUT};

/// WGSL for one kernel, and how to bind it.
#[derive(Clone, Debug, Serialize)]
pub struct Wgsl {
    /// For native wgpu (without `enable subgroups;`).
    pub text: String,
    /// The entry point: `tessera_` and the kernel's name, which can never collide with a WGSL
    /// built-in (a kernel named `dot` or `transpose` would).
    pub entry_point: String,
    pub workgroup_size: u32,
    pub lanes: u32,
    /// Group 0: one storage buffer per tensor parameter, in parameter order.
    pub tensors: Vec<TensorBinding>,
    /// The binding of the uniform buffer that holds the dimension values, then the scalars.
    pub uniform_binding: u32,
    pub uniform_bytes: u32,
    /// Whether the kernel uses subgroup operations (and needs the `subgroups` feature).
    pub uses_subgroups: bool,
    /// Warps emulated in workgroup memory (otherwise they are the GPU's subgroups).
    pub emulated: bool,
    pub workgroup_bytes: u64,
    /// Where a runaway loop is reported, when the code is guarded ([`Guard::Trips`]).
    pub guard: Option<GuardLayout>,
    /// (line of `text`, 1-based; the source span it was generated from), for the playground's
    /// source ↔ output highlighting. `browser_text` has [`Wgsl::browser_prefix_lines`] more
    /// lines before these.
    pub line_map: Vec<(usize, crate::span::Span)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TensorBinding {
    pub param: usize,
    pub name: String,
    pub binding: u32,
    pub read_only: bool,
}

impl Wgsl {
    /// The text a browser needs: Chrome requires the `enable` directive for subgroup built-ins,
    /// and its uniformity analysis cannot see that a collective under `if col < N` (with `col`
    /// warp-uniform) is reached by whole subgroups; Tessera's checker proved it, so the
    /// `subgroup_uniformity` diagnostic is turned off.
    pub fn browser_text(&self) -> String {
        if self.uses_subgroups {
            format!(
                "enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n{}",
                self.text
            )
        } else {
            self.text.clone()
        }
    }

    /// How many lines `browser_text` adds before `text`.
    pub fn browser_prefix_lines(&self) -> usize {
        if self.uses_subgroups {
            2
        } else {
            0
        }
    }

    /// The header comment that documents the binding layout.
    pub fn header(&self, kernel: &Kernel) -> String {
        let tensors: Vec<String> = self
            .tensors
            .iter()
            .map(|t| {
                format!(
                    "@binding({}) {} ({})",
                    t.binding,
                    t.name,
                    if t.read_only { "read" } else { "read_write" }
                )
            })
            .collect();
        let mut uniforms: Vec<&str> = kernel.dims.iter().map(String::as_str).collect();
        uniforms.extend(
            kernel
                .params
                .iter()
                .filter(|p| matches!(p, Param::Scalar { .. }))
                .map(Param::name),
        );
        format!(
            "// Generated by Tessera {}: kernel {} (entry point {}), {} mode, ctx.lanes = {}.\n// @workgroup_size({}); dispatch (ctx.blocks.x, ctx.blocks.y, ctx.blocks.z) workgroups.\n// @group(0): {}; @binding({}) uniform params: {}.\n",
            env!("CARGO_PKG_VERSION"),
            kernel.name,
            self.entry_point,
            if self.emulated { "emulated-warp" } else { "subgroup" },
            self.lanes,
            self.workgroup_size,
            tensors.join(", "),
            self.uniform_binding,
            if uniforms.is_empty() { "(none)".to_owned() } else { uniforms.join(", ") },
        ) + &match &self.guard {
            Some(g) => format!(
                "// Loops guarded: past {} trips an invocation stops and writes the loop's number to @binding({}) loop_guard.\n",
                g.budget, g.binding
            ),
            None => String::new(),
        }
    }
}

/// How a GPU gives a kernel its `lanes`-wide warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarpMode {
    /// Warps are the GPU's subgroups (when their size is fixed and equals `lanes`).
    #[default]
    Subgroups,
    /// Warps emulated in workgroup memory, any width on any GPU.
    Emulated,
}

/// Builds, validates and writes the WGSL of `kernel` with `lanes`-wide warps: the GPU's
/// subgroups, or emulated in workgroup memory (on any GPU, with no subgroup operations); its
/// loops stop past a trip budget when `guard` says so.
pub fn emit(kernel: &Kernel, lanes: u32, mode: WarpMode, guard: Guard) -> Result<Wgsl, Diagnostic> {
    // A warp width no launch takes (`tessera wgsl --lanes 0`) is the launch's problem, said
    // as a launch says it, never a division by zero below.
    if !(1..=crate::hierarchy::MAX_LANES).contains(&lanes) {
        let problem = crate::hierarchy::ShapeError::Lanes { lanes };
        return Err(Diagnostic::error(
            Code::E0515,
            kernel.span,
            problem.to_string(),
        ));
    }
    // WGSL has no matrix instructions: a warp's `mma` is shuffles and f32 arithmetic.
    let expanded = ir::matrix::first_mma(&kernel.body).map(|_| ir::matrix::expand(kernel));
    let kernel = expanded.as_ref().unwrap_or(kernel);
    // WGSL has no 64-bit integers: such a kernel runs as 32-bit words.
    let split = ir::wide::has_wide(kernel).then(|| ir::wide::split(kernel));
    let kernel = split.as_ref().unwrap_or(kernel);
    let mut builder = Builder::new(kernel, lanes);
    if let Guard::Trips(budget) = guard {
        builder.start_guard(budget);
    }
    let body = match mode {
        WarpMode::Subgroups => builder.block(&kernel.body),
        WarpMode::Emulated => {
            let mut body = Block::new();
            builder.start_emulation(&mut body);
            let rest = builder.block(&kernel.body);
            body.push(St::Block(rest), SP);
            builder.flush(&mut body);
            body
        }
    };
    builder.finish(body)
}

const SP: naga::Span = naga::Span::UNDEFINED;

/// The handle of a scalar type (types are unique in a module: inserting again finds it).
fn scalar_type(module: &mut Module, scalar: naga::Scalar) -> Handle<Type> {
    module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Scalar(scalar),
        },
        SP,
    )
}

/// For each line of `text` that names a baked expression `_eN`, the span of expression N.
/// The type a tensor's or a tile's elements are stored as: atomic where atomics change them
/// (WGSL has atomic i32 and u32 only, so an f32 is held as its bits in an `atomic<u32>`).
fn element_type(module: &mut Module, element: Scalar, atomic: bool) -> Handle<Type> {
    if !atomic {
        return scalar_type(module, naga_scalar(element));
    }
    let scalar = atomic_scalar(element);
    module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Atomic(scalar),
        },
        SP,
    )
}

/// The scalar an atomic element of type `element` holds.
fn atomic_scalar(element: Scalar) -> naga::Scalar {
    if element == Scalar::I32 {
        naga::Scalar::I32
    } else {
        naga::Scalar::U32
    }
}

fn line_map(text: &str, spans: &[naga::Span]) -> Vec<(usize, crate::span::Span)> {
    let mut map = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let found = line.match_indices("_e").find_map(|(at, _)| {
            let digits: String = line[at + 2..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let preceded_by_word = line[..at]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if digits.is_empty() || preceded_by_word {
                return None;
            }
            spans.get(digits.parse::<usize>().ok()?)?.to_range()
        });
        if let Some(range) = found {
            map.push((number + 1, crate::span::Span::new(range.start, range.end)));
        }
    }
    map
}

/// Whether a tensor of `element`s is packed, several elements to a `u32` word (`packed`).
fn is_packed(element: Scalar) -> bool {
    element.size() < 4
}

/// The entry point's name as naga writes it: `tessera_` and the kernel's name, and `_` after a
/// final digit (naga's namer adds one there, to keep names apart from its numbered ones).
fn entry_point_name(kernel: &str) -> String {
    if kernel.ends_with(|c: char| c.is_ascii_digit()) {
        format!("tessera_{kernel}_")
    } else {
        format!("tessera_{kernel}")
    }
}

/// How many statements assign each register: a register assigned once from constants alone
/// is a constant wherever it is read.
fn assignments(kernel: &Kernel) -> Vec<u32> {
    let mut counts = vec![0; kernel.regs.len()];
    kernel.visit(&mut |kind| {
        let dst = match kind {
            StmtKind::Let { dst, .. } => Some(*dst),
            StmtKind::Atomic(atomic) => atomic.dst,
            _ => None,
        };
        if let Some(count) = dst.and_then(|d| counts.get_mut(d.0 as usize)) {
            *count += 1;
        }
    });
    counts
}

fn naga_scalar(ty: Scalar) -> naga::Scalar {
    match ty {
        Scalar::F32 | Scalar::F16 => naga::Scalar::F32,
        Scalar::I32 | Scalar::I8 => naga::Scalar::I32,
        Scalar::U32 | Scalar::U8 | Scalar::I64 | Scalar::U64 => naga::Scalar::U32,
        Scalar::Bool => naga::Scalar::BOOL,
    }
}

fn literal(bits: u32, ty: Scalar) -> Literal {
    match ty {
        Scalar::F32 | Scalar::F16 => Literal::F32(f32::from_bits(bits)),
        Scalar::I32 | Scalar::I8 => Literal::I32(bits as i32),
        Scalar::U32 | Scalar::U8 | Scalar::I64 | Scalar::U64 => Literal::U32(bits),
        Scalar::Bool => Literal::Bool(bits != 0),
    }
}

struct Builder<'k> {
    kernel: &'k Kernel,
    lanes: u32,
    module: Module,
    function: Function,
    emitter: naga::proc::Emitter,
    tensors: Vec<Option<Handle<GlobalVariable>>>,
    bindings: Vec<TensorBinding>,
    params: Handle<GlobalVariable>,
    /// Member of the uniform struct for each dimension, and for each scalar parameter.
    dim_members: Vec<u32>,
    scalar_members: Vec<Option<u32>>,
    uniform_binding: u32,
    uniform_bytes: u32,
    shared: Vec<Handle<GlobalVariable>>,
    /// The tensors (parameter indices) and tiles whose storage is atomic.
    atomic_tensors: Vec<usize>,
    atomic_arrays: Vec<usize>,
    partials: Option<Handle<GlobalVariable>>,
    locals: Vec<Handle<LocalVariable>>,
    /// Each per-thread array: a function-scope `array<T, N>` (an `f16` as its `f32`).
    arrays: Vec<Handle<LocalVariable>>,
    uses_subgroups: bool,
    span: naga::Span,
    /// Set in emulated-warp mode.
    emulation: Option<emulated::Emulation>,
    /// Set when loops are guarded.
    guard: Option<guard::GuardState>,
    /// Per register, its value when it is assigned once, from constants alone (`folded`).
    constants: Vec<Option<u32>>,
    /// Per register, how many statements assign it.
    assignments: Vec<u32>,
}

impl<'k> Builder<'k> {
    fn new(kernel: &'k Kernel, lanes: u32) -> Self {
        let mut module = Module::default();
        let written = kernel.written_tensors();
        let (mut atomic_tensors, atomic_arrays) = kernel.atomic_places();
        // A tensor of f16s or bytes is words of several elements, which a store changes by
        // atomics (`packed`).
        for &i in &written {
            if is_packed(kernel.params[i].element()) && !atomic_tensors.contains(&i) {
                atomic_tensors.push(i);
            }
        }
        let mut tensors = vec![None; kernel.params.len()];
        let mut bindings = Vec::new();
        for (i, param) in kernel.params.iter().enumerate() {
            if let Param::Tensor { name, element, .. } = param {
                let stored = if is_packed(*element) {
                    Scalar::U32
                } else {
                    *element
                };
                let base = element_type(&mut module, stored, atomic_tensors.contains(&i));
                let array = module.types.insert(
                    Type {
                        name: None,
                        inner: TypeInner::Array {
                            base,
                            size: ArraySize::Dynamic,
                            stride: 4,
                        },
                    },
                    SP,
                );
                let read_only = !written.contains(&i);
                let access = if read_only {
                    StorageAccess::LOAD
                } else {
                    StorageAccess::LOAD | StorageAccess::STORE
                };
                let binding = bindings.len() as u32;
                tensors[i] = Some(module.global_variables.append(
                    GlobalVariable {
                        name: Some(name.clone()),
                        space: AddressSpace::Storage { access },
                        binding: Some(ResourceBinding { group: 0, binding }),
                        ty: array,
                        init: None,
                        memory_decorations: MemoryDecorations::empty(),
                    },
                    SP,
                ));
                bindings.push(TensorBinding {
                    param: i,
                    name: name.clone(),
                    binding,
                    read_only,
                });
            }
        }
        // One uniform struct: the dimension values, then the scalars, 4 bytes each (a 64-bit
        // scalar two `u32`s, its low word first, then `NAME_hi`).
        let mut members = Vec::new();
        let i32_t = scalar_type(&mut module, naga::Scalar::I32);
        let mut dim_members = Vec::new();
        for dim in 0..kernel.dims.len() {
            dim_members.push(members.len() as u32);
            members.push(StructMember {
                name: Some(kernel.dim_symbol(dim)),
                ty: i32_t,
                binding: None,
                offset: 4 * members.len() as u32,
            });
        }
        let mut scalar_members = vec![None; kernel.params.len()];
        for (i, param) in kernel.params.iter().enumerate() {
            if let Param::Scalar { name, ty } = param {
                scalar_members[i] = Some(members.len() as u32);
                let t = scalar_type(&mut module, naga_scalar(*ty));
                let mut words = vec![name.clone()];
                if ty.is_wide() {
                    words.push(format!("{name}_hi"));
                }
                for name in words {
                    members.push(StructMember {
                        name: Some(name),
                        ty: t,
                        binding: None,
                        offset: 4 * members.len() as u32,
                    });
                }
            }
        }
        if members.is_empty() {
            members.push(StructMember {
                name: Some("unused".into()),
                ty: i32_t,
                binding: None,
                offset: 0,
            });
        }
        let uniform_bytes = (4 * members.len() as u32).div_ceil(16) * 16;
        let params_t = module.types.insert(
            Type {
                name: Some("Params".into()),
                inner: TypeInner::Struct {
                    members,
                    span: uniform_bytes,
                },
            },
            SP,
        );
        let uniform_binding = bindings.len() as u32;
        let params = module.global_variables.append(
            GlobalVariable {
                name: Some("params".into()),
                space: AddressSpace::Uniform,
                binding: Some(ResourceBinding {
                    group: 0,
                    binding: uniform_binding,
                }),
                ty: params_t,
                init: None,
                memory_decorations: MemoryDecorations::empty(),
            },
            SP,
        );
        let mut shared = Vec::new();
        for (i, array) in kernel.shared.iter().enumerate() {
            let base = element_type(&mut module, array.element, atomic_arrays.contains(&i));
            let size = NonZeroU32::new(array.stored_len_at(lanes).max(1) as u32)
                .map_or(ArraySize::Dynamic, ArraySize::Constant);
            let ty = module.types.insert(
                Type {
                    name: None,
                    inner: TypeInner::Array {
                        base,
                        size,
                        stride: 4,
                    },
                },
                SP,
            );
            shared.push(module.global_variables.append(
                GlobalVariable {
                    name: Some(format!("tile{i}_{}", array.name)),
                    space: AddressSpace::WorkGroup,
                    binding: None,
                    ty,
                    init: None,
                    memory_decorations: MemoryDecorations::empty(),
                },
                SP,
            ));
        }
        let u32_t = scalar_type(&mut module, naga::Scalar::U32);
        let vec3u = module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Vector {
                    size: VectorSize::Tri,
                    scalar: naga::Scalar::U32,
                },
            },
            SP,
        );
        let mut function = Function {
            name: Some(kernel.name.clone()),
            ..Default::default()
        };
        for (name, ty, builtin) in [
            ("local_index", u32_t, BuiltIn::LocalInvocationIndex),
            ("block", vec3u, BuiltIn::WorkGroupId),
            ("blocks", vec3u, BuiltIn::NumWorkGroups),
        ] {
            function.arguments.push(FunctionArgument {
                name: Some(name.into()),
                ty,
                binding: Some(Binding::BuiltIn(builtin)),
            });
        }
        let mut locals = Vec::new();
        for (i, info) in kernel.regs.iter().enumerate() {
            let ty = scalar_type(&mut module, naga_scalar(info.ty));
            let name = info
                .name
                .as_ref()
                .map_or(format!("r{i}"), |n| format!("{n}_{i}"));
            locals.push(function.local_variables.append(
                LocalVariable {
                    name: Some(name),
                    ty,
                    init: None,
                },
                SP,
            ));
        }
        let mut arrays = Vec::new();
        for (i, array) in kernel.locals.iter().enumerate() {
            let base = scalar_type(&mut module, naga_scalar(array.element));
            let size = std::num::NonZeroU32::new(array.len() as u32)
                .map_or(ArraySize::Dynamic, ArraySize::Constant);
            let stride = if array.element == Scalar::Bool { 1 } else { 4 };
            let ty = module.types.insert(
                Type {
                    name: None,
                    inner: TypeInner::Array { base, size, stride },
                },
                SP,
            );
            arrays.push(function.local_variables.append(
                LocalVariable {
                    name: Some(format!("{}_local{i}", array.name)),
                    ty,
                    init: None,
                },
                SP,
            ));
        }
        let mut emitter = naga::proc::Emitter::default();
        emitter.start(&function.expressions);
        Self {
            kernel,
            lanes,
            module,
            function,
            emitter,
            tensors,
            bindings,
            params,
            dim_members,
            scalar_members,
            uniform_binding,
            uniform_bytes,
            shared,
            atomic_tensors,
            atomic_arrays,
            partials: None,
            locals,
            arrays,
            uses_subgroups: false,
            span: SP,
            emulation: None,
            guard: None,
            constants: vec![None; kernel.regs.len()],
            assignments: assignments(kernel),
        }
    }

    fn finish(mut self, body: Block) -> Result<Wgsl, Diagnostic> {
        self.function.body = body;
        let threads = self.kernel.threads;
        let partial_bytes = 4 * u64::from(threads.div_ceil(self.lanes));
        let workgroup_bytes = self.kernel.shared_bytes_at(self.lanes)
            + if self.partials.is_some() {
                partial_bytes
            } else {
                0
            };
        // Spans of every expression and local, read before the function moves into the module:
        // naga names a baked expression `_eN` (N its handle's index), which maps WGSL lines back.
        let expression_spans: Vec<naga::Span> = self
            .function
            .expressions
            .iter()
            .map(|(handle, _)| self.function.expressions.get_span(handle))
            .collect();
        let entry_point = entry_point_name(&self.kernel.name);
        let guard = self.guard_layout();
        self.module.entry_points.push(EntryPoint {
            name: entry_point.clone(),
            stage: ShaderStage::Compute,
            early_depth_test: None,
            workgroup_size: [threads, 1, 1],
            workgroup_size_overrides: None,
            function: self.function,
            mesh_info: None,
            task_payload: None,
            incoming_ray_payload: None,
        });
        let fail = |what: String| {
            Diagnostic::error(
                Code::E0520,
                self.kernel.span,
                format!("the WGSL backend built an invalid module: {what}"),
            )
            .with_help("this is a bug in Tessera; please report it with the kernel")
        };
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::SUBGROUP,
        )
        .validate(&self.module)
        .map_err(|e| fail(format!("{:?}", e.as_inner())))?;
        let text = naga::back::wgsl::write_string(
            &self.module,
            &info,
            naga::back::wgsl::WriterFlags::empty(),
        )
        .map_err(|e| fail(e.to_string()))?;
        let mut wgsl = Wgsl {
            text,
            entry_point,
            workgroup_size: threads,
            lanes: self.lanes,
            tensors: self.bindings,
            uniform_binding: self.uniform_binding,
            uniform_bytes: self.uniform_bytes,
            uses_subgroups: self.uses_subgroups,
            emulated: self.emulation.is_some(),
            workgroup_bytes,
            guard,
            line_map: Vec::new(),
        };
        wgsl.text = format!("{}{}", wgsl.header(self.kernel), wgsl.text);
        wgsl.line_map = line_map(&wgsl.text, &expression_spans);
        Ok(wgsl)
    }

    // ---- expressions and the emitter ----

    /// Ends the pending `Emit` range in `block` and starts a new one.
    fn flush(&mut self, block: &mut Block) {
        if let Some((stmt, span)) = self.emitter.finish(&self.function.expressions) {
            block.push(stmt, span);
        }
        self.emitter.start(&self.function.expressions);
    }

    /// Appends an expression; those that must not be emitted (literals, variables, arguments,
    /// statement results) go between two `Emit` ranges.
    fn add(&mut self, block: &mut Block, expr: E) -> Handle<E> {
        let outside = expr.needs_pre_emit()
            || matches!(
                expr,
                E::SubgroupOperationResult { .. }
                    | E::SubgroupBallotResult
                    | E::WorkGroupUniformLoadResult { .. }
                    | E::AtomicResult { .. }
            );
        if outside {
            if let Some((stmt, span)) = self.emitter.finish(&self.function.expressions) {
                block.push(stmt, span);
            }
            let handle = self.function.expressions.append(expr, self.span);
            self.emitter.start(&self.function.expressions);
            handle
        } else {
            self.function.expressions.append(expr, self.span)
        }
    }

    fn push(&mut self, block: &mut Block, stmt: St) {
        self.flush(block);
        block.push(stmt, self.span);
    }

    fn lit(&mut self, block: &mut Block, literal: Literal) -> Handle<E> {
        self.add(block, E::Literal(literal))
    }

    /// A constant of type `ty` from its bits; an infinite float (a max or min identity), which
    /// WGSL has no literal for, is a bitcast of its bits.
    fn constant(&mut self, block: &mut Block, bits: u32, ty: Scalar) -> Handle<E> {
        if ty.is_float() && !f32::from_bits(bits).is_finite() {
            // Chromium's compiler evaluates a bitcast of a constant and refuses the infinity it
            // makes ("value -inf cannot be represented as 'f32'"): the bits come from a
            // variable, whose load is not a constant expression.
            let loaded = self.run_time_constant(block, "infinity", bits, Scalar::U32);
            return self.bitcast(block, loaded, ScalarKind::Float);
        }
        self.lit(block, literal(bits, ty))
    }

    /// A constant loaded from a variable, so WGSL does not treat it as a constant expression
    /// (which makes an integer division by a constant 0 a shader-creation error).
    fn run_time_constant(
        &mut self,
        block: &mut Block,
        name: &str,
        bits: u32,
        ty: Scalar,
    ) -> Handle<E> {
        let raw = self.lit(block, literal(bits, ty));
        let var = self.initialized_local(name, naga_scalar(ty), raw);
        let pointer = self.add(block, E::LocalVariable(var));
        self.add(block, E::Load { pointer })
    }

    /// `o` as a value of `ty`; an `i32` register where a `u32` is asked for (a `u32` slice
    /// start plus an `i32` offset) is bitcast to it, as WGSL takes no mixed operands.
    fn operand(&mut self, block: &mut Block, o: Operand, ty: Scalar) -> Handle<E> {
        let known = |r: Reg| self.constants.get(r.0 as usize).copied().flatten();
        match o {
            Operand::Reg(r) => match known(r) {
                Some(bits) => self.constant(block, bits, ty),
                None => {
                    let value = self.load_reg(block, r);
                    match (self.reg_ty(r), ty) {
                        (Scalar::I32, Scalar::U32) => self.bitcast(block, value, ScalarKind::Uint),
                        _ => value,
                    }
                }
            },
            Operand::Const(bits) => self.constant(block, bits, ty),
        }
    }

    fn reg_ty(&self, r: Reg) -> Scalar {
        self.kernel
            .regs
            .get(r.0 as usize)
            .map_or(Scalar::I32, |i| i.ty)
    }

    fn load_reg(&mut self, block: &mut Block, r: Reg) -> Handle<E> {
        let local = self.locals[r.0 as usize];
        let pointer = self.add(block, E::LocalVariable(local));
        self.add(block, E::Load { pointer })
    }

    /// A pointer to element `index` of this invocation's array `array`.
    /// Whether `index` is a constant outside per-thread array `array`.
    fn outside_array(&self, array: usize, index: Operand) -> bool {
        matches!(index, Operand::Const(at) if at as usize >= self.kernel.locals[array].len())
    }

    fn array_pointer(&mut self, block: &mut Block, array: usize, index: Operand) -> Handle<E> {
        let index = self.operand(block, index, Scalar::I32);
        let base = self.add(block, E::LocalVariable(self.arrays[array]));
        self.add(block, E::Access { base, index })
    }

    fn store_reg(&mut self, block: &mut Block, r: Reg, value: Handle<E>) {
        let local = self.locals[r.0 as usize];
        let pointer = self.add(block, E::LocalVariable(local));
        self.push(block, St::Store { pointer, value });
    }

    fn binary(&mut self, block: &mut Block, op: B, left: Handle<E>, right: Handle<E>) -> Handle<E> {
        self.add(block, E::Binary { op, left, right })
    }

    fn convert(&mut self, block: &mut Block, expr: Handle<E>, to: Scalar) -> Handle<E> {
        let (kind, width) = match to {
            Scalar::F32 | Scalar::F16 => (ScalarKind::Float, 4),
            Scalar::I32 | Scalar::I8 => (ScalarKind::Sint, 4),
            Scalar::U32 | Scalar::U8 | Scalar::I64 | Scalar::U64 => (ScalarKind::Uint, 4),
            Scalar::Bool => (ScalarKind::Bool, 1),
        };
        self.add(
            block,
            E::As {
                expr,
                kind,
                convert: Some(width),
            },
        )
    }

    fn bitcast(&mut self, block: &mut Block, expr: Handle<E>, kind: ScalarKind) -> Handle<E> {
        self.add(
            block,
            E::As {
                expr,
                kind,
                convert: None,
            },
        )
    }

    // ---- statements ----
}
