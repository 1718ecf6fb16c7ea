//! The document under the trace pane, for the views that draw it: moving the focus from row to
//! row, scrolling a row into view, marking the words a search found (the CSS Custom Highlight
//! API), focusing a timeline's bar, and the few other reads and writes of elements a view
//! asks for. Views hand in their node references and events; only this file names the
//! browser's element types.

use leptos::prelude::*;

/// Why a row could not be brought into view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowNotShown {
    /// The list does not draw it (it draws a run's last rows only).
    NotDrawn,
    /// The list's filter hides it.
    Hidden,
}

/// Brings the row of event `index` into view and focuses it (a bar of the timeline was
/// clicked), or says why it cannot.
#[cfg(target_arch = "wasm32")]
pub fn open_row(pane: NodeRef<leptos::html::Section>, index: u32) -> Result<(), RowNotShown> {
    let row = pane.get_untracked().and_then(|p| p.query_selector(&format!("li.event[data-index=\"{index}\"]")).ok().flatten());
    let Some(row) = row.and_then(|r| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(r).ok()) else {
        return Err(RowNotShown::NotDrawn);
    };
    if row.hidden() {
        return Err(RowNotShown::Hidden);
    }
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Center);
    row.scroll_into_view_with_scroll_into_view_options(&options);
    let _ = row.focus();
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
pub fn open_row(_pane: NodeRef<leptos::html::Section>, _index: u32) -> Result<(), RowNotShown> {
    Ok(())
}

/// Focuses the element under `root` that `selector` finds, if any.
pub fn focus_within(root: &web_sys::Element, selector: &str) {
    if let Ok(Some(found)) = root.query_selector(selector) {
        if let Ok(found) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(found) {
            let _ = found.focus();
        }
    }
}

/// The last child of the element an event happened on, when it has no text yet: an opened
/// request's details, filled once. `fill` gives the text.
pub fn fill_once(ev: &leptos::ev::Event, fill: impl FnOnce() -> String) {
    let Some(pre) = event_target::<web_sys::Element>(ev).last_element_child() else { return };
    if pre.text_content().is_some_and(|text| !text.is_empty()) {
        return;
    }
    pre.set_text_content(Some(&fill()));
}

/// Closes a `<details>` menu (a choice was made in it).
pub fn close_menu(menu: &web_sys::Element) {
    let _ = menu.remove_attribute("open");
}

/// Closes a `<details>` menu when a button in it was pressed (a field in it, such as a
/// `<select>`, keeps it open while the person chooses).
pub fn close_menu_after_choice(ev: &leptos::ev::MouseEvent, menu: &web_sys::Element) {
    let pressed = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()).is_some_and(|e| e.tag_name() == "BUTTON");
    if pressed {
        close_menu(menu);
    }
}

/// Closes the `<details>` menu when the pointer goes down anywhere outside it, as menus do,
/// for as long as the caller lives.
pub fn close_menu_from_outside(menu: NodeRef<leptos::html::Details>) {
    let listening = window_event_listener(leptos::ev::pointerdown, move |ev| {
        let Some(menu) = menu.get_untracked() else { return };
        if !menu.has_attribute("open") {
            return;
        }
        let inside = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Node>(t).ok()).is_some_and(|node| menu.contains(Some(&node)));
        if !inside {
            close_menu(&menu);
        }
    });
    on_cleanup(move || listening.remove());
}

/// Where the trace's find bar stands: in the pane's toolbar, beside its actions, so that the
/// pane keeps one row above its first step; in the pane's head when it has no toolbar.
pub fn find_bar_place(pane: NodeRef<leptos::html::Section>) -> Option<web_sys::Element> {
    let pane = pane.get_untracked()?;
    let at = |selector: &str| pane.query_selector(selector).ok().flatten();
    at(":scope > .trace-head > [role=toolbar]").or_else(|| at(":scope > .trace-head"))
}

/// Draws `view` at the end of `place`, an element another view drew, for as long as the
/// caller lives (it goes with the caller's owner).
#[cfg(target_arch = "wasm32")]
pub fn draw_in(place: web_sys::Element, view: impl FnOnce() -> AnyView + 'static) {
    let drawn = leptos::mount::mount_to(wasm_bindgen::JsCast::unchecked_into(place), view);
    // Dropped, and so taken off the page, when the caller's owner is cleaned up.
    StoredValue::new_local(drawn);
}

#[cfg(not(target_arch = "wasm32"))]
pub fn draw_in(_place: web_sys::Element, _view: impl FnOnce() -> AnyView + 'static) {}

/// The file field of the pane's Import, when the pane has one (a chat's own trace does).
fn import_field(pane: NodeRef<leptos::html::Section>) -> Option<web_sys::HtmlElement> {
    let field = pane.get_untracked()?.query_selector("[data-testid=import]").ok().flatten()?;
    wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(field).ok()
}

pub fn has_import(pane: NodeRef<leptos::html::Section>) -> bool {
    import_field(pane).is_some()
}

/// Opens the Import's file chooser (a menu's "Import…", in the click that chose it).
pub fn choose_import(pane: NodeRef<leptos::html::Section>) {
    if let Some(field) = import_field(pane) {
        field.click();
    }
}

/// Selects the whole text of the field that got the focus (a link to copy).
pub fn select_all(ev: &leptos::ev::FocusEvent) {
    event_target::<web_sys::HtmlInputElement>(ev).select();
}

pub fn typing(ev: &leptos::ev::KeyboardEvent) -> bool {
    let Some(target) = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()) else { return false };
    matches!(target.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT" | "BUTTON" | "SUMMARY") || target.closest("[contenteditable]").ok().flatten().is_some()
}

pub fn row_element(pane: NodeRef<leptos::html::Section>, index: u32) -> Option<web_sys::Element> {
    pane.get_untracked()?.query_selector(&format!("li.event[data-index=\"{index}\"]")).ok().flatten()
}

pub fn scroll_to(row: &web_sys::Element) {
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    row.scroll_into_view_with_scroll_into_view_options(&options);
}

/// The rows a person can move between: drawn and not filtered out.
pub fn visible_rows(pane: NodeRef<leptos::html::Section>) -> Vec<web_sys::HtmlElement> {
    let Some(list) = pane.get_untracked().and_then(|p| p.query_selector_all("li.event:not([hidden])").ok()) else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(n).ok()).collect()
}

pub fn focused_row(rows: &[web_sys::HtmlElement]) -> Option<usize> {
    let active = web_sys::window()?.document()?.active_element()?;
    let row = active.closest("li.event").ok()??;
    rows.iter().position(|r| **r == row)
}

pub fn focus(row: &web_sys::HtmlElement) {
    let _ = row.focus();
    scroll_to(row);
}

/// Moves the focus `by` rows (`i32::MIN`/`MAX`: to the first/last); from outside the rows, to
/// the first (down) or the last (up).
pub fn move_focus(pane: NodeRef<leptos::html::Section>, by: i32) -> bool {
    let rows = visible_rows(pane);
    if rows.is_empty() {
        return false;
    }
    let last = rows.len() as i64 - 1;
    let to = match (focused_row(&rows), by) {
        (_, i32::MIN) => 0,
        (_, i32::MAX) => last,
        (None, by) if by > 0 => 0,
        (None, _) => last,
        (Some(at), by) => (at as i64 + by as i64).clamp(0, last),
    };
    focus(&rows[to as usize]);
    true
}

/// Focuses the next red row after the focused one (or from the top), wrapping around.
pub fn next_error(pane: NodeRef<leptos::html::Section>) -> bool {
    let rows = visible_rows(pane);
    let from = focused_row(&rows).map_or(0, |at| at + 1);
    let is_error = |r: &web_sys::HtmlElement| r.get_attribute("data-tone").as_deref() == Some("error");
    let found = rows[from.min(rows.len())..].iter().find(|r| is_error(r)).or_else(|| rows.iter().find(|r| is_error(r)));
    if let Some(row) = found {
        focus(row);
    }
    true
}

pub fn focus_search(pane: NodeRef<leptos::html::Section>) -> bool {
    let Some(input) = pane.get_untracked().and_then(|p| p.query_selector("[data-testid=trace-search]").ok().flatten()) else { return false };
    wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(input).is_ok_and(|i| i.focus().is_ok())
}

/// Enter on a focused row presses its "Show all".
pub fn toggle_focused(ev: &leptos::ev::KeyboardEvent) -> bool {
    let Some(row) = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()).filter(|e| e.tag_name() == "LI") else { return false };
    let Some(button) = row.query_selector("[data-testid=show-all]").ok().flatten() else { return false };
    wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(button).is_ok_and(|b| {
        b.click();
        true
    })
}

/// Marks the words that match with the CSS Custom Highlight API (no change to the rows' DOM,
/// so a row is never redrawn for a search). Only the matching rows on screen, and a screen
/// above and below, are walked: marked again when the person scrolls. A browser without the
/// API still marks the matching rows themselves.
#[cfg(target_arch = "wasm32")]
pub fn highlight(pane: NodeRef<leptos::html::Section>, query: &str) {
    const MARKED_ROWS: usize = 80;
    let Some(registry) = highlights() else { return };
    registry.delete("trace-match");
    let needle: Vec<u16> = query.trim().to_lowercase().encode_utf16().collect();
    let (Some(pane), Some(document)) = (pane.get_untracked(), web_sys::window().and_then(|w| w.document())) else { return };
    if needle.is_empty() {
        return;
    }
    let Ok(rows) = pane.query_selector_all("li.event.hit:not([hidden])") else { return };
    let view = pane.get_bounding_client_rect();
    let (top, bottom) = (view.top() - view.height(), view.bottom() + view.height());
    let near = (0..rows.length())
        .filter_map(|i| rows.item(i))
        .filter_map(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
        .skip_while(|row| row.get_bounding_client_rect().bottom() < top)
        .take_while(|row| row.get_bounding_client_rect().top() <= bottom)
        .take(MARKED_ROWS);
    let marks = Highlight::new();
    for row in near {
        // 4: NodeFilter.SHOW_TEXT.
        let Ok(walker) = document.create_tree_walker_with_what_to_show(&row, 4) else { continue };
        while let Ok(Some(node)) = walker.next_node() {
            let Some(text) = node.text_content() else { continue };
            let hay: Vec<u16> = text.to_lowercase().encode_utf16().collect();
            if hay.len() != text.encode_utf16().count() {
                continue; // Lower-casing changed the length: offsets would not line up.
            }
            let mut from = 0;
            while let Some(at) = hay[from..].windows(needle.len()).position(|w| w == needle.as_slice()) {
                let start = (from + at) as u32;
                if let Ok(range) = document.create_range() {
                    if range.set_start(&node, start).is_ok() && range.set_end(&node, start + needle.len() as u32).is_ok() {
                        marks.add(&range);
                    }
                }
                from += at + needle.len();
            }
        }
    }
    registry.set("trace-match", &marks);
}

#[cfg(not(target_arch = "wasm32"))]
pub fn highlight(_pane: NodeRef<leptos::html::Section>, _query: &str) {}

#[cfg(target_arch = "wasm32")]
mod custom_highlight {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// `Highlight`: a set of ranges the page's CSS styles with `::highlight(name)`.
        pub type Highlight;
        #[wasm_bindgen(constructor)]
        pub fn new() -> Highlight;
        #[wasm_bindgen(method)]
        pub fn add(this: &Highlight, range: &web_sys::Range);

        /// `CSS.highlights`.
        pub type HighlightRegistry;
        #[wasm_bindgen(method)]
        pub fn set(this: &HighlightRegistry, name: &str, highlight: &Highlight);
        #[wasm_bindgen(method)]
        pub fn delete(this: &HighlightRegistry, name: &str);
    }

    /// The page's highlight registry, where the browser has one (Chromium 105, Safari 17.2,
    /// Firefox 140).
    pub fn highlights() -> Option<HighlightRegistry> {
        let css = js_sys::Reflect::get(&js_sys::global(), &"CSS".into()).ok()?;
        let registry = js_sys::Reflect::get(&css, &"highlights".into()).ok()?;
        if registry.is_undefined() || registry.is_null() {
            return None;
        }
        Some(registry.unchecked_into())
    }
}

#[cfg(target_arch = "wasm32")]
use custom_highlight::{highlights, Highlight};

/// The part (`data-part`) a top-bar button opens, when the pointer or the focus reached one:
/// one listener fetches ahead for every button (`ahead::fetch`).
pub fn part_reached(ev: &leptos::ev::Event) -> Option<String> {
    use wasm_bindgen::JsCast;
    let element = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    element.closest("[data-part]").ok()??.get_attribute("data-part")
}
