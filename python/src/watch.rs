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
#[derive(Default)]
pub struct Watch {
    pub stop: Arc<AtomicBool>,
    /// Units done (CTAs), from any thread.
    pub done: Arc<AtomicU64>,
}

/// How a watched run ended.
pub enum Watched<T> {
    Finished(T),
    /// Stopped by a signal: the work's own outcome (which ended at the stop), and the signal
    /// handler's exception (`KeyboardInterrupt` for Ctrl-C, or whatever a handler raised).
    Interrupted(T, PyErr),
}

impl Watch {
    /// Runs `work` on a thread of its own with the GIL released, showing progress of `total`
    /// `unit`s once it takes [`QUIET_FOR`] (when `show`), and stopping it at a signal. The
    /// progress is best effort: a bar that fails (no stderr, say) is dropped, never the run.
    pub fn run<T: Send>(
        &self,
        py: Python<'_>,
        total: u64,
        unit: &str,
        show: bool,
        work: impl FnOnce() -> T + Send,
    ) -> Watched<T> {
        let finished = AtomicBool::new(false);
        let started = Instant::now();
        let waiter = std::thread::current();
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let result = work();
                finished.store(true, Ordering::Release);
                waiter.unpark();
                result
            });
            let mut bar = Bar::Quiet;
            let mut interrupt = None;
            while !finished.load(Ordering::Acquire) {
                py.detach(|| {
                    let until = Instant::now() + SLICE;
                    while !finished.load(Ordering::Acquire) {
                        let Some(left) = until.checked_duration_since(Instant::now()) else {
                            break;
                        };
                        std::thread::park_timeout(left);
                    }
                });
                if interrupt.is_none() {
                    if let Err(signal) = py.check_signals() {
                        self.stop.store(true, Ordering::Relaxed);
                        interrupt = Some(signal);
                    }
                }
                if show && interrupt.is_none() && started.elapsed() >= QUIET_FOR {
                    bar = self.advance(py, bar, total, unit, started);
                }
            }
            if let Bar::Shown(bar, _) = &bar {
                let _ = bar.call_method0("close");
            }
            let result = match py.detach(|| worker.join()) {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            match interrupt {
                None => Watched::Finished(result),
                Some(signal) => Watched::Interrupted(result, signal),
            }
        })
    }

    /// Moves the bar to the units done, making it on first use; a bar that fails is dropped.
    fn advance<'py>(
        &self,
        py: Python<'py>,
        bar: Bar<'py>,
        total: u64,
        unit: &str,
        started: Instant,
    ) -> Bar<'py> {
        let bar = match bar {
            Bar::Quiet => match py
                .import("tessera._progress")
                .and_then(|m| m.call_method1("bar", (total, unit, started.elapsed().as_secs_f64())))
            {
                Ok(made) => Bar::Shown(made, 0),
                Err(_) => Bar::Failed,
            },
            other => other,
        };
        match bar {
            Bar::Shown(bar, shown) => {
                let done = self.done.load(Ordering::Relaxed);
                if done <= shown {
                    return Bar::Shown(bar, shown);
                }
                match bar.call_method1("update", (done - shown,)) {
                    Ok(_) => Bar::Shown(bar, done),
                    Err(_) => Bar::Failed,
                }
            }
            other => other,
        }
    }
}

/// The progress bar of a watched run.
enum Bar<'py> {
    /// Not shown yet.
    Quiet,
    /// `tessera._progress`'s bar, and the units it shows.
    Shown(Bound<'py, PyAny>, u64),
    /// It failed once: no more tries.
    Failed,
}
