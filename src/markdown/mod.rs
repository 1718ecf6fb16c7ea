//! Markdown → small typed tree, for rendering model answers as DOM nodes.
//!
//! A pragmatic CommonMark/GFM subset. Guarantees: raw HTML is never interpreted (it stays
//! `Inline::Text`), links only carry http/https/mailto hrefs, no panics, no unsafe, bounded
//! recursion (quote/list and inline nesting capped at `MAX_DEPTH`; deeper markup stays text)
//! and near-linear time on any input.
//!
//! Inside: `blocks` reads lines into the block tree (paragraphs, headings, code,
//! quotes, lists, tables, rules) and hands the text of each paragraph, heading and
//! cell to `inlines`, which reads emphasis, code spans and links with a stack of
//! open delimiters. Data moves one way: text -> lines -> [`Block`]s -> [`Inline`]s.
#![forbid(unsafe_code)]

mod blocks;
mod inlines;
use blocks::*;
use inlines::*;

/// Deepest nesting of quotes/lists (blocks) and of emphasis/links (inlines).
const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Paragraph(Vec<Inline>),
    Heading(u8 /*1..=6*/, Vec<Inline>),
    /// Fenced (``` or ~~~, with optional info string kept as `lang`) or indented (4 spaces) code.
    Code {
        lang: Option<String>,
        text: String,
    },
    Quote(Vec<Block>),
    List {
        ordered: bool,
        start: u32,
        items: Vec<Vec<Block>>,
    },
    Rule,
    /// A GitHub-style pipe table (header row, separator row of dashes/colons, body rows).
    /// Body rows are cut to the header's width but never padded.
    Table {
        head: Vec<Vec<Inline>>,
        rows: Vec<Vec<Vec<Inline>>>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    Text(String),
    Code(String),
    Strong(Vec<Inline>),
    Emphasis(Vec<Inline>),
    Strike(Vec<Inline>),
    /// Only http, https and mailto targets become links; anything else (javascript:, data:, relative) stays text.
    Link {
        href: String,
        children: Vec<Inline>,
    },
    LineBreak,
}

pub fn parse(markdown: &str) -> Vec<Block> {
    let owned: Vec<String> = markdown.lines().map(expand_tabs).collect();
    blocks(&owned.iter().map(String::as_str).collect::<Vec<_>>(), 0)
}

// ------------------------------------------------------------------------------------ blocks

// ----------------------------------------------------------------------------------- inlines

#[cfg(test)]
mod tests;
