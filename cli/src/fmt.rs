//! `tessera fmt`: lays out `.tsr` files as every example is written (`compiler_core::format`,
//! which the language server's "format document" calls too).
//!
//! In: file paths (`-` for stdin). Out: the files rewritten in place (or, with `--check`, the
//! names of those that would change, and nothing written); a file that does not parse is left
//! as it is, with its first syntax error. Exit 0, 1 (with `--check`, a file would change; or a
//! file did not parse), 2 when a file cannot be read or written.

use compiler_core::diagnostic::render;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct FmtArgs {
    /// The .tsr files to format in place; `-` reads stdin and writes the result to stdout.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write nothing: list the files that are not laid out, and exit 1 if there are any.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &FmtArgs) -> ExitCode {
    let mut failed = false;
    for path in &args.files {
        let stdin = path.as_os_str() == "-";
        let name = if stdin {
            "<stdin>".to_owned()
        } else {
            path.display().to_string()
        };
        let mut source = String::new();
        let read = if stdin {
            std::io::stdin().read_to_string(&mut source).map(|_| ())
        } else {
            std::fs::read_to_string(path).map(|text| source = text)
        };
        if let Err(error) = read {
            eprintln!("error: cannot read {name}: {error}");
            return ExitCode::from(2);
        }
        let formatted = match compiler_core::format(&source) {
            Ok(formatted) => formatted,
            Err(diagnostic) => {
                eprint!("{}", render(&diagnostic, &source, &name));
                eprintln!("error: {name} is left as it is: it does not parse");
                failed = true;
                continue;
            }
        };
        if args.check {
            if formatted != source {
                crate::print::print_out(&format!("{name}\n"));
                failed = true;
            }
        } else if stdin {
            crate::print::print_out(&formatted);
        } else if formatted != source {
            if let Err(error) = std::fs::write(path, &formatted) {
                eprintln!("error: cannot write {name}: {error}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::from(u8::from(failed))
}
