//! A kernel's time as a GPU measured it: the timestamps the runners (crate `runtime`: WebGPU,
//! wgpu, CUDA) read around dispatches of a kernel, as the views and the CLI show them.
//!
//! In: raw timestamps and their period. Out: a [`Timing`] (each dispatch's time, the median,
//! the timestamps' resolution) and its summary, with the rates it means given the run's counts
//! (`sim::MemoryProfile`). Here, not in `runtime`, so the playground's native tests read it
//! without a GPU API. Invariant: nothing here touches a GPU.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Dispatches timed after a run (`runtime::run_timed`): their median is the kernel's time.
pub const TIMED_DISPATCHES: u32 = 9;

/// The dispatches to time after a run that took `elapsed`: `wanted`, fewer for a slow kernel
/// so that timing adds a second at most, none after a run of more than a second (its own
/// time says enough, and timing it would double the wait).
pub fn dispatches_within(elapsed: Duration, wanted: u32) -> u32 {
    let fit = (TIMING_BUDGET.as_secs_f64() / elapsed.as_secs_f64().max(1e-9)).floor();
    fit.min(f64::from(wanted)) as u32
}

/// The most that timing adds to a run.
pub const TIMING_BUDGET: Duration = Duration::from_secs(1);

/// Why a run on a GPU has no [`Timing`], in words: it was not asked for, or its GPU has no
/// timestamps, or it is not one dispatch (a kernel's super-tiles; a program's launches are
/// timed as they run, [`LaunchTimes`]), or it took too long.
pub fn untimed(timestamps: bool, one_dispatch: bool, asked: bool) -> &'static str {
    if !asked {
        "the kernel was not timed"
    } else if !timestamps {
        "this GPU does not offer timestamps (WebGPU's timestamp-query), so the kernel's own time is not measured"
    } else if !one_dispatch {
        "a kernel under @cluster runs as a launch per super-tile, which are not timed one by one: the whole run's time is the measure"
    } else {
        // What `dispatches_within` leaves untimed: a run over the budget.
        "the run took over a second, so it was not timed again: its time above is the measure"
    }
}

/// A kernel's own time on the GPU: timestamps written by the GPU at the start and end of each
/// of several dispatches of it (WebGPU's and wgpu's `timestamp-query`, CUDA's events), made
/// after the run whose results count, over the tensors it left. No upload, no read-back, no
/// queueing: the kernel alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Each dispatch's time in nanoseconds, in order.
    pub samples_ns: Vec<f64>,
    /// The step the timestamps come in, in nanoseconds: a browser rounds them (Chromium to
    /// 100 µs unless its WebGPU developer features are on), so a shorter kernel reads as 0 or
    /// one step.
    pub resolution_ns: f64,
}

/// Timestamps as a GPU resolves a query set: little-endian `u64`s.
pub fn resolved_ticks(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Timing {
    /// From timestamps as a GPU resolves them (little-endian `u64`s: a start and an end for
    /// each dispatch), `period_ns` nanoseconds a tick.
    pub fn from_resolved(bytes: &[u8], period_ns: f64) -> Timing {
        Timing::from_ticks(&resolved_ticks(bytes), period_ns)
    }

    /// From raw timestamps, a start and an end for each dispatch, `period_ns` nanoseconds a
    /// tick. The resolution is the largest step every timestamp is a multiple of (at least a
    /// tick): how a quantizing browser shows.
    pub fn from_ticks(ticks: &[u64], period_ns: f64) -> Timing {
        let step = ticks.iter().fold(0, |g, &t| gcd(g, t)).max(1);
        Timing {
            samples_ns: ticks
                .chunks_exact(2)
                .map(|pair| pair[1].saturating_sub(pair[0]) as f64 * period_ns)
                .collect(),
            resolution_ns: step as f64 * period_ns,
        }
    }

    pub fn median_ns(&self) -> f64 {
        let mut sorted = self.samples_ns.clone();
        sorted.sort_by(f64::total_cmp);
        match sorted.len() {
            0 => 0.0,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        }
    }

    /// "the kernel alone: 41.2 µs, the median of 9 dispatches after the run (timestamps in
    /// steps of 1 ns)", and, given the run's counts (floating-point operations, global bytes),
    /// the rates that time means. Given the whole run's wall time (`run`: upload, the kernel,
    /// read-back), a kernel time longer than it is flagged: it cannot be, so it was measured
    /// under load.
    pub fn summary(&self, counts: Option<(u64, u64)>, run: Option<Duration>) -> String {
        let median = self.median_ns();
        let mut text = format!(
            "the kernel alone: {}, the median of {} dispatch{} after the run (timestamps in steps of {})",
            nanoseconds(median),
            self.samples_ns.len(),
            if self.samples_ns.len() == 1 { "" } else { "es" },
            nanoseconds(self.resolution_ns)
        );
        let run_ns = run.map(|r| r.as_secs_f64() * 1e9);
        if median < self.resolution_ns {
            text += "; shorter than a step: the time is the timestamps' rounding, not the kernel's";
        } else if let Some(run_ns) = run_ns.filter(|&r| median > r) {
            text += &format!(
                "; longer than the whole run ({}), which includes the kernel: it cannot be, so \
                 the GPU or this computer was busy while it was timed (under load), and the \
                 time says nothing of the kernel. Run again to time it",
                nanoseconds(run_ns)
            );
        } else if let Some(counts) = counts {
            text += &rates(median, counts);
        }
        text
    }
}

/// The most launches of one program run that are timed: each takes two of a query set's
/// timestamps, and a timeline of more would not be read launch by launch.
pub const MAX_TIMED_LAUNCHES: usize = 256;

/// A program's launches on the GPU as they ran: each launch's pass between the GPU's
/// timestamps at its start and end, in the run itself (never a launch run again: a program's
/// later launches read what earlier ones wrote, so a replay would change its results). The
/// program's timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchTimes {
    /// Each launch's start and end in nanoseconds from the first timed launch's start, in the
    /// program's order; `None` for a launch not timed (a kernel's super-tiles, or past
    /// [`MAX_TIMED_LAUNCHES`]).
    pub spans_ns: Vec<Option<(f64, f64)>>,
    /// The step the timestamps come in (as [`Timing::resolution_ns`]).
    pub resolution_ns: f64,
}

impl LaunchTimes {
    /// From each launch's start and end ticks (`None`: not timed), `period_ns` a tick.
    pub fn from_ticks(ticks: &[Option<(u64, u64)>], period_ns: f64) -> LaunchTimes {
        let first = ticks
            .iter()
            .flatten()
            .map(|&(start, _)| start)
            .min()
            .unwrap_or(0);
        let step = ticks
            .iter()
            .flatten()
            .fold(0, |g, &(a, b)| gcd(gcd(g, a), b))
            .max(1);
        let at = |t: u64| t.saturating_sub(first) as f64 * period_ns;
        LaunchTimes {
            spans_ns: ticks
                .iter()
                .map(|t| t.map(|(a, b)| (at(a), at(b.max(a)))))
                .collect(),
            resolution_ns: step as f64 * period_ns,
        }
    }

    /// The timed launches' own times, summed: the program's kernels alone.
    pub fn total_ns(&self) -> f64 {
        self.spans_ns.iter().flatten().map(|(a, b)| b - a).sum()
    }

    /// From the first timed launch's start to the last one's end (the gaps between launches
    /// included).
    pub fn span_ns(&self) -> f64 {
        self.spans_ns
            .iter()
            .flatten()
            .map(|&(_, b)| b)
            .fold(0.0, f64::max)
    }

    /// "the launches alone: 16.4 µs in all, each timed as it ran, over 45.1 µs from the first
    /// start to the last end (timestamps in steps of 1 ns)", and the rates the sum means by the
    /// run's counts; launches not timed are said.
    pub fn summary(&self, counts: Option<(u64, u64)>) -> String {
        let timed = self.spans_ns.iter().flatten().count();
        let total = self.total_ns();
        let mut text = format!(
            "the launches alone: {} in all, {timed} launch{} each timed as it ran, over {} from the first one's start to the last one's end (timestamps in steps of {})",
            nanoseconds(total),
            if timed == 1 { "" } else { "es" },
            nanoseconds(self.span_ns()),
            nanoseconds(self.resolution_ns)
        );
        let untimed = self.spans_ns.len() - timed;
        if untimed > 0 {
            text += &format!(
                "; {untimed} launch{} not timed (a kernel's super-tiles, or past the first {MAX_TIMED_LAUNCHES})",
                if untimed == 1 { "" } else { "es" }
            );
        }
        if total < self.resolution_ns {
            text +=
                "; shorter than a step: the time is the timestamps' rounding, not the launches'";
        } else if let Some(counts) = counts.filter(|_| untimed == 0) {
            text += &rates(total, counts);
        }
        text
    }
}

/// "; by the counts, 10.0 GB/s of global traffic and 5.00 TFLOP/s": what `(flops, bytes)`
/// in `ns` nanoseconds mean.
fn rates(ns: f64, (flops, bytes): (u64, u64)) -> String {
    let seconds = ns * 1e-9;
    format!(
        "; by the counts, {}B/s of global traffic and {}FLOP/s",
        si(bytes as f64 / seconds),
        si(flops as f64 / seconds)
    )
}

/// `11.6 M`: a value with its SI prefix, three significant figures (the rates here, and the
/// charts' figures).
pub fn si(value: f64) -> String {
    const PREFIXES: [(f64, &str); 5] =
        [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    let (scale, prefix) = PREFIXES
        .into_iter()
        .find(|&(scale, _)| value.abs() >= scale)
        .unwrap_or((1.0, ""));
    let scaled = value / scale;
    let places = if scaled.abs() >= 100.0 {
        0
    } else if scaled.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{scaled:.places$} {prefix}")
}

/// `41.2 µs`: nanoseconds in the unit that reads best.
pub fn nanoseconds(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timing_is_the_median_of_its_dispatches_in_the_timestamps_steps() {
        // Chromium's quantized timestamps: every one a multiple of 100 µs.
        let ticks = [100_000, 300_000, 300_000, 400_000, 400_000, 700_000];
        let timing = Timing::from_ticks(&ticks, 1.0);
        assert_eq!(timing.samples_ns, [200_000.0, 100_000.0, 300_000.0]);
        assert_eq!(timing.median_ns(), 200_000.0);
        assert_eq!(timing.resolution_ns, 100_000.0);
        // 2 MB and 1 GFLOP in 200 µs.
        assert_eq!(
            timing.summary(Some((1_000_000_000, 2_000_000)), Some(Duration::from_millis(3))),
            "the kernel alone: 200.0 µs, the median of 3 dispatches after the run (timestamps in steps of 100.0 µs); by the counts, 10.0 GB/s of global traffic and 5.00 TFLOP/s"
        );
        // A tick of 1.5 ns (a GPU's timestamp period), an even count.
        let timing = Timing::from_ticks(&[7, 17, 20, 24], 1.5);
        assert_eq!(timing.median_ns(), (15.0 + 6.0) / 2.0);
        assert_eq!(timing.resolution_ns, 1.5);
    }

    #[test]
    fn a_time_under_one_step_is_said_to_be_the_rounding() {
        let timing = Timing::from_ticks(&[100_000, 100_000], 1.0);
        assert!(timing
            .summary(Some((1, 1)), None)
            .contains("shorter than a step"));
    }

    #[test]
    fn a_kernel_time_longer_than_its_whole_run_is_said_to_be_measured_under_load() {
        // The playground once showed a kernel of 27.5 ms beside a whole run of 23.6 ms.
        let timing = Timing::from_ticks(&[0, 27_500_000, 27_500_000, 55_000_000], 1.0);
        let text = timing.summary(Some((1, 1)), Some(Duration::from_micros(23_600)));
        assert!(
            text.contains(
                "longer than the whole run (23.60 ms), which includes the kernel: it cannot be"
            ),
            "{text}"
        );
        assert!(text.contains("under load"), "{text}");
        assert!(
            !text.contains("B/s"),
            "no rates from a time that cannot be: {text}"
        );
    }

    #[test]
    fn a_programs_launches_are_timed_as_they_ran_with_their_gaps() {
        // Three launches; the second is a kernel's super-tiles, not timed.
        let ticks = [Some((1_000, 3_000)), None, Some((5_000, 6_000))];
        let times = LaunchTimes::from_ticks(&ticks, 1.0);
        assert_eq!(
            times.spans_ns,
            [Some((0.0, 2_000.0)), None, Some((4_000.0, 5_000.0))]
        );
        assert_eq!((times.total_ns(), times.span_ns()), (3_000.0, 5_000.0));
        assert_eq!(times.resolution_ns, 1_000.0);
        assert_eq!(
            times.summary(Some((3_000, 6_000))),
            "the launches alone: 3.0 µs in all, 2 launches each timed as it ran, over 5.0 µs from the first one's start to the last one's end (timestamps in steps of 1.0 µs); 1 launch not timed (a kernel's super-tiles, or past the first 256)"
        );
        let all = LaunchTimes::from_ticks(&[Some((0, 2_000)), Some((2_000, 3_000))], 1.0);
        assert!(all
            .summary(Some((3_000, 6_000)))
            .ends_with("; by the counts, 2.00 GB/s of global traffic and 1.00 GFLOP/s"));
    }

    #[test]
    fn slow_kernels_are_timed_fewer_times() {
        assert_eq!(dispatches_within(Duration::from_millis(1), 9), 9);
        assert_eq!(dispatches_within(Duration::from_millis(300), 9), 3);
        assert_eq!(dispatches_within(Duration::from_millis(999), 9), 1);
        assert_eq!(dispatches_within(Duration::from_secs(5), 9), 0);
    }
}
