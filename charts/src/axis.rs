//! A chart's frame: its plot area in the SVG's units, its two axes (linear or logarithmic)
//! mapping values to positions, and their ticks, labels and grid drawn as SVG text.

/// How an axis maps values: linearly, or by their base-10 logarithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    Linear,
    Log,
}

/// One axis: values `lo..=hi` onto positions `from..=to` (y runs upwards, so its `from` is the
/// bottom).
#[derive(Clone, Copy, Debug)]
pub struct Axis {
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
    pub from: f64,
    pub to: f64,
}

impl Axis {
    fn unit(&self, value: f64) -> f64 {
        match self.scale {
            Scale::Linear => (value - self.lo) / (self.hi - self.lo),
            Scale::Log => (value.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()),
        }
    }

    /// The position of `value`, clamped to the axis.
    pub fn at(&self, value: f64) -> f64 {
        let unit = self.unit(value);
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.from + (self.to - self.from) * unit
    }
}

/// A chart's size and plot area, in the SVG's units (the page scales the whole).
pub struct Frame {
    pub width: f64,
    pub height: f64,
    pub x: Axis,
    pub y: Axis,
}

/// The space around the plot: room for the y labels on the left, the x labels below.
const LEFT: f64 = 58.0;
const RIGHT: f64 = 22.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 40.0;

impl Frame {
    pub fn new(width: f64, height: f64, x: (Scale, f64, f64), y: (Scale, f64, f64)) -> Frame {
        Frame {
            width,
            height,
            x: Axis {
                scale: x.0,
                lo: x.1,
                hi: x.2,
                from: LEFT,
                to: width - RIGHT,
            },
            y: Axis {
                scale: y.0,
                lo: y.1,
                hi: y.2,
                from: height - BOTTOM,
                to: TOP,
            },
        }
    }

    /// The frame with `rows` lines of 16 units below the axis' title, for a legend
    /// ([`Frame::legend_y`]): the plot stays as it was.
    pub fn with_legend(mut self, rows: usize) -> Frame {
        self.height += 16.0 * rows as f64 + 4.0;
        self
    }

    /// The baseline of the legend's row `row` (from 0) below the plot.
    pub fn legend_y(&self, row: usize) -> f64 {
        self.y.from + BOTTOM + 14.0 + 16.0 * row as f64
    }

    /// The opening `<svg>` with its accessible name, and the axes: ticks at `x_ticks` and
    /// `y_ticks` (value, label), a grid line at each, and the axes' titles.
    pub fn open(
        &self,
        label: &str,
        x_ticks: &[(f64, String)],
        y_ticks: &[(f64, String)],
        x_title: &str,
        y_title: &str,
    ) -> String {
        let (w, h) = (self.width, self.height);
        let (left, right, bottom, top) = (self.x.from, self.x.to, self.y.from, self.y.to);
        let mut svg = format!(
            "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"group\" aria-label=\"{}\">",
            crate::escape(label)
        );
        svg += "<g class=\"grid\" aria-hidden=\"true\">";
        for (value, text) in x_ticks {
            let x = self.x.at(*value);
            svg += &format!(
                "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{bottom}\"/><text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                bottom + 14.0,
                crate::escape(text)
            );
        }
        for (value, text) in y_ticks {
            let y = self.y.at(*value);
            svg += &format!(
                "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{right}\" y2=\"{y:.1}\"/><text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                left - 5.0,
                y + 4.0,
                crate::escape(text)
            );
        }
        svg += &format!(
            "<rect class=\"plot\" x=\"{left}\" y=\"{top}\" width=\"{:.1}\" height=\"{:.1}\"/>",
            right - left,
            bottom - top
        );
        svg += &format!(
            "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            (left + right) / 2.0,
            bottom + BOTTOM - 6.0,
            crate::escape(x_title)
        );
        svg += &format!(
            "<text class=\"axis-title\" transform=\"translate(13 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
            (top + bottom) / 2.0,
            crate::escape(y_title)
        );
        svg += "</g>";
        svg
    }
}

/// The powers of ten from `lo` to `hi` (exponents), each with `label`'s text.
pub fn decades(lo: i32, hi: i32, label: impl Fn(f64) -> String) -> Vec<(f64, String)> {
    (lo..=hi)
        .map(|e| {
            let value = 10f64.powi(e);
            (value, label(value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_put_each_decade_an_equal_step_apart() {
        let frame = Frame::new(
            400.0,
            200.0,
            (Scale::Log, 0.01, 100.0),
            (Scale::Linear, 0.0, 1.0),
        );
        let (a, b, c) = (frame.x.at(0.01), frame.x.at(0.1), frame.x.at(1.0));
        assert!((b - a - (c - b)).abs() < 1e-9);
        assert_eq!(frame.x.at(100.0), 400.0 - RIGHT);
        // y runs upwards: 0 at the bottom of the plot, 1 at its top.
        assert_eq!(frame.y.at(0.0), 200.0 - BOTTOM);
        assert_eq!(frame.y.at(1.0), TOP);
        // Outside the axis, clamped to its ends; a log axis puts 0 at its start.
        assert_eq!(frame.y.at(2.0), TOP);
        assert_eq!(frame.x.at(0.0), LEFT);
    }
}
