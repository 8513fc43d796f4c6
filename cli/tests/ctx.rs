//! `tessera ctx` prints the hierarchy page's worked example and explains bad places.

use std::process::{Command, Output};

fn tessera(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
    {
        Ok(output) => output,
        Err(error) => panic!("tessera did not start: {error}"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn prints_the_worked_example_by_default() {
    let output = tessera(&["ctx"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let expected = "\
block (2, 1), warp 3, lane 17, thread 113

field                       value  why
ctx.blocks.x, ctx.blocks.y  4, 3   the grid the host launched
ctx.block.x, ctx.block.y    2, 1   the CTA picked
ctx.threads                 256    @launch(256)
ctx.lanes                   32     the target
ctx.warps                   8      256 / 32
ctx.thread                  113    the thread picked
ctx.warp                    3      113 / 32, rounded down
ctx.lane                    17     113 - 3 * 32

ctx.thread = ctx.warp * ctx.lanes + ctx.lane: 113 = 3 * 32 + 17
active mask of warp 3: 0xffffffff
";
    assert_eq!(text(&output.stdout), expected);
}

#[test]
fn shows_the_partial_warp_mask() {
    let output = tessera(&[
        "ctx", "--grid", "1", "--launch", "48", "--block", "0", "--thread", "47",
    ]);
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with("block 0, warp 1, lane 15, thread 47\n"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("active mask of warp 1: 0x0000ffff\n"),
        "{stdout}"
    );
}

#[test]
fn a_thread_outside_the_cta_is_a_clear_error() {
    let output = tessera(&["ctx", "--launch", "48", "--thread", "48"]);
    assert!(!output.status.success());
    assert_eq!(
        text(&output.stderr),
        "error: thread 48 is outside the CTA: ctx.thread runs from 0 to 47\n"
    );
}

#[test]
fn malformed_axes_are_rejected_by_the_argument_parser() {
    let output = tessera(&["ctx", "--grid", "4,x"]);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("`4,x` is not X[,Y[,Z]] with whole numbers"));
}
