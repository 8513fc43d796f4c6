//! Tessera's compiler core: the whole language pipeline as a pure library.
//!
//! In: kernel source text (or a file's bytes). Out: diagnostics and, for a correct program,
//! each target's output and runs on the simulator. It does no I/O, so the same code runs in the
//! browser (wasm32), in the CLI and in the tests; whoever calls it supplies files, GPUs and
//! terminals.
//!
//! ```text
//! bytes ─▶ compile_bytes ─┐
//! text  ─▶ compile ───────┴▶ Compilation ─┬▶ ptx(kernel, arch)          PTX text
//!          syntax ─▶ check                ├▶ ir() ─▶ kernel(name)        the IR
//!                                         └▶ prepare(&Launch, limits) ─▶ PreparedRun
//!                                              ├▶ simulate()             sim (the reference)
//!                                              └▶ wgsl(mode)             for runtime::run
//! ```
//!
//! [`hierarchy`] holds the arithmetic of the launch hierarchy that every stage, the diagram and
//! the docs share; [`ir::Scalar`], [`ir::CtxField`] are the vocabulary every phase shares.

pub mod check;
pub mod cluster;
pub mod diagnostic;
pub mod examples;
pub mod grade;
pub mod guard;
pub mod hierarchy;
pub mod ir;
pub mod launch;
pub mod mma;
pub mod npy;
pub mod occupancy;
pub mod program;
pub mod ptx;
pub mod query;
pub mod share;
pub mod sim;
pub mod span;
pub mod syntax;
pub mod target;
pub mod timing;
pub mod wgsl;

pub use check::{Checked, Uniformity};
pub use diagnostic::{Code, Diagnostic, Fix, Severity};
pub use launch::{PreparedRun, RunLimits, RunOutput};
pub use span::Span;
pub use syntax::format::format;

use std::sync::Arc;

/// Everything the front end knows about one source: the source itself, its tree, what the
/// checker learnt, and every diagnostic of every phase in source order.
pub struct Compilation {
    source: Arc<str>,
    pub file: syntax::ast::File,
    pub checked: Checked,
    pub diagnostics: Vec<Diagnostic>,
    /// The IR, lowered on first use: the playground asks for it several times per keystroke.
    ir: std::sync::OnceLock<Result<ir::Module, Vec<Diagnostic>>>,
}

impl Compilation {
    /// The source this compilation is of: what every span indexes.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The invariant the robustness tests and the fuzzers hold the front end to: every span it
    /// reports (diagnostics, their labels, names) lies inside the source, on character
    /// boundaries. `Err` says which one does not.
    pub fn check_spans(&self) -> Result<(), String> {
        let source = self.source();
        let inside = |span: Span| {
            span.start <= span.end
                && span.end <= source.len()
                && source.is_char_boundary(span.start)
                && source.is_char_boundary(span.end)
        };
        for diagnostic in &self.diagnostics {
            let spans = std::iter::once(diagnostic.span)
                .chain(diagnostic.labels.iter().map(|l| l.span))
                .chain(diagnostic.fix.iter().map(|f| f.span));
            for span in spans {
                if !inside(span) {
                    return Err(format!(
                        "{:?} has span {span:?} outside a {}-byte source",
                        diagnostic.code,
                        source.len()
                    ));
                }
            }
        }
        match self.checked.names.iter().find(|name| !inside(name.span)) {
            Some(name) => Err(format!(
                "name {} at {:?} is outside the source",
                name.name, name.span
            )),
            None => Ok(()),
        }
    }
}

/// The front door: parse and check `source`. Never panics, whatever the input.
pub fn compile(source: &str) -> Compilation {
    let (file, mut diagnostics) = syntax::parse(source);
    let checked = check::check(&file);
    diagnostics.extend(checked.diagnostics.iter().cloned());
    diagnostics.sort_by_key(|d| (d.span.start, d.code));
    let mut compilation = Compilation {
        source: source.into(),
        file,
        checked,
        diagnostics,
        ir: std::sync::OnceLock::new(),
    };
    // The lints read the IR, so a source without errors is lowered here (once: `ir` keeps it).
    let warnings: Vec<Diagnostic> = match compilation.ir() {
        Ok(module) => module.kernels.iter().flat_map(ir::lint).collect(),
        Err(_) => Vec::new(),
    };
    if !warnings.is_empty() {
        compilation.diagnostics.extend(warnings);
        compilation
            .diagnostics
            .sort_by_key(|d| (d.span.start, d.code));
    }
    compilation
}

/// The front door for a file's bytes: [`compile`] when they are UTF-8; otherwise a compilation
/// of nothing whose one diagnostic (E0107) points at the first bad byte of the text as shown
/// (each bad sequence replaced by U+FFFD).
pub fn compile_bytes(bytes: &[u8]) -> Compilation {
    match syntax::decode(bytes) {
        Ok(source) => compile(source),
        Err(diagnostic) => Compilation {
            source: String::from_utf8_lossy(bytes).into(),
            file: syntax::ast::File::default(),
            checked: Checked::default(),
            diagnostics: vec![diagnostic],
            ir: std::sync::OnceLock::new(),
        },
    }
}

impl Compilation {
    /// The IR of every kernel, or the diagnostics that prevent it (errors in the source, or a
    /// construct this version cannot run yet).
    pub fn ir(&self) -> Result<&ir::Module, Vec<Diagnostic>> {
        self.ir
            .get_or_init(|| {
                if self.has_errors() {
                    return Err(self.diagnostics.clone());
                }
                ir::lower(&self.file, &self.checked)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The IR of the kernel `name` (the file's only kernel when `None`), or why there is none.
    pub fn kernel(&self, name: Option<&str>) -> Result<&ir::Kernel, Vec<Diagnostic>> {
        pick_kernel(self.ir()?, name).map_err(|d| vec![d])
    }

    /// The names of the kernels that lower (none while the source has errors).
    pub fn kernel_names(&self) -> Vec<String> {
        self.ir()
            .map(|m| m.kernels.iter().map(|k| k.name.clone()).collect())
            .unwrap_or_default()
    }

    /// What a launch may name: the programs, then the kernels (none while the source has
    /// errors).
    pub fn runnable_names(&self) -> Vec<String> {
        self.ir()
            .map(|m| {
                let programs = m.programs.iter().map(|p| p.name.clone());
                programs
                    .chain(m.kernels.iter().map(|k| k.name.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The parameters a launch of `name` binds, as a kernel: the kernel's own, or a program's
    /// signature ([`Compilation::runs_a_program`]).
    pub fn signature(&self, name: Option<&str>) -> Result<&ir::Kernel, Vec<Diagnostic>> {
        if self.runs_a_program(name) {
            return self.program(name).map(|p| &p.signature);
        }
        self.kernel(name)
    }

    /// The tensor parameters a launch of `name` may change (indices into its signature's).
    pub fn written_tensors(&self, name: Option<&str>) -> Vec<usize> {
        let Ok(module) = self.ir() else {
            return Vec::new();
        };
        if self.runs_a_program(name) {
            return self
                .program(name)
                .map(|p| p.written_params(&module.kernels))
                .unwrap_or_default();
        }
        self.kernel(name)
            .map(ir::Kernel::written_tensors)
            .unwrap_or_default()
    }

    /// PTX for the kernel `name` (the only kernel when `None`), or why the target cannot run
    /// it; for a program's name, one module with an entry for each kernel it launches.
    pub fn ptx(&self, name: Option<&str>, arch: ptx::Arch) -> Result<ptx::Ptx, Vec<Diagnostic>> {
        self.ptx_guarded(name, arch, ptx::Guard::Off)
    }

    /// [`Compilation::ptx`] with its loops guarded by `guard` (`tessera ptx --loop-guard`).
    pub fn ptx_guarded(
        &self,
        name: Option<&str>,
        arch: ptx::Arch,
        guard: ptx::Guard,
    ) -> Result<ptx::Ptx, Vec<Diagnostic>> {
        if let Some(program) =
            name.and_then(|n| self.ir().ok()?.programs.iter().find(|p| p.name == n))
        {
            let module = self.ir()?;
            let kernels: Vec<&ir::Kernel> = program
                .kernels()
                .iter()
                .map(|&k| &module.kernels[k])
                .collect();
            return ptx::emit_module(&kernels, self.source(), arch, guard).map_err(|d| vec![d]);
        }
        ptx::emit(self.kernel(name)?, self.source(), arch, guard).map_err(|d| vec![d])
    }

    /// Every kernel of the file in one PTX module, an entry each (`tessera ptx FILE` of a file
    /// with several kernels, a program's among them).
    pub fn ptx_every_kernel(
        &self,
        arch: ptx::Arch,
        guard: ptx::Guard,
    ) -> Result<ptx::Ptx, Vec<Diagnostic>> {
        let kernels: Vec<&ir::Kernel> = self.ir()?.kernels.iter().collect();
        ptx::emit_module(&kernels, self.source(), arch, guard).map_err(|d| vec![d])
    }

    /// WGSL for the kernel `name`, with `lanes`-wide warps: the GPU's subgroups, or emulated.
    pub fn wgsl(
        &self,
        name: Option<&str>,
        lanes: u32,
        mode: wgsl::WarpMode,
    ) -> Result<wgsl::Wgsl, Vec<Diagnostic>> {
        wgsl::emit(self.kernel(name)?, lanes, mode, wgsl::Guard::Off).map_err(|d| vec![d])
    }

    /// `launch` checked against its kernel, within `limits`, and its arguments built: ready to
    /// run on the simulator or a GPU, as often as wanted.
    pub fn prepare(
        &self,
        launch: &launch::Launch,
        limits: RunLimits,
    ) -> Result<PreparedRun<'_>, Vec<Diagnostic>> {
        let kernel = self.kernel(launch.kernel.as_deref())?;
        let signature = self
            .file
            .kernels
            .iter()
            .find(|k| k.name.name == kernel.name);
        PreparedRun::new(kernel, launch, limits, signature)
    }

    /// The program `name`, or the file's only program when `None`.
    pub fn program(&self, name: Option<&str>) -> Result<&ir::Program, Vec<Diagnostic>> {
        let module = self.ir()?;
        let found = match name {
            Some(name) => module.programs.iter().find(|p| p.name == name),
            None if module.programs.len() == 1 => module.programs.first(),
            None => None,
        };
        found.ok_or_else(|| {
            let names: Vec<&str> = module.programs.iter().map(|p| p.name.as_str()).collect();
            let message = match (name, names.as_slice()) {
                (_, []) => "the file has no program".to_owned(),
                (Some(name), _) => format!(
                    "there is no program `{name}`; the file has {}",
                    names.join(", ")
                ),
                (None, _) => format!(
                    "the file has several programs ({}): pick one by name",
                    names.join(", ")
                ),
            };
            vec![Diagnostic::error(Code::E0515, Span::empty(0), message)]
        })
    }

    /// Whether a launch of `name` runs a program: `name` is a program's, or, with no name, the
    /// file has one program (its kernels are its parts, run by name).
    pub fn runs_a_program(&self, name: Option<&str>) -> bool {
        self.ir().is_ok_and(|m| match name {
            Some(name) => m.programs.iter().any(|p| p.name == name),
            None => m.programs.len() == 1,
        })
    }

    /// `launch` bound to a program's signature as a kernel's launch is (its inputs, dimensions
    /// and scalars; its grids come from the program), within `limits`.
    pub fn prepare_program(
        &self,
        launch: &launch::Launch,
        limits: RunLimits,
    ) -> Result<program::PreparedProgram<'_>, Vec<Diagnostic>> {
        let program = self.program(launch.kernel.as_deref())?;
        let source = self
            .file
            .programs
            .iter()
            .find(|p| p.name.name == program.name)
            .map(syntax::ast::Program::signature);
        let run = PreparedRun::new(&program.signature, launch, limits, source.as_ref())?;
        Ok(program::PreparedProgram {
            module: self.ir()?,
            program,
            run,
            max_elements: limits.max_elements,
            max_launches: program::MAX_LAUNCHES,
        })
    }

    /// Runs `launch` on the simulator, with the terminal's limits: the shorthand for tests and
    /// tools that want only the results.
    pub fn run(&self, launch: &launch::Launch) -> Result<RunOutput, Vec<Diagnostic>> {
        self.prepare(launch, RunLimits::TERMINAL)?
            .simulate()
            .map_err(|d| vec![d])
    }
}

/// The kernel a launch names, or the file's only kernel.
fn pick_kernel<'m>(
    module: &'m ir::Module,
    name: Option<&str>,
) -> Result<&'m ir::Kernel, Diagnostic> {
    let names: Vec<&str> = module.kernels.iter().map(|k| k.name.as_str()).collect();
    let found = match name {
        Some(name) => module.kernels.iter().find(|k| k.name == name),
        None if module.kernels.len() == 1 => module.kernels.first(),
        None => None,
    };
    found.ok_or_else(|| {
        let message = match (name, names.as_slice()) {
            (_, []) => "the file has no kernel to run".to_owned(),
            (Some(name), _) => format!(
                "there is no kernel `{name}`; the file has {}",
                names.join(", ")
            ),
            (None, _) => format!(
                "the file has several kernels ({}): pick one with --kernel",
                names.join(", ")
            ),
        };
        Diagnostic::error(Code::E0515, Span::empty(0), message)
    })
}
