//! `ptxas -v`: the registers per thread NVIDIA's assembler gives a kernel's PTX, for
//! occupancy (`tessera occupancy`, Python's `Module.occupancy`). The assembler is this machine's
//! (`$PTXAS`, else `ptxas` on the `PATH`); without one the caller says what it assumed.

use compiler_core::ptx::Arch;
use std::io::Write;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The registers per thread `ptxas -v` reports for `ptx`, or why it could not say.
pub fn registers(ptx: &str, arch: Arch) -> Result<u32, String> {
    // A name of this process's own, made new (never an existing file, nor a link someone left
    // there), so two calls at once, or two users of one temporary directory, never meet.
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    let stem = format!(
        "tessera-occupancy-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    );
    let path = dir.join(format!("{stem}.ptx"));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut file| file.write_all(ptx.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let ptxas = std::env::var_os("PTXAS").unwrap_or_else(|| "ptxas".into());
    let cubin = dir.join(format!("{stem}.cubin"));
    let output = Command::new(ptxas)
        .args(["-v", "--gpu-name", arch.name(), "-o"])
        .arg(&cubin)
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&cubin);
    let output = output.map_err(|_| "no ptxas on this machine".to_owned())?;
    let text = String::from_utf8_lossy(&output.stderr);
    registers_in(&text).ok_or_else(|| "ptxas did not say how many registers".to_owned())
}

/// The registers per thread for occupancy, and where they came from: `given` (by the host's
/// `option`, `--registers` or `registers=`), else `ptxas -v`'s, else a guess that says why
/// and how to give them (`example`: `--registers N`).
pub fn registers_or_guess(
    given: Option<u32>,
    (option, example): (&str, &str),
    ptx: &str,
    arch: Arch,
) -> (u32, String) {
    match given {
        Some(n) => (n, option.to_owned()),
        None => match registers(ptx, arch) {
            Ok(n) => (n, "ptxas -v".to_owned()),
            Err(why) => (
                compiler_core::occupancy::DEFAULT_REGISTERS,
                format!("a guess ({why}; pass {example})"),
            ),
        },
    }
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
