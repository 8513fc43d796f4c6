//! The playground: edit a kernel, see its diagnostics, PTX, WGSL and IR as you type, run it on
//! the simulator and on your GPU, and share the whole state as a link.
//!
//! In: the user's edits and the URL. Out: the views below, and the session
//! (`compiler_core::share::Session`) in the address, the history and localStorage. Every
//! compiler call goes through `compiler_core::compile`, the same front door as the CLI; every
//! run through `Compilation::prepare`, and every GPU run through `runtime`.
//!
//! State never goes stale: when the kernel's signature changes, the launch is fitted to it
//! (`Launch::fitted_to`); the launch is checked as it is edited, each problem at its field; a
//! run's results say when the source or the launch changed since.
//!
//! - `editor`: CodeMirror 6, told about the language by the compiler.
//! - `diagnostics`: the source's problems, listed and marked.
//! - `outputs`: PTX / WGSL / IR listings linked line by line to the source.
//! - `run`: the launch form, the simulator and WebGPU runs, the results.
//! - `address`: the URL and the history entries, so reload, Back and Forward restore a state.
//! - `puzzle`: a puzzle's workbench on its docs page (the editor, Check, the verdict).

pub mod address;
pub mod diagnostics;
pub mod editor;
pub mod outputs;
pub mod puzzle;
pub mod run;

use compiler_core::ir::Kernel;
use compiler_core::launch::Launch;
use compiler_core::share::{Session, Stepping, Tab};
use compiler_core::span::{LineIndex, Span};
use compiler_core::syntax::highlight::Mark;
use compiler_core::wgsl::WarpMode;
use compiler_core::{Compilation, RunLimits};
use diagnostics::DiagnosticList;
use editor::Editor;
use leptos::prelude::*;
use outputs::{ListingViewProps, Output};
use run::{
    memory_run, run_on_gpu_anyway, start_run, trace_run, ArchSelect, FragmentMapProps,
    LaunchDiagramProps, LaunchPanel, ListingWriter, MemoryRun, MemoryViewProps, OccupancyView,
    OnRequest, Results, ResultsPlace, RunReport, Running, StepReader, StepperProps, TraceRun,
    UnreadFields, WhenSeen,
};
use std::rc::Rc;

/// Edits closer together than this are compiled once, after the last. A compile with PTX and
/// WGSL takes under 2 ms in the browser (BENCHMARKS.md), so the pause only coalesces a burst
/// of keystrokes (a paste, key repeat) and keeps the frame the keystroke lands in for typing.
pub(crate) const COMPILE_DELAY_MS: u32 = 10;
/// The pause after the last change before the address and the history entry follow it.
const REMEMBER_DELAY_MS: u32 = 200;

fn compile(source: &str) -> Rc<Compilation> {
    Rc::new(compiler_core::compile(source))
}

/// The kernel or program `launch` runs in `compilation` (the one it names, else the first
/// program, else the first kernel), as a kernel (a program's signature), and the launch fitted
/// to it (`previous` is the kernel the launch was made for); `None` while the source has no
/// kernel that lowers.
fn fit<'c>(
    compilation: &'c Compilation,
    launch: &Launch,
    previous: Option<&Kernel>,
) -> Option<(&'c Kernel, Launch)> {
    let names = compilation.runnable_names();
    let first = names.first()?;
    let name = match &launch.kernel {
        Some(name) if names.contains(name) => Some(name.clone()),
        _ if names.len() == 1 => None,
        _ => Some(first.clone()),
    };
    let kernel = compilation.signature(name.as_deref()).ok()?;
    let named = Launch {
        kernel: name,
        ..launch.clone()
    };
    Some((kernel, named.fitted_to(kernel, previous)))
}

/// Shows tab `t`. Only a change is written: setting the tab on show again would draw its panel
/// again, and the reader's place in it (the results' pages, what is open) with it.
fn show_tab(tab: RwSignal<Tab>, t: Tab) {
    if tab.get_untracked() != t {
        tab.set(t);
    }
}

/// The output tabs, as the ARIA tabs pattern has them: one tab stop (the selected tab), arrow
/// keys, Home and End move between tabs and select them.
#[component]
fn OutputTabs(tab: RwSignal<Tab>) -> impl IntoView {
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let all = Tab::ALL;
        let at = all
            .iter()
            .position(|&t| t == tab.get_untracked())
            .unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowRight" => (at + 1) % all.len(),
            "ArrowLeft" => (at + all.len() - 1) % all.len(),
            "Home" => 0,
            "End" => all.len() - 1,
            _ => return,
        };
        ev.prevent_default();
        show_tab(tab, all[next]);
        if let Some(button) = document()
            .get_element_by_id(&format!("tab-{}", all[next].label()))
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        {
            let _ = button.focus();
        }
    };
    view! {
        <div class="tabs" role="tablist" aria-label="Output" on:keydown=on_key>
            {Tab::ALL.into_iter().map(|t| view! {
                <button
                    type="button"
                    role="tab"
                    id=format!("tab-{}", t.label())
                    data-testid=format!("tab-{}", t.label())
                    aria-selected=move || (tab.get() == t).to_string()
                    aria-controls="output-panel"
                    tabindex=move || if tab.get() == t { "0" } else { "-1" }
                    on:click=move |_| show_tab(tab, t)
                >{t.label()}</button>
            }).collect_view()}
        </div>
    }
}

#[component]
pub fn Playground() -> impl IntoView {
    let address::Initial {
        session: initial,
        notice: initial_notice,
        opened,
        kept,
    } = address::initial_session();
    // What an address opened (a link, `?example=`), as it was opened: never the reader's own
    // until they change it.
    let opened = StoredValue::new(opened);
    // The reader's own kernel, which the opened one replaced: the editor's Ctrl+Z brings its
    // text back, as after an example picked from the menu.
    let undo_to = kept.as_ref().map(|own| own.source.clone());
    let initial_notice = initial_notice.or_else(|| {
        kept.map(|_| {
            let what = address::example_of(&initial.source)
                .map_or_else(|| "the linked kernel".to_owned(), str::to_owned);
            format!("Opened {what}. Your own kernel is one step back in this tab's history (or Ctrl+Z in the editor).")
        })
    });
    let source = RwSignal::new(initial.source.clone());
    let launch = RwSignal::new(initial.launch.clone());
    let tab = RwSignal::new(initial.tab);
    // Where the reader is in the Run panel's results, kept across runs and tab switches.
    let results_place = ResultsPlace::default();
    let arch = RwSignal::new(initial.arch);
    let warp_mode = RwSignal::new(initial.warp_mode);
    let stepping = RwSignal::new(initial.stepping);
    let notice = RwSignal::new(initial_notice);
    let compilation = RwSignal::new_local(compile(&initial.source));
    let pointer = RwSignal::new(None::<usize>);
    let linked = RwSignal::new(None::<Span>);
    let running = Running::new(RwSignal::new_local(None::<RunReport>));
    let report = running.report;
    let blocked = RwSignal::new(None::<String>);
    // The kernel the launch was last fitted to: it stays for the form while the source has
    // errors, and tells which parameters an edit made new.
    let kernel = RwSignal::new_local(None::<Rc<Kernel>>);
    // The source and kernel name `kernel` was fitted from.
    let fitted_from = StoredValue::new_local(None::<(String, Option<String>)>);

    // Compile after a pause in typing; the highlighting itself follows every keystroke.
    // Replacing the pending timeout drops, and so cancels, the one before.
    let pending = StoredValue::new_local(None::<gloo_timers::callback::Timeout>);
    Effect::new(move |_| {
        let text = source.get();
        if compilation.with_untracked(|c| c.source() == text) {
            pending.set_value(None);
            return;
        }
        let timeout = gloo_timers::callback::Timeout::new(COMPILE_DELAY_MS, move || {
            compilation.set(compile(&text));
        });
        pending.set_value(Some(timeout));
    });

    // Whenever the source has a kernel, the launch fits it: a new signature keeps what applies
    // and gives every new parameter a value that runs.
    let refit = move |c: &Compilation| {
        // Only a compilation of the source as it is now: a launch just opened with its source
        // waits for that source's compilation.
        if source.with_untracked(|s| c.source() != s) {
            return;
        }
        let previous = kernel.get_untracked();
        let fitted = launch.with_untracked(|l| fit(c, l, previous.as_deref()));
        let Some((k, fitted)) = fitted else { return };
        // The form gets a new kernel only for another source or another kernel picked: an edit
        // to one of its fields changes the launch too, and a new kernel then would rebuild the
        // fields under the reader's next click (the focus lost, the typing dropped).
        let from = (c.source().to_owned(), fitted.kernel.clone());
        if fitted_from.with_value(|f| f.as_ref() != Some(&from)) {
            kernel.set(Some(Rc::new(k.clone())));
            fitted_from.set_value(Some(from));
        }
        if launch.with_untracked(|l| *l != fitted) {
            launch.set(fitted);
        }
    };
    Effect::new(move |_| {
        launch.track();
        compilation.with(|c| refit(c));
    });

    let session = move || Session {
        source: source.get(),
        launch: launch.get(),
        tab: tab.get(),
        arch: arch.get(),
        warp_mode: warp_mode.get(),
        stepping: stepping.get(),
    };
    let session_untracked = move || Session {
        source: source.get_untracked(),
        launch: launch.get_untracked(),
        tab: tab.get_untracked(),
        arch: arch.get_untracked(),
        warp_mode: warp_mode.get_untracked(),
        stepping: stepping.get_untracked(),
    };
    // The address, the history entry and storage follow the session a moment after the last
    // change (browsers throttle a page that rewrites its history entry on every keystroke),
    // and at once when the page goes away.
    let remembering = StoredValue::new_local(None::<gloo_timers::callback::Timeout>);
    Effect::new(move |_| {
        let now = session();
        let timeout = gloo_timers::callback::Timeout::new(REMEMBER_DELAY_MS, move || {
            opened.with_value(|o| address::remember(&now, o.as_ref()));
        });
        remembering.set_value(Some(timeout));
    });
    let on_hide = window_event_listener(leptos::ev::pagehide, move |_| {
        if remembering
            .try_update_value(Option::take)
            .flatten()
            .is_some()
        {
            opened.with_value(|o| address::remember(&session_untracked(), o.as_ref()));
        }
    });

    let current = move || {
        // Run and the outputs use the source as it is now, even inside the typing pause.
        let text = source.get_untracked();
        if compilation.with_untracked(|c| c.source() != text) {
            compilation.set(compile(&text));
        }
        compilation.get_untracked()
    };

    let unread = UnreadFields(RwSignal::new_local(Vec::new()));
    let on_run = Callback::new(move |()| {
        if let Some((label, problem)) = unread.0.with_untracked(|u| u.first().cloned()) {
            running.cancel();
            report.set(None);
            blocked.set(Some(format!(
                "The launch form holds what it cannot take: {label}: {problem} (marked at its field)."
            )));
            return;
        }
        let compiled = current();
        show_tab(tab, Tab::Run);
        let errors = compiled.diagnostics.iter().filter(|d| d.is_error()).count();
        if errors > 0 {
            running.cancel();
            report.set(None);
            blocked.set(Some(format!(
                "Fix the source first: it has {errors} error{} (listed under the editor).",
                if errors == 1 { "" } else { "s" }
            )));
            return;
        }
        refit(&compiled);
        let to_run = launch.get_untracked();
        let problems = compiled
            .signature(to_run.kernel.as_deref())
            .map(|k| to_run.problems(k, RunLimits::PAGE))
            .unwrap_or_default();
        if let Some(first) = problems.first() {
            running.cancel();
            report.set(None);
            blocked.set(Some(format!(
                "The launch does not fit the kernel: {}{}",
                first.message,
                match problems.len() - 1 {
                    0 => ".".to_owned(),
                    more => format!(", and {more} more (each marked at its field)."),
                }
            )));
            return;
        }
        blocked.set(None);
        start_run(compiled, to_run, warp_mode.get_untracked(), running);
    });
    let gpu_anyway = Callback::new(move |()| run_on_gpu_anyway(warp_mode.get_untracked(), running));
    let raise_step_limit = Callback::new(move |limit: u64| {
        launch.update(|l| l.step_limit = Some(limit));
        on_run.run(());
    });

    // The stepper: a trace of one CTA, made on request (Step through, a link that holds a
    // position, Trace again), never on an edit; a trace of an older source says so.
    // Whether the page's source or launch differs from those a run, trace or count was of.
    let changed_since = move |compiled: &Compilation, ran: &Launch| {
        source.with(|s| compiled.source() != s) || launch.with(|l| l != ran)
    };
    let tracer = OnRequest::<TraceRun>::default();
    let traced = tracer.made;
    let step_reader = StepReader::of(tracer);
    let trace = Callback::new(move |at: Stepping| {
        let compiled = current();
        refit(&compiled);
        let (job, finish) = trace_run(compiled, launch.get_untracked(), at.launch, at.block);
        tracer.start(job, finish, move |why| {
            notice.set(Some(format!(
                "The stepper cannot trace this launch: {why}."
            )));
            stepping.set(None);
        });
    });
    let step_through = Callback::new(move |at: Stepping| {
        stepping.set(Some(at));
        trace.run(at);
    });
    if let Some(at) = initial.stepping {
        trace.run(at);
        // A link that opens a step ("Step through warp 3" in the docs) brings the stepper into
        // view and focus once its first step shows: it sits below the launch form.
        let shown = StoredValue::new(false);
        Effect::new(move |_| {
            if traced.with(Option::is_some) && !shown.get_value() {
                shown.set_value(true);
                request_animation_frame(|| bring_into_view("[data-testid=stepper]"));
            }
        });
    }
    let stepper_open = Memo::new(move |_| stepping.with(Option::is_some));
    // Closing the stepper while it traces stops the trace (its worker ends).
    Effect::new(move |_| {
        if !stepper_open.get() && tracer.busy.get_untracked() {
            tracer.cancel();
        }
    });

    // Memory counts: a run with every access counted, made on request (Count memory
    // accesses), never on an edit; counts of an older source or launch say so.
    let counter = OnRequest::<MemoryRun>::default();
    let (measured, measuring) = (counter.made, counter.busy);
    let measure = Callback::new(move |()| {
        let compiled = current();
        refit(&compiled);
        let (job, finish) = memory_run(compiled, launch.get_untracked());
        counter.start(job, finish, move |why| {
            notice.set(Some(format!(
                "The memory counts need a launch that runs: {why}."
            )));
        });
    });
    let close_memory = Callback::new(move |()| counter.cancel());
    let memory_open = Memo::new(move |_| measuring.get() || measured.with(Option::is_some));
    let memory_stale = Signal::derive_local(move || {
        measured.with(|m| {
            m.as_ref()
                .is_some_and(|m| changed_since(&m.compilation, &m.launch))
        })
    });
    // The run's work by the counts of the source and launch as they are, for the GPU's time.
    let counts = Signal::derive_local(move || {
        if memory_stale.get() {
            return None;
        }
        measured.with(|m| {
            m.as_ref()
                .and_then(|m| m.profile.as_ref().ok())
                .map(|p| (p.work.all_flops(), p.global_bytes()))
        })
    });
    // The accesses with poor figures, underlined while the counts are of the source as it is.
    let poor_spans = move || {
        if memory_stale.get() {
            return Vec::new();
        }
        measured.with(|m| {
            m.as_ref()
                .and_then(|m| m.profile.as_ref().ok())
                .map(|p| {
                    p.sites
                        .iter()
                        .filter(|s| s.is_poor())
                        .map(|s| s.span)
                        .collect()
                })
                .unwrap_or_default()
        })
    };
    let trace_stale = Signal::derive_local(move || {
        traced.with(|t| {
            t.as_ref()
                .is_some_and(|t| changed_since(&t.compilation, &t.launch))
        })
    });
    // The statement of the step on show, while the trace is of the source as it is.
    let step_span = Memo::new(move |_| {
        stepping.get()?;
        if trace_stale.get() {
            return None;
        }
        // The step on show: a move's step comes from the worker, read ahead or a moment after.
        step_reader
            .made()
            .with(|m| Some(m.as_ref()?.as_ref().ok()?.view.as_ref()?.span))
    });
    let reveal = Signal::derive(move || step_span.get().map(|s| s.start));

    let problems = Signal::derive_local(move || {
        let Some(k) = kernel.get() else {
            return Vec::new();
        };
        launch.with(|l| l.problems(&k, RunLimits::PAGE))
    });
    // The run shown is of another source or launch than the page has now.
    let stale = Signal::derive_local(move || {
        report.with(|r| {
            r.as_ref()
                .is_some_and(|r| changed_since(&r.compilation, &r.launch))
        })
    });
    // The seconds the run's work took on the GPU, while the run shown and the counts are both
    // of the source and launch as they are: the roofline's measured point.
    let gpu_seconds = Signal::derive_local(move || {
        if memory_stale.get() || stale.get() {
            return None;
        }
        report.with(|r| match &r.as_ref()?.gpu {
            run::GpuOutcome::Done {
                timing: Ok(time),
                ms,
                ..
            } => time.seconds(*ms),
            _ => None,
        })
    });
    // A run's fault marks its span, while the source is the one that ran.
    let fault_span = move || {
        report.with(|r| {
            let r = r.as_ref()?;
            let fault = r.sim.as_ref().err()?.first()?;
            let same = source.with(|s| r.compilation.source() == s);
            (same && fault.code.phase() == compiler_core::diagnostic::Phase::Run)
                .then_some(fault.span)
        })
    };
    let marks = Signal::derive(move || {
        // The diagnostics are the editor's lint marks; these are the run's and the listing's.
        let mut marks = Vec::new();
        if let Some(span) = step_span.get() {
            marks.push(Mark {
                span,
                class: "step-current",
            });
        }
        if let Some(span) = fault_span() {
            marks.push(Mark {
                span,
                class: "run-fault",
            });
        }
        if let Some(span) = linked.get() {
            marks.push(Mark {
                span,
                class: "linked",
            });
        }
        marks.extend(poor_spans().into_iter().map(|span| Mark {
            span,
            class: "memory-poor",
        }));
        marks
    });
    // Under the pointer: a problem's message if it is underlined there, else the name's type.
    let hover = move || {
        let at = pointer.get()?;
        let problem = compilation.with(|c| {
            c.diagnostics
                .iter()
                .find(|d| d.span.contains(at) || (d.span.is_empty() && d.span.start == at))
                .map(|d| format!("{}: {}", d.code.as_str(), d.message))
        });
        problem.or_else(|| compilation.with(|c| c.hover(at)))
    };
    let pointer_line = Signal::derive(move || {
        let at = pointer.get()?;
        source.with(|s| {
            let index = LineIndex::new(s);
            let line = index.line_of(at);
            let start = index.line_start(line);
            Some(Span::new(start, start + index.line_text(s, line).len()))
        })
    });
    // The last run's fault, listed with the source's problems while the source is the one
    // that ran.
    let run_fault = Signal::derive_local(move || {
        report.with(|r| {
            let r = r.as_ref()?;
            let fault = r
                .sim
                .as_ref()
                .err()?
                .iter()
                .find(|d| d.fault_at.is_some())?;
            source
                .with(|s| r.compilation.source() == s)
                .then(|| fault.clone())
        })
    });
    let form_kernel = Signal::derive_local(move || kernel.get());
    // The source as it is has errors (the form, the occupancy and the diagram stay with the
    // last kernel that compiled).
    let source_broken = Signal::derive_local(move || compilation.with(|c| c.has_errors()));
    // A kernel that the target cannot build (its own `mma` on sm_70) opens on the lowest that
    // can: when the kernel changes from one the target built, not when the reader picks a
    // target for the kernel they have (the PTX tab then says what it needs).
    Effect::new(move |before: Option<(Option<Rc<Kernel>>, bool)>| {
        let now = arch.get();
        let Some(k) = kernel.get() else {
            return (None, true);
        };
        let builds = compiler_core::ptx::refusal(&k, now).is_none();
        // The kernel before, and whether the target (as it was then) built it.
        let (same, built_before) = match &before {
            Some((Some(old), built)) => (Rc::ptr_eq(old, &k), *built),
            _ => (false, true),
        };
        match compiler_core::ptx::lowest_arch(&k) {
            Some(lowest) if !same && !builds && built_before => {
                arch.set(lowest);
                (Some(k), true)
            }
            _ => (Some(k), builds),
        }
    });
    // The lane the reader follows: the stepper's strip, the diagram and the lane map of a kernel
    // that uses mma show the same one.
    let followed = RwSignal::new(None::<u32>);
    let kernel_names = Signal::derive(move || compilation.with(|c| c.runnable_names()));
    // A program's launches each have their own grid and kernel: the diagram and the occupancy
    // show one kernel's launch.
    let runs_a_program = Memo::new(move |_| {
        compilation.with(|c| launch.with(|l| c.runs_a_program(l.kernel.as_deref())))
    });
    let uses_mma = Memo::new(move |_| {
        !runs_a_program.get()
            && form_kernel.with(|k| k.as_ref().is_some_and(|k| k.matrix.is_some()))
    });
    let program_names = Signal::derive(move || {
        compilation
            .with(|c| {
                c.ir()
                    .map(|m| m.programs.iter().map(|p| p.name.clone()).collect())
            })
            .unwrap_or_default()
    });
    // The worker writes the open tab's listing, for the source as it is.
    let listings = ListingWriter::default();
    Effect::new(move |_| {
        let of = match tab.get() {
            Tab::Run => return,
            Tab::Ptx => Output::Ptx(arch.get()),
            Tab::Wgsl => Output::Wgsl {
                lanes: launch.with(|l| l.lanes),
                mode: warp_mode.get().unwrap_or(WarpMode::Emulated),
            },
            Tab::Ir => Output::Ir,
        };
        compilation.with(|c| launch.with(|l| listings.request(c, l.kernel.as_deref(), of)));
    });
    let ptx = listings.shown(Tab::Ptx, "PTX");
    let wgsl = listings.shown(Tab::Wgsl, "WGSL");
    let ir = listings.shown(Tab::Ir, "IR");

    let open = move |opened: Session| {
        let compiled = compile(&opened.source);
        source.set(opened.source);
        compilation.set(compiled);
        launch.set(opened.launch);
        results_place.clear();
        tab.set(opened.tab);
        arch.set(opened.arch);
        warp_mode.set(opened.warp_mode);
        report.set(None);
        blocked.set(None);
        traced.set(None);
        stepping.set(opened.stepping);
        if let Some(at) = opened.stepping {
            trace.run(at);
        }
        // The kernel is the opened launch's own: nothing in it is new. The refit that follows
        // sets it again, even for the same source.
        kernel.set(None);
        fitted_from.set_value(None);
    };
    // The menu shows the example the source is, unedited, or says it is the reader's own.
    let example_now = Signal::derive(move || {
        source.with(|s| address::example_of(s).unwrap_or_default().to_owned())
    });
    let load_example = move |name: String| {
        let edited = example_now.get_untracked().is_empty();
        let example = Session {
            tab: tab.get_untracked(),
            arch: arch.get_untracked(),
            warp_mode: warp_mode.get_untracked(),
            ..Session::example(&name)
        };
        // The session before stays in its own history entry: Back brings it back.
        address::push(&example);
        open(example);
        notice.set(edited.then(|| {
            format!("Opened {name}. Your own kernel is one step back in this tab's history.")
        }));
    };
    let back = move |_| {
        if let Ok(history) = window().history() {
            let _ = history.back();
        }
    };
    // Back and Forward restore the session their entry holds; a link pasted into this tab's
    // address bar opens too.
    let on_pop = window_event_listener(leptos::ev::popstate, move |ev| {
        if let Some(session) = address::session_of_state(ev.state()) {
            open(session);
            notice.set(None);
        }
    });
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = window().location().hash().unwrap_or_default();
        if hash.len() <= 1 {
            return;
        }
        match Session::from_link(&hash) {
            Ok(linked) => {
                opened.set_value(Some(linked.clone()));
                open(linked);
                notice.set(None);
            }
            Err(error) => notice.set(Some(format!("{error}. The page keeps what it had."))),
        }
    });
    on_cleanup(move || {
        on_pop.remove();
        on_hash.remove();
        on_hide.remove();
    });
    let share_status = RwSignal::new(String::new());
    let copy_link = move |_| {
        let link = session().to_link();
        let location = window().location();
        let base = format!(
            "{}{}",
            location.origin().unwrap_or_default(),
            location.pathname().unwrap_or_default()
        );
        let url = format!("{base}#{link}");
        if let Ok(history) = window().history() {
            let state = wasm_bindgen::JsValue::from_str(&session().to_storage());
            let _ = history.replace_state_with_url(&state, "", Some(&url));
        }
        outputs::copy_to_clipboard(&url);
        share_status.set(format!("Link copied ({} characters).", url.len()));
    };

    view! {
        <div class="playground">
            {move || notice.get().map(|text| {
                let offers_back = text.contains("one step back");
                view! {
                    <p class="notice" role="alert" data-testid="notice">
                        {text}
                        {offers_back.then(|| view! {
                            " "<button type="button" data-testid="notice-back" on:click=back>"Back to it"</button>
                        })}
                    </p>
                }
            })}
            <div class="playground-bar">
                <label class="field">
                    <span>"Example"</span>
                    <select data-testid="examples" prop:value=move || example_now.get()
                        on:change=move |ev| load_example(event_target_value(&ev))>
                        <option value="" disabled=true>"Your own kernel"</option>
                        <optgroup label="Kernels">
                            {compiler_core::examples::all().into_iter().map(|e| view! {
                                <option value=e.name title=e.summary()>{e.name}</option>
                            }).collect_view()}
                        </optgroup>
                        <optgroup label="Programs (several launches)">
                            {compiler_core::examples::programs().into_iter().map(|e| view! {
                                <option value=e.name title=e.summary()>{e.name}</option>
                            }).collect_view()}
                        </optgroup>
                    </select>
                </label>
                <button type="button" data-testid="copy-link" on:click=copy_link>"Copy link"</button>
                <span class="share-status" role="status" data-testid="share-status">{move || share_status.get()}</span>
            </div>
            <div class="playground-panes">
                <section class="pane source-pane" aria-label="Source">
                    <Editor source=source compilation=Signal::derive_local(move || compilation.get()) marks=marks pointer=pointer on_run=on_run reveal=reveal undo_to=undo_to.clone()/>
                    <p class="hover-info" aria-live="polite" data-testid="hover-info">{move || hover().unwrap_or_default()}</p>
                    <DiagnosticList compilation=Signal::derive_local(move || compilation.get()) fault=run_fault source=source/>
                </section>
                <section class="pane output-pane" aria-label="Output">
                    <OutputTabs tab=tab/>
                    <div class="tab-panel" id="output-panel" role="tabpanel" tabindex="0" aria-labelledby=move || format!("tab-{}", tab.get().label())>
                        {move || match tab.get() {
                            Tab::Run => view! {
                                <RunSections memory=memory_open stepper=stepper_open fragments=uses_mma report=report/>
                                <LaunchPanel launch=launch warp_mode=warp_mode kernel=form_kernel kernel_names=kernel_names program_names=program_names problems=problems unread=unread on_run=on_run outdated=source_broken/>
                                {move || (!runs_a_program.get()).then(|| view! { <OccupancyView kernel=form_kernel arch=arch/> })}
                                <Results report=report place=results_place running=running blocked=blocked stale=stale on_raise_step_limit=raise_step_limit on_gpu_anyway=gpu_anyway on_step_through=step_through on_measure=measure counts=counts/>
                                {move || memory_open.get().then(|| run::later::memory(MemoryViewProps { measured: measured.into(), counting: counter.status("Counting"), stale: memory_stale, gpu_seconds, on_measure: measure, on_close: close_memory }))}
                                {move || stepper_open.get().then(|| run::later::stepper(StepperProps { traced: traced.into(), reader: step_reader, stepping, tracing: tracer.status("Tracing"), stale: trace_stale, on_trace: trace, followed }))}
                                {move || uses_mma.get().then(|| run::later::fragment_map(FragmentMapProps { lane: followed, linked: true }))}
                                {move || match runs_a_program.get() {
                                    false => view! {
                                        <section class="launch-diagram" aria-labelledby="launch-diagram-title">
                                            <h2 id="launch-diagram-title">"Where each thread sits"</h2>
                                            <WhenSeen part="diagram" min_height="24rem">
                                                {move || run::later::diagram(LaunchDiagramProps { launch, kernel: form_kernel, report, on_step_through: Some(step_through), followed })}
                                            </WhenSeen>
                                        </section>
                                    }.into_any(),
                                    true => view! {
                                        <p class="hint" data-testid="program-diagram">"Each launch of a program has a grid of its own, computed from its dimensions (its list is under the results): pick one of the program's kernels in Kernel to see a launch of it in the diagram, with its occupancy."</p>
                                    }.into_any(),
                                }}
                            }.into_any(),
                            Tab::Ptx => view! {
                                <ArchSelect arch=arch testid="arch"/>
                                <p class="hint">"Plain PTX, as "<code>"tessera ptx"</code>" writes it; "<code>"--loop-guard TRIPS"</code>" adds the "<a href="/docs/targets#loop-guard">"loop guard"</a>"."</p>
                                {run::later::listing(ListingViewProps { listing: ptx, source_line_spans: pointer_line, linked, label: "PTX", downloadable: true })}
                            }.into_any(),
                            Tab::Wgsl => view! {
                                <label class="field">
                                    <span>{move || format!("warps of ctx.lanes = {}", launch.with(|l| l.lanes))}</span>
                                    <select data-testid="wgsl-mode" on:change=move |ev| {
                                        warp_mode.set(match event_target_value(&ev).as_str() {
                                            "subgroups" => Some(compiler_core::wgsl::WarpMode::Subgroups),
                                            _ => Some(compiler_core::wgsl::WarpMode::Emulated),
                                        });
                                    }>
                                        <option value="subgroups" selected=move || warp_mode.get() == Some(compiler_core::wgsl::WarpMode::Subgroups)>"as subgroups"</option>
                                        <option value="emulated" selected=move || warp_mode.get() != Some(compiler_core::wgsl::WarpMode::Subgroups)>"emulated in workgroup memory"</option>
                                    </select>
                                </label>
                                <p class="hint" data-testid="wgsl-plain">"Plain WGSL, as "<code>"tessera wgsl"</code>" writes it. A run adds a "<a href="/docs/targets#loop-guard">"loop guard"</a>": each loop stops past the step limit's trips (E0514)."</p>
                                {run::later::listing(ListingViewProps { listing: wgsl, source_line_spans: pointer_line, linked, label: "WGSL", downloadable: false })}
                            }.into_any(),
                            Tab::Ir => view! {
                                {run::later::listing(ListingViewProps { listing: ir, source_line_spans: pointer_line, linked, label: "IR", downloadable: false })}
                            }.into_any(),
                        }}
                    </div>
                </section>
            </div>
        </div>
    }
}

/// Scrolls the part `selector` finds into view and moves the focus there.
fn bring_into_view(selector: &str) {
    let Some(part) = document().query_selector(selector).ok().flatten() else {
        return;
    };
    part.scroll_into_view();
    if let Ok(part) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(part) {
        if !part.has_attribute("tabindex") {
            let _ = part.set_attribute("tabindex", "-1");
        }
        let _ = part.focus();
    }
}

/// The Run panel's parts as buttons that stay at the top of the output pane: each scrolls its
/// part into view and moves the focus there, so a reader stepping a warp can look at the
/// results or the memory table and come back without hunting for the place.
#[component]
fn RunSections(
    #[prop(into)] memory: Signal<bool>,
    #[prop(into)] stepper: Signal<bool>,
    /// The kernel uses mma: it has a lane map.
    #[prop(into)]
    fragments: Signal<bool>,
    report: RwSignal<Option<RunReport>, LocalStorage>,
) -> impl IntoView {
    let go = |selector: &'static str| move |_| bring_into_view(selector);
    let ran = move || report.with(Option::is_some);
    view! {
        <nav class="run-sections" aria-label="Run panel parts" data-testid="run-sections">
            <button type="button" on:click=go(".launch-panel")>"Launch"</button>
            {move || ran().then(|| view! { <button type="button" data-testid="go-results" on:click=go("[data-testid=run-status]")>"Results"</button> })}
            {move || memory.get().then(|| view! { <button type="button" data-testid="go-memory" on:click=go("[data-testid=memory]")>"Memory"</button> })}
            {move || stepper.get().then(|| view! { <button type="button" data-testid="go-stepper" on:click=go("[data-testid=stepper]")>"Stepper"</button> })}
            {move || fragments.get().then(|| view! { <button type="button" data-testid="go-fragments" on:click=go("[data-testid=fragment-map]")>"Lane map"</button> })}
            <button type="button" data-testid="go-diagram" on:click=go(".launch-diagram, [data-testid=program-diagram]")>"Diagram"</button>
        </nav>
    }
}
