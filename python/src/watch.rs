//! Long work with the GIL released: the work runs on a thread of its own while this thread
//! waits in slices of [`SLICE`], and between slices takes the GIL to look for a signal
//! (Ctrl-C, a notebook's interrupt) and to move the progress bar (`tessera._progress`).
//!
//! An interrupt sets the run's stop flag (`compiler_core::sim::Observers::stop`): the
//! simulator's CTAs stop within a few statements, and the wait ends with a `KeyboardInterrupt`
//! that says where the run was. A GPU's dispatch cannot be stopped from outside: it finishes
//! (its loop guard bounds it) and the interrupt is raised then.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the waiting thread sleeps between looks at signals and progress.
const SLICE: Duration = Duration::from_millis(50);

/// Runs shorter than this show no progress: it would only flicker (as `tessera run`'s bar).
const QUIET_FOR: Duration = Duration::from_secs(1);

/// What a watched run reports to and is stopped by.
#[derive(Clone, Default)]
pub struct Watch {
    pub stop: Arc<AtomicBool>,
    /// Units done (CTAs), from any thread.
    pub done: Arc<AtomicU64>,
}

/// How a watched run ended.
pub enum Watched<T> {
    Finished(T),
    /// Interrupted: the work's own outcome, which ended at the stop.
    Interrupted(T),
}

impl Watch {
    /// Runs `work` on a thread of its own with the GIL released, showing progress of `total`
    /// `unit`s once it takes [`QUIET_FOR`] (when `show`), and stopping it at a signal.
    pub fn run<T: Send>(
        &self,
        py: Python<'_>,
        total: u64,
        unit: &str,
        show: bool,
        work: impl FnOnce() -> T + Send,
    ) -> PyResult<Watched<T>> {
        let finished = AtomicBool::new(false);
        let started = Instant::now();
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let result = work();
                finished.store(true, Ordering::Release);
                result
            });
            let mut bar: Option<(Bound<'_, PyAny>, u64)> = None;
            let mut interrupt = None;
            while !finished.load(Ordering::Acquire) {
                py.detach(|| {
                    let until = Instant::now() + SLICE;
                    while !finished.load(Ordering::Acquire) && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(2));
                    }
                });
                if interrupt.is_none() {
                    if let Err(signal) = py.check_signals() {
                        self.stop.store(true, Ordering::Relaxed);
                        interrupt = Some(signal);
                    }
                }
                if show && interrupt.is_none() && started.elapsed() >= QUIET_FOR {
                    self.advance(py, &mut bar, total, unit)?;
                }
            }
            if let Some((bar, _)) = &bar {
                bar.call_method0("close")?;
            }
            let result = py.detach(|| worker.join());
            let result = match result {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            Ok(match interrupt {
                None => Watched::Finished(result),
                Some(_) => Watched::Interrupted(result),
            })
        })
    }

    /// Moves the bar to the units done, making it on first use.
    fn advance<'py>(
        &self,
        py: Python<'py>,
        bar: &mut Option<(Bound<'py, PyAny>, u64)>,
        total: u64,
        unit: &str,
    ) -> PyResult<()> {
        if bar.is_none() {
            let made = py
                .import("tessera._progress")?
                .call_method1("bar", (total, unit))?;
            *bar = Some((made, 0));
        }
        if let Some((bar, shown)) = bar {
            let done = self.done.load(Ordering::Relaxed);
            if done > *shown {
                bar.call_method1("update", (done - *shown,))?;
                *shown = done;
            }
        }
        Ok(())
    }
}
