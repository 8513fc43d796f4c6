//! The registry of diagnostic codes: each code once, with a one-line explanation.
//!
//! In: nothing. Out: [`Code`], its text (`E0101`) and its explanation. Invariant: every code
//! the compiler can emit is listed here, has a UI test in `compiler-core/tests/ui/` and an
//! entry in the error index.

use serde::{Deserialize, Serialize};

/// The phase of the pipeline that gives a code, and so where a reader looks for the problem:
/// the source (syntax, check), the launch, or the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Reading the text: characters, delimiters, the parser, the reading rules of `ctx`.
    Syntax,
    /// Names, types, attributes and uniformity.
    Check,
    /// Lowering to the IR: what the checker accepts but this version cannot run.
    Lower,
    /// A launch that does not fit its kernel.
    Launch,
    /// A fault while the simulator runs.
    Run,
    /// A backend's own failure (a bug in Tessera).
    Backend,
}

impl Code {
    /// Whether the code is a warning's (a lint): it never stops a run.
    pub fn is_warning(self) -> bool {
        matches!(self, Code::E0405 | Code::E0406 | Code::E0407 | Code::E0408)
    }
}

impl Phase {
    /// Whether the code is found only by running a launch (lowering it, binding it, running
    /// it), not by compiling the source.
    pub fn needs_a_launch(self) -> bool {
        matches!(self, Phase::Lower | Phase::Launch | Phase::Run)
    }
}

macro_rules! codes {
    ($($phase:ident { $($code:ident => $explanation:literal,)* })*) => {
        /// A diagnostic's code, stable across releases: links, docs and tests name it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Code { $($($code,)*)* }

        impl Code {
            /// Every code, in order.
            pub const ALL: &'static [Code] = &[$($(Code::$code,)*)*];

            pub fn as_str(self) -> &'static str {
                match self { $($(Code::$code => stringify!($code),)*)* }
            }

            /// What the code means, in one line.
            pub fn explanation(self) -> &'static str {
                match self { $($(Code::$code => $explanation,)*)* }
            }

            /// The phase that gives the code.
            pub fn phase(self) -> Phase {
                match self { $($(Code::$code => Phase::$phase,)*)* }
            }

            /// The code written as text (`E0112`), if there is one.
            pub fn parse(text: &str) -> Option<Code> {
                Code::ALL.iter().copied().find(|c| c.as_str() == text)
            }
        }
    };
}

codes! {
    Syntax {
        // Reading the text.
        E0100 => "a character that is not part of the language",
        E0101 => "the parser expected something else here",
        E0102 => "an opening delimiter is never closed",
        E0103 => "a closing delimiter has no matching opening one",
        E0104 => "brackets or blocks are nested deeper than the compiler allows",
        E0105 => "a statement has more operators than the compiler allows",
        E0106 => "the source is larger than the compiler accepts",
        E0107 => "the source is not valid UTF-8",
        E0108 => "a number literal is malformed or too large",
        E0109 => "a line ends with a carriage return alone",
        // ctx, as the hierarchy page states it.
        E0110 => "ctx is read only through a field",
        E0111 => "ctx.block and ctx.blocks need an axis, as in ctx.block.x",
        E0112 => "ctx has no field of that name",
        E0113 => "ctx is reserved and cannot be declared",
        E0114 => "only ctx.block and ctx.blocks take an axis; the CTA is one-dimensional",
    }
    Check {
        // Kernels and attributes.
        E0120 => "a kernel needs @launch(threads)",
        E0121 => "@launch takes an integer literal from 1 to 1024",
        E0122 => "an attribute is unknown or given twice",
        E0123 => "@cluster names one of the kernel's dimensions and a positive super-tile size",
        E0124 => "a tensor has rank 1 to 4 and an element type f32, f16, i32, u32, i64, u64, i8 or u8",
        E0125 => "@cluster's dimension is on one axis of each tensor",
        E0126 => "under @cluster, a kernel writes only tensors the cluster slices",
        E0127 => "a tensor's extent is a number, a dimension, or an integer expression of them",
        // Programs.
        E0130 => "a program's body holds temporaries, launches, loops and swaps; a temporary is made at the top, and a while loop has a limit",
        E0131 => "a launch names a kernel of the file, gives each of its parameters an argument of its kind, and a grid",
        E0132 => "a size, grid or count in a program is an integer expression of dimensions, integer scalars, loop counters and literals",
        E0133 => "swap exchanges two tensors of one element type and rank",
        // Names.
        E0201 => "a name is used that is not defined",
        E0202 => "two parameters or dimensions of a kernel have the same name",
        E0203 => "a name is declared twice in the same scope",
        E0204 => "only a var can be assigned",
        E0205 => "two kernels, programs or functions have the same name",
        E0206 => "a function is called that does not exist",
        E0207 => "a function calls itself, directly or through others, or a kernel's calls paste in too many bodies",
        E0208 => "a function cannot take a built-in's name",
        // Types.
        E0301 => "the types of an operation's operands do not fit it",
        E0302 => "a call has the wrong number or types of arguments",
        E0303 => "a condition must be a bool",
        E0304 => "an index has the wrong number of coordinates for the tensor's rank",
        E0305 => "an index coordinate must be an integer",
        E0306 => "only tensors and tiles can be indexed",
        E0307 => "a tile's length must be a positive integer literal",
        E0308 => "a whole axis `:` needs an extent known at compile time",
        E0309 => "a tile is used where it does not fit",
        E0310 => "range takes 1 to 3 integer arguments and a step that is not zero",
        E0311 => "a literal does not fit its type",
        E0312 => "an assigned value does not have the variable's type",
        E0313 => "break and continue are only allowed inside a loop",
        E0314 => "an expression with no value is used as a value",
        E0315 => "a collective runs over ctx.lane or ctx.thread, and votes over ctx.lane",
        E0316 => "a scratch tile holds f32, i32 or u32, has one or two axes and fits in a CTA's shared memory",
        E0317 => "an atomic changes one element of a tensor or of a var tile, of type i32 or u32 (f32 for atomic_add, and i64 or u64 for an atomic_add whose old value is not used)",
        E0318 => "a return fits what it leaves: no value from a kernel or a function with no result, a value of the result's type on every path of one with a result",
        E0319 => "a per-thread array has one or two literal extents, at most 256 elements of a scalar type, and is read and written by element, within its extents",
        E0320 => "a 64-bit integer (i64, u64) goes in scalars, arrays, tensors, integer arithmetic and a warp's collectives, not in tiles or a CTA's collectives",
        E0321 => "a warp's matrix operation (mma, m16n8k16) takes f16 fragments of 16 x 16 and 16 x 8 blocks and an f32 accumulator, in a kernel of whole warps",
        // Uniformity.
        E0401 => "barrier(), tile operations and collectives over ctx.thread need uniform control",
        E0402 => "collectives over ctx.lane and shuffles need warp-uniform control",
        E0403 => "the lane of broadcast must be the same in every lane of the warp",
        E0404 => "a tile's start, and a scalar combined with a tile, must be the same in every thread of the CTA",
        // The order of CTAs (warnings).
        E0405 => "a loop waits for another CTA, and CTAs have no forward-progress guarantee (a warning)",
        E0406 => "a read depends on an atomic's old value, and relaxed atomics order nothing else (a warning)",
        // The hierarchy's indices and counts (a warning).
        E0407 => "an index where a count belongs, or a count where an index belongs: ctx.thread and ctx.threads swapped (a warning)",
        // Slices at a tensor's edge (a warning).
        E0408 => "a slice reaches past a tensor's literal extents: its elements outside load as 0 and are not stored (a warning)",
    }
    Lower {
        E0501 => "the checker accepts this, but this version cannot run it yet",
    }
    Run {
        E0510 => "a tensor access outside its shape",
        E0511 => "an integer division or remainder by zero",
        E0512 => "barrier() is not reached by every thread of the CTA",
        E0513 => "two threads touch one shared-memory element between barriers, one of them writing",
        E0514 => "the kernel ran past the step limit",
        E0516 => "two threads touch one tensor element with nothing ordering them, one of them writing (two atomics never race)",
        E0517 => "a program ran past a limit: a while loop's passes, or the launches a run may make",
        E0518 => "a per-thread array index outside its extents",
    }
    Launch {
        E0515 => "a launch does not fit the kernel: its grid, dimensions, scalars or inputs",
    }
    Backend {
        E0520 => "the WGSL backend built a module naga rejects (a bug in Tessera)",
        E0521 => "the kernel needs more shared memory than the target gives a CTA",
        E0522 => "the target has no instruction for a warp's matrix operation: m16n8k16 needs sm_80 or later",
    }
}

#[cfg(test)]
mod tests {
    use super::{Code, Phase};

    #[test]
    fn codes_are_unique_sorted_and_explained() {
        // Sorted within each phase (a code added to an earlier phase comes after the later
        // phases' codes), and unique.
        for phase in Code::ALL.iter().map(|c| c.phase()) {
            let texts: Vec<&str> = Code::ALL
                .iter()
                .filter(|c| c.phase() == phase)
                .map(|c| c.as_str())
                .collect();
            let mut sorted = texts.clone();
            sorted.sort_unstable();
            assert_eq!(texts, sorted);
        }
        let mut texts: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let count = texts.len();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), count);
        assert!(Code::ALL.iter().all(|c| !c.explanation().is_empty()));
    }

    #[test]
    fn each_code_names_its_phase_and_parses_back() {
        assert_eq!(Code::E0107.phase(), Phase::Syntax);
        assert_eq!(Code::E0112.phase(), Phase::Syntax);
        assert_eq!(Code::E0126.phase(), Phase::Check);
        assert_eq!(Code::E0501.phase(), Phase::Lower);
        assert_eq!(Code::E0514.phase(), Phase::Run);
        assert_eq!(Code::E0515.phase(), Phase::Launch);
        assert_eq!(Code::E0520.phase(), Phase::Backend);
        for &code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(code));
        }
        assert_eq!(Code::parse("E9999"), None);
    }
}
