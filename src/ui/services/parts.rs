//! Parts of the page that load on first use. The shipped page is split (`scripts/split-link`,
//! docs/performance.md, "Bundle size"): the code only a part reaches goes into a file of its own, fetched the
//! first time the part is called, so the page a person waits for holds only what the first
//! screen needs.
//!
//! **Adding a part** is a line in `MANIFEST` (its chunk, what a person calls it, when it is
//! fetched), the feature's own `part!`, and, for a part fetched ahead, its preload in
//! `ui/ahead.rs` (tests fail until all are there); a part that
//! draws something is shown with `part_view`, the one way a part is waited for, said missing
//! and tried again. A part is declared with `part!`, which makes it an `async fn` returning
//! `Result<_, PartMissing>`:
//!
//! - in the shipped page (built with `--cfg thoughtline_split`) its body is a split point of
//!   `wasm_split` (the crate Leptos's `#[lazy]` is built on), fetched on the first call; a
//!   fetch that fails is a `PartMissing`, never a panic, and the next call tries again;
//! - everywhere else (`trunk serve`, the browser tests, native tests) the body runs directly and
//!   the result is always `Ok`.
//!
//! Each part also gets a `preload` function that fetches it without calling it (its error is
//! ignored: the call that needs the part reports it).

use leptos::prelude::*;

/// When a part is fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetched {
    /// As the page starts, for a person coming back to a chat (it is then being opened).
    Returning,
    /// Once the first screen is up and the browser is idle.
    Idle,
    /// At idle too, where the settings say it will be needed.
    IdleIf(Needs),
    /// When the pointer or the focus reaches the control that opens it.
    Hover,
    /// When it is first needed.
    OnUse,
}

/// What in the settings makes a part worth fetching ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// An MCP server is in use (its calls may wait for approval).
    McpServer,
    /// The provider is the model in this page.
    ModelInPage,
    /// Finished runs go to an OpenTelemetry collector.
    Collector,
}

impl Needs {
    fn holds(self, settings: &crate::app::settings::Settings) -> bool {
        match self {
            Needs::McpServer => settings.tools.mcp.servers.iter().any(|s| s.common.enabled && !s.url.trim().is_empty()),
            Needs::ModelInPage => settings.provider.preset.in_page(),
            Needs::Collector => settings.collector.is_on(),
        }
    }
}

/// One part of the page.
#[derive(Debug, Clone, Copy)]
pub struct Part {
    /// The chunk it becomes (`part!`'s first word).
    pub chunk: &'static str,
    /// What a person calls it, in "… could not be loaded".
    pub what: &'static str,
    pub fetched: &'static [Fetched],
}

use Fetched::{Hover, Idle, IdleIf, OnUse, Returning};

/// Every part of the page, one line each, in the order parts fetched at idle are fetched
/// (saving before the engine: a question is saved as it is sent, and a save that waited for
/// the engine's download would be lost to a reload). `ahead.rs` fetches them as it says.
pub const MANIFEST: &[Part] = &[
    Part { chunk: "save_chat", what: "Saving", fetched: &[Idle] },
    Part { chunk: "save_settings", what: "Saving settings", fetched: &[Idle] },
    Part { chunk: "run", what: "The agent", fetched: &[Idle] },
    Part { chunk: "markdown", what: "The answer", fetched: &[Returning, Idle] },
    Part { chunk: "trace_rows", what: "The trace's steps", fetched: &[Returning, Idle] },
    Part { chunk: "otel_send", what: "Sending runs to the collector", fetched: &[IdleIf(Needs::Collector)] },
    Part { chunk: "find_bar", what: "Finding steps", fetched: &[Idle] },
    Part { chunk: "approval", what: "The panel for approvals and servers' questions", fetched: &[IdleIf(Needs::McpServer), OnUse] },
    Part { chunk: "mcp_views", what: "Views of tools' results", fetched: &[OnUse] },
    Part { chunk: "in_page_warm", what: "Readying the model in this page", fetched: &[IdleIf(Needs::ModelInPage)] },
    Part { chunk: "chat_list", what: "The chat list", fetched: &[Returning, Idle] },
    Part { chunk: "read_chat", what: "Reading chats", fetched: &[Returning, OnUse] },
    Part { chunk: "open_chats", what: "Opening your chats", fetched: &[Returning, OnUse] },
    Part { chunk: "move_legacy", what: "Moving the earlier version's chats", fetched: &[OnUse] },
    Part { chunk: "read_settings", what: "Reading your settings", fetched: &[OnUse] },
    Part { chunk: "settings", what: "Settings", fetched: &[Hover] },
    Part { chunk: "compare", what: "Compare", fetched: &[Hover] },
    Part { chunk: "evaluations", what: "Evaluations", fetched: &[Hover] },
    Part { chunk: "documents", what: "Documents", fetched: &[Hover] },
    Part { chunk: "read_documents", what: "Reading your documents", fetched: &[OnUse] },
    Part { chunk: "export_file", what: "Export", fetched: &[Hover] },
    Part { chunk: "import_file", what: "Import", fetched: &[Hover] },
    Part { chunk: "mcp_compose", what: "MCP prompts and resources", fetched: &[OnUse] },
    Part { chunk: "first_look", what: "The model in this page's offer", fetched: &[OnUse] },
    Part { chunk: "in_page_status", what: "The model in this page's status", fetched: &[OnUse] },
];

/// What to fetch ahead, in the manifest's order: at once (for a person coming back to a chat,
/// `returning`) and once the browser is idle (the parts fetched at idle whose `Needs` the
/// settings meet).
pub fn ahead(settings: &crate::app::settings::Settings, returning: bool) -> (Vec<&'static Part>, Vec<&'static Part>) {
    let now = MANIFEST.iter().filter(|p| returning && p.fetched.contains(&Returning)).collect();
    let idle = MANIFEST.iter().filter(|p| p.fetched.iter().any(|f| *f == Idle || matches!(f, IdleIf(needs) if needs.holds(settings)))).collect();
    (now, idle)
}

/// What a person calls the part that becomes `chunk`.
pub fn what(chunk: &str) -> &'static str {
    MANIFEST.iter().find(|p| p.chunk == chunk).map_or("Part of this page", |p| p.what)
}

/// What stands around a part's "could not be loaded" notice, where the part would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Around {
    Nothing,
    /// Over the page, as Settings is.
    Overlay,
}

/// A part's view on its way: what `part_view`'s `load` returns (boxed, so that the waiting,
/// the notice and Try again are compiled once for every part, not once per part).
pub type PartFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Result<AnyView, PartMissing>> + Send>>;

/// The one way a view shows a part: `load` calls it (fetching it the first time); while it is on
/// its way the page's "Loading …" line names it when `announce` is given; when it cannot be
/// fetched, the notice says what is missing and what to do, with Try again.
pub fn part_view(chunk: &'static str, load: impl Fn() -> PartFuture + Send + Sync + 'static, announce: Option<RwSignal<Vec<&'static str>>>, around: Around) -> AnyView {
    shown(chunk, std::sync::Arc::new(load), announce, around)
}

/// A view of the top bar's built (and, in the shipped page, fetched) the first time `open` is
/// set, not on load, then hidden rather than removed, so that what goes on in it (a comparison,
/// an evaluation, indexing) goes on while it is closed. One function for every such view: each
/// costs the first load its call only.
pub fn kept(class: &'static str, open: RwSignal<bool>, chunk: &'static str, load: std::sync::Arc<dyn Fn() -> PartFuture + Send + Sync>, announce: RwSignal<Vec<&'static str>>, around: Around) -> AnyView {
    let opened = Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || open.get());
    view! {
        <div class=class hidden=move || !open.get()>
            {move || opened.get().then(|| shown(chunk, load.clone(), Some(announce), around))}
        </div>
    }
    .into_any()
}

fn shown(chunk: &'static str, load: std::sync::Arc<dyn Fn() -> PartFuture + Send + Sync>, announce: Option<RwSignal<Vec<&'static str>>>, around: Around) -> AnyView {
    let retry = RwSignal::new(0u32);
    (move || {
        retry.track();
        let part = load();
        Suspend::new(async move {
            let got = match announce {
                Some(loading) => waiting_for(loading, what(chunk), part).await,
                None => part.await,
            };
            got.unwrap_or_else(|missing| missing_view(missing, chunk, retry, around))
        })
    })
    .into_any()
}

/// Awaits a part, saying "Loading …" meanwhile. A part already fetched is ready at the first
/// poll, so the note is set and cleared in one go and never drawn; one closed while on its way
/// (its future dropped) clears the note too.
async fn waiting_for(loading: RwSignal<Vec<&'static str>>, what: &'static str, part: PartFuture) -> Result<AnyView, PartMissing> {
    struct Clear(RwSignal<Vec<&'static str>>, &'static str);
    impl Drop for Clear {
        fn drop(&mut self) {
            let what = self.1;
            self.0.update(|parts| {
                if let Some(at) = parts.iter().position(|p| *p == what) {
                    parts.remove(at);
                }
            });
        }
    }
    loading.update(|parts| parts.push(what));
    let _clear = Clear(loading, what);
    part.await
}

/// Shown where a part that could not be fetched would be, with a button that tries again.
fn missing_view(missing: PartMissing, chunk: &'static str, retry: RwSignal<u32>, around: Around) -> AnyView {
    let notice = view! {
        <div class="notice error part-missing" role="alert" data-testid="part-missing">
            <span>{missing.message(what(chunk))}</span>
            <button class="ghost" data-testid="part-retry" on:click=move |_| retry.update(|n| *n += 1)>"Try again"</button>
        </div>
    };
    match around {
        Around::Nothing => notice.into_any(),
        Around::Overlay => view! { <div class="part-overlay">{notice}</div> }.into_any(),
    }
}

/// A part of the page could not be fetched: the network is down, or the site was updated and
/// this page's files are gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartMissing;

impl PartMissing {
    /// What a person reads: which part (`what`, e.g. "Settings") and what to do.
    pub fn message(self, what: &str) -> String {
        format!(
            "{what} could not be loaded: part of this page did not arrive from the site. Check the connection and try again; if the site was updated since this page was opened, reload it."
        )
    }
}

#[cfg(thoughtline_split)]
impl From<leptos::wasm_split::SplitLoaderError> for PartMissing {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        PartMissing
    }
}

/// `part!(chunk, preload = NAME, VIS fn NAME(ARG: TYPE, ...) -> TYPE { BODY })` declares
/// `VIS async fn NAME(...) -> Result<TYPE, PartMissing>` and
/// `VIS async fn PRELOAD() -> Result<(), PartMissing>`. Each part names its `chunk` (the file it
/// becomes); functions naming the same chunk are fetched together, in one file. Arguments and the result cross the split
/// as plain values, so the function has no generics and no receiver.
macro_rules! part {
    ($chunk:ident, preload = $preload:ident, $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        #[cfg(thoughtline_split)]
        #[::leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, fallible)]
        $vis fn $name($($arg: $ty),*) -> Result<$ret, $crate::ui::services::parts::PartMissing> {
            Ok($body)
        }

        /// Fetches the part ahead of its first call (it is not fetched twice).
        #[cfg(thoughtline_split)]
        #[allow(dead_code)]
        $vis async fn $preload() -> Result<(), $crate::ui::services::parts::PartMissing> {
            #[::leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, fallible)]
            fn fetched() -> Result<(), $crate::ui::services::parts::PartMissing> {
                Ok(())
            }
            fetched().await
        }

        #[cfg(not(thoughtline_split))]
        $vis async fn $name($($arg: $ty),*) -> Result<$ret, $crate::ui::services::parts::PartMissing> {
            Ok($body)
        }

        /// Fetches the part ahead of its first call (without the split: nothing to fetch).
        #[cfg(not(thoughtline_split))]
        #[allow(dead_code)]
        $vis async fn $preload() -> Result<(), $crate::ui::services::parts::PartMissing> {
            Ok(())
        }
    };
}

pub(crate) use part;

#[cfg(test)]
mod tests;
