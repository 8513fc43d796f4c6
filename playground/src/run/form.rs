//! The launch form: the same [`Launch`] the CLI and the share links use, field by field, for
//! the kernel the source has now (or, while the source has errors, the last one it had).
//!
//! The launch is checked as it is edited (`Launch::problems`, with a tab's limits): each
//! problem shows under the field it concerns, which is marked `aria-invalid` and described by
//! it, so a launch problem never lands among the source's diagnostics.

use compiler_core::ir::{Kernel, Param};
use compiler_core::launch::{Input, Launch, LaunchField, LaunchProblem};
use compiler_core::wgsl::WarpMode;
use compiler_core::RunLimits;
use leptos::prelude::*;
use std::rc::Rc;

/// The message of the first problem at `field`.
fn problem_at(
    problems: Signal<Vec<LaunchProblem>, LocalStorage>,
    field: LaunchField,
) -> Signal<Option<String>, LocalStorage> {
    Signal::derive_local(move || {
        problems.with(|all| {
            all.iter()
                .find(|p| p.field == field)
                .map(|p| match &p.help {
                    Some(help) => format!("{} ({help})", p.message),
                    None => p.message.clone(),
                })
        })
    })
}

/// The ids that describe a field's control: its problem (when it has one) and its note.
fn described_by(
    testid: &str,
    problem: Signal<Option<String>, LocalStorage>,
    has_note: bool,
) -> impl Fn() -> Option<String> + Clone + Send + Sync + 'static {
    let (problem_id, note_id) = (format!("problem-{testid}"), format!("note-{testid}"));
    move || {
        let mut ids = Vec::new();
        if problem.with(Option::is_some) {
            ids.push(problem_id.clone());
        }
        if has_note {
            ids.push(note_id.clone());
        }
        (!ids.is_empty()).then(|| ids.join(" "))
    }
}

/// One field of the form: a label over its control, and under it the problem the launch has
/// there.
fn field(
    label: String,
    testid: &str,
    control: AnyView,
    problem: Signal<Option<String>, LocalStorage>,
) -> impl IntoView {
    let problem_id = format!("problem-{testid}");
    view! {
        <label class="field" class:invalid=move || problem.with(Option::is_some)>
            <span>{label}</span>
            {control}
            {move || problem.get().map(|text| view! {
                <span class="field-problem" id=problem_id.clone() data-testid=problem_id.clone()>{text}</span>
            })}
        </label>
    }
}

/// A number field's control: whole numbers, or with `Kind::Decimal` any number. The form does
/// its own checks (`novalidate`: the browser's would refuse a fraction, and with it the form's
/// Run, without a word): a field given what it cannot take (a fraction where a whole number
/// goes, a negative count, nothing where a number is needed; [`refusal`]) says so under it
/// (`typed`), keeps the launch's value, and Run refuses to run until it is fixed
/// ([`UnreadFields`]).
fn number_input(
    testid: &str,
    value: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(String) + 'static,
    (problem, typed): (
        Signal<Option<String>, LocalStorage>,
        RwSignal<Option<String>, LocalStorage>,
    ),
    placeholder: Option<String>,
    (has_note, kind): (bool, Kind),
) -> AnyView {
    let decimal = kind == Kind::Decimal;
    let may_be_empty = placeholder.is_some();
    let on_change = move |text: String| {
        let refused = refusal(text.trim(), kind, may_be_empty);
        let taken = refused.is_none();
        typed.set(refused);
        if taken {
            set(text);
        }
    };
    view! {
        <input
            type="number"
            inputmode=if decimal { "decimal" } else { "numeric" }
            step=decimal.then_some("any")
            data-testid=testid.to_owned()
            class:wide=kind == Kind::Wide
            prop:value=value
            placeholder=placeholder
            aria-invalid=move || problem.with(Option::is_some).to_string()
            aria-describedby=described_by(testid, problem, has_note)
            on:change=move |ev| on_change(event_target_value(&ev))
        />
    }
    .into_any()
}

/// The fields whose text the launch did not take (a fraction in a whole-number field): the
/// field's label and the problem, shared by [`LaunchPanel`]'s fields with whoever runs.
#[derive(Clone, Copy)]
pub struct UnreadFields(pub RwSignal<Vec<(String, String)>, LocalStorage>);

/// What a number field takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A whole number of either sign (a dimension, an integer scalar).
    Whole,
    /// A whole number below 2^53 in magnitude, which a launch's number carries exactly (a
    /// 64-bit scalar): a wider field.
    Wide,
    /// Any number (a float scalar).
    Decimal,
    /// A whole number from 0 to the bound (a grid axis, the lanes, the nodes, a seed, a step
    /// limit).
    Count(u64),
}

/// Why a field of `kind` cannot take `text` (trimmed), if it cannot: the launch would keep its
/// old value while the field showed the new text. Empty text is taken only by a field whose
/// placeholder says what empty means.
fn refusal(text: &str, kind: Kind, may_be_empty: bool) -> Option<String> {
    if text.is_empty() {
        return (!may_be_empty).then(|| "a number is needed here".to_owned());
    }
    if kind == Kind::Decimal {
        return None;
    }
    let Ok(n) = text.parse::<i128>() else {
        return Some(format!("{text} is not a whole number"));
    };
    match kind {
        Kind::Count(max) if !(0..=i128::from(max)).contains(&n) => {
            let what = if n < 0 { "negative" } else { "too large" };
            Some(format!("{text} is {what}: this field takes 0 to {max}"))
        }
        Kind::Whole if i64::try_from(n).is_err() => Some(format!("{text} is too large")),
        Kind::Wide if n.abs() >= 1 << 53 => Some(format!(
            "{text} is too large: a launch carries up to 2^53 - 1 exactly; write a larger constant in the kernel"
        )),
        _ => None,
    }
}

/// A number field of the launch: its label, its control, and under it the problem with what
/// was typed, else the launch's problem with the field.
fn number_field(
    label: String,
    testid: &str,
    value: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(String) + 'static,
    problem: Signal<Option<String>, LocalStorage>,
    kind: Kind,
) -> impl IntoView {
    number_field_with(label, testid, value, set, problem, (None, false, kind))
}

/// [`number_field`] with a placeholder, and a note under it (`note-{testid}`) when `has_note`.
fn number_field_with(
    label: String,
    testid: &str,
    value: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(String) + 'static,
    problem: Signal<Option<String>, LocalStorage>,
    (placeholder, has_note, kind): (Option<String>, bool, Kind),
) -> impl IntoView {
    let typed = RwSignal::new_local(None::<String>);
    let shown = Signal::derive_local(move || typed.get().or_else(|| problem.get()));
    // The form's Run refuses to run while a field holds text the launch did not take.
    if let Some(UnreadFields(unread)) = use_context::<UnreadFields>() {
        let (label, gone) = (label.clone(), label.clone());
        Effect::new(move |_| {
            let problem = typed.get();
            unread.update(|u| {
                u.retain(|(l, _)| *l != label);
                u.extend(problem.map(|p| (label.clone(), p)));
            });
        });
        on_cleanup(move || {
            unread.try_update(|u| u.retain(|(l, _)| *l != gone));
        });
    }
    // What was typed is forgotten once the launch's value changes some other way (an example
    // loaded, a link opened): its problem would be stale.
    let value = Memo::new(move |_| value());
    Effect::new(move |seen: Option<()>| {
        value.track();
        if seen.is_some() {
            typed.set(None);
        }
    });
    let control = number_input(
        testid,
        move || value.get(),
        set,
        (shown, typed),
        placeholder,
        (has_note, kind),
    );
    field(label, testid, control, shown)
}

fn parse_count(text: &str) -> Option<u32> {
    text.trim().parse::<u32>().ok()
}

/// A tensor's input: the generator, a seed for `rand`, and what it fills the tensor with.
fn input_field(
    launch: RwSignal<Launch>,
    name: String,
    problem: Signal<Option<String>, LocalStorage>,
) -> impl IntoView {
    let current = {
        let name = name.clone();
        move || launch.with(|l| l.inputs.get(&name).cloned().unwrap_or(Input::Zeros))
    };
    let kind = {
        let current = current.clone();
        move || match current() {
            Input::Rand(_) => "rand".to_owned(),
            Input::Data { .. } | Input::Bits { .. } => "data".to_owned(),
            other => other.to_string(),
        }
    };
    let note = Signal::derive_local({
        let current = current.clone();
        move || current().describe()
    });
    // Memos: a field is rebuilt only when it comes or goes, never because another field of
    // the launch changed (the reader may be clicking into it).
    let seed = Memo::new({
        let current = current.clone();
        move |_| match current() {
            Input::Rand(seed) => Some(seed),
            _ => None,
        }
    });
    let has_seed = Memo::new(move |_| seed.with(Option::is_some));
    let testid = format!("input-{name}");
    let label = name.clone();
    // Read in its own closure: a read here would make the form's parameters, which build this
    // field, depend on the whole launch, and rebuild every field (the focus a click gave the
    // seed field lost, the typing dropped) when another field commits (issue 68).
    let has_data = {
        let kind = kind.clone();
        move || kind() == "data"
    };
    let select = {
        let name = name.clone();
        view! {
            <select
                data-testid=testid.clone()
                prop:value=kind
                aria-invalid=move || problem.with(Option::is_some).to_string()
                aria-describedby=described_by(&testid, problem, true)
                on:change=move |ev| {
                    let input = match event_target_value(&ev).as_str() {
                        "rand" => Some(Input::Rand(1)),
                        "data" => None,
                        text => text.parse::<Input>().ok(),
                    };
                    if let Some(input) = input {
                        launch.update(|l| {
                            l.inputs.insert(name.clone(), input);
                        });
                    }
                }
            >
                <option value="zeros">"zeros"</option>
                <option value="ones">"ones"</option>
                <option value="iota">"iota"</option>
                <option value="rand">"random"</option>
                {move || has_data().then(|| view! { <option value="data">"data"</option> })}
            </select>
        }
        .into_any()
    };
    let seed_field = move || {
        has_seed.get().then(|| {
            let name = name.clone();
            let testid = format!("seed-{name}");
            let put = name.clone();
            number_field(
                format!("{name} seed"),
                &testid,
                move || seed.get().map(|s| s.to_string()).unwrap_or_default(),
                move |text| {
                    if let Ok(s) = text.trim().parse::<u64>() {
                        launch.update(|l| {
                            l.inputs.insert(put.clone(), Input::Rand(s));
                        });
                    }
                },
                Signal::derive_local(|| None),
                Kind::Count(u64::MAX),
            )
        })
    };
    view! {
        <div class="field-row">
            {field(label, &testid, select, problem)}
            {seed_field}
            {field_note(&testid, note)}
        </div>
    }
}

/// A field's note, beside the field in a `field-row` rather than under it (the form stays a
/// few lines high); the field's control names it in `aria-describedby`.
fn field_note(testid: &str, note: Signal<String, LocalStorage>) -> impl IntoView {
    view! { <span class="field-note" id=format!("note-{testid}")>{note}</span> }
}

/// The launch form for the kernel.
#[component]
pub fn LaunchPanel(
    launch: RwSignal<Launch>,
    warp_mode: RwSignal<Option<WarpMode>>,
    #[prop(into)] kernel: Signal<Option<Rc<Kernel>>, LocalStorage>,
    #[prop(into)] kernel_names: Signal<Vec<String>>,
    /// Those of `kernel_names` that are programs: their grids are their own.
    #[prop(into)]
    program_names: Signal<Vec<String>>,
    #[prop(into)] problems: Signal<Vec<LaunchProblem>, LocalStorage>,
    /// Filled by the fields with what they could not take.
    unread: UnreadFields,
    on_run: Callback<()>,
    /// The source has errors now: the form is of the last kernel that compiled, and says so.
    #[prop(into)]
    outdated: Signal<bool, LocalStorage>,
) -> impl IntoView {
    provide_context(unread);
    let none = Signal::derive_local(|| None::<String>);
    let grid_problem = problem_at(problems, LaunchField::Grid);
    let axis = move |which: usize| {
        let set = move |text: String| {
            if let Some(n) = parse_count(&text) {
                launch.update(|l| match which {
                    0 => l.grid.x = n,
                    1 => l.grid.y = n,
                    _ => l.grid.z = n,
                });
            }
        };
        // The grid's problem shows under the axis that is 0.
        let problem = Signal::derive_local(move || {
            let first_zero =
                launch.with(|l| [l.grid.x, l.grid.y, l.grid.z].iter().position(|&n| n == 0));
            grid_problem.get().filter(|_| first_zero == Some(which))
        });
        let name = ["x", "y", "z"][which];
        number_field(
            format!("grid.{name}"),
            &format!("grid-{name}"),
            move || {
                launch
                    .with(|l| [l.grid.x, l.grid.y, l.grid.z][which])
                    .to_string()
            },
            set,
            problem,
            Kind::Count(u32::MAX.into()),
        )
    };
    let parameters = move || {
        let Some(kernel) = kernel.get() else {
            return view! {
                <p class="hint">"Write a kernel that compiles to see its parameters."</p>
            }
            .into_any();
        };
        // A derived extent (`N / 2`) is computed by the launch: only named dimensions are set.
        let dim_fields = kernel
            .given_dims()
            .map(|(_, name)| {
                let (get, put) = (name.clone(), name.clone());
                number_field(
                    name.clone(),
                    &format!("dim-{name}"),
                    move || {
                        launch.with(|l| l.dims.get(&get).map(i64::to_string).unwrap_or_default())
                    },
                    move |text| {
                        if let Ok(v) = text.trim().parse::<i64>() {
                            launch.update(|l| {
                                l.dims.insert(put.clone(), v);
                            });
                        }
                    },
                    problem_at(problems, LaunchField::Dim(name.clone())),
                    Kind::Whole,
                )
                .into_any()
            })
            .collect_view();
        let param_fields = kernel
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar { name, ty } => {
                    let (get, put) = (name.clone(), name.clone());
                    number_field(
                        format!("{name}: {}", ty.name()),
                        &format!("scalar-{name}"),
                        move || {
                            launch.with(|l| {
                                l.scalars.get(&get).map(f64::to_string).unwrap_or_default()
                            })
                        },
                        move |text| {
                            if let Ok(v) = text.trim().parse::<f64>() {
                                launch.update(|l| {
                                    l.scalars.insert(put.clone(), v);
                                });
                            }
                        },
                        problem_at(problems, LaunchField::Scalar(name.clone())),
                        if ty.is_float() {
                            Kind::Decimal
                        } else if ty.is_wide() {
                            Kind::Wide
                        } else {
                            Kind::Whole
                        },
                    )
                    .into_any()
                }
                Param::Tensor { name, .. } => {
                    let problem = problem_at(problems, LaunchField::Input(name.clone()));
                    input_field(launch, name.clone(), problem).into_any()
                }
            })
            .collect_view();
        let default_steps = RunLimits::PAGE.step_limit(kernel.threads);
        let steps_note = Signal::derive_local(move || {
            format!(
                "statements per CTA; empty: {default_steps}, for a CTA of {} threads",
                kernel.threads
            )
        });
        let steps = number_field_with(
            "step limit".into(),
            "step-limit",
            move || launch.with(|l| l.step_limit.map(|s| s.to_string()).unwrap_or_default()),
            move |text| {
                let limit = text.trim().parse::<u64>().ok().filter(|&n| n > 0);
                launch.update(|l| l.step_limit = limit);
            },
            none,
            (Some(default_steps.to_string()), true, Kind::Count(u64::MAX)),
        );
        let steps = view! {
            <div class="field-row">{steps}{field_note("step-limit", steps_note)}</div>
        };
        let size = problem_at(problems, LaunchField::Size);
        view! {
            <fieldset>
                <legend>"Parameters"</legend>
                {dim_fields}
                {param_fields}
                {steps}
                {move || size.get().map(|text| view! {
                    <p class="field-problem" data-testid="problem-size">{text}</p>
                })}
            </fieldset>
        }
        .into_any()
    };
    let lanes_problem = problem_at(problems, LaunchField::Lanes);
    // A memo: the grid's fields are rebuilt only when the kernel becomes a program or stops
    // being one, not on every edit of the launch.
    let is_program = Memo::new(move |_| {
        let names = program_names.get();
        launch.with(|l| match &l.kernel {
            Some(name) => names.contains(name),
            None => names.len() == 1,
        })
    });
    view! {
        <form class="launch-panel" class:outdated=move || outdated.get() aria-label="Launch" novalidate=true on:submit=move |ev| { ev.prevent_default(); on_run.run(()); }>
            {move || outdated.get().then(|| view! {
                <p class="hint outdated-note" data-testid="launch-outdated">"The source has errors: this is the launch of the last kernel that compiled, which Run runs until they are fixed."</p>
            })}
            {move || (kernel_names.get().len() > 1).then(|| view! {
                <label class="field">
                    <span>"kernel"</span>
                    <select data-testid="kernel" on:change=move |ev| {
                        let name = event_target_value(&ev);
                        launch.update(|l| l.kernel = Some(name));
                    }>
                        {kernel_names.get().into_iter().map(|n| {
                            let picked = n.clone();
                            let selected = move || launch.with(|l| l.kernel.as_deref() == Some(picked.as_str()));
                            let text = match program_names.with(|p| p.contains(&n)) {
                                true => format!("program {n}"),
                                false => n.clone(),
                            };
                            view! { <option value=n.clone() prop:selected=selected>{text}</option> }
                        }).collect_view()}
                    </select>
                </label>
            })}
            <fieldset>
                <legend>"Grid and warps"</legend>
                {move || match is_program.get() {
                    true => view! {
                        <p class="hint" data-testid="program-grids">
                            "A program computes each launch's grid from its dimensions."
                        </p>
                    }.into_any(),
                    false => view! { {axis(0)}{axis(1)}{axis(2)} }.into_any(),
                }}
                {number_field(
                    "ctx.lanes".into(),
                    "lanes",
                    move || launch.with(|l| l.lanes.to_string()),
                    move |text| if let Some(n) = parse_count(&text) { launch.update(|l| l.lanes = n) },
                    lanes_problem,
                    Kind::Count(u32::MAX.into()),
                )}
                {move || kernel.get().is_some_and(|k| k.cluster.is_some()).then(|| number_field(
                    "@cluster nodes".into(),
                    "nodes",
                    move || launch.with(|l| l.nodes.to_string()),
                    move |text| if let Some(n) = parse_count(&text) { launch.update(|l| l.nodes = n.max(1)) },
                    none,
                    Kind::Count(u32::MAX.into()),
                ))}
                <label class="field">
                    <span>"warps on the GPU"</span>
                    <select data-testid="warp-mode" on:change=move |ev| {
                        warp_mode.set(match event_target_value(&ev).as_str() {
                            "subgroups" => Some(WarpMode::Subgroups),
                            "emulated" => Some(WarpMode::Emulated),
                            _ => None,
                        });
                    }>
                        <option value="auto" selected=move || warp_mode.get().is_none()>"automatic"</option>
                        <option value="subgroups" selected=move || warp_mode.get() == Some(WarpMode::Subgroups)>"the GPU's subgroups"</option>
                        <option value="emulated" selected=move || warp_mode.get() == Some(WarpMode::Emulated)>"emulated in workgroup memory"</option>
                    </select>
                </label>
            </fieldset>
            {parameters}
            <button type="submit" class="primary" data-testid="run">"Run"</button>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::{refusal, Kind};

    #[test]
    fn a_field_refuses_what_the_launch_would_not_take() {
        let count = Kind::Count(u64::from(u32::MAX));
        let cases = [
            ("3", count, false, None),
            ("0", count, false, None),
            (
                "-3",
                count,
                false,
                Some("-3 is negative: this field takes 0 to 4294967295"),
            ),
            (
                "4294967296",
                count,
                false,
                Some("4294967296 is too large: this field takes 0 to 4294967295"),
            ),
            ("2.5", count, false, Some("2.5 is not a whole number")),
            ("", count, false, Some("a number is needed here")),
            ("", Kind::Count(u64::MAX), true, None),
            ("-3", Kind::Whole, false, None),
            (
                "99999999999999999999",
                Kind::Whole,
                false,
                Some("99999999999999999999 is too large"),
            ),
            ("-0.5", Kind::Decimal, false, None),
            ("-9007199254740991", Kind::Wide, false, None),
            (
                "9007199254740993",
                Kind::Wide,
                false,
                Some("9007199254740993 is too large: a launch carries up to 2^53 - 1 exactly; write a larger constant in the kernel"),
            ),
        ];
        for (text, kind, may_be_empty, expected) in cases {
            assert_eq!(
                refusal(text, kind, may_be_empty).as_deref(),
                expected,
                "{text:?} in a {kind:?} field"
            );
        }
    }
}
