//! An untyped literal takes the type its use needs; one combined by an integer-only operator
//! (`% & | ^ << >> ~`) stays an integer (the checker refuses it where a float is needed: see
//! `tests/ui/integer_operators.tsr`).

use compiler_core::launch::Launch;
use compiler_core::sim::Arg;

const KERNEL: &str = "
@launch(32)
kernel literals(X: tensor<f32>[N], U: tensor<u32>[N]) {
  let half: f32 = 7 / 2
  let bits: f32 = f32(7 ^ 3)
  let root = sqrt(f32(7 % 4))
  let top: u32 = 1 << 31
  U[ctx.thread] = top + (3 & 1) + u32(~0 & 2)
  X[ctx.thread] = half + bits + root
}
";

fn bits(output: &compiler_core::RunOutput, index: usize) -> &[u32] {
    match &output.args.params[index] {
        Arg::Tensor(tensor) => &tensor.bits,
        Arg::Scalar(_) => panic!("parameter {index} is a scalar"),
    }
}

#[test]
fn literals_compute_in_the_type_their_use_needs() {
    let launch = Launch {
        dims: [("N".to_owned(), 32)].into_iter().collect(),
        ..Launch::default()
    };
    let output = match compiler_core::compile(KERNEL).run(&launch) {
        Ok(output) => output,
        Err(diagnostics) => panic!("{diagnostics:#?}"),
    };
    let expected_x = 3.5_f32 + 4.0 + 3.0_f32.sqrt();
    assert!(bits(&output, 0)
        .iter()
        .all(|b| f32::from_bits(*b) == expected_x));
    assert!(bits(&output, 1).iter().all(|b| *b == (1 << 31) + 1 + 2));
}
