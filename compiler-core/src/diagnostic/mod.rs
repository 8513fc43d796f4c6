//! Diagnostics as data, and the one place that renders them.
//!
//! In: what a phase found wrong, as [`Diagnostic`] values (a code, a message, a primary span,
//! labelled secondary spans, help). Out: terminal text ([`render`]) and a structured form for
//! the playground ([`Structured`]). Invariant: no phase formats a diagnostic for display; they
//! build data and the renderers here turn it into text.

mod codes;
mod render;

pub use codes::{Code, Phase};
pub use render::{render, render_all, Structured, StructuredLabel};

use crate::hierarchy::Dim3;
use crate::span::Span;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// As a rendering and the JSON say it: `error`, `warning`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A secondary span with what it contributes to the diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Printed under the primary span.
    pub label: Option<String>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// A run-time fault's warp, for a view that steps through it (boxed: most diagnostics
    /// have none, and each result that may hold one stays small). Always serialized: the
    /// playground's worker sends diagnostics in postcard, which has no optional fields.
    pub fault_at: Option<Box<FaultAt>>,
    /// The edit that does what the help says, where it is one (a similar name written in
    /// place of a typo, CUDA's spelling replaced by Tessera's): the editor offers it as a
    /// quick fix. Boxed and always serialized, as `fault_at`.
    pub fix: Option<Box<Fix>>,
}

/// Replace the source at `span` with `replacement`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub span: Span,
    pub replacement: String,
}

/// Where a run-time fault happened: a program's launch (from 0; a kernel's run is launch 0),
/// the CTA, the warp, and the fault's step in that CTA's trace is its last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultAt {
    pub launch: u32,
    pub block: Dim3,
    pub warp: u32,
}

impl Diagnostic {
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Self {
        Self {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            labels: Vec::new(),
            help: None,
            fault_at: None,
            fix: None,
        }
    }

    /// A fault's diagnostic, in a program's launch number `launch` (from 0).
    pub fn in_launch(mut self, launch: u32) -> Self {
        if let Some(at) = &mut self.fault_at {
            at.launch = launch;
        }
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The help, and the edit that carries it out: `replacement` written over `span`.
    pub fn with_fix(
        mut self,
        help: impl Into<String>,
        span: Span,
        replacement: impl Into<String>,
    ) -> Self {
        self.help = Some(help.into());
        self.fix = Some(Box::new(Fix {
            span,
            replacement: replacement.into(),
        }));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
