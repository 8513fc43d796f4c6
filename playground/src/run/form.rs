//! The launch form: the same [`Launch`] the CLI and the share links use, field by field, for
//! the kernel the source has now.

use compiler_core::ir::{Kernel, Param};
use compiler_core::launch::{Input, Launch};
use compiler_core::wgsl::WarpMode;
use leptos::prelude::*;
use std::rc::Rc;

fn number_input(
    label: String,
    testid: String,
    value: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(String) + 'static,
) -> impl IntoView {
    view! {
        <label class="field">
            <span>{label}</span>
            <input type="number" inputmode="numeric" data-testid=testid prop:value=value on:change=move |ev| set(event_target_value(&ev))/>
        </label>
    }
}

fn parse_count(text: &str) -> Option<u32> {
    text.trim().parse::<u32>().ok()
}

/// The launch form for the picked kernel.
#[component]
pub fn LaunchPanel(
    launch: RwSignal<Launch>,
    warp_mode: RwSignal<Option<WarpMode>>,
    #[prop(into)] kernel: Signal<Option<Rc<Kernel>>, LocalStorage>,
    #[prop(into)] kernel_names: Signal<Vec<String>>,
    on_run: Callback<()>,
) -> impl IntoView {
    let axis = |which: usize| {
        let value = move || {
            launch
                .with(|l| match which {
                    0 => l.grid.x,
                    1 => l.grid.y,
                    _ => l.grid.z,
                })
                .to_string()
        };
        let set = move |text: String| {
            if let Some(n) = parse_count(&text) {
                launch.update(|l| match which {
                    0 => l.grid.x = n,
                    1 => l.grid.y = n,
                    _ => l.grid.z = n,
                });
            }
        };
        number_input(
            format!("grid.{}", ["x", "y", "z"][which]),
            format!("grid-{}", ["x", "y", "z"][which]),
            value,
            set,
        )
    };
    let parameters = move || {
        let Some(kernel) = kernel.get() else {
            return ().into_any();
        };
        let dims = kernel.dims.clone();
        let dim_fields = dims
            .into_iter()
            .map(|name| {
                let key = name.clone();
                let key2 = name.clone();
                number_input(
                    name.clone(),
                    format!("dim-{name}"),
                    move || {
                        launch.with(|l| l.dims.get(&key).map(i64::to_string).unwrap_or_default())
                    },
                    move |text| {
                        if let Ok(v) = text.trim().parse::<i64>() {
                            launch.update(|l| {
                                l.dims.insert(key2.clone(), v);
                            });
                        }
                    },
                )
            })
            .collect_view();
        let param_fields = kernel
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar { name, .. } => {
                    let (key, key2) = (name.clone(), name.clone());
                    number_input(
                        name.clone(),
                        format!("scalar-{name}"),
                        move || launch.with(|l| l.scalars.get(&key).map(f64::to_string).unwrap_or_default()),
                        move |text| {
                            if let Ok(v) = text.trim().parse::<f64>() {
                                launch.update(|l| {
                                    l.scalars.insert(key2.clone(), v);
                                });
                            }
                        },
                    )
                    .into_any()
                }
                Param::Tensor { name, .. } => {
                    let (key, key2) = (name.clone(), name.clone());
                    let current = move || {
                        launch.with(|l| l.inputs.get(&key).cloned().unwrap_or(Input::Zeros).to_string())
                    };
                    let options_now = current.clone();
                    view! {
                        <label class="field">
                            <span>{name.clone()}</span>
                            <select
                                data-testid=format!("input-{name}")
                                prop:value=current
                                on:change=move |ev| {
                                    let text = event_target_value(&ev);
                                    let input = if text == "rand" { Ok(Input::Rand(1)) } else { text.parse::<Input>() };
                                    if let Ok(input) = input {
                                        launch.update(|l| { l.inputs.insert(key2.clone(), input); });
                                    }
                                }
                            >
                                {move || {
                                    let now = options_now();
                                    let mut options: Vec<String> = ["zeros", "ones", "iota"].map(str::to_owned).to_vec();
                                    if now.starts_with("rand:") || now.starts_with("data") { options.push(now.clone()); }
                                    if !now.starts_with("rand:") { options.push("rand:1".into()); }
                                    options.into_iter().map(|o| view! { <option value=o.clone() selected=o == now>{o.clone()}</option> }).collect_view()
                                }}
                            </select>
                        </label>
                    }
                    .into_any()
                }
            })
            .collect_view();
        view! {
            <fieldset>
                <legend>"Parameters"</legend>
                {dim_fields}
                {param_fields}
            </fieldset>
        }
        .into_any()
    };
    view! {
        <form class="launch-panel" aria-label="Launch" on:submit=move |ev| { ev.prevent_default(); on_run.run(()); }>
            {move || (kernel_names.get().len() > 1).then(|| view! {
                <label class="field">
                    <span>"kernel"</span>
                    <select data-testid="kernel" on:change=move |ev| {
                        let name = event_target_value(&ev);
                        launch.update(|l| l.kernel = Some(name));
                    }>
                        {kernel_names.get().into_iter().map(|n| {
                            let selected = launch.with(|l| l.kernel.as_deref() == Some(n.as_str()));
                            view! { <option value=n.clone() selected=selected>{n.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
            })}
            <fieldset>
                <legend>"Grid and warps"</legend>
                {axis(0)}{axis(1)}{axis(2)}
                {number_input(
                    "ctx.lanes".into(),
                    "lanes".into(),
                    move || launch.with(|l| l.lanes.to_string()),
                    move |text| if let Some(n) = parse_count(&text) { launch.update(|l| l.lanes = n) },
                )}
                {move || kernel.get().is_some_and(|k| k.cluster.is_some()).then(|| number_input(
                    "@cluster nodes".into(),
                    "nodes".into(),
                    move || launch.with(|l| l.nodes.to_string()),
                    move |text| if let Some(n) = parse_count(&text) { launch.update(|l| l.nodes = n) },
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
