//! `tessera check`: diagnostics on stderr, exit 0 / 1 / 2, and a JSON form.

use std::process::{Command, Output};

fn tessera(args: &[&str]) -> Output {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/check");
    match Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(dir)
        .args(args)
        .output()
    {
        Ok(output) => output,
        Err(error) => panic!("tessera did not start: {error}"),
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_correct_file_exits_zero() {
    let output = tessera(&["check", "good.tsr"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "good.tsr: ok (kernel mv)\n");
}

#[test]
fn errors_are_rendered_and_exit_one() {
    let output = tessera(&["check", "good.tsr", "bad.tsr"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.starts_with("good.tsr: ok (kernel mv)\nerror[E0402]: sum<over ctx.lane> is reached under varying control\n --> bad.tsr:8:13\n"), "{text}");
    assert!(
        text.ends_with("error: could not compile: 2 errors\n"),
        "{text}"
    );
}

#[test]
fn an_unreadable_file_exits_two() {
    let output = tessera(&["check", "missing.tsr"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with("error: cannot read missing.tsr:"));
}

#[test]
fn no_file_is_a_usage_error() {
    assert_eq!(tessera(&["check"]).status.code(), Some(2));
}

#[test]
fn json_gives_codes_spans_and_lines() {
    let output = tessera(&["check", "--json", "bad.tsr"]);
    assert_eq!(output.status.code(), Some(1));
    let reports: serde_json::Value = match serde_json::from_slice(&output.stdout) {
        Ok(value) => value,
        Err(error) => panic!("not JSON: {error}"),
    };
    let first = &reports[0]["diagnostics"][0];
    assert_eq!(reports[0]["file"], "bad.tsr");
    assert_eq!(first["code"], "E0402");
    assert_eq!(first["primary"]["start"]["line"], 8);
    assert_eq!(first["primary"]["start"]["column"], 13);
    assert_eq!(
        first["labels"][0]["message"],
        "this condition differs between threads, and some threads `break` under it"
    );
}

/// Issue 52: `tessera explain CODE` prints the code's entry in the error index (what the
/// language server's links pointed at an address that may not answer), and refuses what is not
/// a code.
#[test]
fn explain_prints_a_codes_entry_in_the_error_index() {
    let run = |code: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(["explain", code])
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let output = run("e112");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("## E0112: ctx has no field of that name\n"),
        "{text}"
    );
    assert!(text.contains("**Fix.**"), "{text}");
    assert!(!text.contains("## E0113"), "{text}");
    let bad = run("E9");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("`E9` is not a diagnostic code"));
}

/// `tessera fmt`: `--check` lists a file out of layout and writes nothing; without it the file
/// is rewritten, and formats to itself; a file that does not parse is left as it is.
#[test]
fn fmt_lays_out_files_and_leaves_a_broken_one() {
    let dir = std::env::temp_dir().join(format!("tessera-fmt-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let messy = dir.join("messy.tsr");
    let broken = dir.join("broken.tsr");
    let text =
        "@launch(64)\nkernel k( X: tensor<f32>[N] ) {\n      X[ctx.thread]  = 1.0   \n\n\n}\n";
    let write = |path: &std::path::Path, text: &str| {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    write(&messy, text);
    write(&broken, "kernel k( {\n");
    let path = |p: &std::path::Path| p.display().to_string();
    let output = tessera(&["fmt", "--check", &path(&messy)]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("{}\n", path(&messy))
    );
    assert_eq!(std::fs::read_to_string(&messy).ok().as_deref(), Some(text));
    let output = tessera(&["fmt", &path(&messy)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let formatted = std::fs::read_to_string(&messy).unwrap_or_default();
    assert_eq!(
        formatted,
        "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.thread] = 1.0\n}\n"
    );
    assert_eq!(
        tessera(&["fmt", "--check", &path(&messy)]).status.code(),
        Some(0)
    );
    let output = tessera(&["fmt", &path(&broken)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("is left as it is: it does not parse"));
    assert_eq!(
        std::fs::read_to_string(&broken).ok().as_deref(),
        Some("kernel k( {\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
