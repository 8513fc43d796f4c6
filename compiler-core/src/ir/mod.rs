//! The IR: structured, typed, three-address code per kernel, which the simulator runs and the
//! backends translate.
//!
//! In: a checked AST (lowered by `lower`). Out: an [`Module`] and its text form ([`print`]).
//! Invariants: control flow is structured (`If`, `Loop` with a `continuing` block, `Break`,
//! `Continue`, `Return`), so every construct reconverges where it ends; every register has one
//! scalar type; operands are registers or constants (bit patterns of their type); every
//! statement keeps the span of the source it came from. There are no calls: each call of a
//! file's function is inlined where it stands (`calls`), so the simulator and the backends need
//! no call convention, and an inlined statement keeps its span in the function.
//!
//! 64-bit integers (`i64`, `u64`) are registers, tensor elements and array elements of their
//! own types here, which PTX computes on natively; WGSL has none, so `wide` splits a kernel
//! into 32-bit words exactly before WGSL is written, and the simulator runs that split form too.

mod arrays;
pub mod bounds;
mod calls;
mod expressions;
mod half;
mod lint;
mod lower;
mod lowering;
pub mod matrix;
mod print;
mod program;
mod reuse;
mod size;
mod tensor_tiles;
mod tiles;
mod types;
pub mod wide;
mod wide_warp;

pub use lint::lint;
pub use lower::lower;
pub use print::{print, print_kernel};
pub use program::{lower_program, Condition, LaunchArg, Program, Step, Temporary};
pub use size::{Size, SizeOp};
pub use types::{
    f16_from_storage, f16_round, f16_storage, join_words, split_words, Axis, CtxField, Scalar,
};

use crate::span::Span;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize)]
pub struct Module {
    pub kernels: Vec<Kernel>,
    pub programs: Vec<Program>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Kernel {
    pub name: String,
    pub threads: u32,
    pub params: Vec<Param>,
    /// Dimension names, bound at launch from the tensors' shapes; a derived one's name is its
    /// text (`N / 2`).
    pub dims: Vec<String>,
    /// The dimensions a launch computes from the others (`Y: tensor<f32>[N / 2]`).
    pub derived: Vec<DerivedDim>,
    /// The type of each register, and the source name it holds, if any.
    pub regs: Vec<RegInfo>,
    /// The CTA's shared-memory arrays: one per tile value.
    pub shared: Vec<SharedArray>,
    /// Each thread's own arrays (`array<f32>[8](0.0)`).
    pub locals: Vec<LocalArray>,
    pub body: Block,
    pub span: Span,
    /// `@cluster(dim: size)`: super-tiles over one dimension (see [`crate::cluster`]).
    pub cluster: Option<Cluster>,
    /// The first of the kernel's matrix operations (`matrix.rs`), if it has one: each lane's
    /// fragment is then the table's for 32-lane warps, the only warps it runs with.
    pub matrix: Option<Span>,
    /// The first of the source's `mma`s, if it has one: the matrix instruction a target may
    /// lack (E0522). Loads and stores at the fragment map are plain loads and stores.
    pub mma: Option<Span>,
}

/// A dimension computed from others when the kernel is launched: `Kernel::dims[dim]` is its
/// text, and `size` reads only dimensions that are not derived, and integer scalar parameters
/// (`Size::Scalar`, an index into `Kernel::params`).
#[derive(Clone, Debug, Serialize)]
pub struct DerivedDim {
    pub dim: usize,
    pub size: Size,
}

impl Kernel {
    /// Whether dimension `dim` is computed from others rather than given.
    pub fn is_derived(&self, dim: usize) -> bool {
        self.derived.iter().any(|d| d.dim == dim)
    }

    /// The dimensions a launch gives (not derived), with their indices.
    pub fn given_dims(&self) -> impl Iterator<Item = (usize, &String)> {
        self.dims
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.is_derived(*i))
    }

    /// Dimension `dim`'s name in generated code: its own, or a derived one's text made an
    /// identifier with its index (`N / 2`, dimension 1, is `N_div_2_1`).
    pub fn dim_symbol(&self, dim: usize) -> String {
        let name = self.dims.get(dim).map_or("", String::as_str);
        if !self.is_derived(dim) {
            return name.to_owned();
        }
        let mut symbol = String::new();
        for c in name.chars().filter(|c| !c.is_whitespace()) {
            match c {
                '+' => symbol.push_str("_add_"),
                '-' => symbol.push_str("_sub_"),
                '*' => symbol.push_str("_mul_"),
                '/' => symbol.push_str("_div_"),
                '%' => symbol.push_str("_rem_"),
                c if c.is_ascii_alphanumeric() || c == '_' => symbol.push(c),
                _ => symbol.push('_'),
            }
        }
        format!("{}_{dim}", symbol.trim_matches('_'))
    }
}

/// `@cluster(dim: size)` of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cluster {
    /// The index in [`Kernel::dims`] of the dimension the super-tiles split.
    pub dim: usize,
    /// Elements of that dimension per super-tile (the last may be shorter).
    pub size: u64,
}

/// A per-thread array: `len()` elements of `element`, row-major, each a register's bits (an
/// `f16` as its `f32` value, a `bool` as 0 or 1). Where every access's index is a constant,
/// `in_registers`: PTX gives each element a register; otherwise it is `.local` memory.
/// WGSL always declares a function-scope array, and its compiler decides.
#[derive(Clone, Debug, Serialize)]
pub struct LocalArray {
    pub name: String,
    pub element: Scalar,
    pub shape: Vec<u32>,
    pub in_registers: bool,
}

impl LocalArray {
    pub fn len(&self) -> usize {
        self.shape.iter().map(|&n| n as usize).product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A tile in shared memory: row-major, of a compile-time shape, stored with the extents
/// `storage` (its shape, or its rows padded: [`tiles::pad_tiles`]).
#[derive(Clone, Debug, Serialize)]
pub struct SharedArray {
    pub name: String,
    pub element: Scalar,
    pub shape: Vec<u32>,
    /// The extents elements are laid out by: `shape`, except a padded tile's last extent.
    pub storage: Vec<u32>,
    /// One slot per warp (the CTA scan's warp totals): `shape` is the CTA's threads, the most
    /// warps there can be; a backend stores only `threads / lanes`, rounded up, for its warp
    /// width ([`SharedArray::stored_len_at`]).
    pub per_warp: bool,
}

impl SharedArray {
    /// Elements in the tile.
    pub fn len(&self) -> usize {
        self.shape.iter().map(|&n| n as usize).product()
    }

    /// Elements of storage (with a padded tile's padding), with `lanes`-wide warps.
    pub fn stored_len_at(&self, lanes: u32) -> usize {
        let len: usize = self.storage.iter().map(|&n| n as usize).product();
        if self.per_warp {
            len.div_ceil(lanes.max(1) as usize)
        } else {
            len
        }
    }

    pub fn is_padded(&self) -> bool {
        self.storage != self.shape
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct RegInfo {
    pub ty: Scalar,
    pub name: Option<String>,
    /// Whether it is a variable of the source (a `let`, a `var`, a `for` counter), which the
    /// trace shows; a tile statement's loop counters and sums are named for the IR's reader
    /// only.
    pub variable: bool,
    /// In a kernel split into words (`wide`): the 64-bit register whose high word this is (its
    /// own register holds the low word), and that register's type.
    pub high_of: Option<(u32, Scalar)>,
}

#[derive(Clone, Debug, Serialize)]
pub enum Param {
    Tensor {
        name: String,
        element: Scalar,
        dims: Vec<DimRef>,
    },
    Scalar {
        name: String,
        ty: Scalar,
    },
}

impl Param {
    pub fn name(&self) -> &str {
        match self {
            Param::Tensor { name, .. } | Param::Scalar { name, .. } => name,
        }
    }

    /// A tensor's element type, or a scalar's type.
    pub fn element(&self) -> Scalar {
        match self {
            Param::Tensor { element, .. } => *element,
            Param::Scalar { ty, .. } => *ty,
        }
    }
}

/// One extent of a tensor: a literal, or the index of a dimension name in `Kernel::dims`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DimRef {
    Literal(u32),
    Dim(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Reg(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Operand {
    Reg(Reg),
    /// A constant's bits in its type (`f32::to_bits` for floats, two's complement for i32).
    Const(u32),
}

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    /// The source of this statement's own work (an operand's expression, say), for faults.
    pub span: Span,
    /// The source statement it was lowered from, as a debugger highlights it: a simple
    /// statement whole; for `if`, `while` and `for`, the header up to the condition or range
    /// (the body's statements have their own). What the simulator's trace steps by.
    pub statement: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    /// `dst = op`.
    Let {
        dst: Reg,
        op: Op,
    },
    /// `tensor[indices] = value` in global memory; with `guarded`, a store outside the tensor
    /// is dropped (tile stores) instead of being a fault.
    Store {
        tensor: usize,
        indices: Vec<Operand>,
        value: Operand,
        guarded: bool,
    },
    /// `shared[array][indices] = value`.
    SharedStore {
        array: usize,
        indices: Vec<Operand>,
        value: Operand,
    },
    /// `locals[array][index] = value` in this thread's array (`index` row-major, flat;
    /// `coordinates`, for a two-axis array, each axis's index, which the simulator checks
    /// against its extent: the flat index alone would let `a[0, 4]` of a `[4, 4]` array read
    /// `a[1, 0]`; the backends use the flat index only).
    LocalStore {
        array: usize,
        index: Operand,
        coordinates: Vec<Operand>,
        value: Operand,
    },
    Atomic(Atomic),
    If {
        condition: Operand,
        then_block: Block,
        else_block: Block,
    },
    /// Runs `body` then `continuing` until every thread has left by `Break` or `Return`;
    /// `Continue` goes to `continuing`.
    Loop {
        body: Block,
        continuing: Block,
    },
    Break,
    Continue,
    Return,
    Barrier,
    /// A warp's matrix operation (`matrix.rs`): per-thread arrays `d = a · b + c`, each this
    /// lane's fragment (`crate::mma`); `d` may be `c`. All 32 lanes of the warp run it together.
    Mma {
        a: usize,
        b: usize,
        c: usize,
        d: usize,
    },
}

/// An atomic read-modify-write of one element, thread by thread; `dst` takes the value the
/// element held before (none where the source drops it: PTX's `red`). `expected` is
/// `compare_exchange`'s. Outside the tensor or tile it is a fault, as a store is.
#[derive(Clone, Debug, Serialize)]
pub struct Atomic {
    pub dst: Option<Reg>,
    pub op: AtomicOp,
    pub ty: Scalar,
    pub place: Place,
    pub value: Operand,
    pub expected: Option<Operand>,
}

/// The element an atomic works on: a tensor's (device scope) or a tile's (CTA scope).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Place {
    Tensor {
        tensor: usize,
        indices: Vec<Operand>,
    },
    Shared {
        array: usize,
        indices: Vec<Operand>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    CompareExchange,
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 9] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
        AtomicOp::CompareExchange,
    ];

    /// The built-in's name, `atomic_add`.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Exchange => "atomic_exchange",
            AtomicOp::CompareExchange => "atomic_compare_exchange",
        }
    }

    pub fn from_name(name: &str) -> Option<AtomicOp> {
        AtomicOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether its element may be an f32 (only `atomic_add`: PTX has `atom.add.f32`).
    pub fn takes_f32(self) -> bool {
        self == AtomicOp::Add
    }

    /// Whether the final value of an element does not depend on the order of the atomics on it
    /// (for integer elements): every one but an exchange.
    pub fn commutes(self) -> bool {
        !matches!(self, AtomicOp::Exchange | AtomicOp::CompareExchange)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CompareOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MathFn {
    Abs,
    Sqrt,
    Rsqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tanh,
    Floor,
    Ceil,
    /// Halves to even.
    Round,
    Trunc,
    /// -1, 0 or 1 (+0 for either zero); NaN stays NaN.
    Sign,
    Erf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reduce {
    Sum,
    Max,
    Min,
    And,
    Or,
    Xor,
}

impl Reduce {
    /// The reduction's identity in type `ty`, as bits: what a missing lane contributes.
    pub fn identity(self, ty: Scalar) -> u32 {
        match (self, ty) {
            (Reduce::Sum | Reduce::Or | Reduce::Xor, _) => 0,
            (Reduce::And, _) => u32::MAX,
            (Reduce::Max, Scalar::F32 | Scalar::F16) => f32::NEG_INFINITY.to_bits(),
            (Reduce::Max, Scalar::I32) => i32::MIN as u32,
            (Reduce::Max, _) => 0,
            (Reduce::Min, Scalar::F32 | Scalar::F16) => f32::INFINITY.to_bits(),
            (Reduce::Min, Scalar::I32) => i32::MAX as u32,
            (Reduce::Min, _) => u32::MAX,
        }
    }
}

/// Which threads a collective combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Over {
    Warp,
    Cta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Vote {
    Any,
    All,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Shuffle {
    /// Lane `l mod lanes`.
    Index,
    Xor,
    Up,
    Down,
    /// Like `Index`, with a warp-uniform lane.
    Broadcast,
}

#[derive(Clone, Debug, Serialize)]
pub enum Op {
    Copy(Operand),
    /// A 64-bit constant past 32 bits (an operand holds one word: `Operand::Const` where a
    /// 64-bit value is read is that word zero-extended).
    Const64(u64),
    Ctx(CtxField),
    /// The value of dimension `dims[i]`.
    Dim(usize),
    /// The value of scalar parameter `params[i]` (of a 64-bit one, in a kernel split into
    /// words, its low word).
    Scalar(usize),
    /// The high word of 64-bit scalar parameter `params[i]`, in a kernel split into words
    /// (`wide.rs`); nowhere else.
    ScalarHigh(usize),
    Unary(UnaryOp, Scalar, Operand),
    Binary(BinaryOp, Scalar, Operand, Operand),
    Compare(CompareOp, Scalar, Operand, Operand),
    /// `c ? a : b`, both evaluated.
    Select(Operand, Operand, Operand),
    Fma(Operand, Operand, Operand),
    /// `pow(x, y)` of two `f32`s.
    Pow(Operand, Operand),
    Math(MathFn, Scalar, Operand),
    Cast {
        from: Scalar,
        to: Scalar,
        value: Operand,
    },
    /// `bitcast<to>(value)`: the same 32 bits read as another of `i32`, `u32` and `f32`.
    Bitcast {
        from: Scalar,
        to: Scalar,
        value: Operand,
    },
    /// A global element; with `guarded`, a read outside the tensor gives 0 (tile loads)
    /// instead of being a fault.
    Load {
        tensor: usize,
        indices: Vec<Operand>,
        guarded: bool,
    },
    SharedLoad {
        array: usize,
        indices: Vec<Operand>,
    },
    /// An element of this thread's array `array`, at the flat row-major `index` (and
    /// `coordinates`, as `StmtKind::LocalStore`'s).
    LocalLoad {
        array: usize,
        index: Operand,
        coordinates: Vec<Operand>,
    },
    Reduce(Reduce, Over, Scalar, Operand),
    Vote(Vote, Operand),
    PrefixSum(Scalar, Operand),
    Shuffle(Shuffle, Operand, Operand),
}

impl Op {
    /// Whether the operation computes from constants alone (`0.0 / 0.0`, `sqrt(-1.0)`): an
    /// arithmetic operation, comparison, select, cast or math function whose every operand is
    /// a constant. Reads of memory, `ctx`, dimensions, scalars and collectives are not.
    pub fn only_constants(&self) -> bool {
        let constant = |o: &Operand| matches!(o, Operand::Const(_));
        // A 64-bit constant is computed where it runs: its words are not one operand's bits.
        let wide = |t: &Scalar| t.is_wide();
        match self {
            Op::Unary(_, t, _) | Op::Binary(_, t, _, _) | Op::Compare(_, t, _, _) if wide(t) => {
                false
            }
            Op::Cast { from, to, .. } | Op::Bitcast { from, to, .. } if wide(from) || wide(to) => {
                false
            }
            Op::Unary(_, _, a)
            | Op::Math(_, _, a)
            | Op::Cast { value: a, .. }
            | Op::Bitcast { value: a, .. } => constant(a),
            Op::Binary(_, _, a, b) | Op::Compare(_, _, a, b) | Op::Pow(a, b) => {
                constant(a) && constant(b)
            }
            Op::Select(a, b, c) | Op::Fma(a, b, c) => constant(a) && constant(b) && constant(c),
            _ => false,
        }
    }
}

impl Kernel {
    /// Bytes of shared memory the kernel's tiles take with `lanes`-wide warps, padding included.
    pub fn shared_bytes_at(&self, lanes: u32) -> u64 {
        self.shared
            .iter()
            .map(|a| a.stored_len_at(lanes) as u64 * a.element.size())
            .sum()
    }

    /// Whether the kernel reduces over the whole CTA anywhere (the PTX keeps the warps'
    /// partial results in shared memory for it).
    pub fn reduces_over_cta(&self) -> bool {
        let mut found = false;
        self.visit(&mut |kind| {
            found |= matches!(
                kind,
                StmtKind::Let {
                    op: Op::Reduce(_, Over::Cta, _, _),
                    ..
                }
            );
        });
        found
    }

    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name() == name)
    }

    /// The name of the dimension `@cluster` splits, if the kernel has one.
    pub fn cluster_dim(&self) -> Option<&str> {
        self.cluster
            .and_then(|c| self.dims.get(c.dim))
            .map(String::as_str)
    }

    /// The parameters the kernel stores to, plainly or by atomics: its outputs (the rest are
    /// read-only).
    pub fn written_tensors(&self) -> Vec<usize> {
        let mut written = Vec::new();
        self.visit(&mut |kind| {
            let tensor = match kind {
                StmtKind::Store { tensor, .. }
                | StmtKind::Atomic(Atomic {
                    place: Place::Tensor { tensor, .. },
                    ..
                }) => *tensor,
                _ => return,
            };
            if !written.contains(&tensor) {
                written.push(tensor);
            }
        });
        written.sort_unstable();
        written
    }

    /// The tensors and the tiles atomics work on (each sorted): a backend gives them atomic
    /// storage.
    pub fn atomic_places(&self) -> (Vec<usize>, Vec<usize>) {
        let (mut tensors, mut arrays) = (Vec::new(), Vec::new());
        self.visit(&mut |kind| {
            let (list, index) = match kind {
                StmtKind::Atomic(Atomic {
                    place: Place::Tensor { tensor, .. },
                    ..
                }) => (&mut tensors, *tensor),
                StmtKind::Atomic(Atomic {
                    place: Place::Shared { array, .. },
                    ..
                }) => (&mut arrays, *array),
                _ => return,
            };
            if !list.contains(&index) {
                list.push(index);
            }
        });
        tensors.sort_unstable();
        arrays.sort_unstable();
        (tensors, arrays)
    }

    /// Whether the CTAs must run in grid order for the results to be the same on every run:
    /// an atomic on a tensor whose old value is used, that exchanges, or that adds floats
    /// (the sum depends on the order of the additions).
    pub fn atomics_need_order(&self) -> bool {
        let mut ordered = false;
        self.visit(&mut |kind| {
            if let StmtKind::Atomic(
                a @ Atomic {
                    place: Place::Tensor { .. },
                    ..
                },
            ) = kind
            {
                ordered |= a.dst.is_some() || !a.op.commutes() || a.ty == Scalar::F32;
            }
        });
        ordered
    }

    /// Whether the kernel's CTAs can observe each other: an atomic on a tensor whose old value
    /// is used can tell which CTAs ran before it, so its control and results may depend on
    /// their order (which the spec leaves open).
    pub fn ctas_observe_each_other(&self) -> bool {
        let mut observes = false;
        self.visit(&mut |kind| {
            observes |= matches!(
                kind,
                StmtKind::Atomic(Atomic {
                    dst: Some(_),
                    place: Place::Tensor { .. },
                    ..
                })
            );
        });
        observes
    }

    /// The widest warp the kernel can run in: a ballot is one `u32` bit a lane, so a kernel
    /// that takes one needs warps of at most 32 lanes.
    pub fn widest_warp(&self) -> u32 {
        let mut ballot = false;
        self.visit(&mut |kind| {
            ballot |= matches!(
                kind,
                StmtKind::Let {
                    op: Op::Vote(Vote::Ballot, _),
                    ..
                }
            );
        });
        if ballot {
            32
        } else {
            crate::hierarchy::MAX_LANES
        }
    }

    /// Calls `f` with every statement of the kernel, nested ones included.
    pub fn visit<'k>(&'k self, f: &mut impl FnMut(&'k StmtKind)) {
        visit(&self.body, f);
    }
}

/// Calls `f` on every statement of `block`, at any depth, in order.
pub fn visit<'s>(block: &'s [Stmt], f: &mut impl FnMut(&'s StmtKind)) {
    for stmt in block {
        f(&stmt.kind);
        match &stmt.kind {
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                visit(then_block, f);
                visit(else_block, f);
            }
            StmtKind::Loop { body, continuing } => {
                visit(body, f);
                visit(continuing, f);
            }
            _ => {}
        }
    }
}
