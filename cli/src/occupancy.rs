//! `tessera occupancy`: a kernel's CTAs and warps per SM on sm_70, sm_80 and sm_90, and the
//! limit that binds (`compiler_core::occupancy`). The registers per thread come from
//! `--registers`, else from `ptxas -v` where this machine has ptxas (`$PTXAS`, else on the
//! `PATH`), else the stated default.

use crate::print::print_out;
use crate::run::{compile, report};
use compiler_core::occupancy::{occupancy, DEFAULT_REGISTERS};
use compiler_core::ptx::Arch;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

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
        let (registers, from) = match args.registers {
            Some(n) => (n, "--registers".to_owned()),
            None => match ptxas_registers(&ptx.text, arch) {
                Ok(n) => (n, "ptxas -v".to_owned()),
                Err(why) => (
                    DEFAULT_REGISTERS,
                    format!("a guess ({why}; pass --registers N)"),
                ),
            },
        };
        match occupancy(arch, threads, ptx.shared_bytes, registers) {
            Ok(o) => {
                print_out(&format!(
                    "{}  ({threads} threads per CTA, {} bytes of shared memory, {registers} registers per thread from {from})\n",
                    o.to_text(),
                    ptx.shared_bytes
                ));
            }
            Err(why) => {
                eprintln!("error: {why}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}

/// The registers per thread `ptxas -v` reports for `ptx`, or why it could not say.
fn ptxas_registers(ptx: &str, arch: Arch) -> Result<u32, String> {
    let path = std::env::temp_dir().join(format!("tessera-occupancy-{}.ptx", std::process::id()));
    std::fs::write(&path, ptx).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let ptxas = std::env::var_os("PTXAS").unwrap_or_else(|| "ptxas".into());
    let output = Command::new(ptxas)
        .args(["-v", "--gpu-name", arch.name(), "-o"])
        .arg(std::env::temp_dir().join(format!("tessera-occupancy-{}.cubin", std::process::id())))
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let output = output.map_err(|_| "no ptxas on this machine".to_owned())?;
    let text = String::from_utf8_lossy(&output.stderr);
    registers_in(&text).ok_or_else(|| "ptxas did not say how many registers".to_owned())
}

/// "ptxas info    : Used 18 registers, 380 bytes cmem[0]" → 18.
fn registers_in(text: &str) -> Option<u32> {
    let after = text.split("Used ").nth(1)?;
    let (number, rest) = after.split_once(' ')?;
    rest.starts_with("registers").then(|| number.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::registers_in;

    #[test]
    fn registers_are_read_from_ptxas_output() {
        let text = "ptxas info    : 0 bytes gmem\nptxas info    : Compiling entry function 'dot' for 'sm_90'\nptxas info    : Used 18 registers, 380 bytes cmem[0]\n";
        assert_eq!(registers_in(text), Some(18));
        assert_eq!(
            registers_in("ptxas fatal   : Unresolved extern function"),
            None
        );
    }
}
