//! The CUDA names a learner reaches for, and what Tessera writes for each: one table, which the
//! checker reads for its help where a CUDA name is used (`__syncthreads()`, `threadIdx`) and
//! the docs build renders as the "From CUDA" page's table (its `cuda-names` block). Every
//! entry's example compiles in [`TEMPLATE`] (a test here, and the docs' check).

/// One CUDA name and its Tessera spelling.
#[derive(Clone, Copy, Debug)]
pub struct CudaName {
    /// The identifier as CUDA code writes it: what the checker meets.
    pub name: &'static str,
    /// How the table shows the CUDA side.
    pub cuda: &'static str,
    /// Tessera's spelling, or an empty string where Tessera has none.
    pub tessera: &'static str,
    /// What to know, in a few words (may be empty).
    pub note: &'static str,
    /// A statement in [`TEMPLATE`] that uses the Tessera spelling (empty where there is none,
    /// or where the spelling is not a statement: a program's launches).
    pub example: &'static str,
}

/// The kernel every example is a statement of (replacing `EXAMPLE`): a tensor `X` of `f32`, one
/// of `u32` counters `H`, and variables `x: f32`, `n: i32`, `u: u32` and `p: bool`.
pub const TEMPLATE: &str = "@launch(64)
kernel from_cuda(X: tensor<f32>[N], H: tensor<u32>[64], Y: tensor<f32>[64, 64]) {
  var x: f32 = 0.0
  var n: i32 = 0
  var u: u32 = 0
  var p = false
  EXAMPLE
}
";

const fn entry(
    name: &'static str,
    cuda: &'static str,
    tessera: &'static str,
    note: &'static str,
    example: &'static str,
) -> CudaName {
    CudaName {
        name,
        cuda,
        tessera,
        note,
        example,
    }
}

/// The table, in the order the page lists it: where a thread is, synchronization, the warp,
/// the CTA, atomics, memory, arithmetic and launches.
pub const CUDA_NAMES: &[CudaName] = &[
    entry(
        "threadIdx",
        "threadIdx.x",
        "ctx.thread",
        "the linear index in the CTA: a CTA is one-dimensional",
        "n = ctx.thread",
    ),
    entry(
        "blockIdx",
        "blockIdx.x, .y, .z",
        "ctx.block.x, .y, .z",
        "",
        "n = ctx.block.y",
    ),
    entry(
        "blockDim",
        "blockDim.x",
        "ctx.threads",
        "",
        "n = ctx.threads",
    ),
    entry(
        "gridDim",
        "gridDim.x, .y, .z",
        "ctx.blocks.x, .y, .z",
        "",
        "n = ctx.blocks.x",
    ),
    entry(
        "warpSize",
        "warpSize",
        "ctx.lanes",
        "32 on NVIDIA GPUs; another width on another GPU or by choice",
        "n = ctx.lanes",
    ),
    entry(
        "laneid",
        "threadIdx.x % warpSize, %laneid",
        "ctx.lane",
        "",
        "n = ctx.lane",
    ),
    entry(
        "warpid",
        "threadIdx.x / warpSize",
        "ctx.warp",
        "not PTX's %warpid, which is not the warp's index in the CTA",
        "n = ctx.warp",
    ),
    entry(
        "__syncthreads",
        "__syncthreads()",
        "barrier()",
        "under uniform control only",
        "barrier()",
    ),
    entry(
        "__syncwarp",
        "__syncwarp()",
        "",
        "a collective or a shuffle synchronizes its warp itself, under warp-uniform control",
        "",
    ),
    entry(
        "__threadfence",
        "__threadfence()",
        "",
        "atomics are relaxed and there is no fence; a second launch of a program orders CTAs",
        "",
    ),
    entry(
        "__shfl_sync",
        "__shfl_sync(mask, v, l)",
        "shuffle(v, l)",
        "no mask: the warp's lanes that hold a thread",
        "x = shuffle(x, 3)",
    ),
    entry(
        "__shfl_xor_sync",
        "__shfl_xor_sync(mask, v, m)",
        "shuffle_xor(v, m)",
        "",
        "x = shuffle_xor(x, 1)",
    ),
    entry(
        "__shfl_up_sync",
        "__shfl_up_sync(mask, v, d)",
        "shuffle_up(v, d)",
        "",
        "x = shuffle_up(x, 1)",
    ),
    entry(
        "__shfl_down_sync",
        "__shfl_down_sync(mask, v, d)",
        "shuffle_down(v, d)",
        "",
        "x = shuffle_down(x, 1)",
    ),
    entry(
        "__ballot_sync",
        "__ballot_sync(mask, p)",
        "ballot<over ctx.lane>(p)",
        "a u32, bit k for lane k",
        "u = ballot<over ctx.lane>(p)",
    ),
    entry(
        "__any_sync",
        "__any_sync(mask, p)",
        "any<over ctx.lane>(p)",
        "",
        "p = any<over ctx.lane>(p)",
    ),
    entry(
        "__all_sync",
        "__all_sync(mask, p)",
        "all<over ctx.lane>(p)",
        "",
        "p = all<over ctx.lane>(p)",
    ),
    entry(
        "__activemask",
        "__activemask()",
        "ballot<over ctx.lane>(true)",
        "needs warp-uniform control: inside a divergent branch it is refused (E0402)",
        "u = ballot<over ctx.lane>(true)",
    ),
    entry(
        "__reduce_add_sync",
        "__reduce_add_sync(mask, v)",
        "sum<over ctx.lane>(v)",
        "floats too, in a shuffle butterfly's order",
        "n = sum<over ctx.lane>(n)",
    ),
    entry(
        "__reduce_min_sync",
        "__reduce_min_sync(mask, v)",
        "min<over ctx.lane>(v)",
        "",
        "n = min<over ctx.lane>(n)",
    ),
    entry(
        "__reduce_max_sync",
        "__reduce_max_sync(mask, v)",
        "max<over ctx.lane>(v)",
        "",
        "n = max<over ctx.lane>(n)",
    ),
    entry(
        "__reduce_and_sync",
        "__reduce_and_sync(mask, v)",
        "and<over ctx.lane>(v)",
        "or and xor likewise",
        "u = and<over ctx.lane>(u)",
    ),
    entry(
        "BlockReduce",
        "cub::BlockReduce(…).Sum(v)",
        "sum<over ctx.thread>(v)",
        "max and min too; under uniform control",
        "x = sum<over ctx.thread>(x)",
    ),
    entry(
        "BlockScan",
        "cub::BlockScan(…).InclusiveSum(v, out)",
        "prefix_sum<over ctx.thread>(v)",
        "",
        "n = prefix_sum<over ctx.thread>(n)",
    ),
    entry(
        "atomicAdd",
        "atomicAdd(&a[i], v)",
        "atomic_add(a[i], v)",
        "returns the old value; on f32 too",
        "atomic_add(H[0], 1)",
    ),
    entry(
        "atomicSub",
        "atomicSub(&a[i], v)",
        "atomic_sub(a[i], v)",
        "",
        "atomic_sub(H[1], 1)",
    ),
    entry(
        "atomicMin",
        "atomicMin(&a[i], v)",
        "atomic_min(a[i], v)",
        "atomicMax, atomicAnd, atomicOr and atomicXor likewise",
        "u = atomic_min(H[2], 7)",
    ),
    entry(
        "atomicExch",
        "atomicExch(&a[i], v)",
        "atomic_exchange(a[i], v)",
        "",
        "u = atomic_exchange(H[3], 1)",
    ),
    entry(
        "atomicCAS",
        "atomicCAS(&a[i], expected, v)",
        "atomic_compare_exchange(a[i], expected, v)",
        "",
        "u = atomic_compare_exchange(H[4], 0, 1)",
    ),
    entry(
        "__shared__",
        "__shared__ float s[64];",
        "var s = tile<f32>[64](0.0)",
        "a scratch tile, in shared memory",
        "var s = tile<f32>[64](0.0)",
    ),
    entry(
        "tile_copy",
        "__shared__ tile, filled cooperatively, then __syncthreads()",
        "var t = Y[r :+ 32, c :+ 32]",
        "a tile of a tensor: the copy and its barrier in one statement",
        "var t = Y[0 :+ 32, 0 :+ 32]",
    ),
    entry(
        "load_matrix_sync",
        "wmma::load_matrix_sync(a, A + …, lda)",
        "let a = mma_load_a<over ctx.lane>(A[r :+ 16, k :+ 16])",
        "mma_load_b for B: the lane's fragment of an f16 block (m16n8k16), as the tensor-cores page draws it",
        "",
    ),
    entry(
        "mma_sync",
        "wmma::mma_sync(d, a, b, c)",
        "acc = mma<over ctx.lane>(a, b, acc)",
        "m16n8k16 on sm_80 and later: wmma's 16 × 16 × 16 is two of them, side by side",
        "",
    ),
    entry(
        "store_matrix_sync",
        "wmma::store_matrix_sync(C + …, d, ldc, wmma::mem_row_major)",
        "mma_store<over ctx.lane>(C[r :+ 16, c :+ 8], acc)",
        "an f32 block, rows and columns as a tensor's",
        "",
    ),
    entry(
        "asm",
        "asm(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 …\")",
        "acc = mma<over ctx.lane>(a, b, acc)",
        "the same instruction: Tessera's PTX writes it, with the fragments' registers",
        "",
    ),
    entry(
        "ldmatrix",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 (a fragment from shared memory)",
        "let a = mma_load_a<over ctx.lane>(T[r :+ 16, k :+ 16])",
        "from a tile T in shared memory: each lane loads its own elements (no ldmatrix yet)",
        "",
    ),
    entry(
        "sqrtf",
        "sqrtf, rsqrtf, expf, exp2f, logf, log2f",
        "sqrt, rsqrt, exp, exp2, log, log2",
        "",
        "x = rsqrt(exp2(x) + 1.0)",
    ),
    entry(
        "sinf",
        "sinf, cosf, tanhf, erff, powf",
        "sin, cos, tanh, erf, pow",
        "",
        "x = pow(tanh(x) + 2.0, 0.5)",
    ),
    entry(
        "fmaf",
        "fmaf(a, b, c)",
        "fma(a, b, c)",
        "rounded once on the simulator and PTX; WGSL may round twice",
        "x = fma(x, 2.0, 1.0)",
    ),
    entry(
        "fminf",
        "fminf, fmaxf, fabsf",
        "min, max, abs",
        "",
        "x = abs(min(x, max(x, 1.0)))",
    ),
    entry(
        "floorf",
        "floorf, ceilf, truncf, rintf",
        "floor, ceil, trunc, round",
        "round takes halves to even, as rintf does",
        "x = round(floor(x) + 0.5)",
    ),
    entry(
        "__float2int_rz",
        "(int)x, __float2int_rz(x)",
        "i32(x)",
        "saturates, and NaN gives 0",
        "n = i32(x)",
    ),
    entry("__int2float_rn", "(float)n", "f32(n)", "", "x = f32(n)"),
    entry(
        "__float2half",
        "__float2half(x), __half2float(h)",
        "f16(x), f32(h)",
        "each f16 operation is the f32 one, rounded once",
        "x = f32(f16(x))",
    ),
    entry(
        "cudaDeviceSynchronize",
        "k1<<<…>>>(…); k2<<<…>>>(…);",
        "launch k1(…) grid(…) and launch k2(…) grid(…) in a program",
        "launches in order, each finishing before the next",
        "",
    ),
];

/// The entry for the CUDA identifier `name`, if it is one.
pub fn find(name: &str) -> Option<&'static CudaName> {
    CUDA_NAMES.iter().find(|c| c.name == name)
}

/// Tessera's spelling of the CUDA name `name` where writing it over the name is the whole
/// fix: a name for a name (`warpSize` → `ctx.lanes`), or a call whose arguments stay as they
/// are (`__syncthreads()` → `barrier()`, `fmaf(a, b, c)` → `fma(a, b, c)`). Not where the
/// arguments change (`atomicAdd(&a[i], v)`, the shuffles' masks): the editor's quick fix
/// writes only what is sure.
pub fn replacement(name: &str) -> Option<&'static str> {
    let c = find(name)?;
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
    };
    if c.cuda == name && plain(c.tessera) {
        return Some(c.tessera);
    }
    let (cuda_callee, cuda_args) = c.cuda.split_once('(')?;
    let (callee, args) = c.tessera.split_once('(')?;
    (cuda_callee == name && cuda_args == args && plain(callee)).then_some(callee)
}

/// Tessera's spelling of CUDA's `name.axis` (`threadIdx.x` → `ctx.thread`, `blockIdx.y` →
/// `ctx.block.y`), for the quick fix of the parse error such a field is.
pub fn field_replacement(name: &str, axis: &str) -> Option<String> {
    let c = find(name)?;
    let cuda = c.cuda.trim_end_matches(", .y, .z");
    let tessera = c.tessera.trim_end_matches(", .y, .z");
    if cuda != format!("{name}.x") || !matches!(axis, "x" | "y" | "z") {
        return None;
    }
    match tessera.strip_suffix(".x") {
        Some(level) => Some(format!("{level}.{axis}")),
        None => (axis == "x").then(|| tessera.to_owned()),
    }
}

/// The checker's help for a CUDA name: what Tessera writes, or why it needs nothing.
pub fn help(name: &str) -> Option<String> {
    let c = find(name)?;
    let note = if c.note.is_empty() {
        String::new()
    } else {
        format!(" ({})", c.note)
    };
    Some(if c.tessera.is_empty() {
        format!(
            "`{name}` is CUDA's, and Tessera has no such call: {}",
            c.note
        )
    } else {
        format!("`{name}` is CUDA's; Tessera writes `{}`{note}", c.tessera)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_only_where_the_arguments_stay() {
        assert_eq!(replacement("warpSize"), Some("ctx.lanes"));
        assert_eq!(replacement("__syncthreads"), Some("barrier"));
        assert_eq!(replacement("fmaf"), Some("fma"));
        assert_eq!(replacement("atomicAdd"), None); // `&a[i]` becomes `a[i]`
        assert_eq!(replacement("__shfl_down_sync"), None); // the mask goes
        assert_eq!(replacement("threadIdx"), None); // `.x` goes too
        assert_eq!(replacement("__syncwarp"), None); // no Tessera spelling
        assert_eq!(
            field_replacement("threadIdx", "x").as_deref(),
            Some("ctx.thread")
        );
        assert_eq!(field_replacement("threadIdx", "y"), None); // a CTA has one axis
        assert_eq!(
            field_replacement("blockIdx", "z").as_deref(),
            Some("ctx.block.z")
        );
        assert_eq!(
            field_replacement("gridDim", "y").as_deref(),
            Some("ctx.blocks.y")
        );
        assert_eq!(
            field_replacement("blockDim", "x").as_deref(),
            Some("ctx.threads")
        );
    }

    /// Every example compiles, with no diagnostic at all, in the template kernel; every name is
    /// listed once.
    #[test]
    fn every_example_compiles_and_every_name_is_listed_once() {
        let mut names = std::collections::HashSet::new();
        for c in CUDA_NAMES {
            assert!(names.insert(c.name), "{} twice", c.name);
            assert!(!c.tessera.is_empty() || c.example.is_empty(), "{}", c.name);
            if c.example.is_empty() {
                continue;
            }
            let source = TEMPLATE.replace("EXAMPLE", c.example);
            let compilation = crate::compile(&source);
            assert!(
                compilation.diagnostics.is_empty(),
                "{}: {:?}",
                c.name,
                compilation.diagnostics
            );
        }
    }
}
