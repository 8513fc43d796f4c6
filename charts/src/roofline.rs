//! The roofline (Williams, Waterman and Patterson, "Roofline", CACM 2009; Nsight Compute's
//! chart): floating-point operations a second against arithmetic intensity (FLOP per byte of
//! DRAM traffic), both on log scales. Each target's roof is its bandwidth times the intensity
//! up to the ridge, its peak after. A run is a vertical line at its intensity; where that line
//! meets a roof is the most the run could do there, and so the least time it could take.
//!
//! Each target is charged what its own PTX executes ([`Work::on`]): a tile product on the
//! tensor cores where the target has `mma` (sm_80, sm_90) and on the FP32 pipe on sm_70; a
//! kernel with its own `mma` has no sm_70 PTX (E0522), so no V100 mark. A target whose PTX
//! runs tensor-core work gets its tensor-core roof as well: the same bandwidth slope, rising
//! past the FP32 ridge to the dense f16 peak. Its mark is the run's whole work over its least
//! time (`Peak::least_seconds`, the FP32 and tensor-core work each at its own peak). A target
//! without such work keeps its FP32 roof alone: a roof it cannot reach is not drawn.

use crate::axis::{decades, Frame, Scale};
use crate::{escape, point, seconds, si};
use compiler_core::sim::Work;
use compiler_core::target::{Arch, Bound};

/// Where a run meets one target's roof.
#[derive(Clone, Debug, PartialEq)]
pub struct RooflineMark {
    pub arch: Arch,
    /// The most FLOP/s the run could reach there: the roof at its intensity.
    pub attainable: f64,
    /// The least time the run could take there.
    pub seconds: f64,
    pub bound: Bound,
    /// The mark's figures in words.
    pub text: String,
}

/// The run's marks, one per target its kernel has PTX for, each charged what that target's PTX
/// executes ([`Work::on`]): `None` without global traffic (no intensity to place).
pub fn marks(work: &Work, bytes: u64) -> Option<Vec<RooflineMark>> {
    (bytes > 0).then(|| {
        let all = work.all_flops();
        let intensity = all as f64 / bytes as f64;
        Arch::ALL
            .into_iter()
            .filter_map(|arch| Some((arch, work.on(arch)?)))
            .map(|(arch, (flops, tensor))| {
                let peak = arch.peak();
                let (least, bound) = peak.least_seconds(flops, tensor, bytes);
                // The roof at the intensity: for FP32 work alone, min(intensity · bandwidth,
                // peak); with tensor work, the whole work over its least time, the same
                // figure for the blend of both pipes.
                let attainable = match tensor {
                    0 => (intensity * peak.bytes_per_second).min(peak.flops_per_second),
                    _ => all as f64 / least,
                };
                RooflineMark {
                    arch,
                    attainable,
                    seconds: least,
                    bound,
                    text: format!(
                        "{} ({}) at {intensity:.3} FLOP/byte: {}, at most {}FLOP/s; the run takes at least {}",
                        peak.gpu,
                        arch.name(),
                        bound.name(),
                        si(attainable),
                        seconds(least)
                    ),
                }
            })
            .collect()
    })
}

/// The measured point in words.
fn measured_text(rate: f64, s: f64) -> String {
    format!(
        "Your GPU (WebGPU's timestamps): {}FLOP/s reached, the run's work in {}",
        si(rate),
        seconds(s)
    )
}

/// `0.01`, `1`, `1000`: an intensity decade.
fn intensity_label(value: f64) -> String {
    let places = (-value.log10().round()).max(0.0) as usize;
    format!("{value:.places$}")
}

/// `1 G`, `100 T`: a decade of FLOP/s.
fn rate_label(value: f64) -> String {
    si(value).replace(".00", "").replace(".0 ", " ")
}

/// Row `row` of the legend, below the plot (where it covers no roof and no mark): a line of
/// the roof's `class`, or with `dot` a mark's circle of that class, and its words.
fn legend_row(frame: &Frame, row: usize, class: &str, text: &str, dot: bool) -> String {
    let y = frame.legend_y(row);
    let x = frame.x.from;
    let (kind, glyph) = match dot {
        true => (
            "dot",
            format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\"/>",
                x + 11.0,
                y - 4.0
            ),
        ),
        false => (
            "",
            format!(
                "<line x1=\"{x}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
                y - 4.0,
                x + 22.0,
                y - 4.0
            ),
        ),
    };
    format!(
        "<g class=\"legend {kind} {class}\" aria-hidden=\"true\">{glyph}<text x=\"{:.1}\" y=\"{y:.1}\">{text}</text></g>",
        x + 28.0,
    )
}

/// The roofline of a run's `work` over `bytes` of global traffic, as a `<figure>`: the three
/// targets' roofs (and the tensor-core roof of each whose PTX runs tensor-core work), the run's
/// intensity and its marks, and a caption that says every mark's figures. With `measured`, the
/// seconds the run's kernel work took on the reader's GPU (WebGPU's timestamps), the point it
/// reached: all its operations over that time, at its intensity.
pub fn roofline(work: &Work, bytes: u64, measured: Option<f64>) -> String {
    let marks = marks(work, bytes).unwrap_or_default();
    let all = work.all_flops();
    // The tensor-core work each target's PTX runs (none without PTX).
    let tensor_on = |arch: Arch| work.on(arch).map_or(0, |(_, tensor)| tensor);
    let tensor = Arch::ALL.into_iter().map(tensor_on).max().unwrap_or(0);
    let intensity = (bytes > 0 && all > 0).then(|| all as f64 / bytes as f64);
    // Decades wide enough for every ridge (about 10 to 20 FLOP/byte) and the run.
    let x_lo = intensity.map_or(-2, |i| (i.log10().floor() as i32).min(-2));
    let x_hi = intensity.map_or(3, |i| (i.log10().ceil() as i32).max(3));
    let peaks = Arch::ALL.map(Arch::peak);
    let slowest = peaks
        .iter()
        .map(|p| p.bytes_per_second)
        .fold(f64::MAX, f64::min);
    let top = |p: &compiler_core::target::Peak| match tensor {
        0 => p.flops_per_second,
        _ => p.tensor_flops_per_second,
    };
    let fastest = peaks.iter().map(top).fold(0.0, f64::max);
    let reached = measured
        .filter(|&s| s > 0.0 && intensity.is_some())
        .map(|s| (all as f64 / s, s));
    // Down to the measured point, which a software GPU puts far below the roofs.
    let y_lo = reached.map_or(i32::MAX, |(rate, _)| rate.log10().floor() as i32);
    let y_lo = y_lo.min((10f64.powi(x_lo) * slowest).log10().floor() as i32);
    let y_hi = fastest.log10().ceil() as i32;
    // The legend's rows below the plot: the roofs, the thin roofs, the marks, your GPU's.
    let rows = Arch::ALL.len()
        + usize::from(tensor > 0)
        + usize::from(!marks.is_empty() && intensity.is_some())
        + usize::from(reached.is_some());
    let frame = Frame::new(
        560.0,
        300.0,
        (Scale::Log, 10f64.powi(x_lo), 10f64.powi(x_hi)),
        (Scale::Log, 10f64.powi(y_lo), 10f64.powi(y_hi)),
    )
    .with_legend(rows);
    let mut svg = frame.open(
        "Roofline: FLOP/s against FLOP per byte, log scales",
        &decades(x_lo, x_hi, intensity_label),
        &decades(y_lo, y_hi, rate_label),
        "arithmetic intensity (FLOP per byte of global traffic)",
        "FLOP/s",
    );
    let (x_min, x_max) = (frame.x.lo, frame.x.hi);
    for (row, arch) in Arch::ALL.into_iter().enumerate() {
        let peak = arch.peak();
        let ridge = peak.ridge();
        // A roof: the bandwidth's slope, then flat at `top` from where the slope reaches it.
        let roof = |class: &str, from: (f64, f64), top: f64| {
            let path = [from, (top / peak.bytes_per_second, top), (x_max, top)]
                .map(|(x, y)| format!("{:.1},{:.1}", frame.x.at(x), frame.y.at(y)))
                .join(" ");
            format!(
                "<polyline class=\"roof {class}roof-{}\" points=\"{path}\"/>",
                arch.name()
            )
        };
        svg += &roof(
            "",
            (x_min, x_min * peak.bytes_per_second),
            peak.flops_per_second,
        );
        if tensor_on(arch) > 0 {
            // The slope goes on past the FP32 ridge up to the tensor cores' peak.
            svg += &roof(
                "tensor ",
                (ridge, peak.flops_per_second),
                peak.tensor_flops_per_second,
            );
        }
        svg += &legend_row(
            &frame,
            row,
            &format!("roof-{}", arch.name()),
            &format!(
                "{} ({}): {}FLOP/s, {}B/s",
                peak.gpu,
                arch.name(),
                si(peak.flops_per_second),
                si(peak.bytes_per_second)
            ),
            false,
        );
    }
    let mut row = Arch::ALL.len();
    if tensor > 0 {
        // One row for the thin roofs, each drawn target's peak in the order above.
        let peaks: Vec<String> = Arch::ALL
            .into_iter()
            .filter(|&a| tensor_on(a) > 0)
            .map(|a| format!("{:.0}", a.peak().tensor_flops_per_second / 1e12))
            .collect();
        svg += &legend_row(
            &frame,
            row,
            "tensor",
            &format!("thin: tensor cores, {} TFLOP/s", peaks.join(" · ")),
            false,
        );
        row += 1;
    }
    if let Some(i) = intensity {
        let x = frame.x.at(i);
        svg += &format!(
            "<line class=\"intensity\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/><text class=\"intensity-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\">this run</text>",
            frame.y.from,
            frame.y.to,
            if x > frame.width / 2.0 { x - 4.0 } else { x + 4.0 },
            frame.y.from - 6.0,
            if x > frame.width / 2.0 { "end" } else { "start" },
        );
        for mark in &marks {
            svg += &point(
                &format!("roof-{}", mark.arch.name()),
                x,
                frame.y.at(mark.attainable),
                &mark.text,
            );
        }
        if let Some(mark) = marks.last() {
            svg += &legend_row(
                &frame,
                row,
                &format!("roof-{}", mark.arch.name()),
                "dots on the roofs: the most this run can reach on each GPU",
                true,
            );
            row += 1;
        }
    }
    if let (Some((rate, s)), Some(i)) = (reached, intensity) {
        let y = frame.y.at(rate);
        svg += &point("measured", frame.x.at(i), y, &measured_text(rate, s));
        svg += &legend_row(
            &frame,
            row,
            "measured",
            &format!(
                "your GPU: {}FLOP/s, measured (WebGPU's timestamps)",
                si(rate)
            ),
            true,
        );
    }
    svg += "</svg>";
    let on_tensor_cores = match (work.tensor_flops, work.tile_product_flops) {
        (0, 0) => String::new(),
        (t, 0) => format!(" ({t} of them on the tensor cores)"),
        (t, p) => format!(
            " ({} of them on the tensor cores where the target has them, {p} of those a tile product's, which sm_70 runs on the FP32 pipe)",
            t + p
        ),
    };
    let no_ptx: Vec<String> = Arch::ALL
        .into_iter()
        .filter(|&a| work.on(a).is_none())
        .map(|a| {
            format!(
                " {} ({}) has no PTX for its mma: no mark.",
                a.peak().gpu,
                a.name()
            )
        })
        .collect();
    let run = match (all, bytes) {
        (_, 0) => "This run moved no global memory, so it has no intensity to place: the roofs alone.".to_owned(),
        (0, _) => format!(
            "This run did no floating-point arithmetic over {bytes} bytes of global traffic: an intensity of 0, left of any log scale, memory-bound on every target (at least {} on {}).",
            seconds(Arch::Sm90.peak().least_seconds(0, 0, bytes).0),
            Arch::Sm90.peak().gpu
        ),
        _ => format!(
            "This run: {all} floating-point operations{on_tensor_cores} over {bytes} bytes of global traffic, {:.3} FLOP/byte. {}.{}",
            all as f64 / bytes as f64,
            marks.iter().map(|m| m.text.as_str()).collect::<Vec<_>>().join("; "),
            no_ptx.concat()
        ),
    };
    // The measured point says its figures itself (its name and title): the caption keeps its
    // length, so a time that arrives after the counts moves nothing below the chart.
    let peaks = match tensor {
        0 => "FP32 without tensor cores",
        _ => "FP32, and the tensor cores' dense f16 with f32 sums, the thin roofs",
    };
    format!(
        "<figure class=\"chart-figure roofline\" data-testid=\"roofline\">{svg}<figcaption>{} Bounds at the data sheets' peaks ({peaks}; DRAM bandwidth), not measurements: the counts assume no cache and no latency. <a href=\"/docs/costs\">What the roofline says</a>.</figcaption></figure>",
        escape(&run)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `flops` on the FP32 pipe and `tensor` of the source's own `mma`.
    fn w(flops: u64, tensor: u64) -> Work {
        Work {
            float_adds: flops,
            tensor_flops: tensor,
            ..Work::default()
        }
    }

    #[test]
    fn axpy_is_memory_bound_everywhere_at_its_bandwidth_times_its_intensity() {
        // 2 flops over 12 bytes an element, a million elements.
        let n = 1 << 20;
        let marks = marks(&w(2 * n, 0), 12 * n).unwrap_or_default();
        assert_eq!(marks.len(), 3);
        for mark in &marks {
            let peak = mark.arch.peak();
            assert_eq!(mark.bound, Bound::Memory);
            assert!((mark.attainable - peak.bytes_per_second / 6.0).abs() < 1.0);
            assert!((mark.seconds - 12.0 * n as f64 / peak.bytes_per_second).abs() < 1e-12);
        }
        // A100: 2039 GB/s / 6 = 339.8 GFLOP/s; 12 MiB / 2039 GB/s = 6.171 µs.
        assert_eq!(
            marks[1].text,
            "A100 (sm_80) at 0.167 FLOP/byte: memory-bound, at most 340 GFLOP/s; the run takes at least 6.171 µs"
        );
    }

    #[test]
    fn past_the_ridge_the_roof_is_the_peak() {
        // 1000 fmas an element: 2000 flops over 8 bytes, 250 FLOP/byte.
        let marks = marks(&w(2000, 0), 8).unwrap_or_default();
        for mark in &marks {
            assert_eq!(mark.bound, Bound::Compute);
            assert_eq!(mark.attainable, mark.arch.peak().flops_per_second);
        }
    }

    #[test]
    fn the_chart_has_a_roof_per_target_and_a_focusable_mark_each() {
        let figure = roofline(&w(2 * 1024, 0), 12 * 1024, None);
        assert_eq!(figure.matches("<polyline class=\"roof ").count(), 3);
        assert_eq!(figure.matches("tabindex=\"0\"").count(), 3);
        assert!(figure.contains("aria-label=\"V100 (sm_70) at 0.167 FLOP/byte: memory-bound"));
        assert!(figure.contains(">0.01<") && figure.contains(">1000<"));
        assert!(figure.contains(">100 T<"), "{figure}");
    }

    #[test]
    fn a_run_without_flops_or_traffic_says_so_instead_of_a_mark() {
        let none = roofline(&w(0, 0), 4096, None);
        assert!(!none.contains("tabindex"));
        assert!(none.contains("did no floating-point arithmetic over 4096 bytes"));
        assert!(roofline(&w(10, 0), 0, None).contains("moved no global memory"));
    }

    #[test]
    fn the_axes_widen_for_an_intensity_beyond_them() {
        let figure = roofline(&w(1_000_000, 0), 10, None);
        assert!(figure.contains(">100000<"), "{figure}");
        let figure = roofline(&w(1, 0), 100_000, None);
        assert!(figure.contains(">0.00001<"), "{figure}");
    }

    #[test]
    fn a_measured_time_places_the_point_the_run_reached() {
        // 2 GFLOP over 12 GB in a second: 2 GFLOP/s at 0.167 FLOP/byte.
        let figure = roofline(&w(2_000_000_000, 0), 12_000_000_000, Some(1.0));
        assert_eq!(figure.matches("class=\"point measured\"").count(), 1);
        assert!(
            figure.contains(
                "aria-label=\"Your GPU (WebGPU's timestamps): 2.00 GFLOP/s reached, the run's work in 1.000 s\""
            ),
            "{figure}"
        );
        // The caption is the same with the point as without: a time arriving after the counts
        // moves nothing on the page.
        assert_eq!(
            figure.split("<figcaption>").nth(1),
            roofline(&w(2_000_000_000, 0), 12_000_000_000, None)
                .split("<figcaption>")
                .nth(1)
        );
        assert_eq!(
            roofline(&w(2, 0), 0, Some(1.0))
                .matches("point measured")
                .count(),
            0
        );
        // A software GPU's 1.68 MFLOP/s: the scale goes down to it, not to the roofs' 1 G.
        let slow = roofline(&w(602_151, 0), 414_112, Some(0.358));
        assert!(slow.contains(">1 M</text>"), "{slow}");
    }

    /// Every mark is named in the legend, and the legend lies below the plot (issue 68: it sat
    /// on the roofs and the run's dots): each row's text under the plot's bottom edge.
    #[test]
    fn the_legend_names_every_mark_below_the_plot() {
        let figure = roofline(&w(2_000_000_000, 1 << 30), 12_000_000_000, Some(1.0));
        let rows: Vec<&str> = figure.split("<g class=\"legend").skip(1).collect();
        let texts: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.split("\">").nth(2)?.split('<').next())
            .collect();
        assert_eq!(rows.len(), 6, "{texts:?}");
        assert!(texts[3].starts_with("thin: tensor cores"), "{texts:?}");
        assert!(texts[4].starts_with("dots on the roofs"), "{texts:?}");
        assert!(
            texts[5].starts_with("your GPU: 3.07 GFLOP/s, measured"),
            "{texts:?}"
        );
        let plot_bottom = 300.0 - 40.0;
        for row in &rows {
            let y: f64 = row
                .split("<text x=\"")
                .nth(1)
                .and_then(|t| t.split("y=\"").nth(1))
                .and_then(|t| t.split('"').next())
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("{row}"));
            assert!(y > plot_bottom + 30.0, "a legend row at y = {y}: {row}");
        }
        // Without a measurement, no row for it.
        let plain = roofline(&w(2_000_000_000, 0), 12_000_000_000, None);
        assert_eq!(plain.matches("<g class=\"legend").count(), 4);
    }

    #[test]
    fn tensor_work_gets_the_tensor_cores_roofs_and_its_marks_blend_both_pipes() {
        // A warp's mma: 4096 tensor operations; 16 FP32 adds besides; 1024 bytes. sm_70 has no
        // mma: no PTX, so no V100 mark and no V100 tensor roof.
        let figure = roofline(&w(16, 4096), 1024, None);
        assert_eq!(figure.matches("<polyline class=\"roof tensor ").count(), 2);
        assert_eq!(figure.matches("<polyline class=\"roof ").count(), 5);
        assert!(!figure.contains("roof tensor roof-sm_70"), "{figure}");
        assert!(
            figure.contains("thin: tensor cores, 312 · 990 TFLOP/s"),
            "{figure}"
        );
        assert!(figure.contains("This run: 4112 floating-point operations (4096 of them on the tensor cores) over 1024 bytes"));
        assert!(figure.contains("V100 (sm_70) has no PTX for its mma: no mark."));
        assert_eq!(figure.matches("tabindex=\"0\"").count(), 2);
        assert!(figure.contains("the thin roofs"));
        // Up to the H100's tensor peak: the scale reaches 1 P.
        assert!(figure.contains(">1 P<"), "{figure}");
        // Memory-bound at 4 FLOP/byte: each mark is the bandwidth times the intensity.
        let marked = marks(&w(16, 4096), 1024).unwrap_or_default();
        assert_eq!(marked.len(), 2);
        for mark in marked {
            let peak = mark.arch.peak();
            assert_eq!(mark.bound, Bound::Memory);
            assert!(
                (mark.attainable / (4112.0 / 1024.0 * peak.bytes_per_second) - 1.0).abs() < 1e-12
            );
        }
        // Past every ridge: the tensor cores' peak, far above the FP32 pipe's.
        for mark in marks(&w(0, 1 << 40), 1024).unwrap_or_default() {
            assert_eq!(mark.bound, Bound::Compute);
            assert!(
                (mark.attainable / mark.arch.peak().tensor_flops_per_second - 1.0).abs() < 1e-12
            );
        }
        // Without tensor work the chart is as before.
        let plain = roofline(&w(16, 0), 1024, None);
        assert!(!plain.contains("roof tensor") && !plain.contains("thin:"));
    }

    #[test]
    fn a_tile_product_is_charged_to_the_unit_each_targets_ptx_uses() {
        // 2^40 FP32 operations and a tile product of 2^40: sm_70 runs both on the FP32 pipe,
        // sm_80 and sm_90 the product on the tensor cores.
        let work = Work {
            float_adds: 1 << 40,
            tile_product_flops: 1 << 40,
            ..Work::default()
        };
        let marked = marks(&work, 1024).unwrap_or_default();
        assert_eq!(marked.len(), 3);
        let v100 = &marked[0];
        let seconds = (2u64 << 40) as f64 / v100.arch.peak().flops_per_second;
        assert!((v100.seconds / seconds - 1.0).abs() < 1e-12);
        // Both pipes busy on the A100: the slower of the two sets the time (1 T of FP32 at
        // 19.5 T takes longer than 1 T on 312 T), and the mark is the whole work over it.
        let a100 = &marked[1];
        let seconds = (1u64 << 40) as f64 / a100.arch.peak().flops_per_second;
        assert!((a100.seconds / seconds - 1.0).abs() < 1e-12);
        assert!((a100.attainable * seconds / (2u64 << 40) as f64 - 1.0).abs() < 1e-12);
        let figure = roofline(&work, 1024, None);
        assert!(!figure.contains("roof tensor roof-sm_70"), "{figure}");
        assert_eq!(figure.matches("<polyline class=\"roof tensor ").count(), 2);
        assert!(figure.contains("of those a tile product's, which sm_70 runs on the FP32 pipe"));
    }
}
