//! `tessera`: Tessera's pipeline from a terminal.
//!
//! In: command-line arguments. Out: text on stdout, errors on stderr and a non-zero exit
//! status. It only parses arguments and prints; the work happens in `compiler-core` and
//! `runtime`, so the CLI, the playground and the tests share one implementation.

mod compiled;
mod explain;
mod fmt;
mod lsp;
mod mma;
#[cfg(feature = "mpi")]
mod mpi_run;
mod occupancy;
mod print;
mod progress;
mod run;

use clap::{Parser, Subcommand};
use compiler_core::diagnostic::{render_all, Structured};
use compiler_core::hierarchy::{Dim3, LaunchShape, NVIDIA_LANES};
use compiler_core::span::LineIndex;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "tessera", version, about = "The Tessera GPU kernel language")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check kernels: print every diagnostic to stderr. Exit 0 without errors, 1 with errors,
    /// 2 when a file cannot be read.
    Check(CheckArgs),
    /// Run a kernel on the reference simulator; tensors in and out as .npy files.
    Run(run::RunArgs),
    /// Print the IR of every kernel in a file.
    Ir(compiled::IrArgs),
    /// Print (or write with -o) a kernel's PTX for sm_70, sm_80 or sm_90.
    Ptx(compiled::PtxArgs),
    /// Print (or write with -o) a kernel's WGSL (subgroup mode).
    Wgsl(compiled::WgslArgs),
    /// A kernel's CTAs and warps per SM on sm_70, sm_80 and sm_90, and which limit binds.
    Occupancy(occupancy::OccupancyArgs),
    /// Show where one thread sits in a launch: its eight ctx fields and why each has its value.
    Ctx(CtxArgs),
    /// A language server over stdin and stdout, for editors: diagnostics and quick fixes,
    /// hover, completion, signature help, go to definition, references, rename, formatting,
    /// the outline and semantic tokens (the VS Code extension starts it).
    Lsp(lsp::LspArgs),
    /// Describe the GPUs this machine offers: its Vulkan adapter and subgroups, and its NVIDIA
    /// GPUs through CUDA.
    Gpu,
    /// Lay out .tsr files as the examples are: indentation, spacing and blank lines, nothing
    /// else (`--check` lists the files that would change).
    Fmt(fmt::FmtArgs),
    /// Print a diagnostic code's entry in the error index: what it means, an example and the fix.
    Explain(explain::ExplainArgs),
    /// Which lane holds which element of a warp's matrix operation (mma m16n8k16): A, B and C
    /// drawn with LANE:INDEX in each cell, or as JSON with --json.
    Mma(mma::MmaArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The .tsr files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the diagnostics as JSON on stdout (the playground's structured form) instead.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct CtxArgs {
    /// CTAs in the grid, as X[,Y[,Z]].
    #[arg(long, value_parser = parse_extents, default_value = "4,3")]
    grid: Dim3,
    /// Threads per CTA, as in @launch(T).
    #[arg(long = "launch", default_value_t = 256)]
    threads: u32,
    /// Lanes per warp (32 on NVIDIA).
    #[arg(long, default_value_t = NVIDIA_LANES)]
    lanes: u32,
    /// The CTA, as X[,Y[,Z]].
    #[arg(long, value_parser = parse_index, default_value = "2,1")]
    block: Dim3,
    /// The thread's index in its CTA (ctx.thread).
    #[arg(long, default_value_t = 113)]
    thread: u32,
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Check(args) => return check(&args),
        Command::Run(args) => return run::run(&args),
        Command::Ir(args) => return compiled::ir(&args),
        Command::Ptx(args) => return compiled::ptx(&args),
        Command::Wgsl(args) => return compiled::wgsl(&args),
        Command::Occupancy(args) => return occupancy::run(&args),
        Command::Lsp(args) => return lsp::run(&args),
        Command::Explain(args) => return explain::run(&args),
        Command::Fmt(args) => return fmt::run(&args),
        Command::Ctx(args) => ctx(&args),
        Command::Mma(args) => mma::run(&args),
        Command::Gpu => runtime::devices(),
    };
    match result {
        Ok(text) => {
            print::print_out(&text);
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// One file's outcome, as `--json` prints it.
#[derive(serde::Serialize)]
struct FileReport {
    file: String,
    kernels: Vec<String>,
    diagnostics: Vec<Structured>,
}

fn check(args: &CheckArgs) -> ExitCode {
    let mut reports = Vec::new();
    let mut errors = false;
    for path in &args.files {
        let name = path.display().to_string();
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) => {
                eprintln!("error: cannot read {name}: {error}");
                return ExitCode::from(2);
            }
        };
        let compilation = compiler_core::compile_bytes(&bytes);
        let (source, diagnostics) = (compilation.source(), &compilation.diagnostics);
        let kernels: Vec<String> = compilation
            .checked
            .kernels
            .iter()
            .map(|k| k.name.clone())
            .collect();
        errors |= diagnostics.iter().any(|d| d.is_error());
        if args.json {
            let index = LineIndex::new(source);
            reports.push(FileReport {
                file: name,
                kernels,
                diagnostics: diagnostics
                    .iter()
                    .map(|d| Structured::new(d, source, &index))
                    .collect(),
            });
        } else if diagnostics.is_empty() {
            let programs: Vec<String> = compilation
                .file
                .programs
                .iter()
                .map(|p| p.name.name.clone())
                .collect();
            let programs = match programs.as_slice() {
                [] => String::new(),
                [one] => format!("; program {one}"),
                many => format!("; programs {}", many.join(", ")),
            };
            eprintln!("{name}: ok ({}{programs})", kernel_list(&kernels));
        } else {
            eprint!("{}", render_all(diagnostics, source, &name));
        }
    }
    if args.json {
        match serde_json::to_string_pretty(&reports) {
            Ok(json) => print::print_out(&format!("{json}\n")),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
        }
    }
    if errors {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn kernel_list(kernels: &[String]) -> String {
    match kernels {
        [] => "no kernels".to_owned(),
        [one] => format!("kernel {one}"),
        many => format!("kernels {}", many.join(", ")),
    }
}

fn ctx(args: &CtxArgs) -> Result<String, String> {
    let shape = LaunchShape::new(args.grid, args.threads, args.lanes).map_err(|e| e.to_string())?;
    let thread = shape
        .locate(args.block, args.thread)
        .map_err(|e| e.to_string())?;
    let rows = thread.explain();
    let field_width = rows
        .iter()
        .map(|r| r.field.len())
        .fold("field".len(), usize::max);
    let value_width = rows
        .iter()
        .map(|r| r.value.len())
        .fold("value".len(), usize::max);
    let mut out = format!("{}\n\n", thread.sentence());
    out += &format!("{:field_width$}  {:value_width$}  why\n", "field", "value");
    for row in &rows {
        out += &format!(
            "{:field_width$}  {:value_width$}  {}\n",
            row.field, row.value, row.why
        );
    }
    out += &format!(
        "\nctx.thread = ctx.warp * ctx.lanes + ctx.lane: {}\n",
        thread.relation()
    );
    out += &format!(
        "active mask of warp {}: {}\n",
        thread.warp(),
        thread.active_mask()
    );
    Ok(out)
}

/// Both GPU APIs, each with what it found or why it found nothing; an error only when neither
/// found a GPU.
/// Grid extents: axes left out are 1, as in CUDA's `dim3`.
pub(crate) fn parse_extents(text: &str) -> Result<Dim3, String> {
    parse_axes(text, 1)
}

/// A CTA's index: axes left out are 0.
fn parse_index(text: &str) -> Result<Dim3, String> {
    parse_axes(text, 0)
}

fn parse_axes(text: &str, missing: u32) -> Result<Dim3, String> {
    let numbers = text
        .split(',')
        .map(|part| part.trim().parse::<u32>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| format!("`{text}` is not X[,Y[,Z]] with whole numbers"))?;
    match numbers[..] {
        [x] => Ok(Dim3::new(x, missing, missing)),
        [x, y] => Ok(Dim3::new(x, y, missing)),
        [x, y, z] => Ok(Dim3::new(x, y, z)),
        _ => Err(format!("`{text}` has more than three axes")),
    }
}
