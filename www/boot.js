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

// The first screen (www/index.html, www/early.js) stays until the app says it is up
// (`data-app` on <html>, src/ui/services/page.rs): then, in one go before the next frame, what
// was typed there moves into the app's composer with its caret and focus, the first screen goes,
// the page says it is ready (`data-ready`, and the mark `tl-ready` the benchmark reads) and a
// question sent early is sent, as any question is.
const root = document.documentElement;
const ASKED = 'thoughtline.asked-early';
function handOver() {
  const shell = document.getElementById('shell');
  const composer = document.querySelector('.app:not(#shell) [data-testid="composer"]');
  const typed = shell?.querySelector('textarea');
  const focused = typed && document.activeElement === typed;
  // Read before the first screen goes: a box taken out of the page may lose its selection.
  const { value = '', selectionStart = 0, selectionEnd = 0, selectionDirection = 'none' } = typed ?? {};
  const type = (text) => {
    composer.value = text;
    composer.dispatchEvent(new Event('input', { bubbles: true }));
  };
  shell?.remove();
  root.dataset.ready = '';
  performance.mark('tl-ready');
  if (!composer) return;
  let asked = null;
  try {
    asked = localStorage.getItem(ASKED);
  } catch {}
  if (asked) {
    type(asked);
    composer.form.requestSubmit();
    // The app has it now: kept in its journal if it ran, in its chat if it was refused, or
    // still in the box if a run was going on.
    try {
      localStorage.removeItem(ASKED);
    } catch {}
  }
  if (value) {
    // After the app's own answer to the send above, which empties its box.
    const restore = () => {
      type(value);
      composer.setSelectionRange(selectionStart, selectionEnd, selectionDirection);
    };
    if (asked) setTimeout(restore, 0);
    else restore();
  }
  if (focused) composer.focus();
}
// A word being composed with an input method is finished in the first screen's box first:
// an input method's state cannot move to another box.
function handOverAfterComposing() {
  const typed = document.querySelector('#shell textarea');
  if (typed?.dataset.composing) typed.addEventListener('compositionend', () => setTimeout(handOver, 0), { once: true });
  else handOver();
}
const whenUp = () => {
  if (root.hasAttribute('data-app')) return handOverAfterComposing();
  new MutationObserver((_, watch) => {
    if (root.hasAttribute('data-app')) {
      watch.disconnect();
      handOverAfterComposing();
    }
  }).observe(root, { attributes: true, attributeFilter: ['data-app'] });
};

const tag = document.querySelector('script[data-js][data-wasm]');
try {
  const { default: init } = await import(tag.dataset.js);
  whenUp();
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
