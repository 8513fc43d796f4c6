//! `tessera run`: flags to a [`Launch`], `.npy` files in and out.
//!
//! Invariant: this module only translates between the terminal and files on one side and
//! `compiler-core`'s `Launch` / `RunOutput` on the other; it runs nothing itself.

use compiler_core::diagnostic::{render_all, Diagnostic};
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::{Kernel, Param, Scalar};
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::{Arg, TraceLimits};
use compiler_core::{Compilation, RunLimits};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::print::{
    note_order_dependent_sums, preview, print_out, print_super_tiles, ran_on_simulator,
};
use crate::progress::Bar;
use runtime::{Backend, Failure};

#[derive(clap::Args)]
pub struct RunArgs {
    /// The .tsr file.
    file: PathBuf,
    /// The kernel or program to run (by default the file's program if it has one, else its only
    /// kernel); a program runs its launches in order, with the grids its source computes.
    #[arg(long)]
    kernel: Option<String>,
    /// CTAs in the grid, as X[,Y[,Z]].
    #[arg(long, value_parser = crate::parse_extents, default_value = "1")]
    grid: Dim3,
    /// A dimension's value, NAME=V (otherwise inferred from .npy inputs).
    #[arg(long = "dim", value_parser = parse_pair::<i64>)]
    dims: Vec<(String, i64)>,
    /// A scalar parameter's value, NAME=V.
    #[arg(long = "scalar", value_parser = parse_pair::<f64>)]
    scalars: Vec<(String, f64)>,
    /// A tensor's contents: NAME=PATH.npy (C or Fortran order, read as numpy means it), or
    /// NAME=zeros|ones|iota|rand:SEED.
    #[arg(long = "in", value_parser = parse_input)]
    inputs: Vec<(String, InputSpec)>,
    /// Write every tensor parameter to DIR/NAME.npy (C order) after the run.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where to run: sim (the reference simulator), gpu (WGSL on this machine's Vulkan GPU) or
    /// cuda (PTX on its first NVIDIA GPU, through NVIDIA's driver).
    #[arg(long, default_value = "sim", value_parser = runtime::BACKENDS)]
    backend: String,
    /// Lanes per warp (ctx.lanes): 32 by default; on the Vulkan GPU, other widths its subgroups
    /// have or emulated; always 32 on CUDA.
    #[arg(long)]
    lanes: Option<u32>,
    /// Emulate warps in workgroup memory on the GPU.
    #[arg(long)]
    emulate_warps: bool,
    /// Statement executions (per CTA) before the run is stopped.
    #[arg(long)]
    step_limit: Option<u64>,
    /// For a kernel under @cluster: the nodes its super-tiles are dealt to, in this process
    /// (under `mpirun -n P`, the P processes are the nodes instead).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    nodes: u32,
    /// Print the steps of one CTA (its index in the grid, x fastest) on the simulator: each
    /// statement with the active mask and what the lanes wrote, read and exchanged; of one warp
    /// with CTA,WARP.
    #[arg(long, value_parser = parse_trace_at)]
    trace: Option<(u64, Option<u32>)>,
    /// Count every memory access on the simulator and print, per access in the source, its
    /// warp-level requests, sectors per request and excess sectors (global and local memory),
    /// excess wavefronts and bank conflict (shared memory) and contention (atomics); then the
    /// run's work, its bytes and its roofline on sm_70, sm_80 and sm_90. The rules are the
    /// spec's "Memory behaviour".
    #[arg(long, conflicts_with = "trace")]
    profile: bool,
    /// With --trace or --profile: print it as JSON on stdout (the tensors only go to --out).
    #[arg(long)]
    json: bool,
    /// Threads that run the simulator's CTAs (by default the machine's cores, shared among the
    /// MPI ranks on it); any number gives the same results, bit for bit.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
}

/// `CTA[,WARP]` of `--trace`.
fn parse_trace_at(text: &str) -> Result<(u64, Option<u32>), String> {
    let bad = || format!("`{text}` is not CTA or CTA,WARP with whole numbers");
    let mut parts = text.split(',').map(|p| p.trim().parse::<u64>());
    let cta = parts.next().and_then(Result::ok).ok_or_else(bad)?;
    let warp = match parts.next() {
        None => None,
        Some(Ok(w)) => Some(u32::try_from(w).map_err(|_| bad())?),
        Some(Err(_)) => return Err(bad()),
    };
    match parts.next() {
        None => Ok((cta, warp)),
        Some(_) => Err(bad()),
    }
}

#[derive(Clone)]
pub enum InputSpec {
    Generator(Input),
    File(PathBuf),
}

fn parse_pair<T: std::str::FromStr>(text: &str) -> Result<(String, T), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE"))?;
    let value = value
        .parse()
        .map_err(|_| format!("`{value}` is not a number"))?;
    Ok((name.to_owned(), value))
}

fn parse_input(text: &str) -> Result<(String, InputSpec), String> {
    let (name, spec) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=SPEC"))?;
    let spec = if spec.ends_with(".npy") {
        InputSpec::File(PathBuf::from(spec))
    } else {
        InputSpec::Generator(spec.parse()?)
    };
    Ok((name.to_owned(), spec))
}

/// Reads the file and compiles it (exit 2 when it cannot be read).
pub fn compile(path: &Path) -> Result<Compilation, ExitCode> {
    let bytes = std::fs::read(path).map_err(|error| {
        eprintln!("error: cannot read {}: {error}", path.display());
        ExitCode::from(2)
    })?;
    Ok(compiler_core::compile_bytes(&bytes))
}

/// Prints diagnostics of the file's source, as `tessera check` does; exit 1.
pub fn report(diagnostics: &[Diagnostic], compilation: &Compilation, path: &Path) -> ExitCode {
    eprint!(
        "{}",
        render_all(
            diagnostics,
            compilation.source(),
            &path.display().to_string()
        )
    );
    ExitCode::from(1)
}

/// A run's failure: the source's at its statement (a runaway loop is shown at the loop, as the
/// simulator's E0514), or the device's words; exit 1.
fn failed(failure: Failure, compilation: &Compilation, path: &Path) -> ExitCode {
    match failure {
        Failure::Source(diagnostic) => report(&[diagnostic], compilation, path),
        Failure::Device(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// An `.npy` file as a launch input, checked against the parameter's element type
/// (`compiler_core::npy`).
fn read_npy(path: &Path, name: &str, element: Scalar) -> Result<Input, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (shape, bits) =
        compiler_core::npy::read(&bytes, &path.display().to_string(), name, element)?;
    Ok(Input::Bits { shape, bits })
}

/// Writes an output in C (row-major) order, the order of the kernel's tensors, always.
fn write_npy(path: &Path, element: Scalar, shape: &[usize], bits: &[u32]) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    compiler_core::npy::write_to(&mut file, element, shape, bits)
}

pub fn run(args: &RunArgs) -> ExitCode {
    // NVIDIA's 32 lanes unless asked otherwise, so a run means the same on every backend.
    let lanes = args.lanes.unwrap_or(32);
    let backend = match Backend::open(&args.backend, args.emulate_warps, lanes) {
        Ok(backend) => backend,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let compilation = match compile(&args.file) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    if let Err(diagnostics) = compilation.ir() {
        return report(&diagnostics, &compilation, &args.file);
    }
    if compilation.runs_a_program(args.kernel.as_deref()) {
        return run_program(args, &compilation, &backend, lanes);
    }
    let kernel = match compilation.kernel(args.kernel.as_deref()) {
        Ok(kernel) => kernel,
        Err(diagnostics) => {
            for diagnostic in diagnostics {
                eprintln!("error: {}", diagnostic.message);
            }
            return ExitCode::from(2);
        }
    };
    let launch = match launch_of(args, kernel, lanes) {
        Ok(launch) => launch,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let threads = args.threads.map_or_else(default_threads, |n| n as usize);
    let mut prepared = match compilation.prepare(&launch, limits(threads)) {
        Ok(prepared) => prepared,
        Err(diagnostics) => return report(&diagnostics, &compilation, &args.file),
    };
    prepared.options.threads = threads;
    let bar = crate::progress::Bar::new(prepared.ctas(), "CTAs");
    let advance = Arc::clone(&bar);
    prepared.progress = Some(Arc::new(move |done| advance.advance(done)));
    #[cfg(feature = "mpi")]
    if let Some(universe) = crate::mpi_run::world() {
        if kernel.cluster.is_some() {
            return across_processes(&universe, args, &prepared, &backend, &compilation);
        }
        if !crate::mpi_run::is_root(&universe) {
            return ExitCode::SUCCESS;
        }
        eprintln!("`{}` has no @cluster: rank 0 runs it whole", kernel.name);
    }
    let grid = launch.grid;
    if args.json && args.trace.is_none() && !args.profile {
        eprintln!("error: --json prints a trace or a profile: add --trace CTA[,WARP] or --profile");
        return ExitCode::from(2);
    }
    let on_simulator = matches!(backend, Backend::Simulator);
    if args.profile {
        if !on_simulator {
            eprintln!("error: the memory counts come from the simulator: leave out --backend");
            return ExitCode::from(2);
        }
        return profiled(args, &compilation, &prepared, &bar);
    }
    if let Some(at) = args.trace {
        if !on_simulator {
            eprintln!("error: the trace comes from the simulator: leave out --backend");
            return ExitCode::from(2);
        }
        return traced(args, &compilation, &prepared, at, &bar);
    }
    let params = match backend.run(&prepared, compilation.source()) {
        None => {
            let output = prepared.simulate_once();
            bar.clear();
            let output = match output {
                Ok(output) => output,
                Err(diagnostic) => return report(&[diagnostic], &compilation, &args.file),
            };
            ran_on_simulator(kernel, grid, output.stats);
            if let Some(run) = &output.cluster {
                print_super_tiles(kernel, run);
            }
            output.args.params
        }
        Some(Ok(output)) => {
            eprintln!(
                "ran {} on {}, {} x {} x {} CTAs of {} threads: {:.3} ms",
                kernel.name,
                backend.describe(lanes),
                grid.x,
                grid.y,
                grid.z,
                kernel.threads,
                output.elapsed.as_secs_f64() * 1e3
            );
            match &output.timing {
                Ok(timing) => eprintln!("GPU time: {}", timing.summary(None, Some(output.elapsed))),
                Err(why) => eprintln!("GPU time: {why}"),
            }
            output.args.params
        }
        Some(Err(failure)) => {
            bar.clear();
            return failed(failure, &compilation, &args.file);
        }
    };
    write_results(args, kernel, &params)
}

/// A program: its launches in order, on the simulator, the Vulkan GPU or the CUDA GPU.
fn run_program(
    args: &RunArgs,
    compilation: &Compilation,
    backend: &Backend,
    lanes: u32,
) -> ExitCode {
    let refused = if args.grid != Dim3::new(1, 1, 1) {
        Some("a program computes each launch's grid: leave out --grid")
    } else if args.profile || args.trace.is_some() {
        Some("the trace and the memory counts follow one kernel's launch: run a kernel of the program by name (--kernel) to see them")
    } else {
        None
    };
    if let Some(message) = refused {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let program = match compilation.program(args.kernel.as_deref()) {
        Ok(program) => program,
        Err(diagnostics) => return report(&diagnostics, compilation, &args.file),
    };
    let signature = &program.signature;
    let launch = match launch_of(args, signature, lanes) {
        Ok(launch) => launch,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let threads = args.threads.map_or_else(default_threads, |n| n as usize);
    let mut prepared = match compilation.prepare_program(&launch, limits(threads)) {
        Ok(prepared) => prepared,
        Err(diagnostics) => return report(&diagnostics, compilation, &args.file),
    };
    prepared.run.options.threads = threads;
    let start = std::time::Instant::now();
    let result = match backend.run_program(&prepared, compilation.source()) {
        Some(ran) => ran,
        None => prepared.simulate().map_err(Failure::Source),
    };
    let output = match result {
        Ok(output) => output,
        Err(failure) => return failed(failure, compilation, &args.file),
    };
    let launches: Vec<String> = output
        .launches
        .iter()
        .map(|l| format!("{} ({} x {} x {})", l.kernel, l.grid.x, l.grid.y, l.grid.z))
        .collect();
    eprintln!(
        "ran program {} on {}: {} launch{} in {:.3} ms: {}",
        program.name,
        backend.describe(lanes),
        launches.len(),
        if launches.len() == 1 { "" } else { "es" },
        start.elapsed().as_secs_f64() * 1e3,
        launches.join(", ")
    );
    note_order_dependent_sums(output.stats);
    write_results(args, signature, &output.args.params)
}

/// The command line's limits, its generated inputs made on the run's `threads`.
fn limits(threads: usize) -> RunLimits {
    RunLimits {
        threads,
        ..RunLimits::TERMINAL
    }
}

fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    threads_per_rank(
        cores,
        std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE").ok().as_deref(),
    )
}

/// `cores` shared among `ranks_here` ranks (one when unset or unreadable), at least 1 each.
fn threads_per_rank(cores: usize, ranks_here: Option<&str>) -> usize {
    let ranks = ranks_here
        .and_then(|n| n.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1);
    (cores / ranks).max(1)
}

/// `--trace`: the run on the simulator, the steps of one CTA printed, then the results.
fn traced(
    args: &RunArgs,
    compilation: &Compilation,
    prepared: &compiler_core::PreparedRun<'_>,
    (cta, warp): (u64, Option<u32>),
    bar: &Bar,
) -> ExitCode {
    let kernel = prepared.kernel;
    let grid = prepared.args.grid;
    if cta >= grid.volume() {
        eprintln!(
            "error: --trace {cta}: the CTAs of a {} x {} x {} grid are numbered 0 to {}",
            grid.x,
            grid.y,
            grid.z,
            grid.volume().saturating_sub(1)
        );
        return ExitCode::from(2);
    }
    let warps = kernel.threads.div_ceil(prepared.options.lanes.max(1));
    if let Some(w) = warp.filter(|&w| w >= warps) {
        eprintln!(
            "error: --trace {cta},{w}: a CTA of {} threads has {warps} warps, numbered from 0",
            kernel.threads
        );
        return ExitCode::from(2);
    }
    let (gx, gy) = (u64::from(grid.x), u64::from(grid.y));
    let block = Dim3::new(
        (cta % gx) as u32,
        (cta / gx % gy) as u32,
        (cta / (gx * gy)) as u32,
    );
    let traced = prepared.simulate_traced(block, TraceLimits::default());
    bar.clear();
    let source = compilation.source();
    let text = if args.json {
        serde_json::to_string_pretty(&traced.trace.to_json(source)).unwrap_or_default() + "\n"
    } else {
        traced.trace.to_text(kernel, source, warp)
    };
    print_out(&text);
    match traced.output {
        Ok(output) => {
            ran_on_simulator(kernel, grid, output.stats);
            if args.json && args.out.is_none() {
                return ExitCode::SUCCESS;
            }
            write_results(args, kernel, &output.args.params)
        }
        Err(diagnostic) => report(&[diagnostic], compilation, &args.file),
    }
}

/// `--profile`: the run on the simulator with its memory requests counted, the table printed,
/// then the results.
fn profiled(
    args: &RunArgs,
    compilation: &Compilation,
    prepared: &compiler_core::PreparedRun<'_>,
    bar: &Bar,
) -> ExitCode {
    let kernel = prepared.kernel;
    let profiled = prepared.simulate_profiled();
    bar.clear();
    let source = compilation.source();
    match &profiled.profile {
        Ok(profile) if args.json => print_out(&(profile.to_json(source) + "\n")),
        Ok(profile) => print_out(&profile.to_text(source)),
        Err(why) => eprintln!("note: no memory counts: {why}"),
    }
    match profiled.output {
        Ok(output) => {
            ran_on_simulator(kernel, prepared.args.grid, output.stats);
            if args.json && args.out.is_none() {
                return ExitCode::SUCCESS;
            }
            write_results(args, kernel, &output.args.params)
        }
        Err(diagnostic) => report(&[diagnostic], compilation, &args.file),
    }
}

/// The launch the flags describe, `.npy` inputs read and checked against their parameters.
fn launch_of(args: &RunArgs, kernel: &Kernel, lanes: u32) -> Result<Launch, String> {
    let mut launch = Launch {
        kernel: Some(kernel.name.clone()),
        grid: args.grid,
        dims: args.dims.iter().cloned().collect(),
        scalars: args.scalars.iter().cloned().collect(),
        lanes,
        step_limit: args.step_limit,
        nodes: args.nodes,
        ..Launch::default()
    };
    for (name, spec) in &args.inputs {
        let element = match kernel.param_index(name).and_then(|i| kernel.params.get(i)) {
            Some(Param::Tensor { element, .. }) => *element,
            // Not a tensor of this kernel: the launch's own check says so as every launch
            // problem is said (E0515, at the signature, naming the flag), so its contents are
            // never read.
            _ => {
                launch.inputs.insert(name.clone(), Input::Zeros);
                continue;
            }
        };
        let input = match spec {
            InputSpec::Generator(input) => input.clone(),
            InputSpec::File(path) => read_npy(path, name, element)?,
        };
        launch.inputs.insert(name.clone(), input);
    }
    Ok(launch)
}

/// Prints each tensor, or writes it to `--out DIR/NAME.npy`: the files at once, a thread
/// each, so that a large input written back does not hold up the others.
fn write_results(args: &RunArgs, kernel: &Kernel, params: &[Arg]) -> ExitCode {
    let tensors = kernel
        .params
        .iter()
        .zip(params)
        .filter_map(|(param, arg)| match arg {
            Arg::Tensor(tensor) => Some((param.name(), tensor)),
            Arg::Scalar(_) => None,
        });
    let Some(dir) = &args.out else {
        for (name, tensor) in tensors {
            print_out(&(preview(name, tensor) + "\n"));
        }
        return ExitCode::SUCCESS;
    };
    if let Err(error) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot write {}: {error}", dir.display());
        return ExitCode::from(2);
    }
    let failures: Vec<String> = std::thread::scope(|scope| {
        let writers: Vec<_> = tensors
            .map(|(name, tensor)| {
                let path = dir.join(format!("{name}.npy"));
                scope.spawn(move || {
                    write_npy(&path, tensor.element, &tensor.shape, &tensor.bits)
                        .map_err(|error| format!("cannot write {}: {error}", path.display()))
                })
            })
            .collect();
        writers
            .into_iter()
            .filter_map(|w| {
                w.join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
                    .err()
            })
            .collect()
    });
    match failures.first() {
        Some(failure) => {
            eprintln!("error: {failure}");
            ExitCode::from(2)
        }
        None => ExitCode::SUCCESS,
    }
}

/// `mpirun -n P tessera run …`: each process is one node of the cluster (see `mpi_run`).
#[cfg(feature = "mpi")]
fn across_processes(
    universe: &mpi::environment::Universe,
    args: &RunArgs,
    prepared: &compiler_core::PreparedRun<'_>,
    backend: &Backend,
    compilation: &Compilation,
) -> ExitCode {
    let kernel = prepared.kernel;
    let code = match backend {
        Backend::Simulator => Ok(PartCode::None),
        Backend::Vulkan { mode, .. } => prepared.wgsl(*mode).map(PartCode::Wgsl),
        Backend::Cuda(gpu) => match gpu.report.arch() {
            Some(arch) => prepared.ptx(compilation.source(), arch).map(PartCode::Ptx),
            None => crate::mpi_run::abort(
                universe,
                "this NVIDIA GPU is too old for Tessera's PTX (compute capability 7.0 or newer)",
            ),
        },
    };
    let code = match code {
        Ok(code) => code,
        Err(diagnostic) => crate::mpi_run::abort(universe, &diagnostic.message),
    };
    let mut whole = prepared.args.clone();
    let outcome = crate::mpi_run::run(universe, kernel, &mut whole, |part, tile| {
        let ran = match (backend, &code) {
            (Backend::Vulkan { gpu, .. }, PartCode::Wgsl(wgsl)) => {
                runtime::run_wgsl(gpu, kernel, wgsl, part)
            }
            (Backend::Cuda(gpu), PartCode::Ptx(ptx)) => {
                runtime::cuda::run_ptx(gpu, kernel, ptx, part)
            }
            _ => {
                return compiler_core::cluster::simulate_one(
                    kernel,
                    part,
                    tile,
                    prepared.options,
                    &compiler_core::sim::Observers::default(),
                )
                .map(|_| ())
                .map_err(|fault| fault.to_diagnostic().message)
            }
        };
        ran.map(|_| ()).map_err(|e| e.to_string())
    });
    match outcome {
        Ok(Some(run)) => {
            print_super_tiles(kernel, &run);
            write_results(args, kernel, &whole.params)
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(message) => crate::mpi_run::abort(universe, &message),
    }
}

/// What each process of an MPI run launches for its super-tiles.
#[cfg(feature = "mpi")]
enum PartCode {
    None,
    Wgsl(compiler_core::wgsl::Wgsl),
    Ptx(compiler_core::ptx::Ptx),
}

#[cfg(test)]
mod tests {
    use super::threads_per_rank;

    #[test]
    fn ranks_on_one_machine_share_its_cores() {
        assert_eq!(threads_per_rank(16, None), 16);
        assert_eq!(threads_per_rank(16, Some("4")), 4);
        assert_eq!(threads_per_rank(16, Some("3")), 5);
        assert_eq!(threads_per_rank(2, Some("8")), 1, "at least one thread");
        assert_eq!(
            threads_per_rank(8, Some("0")),
            8,
            "a nonsense count is ignored"
        );
        assert_eq!(threads_per_rank(8, Some("many")), 8);
    }
}
