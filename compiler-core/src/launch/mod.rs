//! A launch as data: which kernel, the grid, dimension and scalar values, inputs, lanes, the
//! step limit and the nodes. The CLI's flags, the playground's share links, the docs and the
//! tests all build this one struct, so the same launch means the same run everywhere.
//!
//! In: a [`Launch`], an IR kernel and the host's [`RunLimits`]. Out: a [`PreparedRun`] (the
//! kernel, the sizes checked, the simulator's [`Args`] built once: tensors made from data or
//! generators, dimensions inferred from data shapes and checked for agreement) that runs on
//! the simulator or, through its WGSL, on a GPU; or a diagnostic that says what does not fit.

use crate::hierarchy::Dim3;
use crate::ir::{split_words, DimRef, Kernel, Param, Scalar};
pub use crate::target::MAX_ELEMENTS;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

mod problems;
mod run;

pub(crate) use problems::derive_dims;
pub use problems::{LaunchField, LaunchProblem};
pub use run::{PreparedRun, Profiled, RunOutput, Traced};

/// The version of the launch format, for share links made by older playgrounds.
pub const LAUNCH_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Launch {
    pub version: u32,
    /// The kernel to run; `None` means the file's only kernel.
    pub kernel: Option<String>,
    pub grid: Dim3,
    /// Dimension values given explicitly (others come from the inputs' shapes).
    pub dims: BTreeMap<String, i64>,
    pub scalars: BTreeMap<String, f64>,
    /// Each tensor's initial contents; tensors not named start as zeros.
    pub inputs: BTreeMap<String, Input>,
    /// `ctx.lanes`.
    pub lanes: u32,
    /// Statement executions per CTA before the simulator stops the run (E0514); `None`: the
    /// host's default ([`RunLimits`]).
    pub step_limit: Option<u64>,
    /// The nodes a kernel under `@cluster` deals its super-tiles to (1: one node runs them
    /// all). Results do not depend on it; which node runs which super-tile does.
    pub nodes: u32,
}

impl Launch {
    /// A launch every kernel accepts, for the robustness tests and the fuzzers: one CTA, each
    /// dimension 8, each scalar 1, zeros in, and a short step limit.
    pub fn smoke(kernel: &Kernel) -> Launch {
        Launch {
            kernel: Some(kernel.name.clone()),
            dims: kernel.dims.iter().map(|d| (d.clone(), 8)).collect(),
            scalars: kernel
                .params
                .iter()
                .filter(|p| matches!(p, Param::Scalar { .. }))
                .map(|p| (p.name().to_owned(), 1.0))
                .collect(),
            step_limit: Some(20_000),
            ..Launch::default()
        }
    }
}

impl Default for Launch {
    fn default() -> Self {
        Self {
            version: LAUNCH_VERSION,
            kernel: None,
            grid: Dim3::new(1, 1, 1),
            dims: BTreeMap::new(),
            scalars: BTreeMap::new(),
            inputs: BTreeMap::new(),
            lanes: 32,
            step_limit: None,
            nodes: 1,
        }
    }
}

/// A tensor's initial contents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    Zeros,
    Ones,
    /// 0, 1, 2, … in row-major order.
    Iota,
    /// Deterministic pseudo-random values from a seed: floats in [-1, 1), integers in [0, 100).
    Rand(u64),
    Data {
        shape: Vec<usize>,
        values: Vec<f64>,
    },
    /// Row-major element bits as a run keeps them ([`crate::sim::Tensor::bits`]: an 8-bit
    /// element widened, an `f16` as [`Scalar::bits`] stores it, a 64-bit one as two words, the
    /// low first): data that arrive typed (Python's numpy arrays), taken exactly, NaN payloads
    /// and all, in one pass and at 4 bytes an element rather than a number's 8.
    Bits {
        shape: Vec<usize>,
        bits: Vec<u32>,
    },
}

impl FromStr for Input {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "zeros" => Ok(Input::Zeros),
            "ones" => Ok(Input::Ones),
            "iota" => Ok(Input::Iota),
            _ => match text.strip_prefix("rand:").map(str::parse::<u64>) {
                Some(Ok(seed)) => Ok(Input::Rand(seed)),
                _ => Err(format!("`{text}` is not zeros, ones, iota or rand:SEED")),
            },
        }
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Zeros => f.write_str("zeros"),
            Input::Ones => f.write_str("ones"),
            Input::Iota => f.write_str("iota"),
            Input::Rand(seed) => write!(f, "rand:{seed}"),
            Input::Data { shape, .. } | Input::Bits { shape, .. } => write!(f, "data {shape:?}"),
        }
    }
}

impl Input {
    /// What the input fills a tensor with, in a phrase, for the page and the CLI's help.
    pub fn describe(&self) -> String {
        match self {
            Input::Zeros => "every element 0".to_owned(),
            Input::Ones => "every element 1".to_owned(),
            Input::Iota => "0, 1, 2, … in row-major order".to_owned(),
            Input::Rand(seed) => format!(
                "pseudo-random from seed {seed}, the same every run: floats in [-1, 1), integers 0 to 99"
            ),
            Input::Data { shape, .. } | Input::Bits { shape, .. } => {
                format!("data of shape {shape:?}")
            }
        }
    }

    /// The shape of an input that is data (`None` for a generator).
    pub fn shape(&self) -> Option<&[usize]> {
        match self {
            Input::Data { shape, .. } | Input::Bits { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The elements of an input that is data, for `element`s (`None` for a generator).
    pub fn elements(&self, element: Scalar) -> Option<usize> {
        match self {
            Input::Data { values, .. } => Some(values.len()),
            Input::Bits { bits, .. } => Some(bits.len() / element.words().max(1)),
            _ => None,
        }
    }
}

/// What splitmix64 adds to its state each step.
const SPLITMIX_STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64: small, fast and the same on every platform.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(SPLITMIX_STEP);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `f(0)`, …, `f(count - 1)`: a large tensor in a part per thread (`threads`, 0 for the
/// machine's cores; one in the browser's WebAssembly), so that making a run's inputs scales as
/// its CTAs do.
fn in_parts(count: usize, threads: usize, f: impl Fn(usize) -> u32 + Sync) -> Vec<u32> {
    let mut out = vec![0; count];
    let cores = match (cfg!(target_arch = "wasm32") || count < 1 << 20, threads) {
        (true, _) => 1,
        (false, 0) => std::thread::available_parallelism().map_or(1, usize::from),
        (false, n) => n,
    };
    let part = count.div_ceil(cores.max(1)).max(1);
    let fill = |(index, chunk): (usize, &mut [u32])| {
        for (offset, slot) in chunk.iter_mut().enumerate() {
            *slot = f(index * part + offset);
        }
    };
    if cores <= 1 {
        out.chunks_mut(part).enumerate().for_each(fill);
    } else {
        std::thread::scope(|scope| {
            for chunk in out.chunks_mut(part).enumerate() {
                scope.spawn(|| fill(chunk));
            }
        });
    }
    out
}

fn generate(input: &Input, element: Scalar, count: usize, threads: usize) -> Vec<u32> {
    if element.is_wide() {
        // Two words an element, the low first: data by its values, the others as the `i32`
        // generator gives them, sign-extended.
        return match input {
            Input::Data { values, .. } => values
                .iter()
                .flat_map(|v| split_words(element.wide_bits(*v)))
                .collect(),
            Input::Bits { bits, .. } => bits.clone(),
            _ => generate(input, Scalar::I32, count, threads)
                .into_iter()
                .flat_map(|w| split_words(w as i32 as i64 as u64))
                .collect(),
        };
    }
    match input {
        Input::Zeros => vec![element.bits(0.0); count],
        Input::Ones => vec![element.bits(1.0); count],
        Input::Iota => in_parts(count, threads, |i| element.bits(i as f64)),
        // Element `i` is splitmix64's `i + 1`th output from the seed, so parts of the tensor
        // are drawn apart, on the machine's cores (the same values in any split).
        Input::Rand(seed) => in_parts(count, threads, |i| {
            let mut state = seed.wrapping_add((i as u64).wrapping_mul(SPLITMIX_STEP));
            let r = splitmix(&mut state);
            match element {
                Scalar::F32 | Scalar::F16 => {
                    element.bits((r >> 40) as f64 / (1u64 << 23) as f64 - 1.0)
                }
                _ => (r % 100) as u32,
            }
        }),
        Input::Data { values, .. } => values.iter().map(|v| element.bits(*v)).collect(),
        Input::Bits { bits, .. } => bits.clone(),
    }
}

/// The elements a fitted launch gives its new dimensions at most, all tensors together: a
/// default that runs at once anywhere, the browser tab included.
const FITTED_ELEMENTS: u64 = 1 << 20;

impl Launch {
    /// This launch made to fit `kernel`, whose signature may have changed since the launch was
    /// made (a kernel pasted over another, a parameter renamed, a share link whose launch and
    /// source disagree); `previous` is the kernel the launch was made for, when known. What
    /// still applies is kept; what names nothing of the kernel is dropped; a dimension or a
    /// scalar without a value gets one that runs: a dimension sized to the grid (`grid.x` × the
    /// CTA's threads, halved while the tensors would hold more than 2^20 elements), a scalar 1.
    /// A tensor new since `previous` gets random values (`rand:` its position + 1) when the
    /// kernel only reads it; a tensor the launch does not name starts as zeros, as always.
    /// Fitting a fitted launch changes nothing.
    pub fn fitted_to(&self, kernel: &Kernel, previous: Option<&Kernel>) -> Launch {
        let mut launch = self.clone();
        let param = |name: &str| kernel.param_index(name).map(|i| &kernel.params[i]);
        launch
            .dims
            .retain(|name, _| kernel.given_dims().any(|(_, given)| given == name));
        launch
            .scalars
            .retain(|name, _| matches!(param(name), Some(Param::Scalar { .. })));
        launch.inputs.retain(|name, input| match param(name) {
            Some(Param::Tensor { dims, .. }) => {
                input.shape().is_none_or(|shape| shape.len() == dims.len())
            }
            _ => false,
        });
        let written = kernel.written_tensors();
        let was_a_tensor = |name: &str| {
            previous.is_some_and(|p| {
                matches!(
                    p.param_index(name).map(|i| &p.params[i]),
                    Some(Param::Tensor { .. })
                )
            })
        };
        for (index, param) in kernel.params.iter().enumerate() {
            match param {
                Param::Scalar { name, .. } => {
                    launch.scalars.entry(name.clone()).or_insert(1.0);
                }
                Param::Tensor { name, .. } => {
                    let new = previous.is_some() && !was_a_tensor(name);
                    if new && !written.contains(&index) {
                        launch
                            .inputs
                            .entry(name.clone())
                            .or_insert(Input::Rand(index as u64 + 1));
                    }
                }
            }
        }
        let from_data = launch.dims_from_data(kernel);
        let missing: Vec<&String> = kernel
            .given_dims()
            .map(|(_, name)| name)
            .filter(|name| !launch.dims.contains_key(*name) && !from_data.contains(name))
            .collect();
        if missing.is_empty() {
            return launch;
        }
        let mut size = (i64::from(self.grid.x) * i64::from(kernel.threads)).max(1);
        loop {
            for name in &missing {
                launch.dims.insert((*name).clone(), size);
            }
            let elements = launch
                .dimension_values(kernel, Spelling::CommandLine)
                .map(|dims| {
                    tensor_shapes(kernel, &dims)
                        .flatten()
                        .map(|shape| shape.iter().product::<usize>() as u64)
                        .sum::<u64>()
                });
            if size == 1 || elements.is_ok_and(|n| n <= FITTED_ELEMENTS) {
                return launch;
            }
            size = (size / 2).max(1);
        }
    }

    /// The dimensions a data input's shape gives.
    fn dims_from_data(&self, kernel: &Kernel) -> Vec<String> {
        let mut names = Vec::new();
        for param in &kernel.params {
            if let Param::Tensor { name, dims, .. } = param {
                if self.inputs.get(name).is_some_and(|i| i.shape().is_some()) {
                    names.extend(dims.iter().filter_map(|d| match d {
                        DimRef::Dim(i) => kernel.dims.get(*i).cloned(),
                        DimRef::Literal(_) => None,
                    }));
                }
            }
        }
        names
    }
}

/// What a host allows one run: the terminal, or a browser tab. The one place that knows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// Elements of all the launch's tensors together, checked before any is allocated (each
    /// tensor is also held to [`MAX_ELEMENTS`]).
    pub max_elements: u64,
    /// When the launch sets no step limit: statement executions per CTA times the CTA's
    /// threads. The time a step takes grows with the threads that run it, so a budget of
    /// thread-statements stops a runaway loop after about the same time in any CTA.
    pub step_budget: u64,
    /// Who runs it, for messages: "a run in the page".
    pub host: &'static str,
    /// What to do about a launch over `max_elements`, for the diagnostic's help.
    pub larger: &'static str,
    /// The threads that make a large tensor's generated inputs (`rand:`, `iota`): 0 for the
    /// machine's cores. The simulator's own threads are the run's option (`--threads`).
    pub threads: usize,
    /// How the host's reader sets each part of a launch, in the messages that say so.
    pub spelling: Spelling,
}

/// How a host's reader gives a launch its parts: the command line's flags (the terminal and the
/// page, whose form has a field for each) or Python's keyword arguments. The launch's problems
/// name them so (`--dim N=…` or `dims={"N": …}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    CommandLine,
    Python,
}

impl Spelling {
    /// What sets the dimension `name`, quoted: `` `--dim N=…` ``, `` `dims={"N": …}` ``.
    pub fn dim(self, name: &str) -> String {
        match self {
            Spelling::CommandLine => format!("`--dim {name}=…`"),
            Spelling::Python => format!("`dims={{\"{name}\": …}}`"),
        }
    }

    /// What sets the scalar `name`.
    pub fn scalar(self, name: &str) -> String {
        match self {
            Spelling::CommandLine => format!("`--scalar {name}=…`"),
            Spelling::Python => format!("`scalars={{\"{name}\": …}}`"),
        }
    }

    /// What sets the tensor `name`'s input.
    pub fn input(self, name: &str) -> String {
        match self {
            Spelling::CommandLine => format!("`--in {name}=…`"),
            Spelling::Python => format!("`{name}=…`"),
        }
    }

    /// What sets the dimensions.
    pub fn dims(self) -> &'static str {
        match self {
            Spelling::CommandLine => "`--dim`",
            Spelling::Python => "`dims=`",
        }
    }

    /// What sets the grid.
    pub fn grid(self) -> &'static str {
        match self {
            Spelling::CommandLine => "`--grid X[,Y[,Z]]`",
            Spelling::Python => "`grid=(x, y, z)`",
        }
    }

    /// What sets the warp width.
    pub fn lanes(self) -> &'static str {
        match self {
            Spelling::CommandLine => "`--lanes N`",
            Spelling::Python => "`lanes=N`",
        }
    }

    /// Where a help's example goes: "on the command line: --scalar alpha=V", "scalars={"alpha": V}".
    pub fn example(self, flag: &str, name: &str, value: &str) -> String {
        match (self, flag) {
            (Spelling::CommandLine, _) => format!("on the command line: --{flag} {name}={value}"),
            (Spelling::Python, "dim") => format!("dims={{\"{name}\": {value}}}"),
            (Spelling::Python, _) => format!("scalars={{\"{name}\": {value}}}"),
        }
    }
}

impl RunLimits {
    /// `tessera run` and the tests: tensors up to [`MAX_ELEMENTS`] each, and 2^27
    /// thread-statements per CTA (4 M statements for 32 threads, 131 K for 1024), which an
    /// endless loop reaches in about 0.4 s in a release build and 8 s in a debug build
    /// (BENCHMARKS.md); `--step-limit` sets another.
    pub const TERMINAL: RunLimits = RunLimits {
        max_elements: u64::MAX,
        step_budget: 1 << 27,
        host: "a run from the command line",
        larger: "make the dimensions smaller",
        threads: 0,
        spelling: Spelling::CommandLine,
    };
    /// A run in a browser tab, in the playground's simulator worker: 64 MB of tensors (three
    /// times that with the inputs kept and the writers recorded, and once more in the page
    /// after the reply), and 2^29 thread-statements per CTA (2 M statements for 256 threads,
    /// about two seconds in the browser).
    pub const PAGE: RunLimits = RunLimits {
        max_elements: 16 << 20,
        step_budget: 1 << 29,
        host: "a run in the page",
        larger: "make the dimensions smaller here, or run the same launch from a terminal with `tessera run`",
        threads: 1,
        spelling: Spelling::CommandLine,
    };

    /// The step limit of a CTA of `threads` threads, when the launch sets none.
    pub fn step_limit(self, threads: u32) -> u64 {
        (self.step_budget / u64::from(threads.max(1))).max(1)
    }
}

/// Each parameter's shape for these dimension values (`None` for a scalar).
fn tensor_shapes<'k>(
    kernel: &'k Kernel,
    dims: &'k [i32],
) -> impl Iterator<Item = Option<Vec<usize>>> + 'k {
    kernel.params.iter().map(move |param| match param {
        Param::Scalar { .. } => None,
        Param::Tensor { dims: extents, .. } => Some(
            extents
                .iter()
                .map(|d| match d {
                    DimRef::Literal(n) => *n as usize,
                    DimRef::Dim(i) => dims.get(*i).map_or(0, |v| (*v).max(0) as usize),
                })
                .collect(),
        ),
    })
}
