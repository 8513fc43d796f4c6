//! The diagram as static SVG text, for where there is no page to zoom in (Python's
//! `tessera.diagram` in a notebook): the zoom from the grid to one thread's lane drawn as one
//! panel a level, each with its breadcrumb, the cell picked at each level marked. The cells,
//! their words and their layout are the interactive view's (`zoom`, `geometry`); colours are
//! the page's light theme, written on the shapes, since no stylesheet comes with the SVG.

use crate::geometry::{layout, CellText, MARGIN, WIDTH};
use crate::zoom::{DiagramConfig, Level, Zoom};
use compiler_core::hierarchy::{Dim3, LaunchShape};

const FG: &str = "#1b1f24";
const MUTED: &str = "#57606a";
const BOX: &str = "#f1f3f5";
const PICKED: &str = "#e3f0f8";
const ACCENT: &str = "#1d6fa5";
const WARM: &str = "#c4621c";
/// The line of each panel's breadcrumb.
const TITLE: f64 = 26.0;

/// Text made safe for SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The most CTAs the grid panel draws, each a cell (the page's diagram draws a schematic's).
const MOST_CTAS: u64 = 4096;

/// Grid → CTA `block` → the warp of `thread` → its lane, four panels; or why the thread is
/// not in the launch, or why the grid cannot be drawn (a third axis, over `MOST_CTAS` CTAs).
pub fn zoom_path(shape: &LaunchShape, block: Dim3, thread: u32) -> Result<String, String> {
    let grid = shape.grid;
    if grid.z > 1 {
        return Err(format!(
            "the diagram draws a grid of one or two axes, blocks=(x, y); this one has {} in z",
            grid.z
        ));
    }
    let ctas = u64::from(grid.x) * u64::from(grid.y);
    if ctas > MOST_CTAS {
        return Err(format!(
            "the diagram draws each CTA of the grid, at most {MOST_CTAS}, and {} x {} is {ctas}: draw a smaller grid (a CTA, its warps and lanes are the same in any grid)",
            grid.x, grid.y
        ));
    }
    let config = DiagramConfig {
        shape: *shape,
        ..DiagramConfig::default()
    };
    let picks = Zoom::at(&config, block, thread)?.path;
    let mut zoom = Zoom::start(&config);
    let mut body = String::new();
    let mut top = 0.0;
    for depth in 0..=picks.len() {
        let level = zoom.level(&config);
        let cells = zoom.cells(&config);
        let picked = picks.get(depth).copied();
        let (rects, height) = layout(&config, &zoom, &cells);
        let crumbs = zoom.breadcrumb(&config).join(" › ");
        let title = match level {
            Level::Grid => format!("Grid: {} × {} CTAs", shape.grid.x, shape.grid.y),
            _ => crumbs,
        };
        body += &format!(
            "<g transform=\"translate(0 {top:.1})\"><text x=\"{MARGIN}\" y=\"{:.1}\" font-size=\"14\" font-weight=\"600\" fill=\"{FG}\">{}</text><g transform=\"translate(0 {TITLE})\">",
            TITLE * 0.6,
            escape(&title)
        );
        for (cell, rect) in cells.iter().zip(&rects) {
            let on_path = picked == Some(cell.index) || level == Level::Lane;
            let (fill, stroke, width) = if on_path {
                (PICKED, WARM, 2.5)
            } else {
                (BOX, MUTED, 1.0)
            };
            let text = CellText::of(cell, level, *rect);
            body += &format!(
                "<g><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
                escape(&format!("{}, {}", cell.label, cell.detail)),
                rect.x,
                rect.y,
                rect.w,
                rect.h
            );
            if let Some((present, lanes)) = cell.filled {
                let fraction = f64::from(present) / f64::from(lanes.max(1));
                body += &format!(
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"6\" rx=\"2\" fill=\"{ACCENT}\"/>",
                    rect.x,
                    rect.y + rect.h - 6.0,
                    rect.w * fraction
                );
            }
            body += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"monospace\" fill=\"{FG}\">{}</text>",
                text.x,
                text.main_y,
                text.size,
                escape(&text.main)
            );
            if !text.detail.is_empty() {
                body += &format!(
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"monospace\" fill=\"{MUTED}\">{}</text>",
                    text.x,
                    text.detail_y,
                    text.detail_size,
                    escape(&text.detail)
                );
            }
            body += "</g>";
        }
        body += "</g></g>";
        top += TITLE + height;
        if let Some(index) = picked {
            zoom.enter(&config, index);
        }
    }
    let label = format!(
        "The hierarchy of a launch of {} × {} × {} CTAs of {} threads, warps of {} lanes: the grid, CTA ({}, {}), the warp of thread {} and its lane",
        shape.grid.x, shape.grid.y, shape.grid.z, shape.threads, shape.lanes, block.x, block.y, thread
    );
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {top:.0}\" width=\"{WIDTH}\" role=\"img\" aria-label=\"{}\" font-family=\"system-ui, sans-serif\"><rect width=\"100%\" height=\"100%\" fill=\"#fbfbf8\"/>{body}</svg>",
        escape(&label)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_launch_zooms_to_thread_113s_lane() {
        let shape = LaunchShape::SCHEMATIC;
        let svg = zoom_path(&shape, Dim3::new(2, 1, 0), 113).unwrap_or_else(|e| panic!("{e}"));
        assert!(svg.starts_with("<svg xmlns=") && svg.ends_with("</svg>"));
        for crumb in [
            "Grid: 4 × 3 CTAs",
            "Grid › CTA (2, 1)",
            "CTA (2, 1) › Warp 3",
            "Warp 3 › Lane 17",
        ] {
            assert!(svg.contains(crumb), "{crumb} in {svg}");
        }
        // One cell picked at each of the three levels above the lane, and the lane itself.
        assert_eq!(svg.matches(&format!("stroke=\"{WARM}\"")).count(), 4);
        assert!(zoom_path(&shape, Dim3::new(4, 0, 0), 0).is_err());
        let huge = LaunchShape {
            grid: Dim3::new(65536, 65536, 1),
            ..shape
        };
        assert!(zoom_path(&huge, Dim3::new(5, 1, 0), 0).is_err_and(|e| e.contains("at most 4096")));
        let deep = LaunchShape {
            grid: Dim3::new(2, 3, 4),
            ..shape
        };
        assert!(zoom_path(&deep, Dim3::new(1, 2, 3), 0).is_err_and(|e| e.contains("in z")));
    }
}
