//! Thoughtline: a ReAct chat agent that runs entirely in the browser.
//!
//! Start with `agent` (the core: prompt, parser, loop, trace; no browser code), then `llm`
//! (model providers over the `net::Fetch` seam), `tools`, `storage` (IndexedDB and
//! localStorage) and `ui` (the Leptos app).
//! ARCHITECTURE.md has the map and the flow of one question.

pub mod agent;
pub mod app;
pub mod base;
pub mod conversation;
pub mod documents;
pub mod in_page;
pub(crate) mod json_read;
pub mod llm;
pub mod markdown;
pub mod net;
pub mod number;
pub mod otel;
pub mod secrets;
pub mod sort;
pub mod tools;
pub mod storage;
pub mod ui;

#[cfg(target_arch = "wasm32")]
pub mod browser;

/// The house rules a lint would check, read from the sources.
#[cfg(test)]
mod lints;

/// Helpers shared by the unit tests.
#[cfg(test)]
pub(crate) mod test_support {
    /// A recorded response from tests/fixtures (its README says where each came from).
    pub fn fixture(path: &str) -> String {
        let full = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("cannot read fixture {full}: {e}"))
    }

    /// The random tests' generator (xorshift64*): deterministic, so a failing case is replayed
    /// by its seed, and dependency-free.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Self {
            // Zero would stay zero for ever.
            Rng(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
        }
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        /// A number in `0..n` (`n` > 0).
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())].clone()
        }
    }
}

/// Entry point of the page: install the panic hook, then mount the app.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    browser::install_panic_hook();
    ui::mount();
}
