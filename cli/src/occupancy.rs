//! `tessera occupancy`: a kernel's CTAs and warps per SM on sm_70, sm_80 and sm_90, and the
//! limit that binds (`compiler_core::occupancy`). The registers per thread come from
//! `--registers`, else from `ptxas -v` where this machine has ptxas (`$PTXAS`, else on the
//! `PATH`), else the stated default.

use crate::print::print_out;
use crate::run::{compile, report};
use compiler_core::occupancy::line;
use compiler_core::ptx::Arch;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct OccupancyArgs {
    /// The .tsr file.
    file: PathBuf,
    /// The kernel (the file's only kernel by default).
    #[arg(long)]
    kernel: Option<String>,
    /// The target: sm_70, sm_80 or sm_90 (all three by default).
    #[arg(long)]
    arch: Option<Arch>,
    /// Registers per thread (by default, what `ptxas -v` says, or 32 without ptxas).
    #[arg(long)]
    registers: Option<u32>,
}

pub fn run(args: &OccupancyArgs) -> ExitCode {
    let compilation = match compile(&args.file) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let archs = args.arch.map_or(Arch::ALL.to_vec(), |a| vec![a]);
    for arch in archs {
        let ptx = match compilation.ptx(args.kernel.as_deref(), arch) {
            Ok(ptx) => ptx,
            // Every target asked: one without the kernel's instructions (sm_70 and `mma`)
            // says so, and the others are still worked out.
            Err(diagnostics)
                if args.arch.is_none()
                    && diagnostics
                        .iter()
                        .all(|d| d.code == compiler_core::Code::E0522) =>
            {
                let why = diagnostics
                    .first()
                    .map_or(String::new(), |d| d.message.clone());
                print_out(&format!("{}: no occupancy: {why}\n", arch.name()));
                continue;
            }
            Err(diagnostics) => return report(&diagnostics, &compilation, &args.file),
        };
        let threads = match compilation.kernel(args.kernel.as_deref()) {
            Ok(kernel) => kernel.threads,
            Err(diagnostics) => return report(&diagnostics, &compilation, &args.file),
        };
        let (registers, from) = runtime::ptxas::registers_or_guess(
            args.registers,
            ("--registers", "--registers N"),
            &ptx.text,
            arch,
        );
        match line(arch, threads, ptx.shared_bytes, registers, &from) {
            Ok(text) => print_out(&text),
            Err(why) => {
                eprintln!("error: {why}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
