//! Renders the Markdown tree of an answer (`crate::markdown`) as DOM nodes. Only elements
//! built here reach the page: text is always a text node, never parsed as HTML, and links
//! (already limited to http, https and mailto) open in a new tab without access to this one.
//!
//! The chat's answers are drawn through a part of the page (`answer`), fetched when the page is
//! idle or at once for a person coming back to a chat: a first visit's first screen has no
//! answer to draw. The trace's rows (a part themselves) draw `Markdown` directly.

use leptos::prelude::*;

use crate::markdown::{parse, Block, Inline};

/// Whether the Documents panel is open (a citation opens it), and the run and chat an answer
/// belongs to.
pub type Citing = (RwSignal<bool>, usize, RwSignal<crate::conversation::Conversation>);

crate::ui::services::parts::part!(markdown, preload = preload_answer, pub fn answer(text: String, citing: Option<Citing>) -> AnyView {
    if let Some(cites) = citing.and_then(|c| cites_of(&text, c)) {
        provide_context(cites);
    }
    view! { <Markdown text/> }.into_any()
});

/// The passages an answer of its run cites, when it cites any.
fn cites_of(answer: &str, (open, run, chat): Citing) -> Option<Cites> {
    if crate::documents::cited::cited_numbers(answer).is_empty() {
        return None;
    }
    let given = chat.with_untracked(|c| c.runs.get(run).map(|r| crate::documents::cited::given_in(r.shown_line().events)))?;
    (!given.is_empty()).then(|| Cites { given: std::sync::Arc::new(given), panel: open })
}

/// The passages an answer may cite (`[n]`, as the documents tool numbered them in its run),
/// and what opens one: each `[n]` of the answer's text becomes a link to passage `n`.
#[derive(Clone)]
pub struct Cites {
    pub given: std::sync::Arc<Vec<crate::documents::cited::Source>>,
    pub panel: RwSignal<bool>,
}

/// Text with each `[n]` that names a passage given as a link to it.
fn cited_text(text: &str, cites: &Cites) -> AnyView {
    let mut parts: Vec<AnyView> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let number = after.find(']').and_then(|close| after[..close].parse::<usize>().ok().map(|n| (n, close)));
        let Some((n, close)) = number.filter(|(n, _)| cites.given.iter().any(|s| s.number == *n)) else {
            parts.push(rest[..open + 1].to_string().into_any());
            rest = after;
            continue;
        };
        parts.push(rest[..open].to_string().into_any());
        let source = cites.given.iter().find(|s| s.number == n).cloned().expect("found above");
        let title = match source.page {
            Some(page) => format!("{}, page {page}", source.name),
            None => source.name.clone(),
        };
        let panel = cites.panel;
        let open = move |_| {
            crate::ui::services::documents::cite(source.clone());
            panel.set(true);
        };
        parts.push(view! { <button class="citation" data-testid="citation" title=title on:click=open>{format!("[{n}]")}</button> }.into_any());
        rest = &after[close + 1..];
    }
    parts.push(rest.to_string().into_any());
    parts.into_any()
}

#[component]
pub fn Markdown(text: String) -> impl IntoView {
    let blocks = parse(&text);
    view! { <div class="markdown">{blocks.iter().map(block).collect_view()}</div> }
}

fn inlines(items: &[Inline]) -> Vec<AnyView> {
    items.iter().map(inline).collect()
}

fn inline(item: &Inline) -> AnyView {
    match item {
        Inline::Text(t) => match use_context::<Cites>() {
            Some(cites) if t.contains('[') => cited_text(t, &cites),
            _ => t.clone().into_any(),
        },
        Inline::Code(t) => view! { <code>{t.clone()}</code> }.into_any(),
        Inline::Strong(c) => view! { <strong>{inlines(c)}</strong> }.into_any(),
        Inline::Emphasis(c) => view! { <em>{inlines(c)}</em> }.into_any(),
        Inline::Strike(c) => view! { <s>{inlines(c)}</s> }.into_any(),
        Inline::Link { href, children } => {
            view! { <a href=href.clone() target="_blank" rel="noopener noreferrer">{inlines(children)}</a> }.into_any()
        }
        Inline::LineBreak => view! { <br/> }.into_any(),
    }
}

fn block(item: &Block) -> AnyView {
    match item {
        Block::Paragraph(c) => view! { <p>{inlines(c)}</p> }.into_any(),
        // Answers sit inside a chat bubble under the page's own h1/h2: their headings start at h3.
        Block::Heading(level, c) => match level {
            1 | 2 => view! { <h3 class="md-h">{inlines(c)}</h3> }.into_any(),
            3 => view! { <h4 class="md-h">{inlines(c)}</h4> }.into_any(),
            4 => view! { <h5 class="md-h">{inlines(c)}</h5> }.into_any(),
            _ => view! { <h6 class="md-h">{inlines(c)}</h6> }.into_any(),
        },
        Block::Code { lang, text } => {
            let label = lang.clone().unwrap_or_default();
            view! { <pre class="md-code" data-lang=label><code>{text.clone()}</code></pre> }.into_any()
        }
        Block::Quote(blocks) => view! { <blockquote>{blocks.iter().map(block).collect_view()}</blockquote> }.into_any(),
        Block::List { ordered: true, start, items } => {
            view! { <ol start=start.to_string()>{list_items(items)}</ol> }.into_any()
        }
        Block::List { ordered: false, items, .. } => view! { <ul>{list_items(items)}</ul> }.into_any(),
        Block::Rule => view! { <hr/> }.into_any(),
        Block::Table { head, rows } => view! {
            <div class="md-table">
                <table>
                    <thead><tr>{head.iter().map(|cell| view! { <th>{inlines(cell)}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {rows.iter().map(|row| view! {
                            <tr>{row.iter().map(|cell| view! { <td>{inlines(cell)}</td> }).collect_view()}</tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any(),
    }
}

fn list_items(items: &[Vec<Block>]) -> Vec<AnyView> {
    items.iter().map(|blocks| view! { <li>{blocks.iter().map(block).collect_view()}</li> }.into_any()).collect()
}
