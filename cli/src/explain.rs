//! `tessera explain CODE`: a diagnostic code's entry in the error index, as text.
//!
//! In: a code (`E0112`, `e112` or `112`). Out: its entry from `content/errors.md` (the page the site
//! renders at `/docs/errors#CODE`), built into the binary, so it reads the same offline and
//! from an editor. The entry is the page's Markdown, headings and kernels as written.

use compiler_core::diagnostic::Code;
use std::process::ExitCode;

const ERROR_INDEX: &str = include_str!("../../content/errors.md");

#[derive(clap::Args)]
pub struct ExplainArgs {
    /// The code, as a diagnostic names it: E0112.
    code: String,
}

pub fn run(args: &ExplainArgs) -> ExitCode {
    let text = args.code.trim().to_ascii_uppercase();
    let digits = text.strip_prefix('E').unwrap_or(&text);
    let text = format!("E{digits:0>4}");
    let Some(code) = Code::parse(&text) else {
        eprintln!(
            "error: `{}` is not a diagnostic code: codes are E followed by four digits, as in E0112",
            args.code
        );
        return ExitCode::from(2);
    };
    match entry(code) {
        Some(entry) => {
            crate::print::print_out(&entry);
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "error: {} has no entry in this version's error index: {}",
                code.as_str(),
                code.explanation()
            );
            ExitCode::from(1)
        }
    }
}

/// The entry of `code`: its heading (without the anchor) and everything up to the next one.
fn entry(code: Code) -> Option<String> {
    let heading = format!("## {}: ", code.as_str());
    let start = ERROR_INDEX.find(&heading)?;
    let rest = &ERROR_INDEX[start..];
    let end = rest[heading.len()..]
        .find("\n## ")
        .map_or(rest.len(), |i| i + heading.len() + 1);
    let anchor = format!(" {{#{}}}", code.as_str());
    Some(rest[..end].replacen(&anchor, "", 1).trim_end().to_owned() + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code the compiler gives has an entry (the docs' own check says the same of the
    /// page).
    #[test]
    fn every_code_has_an_entry_and_each_ends_before_the_next() {
        for &code in Code::ALL {
            let entry = entry(code).unwrap_or_else(|| panic!("{}", code.as_str()));
            assert!(
                entry.starts_with(&format!("## {}: ", code.as_str())),
                "{entry}"
            );
            assert_eq!(entry.matches("\n## ").count(), 0, "{entry}");
            assert!(!entry.contains("{#"), "{entry}");
        }
    }
}
