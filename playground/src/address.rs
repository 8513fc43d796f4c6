//! The playground's address: what the URL and the tab's history say of the session, so a
//! reload, Back and Forward each bring back exactly the state they name.
//!
//! - `/play?example=NAME` while the session is that example as the catalogue has it;
//! - `/play#v2.…` while the session is the one a share link holds (opened, or made by Copy
//!   link);
//! - `/play` otherwise.
//!
//! Every history entry also keeps its session as its state (written as the session changes),
//! which a reload and Back restore; localStorage keeps the last session for a new visit.

use compiler_core::share::Session;
use gloo_storage::Storage;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

const STORAGE_KEY: &str = "tessera.session";

/// The session to open: the link's, else this history entry's, else `?example=NAME`, else
/// the last one, else the default; and a notice when a link could not be opened.
pub fn initial_session() -> (Session, Option<String>) {
    let location = window().location();
    let hash = location.hash().unwrap_or_default();
    if hash.len() > 1 {
        return match Session::from_link(&hash) {
            Ok(session) => (session, None),
            Err(error) => (
                Session::default(),
                Some(format!("{error}. The default example is open instead.")),
            ),
        };
    }
    if let Some(session) = window()
        .history()
        .ok()
        .and_then(|h| h.state().ok())
        .and_then(session_of_state)
    {
        return (session, None);
    }
    if let Some(name) = example_in(&location.search().unwrap_or_default()) {
        return (Session::example(&name), None);
    }
    let stored = gloo_storage::LocalStorage::raw()
        .get_item(STORAGE_KEY)
        .ok()
        .flatten()
        .and_then(|text| Session::from_storage(&text));
    (stored.unwrap_or_default(), None)
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

/// Writes `session` into this history entry, its address and localStorage.
pub fn remember(session: &Session) {
    let text = session.to_storage();
    let _ = gloo_storage::LocalStorage::raw().set_item(STORAGE_KEY, &text);
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
