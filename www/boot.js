// Starts the app: loads the JavaScript module wasm-bindgen generated and runs the WebAssembly.
// A file of its own rather than Trunk's usual inline script, so the Content-Security-Policy in
// index.html can allow scripts from this site only. Trunk writes the hashed file names into
// the script tag's data attributes (`pattern_script` in Trunk.toml).

// The fatal banner, as src/browser.rs draws it (text only: the detail may quote anything).
function showFatal(message, detail) {
  if (document.querySelector('[data-testid="fatal-banner"]')) return;
  const banner = document.createElement('div');
  banner.className = 'fatal-banner';
  banner.setAttribute('role', 'alert');
  banner.setAttribute('data-testid', 'fatal-banner');
  banner.textContent = `${message} Details: ${detail}`;
  document.body.prepend(banner);
}

// The release build compiles panics to an immediate trap (docs/performance.md, "Bundle size"), so no Rust
// code runs after one and the Rust panic hook never sees it: the banner is shown from here. A
// trap is a WebAssembly.RuntimeError thrown to the JavaScript that called into the module: an
// event listener or timer (reported as an 'error' event) or a promise callback
// ('unhandledrejection'). Other errors are not the app's end and are left to the console.
const stopped = 'Thoughtline hit an internal error and stopped. Reload the page to continue.';
const isTrap = (error) => error instanceof WebAssembly.RuntimeError;
addEventListener('error', (event) => {
  if (isTrap(event.error)) showFatal(stopped, String(event.error));
});
addEventListener('unhandledrejection', (event) => {
  if (isTrap(event.reason)) showFatal(stopped, String(event.reason));
});

// A share link pasted into the address bar of an open page changes only its fragment, and so
// does leaving a shared run that way: the page is loaded again for it (src/ui/mod.rs, `mount`).
const opened = (hash) => hash.startsWith('#share=');
const sharedAtStart = opened(location.hash);
addEventListener('hashchange', () => {
  if (sharedAtStart || opened(location.hash)) location.reload();
});

const tag = document.querySelector('script[data-js][data-wasm]');
try {
  const { default: init } = await import(tag.dataset.js);
  await init({ module_or_path: tag.dataset.wasm });
  // Offline use and updates (www/offline.js): after the first screen, never in its way.
  setTimeout(() => import('./offline.js').catch(() => {}), 0);
} catch (error) {
  showFatal(
    isTrap(error) ? stopped : 'Thoughtline could not start. Reload the page to try again.',
    String(error),
  );
  throw error;
}
