//! Where the diagram's cells are drawn, in viewBox units: the one layout the interactive view
//! (`view.rs`) and the static SVG (`svg.rs`) share.

use crate::zoom::{Cell, DiagramConfig, Level, Zoom};

pub const WIDTH: f64 = 640.0;
pub const MARGIN: f64 = 16.0;
pub const GAP: f64 = 8.0;

/// Where a cell is drawn, in viewBox units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// The layout of a level: each cell's rectangle, and the drawing's height.
pub fn layout(config: &DiagramConfig, zoom: &Zoom, cells: &[Cell]) -> (Vec<Rect>, f64) {
    let columns = f64::from(zoom.columns(config));
    let rows = cells.iter().map(|c| c.row).max().map_or(1, |r| r + 1);
    let level = zoom.level(config);
    let w = (WIDTH - 2.0 * MARGIN - GAP * (columns - 1.0)) / columns;
    let h = match level {
        Level::Cta if config.lane_labels => 72.0,
        Level::Lane => 180.0,
        Level::Grid | Level::Cluster => (w * 0.62).clamp(18.0, 110.0),
        Level::Cta => (w * 0.5).clamp(40.0, 90.0),
        Level::Warp => (w * 0.62).clamp(30.0, 56.0),
    };
    // The cluster's node names, and the warp's key to its numbers, take a line above.
    let top = if matches!(level, Level::Cluster | Level::Warp) {
        MARGIN + 22.0
    } else {
        MARGIN
    };
    let rects = cells
        .iter()
        .map(|c| Rect {
            x: MARGIN + f64::from(c.column) * (w + GAP),
            y: top + f64::from(c.row) * (h + GAP),
            w,
            h,
        })
        .collect();
    let height = top + f64::from(rows) * (h + GAP) - GAP + MARGIN;
    (rects, height.max(120.0))
}

fn font_size(rect: Rect, text: &str) -> f64 {
    // A monospace character is about 0.62 em wide; keep a tenth of the cell as margin.
    let fit = rect.w * 0.9 / (text.chars().count().max(1) as f64 * 0.62);
    fit.min(rect.h * 0.42).clamp(7.0, 24.0)
}

/// A cell's two lines of text placed in its box: the page's drawing and the SVG's.
pub struct CellText {
    pub main: String,
    /// Under the main line, smaller; empty for none.
    pub detail: String,
    pub size: f64,
    pub detail_size: f64,
    /// The centre of both lines.
    pub x: f64,
    /// The main line's middle: the box's own with no detail, else above it.
    pub main_y: f64,
    pub detail_y: f64,
}

impl CellText {
    pub fn of(cell: &Cell, level: Level, rect: Rect) -> CellText {
        let (main, detail) = cell_text(cell, level);
        let size = font_size(rect, &main);
        let detail_size = font_size(rect, &detail).min(size * 0.8);
        let cy = rect.y + rect.h / 2.0;
        CellText {
            main_y: if detail.is_empty() {
                cy
            } else {
                cy - detail_size * 0.55
            },
            detail_y: cy + size * 0.75,
            x: rect.x + rect.w / 2.0,
            main,
            detail,
            size,
            detail_size,
        }
    }
}

/// A cell's two lines of text at `level`: the main one and the smaller one under it (empty
/// for none). The drawing keeps the numbers; the words are in the accessible name and the
/// readout.
fn cell_text(cell: &Cell, level: Level) -> (String, String) {
    let main = match level {
        Level::Grid => cell.detail.clone(),
        Level::Warp => cell.index.to_string(),
        _ => cell.label.clone(),
    };
    let detail = match level {
        Level::Grid => String::new(),
        Level::Cta | Level::Warp => cell
            .detail
            .trim_start_matches("threads ")
            .trim_start_matches("thread ")
            .to_owned(),
        Level::Lane => format!("{} · its own registers", cell.detail),
        Level::Cluster => cell.detail.clone(),
    };
    (main, detail)
}
