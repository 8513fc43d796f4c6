//! The playground's leptos components: editor, diagnostics, output tabs, launch panel and
//! share links, mounted at `/play` by the site.
//!
//! In: the user's source and launch. Out: the views of what `compiler-core` makes of them.
//! Invariant: all compiling happens in `compiler-core`; these components only render its data.
//!
//! The crate holds no component yet: the playground arrives with the front end it shows
//! (issues 3 and 8), and the site links to `/play` only once it exists.
