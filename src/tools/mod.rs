//! The agent's tools: Wikipedia, arXiv (with an OpenAlex fallback), a calculator and web
//! search. Each service module (`wikipedia.rs`, `arxiv.rs`, …) is pure: it builds request URLs
//! and turns response bodies into observations. `adapters` adds the I/O, through the
//! `Fetch` seam, so the same code runs against the browser's `fetch` and against fixtures in tests.
//!
//! Browsers enforce CORS: arXiv and DuckDuckGo send no CORS header, so a page cannot read
//! their answers directly. Those requests go, in order, through the CORS proxy set in Settings,
//! then the same-origin proxy `trunk serve` provides in development (`proxy/…`, see Trunk.toml),
//! and for arXiv finally to OpenAlex, which allows browser requests and indexes arXiv.
//!
//! Inside: `settings` holds what the person sets per tool (stored and sent as they are),
//! `build_tools` (here) turns those settings into the enabled tools, `adapters` holds the four
//! built-in tools as [`Tool`]s (input -> service URL -> `Fetch` -> observation), and `proxy`
//! decides how a request is routed (CORS proxy, dev proxy) and when the dev proxy is missing.

mod settings;
mod proxy;
mod adapters;
pub use settings::*;
pub use proxy::*;
pub use adapters::*;

pub mod arxiv;
pub mod calculator;
pub mod documents;
pub mod mcp;
pub mod openalex;
pub mod python;
pub mod text;
pub mod websearch;
pub mod wikipedia;

use std::cell::Cell;
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use crate::agent::tool::input_as_text;
use crate::agent::{ChatRequest, Clock, LocalBoxFuture, Message, Tool, ToolContext, ToolError};
use crate::net::{Fetch, FetchFailed, HttpResponse};

use text::ServiceError;

/// The enabled tools, ready for a run. The list (and so the prompt) holds only enabled tools.
pub fn build_tools(settings: &ToolSettings, fetch: Rc<dyn Fetch>, clock: Rc<dyn Clock>) -> Vec<Box<dyn Tool>> {
    let mut tools: Vec<Box<dyn Tool>> = Vec::new();
    if settings.wikipedia.common.enabled {
        tools.push(Box::new(Wikipedia { settings: settings.wikipedia.clone(), fetch: fetch.clone() }));
    }
    if settings.arxiv.common.enabled {
        tools.push(Box::new(Arxiv {
            settings: settings.arxiv.clone(),
            cors_proxy: settings.cors_proxy.clone(),
            fetch: fetch.clone(),
            clock,
            last_request_ms: Cell::new(None),
            dev_proxy_missing: Cell::new(false),
        }));
    }
    if settings.calculator.enabled {
        tools.push(Box::new(Calculator { settings: settings.calculator.clone() }));
    }
    if settings.web_search.common.enabled {
        tools.push(Box::new(WebSearch { settings: settings.web_search.clone(), cors_proxy: settings.cors_proxy.clone(), fetch, dev_proxy_missing: Cell::new(false) }));
    }
    tools
}

#[cfg(test)]
mod tests;
