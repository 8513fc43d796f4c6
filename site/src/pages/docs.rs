//! The docs: pages rendered from `content/` at build time (`build.rs`), with a sidebar in the
//! pages' order, previous and next links, a search over every page, and the directives brought
//! to life: kernels that run and open in the playground, hierarchy diagrams, puzzles'
//! workbenches (the section "Puzzles", where the sidebar marks the ones solved).
//!
//! The module carries every page's [`Entry`] (the sidebar, the pager, the search's titles and
//! headings); a page itself is fetched when it is first opened, and every page's words on the
//! first search, from the folder the built `index.html` names (`window.tesseraDocs`), so the
//! first load does not carry every page (BENCHMARKS.md).

use crate::lazy::{fill_on_mount, Module, Slot};
use compiler_core::grade::{SOLVED_EVENT, SOLVED_KEY};
use diagram::{DiagramConfig, FragmentMap, HierarchyDiagram};
use docs_build::{Block, Entry, KernelBlock, Page};
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_params_map};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsValue;

const INDEX_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/index.json"));

thread_local! {
    static INDEX: Rc<Vec<Entry>> = Rc::new(serde_json::from_slice(INDEX_JSON.as_bytes()).unwrap_or_default());
    /// The pages fetched so far, so Back and Forward draw a page at once.
    static FETCHED: RefCell<HashMap<String, Rc<Page>>> = RefCell::default();
    /// Every page's words in lower case, in the index's order, once fetched.
    static SEARCH_TEXT: RefCell<Option<Rc<Vec<String>>>> = const { RefCell::new(None) };
}

/// Every page, in the sidebar's order.
pub fn index() -> Rc<Vec<Entry>> {
    INDEX.with(Rc::clone)
}

/// Fetches the page `slug` from the built site, and keeps it.
async fn fetch_page(slug: &str) -> Result<Rc<Page>, String> {
    let page: Rc<Page> = Rc::new(files::read(&format!("pages/{slug}.json")).await?);
    FETCHED.with_borrow_mut(|f| f.insert(slug.to_owned(), Rc::clone(&page)));
    Ok(page)
}

/// Every page's words, fetched on the first search.
async fn search_text() -> Result<Rc<Vec<String>>, String> {
    if let Some(text) = SEARCH_TEXT.with_borrow(Clone::clone) {
        return Ok(text);
    }
    let text: Rc<Vec<String>> = Rc::new(files::read("search.json").await?);
    SEARCH_TEXT.set(Some(Rc::clone(&text)));
    Ok(text)
}

/// The docs' files in the built site.
mod files {
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    /// Why a file of this build may be missing or not read: the site was deployed again since,
    /// and the files moved to another folder.
    const UPDATED: &str = "the site may have been updated since this tab opened it";

    /// Reads the JSON file at `path` in the docs' folder of this build.
    pub async fn read<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, String> {
        let bytes = fetch(path).await.map_err(|e| crate::lazy::describe(&e))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("its file does not read: {e}; {UPDATED}"))
    }

    async fn fetch(path: &str) -> Result<Vec<u8>, JsValue> {
        let window = leptos::prelude::window();
        // Set by scripts/build-playground-module.sh (a trunk hook): `/lazy/docs-HASH`.
        let folder = js_sys::Reflect::get(&window, &"tesseraDocs".into())?
            .as_string()
            .ok_or("this build of the site has no docs' files")?;
        let request = early(&window, path)
            .unwrap_or_else(|| window.fetch_with_str(&format!("{folder}/{path}")));
        let response: web_sys::Response = JsFuture::from(request).await?.dyn_into()?;
        if !response.ok() {
            return Err(format!("the server answered {}; {UPDATED}", response.status()).into());
        }
        let buffer = JsFuture::from(response.array_buffer()?).await?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
    }

    /// The answer for `path` that the boot script asked for beside the site's module
    /// (`Trunk.toml`: the page the site opens on), taken once.
    fn early(window: &web_sys::Window, path: &str) -> Option<js_sys::Promise> {
        let key = JsValue::from_str("tesseraDocsEarly");
        let early = js_sys::Reflect::get(window, &key).ok()?;
        let asked = js_sys::Reflect::get(&early, &"path".into())
            .ok()?
            .as_string()?;
        if asked != path {
            return None;
        }
        let _ = js_sys::Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &key);
        js_sys::Reflect::get(&early, &"response".into())
            .ok()?
            .dyn_into()
            .ok()
    }
}

/// The first page, where `/docs` leads.
pub fn first_slug() -> String {
    index().first().map(|p| p.slug.clone()).unwrap_or_default()
}

/// The puzzles the reader has solved in this browser, kept up to date as the workbench
/// solves one.
fn solved_puzzles() -> ReadSignal<Vec<String>> {
    let read = || {
        window()
            .local_storage()
            .ok()
            .flatten()
            .and_then(|s| s.get_item(SOLVED_KEY).ok().flatten())
            .map(|list| list.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let (solved, set_solved) = signal(read());
    let listening = window_event_listener_untyped(SOLVED_EVENT, move |_| set_solved.set(read()));
    on_cleanup(move || listening.remove());
    solved
}

#[component]
fn Sidebar(current: String) -> impl IntoView {
    let solved = solved_puzzles();
    view! {
        <nav class="docs-sidebar" aria-label="Docs">
            <Search/>
            // On a phone the pages' list starts folded: open, its 29 links would push the page's
            // heading a screen down, and a tap on one would look like nothing happened.
            <details class="docs-menu" prop:open=!narrow_screen() data-testid="docs-menu">
                <summary>"All pages"</summary>
                // Drawn again when a puzzle is solved, to mark it.
                {move || solved.with(|solved| sections(&current, solved))}
            </details>
        </nav>
    }
}

/// Whether the docs are one column (the style sheet's `max-width: 860px`).
fn narrow_screen() -> bool {
    window()
        .match_media("(max-width: 860px)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// The pages by section, the current one marked, and in the puzzles' section the ones solved.
fn sections(current: &str, solved: &[String]) -> impl IntoView {
    let pages = index();
    let mut sections: Vec<(&str, Vec<&Entry>)> = Vec::new();
    for page in pages.iter() {
        match sections.last_mut() {
            Some((section, list)) if *section == page.section => list.push(page),
            _ => sections.push((&page.section, vec![page])),
        }
    }
    let is_solved = |page: &Entry| page.puzzle && solved.contains(&page.slug);
    // The sections are labels, not headings: a page's h1 is the first heading a reader meets.
    // A solved puzzle's link has `data-solved`, which the style sheet marks with a tick that
    // reads as "solved".
    sections.into_iter().enumerate().map(|(i, (section, list))| {
        let puzzles = list.iter().filter(|p| p.puzzle).count();
        let label = if puzzles > 0 {
            let done = list.iter().filter(|p| is_solved(p)).count();
            format!("{section} · {done} of {puzzles} solved")
        } else {
            section.to_owned()
        };
        view! {
            <p class="docs-section" id=format!("docs-section-{i}") data-testid=(puzzles > 0).then_some("puzzle-progress")>{label}</p>
            <ul aria-labelledby=format!("docs-section-{i}")>
                {list.into_iter().map(|page| view! {
                    <li>
                        <a href=format!("/docs/{}", page.slug) aria-current=(page.slug == current).then_some("page") data-solved=is_solved(page).then_some("")>{page.title.clone()}</a>
                    </li>
                }).collect_view()}
            </ul>
        }
    }).collect_view()
}

/// Pages whose title, headings or words (`text`, once fetched) hold every word of the query,
/// best first: a title match, then a heading match (linked to the heading), then the words.
fn search(query: &str, text: Option<&[String]>) -> Vec<(String, String, String)> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| w.len() > 1)
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    let has_all = |text: &str| words.iter().all(|w| text.contains(w.as_str()));
    let has_all_folded = |text: &str| has_all(&text.to_lowercase());
    let mut hits: Vec<(u8, String, String, String)> = Vec::new();
    for (i, page) in index().iter().enumerate() {
        let text = text.and_then(|t| t.get(i));
        if has_all_folded(&page.title) {
            hits.push((
                0,
                format!("/docs/{}", page.slug),
                page.title.clone(),
                page.summary.clone(),
            ));
        } else if let Some(h) = page.headings.iter().find(|h| has_all_folded(&h.text)) {
            hits.push((
                1,
                format!("/docs/{}#{}", page.slug, h.id),
                h.text.clone(),
                page.title.clone(),
            ));
        // The page's words are lower case already.
        } else if text.is_some_and(|t| has_all(t)) {
            hits.push((
                2,
                format!("/docs/{}", page.slug),
                page.title.clone(),
                page.summary.clone(),
            ));
        }
    }
    hits.sort_by_key(|h| h.0);
    hits.into_iter()
        .map(|(_, a, b, c)| (a, b, c))
        .take(12)
        .collect()
}

/// The search box, as a combobox: results are options; ArrowDown and ArrowUp move through
/// them, Enter opens the one chosen, Escape clears the query.
#[component]
fn Search() -> impl IntoView {
    let query = RwSignal::new(String::new());
    // Every page's words, fetched on the first keystroke; until then (or if they cannot be
    // fetched) the search finds titles and headings.
    let text = RwSignal::new_local(None::<Result<Rc<Vec<String>>, String>>);
    let asked = StoredValue::new(false);
    let fetch_text = move || {
        if asked.get_value() {
            return;
        }
        asked.set_value(true);
        leptos::task::spawn_local(async move {
            let fetched = search_text().await;
            // Asked again on the next keystroke.
            asked.set_value(fetched.is_ok());
            text.set(Some(fetched));
        });
    };
    let results = Memo::new(move |_| {
        let query = query.get();
        text.with(|t| {
            search(
                &query,
                t.as_ref()
                    .and_then(|t| t.as_deref().ok())
                    .map(Vec::as_slice),
            )
        })
    });
    let text_missing = move || text.with(|t| t.as_ref().and_then(|t| t.as_ref().err()).cloned());
    let active = RwSignal::new(None::<usize>);
    let navigate = leptos_router::hooks::use_navigate();
    let open_result = move |href: String| {
        query.set(String::new());
        active.set(None);
        navigate(&href, Default::default());
    };
    let on_key = {
        let open_result = open_result.clone();
        move |ev: leptos::ev::KeyboardEvent| {
            let count = results.with(Vec::len);
            match ev.key().as_str() {
                "ArrowDown" if count > 0 => {
                    ev.prevent_default();
                    active.update(|a| *a = Some(a.map_or(0, |i| (i + 1) % count)));
                }
                "ArrowUp" if count > 0 => {
                    ev.prevent_default();
                    active.update(|a| *a = Some(a.map_or(count - 1, |i| (i + count - 1) % count)));
                }
                "Enter" => {
                    let chosen = active.get().or((count > 0).then_some(0));
                    if let Some(href) =
                        chosen.and_then(|i| results.with(|r| r.get(i).map(|h| h.0.clone())))
                    {
                        ev.prevent_default();
                        open_result(href);
                    }
                }
                "Escape" => {
                    query.set(String::new());
                    active.set(None);
                }
                _ => {}
            }
        }
    };
    let expanded = move || !query.get().trim().is_empty();
    view! {
        <div class="docs-search" role="search">
            <label class="visually-hidden" for="docs-search">"Search the docs"</label>
            <input
                id="docs-search"
                type="search"
                role="combobox"
                aria-autocomplete="list"
                aria-controls="docs-search-results"
                aria-expanded=move || expanded().to_string()
                aria-activedescendant=move || active.get().map(|i| format!("docs-search-result-{i}"))
                placeholder="Search the docs"
                data-testid="docs-search"
                prop:value=move || query.get()
                on:input=move |ev| {
                    fetch_text();
                    query.set(event_target_value(&ev));
                    active.set(None);
                }
                on:keydown=on_key
            />
            {move || expanded().then(|| {
                let list = results.get();
                let count = list.len();
                let open_result = open_result.clone();
                view! {
                    <div class="search-results" data-testid="search-results">
                        <p class="visually-hidden" aria-live="polite">
                            {match count { 0 => "Nothing found.".to_owned(), 1 => "1 result.".to_owned(), n => format!("{n} results.") }}
                        </p>
                        {text_missing().map(|why| view! {
                            <p class="hint">{format!("Titles and headings only: the pages' words could not be loaded ({why}).")}</p>
                        })}
                        {if list.is_empty() {
                            view! { <p class="hint">"Nothing found."</p> }.into_any()
                        } else {
                            view! {
                                <ul role="listbox" id="docs-search-results" aria-label="Results">
                                    {list.into_iter().enumerate().map(|(i, (href, title, context))| {
                                        let open_result = open_result.clone();
                                        let target = href.clone();
                                        view! {
                                            <li
                                                role="option"
                                                id=format!("docs-search-result-{i}")
                                                aria-selected=move || (active.get() == Some(i)).to_string()
                                                data-testid="search-result"
                                            >
                                                <a href=href tabindex="-1" on:click=move |ev| {
                                                    ev.prevent_default();
                                                    open_result(target.clone());
                                                }>{title}</a>
                                                <span class="search-context">{context}</span>
                                            </li>
                                        }
                                    }).collect_view()}
                                </ul>
                            }.into_any()
                        }}
                    </div>
                }
            })}
        </div>
    }
}

/// A kernel from the page, as the docs build prepared it: highlighted, with Run and Open in
/// playground; a kernel the page shows failing lists its diagnostics instead of Run. Run loads
/// the playground module (first time only), which runs the kernel and renders its results.
#[component]
fn RunnableKernel(block: KernelBlock) -> impl IntoView {
    let KernelBlock {
        source,
        expect,
        launch,
        view: prepared,
        step,
    } = block;
    let counts = prepared.counts;
    // The kernel with its launch in the playground, written here from the two: a link the docs
    // would otherwise carry for every kernel, incompressible.
    let playground_link = format!(
        "/play#{}",
        compiler_core::share::Session::plain_link(&source, launch.as_deref().unwrap_or("{}"), None)
    );
    let step_link = step.map(|step| {
        let link = compiler_core::share::Session::plain_link(
            &source,
            launch.as_deref().unwrap_or("{}"),
            Some(&step.stepping),
        );
        view! { <a class="button" href=format!("/play#{link}") rel="external" data-testid="step-through-link">{step.label}</a> }
    });
    let results = NodeRef::<leptos::html::Div>::new();
    let note = RwSignal::new(None::<String>);
    let slot = Slot::new();
    let on_run = move |_| {
        let Some(parent) = results.get_untracked() else {
            return;
        };
        // The docs build resolved the launch; only a runnable kernel has Run.
        let launch = launch.clone().unwrap_or_default();
        let args = [
            parent.into(),
            JsValue::from_str(&source),
            JsValue::from_str(&launch),
            counts.map_or(JsValue::UNDEFINED, |[flops, bytes]| {
                JsValue::from_str(&format!("{flops},{bytes}"))
            }),
        ];
        let slot = slot.clone();
        note.set(Some("Loading the compiler…".into()));
        leptos::task::spawn_local(async move {
            note.set(
                slot.fill(Module::Playground, "mount_kernel_run", &args)
                    .await
                    .err()
                    .map(|why| format!("The compiler could not be loaded ({why}).")),
            );
        });
    };
    view! {
        <figure class="kernel" data-testid="kernel">
            <pre class="code" tabindex="0"><code inner_html=prepared.html></code></pre>
            <div class="kernel-actions">
                {prepared.runnable.then(|| view! { <button type="button" class="primary" data-testid="kernel-run" on:click=on_run>"Run"</button> })}
                <a class="button" href=playground_link rel="external" data-testid="open-in-playground">"Open in playground"</a>
                {step_link}
                {expect.map(|code| {
                    let warns = compiler_core::Code::parse(&code).is_some_and(|c| c.is_warning());
                    let what = if warns { "The checker warns of this kernel" } else { "This kernel fails" };
                    view! { <span class="kernel-expect">{format!("{what} with {code}:")}</span> }
                })}
            </div>
            {prepared.memory.and_then(Result::ok).map(|html| view! {
                <div class="kernel-memory" data-testid="kernel-memory" inner_html=html></div>
            })}
            {(!prepared.diagnostics.is_empty()).then(|| view! {
                <ul class="diagnostics">
                    {prepared.diagnostics.into_iter().map(|d| view! {
                        <li class=if compiler_core::Code::parse(&d.code).is_some_and(|c| c.is_warning()) { "diagnostic warning" } else { "diagnostic error" }>
                            <a class="diag-code" href=format!("/docs/errors#{}", d.code)>{d.code.clone()}</a>
                            " "{d.message}
                            {d.help.map(|h| view! { <div class="help">"help: "{h}</div> })}
                        </li>
                    }).collect_view()}
                </ul>
            })}
            {move || note.get().map(|text| view! { <p class="loading" role="status">{text}</p> })}
            <div class="kernel-results" node_ref=results></div>
        </figure>
    }
}

/// Where the puzzles' module puts a puzzle's workbench (the launch, the rules, the hints, the
/// editor, Check, the solution), loaded with the page.
#[component]
fn PuzzleWorkbench(slug: String) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let args = vec![JsValue::from_str(&slug)];
    let status = fill_on_mount(
        host,
        Module::Puzzles,
        "mount_puzzle",
        args,
        "puzzle's workbench",
    );
    view! {
        <p class="loading" role="status" data-testid="puzzle-loading" hidden=move || status.with(Option::is_none)>
            {move || status.get().unwrap_or_default()}
        </p>
        <div class="puzzle-host" node_ref=host></div>
    }
}

fn block_view(block: &Block) -> AnyView {
    match block {
        Block::Html(html) => view! { <div class="prose" inner_html=html.clone()></div> }.into_any(),
        Block::Kernel(kernel) => view! { <RunnableKernel block=(**kernel).clone()/> }.into_any(),
        Block::Occupancy(Ok(start)) => {
            view! { <crate::occupancy::OccupancyCalculator start=start.clone()/> }.into_any()
        }
        Block::Occupancy(Err(why)) => view! { <p class="error">{why.clone()}</p> }.into_any(),
        Block::Puzzle(slug) => view! { <PuzzleWorkbench slug=slug.clone()/> }.into_any(),
        Block::LaneMap => view! { <FragmentMap lane=RwSignal::new(None)/> }.into_any(),
        Block::Diagram(params) => match DiagramConfig::from_params(params) {
            Ok(config) => view! { <HierarchyDiagram config=config/> }.into_any(),
            Err(why) => view! { <p class="error">{why}</p> }.into_any(),
        },
    }
}

#[component]
pub fn DocsPage() -> impl IntoView {
    let params = use_params_map();
    let location = use_location();
    let slug = Memo::new(move |_| params.with(|p| p.get("slug").unwrap_or_else(first_slug)));
    // The page shown, once fetched (or why it could not be), with the slug it is for.
    let fetched = RwSignal::new_local(None::<(String, Result<Rc<Page>, String>)>);
    Effect::new(move |_| {
        let wanted = slug.get();
        // A slug that is no page is told so without asking the server.
        let known = index().iter().any(|p| p.slug == wanted);
        if !known || FETCHED.with_borrow(|f| f.contains_key(&wanted)) {
            return;
        }
        // An error for this page from an earlier visit is not shown while it is fetched again.
        fetched.set(None);
        leptos::task::spawn_local(async move {
            let result = fetch_page(&wanted).await;
            // Only for the page the reader is still on: an earlier page's answer may come later.
            if slug.try_get_untracked().as_ref() == Some(&wanted) {
                fetched.set(Some((wanted, result)));
            }
        });
    });
    let shown = move || {
        let slug = slug.get();
        // A page fetched before is drawn at once (Back, Forward), not a task later.
        let known = FETCHED.with_borrow(|f| f.get(&slug).cloned()).map(Ok);
        known.or_else(|| {
            fetched.with(|f| {
                f.as_ref()
                    .filter(|(s, _)| *s == slug)
                    .map(|(_, page)| page.clone())
            })
        })
    };
    let ready = Signal::derive(move || shown().is_some());
    // Once the page is drawn, show where the reader was (Back and Forward), else the heading
    // the URL names, else the top.
    Effect::new(move |_| {
        let hash = location.hash.get();
        let path = location.pathname.get();
        if !ready.get() {
            return;
        }
        request_animation_frame(move || {
            if let Some(y) = scroll::take_restore(&path) {
                window().scroll_to_with_x_and_y(0.0, y);
                return;
            }
            let target = hash
                .strip_prefix('#')
                .and_then(|id| document().get_element_by_id(id));
            match target {
                Some(el) => el.scroll_into_view(),
                None => window().scroll_to_with_x_and_y(0.0, 0.0),
            }
        });
    });
    scroll::keep_for(location.pathname, ready);
    move || {
        let slug = slug.get();
        let pages = index();
        let Some(at) = pages.iter().position(|p| p.slug == slug) else {
            return view! {
                <div class="docs">
                    <Sidebar current=slug.clone()/>
                    <article class="docs-page"><h1>"Not found"</h1><p>{format!("There is no page “{slug}”.")}</p></article>
                </div>
            }
            .into_any();
        };
        let previous = at
            .checked_sub(1)
            .and_then(|i| pages.get(i))
            .map(|p| (p.slug.clone(), p.title.clone()));
        let next = pages.get(at + 1).map(|p| (p.slug.clone(), p.title.clone()));
        document().set_title(&format!("{} · Tessera", pages[at].title));
        let body = move || {
            match shown() {
            None => view! {
                <p class="loading" role="status">"Loading the page…"</p>
            }
            .into_any(),
            Some(Err(why)) => view! {
                <p class="error" role="alert" data-testid="docs-page-error">
                    {format!("This page could not be loaded ({why}). Check the connection and reload the page.")}
                </p>
            }
            .into_any(),
            Some(Ok(page)) => page_body(&page).into_any(),
        }
        };
        view! {
            <div class="docs">
                <Sidebar current=slug.clone()/>
                <article class="docs-page" data-testid="docs-page" aria-busy=move || (!ready.get()).then_some("true")>
                    {body}
                    <nav class="docs-pager" aria-label="Previous and next page">
                        {previous.map(|(s, t)| view! { <a rel="prev" href=format!("/docs/{s}")>"← "{t}</a> })}
                        {next.map(|(s, t)| view! { <a rel="next" data-testid="next" href=format!("/docs/{s}")>{t}" →"</a> })}
                    </nav>
                </article>
            </div>
        }
        .into_any()
    }
}

/// A page's blocks and its byline.
fn page_body(page: &Page) -> impl IntoView {
    let byline = page.byline.clone().unwrap_or_default();
    let draft = byline.is_draft();
    view! {
        {draft.then(|| view! {
            <p class="draft-banner" role="note" data-testid="draft">
                "Draft: not yet read by a second person. What the build checks holds (every kernel here compiles and runs, every quoted message and transcript is the compiler's own); the prose may still be unclear: the byline below says who wrote it and when."
            </p>
        })}
        {page.blocks.iter().map(block_view).collect_view()}
        <footer class="byline" data-testid="byline">
            <p>
                {format!("Written by: {}. ", or_pending(&byline.written_by))}
                {format!("Reviewed by: {}. ", or_pending(&byline.reviewed_by))}
                {format!("Written on: {}. ", or_pending(&byline.written_on))}
                {format!("Last checked on: {}.", or_pending(&byline.last_checked_on))}
            </p>
        </footer>
    }
}

fn or_pending(text: &str) -> &str {
    if text.trim().is_empty() {
        "pending"
    } else {
        text
    }
}

/// Where a reader was on each docs page, so Back (from the playground, a full page load, or
/// within the site) returns there instead of to the top. The browser's own restoration cannot
/// do it: the page is drawn after the module loads, when the browser has given up.
mod scroll {
    use leptos::prelude::*;
    use std::cell::Cell;

    const KEY: &str = "tessera.scroll:";

    thread_local! {
        /// The next page shown comes from Back or Forward.
        static BACK_OR_FORWARD: Cell<bool> = Cell::new(came_back());
        /// Whether Back and Forward within the site are being noted.
        static NOTING: Cell<bool> = const { Cell::new(false) };
    }

    /// Whether this page load itself is a Back or Forward.
    fn came_back() -> bool {
        let entries = window()
            .performance()
            .map(|p| p.get_entries_by_type("navigation"));
        entries
            .and_then(|e| js_sys::Reflect::get(&e.get(0), &"type".into()).ok())
            .and_then(|t| t.as_string())
            .is_some_and(|t| t == "back_forward")
    }

    fn storage() -> Option<web_sys::Storage> {
        window().session_storage().ok().flatten()
    }

    /// The position to return to on `path`, once, after Back or Forward.
    pub fn take_restore(path: &str) -> Option<f64> {
        if !BACK_OR_FORWARD.with(|b| b.replace(false)) {
            return None;
        }
        storage()?
            .get_item(&format!("{KEY}{path}"))
            .ok()
            .flatten()?
            .parse()
            .ok()
    }

    /// Keeps the position on the current page as the reader scrolls (once it is `ready`), and notes Back and
    /// Forward within the site, for as long as the docs page is shown.
    pub fn keep_for(path: Memo<String>, ready: Signal<bool>) {
        let on_scroll = window_event_listener(leptos::ev::scroll, move |_| {
            // While a page is fetched the article is short, and the browser's scroll to fit
            // it is not the reader's.
            if !ready.get_untracked() {
                return;
            }
            let y = window().scroll_y().unwrap_or(0.0);
            if let Some(s) = storage() {
                let _ = s.set_item(&format!("{KEY}{}", path.get_untracked()), &y.to_string());
            }
        });
        // From then on, for every page: Back to a docs page starts elsewhere in the site.
        if !NOTING.with(|n| n.replace(true)) {
            let _kept = window_event_listener(leptos::ev::popstate, move |_| {
                BACK_OR_FORWARD.with(|b| b.set(true));
            });
        }
        on_cleanup(move || on_scroll.remove());
    }
}
