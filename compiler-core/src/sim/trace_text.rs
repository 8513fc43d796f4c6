//! A trace in words: one step's summary (what the playground announces to a screen reader)
//! and a whole trace as `tessera run --trace` prints it, for one warp or every warp.
//!
//! In: a [`Trace`], its kernel and source. Out: text. Lanes are listed in order, `·` for a
//! lane that did not take part in what the line shows; lanes that hold no thread are left out.

use super::arith::butterfly;
use super::trace::*;
use super::*;
use crate::span::LineIndex;
use std::fmt::Write as _;

impl Trace {
    /// The lanes of warp `warp` that hold a thread.
    pub fn lanes_in_warp(&self, warp: u32) -> u32 {
        self.threads
            .saturating_sub(warp * self.lanes)
            .min(self.lanes)
    }

    /// "step 12 of 40, line 7, 16 of 32 lanes active, mask 0x0000ffff" (and how many lanes
    /// have returned, when some have), for warp `warp` at step `step` on source line `line`.
    pub fn announce(&self, step: usize, warp: u32, line: usize) -> String {
        let Some(s) = self.steps.get(step) else {
            return format!("no step {}", step + 1);
        };
        let mask = s.active.in_warp(warp, self.lanes);
        let exited = s.exited.in_warp(warp, self.lanes).count();
        let mut text = format!(
            "step {} of {}, line {line}, {} of {} lanes active, mask {mask}",
            step + 1,
            self.steps.len(),
            mask.count(),
            self.lanes,
        );
        if exited > 0 {
            let _ = write!(text, ", {exited} exited");
        }
        text
    }

    /// The trace as data, `tessera run --trace --json` prints it (and Python's `Module.trace`
    /// gives it): its fields, each step with its source line (from 1) besides.
    pub fn to_json(&self, source: &str) -> serde_json::Value {
        let lines = LineIndex::new(source);
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(steps) = value.get_mut("steps").and_then(|s| s.as_array_mut()) {
            for (step, json) in self.steps.iter().zip(steps) {
                if let Some(object) = json.as_object_mut() {
                    let line = lines.line_of(step.statement.start) + 1;
                    object.insert("line".into(), line.into());
                }
            }
        }
        value
    }

    /// The whole trace in words: warp `warp`'s lanes, or every warp's.
    pub fn to_text(&self, kernel: &Kernel, source: &str, warp: Option<u32>) -> String {
        let lines = LineIndex::new(source);
        let warps: Vec<u32> = match warp {
            Some(w) => vec![w],
            None => (0..self.warps()).collect(),
        };
        let b = self.block;
        let mut out = format!(
            "trace of block ({}, {}, {}), {}: {} steps\n",
            b.x,
            b.y,
            b.z,
            match warp {
                Some(w) => format!("warp {w} of {}", self.warps()),
                None => format!("{} warps of {} lanes", self.warps(), self.lanes),
            },
            self.steps.len()
        );
        for (i, step) in self.steps.iter().enumerate() {
            let line = lines.line_of(step.statement.start) + 1;
            let statement = step.statement.first_line(source);
            let heading = match warp {
                Some(w) => self.announce(i, w, line),
                None => format!(
                    "step {} of {}, line {line}, {} of {} threads active",
                    i + 1,
                    self.steps.len(),
                    step.active.count(),
                    self.threads
                ),
            };
            let _ = writeln!(out, "{heading}: {statement}");
            for &w in &warps {
                let mask = step.active.in_warp(w, self.lanes);
                if mask.count() == 0 {
                    continue;
                }
                let indent = if warp.is_some() {
                    "  "
                } else {
                    let _ = writeln!(out, "  warp {w}: mask {mask}");
                    "    "
                };
                let details = self.variable_lines(step, w);
                for detail in details.iter().chain(&self.effects(kernel, i, w)) {
                    let _ = writeln!(out, "{indent}{detail}");
                }
            }
            if let Some(barrier) = &step.barrier {
                let _ = writeln!(out, "  {}", describe_barrier(barrier));
            }
        }
        if let Some(why) = &self.incomplete {
            let _ = writeln!(out, "{why}");
        }
        out
    }

    /// The values written at step `step` by warp `warp`'s lanes, one line per variable.
    fn variable_lines(&self, step: &Step, warp: u32) -> Vec<String> {
        first_seen(step.writes.iter().map(|w| w.variable))
            .into_iter()
            .map(|v| {
                let variable = &self.variables[v as usize];
                let values = self.by_lane(
                    warp,
                    step.writes
                        .iter()
                        .filter(|w| w.variable == v)
                        .map(|w| (w.thread, variable.show(w.bits))),
                );
                format!("{} = {values}", variable.name)
            })
            .collect()
    }

    /// What warp `warp`'s lanes read, wrote and exchanged at step `step`, one line each:
    /// "reads X[0 1 2 …]", "shuffle_xor takes from lanes: 1 0 3 2 …".
    pub fn effects(&self, kernel: &Kernel, step: usize, warp: u32) -> Vec<String> {
        let Some(step) = self.steps.get(step) else {
            return Vec::new();
        };
        let mut lines = self.memory_lines(kernel, step, warp);
        lines.extend(
            step.exchanges
                .iter()
                .map(|exchange| self.exchange_line(exchange, warp)),
        );
        lines
    }

    /// What step `step` says of memory when it reads and writes no tensor or tile: that it
    /// touches none, or that its collective over the CTA meets in shared memory all the same.
    pub fn without_memory(&self, step: usize) -> String {
        let over_cta = self.steps.get(step).and_then(|s| {
            s.exchanges.iter().find_map(|e| match e {
                Exchange::Reduce {
                    kind,
                    over: Over::Cta,
                    ..
                } => Some(format!("{kind:?}").to_lowercase()),
                _ => None,
            })
        });
        match over_cta {
            Some(name) => format!(
                "This step reads and writes no tensor or tile, but its {name} over the CTA goes \
                 through shared memory: lane 0 of each warp writes its warp's {name} to one \
                 word, and after a barrier every lane reads the {} words (the memory counts \
                 leave this traffic out).",
                self.warps()
            ),
            None => "This step reads and writes no memory.".to_owned(),
        }
    }

    /// Text for each lane of warp `warp` that holds a thread, from (thread, text) pairs: `·`
    /// where a lane has none.
    fn by_lane(&self, warp: u32, pairs: impl Iterator<Item = (u32, String)>) -> String {
        let first = warp * self.lanes;
        let mut cells = vec!["·".to_owned(); self.lanes_in_warp(warp) as usize];
        for (thread, text) in pairs {
            if let Some(cell) = thread
                .checked_sub(first)
                .and_then(|lane| cells.get_mut(lane as usize))
            {
                *cell = text;
            }
        }
        cells.join(" ")
    }

    fn memory_lines(&self, kernel: &Kernel, step: &Step, warp: u32) -> Vec<String> {
        let first = warp * self.lanes;
        let present = self.lanes_in_warp(warp);
        let mut lines = Vec::new();
        for (memory, write) in first_seen(step.accesses.iter().map(|a| (a.memory, a.write))) {
            let (name, shape) = match memory {
                Memory::Tensor(i) => (
                    kernel.params.get(i).map_or("?", |p| p.name()),
                    self.shapes.get(i).cloned().unwrap_or_default(),
                ),
                Memory::Shared(i) => kernel.shared.get(i).map_or(("?", Vec::new()), |a| {
                    (
                        a.name.as_str(),
                        a.shape.iter().map(|&n| n as usize).collect(),
                    )
                }),
                Memory::Partials => (PARTIALS, Vec::new()),
                Memory::Local(i) => (
                    kernel.locals.get(i).map_or("?", |a| a.name.as_str()),
                    Vec::new(),
                ),
            };
            let accesses: Vec<&MemoryAccess> = step
                .accesses
                .iter()
                .filter(|a| a.memory == memory && a.write == write)
                .filter(|a| (first..first + present).contains(&a.thread))
                .collect();
            let verb = if write { "writes" } else { "reads" };
            let mut seen = vec![false; present as usize];
            let one_each = accesses
                .iter()
                .all(|a| !std::mem::replace(&mut seen[(a.thread - first) as usize], true));
            if accesses.is_empty() {
                continue;
            } else if let [only] = accesses.as_slice() {
                // One lane: said as such, not as a row of `·` after one element's coordinates
                // (`writes C[0,3 · · · …]` read as one index).
                let at = coordinates(only.element, &shape).replace(',', ", ");
                lines.push(format!("lane {} {verb} {name}[{at}]", only.thread - first));
            } else if one_each {
                let elements = self.by_lane(
                    warp,
                    accesses
                        .iter()
                        .map(|a| (a.thread, coordinates(a.element, &shape))),
                );
                lines.push(format!("{verb} {name}[{elements}]"));
            } else {
                lines.push(format!("{verb} {} elements of {name}", accesses.len()));
            }
        }
        lines
    }

    fn exchange_line(&self, exchange: &Exchange, warp: u32) -> String {
        let values = |ty: &Scalar, inputs: &[(u32, u32)]| {
            self.by_lane(warp, inputs.iter().map(|&(t, bits)| (t, ty.show(bits))))
        };
        match exchange {
            Exchange::Shuffle { kind, sources } => {
                let lanes = self.by_lane(
                    warp,
                    sources.iter().map(|&(to, from)| {
                        let text = if from == to {
                            "own".to_owned()
                        } else {
                            (from % self.lanes).to_string()
                        };
                        (to, text)
                    }),
                );
                format!("{} takes from lanes: {lanes}", shuffle_name(*kind))
            }
            Exchange::Vote { kind, ayes } => format!(
                "{} ayes: {}",
                format!("{kind:?}").to_lowercase(),
                ayes.in_warp(warp, self.lanes)
            ),
            Exchange::Reduce {
                kind,
                over: Over::Warp,
                ty,
                inputs,
            } => format!(
                "{} over the warp of: {}",
                format!("{kind:?}").to_lowercase(),
                values(ty, inputs)
            ),
            Exchange::Reduce {
                kind,
                over: Over::Cta,
                ty,
                inputs,
            } => {
                // This warp's lanes are one part: each warp's result, as the simulator
                // combines them, and the CTA's.
                let name = format!("{kind:?}").to_lowercase();
                let lanes = self.lanes.max(1);
                let partials: Vec<(u32, u32)> = (0..self.warps())
                    .filter_map(|w| {
                        let mut of_warp: Vec<u32> = inputs
                            .iter()
                            .filter(|&&(t, _)| t / lanes == w)
                            .map(|&(_, bits)| bits)
                            .collect();
                        (!of_warp.is_empty())
                            .then(|| (w, butterfly(*kind, *ty, &mut of_warp, lanes as usize)))
                    })
                    .collect();
                let total = butterfly(*kind, *ty, &mut partials.iter().map(|p| p.1).collect(), 1);
                let each: Vec<String> = partials
                    .iter()
                    .map(|&(w, bits)| format!("warp {w}: {}", ty.show(bits)))
                    .collect();
                format!(
                    "{name} over the CTA, this warp's lanes: {}; each warp's {name}, met in \
                     shared memory: {}; the CTA's: {}",
                    values(ty, inputs),
                    each.join(", "),
                    ty.show(total)
                )
            }
            Exchange::Scan { ty, inputs } => format!("prefix_sum of: {}", values(ty, inputs)),
            Exchange::Atomic {
                op,
                ty,
                elements,
                inputs,
                ..
            } => format!(
                "{} of: {}; {}",
                op.name(),
                values(ty, inputs),
                self.contention(elements, warp)
            ),
        }
    }

    /// Which of warp `warp`'s lanes met on one element of an atomic: they take turns there.
    fn contention(&self, elements: &[(u32, u32)], warp: u32) -> String {
        let first = warp * self.lanes;
        let mut shared: Vec<(u32, Vec<u32>)> = Vec::new();
        for &(thread, element) in elements {
            let Some(lane) = thread.checked_sub(first).filter(|&l| l < self.lanes) else {
                continue;
            };
            match shared.iter_mut().find(|(e, _)| *e == element) {
                Some((_, lanes)) => lanes.push(lane),
                None => shared.push((element, vec![lane])),
            }
        }
        shared.retain(|(_, lanes)| lanes.len() > 1);
        if shared.is_empty() {
            return "each lane on its own element".to_owned();
        }
        let most = shared.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
        let groups: Vec<String> = shared
            .iter()
            .map(|(_, lanes)| {
                let lanes: Vec<String> = lanes.iter().map(u32::to_string).collect();
                format!("lanes {}", lanes.join(" "))
            })
            .collect();
        format!(
            "{} on one element (up to {most} in turn): {}",
            if shared.len() == 1 {
                "these lanes met"
            } else {
                "lanes met"
            },
            groups.join("; ")
        )
    }
}

/// Each distinct item, in the order of its first appearance.
fn first_seen<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// `shuffle_xor`: the name a kernel calls it by.
pub fn shuffle_name(kind: Shuffle) -> &'static str {
    match kind {
        Shuffle::Index => "shuffle",
        Shuffle::Xor => "shuffle_xor",
        Shuffle::Up => "shuffle_up",
        Shuffle::Down => "shuffle_down",
        Shuffle::Broadcast => "broadcast",
    }
}

/// "barrier: warps 0, 1 arrived; warp 2 finished".
pub fn describe_barrier(barrier: &Barrier) -> String {
    let list = |warps: &[u32], what: &str| {
        let names: Vec<String> = warps.iter().map(u32::to_string).collect();
        match warps.len() {
            0 => None,
            1 => Some(format!("warp {} {what}", names[0])),
            _ => Some(format!("warps {} {what}", names.join(", "))),
        }
    };
    let parts: Vec<String> = [
        list(&barrier.arrived, "arrived"),
        list(&barrier.finished, "finished"),
        list(&barrier.missing, "never arrived"),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!("barrier: {}", parts.join("; "))
}

/// Row-major element `element` of `shape` as coordinates: "5" or "1,2".
fn coordinates(element: u32, shape: &[usize]) -> String {
    let mut rest = element as usize;
    let mut parts: Vec<String> = shape
        .iter()
        .rev()
        .map(|&extent| {
            let c = rest % extent.max(1);
            rest /= extent.max(1);
            c.to_string()
        })
        .collect();
    parts.reverse();
    if parts.is_empty() {
        element.to_string()
    } else {
        parts.join(",")
    }
}
