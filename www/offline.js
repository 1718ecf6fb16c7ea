// Installs the service worker (www/sw.js, written into the built site by
// scripts/service-worker.mjs) once the page runs, and says when a new version is ready.
// boot.js imports this after the app has started, so it is never part of the first load.
//
// - An update is offered, never forced: "A new version is ready" with Reload and Later. Reload
//   switches to the new version and reloads; everything the page holds is saved on the way
//   out, as on any reload.
// - Cross-origin isolation: pages the worker serves carry the COOP/COEP headers, so only the
//   first visit runs without them. For someone who chose the model in the page, that first
//   visit is reloaded as soon as the worker is ready, if nothing is typed and nothing runs.

const found = (testid) => document.querySelector(`[data-testid="${testid}"]`);

/** Nothing would be lost by reloading now: the question box is empty and no run goes on. */
function quiet() {
  const composer = found('composer');
  return (!composer || composer.value === '') && !found('stop');
}

function wantsThreads() {
  try {
    return JSON.parse(localStorage.getItem('thoughtline.settings') || '{}').preset === 'in-page';
  } catch {
    return false;
  }
}

let switching = false;

function offer(worker) {
  if (found('update-ready')) return;
  const banner = document.createElement('div');
  banner.className = 'update-banner';
  banner.setAttribute('role', 'status');
  banner.setAttribute('data-testid', 'update-ready');
  const text = document.createElement('span');
  text.textContent = 'A new version of Thoughtline is ready.';
  const reload = document.createElement('button');
  reload.type = 'button';
  reload.className = 'primary small';
  reload.textContent = 'Reload';
  reload.setAttribute('data-testid', 'update-reload');
  reload.addEventListener('click', () => {
    switching = true;
    // Another tab may have switched already: then this one only needs its reload.
    if (worker.state === 'activated' || worker.state === 'redundant') location.reload();
    else worker.postMessage('switch-now');
  });
  const later = document.createElement('button');
  later.type = 'button';
  later.className = 'ghost small';
  later.textContent = 'Later';
  later.setAttribute('data-testid', 'update-later');
  later.addEventListener('click', () => banner.remove());
  banner.append(text, reload, later);
  document.body.append(banner);
}

async function start() {
  const container = navigator.serviceWorker;
  const hadController = !!container.controller;
  let registration;
  try {
    registration = await container.register('sw.js');
  } catch {
    return; // a development server without sw.js, or a browser that refuses workers
  }
  if (!registration) return; // workers blocked (as a test harness may do)
  const watch = (worker) => {
    worker?.addEventListener('statechange', () => {
      if (worker.state === 'installed' && container.controller) offer(worker);
    });
  };
  if (registration.waiting && container.controller) offer(registration.waiting);
  watch(registration.installing);
  registration.addEventListener('updatefound', () => watch(registration.installing));
  container.addEventListener('controllerchange', () => {
    if (switching) location.reload();
    else if (!hadController && !globalThis.crossOriginIsolated && wantsThreads() && quiet()) location.reload();
  });
  // A new build is looked for when the page is shown again, and every hour.
  const check = () => registration.update().catch(() => {});
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') check();
  });
  setInterval(check, 60 * 60 * 1000);
}

if ('serviceWorker' in navigator && isSecureContext) start().catch(() => {});
