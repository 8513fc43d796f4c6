//! Share links: the playground's whole state as data, and its two stores, the link (the URL
//! fragment) and the browser's localStorage. Here, not in the playground, so that the docs build
//! can write each kernel's "Open in playground" link without the playground's framework.
//!
//! A link is `#v2.` followed by the session as JSON, deflated (miniz_oxide) and base64url
//! encoded. Version 2 added the stepper's position ([`Stepping`]); `v1.` links, which have
//! none, open as they always did. Decoding never panics and bounds everything it allocates: a fragment longer than
//! [`MAX_LINK_BYTES`], one that inflates past [`MAX_SESSION_BYTES`], an unknown version, or text
//! that is not what it claims gives a [`LinkError`] that says which, and the playground opens the
//! default example with that message.

use crate::hierarchy::Dim3;
use crate::launch::Launch;
use crate::target::Arch;
use crate::wgsl::WarpMode;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The version written into links; older versions stay readable as long as they are listed in
/// [`Session::from_link`].
pub const LINK_VERSION: u32 = 2;
/// Every version [`Session::from_link`] reads: `vN.` (deflated) and `vNj.` (plain JSON).
const READABLE: [&str; 4] = ["v1", "v1j", "v2", "v2j"];
/// Longer fragments are refused before decoding (browsers accept about 2 MB of URL; a kernel
/// and its launch compress to well under 8 KB).
pub const MAX_LINK_BYTES: usize = 256 * 1024;
/// The inflated session's limit: the compiler's own source limit plus room for the launch.
pub const MAX_SESSION_BYTES: usize = crate::syntax::MAX_SOURCE_BYTES + 256 * 1024;

/// The output tab on show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tab {
    #[default]
    Run,
    Ptx,
    Wgsl,
    Ir,
}

impl Tab {
    pub const ALL: [Tab; 4] = [Tab::Run, Tab::Ptx, Tab::Wgsl, Tab::Ir];

    pub fn label(self) -> &'static str {
        match self {
            Tab::Run => "Run",
            Tab::Ptx => "PTX",
            Tab::Wgsl => "WGSL",
            Tab::Ir => "IR",
        }
    }
}

/// Everything a link restores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Session {
    pub source: String,
    pub launch: Launch,
    pub tab: Tab,
    pub arch: Arch,
    /// `None`: subgroups when the GPU's are exactly `ctx.lanes` wide, else emulated warps.
    pub warp_mode: Option<WarpMode>,
    /// Where the stepper stands, when it is open: the page runs the launch and traces again.
    pub stepping: Option<Stepping>,
}

/// The stepper's position: the CTA traced, the warp shown and the step (from 0); for a
/// program, the launch traced (from 0, in the order the run makes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stepping {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub launch: u32,
    pub block: Dim3,
    pub warp: u32,
    pub step: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for Session {
    fn default() -> Self {
        Session::example(DEFAULT_EXAMPLE)
    }
}

/// The example a new visitor, or a broken link, opens.
pub const DEFAULT_EXAMPLE: &str = "matvec";

impl Session {
    /// The example `name` with its launch (the default example if there is none by that name).
    pub fn example(name: &str) -> Session {
        let example =
            crate::examples::find(name).or_else(|| crate::examples::find(DEFAULT_EXAMPLE));
        let (source, launch) = example.map_or_else(
            || (String::new(), Launch::default()),
            |e| (e.source.to_owned(), e.launch),
        );
        Session {
            source,
            launch,
            tab: Tab::Run,
            arch: Arch::default(),
            warp_mode: None,
            stepping: None,
        }
    }

    /// The fragment that restores this session, without the `#`.
    pub fn to_link(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let deflated = miniz_oxide::deflate::compress_to_vec(&json, 9);
        format!("v{LINK_VERSION}.{}", URL_SAFE_NO_PAD.encode(deflated))
    }

    /// The fragment of a session made of `source`, a launch already written as JSON and
    /// perhaps a stepper's position, also as JSON, not deflated (`v2j.` + base64url(JSON)):
    /// what a page without the deflate code or a JSON writer (the site, for a docs kernel's
    /// "Open in playground" and "Step through") can write. A third longer than `to_link`'s.
    pub fn plain_link(source: &str, launch_json: &str, stepping_json: Option<&str>) -> String {
        let source = serde_json::to_string(source).unwrap_or_default();
        let stepping = stepping_json.map_or(String::new(), |s| format!(",\"stepping\":{s}"));
        let json = format!("{{\"source\":{source},\"launch\":{launch_json}{stepping}}}");
        format!("v{LINK_VERSION}j.{}", URL_SAFE_NO_PAD.encode(json))
    }

    /// The session a fragment (with or without its `#`) holds: deflated links (`v2.`, and
    /// `v1.` from before the stepper) and plain ones ([`Session::plain_link`]; `v2j.`, `v1j.`).
    pub fn from_link(fragment: &str) -> Result<Session, LinkError> {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        if fragment.len() > MAX_LINK_BYTES {
            return Err(LinkError::TooLong(fragment.len()));
        }
        let Some((version, payload)) = fragment.split_once('.') else {
            return Err(LinkError::NotALink);
        };
        let deflated = match version {
            v if READABLE.contains(&v) => URL_SAFE_NO_PAD.decode(payload).map_err(|e| {
                LinkError::Corrupt(match e {
                    // A length no whole link has: it was cut short, as copying part of it does.
                    base64::DecodeError::InvalidLength(_)
                    | base64::DecodeError::InvalidLastSymbol(..) => {
                        "it is cut short (truncated): copy the whole link"
                    }
                    _ => "a character in it is not one a link has (altered)",
                })
            })?,
            other if other.starts_with('v') => {
                return Err(LinkError::UnknownVersion(other.to_owned()))
            }
            _ => return Err(LinkError::NotALink),
        };
        let json = if version.ends_with('j') {
            deflated
        } else {
            miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_SESSION_BYTES)
                .map_err(|e| match e.status {
                    miniz_oxide::inflate::TINFLStatus::HasMoreOutput => LinkError::TooLarge,
                    _ => LinkError::Corrupt("it does not inflate (truncated or altered)"),
                })?
        };
        serde_json::from_slice(&json)
            .map_err(|_| LinkError::Corrupt("its contents are not a session"))
    }

    /// The session as localStorage keeps it (plain JSON).
    pub fn to_storage(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn from_storage(text: &str) -> Option<Session> {
        if text.len() > MAX_SESSION_BYTES {
            return None;
        }
        // `from_slice` as every JSON reader the playground's page calls: `from_str` would put a
        // second copy of the reader in its module.
        serde_json::from_slice(text.as_bytes()).ok()
    }
}

/// Why a share link could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    NotALink,
    UnknownVersion(String),
    TooLong(usize),
    TooLarge,
    Corrupt(&'static str),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::NotALink => write!(f, "the link's fragment is not a Tessera share link"),
            LinkError::UnknownVersion(v) => write!(
                f,
                "the link was made by a newer Tessera (format {v}; this one reads v{LINK_VERSION})"
            ),
            LinkError::TooLong(n) => write!(
                f,
                "the link is {n} bytes long; share links hold at most {MAX_LINK_BYTES}"
            ),
            LinkError::TooLarge => write!(
                f,
                "the link unpacks to more than {MAX_SESSION_BYTES} bytes, more than any kernel"
            ),
            LinkError::Corrupt(why) => write!(f, "the link is damaged: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::Input;

    fn edited() -> Session {
        let mut session = Session::example("saxpy");
        session.source.push_str("\n// an edit: ünïcode too\n");
        session.launch.grid.x = 7;
        session.launch.inputs.insert("X".into(), Input::Rand(99));
        session.tab = Tab::Ptx;
        session.arch = Arch::Sm90;
        session.warp_mode = Some(WarpMode::Emulated);
        session.stepping = Some(Stepping {
            launch: 3,
            block: Dim3::new(2, 0, 0),
            warp: 1,
            step: 17,
        });
        session
    }

    #[test]
    fn a_link_restores_the_session_exactly() {
        let session = edited();
        let link = session.to_link();
        assert!(link.starts_with("v2."), "{link}");
        assert!(link
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
        assert_eq!(Session::from_link(&format!("#{link}")), Ok(session.clone()));
        assert_eq!(Session::from_storage(&session.to_storage()), Some(session));
    }

    #[test]
    fn sessions_from_before_the_warp_mode_left_the_launch_still_open() {
        // Earlier playgrounds wrote `warp_mode` and `backend` into every launch.
        let old = r#"{"source":"kernel k() {}","launch":{"version":1,"grid":{"x":3,"y":1,"z":1},"lanes":8,"warp_mode":"emulated","backend":"sim"}}"#;
        let Some(session) = Session::from_storage(old) else {
            panic!("an old session did not open")
        };
        assert_eq!((session.launch.grid.x, session.launch.lanes), (3, 8));
    }

    #[test]
    fn a_plain_link_opens_its_source_and_launch() {
        let saxpy = Session::example("saxpy");
        let launch = serde_json::to_string(&saxpy.launch).unwrap_or_default();
        let link = Session::plain_link(&saxpy.source, &launch, None);
        assert!(link.starts_with("v2j."), "{link}");
        let Ok(opened) = Session::from_link(&link) else {
            panic!("{link} does not open")
        };
        assert_eq!(
            (&opened.source, &opened.launch),
            (&saxpy.source, &saxpy.launch)
        );
        assert_eq!((opened.tab, opened.stepping), (Tab::Run, None));
        assert!(Session::from_link("v2j.not*base64").is_err());
        let stepping = Stepping {
            launch: 0,
            block: Dim3::new(0, 0, 0),
            warp: 3,
            step: 0,
        };
        let json = serde_json::to_string(&stepping).unwrap_or_default();
        let link = Session::plain_link(&saxpy.source, &launch, Some(&json));
        let opened = Session::from_link(&link).map(|s| s.stepping);
        assert_eq!(opened, Ok(Some(stepping)));
    }

    /// Links written before the stepper (version 1) open with the stepper closed.
    #[test]
    fn version_1_links_still_open() {
        let deflated = "v1.NU7bCoJAEP2VYZ4UJEofgqXC3xBXZNOlxHWM2V2yZP-9tejlXOCcmbOinT13GgWWRnnq7kmRp5JGzaQNjEklwGmyM5-GIr_URd6ksEoCqOrOLTujSDdwhr-WFCRhhr9bKFa88dBvvKA4ZPj64jtiCBk6dY2P2W8NxVse7dQe99E-FT_aae7jMvLGhA8";
        let Ok(session) = Session::from_link(deflated) else {
            panic!("a v1 link did not open")
        };
        assert!(session.source.contains("Y[ctx.lane] = ctx.lane"));
        assert_eq!((session.tab, session.stepping), (Tab::Run, None));
        let plain = format!(
            "v1j.{}",
            URL_SAFE_NO_PAD.encode(r#"{"source":"kernel k() {}","launch":{}}"#)
        );
        assert_eq!(
            Session::from_link(&plain).map(|s| s.source),
            Ok("kernel k() {}".to_owned())
        );
    }

    #[test]
    fn links_compress() {
        let session = Session::example("tiled_matmul");
        assert!(session.to_link().len() < session.to_storage().len());
    }

    #[test]
    fn broken_links_say_what_is_wrong() {
        let link = edited().to_link();
        let truncated = &link[..link.len() / 2];
        assert!(matches!(
            Session::from_link(truncated),
            Err(LinkError::Corrupt(_))
        ));
        // Cut where no whole link ends (issue 52: it said "not base64url"): truncated.
        let payload = link.len() - 3;
        let cut = (1..8)
            .map(|k| &link[..link.len() - k])
            .find(|l| (l.len() - 3) % 4 == 1 && l.len() - 3 < payload)
            .unwrap_or_default();
        assert_eq!(
            Session::from_link(cut),
            Err(LinkError::Corrupt(
                "it is cut short (truncated): copy the whole link"
            ))
        );
        assert_eq!(
            Session::from_link(&link.replacen('A', "*", 1)),
            Err(LinkError::Corrupt(
                "a character in it is not one a link has (altered)"
            ))
        );
        let altered = link.replacen('A', "*", 1).replacen('b', "*", 1);
        assert!(Session::from_link(&altered).is_err());
        assert_eq!(Session::from_link(""), Err(LinkError::NotALink));
        assert_eq!(Session::from_link("#hello"), Err(LinkError::NotALink));
        assert_eq!(
            Session::from_link("v9.abc"),
            Err(LinkError::UnknownVersion("v9".into()))
        );
        let huge = "v1.".to_owned() + &"A".repeat(MAX_LINK_BYTES);
        assert!(matches!(
            Session::from_link(&huge),
            Err(LinkError::TooLong(_))
        ));
        let not_a_session = miniz_oxide::deflate::compress_to_vec(b"[1, 2, 3]", 9);
        let link = format!("v1.{}", URL_SAFE_NO_PAD.encode(not_a_session));
        assert!(matches!(
            Session::from_link(&link),
            Err(LinkError::Corrupt(_))
        ));
    }

    #[test]
    fn a_link_that_inflates_too_far_is_refused_without_inflating_it_all() {
        let bomb = vec![b' '; MAX_SESSION_BYTES + 10];
        let link = format!(
            "v1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&bomb, 9))
        );
        assert!(link.len() < 8 * 1024, "a compression bomb is small");
        assert_eq!(Session::from_link(&link), Err(LinkError::TooLarge));
    }

    proptest::proptest! {
        /// Whatever follows the `#`, decoding ends in a session or a reason, never a panic.
        #[test]
        fn any_fragment_decodes_or_says_why(fragment in ".{0,300}") {
            let _ = Session::from_link(&fragment);
            let _ = Session::from_link(&format!("v1.{fragment}"));
        }

        /// Links whose payload is damaged anywhere are refused or give some session; never a panic.
        #[test]
        fn damaged_links_never_panic(at in 0usize..400, byte in 0u8..128) {
            let link = edited().to_link();
            let mut bytes = link.into_bytes();
            let i = at % bytes.len();
            bytes[i] = byte;
            if let Ok(text) = String::from_utf8(bytes) {
                let _ = Session::from_link(&text);
            }
        }
    }

    #[test]
    fn unknown_examples_fall_back_to_the_default() {
        assert_eq!(Session::example("nope"), Session::example(DEFAULT_EXAMPLE));
        assert!(Session::default().source.contains("kernel mv"));
    }
}
