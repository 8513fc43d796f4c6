//! The hierarchy diagram: an SVG that zooms grid → CTA → warp → lane (and, with `@cluster`,
//! starts one tier above), by mouse and by keyboard, with a readout of the eight `ctx` fields
//! for what is picked. The site's pages, the docs (through a Markdown directive) and the
//! playground embed it. Below the lane, [`FragmentMap`] (`lanes`): which lane holds which
//! element of a warp's `mma` operands, in the playground beside a kernel that uses `mma` and on
//! the tensor-cores page (the `lanemap` directive).
//!
//! In: a [`DiagramConfig`] (a launch shape, lane labels, the cluster tier). Out: the drawing, a
//! breadcrumb, zoom buttons and a live readout. All the rules live in [`zoom`] (pure, tested);
//! this module draws them, and [`svg`] draws one zoom as static SVG text (Python's notebooks).
//!
//! Accessibility: the drawing is one focusable listbox whose options are the cells (the
//! focused one is `aria-activedescendant`), so a screen reader announces "CTA (2, 1)" as the
//! arrows move; Enter or Space zooms in, Escape or Backspace zooms out; the readout is a live
//! region. The zoom animation is skipped when the user prefers reduced motion (style.css).

mod geometry;
pub mod svg;
pub mod zoom;

pub use zoom::{Cluster, DiagramConfig, Level, Move, Zoom};

#[cfg(feature = "view")]
mod lanes;
#[cfg(feature = "view")]
mod view;
#[cfg(feature = "view")]
pub use lanes::{FragmentMap, FragmentMapProps};
#[cfg(feature = "view")]
pub use view::HierarchyDiagram;
