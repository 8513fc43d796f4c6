//! The properties Tessera's fuzz targets check, one function per target. Each takes the
//! fuzzer's bytes and panics when its property fails, so libFuzzer keeps the input;
//! `tests/corpora.rs` replays every kept input through the same functions in the test command.
//!
//! - [`pipeline`]: any text goes through the whole compiler (parse, check, IR, PTX for each
//!   architecture, WGSL in both warp modes, both with and without the loop guard, a small
//!   simulated run; for a program, its PTX module and a run of a few launches) without a panic
//!   or a hang, every span lies inside the source, naga accepts every module the backend
//!   builds, and naga's WGSL front end reads its text back (it evaluates constant expressions
//!   as a browser does, and refuses a NaN or an infinity there: issue 51).
//! - [`share_link`]: any fragment decodes to a session or a reason, and a session's own link
//!   restores it exactly.
//! - [`markup`]: no source turns into markup in the editor's highlighting (with the
//!   diagnostics' marks) or in the PTX listing.

use compiler_core::diagnostic::Code;
use compiler_core::guard::Guard;
use compiler_core::launch::Launch;
use compiler_core::ptx::{self, Arch};
use compiler_core::share::Session;
use compiler_core::syntax::highlight::{highlight_html, text_of_markup, Mark};
use compiler_core::wgsl::{self, WarpMode};
use compiler_core::RunLimits;
use playground::outputs::{listing_html, Listing};

/// Fuzz inputs are text; other bytes are skipped rather than made lossy, so each kept input
/// is the exact source that failed.
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

pub fn pipeline(data: &[u8]) {
    let Some(source) = text(data) else { return };
    let compilation = compiler_core::compile(source);
    if let Err(message) = compilation.check_spans() {
        panic!("{message}");
    }
    // The formatter changes blanks only: what it writes formats to itself and means the same.
    if let Ok(formatted) = compiler_core::format(source) {
        assert_eq!(
            compiler_core::format(&formatted).ok().as_deref(),
            Some(formatted.as_str()),
            "formatting twice changed it"
        );
        let codes = |diagnostics: &[compiler_core::Diagnostic]| {
            diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
        };
        let again = compiler_core::compile(&formatted);
        assert_eq!(
            codes(&again.diagnostics),
            codes(&compilation.diagnostics),
            "formatting changed the diagnostics"
        );
    }
    let Ok(module) = compilation.ir() else { return };
    let _ = compiler_core::ir::print(module);
    for kernel in &module.kernels {
        let name = Some(kernel.name.as_str());
        for arch in [Arch::Sm70, Arch::Sm80, Arch::Sm90] {
            if let Err(diagnostics) = compilation.ptx(name, arch) {
                // A kernel may need more shared memory than a CTA has (E0521), or a matrix
                // instruction sm_70 lacks (E0522); nothing else keeps a kernel that lowered
                // from having PTX.
                let other = diagnostics.iter().find(|d| {
                    d.code != Code::E0521 && !(d.code == Code::E0522 && arch == Arch::Sm70)
                });
                assert!(
                    other.is_none(),
                    "no PTX for a kernel that lowered: {other:?}"
                );
            }
        }
        for (lanes, mode) in [
            (4, WarpMode::Subgroups),
            (32, WarpMode::Subgroups),
            (32, WarpMode::Emulated),
        ] {
            match compilation.wgsl(name, lanes, mode) {
                Err(diagnostics) => {
                    let bug = diagnostics.iter().find(|d| d.code == Code::E0520);
                    assert!(bug.is_none(), "naga refused the module: {bug:?}");
                }
                Ok(wgsl) => {
                    if let Err(error) = naga::front::wgsl::parse_str(&wgsl.text) {
                        panic!(
                            "the WGSL does not read back: {}",
                            error.emit_to_string(&wgsl.text)
                        );
                    }
                }
            }
            // With the loop guard a GPU run adds, too.
            if let Err(bug) = wgsl::emit(kernel, lanes, mode, Guard::Trips(1000)) {
                assert!(
                    bug.code != Code::E0520,
                    "naga refused the guarded module: {bug:?}"
                );
            }
        }
        if let Err(bug) = ptx::emit(kernel, source, Arch::Sm90, Guard::Trips(1000)) {
            assert!(bug.code == Code::E0521, "no guarded PTX: {bug:?}");
        }
        // Faults are fine (the launch is arbitrary); panics and hangs are not.
        let _ = compilation.run(&Launch::smoke(kernel));
    }
    for program in &module.programs {
        for arch in [Arch::Sm70, Arch::Sm80, Arch::Sm90] {
            if let Err(diagnostics) = compilation.ptx(Some(&program.name), arch) {
                let other = diagnostics.iter().find(|d| d.code != Code::E0521);
                assert!(other.is_none(), "no PTX module for a program: {other:?}");
            }
        }
        let mut launch = Launch::smoke(&program.signature);
        launch.kernel = Some(program.name.clone());
        if let Ok(mut prepared) = compilation.prepare_program(&launch, RunLimits::TERMINAL) {
            // A few launches: the property is no panic and no hang, whatever the loops say.
            prepared.max_launches = 16;
            let _ = prepared.simulate();
        }
    }
}

pub fn share_link(data: &[u8]) {
    let Some(fragment) = text(data) else { return };
    let Ok(session) = Session::from_link(fragment) else {
        return;
    };
    assert_eq!(Session::from_link(&session.to_link()), Ok(session));
}

pub fn markup(data: &[u8]) {
    let Some(source) = text(data) else { return };
    let compilation = compiler_core::compile(source);
    // Every diagnostic's span marked, as a page marks them.
    let marks: Vec<Mark> = compilation
        .diagnostics
        .iter()
        .flat_map(|d| std::iter::once(d.span).chain(d.labels.iter().map(|l| l.span)))
        .map(|span| Mark {
            span,
            class: "diag-error",
        })
        .collect();
    let html = highlight_html(source, &marks);
    let shown = text_of_markup(&html);
    // The highlighter adds a space after a final line break, so the overlay is as tall as
    // the text area.
    let expected = if source.is_empty() || source.ends_with('\n') {
        format!("{source} ")
    } else {
        source.to_owned()
    };
    assert_eq!(shown.as_deref(), Some(expected.as_str()), "{html}");
    if let Ok(ptx) = compilation.ptx(None, Arch::Sm70) {
        let listing = Listing {
            text: ptx.text,
            line_map: ptx.line_map,
            file_name: String::new(),
        };
        let html = listing_html(&listing);
        let shown = text_of_markup(&html);
        let lines: String = listing.text.lines().map(|l| format!("{l}\n")).collect();
        assert_eq!(shown.as_deref(), Some(lines.as_str()), "{html}");
    }
}
