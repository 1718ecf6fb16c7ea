// Thoughtline's service worker: the page's own files kept in this browser, so the page opens
// (and, with a kept in-page model, answers) offline; and the cross-origin isolation headers
// added to those files, so the model in the page can use every core on hosts that cannot
// send headers (GitHub Pages). scripts/service-worker.mjs writes dist/sw.js from this file,
// with the build's file list in front: `BUILD` (a name for this build) and `FILES`
// ({ path relative to this folder: SHA-256 of its content, hex }).
//
// What it keeps: only files of that list, each stored under its content hash, so a file that
// did not change between two builds is never fetched twice. Nothing else is touched: requests
// to providers, tools, MCP servers and model files go to the network as if there were no
// worker, so no response carrying a key or a person's data is ever kept here.
//
// Updates: a new build is a new sw.js. It installs beside the running one and waits; the page
// says "a new version is ready" (www/offline.js) and switches only when the person reloads.
/* global BUILD, FILES */

const STORE = 'thoughtline-files';
const META = 'thoughtline-builds';
const scope = new URL(self.registration.scope);
const keyOf = (hash) => new URL(`__kept/${hash}`, scope).href;
// The engine of the model in the page, the PDF reader and Python are large (megabytes): kept
// when first used, and on an update only for someone who had used them.
const onUse = (path) => path.startsWith('in-page/') || path.startsWith('pdf/') || path.startsWith('python/');

// The headers that make the page cross-origin isolated (COOP + COEP), and a CORP header so its
// own files may be loaded by an isolated page. Providers and tools are fetched with CORS, which
// isolation allows.
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Fetches `path` from the host; keeps it when its content is the one this build lists. */
async function fetchAndKeep(store, path, request) {
  const response = await fetch(request || new URL(path, scope).href, { cache: 'no-cache' });
  if (!response.ok) return response;
  const body = await response.clone().arrayBuffer();
  // A host half-way through publishing a new build can answer with the other build's file:
  // served, but never kept under this build's hash.
  if ((await sha256(body)) === FILES[path]) {
    const type = response.headers.get('Content-Type') || 'application/octet-stream';
    await store.put(keyOf(FILES[path]), new Response(body, { headers: { 'Content-Type': type } }));
  }
  return response;
}

/** The builds whose files are kept: this one and the one before it (a tab may still run it). */
async function keptBuilds() {
  const meta = await caches.open(META);
  const found = await meta.match(new URL('__builds', scope).href);
  return found ? found.json() : [];
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const store = await caches.open(STORE);
    const builds = await keptBuilds();
    const previous = builds.at(-1)?.files || {};
    // Kept again on an update: the folders (in-page/, pdf/, python/) of which something had been used.
    const folder = (path) => path.split('/')[0];
    const onUsePaths = Object.keys(previous).filter(onUse);
    const found = await Promise.all(onUsePaths.map((p) => store.match(keyOf(previous[p]))));
    const used = new Set(onUsePaths.filter((_, i) => found[i]).map(folder));
    const wanted = [];
    for (const path of Object.keys(FILES)) {
      if (onUse(path) && !used.has(folder(path))) continue;
      if (!(await store.match(keyOf(FILES[path])))) wanted.push(path);
    }
    // Six at a time, as a browser fetches from one host.
    const next = async () => {
      for (let path = wanted.shift(); path !== undefined; path = wanted.shift()) await fetchAndKeep(store, path);
    };
    await Promise.all(Array.from({ length: 6 }, next));
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const builds = (await keptBuilds()).filter((b) => b.build !== BUILD).slice(-1);
    builds.push({ build: BUILD, files: FILES });
    const meta = await caches.open(META);
    await meta.put(new URL('__builds', scope).href, new Response(JSON.stringify(builds), { headers: { 'Content-Type': 'application/json' } }));
    // Files no kept build lists are dropped.
    const wanted = new Set(builds.flatMap((b) => Object.values(b.files)).map(keyOf));
    const store = await caches.open(STORE);
    for (const request of await store.keys()) if (!wanted.has(request.url)) await store.delete(request);
    await self.clients.claim();
  })());
});

self.addEventListener('message', (event) => {
  if (event.data === 'switch-now') self.skipWaiting();
});

/** The own file `request` asks for: its path, and its hash in the build that lists it. */
async function ownFile(request, url) {
  let path = url.pathname.slice(scope.pathname.length);
  // The page itself, whatever its query (a sign-in's callback carries one).
  if (request.mode === 'navigate' && (path === '' || path === 'index.html')) path = 'index.html';
  else if (url.search) return null;
  if (FILES[path]) return { path, hash: FILES[path], current: true };
  // A tab still running the build before this one asks for its own files.
  for (const b of await keptBuilds()) if (b.files[path]) return { path, hash: b.files[path], current: false };
  return null;
}

function isolated(response) {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

async function answer(request, own) {
  const store = await caches.open(STORE);
  const kept = await store.match(keyOf(own.hash));
  if (kept) return isolated(kept);
  const response = own.current ? await fetchAndKeep(store, own.path) : await fetch(request);
  return isolated(response);
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  // Only the page's own folder is looked at; everything else never meets this worker.
  if (request.method !== 'GET' || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  event.respondWith((async () => {
    const own = await ownFile(request, url);
    return own ? answer(request, own) : fetch(request);
  })());
});
