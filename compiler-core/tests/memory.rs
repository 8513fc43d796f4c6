//! Memory counts (`sim::profile`) against figures computed by hand from the rules: 32-byte
//! sectors and 128-byte lines for global memory, 32 banks of 4-byte words for shared memory.

use compiler_core::launch::{Input, Launch};
use compiler_core::sim::{AccessSite, MemoryProfile};
use compiler_core::target::{Arch, Bound};
use compiler_core::RunLimits;

fn profile(source: &str, dims: &[(&str, i64)], grid_x: u32) -> MemoryProfile {
    let mut launch = Launch {
        dims: dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..Launch::default()
    };
    launch.grid.x = grid_x;
    profile_of(source, &launch)
}

fn profile_of(source: &str, launch: &Launch) -> MemoryProfile {
    let compilation = compiler_core::compile(source);
    let prepared = match compilation.prepare(launch, RunLimits::TERMINAL) {
        Ok(prepared) => prepared,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let profiled = prepared.simulate_profiled();
    if let Err(diagnostic) = profiled.output {
        panic!("{diagnostic:?}");
    }
    profiled.profile.unwrap_or_else(|why| panic!("{why}"))
}

/// The site whose span is exactly `text`.
fn site<'p>(profile: &'p MemoryProfile, source: &str, text: &str) -> &'p AccessSite {
    profile
        .sites
        .iter()
        .find(|s| &source[s.span.range()] == text)
        .unwrap_or_else(|| {
            let all: Vec<&str> = profile
                .sites
                .iter()
                .map(|s| &source[s.span.range()])
                .collect();
            panic!("no access `{text}` among {all:?}")
        })
}

const GLOBAL: &str = "@launch(32)
kernel strides(X: tensor<f32>[N], Y: tensor<f32>[32]) {
  let l = ctx.thread
  var s = X[l]
  s = s + X[l * 2]
  s = s + X[l * 32]
  s = s + X[l + 1]
  s = s + X[7]
  if l < 16 {
    s = s + X[l + 64]
  }
  if l % 2 == 0 {
    s = s + X[l + 128]
  }
  Y[l] = s
  barrier()
  if l == 3 {
    Y[0] = s
  }
}
";

/// (sectors, ideal sectors, excess sectors) of a site.
fn sectors(site: &AccessSite) -> (u64, u64, u64) {
    (site.sectors, site.ideal_sectors, site.excess_sectors())
}

#[test]
fn global_requests_count_sectors_against_the_ideal_by_stride() {
    let p = profile(GLOBAL, &[("N", 2048)], 1);
    let at = |text| site(&p, GLOBAL, text);
    // Stride 1: 32 lanes x 4 bytes = 128 bytes, 4 sectors, 1 line, the ideal.
    let s1 = at("X[l]");
    assert_eq!(
        (s1.requests, s1.lanes, s1.sectors, s1.lines, s1.bytes),
        (1, 32, 4, 1, 128)
    );
    assert_eq!(sectors(s1), (4, 4, 0));
    assert!(!s1.is_poor());
    // Stride 2: 256 bytes spanned, 8 sectors, 2 lines; 128 bytes fit in 4: 4 excess, marked.
    let s2 = at("X[l * 2]");
    assert_eq!((s2.sectors, s2.lines), (8, 2));
    assert_eq!(sectors(s2), (8, 4, 4));
    assert!(s2.is_poor());
    // Stride 32 (128 bytes): every lane its own sector and line: 28 excess.
    let s32 = at("X[l * 32]");
    assert_eq!((s32.sectors, s32.lines), (32, 32));
    assert_eq!(sectors(s32), (32, 4, 28));
    assert!(s32.is_poor());
    // Shifted by one element: bytes 4 to 131 cross into a fifth sector and a second line: one
    // excess of five, not marked.
    let shifted = at("X[l + 1]");
    assert_eq!((shifted.sectors, shifted.lines), (5, 2));
    assert_eq!(sectors(shifted), (5, 4, 1));
    assert!(!shifted.is_poor());
    // A broadcast: every lane on one element, 4 bytes in one sector, the fewest there can be.
    let same = at("X[7]");
    assert_eq!((same.sectors, same.bytes), (1, 4));
    assert_eq!(sectors(same), (1, 1, 0));
    assert!(!same.is_poor());
    // 16 active lanes of 32: only they count (64 bytes, 2 sectors, the ideal).
    let half = at("X[l + 64]");
    assert_eq!(
        (half.requests, half.lanes, half.sectors, half.bytes),
        (1, 16, 2, 64)
    );
    assert_eq!(sectors(half), (2, 2, 0));
    // Even lanes only: 16 elements (64 bytes) spread over 4 sectors: 2 excess of 4, marked.
    let even = at("X[l + 128]");
    assert_eq!((even.lanes, even.sectors), (16, 4));
    assert_eq!(sectors(even), (4, 2, 2));
    assert!(even.is_poor());
    // The store, written by all 32 lanes in a row.
    let store = at("Y[l] = s");
    assert!(store.write);
    assert_eq!(sectors(store), (4, 4, 0));
    // One lane's store: 1 sector, the ideal.
    let one = at("Y[0] = s");
    assert_eq!(sectors(one), (1, 1, 0));
    assert!(!one.is_poor());
}

/// A 64-lane warp's access is two 32-lane requests, as NVIDIA's hardware counts them: a
/// stride-1 read is 4 sectors each, and a shared read of consecutive words is conflict-free.
#[test]
fn a_wide_warp_makes_a_request_per_32_lanes() {
    let source = "@launch(64)
kernel wide(X: tensor<f32>[N], Y: tensor<f32>[64]) {
  var t = tile<f32>[64](1.0)
  Y[ctx.thread] = X[ctx.thread] + t[ctx.thread]
}
";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: [("N".to_owned(), 64)].into(),
        lanes: 64,
        ..Launch::default()
    };
    let profiled = compilation
        .prepare(&launch, compiler_core::RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"))
        .simulate_profiled();
    let p = profiled.profile.unwrap_or_else(|why| panic!("{why}"));
    let read = site(&p, source, "X[ctx.thread]");
    assert_eq!((read.requests, read.lanes), (2, 64));
    assert_eq!(sectors(read), (8, 8, 0));
    let shared = site(&p, source, "t[ctx.thread]");
    assert_eq!((shared.requests, shared.worst_degree), (2, 1));
    assert_eq!((shared.wavefronts, shared.excess_wavefronts()), (2, 0));
}

#[test]
fn a_partial_warp_counts_its_threads_only_and_requests_are_per_warp() {
    // 48 threads: warp 0 full, warp 1 has 16 threads; over 2 CTAs, 4 requests.
    let source = "@launch(48)
kernel part(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  Y[i] = X[i]
}
";
    let p = profile(source, &[("N", 96)], 2);
    let load = site(&p, source, "X[i]");
    assert_eq!((load.requests, load.lanes), (4, 96));
    // CTA 0: warp 0 bytes 0-127 (4 sectors), warp 1 bytes 128-191 (2); CTA 1: bytes 192-319
    // (4 sectors, 6 to 9), bytes 320-383 (2).
    assert_eq!(load.sectors, 12);
    assert_eq!(sectors(load), (12, 12, 0));
}

const SHARED: &str = "@launch(32)
kernel banks(In: tensor<f32>[R, C], Y: tensor<f32>[32]) {
  let l = ctx.lane
  var t = In[0 :+ 32, 0 :+ 33]
  var s = t[0, l]
  s = s + t[l, 0]
  s = s + t[0, (l * 2) % 33]
  s = s + t[3, 5]
  Y[l] = s
}
";

#[test]
fn shared_requests_count_the_worst_bank() {
    let p = profile(SHARED, &[("R", 32), ("C", 33)], 1);
    let at = |text| site(&p, SHARED, text);
    // Along a row: consecutive words, one per bank.
    let row = at("t[0, l]");
    assert_eq!(
        (row.requests, row.worst_degree, row.mean_degree()),
        (1, 1, 1.0)
    );
    // Down a column of a 32 x 33 tile: words l * 33, banks (l * 33) % 32 = l: no conflict.
    let column = at("t[l, 0]");
    assert_eq!(column.worst_degree, 1);
    // Stride 2 within a row: words 0, 2, ..., 62 mod 33 (0..=32 even, then odd): lanes 0 and
    // 16 both fall in bank 0 (words 0 and 32): 2-way.
    let stride2 = at("t[0, (l * 2) % 33]");
    assert_eq!(stride2.worst_degree, 2);
    assert_eq!((stride2.wavefronts, stride2.ideal_wavefronts), (2, 1));
    assert!(stride2.is_poor());
    // Every lane on one word: a broadcast, no conflict, the ideal.
    let same = at("t[3, 5]");
    assert_eq!(same.worst_degree, 1);
    assert_eq!((same.wavefronts, same.excess_wavefronts()), (1, 0));
    assert!(!same.is_poor());
}

#[test]
fn strides_over_a_one_dimensional_tile() {
    let source = "@launch(32)
kernel strides(X: tensor<f32>[N], Y: tensor<f32>[32]) {
  let l = ctx.lane
  var t = X[0 :+ 1024]
  Y[l] = t[l] + t[l * 2] + t[l * 32]
}
";
    let p = profile(source, &[("N", 1024)], 1);
    // Stride 1: a bank each. Stride 2: words 2 l, lanes l and l + 16 in one bank. Stride 32:
    // every lane in bank 0.
    assert_eq!(site(&p, source, "t[l]").worst_degree, 1);
    assert_eq!(site(&p, source, "t[l * 2]").worst_degree, 2);
    let s32 = site(&p, source, "t[l * 32]");
    assert_eq!((s32.worst_degree, s32.mean_degree()), (32, 32.0));
}

#[test]
fn the_compiler_pads_a_32_wide_tile_so_a_column_read_is_conflict_free() {
    let source = "@launch(32)
kernel column(In: tensor<f32>[R, C], Y: tensor<f32>[32]) {
  let l = ctx.lane
  var t = In[0 :+ 32, 0 :+ 32]
  var s = t[l, 0]
  s = s + t[0, l]
  s = s + t[l, l]
  Y[l] = s
}
";
    let ir = compiler_core::compile(source)
        .ir()
        .map(compiler_core::ir::print)
        .unwrap_or_else(|d| panic!("{d:?}"));
    assert!(
        ir.contains("shared @0.t: f32[32, 32] stored as [32, 33]"),
        "{ir}"
    );
    let p = profile(source, &[("R", 32), ("C", 32)], 1);
    // Rows of 33 words: element (l, 0) is word 33 l, in bank l.
    let column = site(&p, source, "t[l, 0]");
    assert_eq!((column.worst_degree, column.mean_degree()), (1, 1.0));
    let row = site(&p, source, "t[0, l]");
    assert_eq!(row.worst_degree, 1);
    // The diagonal, word 34 l, is in bank 2 l mod 32: lanes l and l + 16 share one.
    let diagonal = site(&p, source, "t[l, l]");
    assert_eq!(diagonal.worst_degree, 2);
}

/// A column read of a row `w` words long is a `gcd(w, 32)`-way conflict, so every even row
/// length is padded: rows of 16 words were left alone and read down a column 16-way.
#[test]
fn the_compiler_pads_every_even_row_length() {
    for (columns, stored) in [(16, 17), (8, 9), (2, 3), (48, 49)] {
        let source = format!(
            "@launch(32)
kernel column(In: tensor<f32>[R, C], Y: tensor<f32>[32]) {{
  let l = ctx.lane
  var t = In[0 :+ 32, 0 :+ {columns}]
  Y[l] = t[l, 0]
}}
"
        );
        let ir = compiler_core::compile(&source)
            .ir()
            .map(compiler_core::ir::print)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let expected = format!("shared @0.t: f32[32, {columns}] stored as [32, {stored}]");
        assert!(ir.contains(&expected), "{ir}");
        let p = profile(&source, &[("R", 32), ("C", i64::from(columns))], 1);
        let column = site(&p, &source, "t[l, 0]");
        assert_eq!(column.worst_degree, 1, "rows of {columns}");
    }
    // An odd row length is conflict-free already and keeps its layout.
    let odd = "@launch(32)\nkernel column(In: tensor<f32>[R, C], Y: tensor<f32>[32]) {\n  var t = In[0 :+ 32, 0 :+ 15]\n  Y[ctx.lane] = t[ctx.lane, 0]\n}\n";
    let ir = compiler_core::compile(odd)
        .ir()
        .map(compiler_core::ir::print);
    assert!(ir.is_ok_and(|ir| ir.contains("shared @0.t: f32[32, 15]\n")));
}

#[test]
fn a_tile_whose_padding_would_not_fit_keeps_its_layout() {
    // 96 x 128 f32 is 49152 bytes, the static limit: no room for 96 more words.
    let source = "@launch(32)
kernel big(In: tensor<f32>[R, C], Y: tensor<f32>[32]) {
  let l = ctx.lane
  var t = In[0 :+ 96, 0 :+ 128]
  Y[l] = t[l, 0]
}
";
    let p = profile(source, &[("R", 96), ("C", 128)], 1);
    // Rows of 128 words: a column is one bank.
    let column = site(&p, source, "t[l, 0]");
    assert_eq!((column.worst_degree, column.mean_degree()), (32, 32.0));
}

#[test]
fn the_compilers_tile_copy_is_counted_too() {
    let p = profile(SHARED, &[("R", 32), ("C", 33)], 1);
    let copy = site(&p, SHARED, "In[0 :+ 32, 0 :+ 33]");
    let global: Vec<&AccessSite> = p
        .sites
        .iter()
        .filter(|s| s.span == copy.span && !s.is_shared())
        .collect();
    // 32 x 33 = 1,056 elements copied by 32 threads: 33 requests that read In and 33 that
    // write the tile.
    assert_eq!(global.len(), 1);
    assert_eq!(global[0].requests, 33);
    let shared: Vec<&AccessSite> = p
        .sites
        .iter()
        .filter(|s| s.span == copy.span && s.is_shared())
        .collect();
    assert_eq!(shared.len(), 1);
    assert_eq!(shared[0].requests, 33);
    assert!(shared[0].write);
    // Thread t copies element k x 32 + t on trip k: a row of words, conflict-free, and
    // global reads of 32 consecutive elements that a row's end splits (33 per row).
    assert_eq!(shared[0].worst_degree, 1);
    assert!(global[0].excess_sectors() * 5 < global[0].sectors);
    assert!(!global[0].is_poor());
}

#[test]
fn counting_changes_no_result() {
    let compilation = compiler_core::compile(SHARED);
    let mut launch = Launch::default();
    launch.dims.insert("R".into(), 32);
    launch.dims.insert("C".into(), 33);
    launch.inputs.insert("In".into(), Input::Rand(3));
    let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
        Ok(prepared) => prepared,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let plain = prepared.simulate_recording().map(|o| o.args.params);
    let counted = prepared.simulate_profiled().output.map(|o| o.args.params);
    assert_eq!(format!("{plain:?}"), format!("{counted:?}"));
}

const HALVES: &str = "@launch(32)
kernel halves(X: tensor<f16>[N], Y: tensor<f16>[64]) {
  let l = ctx.thread
  var t = X[0 :+ 128]
  var s = X[l]
  s = s + X[l * 2]
  s = s + t[l * 2]
  s = s + t[l * 4]
  Y[l] = s
}
";

/// An `f16` is 2 bytes: a warp on 32 consecutive elements asks for 64 bytes, 2 sectors; in a
/// tile two share a 4-byte word, so stride 2 is conflict-free and stride 4 a 2-way conflict.
#[test]
fn f16_elements_count_two_bytes_and_share_a_bank_word() {
    let p = profile(HALVES, &[("N", 256)], 1);
    let at = |text| site(&p, HALVES, text);
    let s1 = at("X[l]");
    assert_eq!((s1.sectors, s1.lines, s1.bytes), (2, 1, 64));
    assert_eq!(sectors(s1), (2, 2, 0));
    let s2 = at("X[l * 2]");
    assert_eq!(sectors(s2), (4, 2, 2));
    let store = at("Y[l] = s");
    assert_eq!((store.sectors, store.bytes), (2, 64));
    // Stride 2 in f16s is stride 1 in words: 32 words in 32 banks.
    let t2 = at("t[l * 2]");
    assert_eq!((t2.worst_degree, t2.wavefronts), (1, 1));
    // Stride 4 in f16s is stride 2 in words: two words a bank.
    let t4 = at("t[l * 4]");
    assert_eq!((t4.worst_degree, t4.wavefronts), (2, 2));
}

/// An 8-bit element is 1 byte: 32 consecutive ones are one sector.
#[test]
fn byte_elements_count_one_byte() {
    let source = "@launch(32)
kernel bytes(X: tensor<u8>[N], Y: tensor<i8>[32]) {
  let l = ctx.thread
  Y[l] = i8(X[l] + X[l * 4])
}
";
    let p = profile(source, &[("N", 256)], 1);
    let at = |text| site(&p, source, text);
    let s1 = at("X[l]");
    assert_eq!((s1.sectors, s1.lines, s1.bytes), (1, 1, 32));
    // Stride 4 bytes: 128 bytes spanned, 4 sectors, for 32 bytes that fit in one.
    assert_eq!(sectors(at("X[l * 4]")), (4, 1, 3));
    let store = at("Y[l] = i8(X[l] + X[l * 4])");
    assert_eq!((store.sectors, store.bytes), (1, 32));
}

fn example(name: &str) -> String {
    let path = format!("{}/../examples/{name}.tsr", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The run's work (issue 35): axpy is 2 floating-point operations an element (one fused
/// multiply-add) and 12 bytes (X read, Y read and written), in whole sectors; each thread's
/// index is a multiply and an add, and its test a comparison.
#[test]
fn axpy_is_two_flops_and_twelve_bytes_an_element() {
    let source = example("saxpy");
    let mut launch = Launch {
        dims: [("N".to_owned(), 1024)].into(),
        scalars: [("alpha".to_owned(), 2.0)].into(),
        ..Launch::default()
    };
    launch.grid.x = 8;
    let p = profile_of(&source, &launch);
    let n = 1024;
    assert_eq!(p.work.float_fmas, n);
    assert_eq!(p.work.flops(), 2 * n);
    assert_eq!(
        (p.work.float_adds, p.work.float_muls, p.work.float_other),
        (0, 0, 0)
    );
    assert_eq!(p.work.int_ops, 3 * n);
    assert_eq!(p.global_bytes(), 12 * n);
    assert_eq!(p.requested_bytes(), 12 * n);
    assert_eq!(p.shared_wavefronts(), 0);
    assert!(
        p.summary().contains("2048 floating-point operations"),
        "{}",
        p.summary()
    );
    // On the roofline: 2 / 12 FLOP/byte, memory-bound on every target; on a V100 (900 GB/s)
    // 12,288 bytes take at least 13.65 ns.
    assert_eq!(p.intensity(), Some(2.0 / 12.0));
    let (seconds, bound) = Arch::Sm70
        .peak()
        .least_seconds(p.work.flops(), 0, p.global_bytes());
    assert_eq!(bound, Bound::Memory);
    assert!((seconds - 12_288.0 / 900e9).abs() < 1e-15, "{seconds}");
    assert!(
        p.summary().contains(
            "sm_70 V100 (15.7 TFLOP/s, 900 GB/s, ridge 17.4 FLOP/byte): memory-bound, at least 0.014 µs"
        ),
        "{}",
        p.summary()
    );
}

/// A kernel of many fused multiply-adds an element is compute-bound: 1000 of them over 8 bytes
/// is 250 FLOP/byte, past every target's ridge (17.4 on a V100, 9.6 on an A100, 20 on an H100).
#[test]
fn a_kernel_of_many_fmas_an_element_is_compute_bound() {
    let source = "@launch(64)
kernel busy(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var x = X[i]
  for k in range(1000) {
    x = fma(x, 0.5, 1.0)
  }
  Y[i] = x
}
";
    let p = profile(source, &[("N", 64)], 1);
    assert_eq!(p.work.flops(), 64 * 1000 * 2);
    assert_eq!(p.global_bytes(), 64 * 8);
    assert_eq!(p.intensity(), Some(250.0));
    for arch in Arch::ALL {
        let peak = arch.peak();
        let (seconds, bound) = peak.least_seconds(p.work.flops(), 0, p.global_bytes());
        assert_eq!(bound, Bound::Compute, "{}", arch.name());
        assert_eq!(seconds, 128_000.0 / peak.flops_per_second);
    }
    assert!(p.summary().contains("compute-bound"), "{}", p.summary());
}

/// A matvec of 40 columns of 100: each product a multiply and an add (`acc += w * a` is not
/// fused), then each column's warp sum, 5 adds a lane (the butterfly of 32 lanes); W and A are
/// read whole once a column, C written once a column.
#[test]
fn matvec_counts_its_products_and_its_warp_sums() {
    let source = example("matvec");
    let p = profile(&source, &[("N", 40), ("K", 100)], 5);
    assert_eq!(p.work.float_muls, 40 * 100);
    assert_eq!(p.work.float_adds, 40 * 100 + 40 * 32 * 5);
    assert_eq!(p.work.flops(), 14_400);
    assert_eq!(p.requested_bytes(), 40 * 100 * 4 * 2 + 40 * 4);
    assert!(p.global_bytes() >= p.requested_bytes());
}

/// The tiled matmul on 128 x 128 x 128, 4 x 4 CTAs of 32 x 32 tiles, K / 32 = 4 steps, counted
/// by hand. Every shared access is conflict-free, so each request is one wavefront. A step
/// writes its two tiles (1024 elements: 32 requests each). In the product each thread keeps the
/// sums of its 4 elements of one column (rows w, w + 8, w + 16, w + 24 for warp w), so for each
/// of the 32 k a warp reads a row of B (one request) and 4 elements of A, each the same in all
/// its lanes (4 broadcasts): 8 warps x 32 x 5 = 1280 requests; it writes its 32 x 32 result
/// (32). Each step after the first adds it to `acc` in place (reads `acc`: 32 more); the store
/// of C reads `acc` (32).
#[test]
fn the_tiled_matmuls_shared_wavefronts_and_flops_are_counted_by_hand() {
    let source = example("tiled_matmul");
    let mut launch = Launch::default();
    launch.grid.x = 4;
    launch.grid.y = 4;
    for dim in ["M", "K", "N"] {
        launch.dims.insert(dim.into(), 128);
    }
    let p = profile_of(&source, &launch);
    let ctas = 16;
    let steps = 128 / 32;
    let step = 2 * 32 + 8 * 32 * 5 + 32;
    let per_cta = steps * step + (steps - 1) * 32 + 32;
    assert_eq!(p.shared_wavefronts(), ctas * per_cta);
    assert_eq!(p.shared_wavefronts(), 90_112);
    // 2 M N K for the products, and the 3 later steps' adds into acc, 1024 each a CTA.
    assert_eq!(
        p.work.flops(),
        2 * 128 * 128 * 128 + ctas * (steps - 1) * 1024
    );
    // A and B are read once a CTA-row or -column of tiles: each element 4 times; C written once.
    assert_eq!(p.global_bytes(), (4 * 2 * 128 * 128 + 128 * 128) * 4);
}

/// A CTA collective passes its warps' results through shared memory as the PTX does: each
/// warp's lane 0 stores one word, then every warp reads every warp's word by broadcast. Per CTA
/// of W warps: W store requests of one lane, W² read requests (two per warp's read on a 64-lane
/// warp), each one wavefront.
#[test]
fn a_cta_collective_counts_its_warps_partials_in_shared_memory() {
    let source = |threads: u32| {
        format!(
            "@launch({threads})\nkernel total(X: tensor<f32>[N], Y: tensor<f32>[4]) {{\n  let s = sum<over ctx.thread>(X[ctx.thread])\n  if ctx.thread == 0 {{\n    Y[ctx.block.x] = s\n  }}\n}}\n"
        )
    };
    let run = |threads: u32, lanes: u32, grid: u32| {
        let text = source(threads);
        let mut launch = Launch {
            dims: [("N".to_owned(), i64::from(threads))].into(),
            lanes,
            ..Launch::default()
        };
        launch.grid.x = grid;
        let profile = profile_of(&text, &launch);
        let sites: Vec<(bool, u64, u64, u64, u64)> = profile
            .sites
            .iter()
            .filter(|s| s.name == "warp partials")
            .map(|s| {
                assert_eq!(&text[s.span.range()], "sum<over ctx.thread>(X[ctx.thread])");
                assert!(s.is_shared() && !s.is_poor());
                (
                    s.write,
                    s.requests,
                    s.lanes,
                    s.wavefronts,
                    s.excess_wavefronts(),
                )
            })
            .collect();
        sites
    };
    // 256 threads, 8 warps, 2 CTAs: 16 stores; 2 × 8 × 8 = 128 reads of 32 lanes.
    assert_eq!(
        run(256, 32, 2),
        [(false, 128, 4096, 128, 0), (true, 16, 16, 16, 0)]
    );
    // 48 threads: warp 1 has 16; each warp reads both words.
    assert_eq!(run(48, 32, 1), [(false, 4, 96, 4, 0), (true, 2, 2, 2, 0)]);
    // 64-lane warps: 128 threads are 2 warps, each read two requests of 32 lanes.
    assert_eq!(run(128, 64, 1), [(false, 8, 256, 8, 0), (true, 2, 2, 2, 0)]);
}
