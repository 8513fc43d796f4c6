//! Occupancy against each of a CTA's resources, as Nsight Compute's occupancy charts draw it
//! ("impact of varying register count / block size / shared memory usage per block"): one
//! resource swept over what the target allows, the other two held at the kernel's, with the
//! kernel's own value marked and the limit that binds there named.

use crate::axis::{Frame, Scale};
use crate::{escape, point};
use compiler_core::occupancy::{occupancy, Limit};
use compiler_core::target::{Arch, SmLimits};

/// One resource's value and the occupancy it gives (`None`: such a CTA cannot launch).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    pub x: u64,
    pub occupancy: Option<f64>,
}

/// Occupancy against one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// "registers per thread".
    pub resource: &'static str,
    pub points: Vec<CurvePoint>,
    /// The kernel's value of the resource.
    pub current: u64,
    /// The kernel's occupancy, and the limits that bind it, in words; or why it cannot launch.
    pub text: String,
}

/// The three curves for a CTA of `threads` threads, `shared` bytes of static shared memory
/// and `registers` registers per thread on `arch`.
pub fn curves(arch: Arch, threads: u32, shared: u64, registers: u32) -> [Curve; 3] {
    let limits = SmLimits::of(arch);
    let at = |t: u64, s: u64, r: u64| {
        occupancy(arch, t as u32, s, r as u32)
            .ok()
            .map(|o| o.occupancy)
    };
    let (t, s, r) = (u64::from(threads), shared, u64::from(registers));
    let text = match occupancy(arch, threads, shared, registers) {
        Ok(o) => format!(
            "{:.0}% ({} of {} warps per SM); {} bind{}",
            o.occupancy * 100.0,
            o.warps,
            o.limits.warps,
            o.binding
                .iter()
                .map(|l| l.name())
                .collect::<Vec<_>>()
                .join(" and "),
            if o.binding == [Limit::SharedMemory] {
                "s"
            } else {
                ""
            }
        ),
        Err(why) => format!("cannot launch: {why}"),
    };
    let sweep = |resource, values: Vec<u64>, current, f: &dyn Fn(u64) -> Option<f64>| Curve {
        resource,
        points: values
            .into_iter()
            .map(|x| CurvePoint { x, occupancy: f(x) })
            .collect(),
        current,
        text: text.clone(),
    };
    [
        sweep(
            "registers per thread",
            (1..=u64::from(limits.registers_per_thread)).collect(),
            r,
            &|x| at(t, s, x),
        ),
        sweep(
            "threads per CTA",
            (1..=u64::from(limits.threads_per_cta / 32))
                .map(|w| w * 32)
                .collect(),
            t,
            &|x| at(x, s, r),
        ),
        sweep(
            "shared memory per CTA (bytes)",
            (0..=limits.static_shared_per_cta / limits.shared_unit)
                .map(|k| k * limits.shared_unit)
                .collect(),
            s,
            &|x| at(t, x, r),
        ),
    ]
}

/// Ticks from 0 to `max` about a quarter of the way apart, in whole `round`s (registers at
/// 0, 64, 128, 192, 255), labelled in `unit`s (1024 for bytes in KiB).
fn ticks(max: u64, round: u64, unit: u64, suffix: &str) -> Vec<(f64, String)> {
    let step = ((max as f64 / 4.0 / round as f64).round() as u64).max(1) * round;
    let mut values: Vec<u64> = (0..4).map(|k| k * step).collect();
    values.push(max);
    values
        .into_iter()
        .map(|value| (value as f64, format!("{}{suffix}", value / unit)))
        .collect()
}

fn chart(curve: &Curve, arch: Arch) -> String {
    let max = curve.points.last().map_or(1, |p| p.x);
    let frame = Frame::new(
        300.0,
        200.0,
        (Scale::Linear, 0.0, max as f64),
        (Scale::Linear, 0.0, 1.0),
    );
    let (round, unit, suffix) = if curve.resource.contains("bytes") {
        (1024, 1024, " KiB")
    } else {
        (32, 1, "")
    };
    let percent: Vec<(f64, String)> = (0..=4)
        .map(|k| (k as f64 / 4.0, format!("{}%", k * 25)))
        .collect();
    let x_title = curve.resource.replace(" (bytes)", "");
    let mut svg = frame.open(
        &format!("Occupancy on {} against {x_title}", arch.name()),
        &ticks(max, round, unit, suffix),
        &percent,
        &x_title,
        "occupancy",
    );
    // A step line: each value holds until the next; a gap where a CTA cannot launch.
    let mut path = String::new();
    let mut open = false;
    for pair in curve.points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        match a.occupancy {
            Some(o) => {
                let y = frame.y.at(o);
                path += &format!(
                    "{}{:.1},{y:.1}H{:.1}",
                    if open { "L" } else { "M" },
                    frame.x.at(a.x as f64),
                    frame.x.at(b.x as f64)
                );
                open = true;
            }
            None => open = false,
        }
    }
    svg += &format!("<path class=\"curve\" d=\"{path}\"/>");
    let at = curve
        .points
        .iter()
        .rev()
        .find(|p| p.x <= curve.current)
        .and_then(|p| p.occupancy);
    let x = frame.x.at(curve.current as f64);
    svg += &format!(
        "<line class=\"current\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>",
        frame.y.from, frame.y.to
    );
    if let Some(o) = at {
        svg += &point(
            "current",
            x,
            frame.y.at(o),
            &format!(
                "{} {} (this kernel): occupancy {}",
                curve.current, x_title, curve.text
            ),
        );
    }
    svg += "</svg>";
    format!(
        "<figure class=\"chart-figure\">{svg}<figcaption>Against {x_title}: at this kernel's {}, {}.</figcaption></figure>",
        curve.current,
        escape(&curve.text)
    )
}

/// Three charts, occupancy against registers, threads and shared memory, side by side, as a
/// `<div>` of `<figure>`s.
pub fn occupancy_curves(arch: Arch, threads: u32, shared: u64, registers: u32) -> String {
    let charts: String = curves(arch, threads, shared, registers)
        .iter()
        .map(|c| chart(c, arch))
        .collect();
    format!("<div class=\"occupancy-charts\" data-testid=\"occupancy-charts\">{charts}</div>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_curve_holds_the_other_resources_at_the_kernels() {
        let [registers, threads, shared] = curves(Arch::Sm80, 256, 16384, 32);
        let at = |c: &Curve, x: u64| c.points.iter().find(|p| p.x == x).and_then(|p| p.occupancy);
        // At the kernel's own value every curve gives the kernel's occupancy.
        for (curve, x) in [(&registers, 32), (&threads, 256), (&shared, 16384)] {
            let here = occupancy(Arch::Sm80, 256, 16384, 32)
                .map(|o| o.occupancy)
                .ok();
            assert_eq!(at(curve, x), here, "{}", curve.resource);
        }
        // 255 registers a thread: 8,192 a warp (rounded to 256s), 2 warps in each of the 4
        // sub-partitions' 16,384: one CTA of 8 warps.
        assert_eq!(at(&registers, 255), Some(8.0 / 64.0));
        // 1024 threads at 32 registers: 2 CTAs, every warp slot.
        assert_eq!(at(&threads, 1024), Some(1.0));
        assert_eq!(registers.points.len(), 255);
        assert_eq!(threads.points.len(), 32);
        assert_eq!(shared.points.first().map(|p| p.x), Some(0));
        assert_eq!(shared.points.last().map(|p| p.x), Some(48 * 1024));
    }

    #[test]
    fn a_cta_that_cannot_launch_leaves_a_gap() {
        // 1024 threads at 128 registers: 131,072 registers, over a CTA's 65,536.
        let [registers, ..] = curves(Arch::Sm80, 1024, 0, 32);
        assert!(registers
            .points
            .iter()
            .any(|p| p.x == 128 && p.occupancy.is_none()));
        let figure = occupancy_curves(Arch::Sm80, 1024, 0, 128);
        assert!(figure.contains("cannot launch"));
        // No mark where the kernel itself cannot launch.
        assert!(!figure.contains("tabindex"));
    }

    #[test]
    fn the_kernels_value_is_marked_with_the_binding_limit_named() {
        // sm_80, 256 threads, 48 KiB: (48 + 1) KiB a CTA, 3 CTAs in 164 KiB, 24 of 64 warps.
        let figure = occupancy_curves(Arch::Sm80, 256, 48 * 1024, 32);
        assert_eq!(figure.matches("tabindex=\"0\"").count(), 3);
        assert!(
            figure.contains("49152 shared memory per CTA (this kernel): occupancy 38% (24 of 64 warps per SM); shared memory binds"),
            "{figure}"
        );
        assert!(figure.contains(">48 KiB<"));
        for tick in [">64<", ">192<", ">255<", ">768<", ">1024<", ">12 KiB<"] {
            assert!(figure.contains(tick), "{tick}");
        }
    }
}
