//! The playground's address: what the URL and the tab's history say of the session, so a
//! reload, Back and Forward each bring back exactly the state they name.
//!
//! - `/play?example=NAME` while the session is that example as the catalogue has it;
//! - `/play#v2.…` while the session is the one a share link holds (opened, or made by Copy
//!   link);
//! - `/play` otherwise.
//!
//! Every history entry also keeps its session as its state (written as the session changes),
//! which a reload and Back restore. localStorage keeps the reader's last own session for a new
//! visit: a session an address names as it was opened (an example, a link from the docs or a
//! puzzle) is never written there, so opening one never overwrites the reader's kernel.
//!
//! A link opened in a new page over the reader's own kernel puts that kernel one step back in
//! the tab's history (as the example menu does), and the page says so with "Back to it".

use compiler_core::share::Session;
use gloo_storage::Storage;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

const STORAGE_KEY: &str = "tessera.session";

/// What the playground opens with: [`initial_session`].
pub struct Initial {
    pub session: Session,
    /// A link that could not be opened, said.
    pub notice: Option<String>,
    /// The session an address opened (`?example=`, a link), as it was opened.
    pub opened: Option<Session>,
    /// The reader's own kernel, which that address opened over: now one step back in the tab's
    /// history.
    pub kept: Option<Session>,
}

/// The session to open: this history entry's (a reload, Back), else the link's, else
/// `?example=NAME`, else the last own one, else the default.
pub fn initial_session() -> Initial {
    let location = window().location();
    let initial = |session, notice, opened| Initial {
        session,
        notice,
        opened,
        kept: None,
    };
    if let Some(session) = window()
        .history()
        .ok()
        .and_then(|h| h.state().ok())
        .and_then(session_of_state)
    {
        return initial(session, None, None);
    }
    let hash = location.hash().unwrap_or_default();
    let opened = if hash.len() > 1 {
        match Session::from_link(&hash) {
            Ok(session) => session,
            Err(error) => {
                let notice = format!("{error}. The default example is open instead.");
                return initial(Session::default(), Some(notice), None);
            }
        }
    } else if let Some(name) = example_in(&location.search().unwrap_or_default()) {
        Session::example(&name)
    } else {
        return initial(stored().unwrap_or_default(), None, None);
    };
    let kept = stored().filter(|own| is_own(own, Some(&opened)));
    if let Some(own) = &kept {
        keep_behind(own, &opened);
    }
    Initial {
        session: opened.clone(),
        notice: None,
        opened: Some(opened),
        kept,
    }
}

/// The last own session localStorage holds.
fn stored() -> Option<Session> {
    gloo_storage::LocalStorage::raw()
        .get_item(STORAGE_KEY)
        .ok()
        .flatten()
        .and_then(|text| Session::from_storage(&text))
}

/// Whether `session` is the reader's own: its source is neither an example's nor the one
/// `opened` came with (a launch alone edited keeps an example an example).
fn is_own(session: &Session, opened: Option<&Session>) -> bool {
    example_of(&session.source).is_none() && opened.is_none_or(|o| o.source != session.source)
}

/// Makes `own` this history entry (at the bare path) and `opened` a new one after it.
fn keep_behind(own: &Session, opened: &Session) {
    let Ok(history) = window().history() else {
        return;
    };
    let location = window().location();
    let path = location.pathname().unwrap_or_default();
    let here = format!(
        "{path}{}{}",
        location.search().unwrap_or_default(),
        location.hash().unwrap_or_default()
    );
    let _ = history.replace_state_with_url(&JsValue::from_str(&own.to_storage()), "", Some(&path));
    let _ = history.push_state_with_url(&JsValue::from_str(&opened.to_storage()), "", Some(&here));
}

/// The example a query string names (`?example=NAME`).
fn example_in(search: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("example="))
        .map(str::to_owned)
}

/// The example whose source `source` is, unedited.
pub fn example_of(source: &str) -> Option<&'static str> {
    compiler_core::examples::all()
        .into_iter()
        .chain(compiler_core::examples::programs())
        .find(|e| e.source == source)
        .map(|e| e.name)
}

/// A history entry's session, if it holds one.
pub fn session_of_state(state: JsValue) -> Option<Session> {
    Session::from_storage(&state.as_string()?)
}

/// The address that names `session` (see the module's list).
fn address_of(session: &Session) -> String {
    let location = window().location();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    if hash.len() > 1 && Session::from_link(&hash).is_ok_and(|linked| linked == *session) {
        return format!("{path}{hash}");
    }
    match example_of(&session.source) {
        Some(name) if Session::example(name).launch == session.launch => {
            format!("{path}?example={name}")
        }
        _ => path,
    }
}

/// Writes `session` into this history entry and its address, and into localStorage when it is
/// the reader's own (`opened`: what an address opened, as it was opened).
pub fn remember(session: &Session, opened: Option<&Session>) {
    let text = session.to_storage();
    if is_own(session, opened) {
        let _ = gloo_storage::LocalStorage::raw().set_item(STORAGE_KEY, &text);
    }
    if let Ok(history) = window().history() {
        let url = address_of(session);
        let _ = history.replace_state_with_url(&JsValue::from_str(&text), "", Some(&url));
    }
}

/// A new history entry for `session` (an example opened from the menu), so Back returns to
/// the one before.
pub fn push(session: &Session) {
    if let Ok(history) = window().history() {
        let text = session.to_storage();
        let url = match example_of(&session.source) {
            Some(name) => format!(
                "{}?example={name}",
                window().location().pathname().unwrap_or_default()
            ),
            None => window().location().pathname().unwrap_or_default(),
        };
        let _ = history.push_state_with_url(&JsValue::from_str(&text), "", Some(&url));
    }
}
