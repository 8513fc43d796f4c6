//! `tessera run` of a kernel under `@cluster`: the same launch gives the same result on 1, 2
//! and 4 nodes, in process (`--nodes`) and as processes under `mpirun` (Open MPI), with more
//! super-tiles than nodes and fewer.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TESSERA: &str = env!("CARGO_BIN_EXE_tessera");

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/cluster_scale.tsr")
        .display()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-cluster-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

/// `cluster_scale` over N elements (super-tiles of 256), Y written to `out`.
fn launch_args(n: u32, out: &Path) -> Vec<String> {
    [
        "run",
        &example(),
        "--grid",
        "4",
        "--dim",
        &format!("N={n}"),
        "--scalar",
        "alpha=2",
        "--in",
        "X=rand:7",
        "--out",
        &out.display().to_string(),
    ]
    .map(str::to_owned)
    .to_vec()
}

fn succeed(mut command: Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} did not start: {e}"));
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn in_process(n: u32, nodes: u32, name: &str) -> (Vec<u8>, String) {
    let out = scratch(name);
    let mut command = Command::new(TESSERA);
    command
        .args(launch_args(n, &out))
        .args(["--nodes", &nodes.to_string()]);
    let output = succeed(command);
    let y = std::fs::read(out.join("Y.npy")).unwrap_or_else(|e| panic!("{e}"));
    (y, String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn one_two_and_four_nodes_in_process_agree() {
    // 1000 elements: 4 super-tiles, more than 2 nodes and as many as 4.
    let (one, log) = in_process(1000, 1, "1");
    assert!(log.contains("4 super-tiles of N on 1 node(s)"), "{log}");
    let (two, log) = in_process(1000, 2, "2");
    assert!(log.contains("super-tile 2: N 512..768 on node 0"), "{log}");
    assert!(log.contains("super-tile 3: N 768..1000 on node 1"), "{log}");
    let (four, _) = in_process(1000, 4, "4");
    assert_eq!(one, two);
    assert_eq!(one, four);
    // 300 elements: 2 super-tiles, fewer than 4 nodes (nodes 2 and 3 get none).
    let (few, log) = in_process(300, 4, "few");
    assert!(log.contains("2 super-tiles of N on 4 node(s)"), "{log}");
    let (one, _) = in_process(300, 1, "few1");
    assert_eq!(few, one);
}

// The MPI tests need the CLI built with `--features mpi`, as `make test` builds it.
#[cfg(feature = "mpi")]
#[test]
fn mpirun_with_one_two_and_four_processes_agrees_with_one_process() {
    let (expected, _) = in_process(1000, 1, "reference");
    let (expected_few, _) = in_process(300, 1, "reference-few");
    for (n, processes, reference) in [
        (1000, 1, &expected),
        (1000, 2, &expected),
        (1000, 4, &expected),
        (300, 4, &expected_few),
    ] {
        let out = scratch(&format!("mpi{processes}-{n}"));
        let mut command = Command::new("mpirun");
        command
            // CI runs as root, and 4 processes on 2 cores oversubscribe them.
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .args(["-n", &processes.to_string(), "--oversubscribe", TESSERA])
            .args(launch_args(n, &out));
        let output = succeed(command);
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(
            log.contains(&format!("on {processes} node(s)")),
            "{processes} processes: {log}"
        );
        let y = std::fs::read(out.join("Y.npy")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&y, reference, "{processes} processes, N = {n}");
    }
}

#[cfg(feature = "mpi")]
#[test]
fn under_mpirun_a_kernel_without_cluster_runs_once_on_rank_0() {
    let vector_add = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/vector_add.tsr");
    let args = [
        "run",
        &vector_add.display().to_string(),
        "--grid",
        "2",
        "--dim",
        "N=300",
        "--in",
        "A=iota",
        "--in",
        "B=ones",
    ]
    .map(str::to_owned);
    let mut plain = Command::new(TESSERA);
    plain.args(&args);
    let expected = succeed(plain).stdout;
    let mut command = Command::new("mpirun");
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["-n", "2", "--oversubscribe", TESSERA])
        .args(&args);
    let output = succeed(command);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("has no @cluster: rank 0 runs it whole")
    );
    assert_eq!(output.stdout, expected);
}
