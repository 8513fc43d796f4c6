//! What displays in a notebook: a [`Chart`] (the page's roofline and occupancy charts, the
//! hierarchy diagram) whose `_repr_svg_` Jupyter shows and whose `str()` is the command
//! line's text, and a [`Profile`], a run's memory counts as Python data.

use crate::arrays::extents;
use crate::errors::error;
use compiler_core::hierarchy::{Dim3, LaunchShape};
use compiler_core::sim::MemoryProfile;
use compiler_core::target::Arch;
use pyo3::prelude::*;

/// A chart or diagram: SVG for a notebook, text for a terminal.
#[pyclass(frozen, module = "tessera._tessera")]
pub struct Chart {
    /// The page's `<figure>` (the SVG and its caption), as the docs and the playground show it.
    #[pyo3(get)]
    figure: String,
    /// The SVG alone, dressed in the page's chart styles (`charts::standalone_svg`).
    #[pyo3(get)]
    svg: String,
    /// What the command line prints of it.
    #[pyo3(get)]
    text: String,
}

impl Chart {
    pub fn new(figure: String, text: String) -> Chart {
        Chart {
            svg: charts::standalone_svg(&figure),
            figure,
            text,
        }
    }
}

#[pymethods]
impl Chart {
    fn _repr_svg_(&self) -> &str {
        &self.svg
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> &str {
        &self.text
    }
}

/// A run's memory counts and work (`tessera run --profile`).
#[pyclass(frozen, module = "tessera._tessera")]
pub struct Profile {
    counts: MemoryProfile,
    /// The table `tessera run --profile` prints.
    text: String,
    /// `tessera run --profile --json`'s object: `flops`, `global_bytes`, `requested_bytes`,
    /// `shared_wavefronts`, `work` and `sites` (each access with its line, column and figures).
    #[pyo3(get)]
    data: Py<PyAny>,
    /// The run's results, as `Module.run` gives them.
    #[pyo3(get)]
    outputs: Py<PyAny>,
}

impl Profile {
    pub fn new(
        py: Python<'_>,
        counts: MemoryProfile,
        source: &str,
        outputs: Py<PyAny>,
    ) -> PyResult<Profile> {
        let data = py
            .import("json")?
            .call_method1("loads", (counts.to_json(source),))?
            .unbind();
        Ok(Profile {
            text: counts.to_text(source),
            counts,
            data,
            outputs,
        })
    }
}

#[pymethods]
impl Profile {
    /// Floating-point operations on the FP32 pipe on every target (Nsight Compute's count);
    /// a tile product's are apart (`data["work"]["tile_product_flops"]`), on the FP32 pipe on
    /// sm_70 and the tensor cores from sm_80.
    #[getter]
    fn flops(&self) -> u64 {
        self.counts.work.flops()
    }

    /// Bytes of global memory moved, in 32-byte sectors.
    #[getter]
    fn global_bytes(&self) -> u64 {
        self.counts.global_bytes()
    }

    /// Each access in the source with its figures (`data["sites"]`).
    #[getter]
    fn sites<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.data.bind(py).get_item("sites")
    }

    /// The run on each target's roofline: the page's chart (V100, A100 and H100) and the
    /// command line's lines, `arch`'s alone when given.
    #[pyo3(signature = (arch = None))]
    fn roofline(&self, py: Python<'_>, arch: Option<&str>) -> PyResult<Chart> {
        let arch: Option<Arch> = arch
            .map(str::parse)
            .transpose()
            .map_err(|why: String| error(py, "LaunchError", why))?;
        let work = &self.counts.work;
        let figure = charts::roofline(work, self.counts.global_bytes(), None);
        let text = match self.counts.roofline_text(arch) {
            text if text.is_empty() => "no roofline: the run moved no global memory\n".to_owned(),
            text => text,
        };
        Ok(Chart::new(figure, text))
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self) -> &str {
        &self.text
    }
}

/// The hierarchy diagram of a launch of `blocks` CTAs of `threads` threads, warps of `lanes`
/// (the seed's 4 × 3 grid by default): the grid, the CTA `block`, the warp of `thread` and
/// its lane, as SVG (a [`Chart`], which Jupyter displays; `str()` says where the thread sits,
/// as `tessera ctx` does).
#[pyfunction]
#[pyo3(signature = (blocks = None, threads = 256, lanes = 32, block = None, thread = None))]
pub fn diagram(
    py: Python<'_>,
    blocks: Option<&Bound<'_, PyAny>>,
    threads: u32,
    lanes: u32,
    block: Option<&Bound<'_, PyAny>>,
    thread: Option<u32>,
) -> PyResult<Chart> {
    let grid = match blocks {
        Some(blocks) => extents(py, blocks, 1, "blocks=")?,
        None => Dim3::new(4, 3, 1),
    };
    let block = match block {
        Some(b) => extents(py, b, 0, "block=")?,
        None => Dim3::new(0, 0, 0),
    };
    let thread = thread.unwrap_or(0);
    let shape = LaunchShape::new(grid, threads, lanes)
        .map_err(|e| error(py, "LaunchError", e.to_string()))?;
    let at = shape
        .locate(block, thread)
        .map_err(|e| error(py, "LaunchError", e.to_string()))?;
    let svg = ::diagram::svg::zoom_path(&shape, block, thread)
        .map_err(|why| error(py, "LaunchError", why))?;
    Ok(Chart {
        figure: svg.clone(),
        svg,
        text: at.sentence() + "\n",
    })
}
