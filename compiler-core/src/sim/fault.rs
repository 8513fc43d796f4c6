//! A run's faults: what stopped it, where, in which thread, and in which order of the CTAs,
//! with what a CTA stopped at its step limit was waiting for; the diagnostic each becomes.

use super::*;
use crate::diagnostic::FaultAt;

/// The order a run takes CTAs in. The spec gives CTAs none; grid order is the simulator's,
/// and a kernel whose CTAs can observe each other runs in reverse too, so a race or a wait
/// that one order hides is found (`PreparedRun`'s runs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CtaOrder {
    /// x fastest, then y, then z.
    #[default]
    Grid,
    /// The last CTA of grid order first.
    Reverse,
}

impl CtaOrder {
    /// How a report names the order, for a fault found in it.
    pub fn phrase(self) -> &'static str {
        match self {
            CtaOrder::Grid => "in grid order",
            CtaOrder::Reverse => "in reverse grid order, the last first",
        }
    }
}

/// A run-time fault: what went wrong, where in the source, and which thread did it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub code: Code,
    pub message: String,
    pub span: Span,
    pub block: Dim3,
    pub thread: u32,
    pub warp: u32,
    pub lane: u32,
    /// The order the CTAs ran in when this fault was found.
    pub order: CtaOrder,
    /// For a CTA stopped at the step limit while it polled one tensor element by an atomic
    /// and found it unchanged: that element (parameter, index), and the CTA that changes it,
    /// once a run in the other order has found it.
    pub waits: Option<Box<Waits>>,
}

/// The message of a run the host stopped ([`crate::sim::Observers::stop`]).
pub const INTERRUPTED: &str = "the run was interrupted";

/// What a CTA stopped at the step limit was waiting for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waits {
    pub tensor: usize,
    pub element: usize,
    /// The element as the source writes it, `Flag[1]`.
    pub name: String,
    /// The CTA that changes the element, when a run in the other order found one.
    pub changed_by: Option<Dim3>,
}

impl Fault {
    /// The fault as a diagnostic, with the thread in its label.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let at = |b: Dim3| format!("({}, {}, {})", b.x, b.y, b.z);
        let mut message = match &self.waits {
            Some(waits) => {
                let me = at(self.block);
                match waits.changed_by {
                    Some(other) => format!(
                        "CTA {me} waits for CTA {}, which changes {name}; CTAs have no forward-progress guarantee, so a CTA that waits for another may wait for ever (it polled {name} until its step limit)",
                        at(other),
                        name = waits.name
                    ),
                    // No run in the other order changed it either: the writer is in this CTA
                    // (another warp, which lockstep never lets past the loop) or nowhere.
                    None => format!(
                        "CTA {me} waits for {name} to change, and nothing changed it: a thread that waits for another (in another CTA, which may not be running, or in another warp of its own CTA) may wait for ever (it polled {name} until its step limit)",
                        name = waits.name
                    ),
                }
            }
            None => self.message.clone(),
        };
        if self.order != CtaOrder::Grid {
            message = format!(
                "{message} (found with the CTAs run {}: CTAs may run in any order)",
                self.order.phrase()
            );
        }
        let mut diagnostic = Diagnostic::error(self.code, self.span, message).with_label(format!(
            "in block {}, warp {}, lane {}, thread {}",
            at(self.block),
            self.warp,
            self.lane,
            self.thread
        ));
        diagnostic.fault_at = Some(Box::new(FaultAt {
            launch: 0,
            block: self.block,
            warp: self.warp,
        }));
        match self.code {
            Code::E0514 if self.waits.is_some() => diagnostic.with_help(
                "wait for another CTA only between launches (split the kernel where it waits into two launches of a program), and for another warp of the CTA only at barrier()",
            ),
            Code::E0514 => diagnostic.with_help(
                "a loop that never ends needs an end; a kernel that is only long needs a larger limit (`tessera run --step-limit N`)",
            ),
            _ => diagnostic,
        }
    }
}
