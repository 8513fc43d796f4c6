//! `tessera ir`, `tessera ptx` and `tessera wgsl`: a kernel's compiled forms, printed or
//! written to a file. Compiling and reporting are `run.rs`'s, which never calls back here.

use crate::print::print_out;
use crate::run::{compile, report};
use compiler_core::wgsl::WarpMode;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct IrArgs {
    /// The .tsr file.
    file: PathBuf,
}

#[derive(clap::Args)]
pub struct PtxArgs {
    /// The .tsr file.
    file: PathBuf,
    /// The kernel (the file's only kernel by default), or a program: one module with an entry
    /// for each kernel it launches.
    #[arg(long)]
    kernel: Option<String>,
    /// The target: sm_70, sm_80 or sm_90.
    #[arg(long, default_value = "sm_70")]
    arch: compiler_core::ptx::Arch,
    /// Add the loop guard: a thread past TRIPS loop trips writes the loop's number through a
    /// last `.u64` parameter and exits (plain code without it).
    #[arg(long, value_name = "TRIPS")]
    loop_guard: Option<u32>,
    /// Write the PTX to this file instead of stdout.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct WgslArgs {
    /// The .tsr file.
    file: PathBuf,
    /// The kernel (the file's only kernel by default).
    #[arg(long)]
    kernel: Option<String>,
    /// Lanes per warp: the subgroup size of the GPU it will run on.
    #[arg(long, default_value_t = 32)]
    lanes: u32,
    /// Emulate warps in workgroup memory (any width, any GPU) instead of using subgroups.
    #[arg(long)]
    emulate_warps: bool,
    /// Add the loop guard a run uses: an invocation past TRIPS trips of a loop writes the
    /// loop's number to a storage word bound after the uniforms and stops (plain code without
    /// it).
    #[arg(long, value_name = "TRIPS")]
    loop_guard: Option<u32>,
    /// Write the WGSL to this file instead of stdout.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

pub fn ir(args: &IrArgs) -> ExitCode {
    let compilation = match compile(&args.file) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    match compilation.ir() {
        Ok(module) => {
            print_out(&compiler_core::ir::print(module));
            ExitCode::SUCCESS
        }
        Err(diagnostics) => report(&diagnostics, &compilation, &args.file),
    }
}

pub fn ptx(args: &PtxArgs) -> ExitCode {
    let compilation = match compile(&args.file) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let guard = guard(args.loop_guard);
    // Without --kernel, a file of several kernels (a program's, say) is one module of them all.
    let ptx = match args.kernel.as_deref() {
        None if compilation.kernel_names().len() > 1 => {
            compilation.ptx_every_kernel(args.arch, guard)
        }
        name => compilation.ptx_guarded(name, args.arch, guard),
    };
    match ptx {
        Ok(ptx) => write_output(&ptx.text, args.output.as_deref()),
        Err(diagnostics) => report(&diagnostics, &compilation, &args.file),
    }
}

fn guard(trips: Option<u32>) -> compiler_core::guard::Guard {
    trips.map_or(
        compiler_core::guard::Guard::Off,
        compiler_core::guard::Guard::Trips,
    )
}

/// Prints `text`, or writes it to `path` (exit 2 when it cannot be written).
fn write_output(text: &str, path: Option<&Path>) -> ExitCode {
    match path {
        None => print_out(text),
        Some(path) => {
            if let Err(error) = std::fs::write(path, text) {
                eprintln!("error: cannot write {}: {error}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

pub fn wgsl(args: &WgslArgs) -> ExitCode {
    let mode = if args.emulate_warps {
        WarpMode::Emulated
    } else {
        WarpMode::Subgroups
    };
    let compilation = match compile(&args.file) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    // A WGSL module is one kernel's: a program's name, or a file of several kernels without
    // --kernel, is told which to pass.
    let kernels = compilation.kernel_names();
    let choose = |kernels: &[String]| {
        let options: Vec<String> = kernels.iter().map(|k| format!("--kernel {k}")).collect();
        options.join(" or ")
    };
    let program = args.kernel.as_deref().filter(|&name| {
        compilation.runs_a_program(Some(name)) && !kernels.iter().any(|k| k == name)
    });
    if let Some(name) = program {
        let launched: Vec<String> = compilation
            .ir()
            .ok()
            .and_then(|m| {
                let program = m.programs.iter().find(|p| p.name == name)?;
                Some(
                    program
                        .kernels()
                        .iter()
                        .map(|&k| m.kernels[k].name.clone())
                        .collect(),
                )
            })
            .unwrap_or_default();
        eprintln!(
            "error: `{name}` is a program, and a WGSL module holds one kernel: pass {}",
            choose(&launched)
        );
        return ExitCode::from(2);
    }
    if args.kernel.is_none() && kernels.len() > 1 {
        eprintln!(
            "error: the file has {} kernels, and a WGSL module holds one: pass {}",
            kernels.len(),
            choose(&kernels)
        );
        return ExitCode::from(2);
    }
    let wgsl = compilation
        .kernel(args.kernel.as_deref())
        .and_then(|kernel| {
            compiler_core::wgsl::emit(kernel, args.lanes, mode, guard(args.loop_guard))
                .map_err(|d| vec![d])
        });
    match wgsl {
        Ok(wgsl) => write_output(&wgsl.browser_text(), args.output.as_deref()),
        Err(diagnostics) => report(&diagnostics, &compilation, &args.file),
    }
}
