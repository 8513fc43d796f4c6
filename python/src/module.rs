//! `tessera.Module`: a compiled file. Its compiled forms (`ir`, `ptx`, `wgsl`), its runs
//! (`run`) and their memory counts (`profile`), and its occupancy, each through the call
//! `tessera`'s command line makes.

use crate::arrays;
use crate::charts::{Chart, Profile};
use crate::errors::{diagnosed, error, objects, warn};
use crate::launch_args::LaunchArgs;
use crate::watch::{Watch, Watched};
use compiler_core::ir::{Kernel, Param};
use compiler_core::launch::Launch;
use compiler_core::ptx::Arch;
use compiler_core::sim::{Arg, MemoryProfile, Stats};
use compiler_core::wgsl::WarpMode;
use compiler_core::{Compilation, RunLimits};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use runtime::{Backend, Failure};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// A compiled Tessera file: `tessera.compile(source)`.
#[pyclass(frozen, module = "tessera._tessera")]
pub struct Module {
    pub(crate) compilation: Compilation,
    /// The file's name in messages.
    pub(crate) name: String,
}

impl Module {
    /// Compiles `source`; its warnings are issued through Python's `warnings`, each as
    /// `tessera check` prints it, and stay in `Module.warnings`.
    pub fn compile(py: Python<'_>, source: &str, name: &str) -> PyResult<Module> {
        let compilation = compiler_core::compile(source);
        if let Err(diagnostics) = compilation.ir() {
            return Err(diagnosed(py, "CompileError", &diagnostics, source, name));
        }
        for warning in &compilation.diagnostics {
            let text =
                compiler_core::diagnostic::render_all(std::slice::from_ref(warning), source, name);
            // Past `tessera.compile` or `tessera.load`, to the reader's line.
            warn(py, text.trim_end(), 2)?;
        }
        Ok(Module {
            compilation,
            name: name.to_owned(),
        })
    }

    pub(crate) fn source(&self) -> &str {
        self.compilation.source()
    }

    /// The exception `kind` for `diagnostics` of this file.
    pub(crate) fn diagnosed(
        &self,
        py: Python<'_>,
        kind: &str,
        diagnostics: &[compiler_core::Diagnostic],
    ) -> PyErr {
        diagnosed(py, kind, diagnostics, self.source(), &self.name)
    }

    /// The kernel `name` (the file's only kernel when `None`).
    fn kernel(&self, py: Python<'_>, name: Option<&str>) -> PyResult<&Kernel> {
        self.compilation
            .kernel(name)
            .map_err(|d| self.launch_error(py, &d))
    }

    /// A kernel run without `grid=`: Triton and Numba refuse it too, since one CTA (what the
    /// command line's default would run) covers a small part of most launches and leaves the
    /// rest as it was, silently. The message suggests grids from the shape of the first
    /// tensor the kernel writes: a CTA per row, and a thread per element.
    pub(crate) fn no_grid(&self, py: Python<'_>, launch: &Launch, kernel: &Kernel) -> PyErr {
        let prepared = match self.compilation.prepare(launch, limits(1)) {
            Ok(prepared) => prepared,
            Err(diagnostics) => return self.diagnosed(py, "LaunchError", &diagnostics),
        };
        let written = self.compilation.written_tensors(Some(&kernel.name));
        let shape = written
            .first()
            .and_then(|&i| match &prepared.args.params[i] {
                Arg::Tensor(t) => Some((kernel.params[i].name(), t.shape.clone())),
                Arg::Scalar(_) => None,
            });
        let mut text = format!(
            "`{}` needs grid=, its CTAs: a kernel runs on the grid it is given, and without one a single CTA would run",
            kernel.name
        );
        if let Some((name, shape)) = shape {
            let elements: usize = shape.iter().product();
            let threads = kernel.threads.max(1) as usize;
            let per_thread = elements.div_ceil(threads);
            let rows = shape.len() > 1 && shape[0] > 1;
            text += &match rows {
                true => format!(
                    ": grid=({},) gives a CTA to each row of `{name}` ({} rows), grid=({per_thread},) a thread to each of its {elements} elements ({threads} threads a CTA)",
                    shape[0], shape[0]
                ),
                false => format!(
                    ": grid=({per_thread},) gives a thread to each of the {elements} elements of `{name}` ({threads} threads a CTA)"
                ),
            };
        }
        error(py, "LaunchError", text)
    }

    /// A launch that names nothing runnable: the command line's `error: …` lines.
    pub(crate) fn launch_error(
        &self,
        py: Python<'_>,
        diagnostics: &[compiler_core::Diagnostic],
    ) -> PyErr {
        // The one message of the core's that names a flag outside a launch's problems (which
        // `limits` spells for Python): which kernel, when the file has several.
        let text: Vec<String> = diagnostics
            .iter()
            .map(|d| {
                d.message.replace(
                    ": pick one with --kernel",
                    ": name one, as `m.run(\"NAME\", …)` does",
                )
            })
            .collect();
        error(py, "LaunchError", text.join("\n"))
    }

    /// Runs the launch `args` describes on `backend`, with progress and Ctrl-C; `profile`
    /// also counts its memory requests (the simulator only).
    fn execute(
        &self,
        py: Python<'_>,
        args: &LaunchArgs<'_>,
        backend: &str,
        emulate_warps: bool,
        progress: bool,
        profile: bool,
    ) -> PyResult<(Py<PyAny>, Option<MemoryProfile>)> {
        let name = args.name.as_deref();
        let program = self.compilation.runs_a_program(name);
        let signature = self
            .compilation
            .signature(name)
            .map_err(|d| self.launch_error(py, &d))?;
        if program && args.grid.is_some() {
            return Err(error(
                py,
                "LaunchError",
                "a program computes each launch's grid: leave out grid=".to_owned(),
            ));
        }
        // Before a device is opened: the counts are the simulator's (`tessera run --profile`).
        if profile && backend != "sim" {
            return Err(error(
                py,
                "LaunchError",
                format!("the memory counts come from the simulator: leave out backend= (it was {backend:?}), or run() on {backend:?} for its results and GPU time"),
            ));
        }
        let launch = args.to_launch(py, signature)?;
        if !program && args.grid.is_none() {
            return Err(self.no_grid(py, &launch, signature));
        }
        let lanes = launch.lanes;
        let opened =
            open(backend, emulate_warps, lanes).map_err(|why| error(py, "BackendError", why))?;
        let threads = args.threads.map_or_else(cores, |n| n.max(1) as usize);
        let watch = Watch::default();
        let started = Instant::now();
        let source = self.source();
        let (ran, counts, info) = if program {
            let mut prepared = self
                .compilation
                .prepare_program(&launch, limits(threads))
                .map_err(|d| self.diagnosed(py, "LaunchError", &d))?;
            // The prepared run holds the arguments now: the launch's copy of the data goes.
            drop(launch);
            prepared.run.options.threads = threads;
            prepared.run.stop = Some(Arc::clone(&watch.stop));
            let outcome = watch.run(py, 0, "launches", false, || {
                match opened.run_program(&prepared, source) {
                    Some(ran) => (ran, None),
                    None if profile => {
                        let (ran, counts) = prepared.simulate_profiled();
                        (ran.map_err(Failure::Source), Some(counts))
                    }
                    None => (prepared.simulate().map_err(Failure::Source), None),
                }
            });
            let (result, counts) = self.finished(outcome)?;
            let output = self.ran(py, &opened, result)?;
            let launches: Vec<(String, (u32, u32, u32))> = output
                .launches
                .iter()
                .map(|l| (l.kernel.clone(), (l.grid.x, l.grid.y, l.grid.z)))
                .collect();
            let info = info(py, &opened, lanes, started, Some(output.stats), None)?;
            info.set_item("launches", launches)?;
            (output.args, counts, info)
        } else {
            let mut prepared = self
                .compilation
                .prepare(&launch, limits(threads))
                .map_err(|d| self.diagnosed(py, "LaunchError", &d))?;
            drop(launch);
            prepared.options.threads = threads;
            prepared.stop = Some(Arc::clone(&watch.stop));
            let done = Arc::clone(&watch.done);
            prepared.progress = Some(Arc::new(move |n| {
                done.fetch_add(n, Ordering::Relaxed);
            }));
            let total = prepared.ctas();
            let on_simulator = matches!(opened, Backend::Simulator);
            let dispatches = args.dispatches;
            let outcome = watch.run(py, total, "CTAs", progress && on_simulator, || match opened
                .run_timed(&prepared, source, dispatches)
            {
                Some(Ok(output)) => (Ok((output.args, None, Some(output.timing))), None),
                Some(Err(failure)) => (Err(failure), None),
                None if profile => {
                    let profiled = prepared.simulate_profiled();
                    let counts = profiled.profile.ok();
                    (
                        profiled
                            .output
                            .map(|o| (o.args, Some(o.stats), None))
                            .map_err(Failure::Source),
                        counts,
                    )
                }
                None => (
                    prepared
                        .simulate()
                        .map(|o| (o.args, Some(o.stats), None))
                        .map_err(Failure::Source),
                    None,
                ),
            });
            let (result, counts) = self.finished(outcome)?;
            let (args, stats, timing) = self.ran(py, &opened, result)?;
            let info = info(py, &opened, lanes, started, stats, timing.as_ref())?;
            (args, counts, info)
        };
        let written = self.compilation.written_tensors(Some(&signature.name));
        let arrays = PyDict::new(py);
        for (index, (param, arg)) in signature.params.iter().zip(&ran.params).enumerate() {
            if let (Arg::Tensor(tensor), true) = (arg, written.contains(&index)) {
                let result = arrays::array(py, tensor.element, &tensor.shape, &tensor.bits)?;
                let result = match args.passed(param.name()) {
                    Some(passed) => arrays::write_back(py, passed, result)?,
                    None => result,
                };
                arrays.set_item(param.name(), result)?;
            }
        }
        let notes: Vec<String> = info
            .get_item("notes")?
            .map_or(Ok(Vec::new()), |n| n.extract())?;
        for note in notes {
            warn(py, &note, 1)?;
        }
        let outputs = py
            .import("tessera._results")?
            .getattr("Outputs")?
            .call1((arrays, info))?;
        Ok((outputs.unbind(), counts))
    }

    /// A watched run's outcome. Ctrl-C is raised as `KeyboardInterrupt` saying where the run
    /// stopped; another signal handler's exception (a timeout's, say) as it was raised.
    fn finished<T>(
        &self,
        outcome: Watched<(Result<T, Failure>, Option<MemoryProfile>)>,
    ) -> PyResult<(Result<T, Failure>, Option<MemoryProfile>)> {
        let (result, signal) = match outcome {
            Watched::Finished(done) => return Ok(done),
            Watched::Interrupted((result, _), signal) => (result, signal),
        };
        let is_interrupt = Python::attach(|py| signal.is_instance_of::<PyKeyboardInterrupt>(py));
        if !is_interrupt {
            return Err(signal);
        }
        let at = match &result {
            Err(Failure::Source(d)) if d.message == compiler_core::sim::INTERRUPTED => {
                let index = compiler_core::span::LineIndex::new(self.source());
                let at = index.line_column(self.source(), d.span.start);
                format!(" at {}:{}:{}", self.name, at.line, at.column)
            }
            // A GPU's dispatch, which nothing stops from outside, or a run that ended on its
            // own as the interrupt came.
            _ => " as it ended".to_owned(),
        };
        Err(PyKeyboardInterrupt::new_err(format!(
            "{}{at}",
            compiler_core::sim::INTERRUPTED
        )))
    }

    /// A run's result on `backend`, or its failure raised as `RunError` (with the diagnostic
    /// where the source is at fault, as the command line prints it). A failure of the Vulkan
    /// GPU's own drops the kept device.
    fn ran<T>(&self, py: Python<'_>, backend: &Backend, result: Result<T, Failure>) -> PyResult<T> {
        result.map_err(|failure| match failure {
            Failure::Source(diagnostic) => self.diagnosed(py, "RunError", &[diagnostic]),
            Failure::Device(message) => {
                if matches!(backend, Backend::Vulkan { .. }) {
                    forget_vulkan();
                }
                error(py, "RunError", message)
            }
        })
    }
}

/// The exception for diagnostics that stop a target's code: `TargetError` where the target
/// lacks what the kernel uses (E0521, E0522), `CompileError` where the source is at fault.
fn codegen_error(diagnostics: &[compiler_core::Diagnostic]) -> &'static str {
    use compiler_core::diagnostic::Code;
    match diagnostics.iter().find(|d| d.is_error()).map(|d| d.code) {
        Some(Code::E0521 | Code::E0522) => "TargetError",
        _ => "CompileError",
    }
}

/// Python's limits: the command line's, its generated inputs made on `threads`, and its
/// messages in keyword arguments (`dims={"N": …}`, not `--dim N=…`).
pub(crate) fn limits(threads: usize) -> RunLimits {
    RunLimits {
        threads,
        host: "a run from Python",
        spelling: compiler_core::launch::Spelling::Python,
        ..RunLimits::TERMINAL
    }
}

/// The machine's cores: the simulator's threads by default, as `tessera run`'s.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The Vulkan GPU, opened on the first run that asks for it and kept for the process: opening
/// a device costs 45 to 140 ms on lavapipe, which a notebook's every call would pay. A run
/// that fails on the GPU itself (not in the kernel) drops it, so the next opens it again.
/// With the id of the process that opened it: a child `fork` made after a GPU run inherits
/// the device but not the driver's threads, and waits for ever on its first dispatch (the
/// default start method of `multiprocessing` on Linux up to Python 3.13).
static VULKAN: std::sync::Mutex<Option<(u32, runtime::Gpu)>> = std::sync::Mutex::new(None);

/// The backend `name`, the Vulkan GPU the one kept in [`VULKAN`]. In a child forked after the
/// parent opened it, a clear error instead of a hang: Vulkan's state does not survive a fork,
/// and opening another device there is not safe either.
fn open(name: &str, emulate_warps: bool, lanes: u32) -> Result<Backend, String> {
    if name != "gpu" {
        return Backend::open(name, emulate_warps, lanes);
    }
    let mut kept = VULKAN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let me = std::process::id();
    let gpu = match kept.as_ref() {
        Some((opener, _)) if *opener != me => {
            return Err("this process was forked from one that had run on the GPU, and a Vulkan device does not survive a fork (it would wait for ever): start the worker processes with multiprocessing's \"spawn\" (multiprocessing.get_context(\"spawn\"), or ProcessPoolExecutor(mp_context=...)), or run on the GPU only in the children".to_owned());
        }
        Some((_, gpu)) => gpu.clone(),
        None => {
            let gpu = pollster::block_on(runtime::open()).map_err(|e| e.to_string())?;
            *kept = Some((me, gpu.clone()));
            gpu
        }
    };
    Ok(Backend::on_vulkan(gpu, emulate_warps, lanes))
}

/// Forgets the kept Vulkan GPU (after a failure of the GPU's own).
fn forget_vulkan() {
    *VULKAN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
}

/// What ran, for `Outputs`' attributes.
fn info<'py>(
    py: Python<'py>,
    backend: &Backend,
    lanes: u32,
    started: Instant,
    stats: Option<Stats>,
    timing: Option<&Result<runtime::Timing, String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let info = PyDict::new(py);
    info.set_item("ran_on", backend.describe(lanes))?;
    info.set_item("seconds", started.elapsed().as_secs_f64())?;
    let mut notes = Vec::new();
    if let Some(stats) = stats {
        info.set_item("steps", stats.steps)?;
        info.set_item("lane_ops", stats.lane_ops)?;
        if stats.order_dependent_sums {
            notes.push(compiler_core::sim::ORDER_DEPENDENT_SUMS);
        }
    }
    match timing {
        Some(Ok(timing)) => {
            info.set_item("gpu_seconds", timing.median_ns() * 1e-9)?;
            info.set_item("gpu_time", timing.summary(None, None))?;
        }
        Some(Err(why)) => info.set_item("gpu_time", why)?,
        None => {}
    }
    info.set_item("notes", notes)?;
    Ok(info)
}

#[pymethods]
impl Module {
    /// The kernels, in source order.
    #[getter]
    fn kernels(&self) -> Vec<String> {
        self.compilation.kernel_names()
    }

    /// The programs, in source order.
    #[getter]
    fn programs(&self) -> Vec<String> {
        self.compilation
            .ir()
            .map(|m| m.programs.iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default()
    }

    /// The parameters of the kernel or program `name`, in order: `(name, dtype)` for a tensor
    /// (numpy's dtype name, `"float32"`) and `(name, type)` for a scalar (`"f32"`), with
    /// `"tensor"` or `"scalar"` between.
    #[pyo3(signature = (name = None))]
    fn parameters(
        &self,
        py: Python<'_>,
        name: Option<&str>,
    ) -> PyResult<Vec<(String, &'static str, String)>> {
        let signature = self
            .compilation
            .signature(name)
            .map_err(|d| self.launch_error(py, &d))?;
        Ok(signature
            .params
            .iter()
            .map(|p| match p {
                Param::Tensor { name, element, .. } => (
                    name.clone(),
                    "tensor",
                    arrays::dtype_name(*element).to_owned(),
                ),
                Param::Scalar { name, ty } => (name.clone(), "scalar", ty.name().to_owned()),
            })
            .collect())
    }

    /// The source it was compiled from.
    #[getter(source)]
    fn source_text(&self) -> &str {
        self.source()
    }

    /// Pickling (multiprocessing, joblib, `copy.deepcopy`): a module travels as its source and
    /// name and is compiled again where it is loaded, as `tessera.compile` would.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let compile = py.import("tessera._tessera")?.getattr("compile")?;
        Ok((compile, (self.source().to_owned(), self.name.clone())))
    }

    /// The warnings the checker gave (a source with errors does not compile).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        objects(py, &self.compilation.diagnostics, self.source())
    }

    fn __repr__(&self) -> String {
        let names = self.compilation.runnable_names();
        let warnings = match self.compilation.diagnostics.len() {
            0 => String::new(),
            1 => " (1 warning)".to_owned(),
            n => format!(" ({n} warnings)"),
        };
        format!(
            "<tessera.Module {}: {}{warnings}>",
            self.name,
            names.join(", ")
        )
    }

    /// Runs the kernel or program `name` (the file's program, else its only kernel, when left
    /// out) and returns the tensors it may write, as numpy arrays in an `Outputs` dict. A
    /// writable numpy array passed for a tensor the kernel writes is written in place, as
    /// Numba and CuPy write theirs, and is the dict's entry; a read-only one is left as it was.
    /// A run's notes (a sum whose bits depend on order) are issued as `TesseraWarning`s.
    ///
    /// `grid`: CTAs, `(x,)`, `(x, y)` or `(x, y, z)`, required for a kernel (a program
    /// computes its own). `dims` and
    /// `scalars`: values by name (a dimension a passed array's shape gives may be left out).
    /// Tensors by name: numpy arrays of the parameter's dtype, C or Fortran order, or
    /// `"zeros"`, `"ones"`, `"iota"`, `"rand:SEED"`; a tensor not passed starts as zeros.
    /// `inputs={name: array}` passes them too, whatever their names (`grid`, say).
    /// `backend`: `"sim"` (the reference simulator), `"gpu"` (WGSL on this machine's Vulkan
    /// GPU) or `"cuda"` (PTX on its NVIDIA GPU). `threads`: the simulator's threads (the
    /// machine's cores); `lanes`: `ctx.lanes` (32); `step_limit`: statements per CTA before
    /// the run stops (E0514). Ctrl-C stops a simulator run; `progress` shows a bar for runs
    /// past a second. On a GPU, the kernel is dispatched `repeats` more times (9) to time it
    /// (`Outputs.gpu_seconds`); `timing=False` runs it once, untimed.
    #[pyo3(signature = (name = None, *, grid = None, dims = None, scalars = None, backend = "sim", threads = None, lanes = None, emulate_warps = false, step_limit = None, progress = true, timing = true, repeats = None, inputs = None, **tensors))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        name: Option<String>,
        grid: Option<Bound<'py, PyAny>>,
        dims: Option<BTreeMap<String, i64>>,
        scalars: Option<Bound<'py, PyDict>>,
        backend: &str,
        threads: Option<u32>,
        lanes: Option<u32>,
        emulate_warps: bool,
        step_limit: Option<u64>,
        progress: bool,
        timing: bool,
        repeats: Option<u32>,
        inputs: Option<Bound<'py, PyDict>>,
        tensors: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let args = LaunchArgs {
            name,
            grid,
            dims,
            scalars: arrays::scalars(scalars.as_ref())?,
            lanes,
            step_limit,
            threads,
            dispatches: LaunchArgs::dispatches(timing, repeats),
            tensors: inputs.into_iter().chain(tensors).collect(),
        };
        Ok(self
            .execute(py, &args, backend, emulate_warps, progress, false)?
            .0)
    }

    /// Runs as `run` does, on the simulator, counting every memory request and the run's work
    /// (`tessera run --profile`): a `Profile`, whose `data` is `--profile --json`'s and whose
    /// `outputs` are the run's. It takes `run`'s arguments, so a call can be copied from one to
    /// the other: `backend` other than `"sim"` is refused (the counts are the simulator's), and
    /// `emulate_warps` means nothing there, as in `run`.
    #[pyo3(signature = (name = None, *, grid = None, dims = None, scalars = None, backend = "sim", threads = None, lanes = None, emulate_warps = false, step_limit = None, progress = true, timing = true, repeats = None, inputs = None, **tensors))]
    #[allow(clippy::too_many_arguments)]
    fn profile<'py>(
        &self,
        py: Python<'py>,
        name: Option<String>,
        grid: Option<Bound<'py, PyAny>>,
        dims: Option<BTreeMap<String, i64>>,
        scalars: Option<Bound<'py, PyDict>>,
        backend: &str,
        threads: Option<u32>,
        lanes: Option<u32>,
        emulate_warps: bool,
        step_limit: Option<u64>,
        progress: bool,
        timing: bool,
        repeats: Option<u32>,
        inputs: Option<Bound<'py, PyDict>>,
        tensors: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Profile> {
        let args = LaunchArgs {
            name,
            grid,
            dims,
            scalars: arrays::scalars(scalars.as_ref())?,
            lanes,
            step_limit,
            threads,
            dispatches: LaunchArgs::dispatches(timing, repeats),
            tensors: inputs.into_iter().chain(tensors).collect(),
        };
        let (outputs, counts) = self.execute(py, &args, backend, emulate_warps, progress, true)?;
        let counts = counts.ok_or_else(|| error(py, "RunError", "a kernel under @cluster runs its super-tiles as separate launches, which the memory counts do not follow yet".to_owned()))?;
        Profile::new(py, counts, self.source(), outputs)
    }

    /// Runs the kernel `name` on the simulator and traces one warp of one CTA, as `tessera run
    /// --trace` does (every warp's when `warp` is left out): a `Trace`, whose `data` is
    /// `--trace --json`'s object (its `steps`, each with its source `line`), whose `str()` is
    /// the CLI's text and which a notebook shows as that text. `block`: the CTA, `x` or
    /// `(x, y, z)` (0); the launch as `run` takes it (`grid=` required). A run that faults
    /// gives its trace up to the fault, and the fault in `Trace.fault`.
    #[pyo3(signature = (name = None, *, block = None, warp = None, grid = None, dims = None, scalars = None, lanes = None, step_limit = None, inputs = None, **tensors))]
    #[allow(clippy::too_many_arguments)]
    fn trace<'py>(
        &self,
        py: Python<'py>,
        name: Option<String>,
        block: Option<Bound<'py, PyAny>>,
        warp: Option<u32>,
        grid: Option<Bound<'py, PyAny>>,
        dims: Option<BTreeMap<String, i64>>,
        scalars: Option<Bound<'py, PyDict>>,
        lanes: Option<u32>,
        step_limit: Option<u64>,
        inputs: Option<Bound<'py, PyDict>>,
        tensors: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let args = LaunchArgs {
            name,
            grid,
            dims,
            scalars: arrays::scalars(scalars.as_ref())?,
            lanes,
            step_limit,
            threads: Some(1),
            dispatches: 0,
            tensors: inputs.into_iter().chain(tensors).collect(),
        };
        crate::trace::trace(self, py, &args, block.as_ref(), warp)
    }

    /// The IR, as `tessera ir` prints it: every kernel's, or `kernel`'s.
    #[pyo3(signature = (kernel = None))]
    fn ir(&self, py: Python<'_>, kernel: Option<&str>) -> PyResult<String> {
        match kernel {
            None => self
                .compilation
                .ir()
                .map(compiler_core::ir::print)
                .map_err(|d| self.diagnosed(py, "CompileError", &d)),
            Some(name) => Ok(compiler_core::ir::print_kernel(
                self.kernel(py, Some(name))?,
            )),
        }
    }

    /// PTX for `arch` (sm_70, sm_80, sm_90), as `tessera ptx --arch` prints it; a program's
    /// name gives one module with an entry for each kernel it launches.
    #[pyo3(signature = (kernel = None, arch = "sm_90"))]
    fn ptx(&self, py: Python<'_>, kernel: Option<&str>, arch: &str) -> PyResult<String> {
        let arch: Arch = arch.parse().map_err(|why| error(py, "TargetError", why))?;
        if !kernel.is_none_or(|k| self.compilation.runnable_names().iter().any(|n| n == k)) {
            self.kernel(py, kernel)?;
        }
        self.compilation
            .ptx(kernel, arch)
            .map(|ptx| ptx.text)
            .map_err(|d| self.diagnosed(py, codegen_error(&d), &d))
    }

    /// WGSL, as `tessera wgsl` prints it: warps as subgroups of `lanes` (32), or emulated in
    /// workgroup memory.
    #[pyo3(signature = (kernel = None, lanes = None, emulate_warps = false))]
    fn wgsl(
        &self,
        py: Python<'_>,
        kernel: Option<&str>,
        lanes: Option<u32>,
        emulate_warps: bool,
    ) -> PyResult<String> {
        let lanes = lanes.unwrap_or(compiler_core::hierarchy::NVIDIA_LANES);
        let mode = if emulate_warps {
            WarpMode::Emulated
        } else {
            WarpMode::Subgroups
        };
        self.kernel(py, kernel)?;
        self.compilation
            .wgsl(kernel, lanes, mode)
            .map(|wgsl| wgsl.browser_text())
            .map_err(|d| self.diagnosed(py, "CompileError", &d))
    }

    /// The kernel's occupancy on `arch`, as `tessera occupancy --arch` says it (`str()`), and
    /// the page's occupancy curves (Jupyter displays the SVG). The registers per thread are
    /// `registers`, else what `ptxas -v` says where this machine has ptxas (`$PTXAS` or the
    /// `PATH`), else a stated guess.
    #[pyo3(signature = (kernel = None, arch = "sm_90", registers = None))]
    fn occupancy(
        &self,
        py: Python<'_>,
        kernel: Option<&str>,
        arch: &str,
        registers: Option<u32>,
    ) -> PyResult<Chart> {
        let arch: Arch = arch.parse().map_err(|why| error(py, "TargetError", why))?;
        let threads = self.kernel(py, kernel)?.threads;
        let ptx = self
            .compilation
            .ptx(kernel, arch)
            .map_err(|d| self.diagnosed(py, codegen_error(&d), &d))?;
        let (registers, from) = runtime::ptxas::registers_or_guess(
            registers,
            ("registers=", "registers=N"),
            &ptx.text,
            arch,
        );
        let text =
            compiler_core::occupancy::line(arch, threads, ptx.shared_bytes, registers, &from)
                .map_err(|why| error(py, "LaunchError", why))?;
        let figure = charts::occupancy_curves(arch, threads, ptx.shared_bytes, registers);
        Ok(Chart::new(figure, text))
    }
}
