//! The docs' transcripts (issue 67): a ```` ```text ```` block of `content/*.md` or the README
//! whose first line is `$ tessera ARGS` is that command run from the repository's root, and its
//! other lines are what it prints. Each run of lines between two `…` lines must appear, line
//! for line and in order, in the command's standard output or its standard error (so a
//! transcript may show an excerpt: `…` marks what it leaves out). ptxas is the one `make test`
//! installs, so a transcript may quote what it reports.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `$PTXAS`, else the copy `make test` puts in `.tools/venv`.
fn ptxas() -> PathBuf {
    if let Some(path) = std::env::var_os("PTXAS") {
        return path.into();
    }
    let found = std::fs::read_dir(root().join(".tools/venv/lib"))
        .ok()
        .and_then(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas"))
                .find(|p| p.exists())
        });
    found.unwrap_or_else(|| {
        panic!("ptxas not found: set PTXAS or run `make test`, which installs it")
    })
}

struct Transcript {
    /// Where it is, `content/memory.md:113`.
    place: String,
    args: Vec<String>,
    /// The lines shown, in runs that `…` separates.
    runs: Vec<Vec<String>>,
}

/// The transcripts of one Markdown file.
fn transcripts(path: &Path, name: &str) -> Vec<Transcript> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let opens = lines[i].trim_start() == "```text";
        let command = lines.get(i + 1).and_then(|l| l.strip_prefix("$ tessera "));
        let (true, Some(command)) = (opens, command) else {
            i += 1;
            continue;
        };
        assert!(
            !command.contains(['"', '\'', '\\']),
            "{name}:{}: a transcript's command is words, without quotes or escapes",
            i + 2
        );
        let mut runs: Vec<Vec<String>> = vec![Vec::new()];
        let mut j = i + 2;
        while j < lines.len() && lines[j].trim_start() != "```" {
            let line = lines[j].trim_end();
            match runs.last_mut() {
                Some(run) if line.trim_start() != "…" => run.push(line.to_owned()),
                _ => runs.push(Vec::new()),
            }
            j += 1;
        }
        runs.retain(|run| !run.is_empty());
        found.push(Transcript {
            place: format!("{name}:{}", i + 1),
            args: command.split_whitespace().map(str::to_owned).collect(),
            runs,
        });
        i = j;
    }
    found
}

/// Whether `run` is a stretch of `lines`.
fn holds(lines: &[&str], run: &[String]) -> bool {
    lines
        .windows(run.len())
        .any(|w| w.iter().zip(run).all(|(a, b)| a.trim_end() == b))
}

#[test]
fn every_transcript_in_the_docs_is_what_the_command_prints() {
    let mut files = vec![(root().join("README.md"), "README.md".to_owned())];
    let content = std::fs::read_dir(root().join("content")).unwrap_or_else(|e| panic!("{e}"));
    for entry in content.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            files.push((entry.path(), format!("content/{name}")));
        }
    }
    files.sort();
    let all: Vec<Transcript> = files
        .iter()
        .flat_map(|(path, name)| transcripts(path, name))
        .collect();
    // The occupancy table (memory.md), the fragment map (tensor-cores.md) and the tiled matmul's
    // work and roofline (costs.md) at least: a transcript that stops parsing is caught.
    assert!(all.len() >= 3, "{} transcripts found", all.len());
    let ptxas = ptxas();
    let mut wrong = Vec::new();
    for transcript in &all {
        let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(&transcript.args)
            .current_dir(root())
            .env("PTXAS", &ptxas)
            .output()
            .unwrap_or_else(|e| panic!("tessera did not start: {e}"));
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let (out, err): (Vec<&str>, Vec<&str>) =
            (stdout.lines().collect(), stderr.lines().collect());
        assert!(
            output.status.success(),
            "{}: `tessera {}` failed:\n{stderr}",
            transcript.place,
            transcript.args.join(" ")
        );
        for run in &transcript.runs {
            if !holds(&out, run) && !holds(&err, run) {
                wrong.push(format!(
                    "{}: `tessera {}` does not print\n{}\nIt prints:\n{stdout}{stderr}",
                    transcript.place,
                    transcript.args.join(" "),
                    run.join("\n")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
