//! The occupancy calculator the docs embed (```` ```occupancy ```` in a page): a CTA's
//! threads, shared memory and registers per thread on a target, changed by the reader, and
//! the CTAs and warps an SM holds under each limit (`compiler_core::occupancy`, the one place
//! with the targets' limits), and occupancy against each of the three (`charts`).

use compiler_core::occupancy::occupancy;
use compiler_core::ptx::Arch;
use docs_build::OccupancyStart;
use leptos::prelude::*;

#[component]
pub fn OccupancyCalculator(start: OccupancyStart) -> impl IntoView {
    let arch = RwSignal::new(start.arch.parse::<Arch>().unwrap_or(Arch::Sm80));
    let threads = RwSignal::new(start.threads);
    let shared = RwSignal::new(start.shared);
    let registers = RwSignal::new(start.registers);
    let result = move || occupancy(arch.get(), threads.get(), shared.get(), registers.get());
    let number = move |label: &'static str,
                       testid: &'static str,
                       max: u64,
                       step: u64,
                       value: Signal<u64>,
                       set: Callback<u64>| {
        view! {
            <label class="field small">
                <span>{label}</span>
                <input type="number" min="0" max=max step=step data-testid=testid
                    prop:value=move || value.get().to_string()
                    on:input=move |ev| {
                        if let Ok(n) = event_target_value(&ev).trim().parse::<u64>() {
                            set.run(n.min(max));
                        }
                    }/>
            </label>
        }
    };
    view! {
        <figure class="occupancy-calculator" data-testid="occupancy-calculator">
            <div class="occupancy-inputs">
                <label class="field small">
                    <span>"target"</span>
                    <select data-testid="calc-arch" on:change=move |ev| {
                        if let Ok(a) = event_target_value(&ev).parse::<Arch>() { arch.set(a) }
                    }>
                        {Arch::ALL.into_iter().map(|a| view! {
                            <option value=a.name() selected=move || arch.get() == a>{a.name()}</option>
                        }).collect_view()}
                    </select>
                </label>
                {number("threads per CTA", "calc-threads", 1024, 32, Signal::derive(move || u64::from(threads.get())), Callback::new(move |n: u64| threads.set(n as u32)))}
                {number("shared memory per CTA (bytes)", "calc-shared", 49152, 1024, Signal::derive(move || shared.get()), Callback::new(move |n: u64| shared.set(n)))}
                {number("registers per thread", "calc-registers", 255, 8, Signal::derive(move || u64::from(registers.get())), Callback::new(move |n: u64| registers.set(n as u32)))}
            </div>
            <p class="occupancy-result" aria-live="polite" data-testid="calc-result">{move || match result() {
                Ok(o) => o.summary(),
                Err(why) => format!("Cannot run: {why}."),
            }}</p>
            {move || result().ok().map(|o| view! {
                <table class="values occupancy-table" data-testid="calc-table">
                    <thead><tr><th scope="col">"limit"</th><th scope="col">"CTAs per SM"</th></tr></thead>
                    <tbody>
                        {o.rows().into_iter().map(|(limit, shown, binds)| view! {
                            <tr class:binds=binds>
                                <th scope="row">{limit.name()}</th>
                                <td>{shown}{binds.then_some(" (binds)")}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            })}
            <div inner_html=move || charts::occupancy_curves(arch.get(), threads.get(), shared.get(), registers.get())></div>
        </figure>
    }
}
