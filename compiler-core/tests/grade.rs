//! Grading an attempt against a reference kernel (what the puzzles run; docs-build's content
//! test grades every puzzle's solution and starter).

use compiler_core::grade::{grade, Feature, Rules, Verdict};
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};

const REFERENCE: &str = "@launch(64)\nkernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    Y[i] = X[i] * 2\n  }\n}\n";

fn launch() -> Launch {
    Launch {
        grid: Dim3::new(2, 1, 1),
        dims: [("N".to_owned(), 100)].into(),
        inputs: [("X".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    }
}

fn graded(attempt: &str, rules: &Rules) -> Verdict {
    grade(attempt, REFERENCE, &launch(), rules).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_reference_itself_passes() {
    assert_eq!(graded(REFERENCE, &Rules::default()), Verdict::Pass);
}

#[test]
fn a_wrong_element_names_its_index_values_and_writer() {
    let attempt = REFERENCE.replace("X[i] * 2", "select(i == 70, 0, X[i] * 2)");
    let Verdict::Wrong {
        tensor,
        index,
        got,
        want,
        writer,
    } = graded(&attempt, &Rules::default())
    else {
        panic!("not wrong");
    };
    assert_eq!(
        (tensor.as_str(), index, got.as_str(), want.as_str()),
        ("Y", vec![70], "0", "140")
    );
    let writer = writer.unwrap_or_else(|| panic!("no writer"));
    assert_eq!(writer.block, Dim3::new(1, 0, 0));
    assert_eq!((writer.thread, writer.warp, writer.lane), (6, 0, 6));
}

#[test]
fn other_parameters_and_compile_errors_are_their_own_verdicts() {
    let renamed = REFERENCE
        .replace("Y: tensor", "Z: tensor")
        .replace("Y[i]", "Z[i]");
    assert_eq!(
        graded(&renamed, &Rules::default()),
        Verdict::Parameters {
            want: vec!["X".to_owned(), "Y".to_owned()],
            got: vec!["X".to_owned(), "Z".to_owned()],
        }
    );
    let broken = REFERENCE.replace("X[i] * 2", "X[i] * 2.5");
    assert!(matches!(
        graded(&broken, &Rules::default()),
        Verdict::Broken { .. }
    ));
}

#[test]
fn rules_are_read_from_the_kernel_not_its_text() {
    let rules = Rules {
        uses: vec![Feature::Shuffle],
        ..Rules::default()
    };
    // A comment that names a shuffle does not count.
    let attempt = REFERENCE.replace("  let i", "  // shuffle(x, 1)\n  let i");
    assert!(matches!(graded(&attempt, &rules), Verdict::Rule { .. }));
    let rules = Rules {
        max_barriers: Some(0),
        ..Rules::default()
    };
    let attempt = REFERENCE.replace("  let i", "  barrier()\n  let i");
    let Verdict::Rule { rule, why, .. } = graded(&attempt, &rules) else {
        panic!("the barrier was not counted");
    };
    assert_eq!(
        (rule.as_str(), why.as_str()),
        ("at most 0 barriers", "the kernel has 1")
    );
}

#[test]
fn a_wrong_float_reads_as_the_f32_it_is() {
    let reference = "@launch(64)\nkernel k(X: tensor<i32>[N], Y: tensor<f32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    Y[i] = f32(X[i]) / 10.0\n  }\n}\n";
    let attempt = reference.replace("f32(X[i]) / 10.0", "select(i == 1, 1.1, f32(X[i]) / 10.0)");
    let verdict = grade(&attempt, reference, &launch(), &Rules::default());
    let Ok(Verdict::Wrong {
        index, got, want, ..
    }) = verdict
    else {
        panic!("not wrong: {verdict:?}");
    };
    // Not 0.10000000149011612, the f64 of the f32 nearest 0.1.
    assert_eq!(
        (index, got.as_str(), want.as_str()),
        (vec![1], "1.1", "0.1")
    );
}
