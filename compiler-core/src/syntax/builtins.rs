//! The names of the built-in functions, by family. The checker gives each its signature
//! (`check/builtins.rs`); the highlighter only needs to know the names, so they live here, below
//! both.

pub const MATH: [&str; 18] = [
    "sqrt", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tanh", "floor", "ceil", "abs",
    "fma", "round", "trunc", "sign", "erf", "pow",
];
pub const SHUFFLES: [&str; 5] = [
    "shuffle",
    "shuffle_xor",
    "shuffle_up",
    "shuffle_down",
    "broadcast",
];
pub const REDUCTIONS: [&str; 6] = ["sum", "max", "min", "and", "or", "xor"];
pub const LANE_ONLY: [&str; 4] = ["any", "all", "ballot", "prefix_sum"];
/// A warp's matrix operation (tensor cores, m16n8k16), all over `ctx.lane`.
pub const MATRIX: [&str; 4] = ["mma_load_a", "mma_load_b", "mma", "mma_store"];
/// Atomic read-modify-writes of one element of a tensor or a tile: each returns the element's
/// old value.
pub const ATOMICS: [&str; 9] = [
    "atomic_add",
    "atomic_sub",
    "atomic_min",
    "atomic_max",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_exchange",
    "atomic_compare_exchange",
];
pub const OTHERS: [&str; 18] = [
    "min", "max", "clamp", "select", "barrier", "range", "f32", "i32", "u32", "f16", "i64", "u64",
    "i8", "u8", "sum", "tile", "bitcast", "array",
];

/// Every family, in the order completion lists them.
pub const FAMILIES: [&[&str]; 7] = [
    &MATH,
    &SHUFFLES,
    &REDUCTIONS,
    &LANE_ONLY,
    &MATRIX,
    &ATOMICS,
    &OTHERS,
];

/// Whether `name` is a built-in function (the highlighter colours it as one).
pub fn is_builtin(name: &str) -> bool {
    FAMILIES.iter().any(|names| names.contains(&name))
}

/// What a built-in does, in a line: the editor's hover and completion show it.
pub fn describe(name: &str) -> Option<&'static str> {
    Some(match name {
        "sqrt" => "sqrt(x): the square root, correctly rounded",
        "rsqrt" => "rsqrt(x): 1 / sqrt(x), approximate on GPUs",
        "exp" => "exp(x): e to the x, approximate on GPUs",
        "exp2" => "exp2(x): 2 to the x, approximate on GPUs",
        "log" => "log(x): the natural logarithm, approximate on GPUs",
        "log2" => "log2(x): the base-2 logarithm, approximate on GPUs",
        "sin" => "sin(x): the sine of x radians, approximate on GPUs",
        "cos" => "cos(x): the cosine of x radians, approximate on GPUs",
        "tanh" => "tanh(x): the hyperbolic tangent, approximate on GPUs",
        "floor" => "floor(x): the largest whole number not above x",
        "ceil" => "ceil(x): the smallest whole number not below x",
        "abs" => "abs(x): the absolute value",
        "fma" => "fma(a, b, c): a * b + c, rounded once",
        "round" => "round(x): the nearest whole number, halves to even (as numpy)",
        "trunc" => "trunc(x): x without its fraction, rounded toward zero",
        "sign" => "sign(x): -1, 0 or 1 as x is negative, zero or positive (NaN stays NaN)",
        "erf" => "erf(x): the error function, within about 1 ulp (2 to 4 on GPUs)",
        "pow" => "pow(x, y): x to the y (x < 0 only for whole y), approximate on GPUs",
        "min" => "min(a, b), or min<over ctx.lane>(x): the smallest over the warp (or CTA)",
        "max" => "max(a, b), or max<over ctx.lane>(x): the largest over the warp (or CTA)",
        "sum" => "sum<over ctx.lane>(x): the sum over the warp (ctx.thread: over the CTA)",
        "and" => "and<over ctx.lane>(x): the bitwise and over the warp (or CTA)",
        "or" => "or<over ctx.lane>(x): the bitwise or over the warp (or CTA)",
        "xor" => "xor<over ctx.lane>(x): the bitwise xor over the warp (or CTA)",
        "any" => "any<over ctx.lane>(b): whether b is true in some lane of the warp",
        "all" => "all<over ctx.lane>(b): whether b is true in every lane of the warp",
        "ballot" => "ballot<over ctx.lane>(b): a u32 with bit N set when lane N's b is true",
        "prefix_sum" => "prefix_sum<over ctx.lane>(x): the sum of lanes 0 to this one (inclusive)",
        "mma_load_a" => "mma_load_a<over ctx.lane>(A[r :+ 16, k :+ 16]): this lane's 8 elements of an f16 16 x 16 block, an array<f16>[8] (tensor cores, m16n8k16)",
        "mma_load_b" => "mma_load_b<over ctx.lane>(B[k :+ 16, c :+ 8]): this lane's 4 elements of an f16 16 x 8 block, an array<f16>[4]",
        "mma" => "mma<over ctx.lane>(a, b, c): the warp's a · b + c on the tensor cores; this lane's 4 elements of the 16 x 8 f32 result",
        "mma_store" => "mma_store<over ctx.lane>(C[r :+ 16, c :+ 8], d): writes this lane's 4 elements of d into an f32 16 x 8 block",
        "shuffle" => "shuffle(x, l): x from lane l mod ctx.lanes of this warp",
        "shuffle_xor" => {
            "shuffle_xor(x, m): x from lane ctx.lane ^ m (outside the warp: this lane's own)"
        }
        "shuffle_up" => {
            "shuffle_up(x, d): x from lane ctx.lane - d (below lane 0: this lane's own)"
        }
        "shuffle_down" => {
            "shuffle_down(x, d): x from lane ctx.lane + d (past the warp: this lane's own)"
        }
        "broadcast" => "broadcast(x, l): x from lane l, the same in every lane (l warp-uniform)",
        "clamp" => "clamp(x, lo, hi): x kept between lo and hi",
        "select" => "select(c, a, b): a where c is true, else b (both evaluated)",
        "barrier" => "barrier(): waits for every thread of the CTA; needs uniform control",
        "range" => {
            "range(end), range(start, end), range(start, end, step): a for loop's i32 values"
        }
        "f32" => "f32(x): x as an f32",
        "i32" => "i32(x): x as an i32 (from a float: saturating, NaN gives 0)",
        "u32" => "u32(x): x as a u32 (from a float: saturating, NaN gives 0)",
        "f16" => "f16(x): x rounded to the nearest f16 (half precision; ties to even)",
        "i64" => "i64(x): x as a 64-bit i64 (an i32 sign-extended; from a float: saturating, NaN gives 0)",
        "u64" => "u64(x): x as a 64-bit u64 (an i32 sign-extended, a u32 zero-extended; from a float: saturating, NaN gives 0)",
        "i8" => "i8(x): x wrapped to 8 bits, -128 to 127, as an i32 (what a tensor<i8> stores)",
        "u8" => "u8(x): x wrapped to 8 bits, 0 to 255, as a u32 (what a tensor<u8> stores)",
        "tile" => "tile<f32>[n, m](x): a scratch tile in shared memory, every element x",
        "array" => "array<f32>[n, m](x): each thread's own array, every element x (at most 256; registers where every index is a constant)",
        "bitcast" => {
            "bitcast<u32>(x): x's 32 bits read as a u32 (or i32, f32), exactly: no conversion; bitcast<u64>(n) and bitcast<i64>(n) read a 64-bit integer's bits as the other"
        }
        "atomic_add" => "atomic_add(X[i], v): adds v to X[i] atomically; returns the old value",
        "atomic_sub" => "atomic_sub(X[i], v): subtracts v from X[i] atomically; returns the old value",
        "atomic_min" => "atomic_min(X[i], v): X[i] = min(X[i], v) atomically; returns the old value",
        "atomic_max" => "atomic_max(X[i], v): X[i] = max(X[i], v) atomically; returns the old value",
        "atomic_and" => "atomic_and(X[i], v): X[i] &= v atomically; returns the old value",
        "atomic_or" => "atomic_or(X[i], v): X[i] |= v atomically; returns the old value",
        "atomic_xor" => "atomic_xor(X[i], v): X[i] ^= v atomically; returns the old value",
        "atomic_exchange" => "atomic_exchange(X[i], v): X[i] = v atomically; returns the old value",
        "atomic_compare_exchange" => {
            "atomic_compare_exchange(X[i], expected, v): X[i] = v if it held expected; returns what it held"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_described() {
        for names in FAMILIES {
            for name in names {
                assert!(describe(name).is_some(), "{name} has no description");
            }
        }
        assert_eq!(describe("warp_size"), None);
    }
}
