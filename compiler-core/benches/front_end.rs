//! Lex + parse + check, the work the playground repeats on every keystroke.
//!
//! `cargo bench -p compiler-core --bench front_end`; figures go to BENCHMARKS.md.

use compiler_core::compile;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

const MATVEC: &str = include_str!("../tests/ui/matvec.tsr");
const UNIFORMITY: &str = include_str!("../tests/ui/uniformity_ok.tsr");

/// About 2,000 lines of correct kernels (copies of the two above, renamed).
fn two_thousand_lines() -> String {
    let mut source = String::new();
    let mut index = 0;
    while source.lines().count() < 2_000 {
        source += &MATVEC.replace("kernel mv(", &format!("kernel mv{index}("));
        source += &UNIFORMITY.replace("kernel reduce(", &format!("kernel reduce{index}("));
        index += 1;
    }
    source
}

fn front_end(c: &mut Criterion) {
    let large = two_thousand_lines();
    assert!(!compile(&large).has_errors());
    assert!(!compile(MATVEC).has_errors());
    c.bench_function("check matvec (hierarchy page)", |b| {
        b.iter(|| compile(black_box(MATVEC)))
    });
    c.bench_function("check 2,000-line file", |b| {
        b.iter(|| compile(black_box(&large)))
    });
    // The WGSL backend on top: lower, build the naga module, validate, write (subgroup mode).
    let tiled = include_str!("../../examples/tiled_matmul.tsr");
    for (name, source) in [("matvec", MATVEC), ("tiled matmul", tiled)] {
        c.bench_function(&format!("check + WGSL, {name}"), |b| {
            b.iter(|| {
                compile(black_box(source))
                    .wgsl(None, 32, compiler_core::wgsl::WarpMode::Subgroups)
                    .map(|w| w.text.len())
            })
        });
    }
}

criterion_group!(benches, front_end);
criterion_main!(benches);
