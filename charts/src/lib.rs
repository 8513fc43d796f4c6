//! Charts of what a kernel costs, drawn as SVG text.
//!
//! In: a run's counts (floating-point operations and global bytes, `compiler_core::sim::profile`)
//! or a CTA's resources (threads, shared memory, registers), and the targets (the peaks and
//! limits of `compiler_core::target`, the one place that knows them). Out: a `<figure>` of HTML
//! with an SVG chart and a caption: [`roofline`] and [`occupancy_curves`].
//!
//! One drawing for every place that shows one: the docs' build step writes it into a page, the
//! playground sets it as a panel's HTML. Invariants: the charts' colours are the page's (CSS
//! classes and `currentColor`, so both themes hold); every marked point is focusable and says
//! its figures in words (`aria-label` and `<title>`), and the caption says the point's figures
//! too, so nothing is only a position on a chart.

mod axis;
mod occupancy;
mod roofline;

pub use occupancy::{occupancy_curves, Curve, CurvePoint};
pub use roofline::{roofline, RooflineMark};

/// Text made safe for HTML and SVG, in text and in attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A focusable mark: a circle at (`x`, `y`) whose figures `text` says, to a screen reader
/// (its label) and to a pointer (its title).
fn point(class: &str, x: f64, y: f64, text: &str) -> String {
    let text = escape(text);
    format!(
        "<g class=\"point {class}\" tabindex=\"0\" role=\"img\" aria-label=\"{text}\"><title>{text}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\"/></g>"
    )
}

pub use compiler_core::timing::si;

/// The page's one stylesheet: its light theme's colours and its `.chart` rules dress a chart
/// shown outside the page ([`standalone_svg`]), so both draw alike from one set of rules.
const PAGE_CSS: &str = include_str!("../../site/style.css");

/// A chart's `<figure>` (or the occupancy charts' `<div>` of three) as one SVG standing by
/// itself: each of its `<svg>`s side by side in an outer one with the SVG namespace, and the
/// page's chart rules and light colours in a `<style>` of its own. For a notebook (Python's
/// `Chart._repr_svg_`), where the page's stylesheet is absent; each drawing is the figure's.
pub fn standalone_svg(figure: &str) -> String {
    let mut body = String::new();
    let (mut width, mut height) = (0.0f64, 0.0f64);
    let mut rest = figure;
    while let Some(start) = rest.find("<svg") {
        let end = rest[start..]
            .find("</svg>")
            .map_or(rest.len(), |e| start + e + "</svg>".len());
        let svg = &rest[start..end];
        let (w, h) = view_box(svg).unwrap_or((640.0, 400.0));
        body += &svg.replacen(
            "<svg ",
            &format!("<svg x=\"{width}\" width=\"{w}\" height=\"{h}\" "),
            1,
        );
        width += w;
        height = height.max(h);
        rest = &rest[end..];
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\"><style>{}</style>{body}</svg>",
        standalone_style()
    )
}

/// The width and height of an `<svg>`'s `viewBox="0 0 W H"`.
fn view_box(svg: &str) -> Option<(f64, f64)> {
    let start = svg.find("viewBox=\"")? + "viewBox=\"".len();
    let numbers: Vec<f64> = svg[start..]
        .split('"')
        .next()?
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers[..] {
        [_, _, w, h] => Some((w, h)),
        _ => None,
    }
}

/// The light theme's custom properties (the `:root { … }` blocks) on the SVG, then every rule
/// of the page's for what is inside a chart (`.chart .…`): read from the stylesheet once.
fn standalone_style() -> &'static str {
    static STYLE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    STYLE.get_or_init(read_standalone_style)
}

fn read_standalone_style() -> String {
    let mut properties = String::new();
    let mut in_root = false;
    for line in PAGE_CSS.lines() {
        match line.trim() {
            ":root {" => in_root = true,
            "}" => in_root = false,
            property if in_root && property.starts_with("--") => properties += property,
            _ => {}
        }
    }
    let rules: String = PAGE_CSS
        .lines()
        // The rules inside a chart; not the figure's or the chart's own box (its width is
        // the page column's there, and each drawing's own here).
        .filter(|line| line.starts_with(".chart ."))
        .collect();
    format!("svg{{{properties}color:var(--fg);font-family:var(--sans)}}{rules}")
}

/// `1.20 µs`: a duration in the unit that reads best.
pub fn seconds(value: f64) -> String {
    let (scale, unit) = if value >= 1.0 {
        (1.0, "s")
    } else if value >= 1e-3 {
        (1e3, "ms")
    } else if value >= 1e-6 {
        (1e6, "µs")
    } else {
        (1e9, "ns")
    };
    format!("{:.3} {unit}", value * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_with_their_prefix() {
        assert_eq!(si(339.8e9), "340 G");
        assert_eq!(si(15.7e12), "15.7 T");
        assert_eq!(si(2.0), "2.00 ");
        assert_eq!(seconds(1.2e-6), "1.200 µs");
        assert_eq!(seconds(0.25), "250.000 ms");
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }

    #[test]
    fn a_standalone_chart_is_the_figures_svgs_with_the_pages_chart_rules() {
        let work = compiler_core::sim::Work {
            float_adds: 1 << 20,
            ..Default::default()
        };
        let figure = roofline(&work, 12 << 20, None);
        let svg = standalone_svg(&figure);
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{svg}"
        );
        assert!(
            svg.ends_with("</svg>") && !svg.contains("figcaption"),
            "{svg}"
        );
        assert!(svg.contains("--warm: #c4621c;") && svg.contains(".chart .roof-sm_90"));
        // The drawing is the figure's, placed.
        let (w, h) = view_box(&figure).unwrap_or_default();
        let placed = format!("<svg x=\"0\" width=\"{w}\" height=\"{h}\" class=\"chart\"");
        let inner = &figure[figure.find("<svg").unwrap_or(0)..figure.find("</svg>").unwrap_or(0)];
        assert!(svg.contains(&inner.replacen("<svg class=\"chart\"", &placed, 1)));
        // The occupancy charts' three side by side.
        let three = standalone_svg(&occupancy_curves(
            compiler_core::target::Arch::Sm80,
            256,
            0,
            32,
        ));
        assert_eq!(three.matches("class=\"chart\"").count(), 3);
        assert_eq!(three.matches("<svg").count(), 4);
    }
}
