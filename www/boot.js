// Starts the app: loads the JavaScript module wasm-bindgen generated and runs the WebAssembly.
// A file of its own rather than Trunk's usual inline script, so the Content-Security-Policy in
// index.html can allow scripts from this site only. Trunk writes the hashed file names into
// the script tag's data attributes (`pattern_script` in Trunk.toml).
const tag = document.querySelector('script[data-js][data-wasm]');
const { default: init } = await import(tag.dataset.js);
await init({ module_or_path: tag.dataset.wasm });
