//! The names of the built-in functions, by family. The checker gives each its signature
//! (`check/builtins.rs`); the highlighter only needs to know the names, so they live here, below
//! both.

pub const MATH: [&str; 13] = [
    "sqrt", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tanh", "floor", "ceil", "abs",
    "fma",
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
pub const OTHERS: [&str; 11] = [
    "min", "max", "clamp", "select", "barrier", "range", "f32", "i32", "u32", "f16", "sum",
];

/// Whether `name` is a built-in function (the highlighter colours it as one).
pub fn is_builtin(name: &str) -> bool {
    [&MATH[..], &SHUFFLES, &REDUCTIONS, &LANE_ONLY, &OTHERS]
        .iter()
        .any(|names| names.contains(&name))
}
