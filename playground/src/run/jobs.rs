//! The worker's jobs made: a run, a trace or memory counts on the simulator, a step of the last
//! trace, a puzzle's grading, and the PTX, WGSL and IR listings (the job and reply words are in
//! `messages`). Each is made from the source alone (the job compiles it itself, as quick as sending a compilation), so it can cross to a Web Worker as bytes (`worker`) or run
//! here (native builds, the unit tests). The simulator, the backends (PTX, and naga for WGSL)
//! and the WebGPU runner are in the worker's module only: the page's module does not carry them
//! (ARCHITECTURE.md, "the worker has a module of its own").

use super::messages::{
    first_problem, Counted, GpuOutcome, Job, Progress, Ran, Reply, Simulation, Stepped, Traced,
};
use super::steps;
use crate::outputs::listing;
use compiler_core::grade::Exercise;
use compiler_core::launch::Launch;
use compiler_core::program::LaunchRecord;
use compiler_core::sim::TraceLimits;
use compiler_core::{Compilation, Diagnostic, RunLimits};
use std::sync::Arc;

impl Job {
    /// Makes what the job asks for, on this thread, telling `progress` as CTAs finish; `now`
    /// is a clock in milliseconds (the page's or the worker's).
    pub fn run(self, progress: Option<Progress>, now: fn() -> f64) -> Reply {
        match self {
            Job::Simulate {
                source,
                launch,
                what,
            } => what.simulate(&source, &launch, progress, now),
            Job::Step {
                source,
                launch,
                nth,
                block,
                index,
                warp,
            } => Reply::Step(
                steps::kept(&source, &launch, nth, block)
                    .map(|cta| Stepped {
                        view: steps::step_view(&cta, index, warp),
                        active: steps::active_lanes(&cta.trace, warp),
                        room: steps::strip_room(&cta.trace, warp),
                    })
                    .map_err(first_problem),
            ),
            // The worker runs it (`worker::run_on_gpu`): WebGPU is asynchronous, and native
            // builds have none.
            Job::Gpu { .. } => Reply::Gpu(GpuOutcome::Skipped(
                "WebGPU runs only in the browser".into(),
            )),
            Job::Grade { attempt, exercise } => {
                let verdict = serde_json::from_str::<Exercise>(&exercise)
                    .map_err(|e| format!("the exercise cannot be read: {e}"))
                    .and_then(|exercise| exercise.grade(&attempt));
                Reply::Grade(serde_json::to_string(&verdict).unwrap_or_default())
            }
            Job::Listing { source, kernel, of } => Reply::Listing(listing(
                &compiler_core::compile(&source),
                kernel.as_deref(),
                of,
            )),
        }
    }
}

impl Simulation {
    fn simulate(
        self,
        source: &str,
        launch: &Launch,
        progress: Option<Progress>,
        now: fn() -> f64,
    ) -> Reply {
        let start = now();
        let compilation = compiler_core::compile(source);
        if compilation.runs_a_program(launch.kernel.as_deref()) {
            return self.simulate_program(compilation, launch, start, now);
        }
        let mut prepared = match compilation.prepare(launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => return self.refused(diagnostics),
        };
        if let Some(progress) = progress {
            let total = prepared.ctas();
            prepared.progress = Some(Arc::new(move |done| progress(done, total)));
        }
        match self {
            Simulation::Run => {
                let ran = prepared.simulate_recording().map(|output| Ran {
                    inputs: prepared.args.clone(),
                    args: output.args,
                    writers: output.writers.unwrap_or_default(),
                    ms: now() - start,
                    cluster: output.cluster,
                    launches: Vec::new(),
                    order_dependent_sums: output.stats.order_dependent_sums,
                });
                Reply::Run(ran.map_err(|fault| vec![fault]))
            }
            Simulation::Trace { block, .. } => {
                let traced = prepared.simulate_traced(block, TraceLimits::default());
                let kernel = launch.kernel.clone();
                let cta = steps::keep(compilation, launch, 0, kernel, traced);
                Reply::Trace(Ok(Traced::of(&cta, None, now() - start)))
            }
            Simulation::Count => {
                let profiled = prepared.simulate_profiled();
                Reply::Count(Ok(Counted {
                    profile: profiled.profile,
                    fault: profiled.output.err(),
                    ms: now() - start,
                }))
            }
        }
    }
}

impl Simulation {
    /// A program's launches, in order. Its results are its parameters after the last launch;
    /// who wrote each element is not recorded (a program's launches write over each other).
    fn simulate_program(
        self,
        compilation: Compilation,
        launch: &Launch,
        start: f64,
        now: fn() -> f64,
    ) -> Reply {
        let prepared = match compilation.prepare_program(launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => return self.refused(diagnostics),
        };
        match self {
            Simulation::Run => {
                let ran = prepared.simulate().map(|output| Ran {
                    inputs: prepared.run.args.clone(),
                    writers: vec![Vec::new(); output.args.params.len()],
                    args: output.args,
                    ms: now() - start,
                    cluster: None,
                    launches: output.launches,
                    order_dependent_sums: output.stats.order_dependent_sums,
                });
                Reply::Run(ran.map_err(|fault| vec![fault]))
            }
            Simulation::Trace { nth, block } => {
                drop(prepared);
                let traced = steps::trace_program(compilation, launch, nth, block);
                Reply::Trace(
                    traced.map(|(cta, record)| Traced::of(&cta, Some(record), now() - start)),
                )
            }
            Simulation::Count => {
                let (output, profile) = prepared.simulate_profiled();
                Reply::Count(Ok(Counted {
                    profile: Ok(profile),
                    fault: output.err(),
                    ms: now() - start,
                }))
            }
        }
    }

    /// The reply to a launch that does not fit.
    fn refused(self, diagnostics: Vec<Diagnostic>) -> Reply {
        match self {
            Simulation::Run => Reply::Run(Err(diagnostics)),
            Simulation::Trace { .. } => Reply::Trace(Err(diagnostics)),
            Simulation::Count => Reply::Count(Err(diagnostics)),
        }
    }
}

impl Traced {
    /// What the page hears of `cta`'s trace, of a program's launch `launch`.
    fn of(cta: &steps::TracedCta, launch: Option<LaunchRecord>, ms: f64) -> Self {
        Traced {
            steps: cta.trace.steps.len(),
            warps: cta.trace.warps(),
            lanes: cta.trace.lanes,
            incomplete: cta.trace.incomplete.clone(),
            fault: cta.fault.clone(),
            ms,
            launch,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::messages::{from_bytes, to_bytes};
    use super::*;
    use crate::outputs::Output;
    use compiler_core::grade::Verdict;
    use compiler_core::hierarchy::Dim3;
    use compiler_core::wgsl::WarpMode;

    fn example(name: &str) -> (String, Launch) {
        let example = compiler_core::examples::find(name)
            .unwrap_or_else(|| panic!("{name} is not in the catalogue"));
        (example.source.to_owned(), example.launch.clone())
    }

    fn simulate(source: String, launch: Launch, what: Simulation) -> Reply {
        Job::Simulate {
            source,
            launch,
            what,
        }
        .run(None, || 0.0)
    }

    /// To bytes and back, as the worker sends it (a run's bits travel beside the bytes in
    /// the browser, but the bytes carry them too).
    fn round_trip(reply: &Reply) -> Reply {
        from_bytes(&to_bytes(reply).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Every kind of job, with every example's launch (each kind of input, dimension and
    /// option a launch holds), reads back as the bytes it was written as.
    #[test]
    fn every_job_crosses_to_the_worker_whole() {
        for example in compiler_core::examples::all() {
            let source = example.source.to_owned();
            let launch = example.launch.clone();
            let block = Dim3 { x: 1, y: 0, z: 0 };
            let jobs = [
                Job::Simulate {
                    source: source.clone(),
                    launch: launch.clone(),
                    what: Simulation::Run,
                },
                Job::Simulate {
                    source: source.clone(),
                    launch: launch.clone(),
                    what: Simulation::Trace { nth: 2, block },
                },
                Job::Simulate {
                    source: source.clone(),
                    launch: launch.clone(),
                    what: Simulation::Count,
                },
                Job::Listing {
                    source: source.clone(),
                    kernel: None,
                    of: Output::Ir,
                },
                Job::Listing {
                    source: source.clone(),
                    kernel: Some("k".into()),
                    of: Output::Wgsl {
                        lanes: 32,
                        mode: WarpMode::Emulated,
                    },
                },
                Job::Listing {
                    source: source.clone(),
                    kernel: None,
                    of: Output::Ptx(compiler_core::target::Arch::default()),
                },
                Job::Step {
                    source: source.clone(),
                    launch: launch.clone(),
                    nth: 1,
                    block,
                    index: 7,
                    warp: 3,
                },
                Job::Grade {
                    attempt: source.clone(),
                    exercise: "{}".into(),
                },
                Job::Gpu {
                    source,
                    launch,
                    forced: Some(WarpMode::Emulated),
                },
            ];
            for job in jobs {
                let bytes = to_bytes(&job).unwrap_or_else(|e| panic!("{e}"));
                let read: Job =
                    from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", example.name));
                assert_eq!(to_bytes(&read).ok(), Some(bytes), "{}", example.name);
            }
        }
    }

    #[test]
    fn a_grading_crosses_to_the_page_with_the_wrong_element_and_its_writer() {
        let (reference, launch) = example("vector_add");
        let attempt = reference.replace("A[i] + B[i]", "A[i] - B[i]");
        assert_ne!(attempt, reference, "the example changed: pick another edit");
        let exercise = Exercise {
            reference,
            launch,
            ..Exercise::default()
        };
        let (job, finish) = super::super::grade_run(attempt.clone(), &exercise);
        let job: Job = from_bytes(&to_bytes(&job).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"));
        let graded = finish(round_trip(&job.run(None, || 0.0))).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(graded.source, attempt);
        let Verdict::Wrong {
            tensor,
            index,
            writer,
            ..
        } = graded.verdict
        else {
            panic!("not a wrong element: {:?}", graded.verdict);
        };
        assert_eq!((tensor.as_str(), index), ("C", vec![0]));
        assert!(writer.is_some_and(|w| w.thread == 0));
    }

    #[test]
    fn a_run_crosses_to_the_page_whole() {
        let (source, launch) = example("vector_add");
        let reply = simulate(source, launch, Simulation::Run);
        let (Reply::Run(Ok(sent)), Reply::Run(Ok(got))) = (&reply, round_trip(&reply)) else {
            panic!("not a run's results");
        };
        assert_eq!(format!("{:?}", sent.args), format!("{:?}", got.args));
        assert_eq!(format!("{:?}", sent.inputs), format!("{:?}", got.inputs));
        assert_eq!(sent.writers, got.writers);
        assert!(got.writers.iter().any(|w| w.iter().any(|&t| t > 0)));
    }

    fn step(source: &str, launch: &Launch, nth: u32, block: Dim3, index: usize) -> Stepped {
        let job = Job::Step {
            source: source.to_owned(),
            launch: launch.clone(),
            nth,
            block,
            index,
            warp: 1,
        };
        match round_trip(&job.run(None, || 0.0)) {
            Reply::Step(Ok(stepped)) => stepped,
            _ => panic!("not a step"),
        }
    }

    #[test]
    fn a_trace_stays_in_the_worker_and_its_steps_cross() {
        let (source, launch) = example("block_sum");
        let block = Dim3::new(1, 0, 0);
        let reply = simulate(
            source.clone(),
            launch.clone(),
            Simulation::Trace { nth: 0, block },
        );
        let Reply::Trace(Ok(traced)) = round_trip(&reply) else {
            panic!("not a trace");
        };
        assert!(traced.steps > 1 && traced.warps > 1, "{}", traced.steps);
        let last = traced.steps - 1;
        let kept = step(&source, &launch, 0, block, last);
        let view = kept.view.clone().unwrap_or_else(|| panic!("no view"));
        assert_eq!((view.index, view.count), (last, traced.steps));
        assert_eq!(kept.active.len(), traced.steps);
        // Another trace displaces it: the step is traced again, the same.
        simulate(
            source.clone(),
            launch.clone(),
            Simulation::Trace {
                nth: 0,
                block: Dim3::new(0, 0, 0),
            },
        );
        assert_eq!(step(&source, &launch, 0, block, last), kept);
    }

    #[test]
    fn a_program_runs_its_launches_and_traces_and_counts_the_one_asked_for() {
        let (source, mut launch) = example("grid_sum");
        launch.dims.insert("N".into(), 1000);
        let Reply::Run(Ok(ran)) =
            round_trip(&simulate(source.clone(), launch.clone(), Simulation::Run))
        else {
            panic!("not a run");
        };
        let kernels: Vec<(&str, u32)> = ran
            .launches
            .iter()
            .map(|r| (r.kernel.as_str(), r.grid.x))
            .collect();
        assert_eq!(kernels, [("partial_sums", 4), ("total", 1)]);
        let Some(compiler_core::sim::Arg::Tensor(x)) = ran.inputs.params.first() else {
            panic!("no X");
        };
        let Some(compiler_core::sim::Arg::Tensor(out)) = ran.args.params.get(1) else {
            panic!("no Out");
        };
        let expected: f64 = x.bits.iter().map(|&b| f64::from(f32::from_bits(b))).sum();
        let got = f64::from(f32::from_bits(out.bits[0]));
        assert!(
            (got - expected).abs() < 1e-3 * expected.abs().max(1.0),
            "{got} {expected}"
        );

        // The second launch's trace is of `total`, on its one CTA.
        let block = Dim3::new(0, 0, 0);
        let Reply::Trace(Ok(traced)) = round_trip(&simulate(
            source.clone(),
            launch.clone(),
            Simulation::Trace { nth: 1, block },
        )) else {
            panic!("not a trace");
        };
        assert_eq!(
            traced
                .launch
                .as_ref()
                .map(|r| (r.kernel.as_str(), r.grid.x)),
            Some(("total", 1))
        );
        let first = step(&source, &launch, 1, block, 0)
            .view
            .unwrap_or_else(|| panic!("no view"));
        assert_eq!(
            (first.statement.as_str(), first.line),
            ("var acc: f32 = 0.0", 19)
        );
        // No third launch: the reply says how many there were.
        let Reply::Trace(Err(why)) = simulate(
            source.clone(),
            launch.clone(),
            Simulation::Trace { nth: 2, block },
        ) else {
            panic!("a trace of a launch that was never made");
        };
        assert!(
            why[0]
                .message
                .contains("the program made 2 launches, so it has no launch 3"),
            "{}",
            why[0].message
        );

        // The counts are of both launches: each kernel's accesses, at its own lines.
        let Reply::Count(Ok(counted)) = simulate(source, launch, Simulation::Count) else {
            panic!("not counts");
        };
        let profile = counted.profile.unwrap_or_else(|why| panic!("{why}"));
        let names: Vec<&str> = profile.sites.iter().map(|s| s.name.as_str()).collect();
        // Each kernel's CTA sum passes its warps' partials through shared memory.
        assert_eq!(
            names,
            [
                "X",
                "warp partials",
                "warp partials",
                "Partial",
                "Partial",
                "warp partials",
                "warp partials",
                "Out"
            ]
        );
        // 1,000 floats: 32 requests of 32 lanes (the last of 8), read once.
        assert_eq!(profile.sites[0].requests, 32);
    }

    #[test]
    fn counts_and_launch_problems_cross_too() {
        let (source, mut launch) = example("tiled_transpose");
        let reply = simulate(source.clone(), launch.clone(), Simulation::Count);
        let (Reply::Count(Ok(sent)), Reply::Count(Ok(got))) = (&reply, round_trip(&reply)) else {
            panic!("not counts");
        };
        assert_eq!(sent.profile, got.profile);
        launch.grid.x = 0;
        let refused = simulate(source, launch, Simulation::Run);
        let Reply::Run(Err(problems)) = round_trip(&refused) else {
            panic!("a grid of 0 ran");
        };
        assert_eq!(problems[0].code, compiler_core::Code::E0515);
    }

    #[test]
    fn a_gpu_run_is_the_browser_s_own() {
        let (source, launch) = example("vector_add");
        let job = Job::Gpu {
            source,
            launch,
            forced: None,
        };
        let Reply::Gpu(GpuOutcome::Skipped(why)) = round_trip(&job.run(None, || 0.0)) else {
            panic!("a native GPU run");
        };
        assert!(why.contains("browser"), "{why}");
    }

    #[test]
    fn listings_cross_whole() {
        let (source, launch) = example("tiled_matmul");
        for of in [
            Output::Ptx(compiler_core::ptx::Arch::Sm90),
            Output::Wgsl {
                lanes: 32,
                mode: WarpMode::Emulated,
            },
            Output::Ir,
        ] {
            let job = Job::Listing {
                source: source.clone(),
                kernel: launch.kernel.clone(),
                of,
            };
            let Reply::Listing(Ok(got)) = round_trip(&job.run(None, || 0.0)) else {
                panic!("no {of:?} listing");
            };
            let compilation = compiler_core::compile(&source);
            assert_eq!(Ok(got), listing(&compilation, None, of), "{of:?}");
        }
    }
}
