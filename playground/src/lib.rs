//! The playground: edit a kernel, see its diagnostics, PTX, WGSL and IR as you type, run it on
//! the simulator and on your GPU, and share the whole state as a link.
//!
//! In: the user's edits and the URL. Out: the views below, and the session
//! (`compiler_core::share::Session`) in the URL fragment (on Copy link) and in localStorage
//! (always). Every compiler call goes through `compiler_core::compile`, the same front door as
//! the CLI; every run through `Compilation::prepare`, and every GPU run through `runtime`.
//!
//! - `editor`: the text area over the highlighted text, diagnostics underlined.
//! - `outputs`: PTX / WGSL / IR listings linked line by line to the source.
//! - `run`: the launch form, the simulator and WebGPU runs, the results.

pub mod editor;
pub mod outputs;
pub mod run;

use compiler_core::ptx::Arch;
use compiler_core::share::{Session, Tab};
use compiler_core::span::{LineIndex, Span};
use compiler_core::syntax::highlight::Mark;
use compiler_core::{Compilation, Diagnostic, Severity};
use editor::Editor;
use gloo_storage::Storage;
use leptos::prelude::*;
use outputs::{ir_listing, ptx_listing, wgsl_listing, ListingView};
use run::{start_run, LaunchDiagram, LaunchPanel, Results, RunReport};
use std::rc::Rc;

/// Edits closer together than this are compiled once, after the last. A compile with PTX and
/// WGSL takes under 2 ms in the browser (BENCHMARKS.md), so the pause only coalesces a burst
/// of keystrokes (a paste, key repeat) and keeps the frame the keystroke lands in for typing.
const COMPILE_DELAY_MS: u32 = 10;
const STORAGE_KEY: &str = "tessera.session";

fn compile(source: &str) -> Rc<Compilation> {
    Rc::new(compiler_core::compile(source))
}

/// The session to open: the link's, else `?example=NAME`, else the last one, else the default;
/// and a notice when a link could not be opened.
fn initial_session() -> (Session, Option<String>) {
    let location = window().location();
    let hash = location.hash().unwrap_or_default();
    if hash.len() > 1 {
        return match Session::from_link(&hash) {
            Ok(session) => (session, None),
            Err(error) => (
                Session::default(),
                Some(format!("{error}. The default example is open instead.")),
            ),
        };
    }
    let search = location.search().unwrap_or_default();
    if let Some(name) = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("example="))
    {
        return (Session::example(name), None);
    }
    let stored = gloo_storage::LocalStorage::raw()
        .get_item(STORAGE_KEY)
        .ok()
        .flatten()
        .and_then(|text| Session::from_storage(&text));
    (stored.unwrap_or_default(), None)
}

/// Where the editor underlines: each diagnostic's span by severity, and its labels.
pub fn diagnostic_marks(diagnostics: &[Diagnostic]) -> Vec<Mark> {
    let mut marks = Vec::new();
    for d in diagnostics {
        for label in &d.labels {
            marks.push(Mark {
                span: label.span,
                class: "diag-label",
            });
        }
        marks.push(Mark {
            span: d.span,
            class: if d.severity == Severity::Error {
                "diag-error"
            } else {
                "diag-warning"
            },
        });
    }
    marks
}

#[component]
fn DiagnosticList(
    #[prop(into)] diagnostics: Signal<Vec<Diagnostic>>,
    #[prop(into)] compilation: Signal<Rc<Compilation>, LocalStorage>,
) -> impl IntoView {
    move || {
        let list = diagnostics.get();
        let compilation = compilation.get();
        let source = compilation.source();
        let index = LineIndex::new(source);
        if list.is_empty() {
            return view! { <p class="diagnostics-ok" data-testid="diagnostics-ok">"No problems."</p> }.into_any();
        }
        view! {
            <ul class="diagnostics" data-testid="diagnostics" aria-label="Problems">
                {list.into_iter().map(|d| {
                    let at = index.line_column(source, d.span.start);
                    let code = d.code.as_str();
                    view! {
                        <li class=if d.severity == Severity::Error { "diagnostic error" } else { "diagnostic warning" } data-testid="diagnostic">
                            <a class="code" href=format!("/docs/errors#{code}")>{code}</a>
                            " "
                            <span class="where" data-testid="where">{format!("{}:{}", at.line, at.column)}</span>
                            " "
                            <span class="message">{d.message.clone()}</span>
                            {d.label.clone().map(|l| view! { <span class="label">{format!(" ({l})")}</span> })}
                            {d.labels.iter().map(|l| {
                                let at = index.line_column(source, l.span.start);
                                view! { <div class="secondary">{format!("{}:{}: {}", at.line, at.column, l.message)}</div> }
                            }).collect_view()}
                            {d.help.clone().map(|h| view! { <div class="help">"help: "{h}</div> })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any()
    }
}

#[component]
pub fn Playground() -> impl IntoView {
    let (initial, initial_notice) = initial_session();
    let source = RwSignal::new(initial.source.clone());
    let launch = RwSignal::new(initial.launch.clone());
    let tab = RwSignal::new(initial.tab);
    let arch = RwSignal::new(initial.arch);
    let warp_mode = RwSignal::new(initial.warp_mode);
    let notice = RwSignal::new(initial_notice);
    let compilation = RwSignal::new_local(compile(&initial.source));
    let pointer = RwSignal::new(None::<usize>);
    let linked = RwSignal::new(None::<Span>);
    let report = RwSignal::new_local(None::<RunReport>);
    let run_faults = RwSignal::new(Vec::<Diagnostic>::new());
    let runs = StoredValue::new(0u64);

    // Compile after a pause in typing; the highlighting itself follows every keystroke.
    // Replacing the pending timeout drops, and so cancels, the one before.
    let pending = StoredValue::new_local(None::<gloo_timers::callback::Timeout>);
    Effect::new(move |_| {
        let text = source.get();
        if compilation.with_untracked(|a| a.source() == text) {
            pending.set_value(None);
            return;
        }
        let timeout = gloo_timers::callback::Timeout::new(COMPILE_DELAY_MS, move || {
            compilation.set(compile(&text));
            run_faults.set(Vec::new());
        });
        pending.set_value(Some(timeout));
    });

    let session = move || Session {
        source: source.get(),
        launch: launch.get(),
        tab: tab.get(),
        arch: arch.get(),
        warp_mode: warp_mode.get(),
    };
    Effect::new(move |_| {
        let _ = gloo_storage::LocalStorage::raw().set_item(STORAGE_KEY, &session().to_storage());
    });

    let current = move || {
        // Run and the outputs use the source as it is now, even inside the typing pause.
        let text = source.get_untracked();
        if compilation.with_untracked(|a| a.source() != text) {
            compilation.set(compile(&text));
        }
        compilation.get_untracked()
    };

    let on_run = Callback::new(move |()| {
        let compilation = current();
        let launch = launch.get_untracked();
        runs.update_value(|n| *n += 1);
        let this_run = runs.get_value();
        tab.set(Tab::Run);
        start_run(
            compilation,
            launch,
            warp_mode.get_untracked(),
            report,
            move || runs.get_value() == this_run,
        );
    });
    // A run's faults are listed with the source's problems until the next compile.
    Effect::new(move |_| {
        report.with(|r| {
            let faults = r.as_ref().and_then(|r| r.sim.as_ref().err().cloned());
            run_faults.set(faults.unwrap_or_default());
        })
    });

    let diagnostics = Signal::derive(move || {
        let mut all = compilation.with(|a| a.diagnostics.clone());
        all.extend(run_faults.get());
        all
    });
    let marks = Signal::derive(move || {
        let mut marks = diagnostic_marks(&diagnostics.get());
        if let Some(span) = linked.get() {
            marks.push(Mark {
                span,
                class: "linked",
            });
        }
        marks
    });
    // Under the pointer: a problem's message if it is underlined there, else the name's type.
    let hover = move || {
        let at = pointer.get()?;
        let problem = diagnostics.with(|list| {
            list.iter()
                .find(|d| d.span.contains(at) || (d.span.is_empty() && d.span.start == at))
                .map(|d| format!("{}: {}", d.code.as_str(), d.message))
        });
        problem.or_else(|| compilation.with(|a| a.hover(at)))
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
    let kernel = Signal::derive_local(move || {
        let compilation = compilation.get();
        launch.with(|l| {
            compilation
                .kernel(l.kernel.as_deref())
                .ok()
                .cloned()
                .map(Rc::new)
        })
    });
    let kernel_names = Signal::derive(move || compilation.with(|a| a.kernel_names()));
    let ptx = Signal::derive_local(move || {
        let compilation = compilation.get();
        Rc::new(launch.with(|l| ptx_listing(&compilation, l.kernel.as_deref(), arch.get())))
    });
    let wgsl = Signal::derive_local(move || {
        let compilation = compilation.get();
        let mode = warp_mode
            .get()
            .unwrap_or(compiler_core::wgsl::WarpMode::Emulated);
        Rc::new(launch.with(|l| wgsl_listing(&compilation, l.kernel.as_deref(), l.lanes, mode)))
    });
    let ir = Signal::derive_local(move || Rc::new(ir_listing(&compilation.get())));

    let load_example = move |name: String| {
        let example = Session::example(&name);
        source.set(example.source);
        launch.set(example.launch);
        report.set(None);
        notice.set(None);
    };
    // A link pasted into this tab's address bar opens too.
    let on_hash = move || {
        let hash = window().location().hash().unwrap_or_default();
        if hash.len() <= 1 {
            return;
        }
        match Session::from_link(&hash) {
            Ok(opened) => {
                source.set(opened.source);
                launch.set(opened.launch);
                tab.set(opened.tab);
                arch.set(opened.arch);
                warp_mode.set(opened.warp_mode);
                notice.set(None);
            }
            Err(error) => notice.set(Some(format!("{error}. The page keeps what it had."))),
        }
        report.set(None);
    };
    let listener = window_event_listener(leptos::ev::hashchange, move |_| on_hash());
    on_cleanup(move || listener.remove());
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
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
        outputs::copy_to_clipboard(&url);
        share_status.set(format!("Link copied ({} characters).", url.len()));
    };

    view! {
        <div class="playground">
            {move || notice.get().map(|text| view! {
                <p class="notice" role="alert" data-testid="notice">{text}</p>
            })}
            <div class="playground-bar">
                <label class="field">
                    <span>"Example"</span>
                    <select data-testid="examples" on:change=move |ev| load_example(event_target_value(&ev))>
                        <option value="" selected=true disabled=true>"Open an example…"</option>
                        {compiler_core::examples::all().into_iter().map(|e| view! {
                            <option value=e.name title=e.summary()>{e.name}</option>
                        }).collect_view()}
                    </select>
                </label>
                <button type="button" data-testid="copy-link" on:click=copy_link>"Copy link"</button>
                <span class="share-status" role="status" data-testid="share-status">{move || share_status.get()}</span>
            </div>
            <div class="playground-panes">
                <section class="pane source-pane" aria-label="Source">
                    <Editor source=source marks=marks pointer=pointer on_run=on_run/>
                    <p class="hover-info" aria-live="polite" data-testid="hover-info">{move || hover().unwrap_or_default()}</p>
                    <DiagnosticList diagnostics=diagnostics compilation=Signal::derive_local(move || compilation.get())/>
                </section>
                <section class="pane output-pane" aria-label="Output">
                    <div class="tabs" role="tablist" aria-label="Output">
                        {Tab::ALL.into_iter().map(|t| view! {
                            <button
                                type="button"
                                role="tab"
                                id=format!("tab-{}", t.label())
                                data-testid=format!("tab-{}", t.label())
                                aria-selected=move || (tab.get() == t).to_string()
                                on:click=move |_| tab.set(t)
                            >{t.label()}</button>
                        }).collect_view()}
                    </div>
                    <div class="tab-panel" role="tabpanel" aria-labelledby=move || format!("tab-{}", tab.get().label())>
                        {move || match tab.get() {
                            Tab::Run => view! {
                                <LaunchPanel launch=launch warp_mode=warp_mode kernel=kernel kernel_names=kernel_names on_run=on_run/>
                                <Results report=report/>
                                <LaunchDiagram launch=launch kernel=kernel report=report/>
                            }.into_any(),
                            Tab::Ptx => view! {
                                <label class="field">
                                    <span>"target"</span>
                                    <select data-testid="arch" on:change=move |ev| {
                                        if let Ok(a) = event_target_value(&ev).parse::<Arch>() { arch.set(a) }
                                    }>
                                        {Arch::ALL.into_iter().map(|a| view! {
                                            <option value=a.name() selected=move || arch.get() == a>{a.name()}</option>
                                        }).collect_view()}
                                    </select>
                                </label>
                                <ListingView listing=ptx source_line_spans=pointer_line linked=linked label="PTX" downloadable=true/>
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
                                <ListingView listing=wgsl source_line_spans=pointer_line linked=linked label="WGSL"/>
                            }.into_any(),
                            Tab::Ir => view! {
                                <ListingView listing=ir source_line_spans=pointer_line linked=linked label="IR"/>
                            }.into_any(),
                        }}
                    </div>
                </section>
            </div>
        </div>
    }
}
