//! `tessera mma m16n8k16`: the lane ↔ element map, checked against the PTX ISA's own
//! statement of it (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type",
//! the figures "MMA .m16n8k16 fragment layout for matrix A / B / C"), written out here in the
//! ISA's words rather than taken from `compiler_core::mma`.

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

/// The ISA's formulas: `groupID = %laneid >> 2`, `threadID_in_group = %laneid % 4`.
fn isa(operand: &str, lane: u64, i: u64) -> (u64, u64) {
    let (group_id, thread_id_in_group) = (lane >> 2, lane % 4);
    match operand {
        // row = groupID for ai where 0 <= i < 2 || 4 <= i < 6, groupID + 8 otherwise;
        // col = (threadID_in_group * 2) + (i & 0x1) for ai where i < 4, + 8 for i >= 4.
        "a" => (
            if i < 2 || (4..6).contains(&i) {
                group_id
            } else {
                group_id + 8
            },
            thread_id_in_group * 2 + (i & 0x1) + if i < 4 { 0 } else { 8 },
        ),
        // row = (threadID_in_group * 2) + (i & 0x1) for bi where i < 2, + 8 for i >= 2;
        // col = groupID.
        "b" => (
            thread_id_in_group * 2 + (i & 0x1) + if i < 2 { 0 } else { 8 },
            group_id,
        ),
        // row = groupID for ci where i < 2, groupID + 8 for i >= 2;
        // col = (threadID_in_group * 2) + (i & 0x1).
        _ => (
            if i < 2 { group_id } else { group_id + 8 },
            thread_id_in_group * 2 + (i & 0x1),
        ),
    }
}

#[test]
fn the_json_map_is_the_ptx_isas_for_every_lane_and_element() {
    let output = tessera(&["mma", "m16n8k16", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON: {e}: {}", text(&output.stdout)));
    assert_eq!(json["shape"], "m16n8k16");
    for (operand, per_lane) in [("a", 8), ("b", 4), ("c", 4)] {
        let Some(elements) = json[operand].as_array() else {
            panic!("no list for {operand}")
        };
        assert_eq!(elements.len(), 32 * per_lane, "{operand}");
        for (n, e) in elements.iter().enumerate() {
            let field = |name: &str| {
                e[name]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{operand}[{n}] has no {name}: {e}"))
            };
            let (lane, index) = (field("lane"), field("index"));
            assert_eq!(
                (lane, index),
                ((n / per_lane) as u64, (n % per_lane) as u64)
            );
            assert_eq!(
                (field("row"), field("col")),
                isa(operand, lane, index),
                "{operand}: lane {lane}, element {index}"
            );
        }
    }
}

#[test]
fn the_text_map_names_each_cells_lane_and_index() {
    let output = tessera(&["mma", "m16n8k16"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    // Lane 17 (group 4, thread 1 of its group) holds c0 and c1 at row 4, columns 2 and 3,
    // and c2, c3 at row 12.
    let c = &out[out
        .find("\nc (16 x 8")
        .unwrap_or_else(|| panic!("no C in {out}"))..];
    let row = |r: usize| {
        c.lines()
            .filter(|l| l.contains(':'))
            .find(|l| l.split_whitespace().next() == Some(&r.to_string()))
            .unwrap_or_else(|| panic!("no row {r} in {c}"))
            .split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
    };
    assert_eq!(row(4)[2..4], ["17:0", "17:1"]);
    assert_eq!(row(12)[2..4], ["17:2", "17:3"]);
    assert_eq!(
        row(0),
        ["0:0", "0:1", "1:0", "1:1", "2:0", "2:1", "3:0", "3:1"]
    );
}

#[test]
fn another_shape_is_refused_with_the_one_there_is() {
    let output = tessera(&["mma", "m16n8k8"]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("the one shape is m16n8k16"),
        "{}",
        text(&output.stderr)
    );
}

/// The simulator's GEMM on `mma` against numpy, for several shapes over up to 64 CTAs: bit for
/// bit with the spec's rule written in numpy's f32 arithmetic, and within the tolerance of
/// numpy's float64 product (`tests/mma_numpy.py` says how). numpy is Debian's `python3-numpy`,
/// which `scripts/install-tools.sh test` installs, so the test runs Debian's python.
#[test]
fn gemms_of_several_shapes_agree_with_numpy() {
    let python = match std::path::Path::new("/usr/bin/python3").exists() {
        true => "/usr/bin/python3",
        false => "python3",
    };
    let manifest = env!("CARGO_MANIFEST_DIR");
    let scratch = std::env::temp_dir().join(format!("tessera-mma-numpy-{}", std::process::id()));
    let output = match Command::new(python)
        .arg(format!("{manifest}/tests/mma_numpy.py"))
        .arg(env!("CARGO_BIN_EXE_tessera"))
        .arg(format!("{manifest}/../examples/mma_gemm.tsr"))
        .arg(&scratch)
        .output()
    {
        Ok(output) => output,
        Err(error) => panic!("{python} did not start: {error}"),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        output.status.success(),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    assert_eq!(text(&output.stdout).matches("the rule's bits").count(), 5);
}
