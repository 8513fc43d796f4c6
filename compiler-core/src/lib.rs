//! Tessera's compiler core: the whole language pipeline as a pure library.
//!
//! In: kernel source text. Out: diagnostics and, for a correct program, the checked kernels
//! (and, as the backends land, each target's output). It does no I/O, so the same code runs
//! in the browser (wasm32), in the CLI and in the tests; whoever calls it supplies files,
//! GPUs and terminals.
//!
//! ```text
//! Source ─▶ syntax (Tokens ─▶ Ast) ─▶ check (types, uniformity) ─▶ Checked
//! ```
//!
//! [`hierarchy`] holds the arithmetic of the launch hierarchy that every stage, the diagram and
//! the docs share.

pub mod check;
pub mod cluster;
pub mod diagnostic;
pub mod examples;
pub mod hierarchy;
pub mod ir;
pub mod launch;
pub mod ptx;
pub mod share;
pub mod sim;
pub mod span;
pub mod syntax;
pub mod wgsl;

pub use check::{Checked, Uniformity};
pub use diagnostic::{Code, Diagnostic, Severity};
pub use span::Span;

/// Everything the front end knows about one source: its tree, what the checker learnt, and
/// every diagnostic of every phase in source order.
pub struct Compilation {
    pub file: syntax::ast::File,
    pub checked: Checked,
    pub diagnostics: Vec<Diagnostic>,
    /// The IR, lowered on first use: the playground asks for it several times per keystroke.
    ir: std::cell::OnceCell<Result<ir::Module, Vec<Diagnostic>>>,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// What the editor shows when the pointer rests at byte `offset`: the name there, its type
    /// and its uniformity, as in `col: i32 · warp-uniform`.
    pub fn hover(&self, offset: usize) -> Option<String> {
        self.checked.name_at(offset).map(check::NameInfo::describe)
    }

    /// The invariant the robustness tests and the fuzzers hold the front end to: every span it
    /// reports (diagnostics, their labels, names) lies inside `source`, on character
    /// boundaries. `Err` says which one does not.
    pub fn check_spans(&self, source: &str) -> Result<(), String> {
        let inside = |span: Span| {
            span.start <= span.end
                && span.end <= source.len()
                && source.is_char_boundary(span.start)
                && source.is_char_boundary(span.end)
        };
        for diagnostic in &self.diagnostics {
            let spans =
                std::iter::once(diagnostic.span).chain(diagnostic.labels.iter().map(|l| l.span));
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
    Compilation {
        file,
        checked,
        diagnostics,
        ir: std::cell::OnceCell::new(),
    }
}

/// What a simulated run produced: every parameter as the kernel left it, and statistics.
pub struct RunOutput {
    pub kernel: ir::Kernel,
    pub args: sim::Args,
    pub stats: sim::Stats,
    /// Who wrote each element last, when the run recorded it ([`Compilation::run_recording`];
    /// not for a kernel under `@cluster`, whose super-tiles are separate launches).
    pub writers: Option<sim::Writers>,
    /// The super-tiles and their nodes, for a kernel under `@cluster`.
    pub cluster: Option<cluster::ClusterRun>,
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
    pub fn kernel(&self, name: Option<&str>) -> Result<ir::Kernel, Vec<Diagnostic>> {
        pick_kernel(self.ir()?, name).map_err(|d| vec![d])
    }

    /// PTX for the kernel `name` (the only kernel when `None`).
    pub fn ptx(
        &self,
        source: &str,
        name: Option<&str>,
        arch: ptx::Arch,
    ) -> Result<ptx::Ptx, Vec<Diagnostic>> {
        Ok(ptx::emit(&self.kernel(name)?, source, arch))
    }

    /// WGSL for the kernel `name`, with `lanes`-wide warps: the GPU's subgroups, or emulated.
    pub fn wgsl(
        &self,
        name: Option<&str>,
        lanes: u32,
        mode: launch::WarpMode,
    ) -> Result<(ir::Kernel, wgsl::Wgsl), Vec<Diagnostic>> {
        let kernel = self.kernel(name)?;
        let wgsl = match mode {
            launch::WarpMode::Subgroups => wgsl::emit(&kernel, lanes),
            launch::WarpMode::Emulated => wgsl::emit_emulated(&kernel, lanes),
        }
        .map_err(|d| vec![d])?;
        Ok((kernel, wgsl))
    }

    /// Runs `launch` on the simulator.
    pub fn run(&self, launch: &launch::Launch) -> Result<RunOutput, Vec<Diagnostic>> {
        self.simulate(launch, false)
    }

    /// Runs `launch` on the simulator, recording which thread wrote each element.
    pub fn run_recording(&self, launch: &launch::Launch) -> Result<RunOutput, Vec<Diagnostic>> {
        self.simulate(launch, true)
    }

    fn simulate(
        &self,
        launch: &launch::Launch,
        record: bool,
    ) -> Result<RunOutput, Vec<Diagnostic>> {
        let kernel = self.kernel(launch.kernel.as_deref())?;
        let mut args = launch.bind(&kernel).map_err(|d| vec![d])?;
        if kernel.cluster.is_some() {
            let nodes = launch.nodes.max(1) as usize;
            let (stats, run) = cluster::simulate(&kernel, &mut args, launch.sim_options(), nodes)
                .map_err(|fault| vec![fault.to_diagnostic()])?;
            return Ok(RunOutput {
                kernel,
                args,
                stats,
                writers: None,
                cluster: Some(run),
            });
        }
        let mut writers = record.then(Vec::new);
        let stats = sim::run_recording(&kernel, &mut args, launch.sim_options(), writers.as_mut())
            .map_err(|fault| vec![fault.to_diagnostic()])?;
        Ok(RunOutput {
            kernel,
            args,
            stats,
            writers,
            cluster: None,
        })
    }
}

/// The kernel a launch names, or the file's only kernel.
pub fn pick_kernel(module: &ir::Module, name: Option<&str>) -> Result<ir::Kernel, Diagnostic> {
    let names: Vec<&str> = module.kernels.iter().map(|k| k.name.as_str()).collect();
    let found = match name {
        Some(name) => module.kernels.iter().find(|k| k.name == name),
        None if module.kernels.len() == 1 => module.kernels.first(),
        None => None,
    };
    found.cloned().ok_or_else(|| {
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
