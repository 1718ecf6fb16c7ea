fn main() {
    #[cfg(target_arch = "wasm32")]
    thoughtline::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("Thoughtline is a web page: run scripts/serve to open it (see README.md).");
}
