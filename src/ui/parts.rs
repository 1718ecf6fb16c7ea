//! Parts of the page that load on first use. The shipped page is split (`scripts/split-link`,
//! docs/performance.md, "Bundle size"): the code only a part reaches goes into a file of its own, fetched the
//! first time the part is called, so the page a person waits for holds only what the first
//! screen needs. A part is declared with `part!`, which makes it an `async fn` returning
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
/// `VIS async fn PRELOAD() -> Result<(), PartMissing>`. Each part names its own `chunk` (the
/// file it becomes; a name used twice fails the link). Arguments and the result cross the split
/// as plain values, so the function has no generics and no receiver.
macro_rules! part {
    ($chunk:ident, preload = $preload:ident, $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        #[cfg(thoughtline_split)]
        #[::leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, fallible)]
        $vis fn $name($($arg: $ty),*) -> Result<$ret, $crate::ui::parts::PartMissing> {
            Ok($body)
        }

        /// Fetches the part ahead of its first call (it is not fetched twice).
        #[cfg(thoughtline_split)]
        #[allow(dead_code)]
        $vis async fn $preload() -> Result<(), $crate::ui::parts::PartMissing> {
            #[::leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, fallible)]
            fn fetched() -> Result<(), $crate::ui::parts::PartMissing> {
                Ok(())
            }
            fetched().await
        }

        #[cfg(not(thoughtline_split))]
        $vis async fn $name($($arg: $ty),*) -> Result<$ret, $crate::ui::parts::PartMissing> {
            Ok($body)
        }

        /// Fetches the part ahead of its first call (without the split: nothing to fetch).
        #[cfg(not(thoughtline_split))]
        #[allow(dead_code)]
        $vis async fn $preload() -> Result<(), $crate::ui::parts::PartMissing> {
            Ok(())
        }
    };
}

pub(crate) use part;

#[cfg(test)]
mod tests;
