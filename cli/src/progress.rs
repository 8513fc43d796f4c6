//! A progress bar on stderr for simulator runs longer than a second; nothing when stderr is not
//! a terminal (indicatif's stderr target hides itself there).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs shorter than this show no bar: it would only flicker.
const QUIET_FOR: Duration = Duration::from_secs(1);

pub struct Bar {
    bar: ProgressBar,
    started: Instant,
    shown: AtomicBool,
}

impl Bar {
    /// A bar of `total` `unit`s, drawn once the run has taken [`QUIET_FOR`].
    pub fn new(total: u64, unit: &str) -> Arc<Self> {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}, {{elapsed}} (ETA {{eta}})");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        Arc::new(Self {
            bar,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        })
    }

    /// Counts `done` more units, from any thread.
    pub fn advance(&self, done: u64) {
        self.bar.inc(done);
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() >= QUIET_FOR
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Takes the bar off the terminal before the run's own messages.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}
