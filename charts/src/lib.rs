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
}
