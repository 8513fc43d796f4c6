//! A puzzle's workbench, on the puzzle's docs page (`/docs/puzzle-…`): the reader's kernel in
//! the editor, Check, and the verdict.
//!
//! In: the puzzle's slug and its [`Exercise`] (the puzzles' module carries every puzzle's).
//! Out: the editor with the attempt and its diagnostics; Check, graded by the simulator's
//! worker (`Job::Grade`), with Cancel; the verdict: solved, the first wrong element and the
//! thread that wrote it (with a Step through link to its warp; a run-time fault's link goes to
//! the faulting warp at the fault), the rule broken (marked in the
//! editor), or what stops the kernel from running; a solution, on request. The attempt is kept
//! in localStorage as it is edited and goes into a share link on request; a pass marks the
//! puzzle solved there and tells the site's sidebar (the window event [`SOLVED_EVENT`]).
//!
//! Storage: [`SOLVED_KEY`] (which the site reads too) the solved puzzles; `tessera.puzzle:SLUG`
//! the attempt.

use crate::diagnostics::DiagnosticList;
use crate::editor::Editor;
use crate::run::{grade_run, GradeRun, OnRequest};
use compiler_core::grade::{Exercise, ThreadPlace, Verdict, SOLVED_EVENT, SOLVED_KEY};
use compiler_core::share::{Session, Stepping};
use compiler_core::span::LineIndex;
use compiler_core::syntax::highlight::{highlight_html, Mark};
use gloo_storage::Storage;
use leptos::prelude::*;
use std::rc::Rc;
use std::sync::Arc;

fn attempt_key(slug: &str) -> String {
    format!("tessera.puzzle:{slug}")
}

fn stored(key: &str) -> Option<String> {
    gloo_storage::LocalStorage::raw()
        .get_item(key)
        .ok()
        .flatten()
}

fn store(key: &str, value: &str) {
    let _ = gloo_storage::LocalStorage::raw().set_item(key, value);
}

/// Notes `slug` as solved, and tells the page.
fn mark_solved(slug: &str) {
    let solved = stored(SOLVED_KEY).unwrap_or_default();
    if !solved.split_whitespace().any(|s| s == slug) {
        store(SOLVED_KEY, format!("{solved} {slug}").trim());
    }
    if let Ok(event) = web_sys::CustomEvent::new(SOLVED_EVENT) {
        let _ = window().dispatch_event(&event);
    }
}

/// The attempt to start from: a share link's (the address's fragment), else the one kept from
/// the last visit, else the starter; and what the page should say about it.
fn first_attempt(slug: &str, starter: &str) -> (String, Option<String>) {
    let hash = window().location().hash().unwrap_or_default();
    if hash.len() > 1 && hash.starts_with("#v") {
        match Session::from_link(&hash) {
            Ok(session) => {
                return (
                    session.source,
                    Some("This is the attempt the link holds.".to_owned()),
                )
            }
            Err(why) => {
                let kept = stored(&attempt_key(slug)).unwrap_or_else(|| starter.to_owned());
                return (kept, Some(format!("{why}. Your own attempt is shown.")));
            }
        }
    }
    (
        stored(&attempt_key(slug)).unwrap_or_else(|| starter.to_owned()),
        None,
    )
}

/// "thread 37 of CTA (1, 0, 0): warp 1, lane 5".
fn thread_words(place: &ThreadPlace) -> String {
    let b = place.block;
    format!(
        "thread {} of CTA ({}, {}, {}): warp {}, lane {}",
        place.thread, b.x, b.y, b.z, place.warp, place.lane
    )
}

/// The verdict of one check, in words and links.
fn verdict_view(graded: &GradeRun, exercise: &Exercise) -> AnyView {
    match &graded.verdict {
        Verdict::Pass => view! {
            <p class="puzzle-verdict pass" data-testid="puzzle-verdict" data-verdict="pass">
                <strong>"Solved."</strong>
                " Every element equals the reference's"
                {if exercise.rules.describe().is_empty() { "." } else { ", and the kernel keeps the puzzle's rules." }}
            </p>
        }
        .into_any(),
        Verdict::Wrong {
            tensor,
            index,
            got,
            want,
            writer,
        } => {
            let element = format!(
                "{tensor}[{}]",
                index
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let who = writer.map_or_else(
                || "No thread wrote it.".to_owned(),
                |w| format!("It was written last by {}.", thread_words(&w)),
            );
            // The attempt in the playground's stepper, on the writer's warp.
            let step_link = writer.map(|w| {
                let session = Session {
                    source: graded.source.clone(),
                    launch: exercise.launch.clone(),
                    stepping: Some(Stepping {
                        launch: 0,
                        block: w.block,
                        warp: w.warp,
                        step: 0,
                    }),
                    ..Session::default()
                };
                view! {
                    <a class="button" href=format!("/play#{}", session.to_link()) rel="external" data-testid="puzzle-step-through">
                        {format!("Step through warp {} in the playground", w.warp)}
                    </a>
                }
            });
            view! {
                <div class="puzzle-verdict wrong" data-testid="puzzle-verdict" data-verdict="wrong">
                    <p>
                        <strong>"Not yet."</strong>
                        " "<code data-testid="puzzle-wrong-element">{element}</code>
                        {format!(" is {got}; the reference's is {want}.")}
                    </p>
                    <p data-testid="puzzle-writer">{who}</p>
                    {step_link}
                </div>
            }
            .into_any()
        }
        Verdict::Rule { rule, why, .. } => view! {
            <p class="puzzle-verdict rule" data-testid="puzzle-verdict" data-verdict="rule">
                <strong>"The results are right, but a rule is broken: "</strong>
                {format!("{rule} ({why}).")}
            </p>
        }
        .into_any(),
        Verdict::Parameters { want, got } => view! {
            <p class="puzzle-verdict wrong" data-testid="puzzle-verdict" data-verdict="parameters">
                <strong>"Not yet."</strong>
                {format!(
                    " The puzzle's kernel takes ({}); yours takes ({}). Keep the starter's parameters, so the results can be compared.",
                    want.join(", "),
                    got.join(", ")
                )}
            </p>
        }
        .into_any(),
        Verdict::Broken { diagnostics } => {
            let source = &graded.source;
            let index = LineIndex::new(source);
            // A run-time fault names its warp: the attempt in the stepper there, at the fault.
            let step_link = diagnostics
                .iter()
                .find_map(|d| d.fault_at.as_deref().copied())
                .map(|at| {
                    let session = Session {
                        source: graded.source.clone(),
                        launch: exercise.launch.clone(),
                        stepping: Some(Stepping {
                            launch: 0,
                            block: at.block,
                            warp: at.warp,
                            step: u32::MAX,
                        }),
                        ..Session::default()
                    };
                    view! {
                        <a class="button" href=format!("/play#{}", session.to_link()) rel="external" data-testid="puzzle-step-through">
                            {format!("Step through warp {} of block ({}, {}, {}) in the playground, to where the run stopped", at.warp, at.block.x, at.block.y, at.block.z)}
                        </a>
                    }
                });
            view! {
                <div class="puzzle-verdict wrong" data-testid="puzzle-verdict" data-verdict="broken">
                    <p><strong>"Your kernel does not run yet."</strong></p>
                    <ul class="diagnostics">
                        {diagnostics.iter().map(|d| {
                            let at = index.line_column(source, d.span.start);
                            let code = d.code.as_str();
                            view! {
                                <li class="diagnostic error">
                                    <a class="diag-code" href=format!("/docs/errors#{code}")>{code}</a>
                                    {format!(" {}:{} {}", at.line, at.column, d.message)}
                                    {d.label.clone().map(|l| format!(" ({l})"))}
                                    {d.help.clone().map(|h| view! { <div class="help">"help: "{h}</div> })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                    {step_link}
                </div>
            }
            .into_any()
        }
    }
}

/// The workbench of one puzzle.
#[component]
pub fn Workbench(slug: String, exercise: Exercise) -> impl IntoView {
    let exercise = Arc::new(exercise);
    let (first, first_notice) = first_attempt(&slug, &exercise.starter);
    let source = RwSignal::new(first);
    let notice = RwSignal::new(first_notice);
    let compilation = RwSignal::new_local(Rc::new(compiler_core::compile(&source.get_untracked())));
    let pointer = RwSignal::new(None::<usize>);
    let share_status = RwSignal::new(String::new());
    let failure = RwSignal::new(None::<String>);
    let grader = OnRequest::<GradeRun>::default();

    // Compile (for the diagnostics) and keep the attempt a moment after typing. What the page
    // opened with is kept only once it is edited, so opening someone's link does not replace
    // the reader's own attempt.
    let pending = StoredValue::new_local(None::<gloo_timers::callback::Timeout>);
    let key = attempt_key(&slug);
    let opened = source.get_untracked();
    let edited = StoredValue::new(false);
    Effect::new(move |_| {
        let text = source.get();
        edited.update_value(|e| *e |= text != opened);
        let key = key.clone();
        let timeout = gloo_timers::callback::Timeout::new(crate::COMPILE_DELAY_MS, move || {
            if compilation.with_untracked(|c| c.source() != text) {
                compilation.set(Rc::new(compiler_core::compile(&text)));
            }
            if edited.get_value() {
                store(&key, &text);
            }
        });
        pending.set_value(Some(timeout));
    });

    let check = {
        let exercise = Arc::clone(&exercise);
        Callback::new(move |()| {
            failure.set(None);
            let (job, finish) = grade_run(source.get_untracked(), &exercise);
            grader.start(job, finish, move |why| {
                failure.set(Some(format!("The check could not be made: {why}.")));
            });
        })
    };
    // A pass is noted once per verdict, whatever redraws it.
    let solved_slug = slug.clone();
    Effect::new(move |_| {
        if grader
            .made
            .with(|m| m.as_ref().is_some_and(|g| g.verdict == Verdict::Pass))
        {
            mark_solved(&solved_slug);
        }
    });
    let stale = move || {
        grader
            .made
            .with(|m| m.as_ref().is_some_and(|g| source.with(|s| *s != g.source)))
    };
    // A broken rule at one access is marked there, while the source is the one checked.
    let marks = Signal::derive(move || {
        if stale() {
            return Vec::new();
        }
        grader.made.with(|m| match m.as_deref() {
            Some(GradeRun {
                verdict: Verdict::Rule {
                    span: Some(span), ..
                },
                ..
            }) => vec![Mark {
                span: *span,
                class: "run-fault",
            }],
            _ => Vec::new(),
        })
    });
    let start_again = {
        let starter = exercise.starter.clone();
        move |_| {
            source.set(starter.clone());
            notice.set(Some(
                "Back to the starter. Undo (Ctrl+Z in the editor) brings your attempt back."
                    .to_owned(),
            ));
        }
    };
    let copy_link = {
        let launch = exercise.launch.clone();
        move |_| {
            let session = Session {
                source: source.get_untracked(),
                launch: launch.clone(),
                ..Session::default()
            };
            let location = window().location();
            let url = format!(
                "{}{}#{}",
                location.origin().unwrap_or_default(),
                location.pathname().unwrap_or_default(),
                session.to_link()
            );
            if let Ok(history) = window().history() {
                let _ =
                    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
            }
            crate::outputs::copy_to_clipboard(&url);
            share_status.set(format!(
                "Link to this attempt copied ({} characters).",
                url.len()
            ));
        }
    };
    let checking = grader.status("Checking");
    let solution_shown = RwSignal::new(false);
    let solution_html = highlight_html(exercise.solution.trim(), &[]);
    let hints = exercise.hints.clone();
    let hint_count = hints.len();
    let shown_hints = RwSignal::new(0usize);
    let rules = exercise.rules.describe();
    let rules_line = (!rules.is_empty()).then(|| {
        view! { <p data-testid="puzzle-rules">"The check also asks for: "{rules.join("; ")}"."</p> }
    });
    let shown = {
        let exercise = Arc::clone(&exercise);
        move || {
            grader
                .made
                .get()
                .map(|graded| verdict_view(&graded, &exercise))
        }
    };

    view! {
        <div class="workbench" data-testid="workbench">
            <p>
                "Your kernel runs with the launch "<code data-testid="puzzle-launch">{exercise.launch_words.clone()}</code>
                ", and so does the puzzle's reference; Check compares every element they write."
            </p>
            {rules_line}
            <h2 id="puzzle-hints">"Hints"</h2>
            <ol class="puzzle-hints" aria-live="polite" data-testid="puzzle-hints">
                {move || hints[..shown_hints.get()].iter().map(|h| view! { <li inner_html=h.clone()></li> }).collect_view()}
            </ol>
            // The button stays where it is, so the focus does too.
            <button
                type="button"
                data-testid="puzzle-hint"
                aria-disabled=move || (shown_hints.get() == hint_count).to_string()
                on:click=move |_| shown_hints.update(|n| *n = (*n + 1).min(hint_count))
            >
                {move || match shown_hints.get() {
                    n if n < hint_count => format!("Show hint {} of {hint_count}", n + 1),
                    _ => format!("All {hint_count} hints shown"),
                }}
            </button>
            <h2 id="puzzle-kernel">"Your kernel"</h2>
            {move || notice.get().map(|text| view! { <p class="notice" role="status" data-testid="puzzle-notice">{text}</p> })}
            <Editor source=source compilation=Signal::derive_local(move || compilation.get()) marks=marks pointer=pointer on_run=check reveal=Signal::derive(|| None)/>
            <DiagnosticList compilation=Signal::derive_local(move || compilation.get()) source=source/>
            <div class="workbench-actions">
                <button type="button" class="primary" data-testid="puzzle-check" on:click=move |_| check.run(())>"Check"</button>
                <button type="button" data-testid="puzzle-reset" on:click=start_again>"Start again"</button>
                <button type="button" data-testid="puzzle-copy-link" on:click=copy_link>"Copy link"</button>
                <span class="share-status" role="status" data-testid="puzzle-share-status">{move || share_status.get()}</span>
            </div>
            <div role="status" aria-live="polite">
                {move || checking.get().map(|text| view! {
                    <p class="run-progress" data-testid="puzzle-checking">
                        {text}
                        " "<button type="button" data-testid="puzzle-cancel" on:click=move |_| grader.cancel()>"Cancel"</button>
                    </p>
                })}
                {move || failure.get().map(|text| view! { <p class="error" data-testid="puzzle-failure">{text}</p> })}
                {move || stale().then(|| view! {
                    <p class="stale" data-testid="puzzle-stale">"This verdict is for the kernel as it was at the last Check."</p>
                })}
                {shown}
            </div>
            <h2 id="puzzle-solution">"Solution"</h2>
            <button
                type="button"
                data-testid="puzzle-reveal"
                aria-expanded=move || solution_shown.get().to_string()
                aria-controls="puzzle-solution-code"
                on:click=move |_| solution_shown.update(|shown| *shown = !*shown)
            >
                {move || if solution_shown.get() { "Hide the solution" } else { "Reveal a solution" }}
            </button>
            <pre class="code" id="puzzle-solution-code" tabindex="0" data-testid="puzzle-solution" hidden=move || !solution_shown.get()>
                <code inner_html=solution_html></code>
            </pre>
        </div>
    }
}
