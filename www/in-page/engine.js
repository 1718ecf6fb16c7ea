// The in-page model provider: llama.cpp running in this tab (the npm package @wllama/wllama,
// served next to this file as ./wllama.js and ./wllama.wasm). The app imports this module only
// when a person picks that provider; the Rust side binds to the exports below.
//
// Browsers without WebAssembly Memory64 (Safari, WebKit) get the compatibility build instead
// (@wllama/wllama-compat, ./wllama-compat.js and ./wllama-compat.wasm: 32-bit memory, Asyncify
// instead of JS Promise Integration; it loads slower, and runs about as fast). Browsers that give the page no storage for models
// (no Origin Private File System, as in WebKitGTK's MiniBrowser) download a model into memory on
// every load. Every file comes from this site: nothing is fetched from a CDN.
//
// Every failure is an Error with `.kind`, one of:
//   not_gguf, truncated, unknown_arch, out_of_memory, network, blocked, unsupported_browser,
//   timeout, aborted, context_full, other
// and a `.message` a person can act on. Nothing here waits forever: loads have a time limit,
// chats a silence limit, and an abort answers at once.
import { Wllama, ModelManager, CacheManager } from './wllama.js';

const WASM_URL = new URL('./wllama.wasm', import.meta.url).href;
// The compatibility build, from this site (wllama would otherwise take it from a CDN).
const COMPAT = {
  wasm: new URL('./wllama-compat.wasm', import.meta.url).href,
  worker: new URL('./wllama-compat.js', import.meta.url).href,
};
const COMPAT_LABEL = 'compatibility build';
const MAX_REPLY_CHARS = 200_000; // a reply longer than this is cut (finishReason 'length')
const MAX_CLEANUP_MS = 60_000; // the worker finishes its current batch within this, or is unloaded
const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46]; // "GGUF"

// Small WebAssembly modules that tell what this browser can compile: both builds need SIMD and
// exception handling; the normal build also needs Memory64.
const PROBES = {
  memory64: [0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 4, 1], // (memory i64 1)
  simd: [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11], // (func (result v128) v128.const 0)
  exceptions: [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 8, 1, 6, 0, 6, 64, 25,
    11, 11], // (func try catch_all end)
};
const EMPTY_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);

// ---- state -------------------------------------------------------------------------------
let current = null; // { wllama, info }: the loaded model
let loadJob = null; // { stop(kind), finished }: the load in progress
let loadSeq = 0; // bumped by every load() and unload(): an older load that sees it change gives up
let warmJob = null; // { controller, done }: the prefix being processed in the background
let chatJob = null; // { end() }: the reply being generated
let settling = Promise.resolve(); // the worker's last aborted request, until it has let go
let models = null; // ModelManager over the download cache (OPFS)
let storageChecked = null; // resolves to whether the page has that storage
const log = []; // the engine's recent native log lines, to explain failures
let logDropped = 0; // lines dropped from the front of `log`

function fail(kind, message, extra = {}) {
  return Object.assign(new Error(message), { kind }, extra);
}

function remember(level, args) {
  log.push(`${level} ${args.map(String).join(' ')}`);
  if (log.length > 600) {
    logDropped += log.length - 400;
    log.splice(0, log.length - 400);
  }
}
const logger = {
  debug: (...a) => remember('D', a),
  log: (...a) => remember('L', a),
  warn: (...a) => remember('W', a),
  error: (...a) => remember('E', a),
};
const logMark = () => logDropped + log.length;
const logSince = (mark) => log.slice(Math.max(0, mark - logDropped)).join('\n');

const mb = (bytes) => `${Math.round(bytes / 1e6)} MB`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits for `p`, but never longer than `ms`; true when it settled.
const settledWithin = (p, ms) => Promise.race([p.then(() => true, () => true), sleep(ms).then(() => false)]);

// The ModelManager over the download cache, or null when this browser gives no storage.
async function modelManager() {
  if (!(await hasStorage())) return null;
  models ??= new ModelManager({ logger });
  return models;
}

// The URLs of all parts of a split GGUF (name-00001-of-00003.gguf), else just the URL.
function shardUrls(url) {
  const m = /^(.*)-(\d{5})-of-(\d{5})\.gguf(\?.*)?$/.exec(url);
  if (!m) return [url];
  const n = Number(m[3]);
  return Array.from({ length: n }, (_, i) => `${m[1]}-${String(i + 1).padStart(5, '0')}-of-${m[3]}.gguf${m[4] || ''}`);
}

const absolute = (url) => new URL(url, location.href).href;
const fileName = (url) => decodeURIComponent(new URL(url).pathname.split('/').pop() || url);

// ---- environment -------------------------------------------------------------------------

const validates = (bytes) => { try { return WebAssembly.validate(new Uint8Array(bytes)); } catch { return false; } };

// Whether the normal build can run: Memory64, to the validator and to the JS API (the test wllama
// itself makes). Without it, load() takes the compatibility build.
function hasMemory64() {
  if (typeof WebAssembly !== 'object' || !validates(PROBES.memory64)) return false;
  try {
    new WebAssembly.Memory({ address: 'i64', initial: 1n });
    return true;
  } catch {
    return false;
  }
}

// What this browser lacks to run even the compatibility build, as a sentence, or null.
function browserProblem() {
  if (typeof WebAssembly !== 'object') return 'This browser has no WebAssembly.';
  const missing = [];
  if (!validates(PROBES.simd)) missing.push('SIMD');
  if (!validates(PROBES.exceptions)) missing.push('exception handling');
  if (typeof Worker !== 'function') missing.push('Web Workers');
  if (!missing.length) return null;
  return `This browser cannot run models in the page (its WebAssembly lacks ${missing.join(', ')}): `
    + 'use a recent Chrome, Edge, Firefox or Safari.';
}

// Whether this browser gives the page storage to keep models in (the Origin Private File
// System, wllama's download cache). WebKitGTK's MiniBrowser has none; a private window may
// refuse it. Asked once.
function hasStorage() {
  storageChecked ??= (async () => {
    if (typeof navigator.storage?.getDirectory !== 'function') return false;
    const answer = navigator.storage.getDirectory().then(() => true, () => false);
    return Promise.race([answer, sleep(5000).then(() => false)]);
  })();
  return storageChecked;
}

// A storage for wllama's cache that keeps nothing: wllama wants one even to load files, and
// its own throws where there is no OPFS. Without storage, load() downloads into memory itself.
const NO_STORAGE = {
  isSupported: () => true,
  read: async () => null,
  write: async () => { throw new Error('this browser gives the page no storage'); },
  getSize: async () => -1,
  list: async () => [],
  delete: async () => {},
};

// What the page's Content-Security-Policy refuses that the engine needs, as an Error, or null.
// A refused worker only shows as an error event, so a tiny worker has to answer first.
async function policyProblem() {
  try {
    new WebAssembly.Module(EMPTY_MODULE);
  } catch {
    return fail('blocked', "This page's Content-Security-Policy does not allow WebAssembly: its script-src needs 'wasm-unsafe-eval'.");
  }
  const url = URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' }));
  let worker;
  try {
    worker = new Worker(url);
    const answered = await new Promise((resolve) => {
      worker.onmessage = () => resolve(true);
      worker.onerror = () => resolve(false);
      setTimeout(() => resolve(true), 3000); // a busy machine: don't blame the policy
    });
    if (answered) return null;
  } catch { /* refused at once */ } finally {
    worker?.terminate();
    URL.revokeObjectURL(url);
  }
  return fail('blocked', "This page's Content-Security-Policy does not allow the engine's worker: its worker-src needs blob:.");
}

// Threads need a cross-origin isolated page (COOP + COEP) and SharedArrayBuffer, which some
// browsers leave out even then (WebKitGTK): wllama then runs on one thread.
const threadsAllowed = () => globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';

let gpuChecked = null;
async function hasWebGpu(compat) {
  // wllama uses WebGPU with JS Promise Integration, or in the compatibility build (Asyncify);
  // the normal build without JSPI stays on the CPU.
  if (!navigator.gpu || !(WebAssembly.Suspending || compat)) return false;
  gpuChecked ??= Promise.race([navigator.gpu.requestAdapter().then((a) => !!a, () => false), sleep(2000).then(() => false)]);
  return gpuChecked;
}

/**
 * What this page can do: `{ isolated, cores, threads, webgpu, compat, storage, supported, note }`.
 * `threads` is what load() uses by default: all cores when the page is cross-origin isolated
 * (COOP + COEP headers) and the browser has SharedArrayBuffer, else 1. `compat`: load() takes
 * the compatibility build (no Memory64). `storage`: a downloaded model is kept in this browser
 * (else it is downloaded again on each visit). `supported` is false when load() would fail with unsupported_browser or
 * blocked; `note` then says why, else what load() will use, in words.
 */
export async function environment() {
  const isolated = globalThis.crossOriginIsolated === true;
  const cores = navigator.hardwareConcurrency || 1;
  const threads = threadsAllowed() ? cores : 1;
  const compat = !hasMemory64();
  const webgpu = await hasWebGpu(compat);
  const storage = await hasStorage();
  const problem = browserProblem() || (await policyProblem())?.message || null;
  let note = problem;
  if (!note) {
    const build = compat ? `, ${COMPAT_LABEL}` : '';
    if (webgpu) note = `WebGPU${build}`;
    else if (!isolated) note = `CPU${build}, 1 thread: this host does not allow threads`;
    else if (!threadsAllowed()) note = `CPU${build}, 1 thread: this browser does not offer threads (no SharedArrayBuffer)`;
    else note = `CPU${build}, ${threads} thread${threads === 1 ? '' : 's'}`;
    if (!storage) note += ' · this browser cannot keep models, so a model is downloaded again on each visit';
  }
  return { isolated, cores, threads, webgpu, compat, storage, supported: !problem, note };
}

// ---- model size and cache ----------------------------------------------------------------

async function sizeOf(url, signal) {
  try {
    const head = await fetch(url, { method: 'HEAD', signal });
    const n = Number(head.headers.get('content-length'));
    if (head.ok && n > 0) return n;
  } catch (e) {
    if (signal?.aborted) throw e;
  }
  try {
    const r = await fetch(url, { headers: { Range: 'bytes=0-0' }, signal });
    r.body?.cancel().catch(() => {});
    const total = /\/(\d+)$/.exec(r.headers.get('content-range') || '');
    if (r.status === 206 && total) return Number(total[1]);
  } catch (e) {
    if (signal?.aborted) throw e;
  }
  return null;
}

/** The download size in bytes (all parts of a split GGUF), or null when the server won't say. */
export async function modelSize(url, signal) {
  let total = 0;
  try {
    for (const part of shardUrls(absolute(url))) {
      const n = await sizeOf(part, signal);
      if (n === null) return null;
      total += n;
    }
  } catch (e) {
    if (signal?.aborted) throw fail('aborted', 'Stopped before the model size was known.');
    return null;
  }
  return total;
}

/** The models kept in this browser: `[{ url, name, sizeBytes }]`. */
export async function cachedModels() {
  let list;
  try {
    const manager = await modelManager();
    if (!manager) return []; // no storage: nothing is kept
    list = await manager.getModels();
  } catch {
    return []; // no storage (e.g. a private window that refuses it)
  }
  return list.map((m) => ({ url: m.url, name: fileName(m.url), sizeBytes: m.size }));
}

/** Removes a model (all its parts) from this browser's storage; true if anything was removed. */
export async function deleteCached(url) {
  const manager = await modelManager();
  if (!manager) return false; // no storage: nothing was kept
  try {
    const cache = manager.cacheManager;
    const before = (await cache.list()).length;
    for (const part of shardUrls(absolute(url))) await cache.delete(part);
    return (await cache.list()).length < before;
  } catch (e) {
    throw fail('other', `The stored model could not be removed (${e?.message || e}).`);
  }
}

// Removes what interrupted downloads left: files without their metadata (written last) or
// shorter than it says. A file its writer still holds open refuses to go: try again later.
async function dropPartial() {
  const cache = (await modelManager())?.cacheManager;
  if (!cache) return;
  for (let attempt = 0; attempt < 6; attempt++) {
    let bad;
    try {
      bad = (await cache.list()).filter((f) => !f.metadata.originalURL || f.metadata.originalSize !== f.size);
    } catch {
      return; // no storage at all
    }
    if (!bad.length) return;
    for (const f of bad) await cache.delete(f.name).catch(() => {});
    await sleep(100 * (attempt + 1));
  }
}

// ---- load --------------------------------------------------------------------------------

// Turns what went wrong while loading into an Error with a kind.
function explainLoad(err, { lines, sizeBytes, nCtx, url, blockedHost, blockedWorker, received }) {
  const size = sizeBytes ? mb(sizeBytes) : 'this size';
  if (blockedWorker && err?.kind !== 'aborted') {
    return fail('blocked', "This page's Content-Security-Policy does not allow the engine's worker: its worker-src needs blob:.");
  }
  if (blockedHost && err?.kind !== 'aborted') {
    return fail('blocked', `This page's Content-Security-Policy does not allow downloads from ${blockedHost}: its connect-src must list that host.`, { host: blockedHost });
  }
  if (err?.kind) return err;
  const text = `${err?.message || err || ''}\n${lines}`;
  if (/must ends? with "?\.gguf/i.test(text)) {
    return fail('not_gguf', 'The model address must end in .gguf (a GGUF file, e.g. …/resolve/main/model-Q4_K_M.gguf).');
  }
  if (/Failed to fetch worker code/.test(err?.message || '')) {
    return fail('other', "The engine's compatibility build (in-page/wllama-compat.js) could not be fetched from this site: "
      + 'check the connection and reload the page.');
  }
  const http = /HTTP (\d{3})/.exec(err?.message || '');
  if (http) return fail('network', `The model server answered HTTP ${http[1]} for ${url}: check the address.`, { status: Number(http[1]) });
  if (/insufficient memory|failed to allocate|out of memory|Cannot allocate|Aborted\(OOM\)|Array buffer allocation failed/i.test(text)) {
    const need = /attempted to allocate ([\d.]+) MB/.exec(text);
    return fail('out_of_memory', `Not enough memory for this model (${size}) with a context of ${nCtx} tokens`
      + `${need ? ` (one buffer alone needed ${Math.round(need[1])} MB; the page can use 4 GB at most)` : ''}: `
      + 'choose a smaller context size or a smaller model.', { sizeBytes, nCtx });
  }
  if (/unknown model architecture: '([^']*)'/.test(text)) {
    const arch = /unknown model architecture: '([^']*)'/.exec(text)[1];
    return fail('unknown_arch', `This llama.cpp build does not know the model architecture "${arch}": choose another model.`, { arch });
  }
  if (/not within the file bounds|corrupted or incomplete|unexpectedly reached end of file|failed to read|truncated/i.test(text)) {
    return fail('truncated', `The model file (${size}) is incomplete or damaged: download it again.`);
  }
  if (/invalid magic|not a gguf|failed to open GGUF|gguf_init/i.test(text)) {
    return fail('not_gguf', 'This file is not a GGUF model: choose a .gguf file.');
  }
  if (err instanceof TypeError || /network|Failed to fetch|load failed/i.test(err?.message || '')) {
    const where = received ? ` after ${mb(received)}${sizeBytes ? ` of ${mb(sizeBytes)}` : ''}` : '';
    return fail('network', `The download of ${url ? fileName(url) : 'the model'} stopped${where}: check the connection and try again.`);
  }
  const first = /error loading model: (.*)/.exec(lines)?.[1];
  return fail('other', `The model could not be loaded${first ? `: ${first}` : ''}.`);
}

async function looksLikeGguf(blob) {
  const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
  return head.length === 4 && GGUF_MAGIC.every((b, i) => head[i] === b);
}

// Downloads a model (every part of a split GGUF) into memory, for a browser that cannot keep it:
// resolves to one File a part, named as its URL (the order of the parts). `progress` gets
// { loaded, total } as bytes arrive (total 0 when the server does not say); `signal` stops it.
// An HTTP error throws "HTTP <status>", a dropped connection a TypeError, as fetch does.
async function downloadToMemory(url, signal, progress) {
  if (!/\.gguf(\?.*)?$/i.test(url)) throw new Error('The model URL must end with ".gguf"');
  const parts = shardUrls(url);
  // Every part's size up front when there are several, for a total; one part's comes with it.
  const sizes = parts.length > 1 ? await Promise.all(parts.map((p) => sizeOf(p, signal))) : [null];
  const total = () => (sizes.every((n) => n > 0) ? sizes.reduce((a, b) => a + b, 0) : 0);
  const files = [];
  let loaded = 0;
  let reported = 0;
  for (const [i, part] of parts.entries()) {
    const response = await fetch(part, { signal });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const length = Number(response.headers.get('content-length')) || 0;
    const plain = !response.headers.get('content-encoding'); // then the length counts the body's bytes
    if (plain && length > 0) sizes[i] = length;
    const reader = response.body.getReader();
    const pieces = []; // Blobs of at most ~16 MB: the browser may keep them outside the JS heap
    let chunks = [];
    let pending = 0;
    let got = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      pending += value.byteLength;
      got += value.byteLength;
      loaded += value.byteLength;
      if (pending >= 16e6) {
        pieces.push(new Blob(chunks));
        chunks = [];
        pending = 0;
      }
      const now = performance.now();
      if (now - reported >= 100) {
        reported = now;
        progress({ loaded, total: total() });
      }
    }
    if (plain && length > 0 && got < length) throw new TypeError('network: the download stopped early');
    if (!plain || !(sizes[i] > 0)) sizes[i] = got;
    pieces.push(new Blob(chunks));
    files.push(new File(pieces, fileName(part)));
  }
  progress({ loaded, total: total() });
  return files;
}

// A cross-origin fetch that failed: was it CORS (the host answers, but not to us) or the network?
async function corsRefused(url) {
  if (new URL(url).origin === location.origin) return false;
  try {
    await fetch(url, { method: 'HEAD', mode: 'no-cors' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads a model: `source` is `{ url }` (downloaded once, then kept in this browser; where the
 * browser gives no storage, downloaded into memory each time) or `{ files: [File|Blob, ...] }`
 * (parts of a split GGUF in any order). Unloads the previous model.
 * Options: nCtx (context size in tokens, default 4096), nThreads (default: environment().threads),
 * timeoutMs (the longest the load may go without progress, default 120000), signal,
 * onProgress({ loaded, total, bytesPerSecond }), llama (extra llama.cpp settings, e.g.
 * { n_batch, flash_attn, cache_type_k }; for benchmarks).
 * Resolves to { name, sizeBytes, nCtx, threads, backend, arch, chatTemplate, cached }: backend is
 * 'cpu' or 'webgpu' with the normal build, and says so in words with the compatibility build
 * ('CPU, compatibility build').
 */
export async function load(source, { nCtx = 4096, nThreads, timeoutMs = 120_000, signal, onProgress, llama = {} } = {}) {
  await unload(); // also ends a load in progress: the newer load wins
  const seq = ++loadSeq;
  const problem = browserProblem();
  if (problem) throw fail('unsupported_browser', problem);
  const blocked = await policyProblem();
  if (blocked) throw blocked;
  const storage = await hasStorage();
  if (signal?.aborted || seq !== loadSeq) throw fail('aborted', 'Loading was cancelled.');

  const url = source?.url ? absolute(source.url) : null;
  const files = source?.files ? [...source.files] : null;
  if (!url && !files?.length) throw fail('other', 'Nothing to load: give a model URL or GGUF files.');

  const threads = Math.max(1, nThreads ?? (threadsAllowed() ? navigator.hardwareConcurrency || 1 : 1));
  const batch = Math.min(256, 64 * (threadsAllowed() ? threads : 1));
  const compat = !hasMemory64();
  let wllama;
  try {
    wllama = new Wllama({ default: WASM_URL }, {
      logger,
      parallelDownloads: 3,
      // wllama's own cache throws where there is no OPFS: one that keeps nothing instead
      ...(storage ? {} : { cacheManager: new CacheManager([NO_STORAGE]) }),
    });
  } catch (e) {
    throw fail('unsupported_browser', `The engine could not start in this browser (${e?.message || e}): `
      + 'use a recent Chrome, Edge, Firefox or Safari.');
  }
  // The compatibility build exactly when Memory64 is missing, from this site: by itself wllama
  // would fetch it from a CDN, and on Firefox never use it ('firefox_safari' lets a Firefox
  // without Memory64 have it too). With Memory64, the normal build, with or without JSPI.
  wllama.setCompat(compat ? COMPAT : null, 'firefox_safari');
  const controller = new AbortController();
  const logStart = logMark();
  const facts = { url, nCtx, sizeBytes: files ? files.reduce((n, f) => n + f.size, 0) : 0, received: 0, blockedHost: null, blockedWorker: false };

  // Content-Security-Policy refusals of the download, to name the host.
  const onViolation = (e) => {
    if (e.effectiveDirective === 'connect-src' && e.blockedURI) {
      try { facts.blockedHost = new URL(e.blockedURI).host; } catch { facts.blockedHost = e.blockedURI; }
    } else if (/^(worker|script)-src/.test(e.effectiveDirective) && /^blob/.test(e.blockedURI)) {
      facts.blockedWorker = true;
    }
  };
  document.addEventListener('securitypolicyviolation', onViolation);

  // The time limit restarts whenever the download makes progress.
  let stop;
  const stopped = new Promise((_, reject) => { stop = reject; });
  let timer;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stop(fail('timeout', `Loading the model made no progress for ${Math.round(timeoutMs / 1000)} s: `
      + "check the connection, and that the page allows WebAssembly ('wasm-unsafe-eval') and blob: workers.")), timeoutMs);
  };
  arm();
  const onAbort = () => stop(fail('aborted', 'Loading was cancelled.'));
  signal?.addEventListener('abort', onAbort);
  let finished;
  const job = { stop: (kind) => stop(fail(kind, 'Loading was cancelled.')), finished: new Promise((r) => { finished = r; }) };
  loadJob = job;

  const samples = []; // [time, loaded] over the last seconds, for the speed
  const progress = ({ loaded, total }) => {
    arm();
    const now = performance.now();
    samples.push([now, loaded]);
    while (samples.length > 2 && now - samples[0][0] > 3000) samples.shift();
    const [t0, l0] = samples[0];
    const bytesPerSecond = now > t0 ? Math.round(((loaded - l0) * 1000) / (now - t0)) : 0;
    facts.received = loaded;
    if (total) facts.sizeBytes = total;
    try { onProgress?.({ loaded, total, bytesPerSecond }); } catch { /* the caller's problem */ }
  };

  let cached = false;
  const work = (async () => {
    let blobs = files;
    if (url && storage) {
      const known = await (await modelManager()).getModels().catch(() => []);
      cached = known.some((m) => m.url === url);
      const model = await wllama.modelManager.getModelOrDownload({ url }, { signal: controller.signal, progressCallback: progress });
      blobs = await model.open();
      facts.sizeBytes = blobs.reduce((n, b) => n + b.size, 0);
    } else if (url) {
      // Nowhere to keep it: into memory, for this load only.
      blobs = await downloadToMemory(url, controller.signal, progress);
      facts.sizeBytes = blobs.reduce((n, b) => n + b.size, 0);
    }
    for (const b of blobs) {
      // Named as the person gave it: a downloaded file's blob is named by its cache key.
      const named = url ? fileName(url) : (b.name || 'This file');
      if (!(await looksLikeGguf(b))) throw fail('not_gguf', `${named} is not a GGUF model: choose a .gguf file.`);
    }
    arm();
    await wllama.loadModel(blobs, {
      n_ctx: nCtx,
      n_threads: threads,
      n_parallel: 1, // one conversation: the whole context, and warm() reuse is certain
      // The worker only turns to another request (a chat after a warm, an abort) between two
      // batches: 64 tokens a thread keep a batch near 3 s on a slow machine, and cost nothing
      // measurable against 256 or 512 (scripts/bench-in-page).
      n_batch: batch,
      n_ubatch: batch,
      ...llama,
    });
    const info = wllama.getLoadedContextInfo();
    if (!(info.n_vocab > 0)) throw new Error('load failed'); // wllama reports success anyway
    return info;
  })();

  try {
    const info = await Promise.race([work, stopped]);
    if (seq !== loadSeq) throw fail('aborted', 'Loading was cancelled.');
    const lines = logSince(logStart);
    const offloaded = /offloaded (\d+)\/\d+ layers to GPU/.exec(lines);
    const gpu = !!offloaded && Number(offloaded[1]) > 0;
    current = { wllama, info };
    return {
      name: url ? fileName(url) : (files[0].name || 'model.gguf'),
      sizeBytes: facts.sizeBytes,
      nCtx: info.n_ctx,
      threads: wllama.getNumThreads(),
      // The page shows an unknown backend as it is: the compatibility build says so there.
      backend: compat ? `${gpu ? 'WebGPU' : 'CPU'}, ${COMPAT_LABEL}` : (gpu ? 'webgpu' : 'cpu'),
      arch: info.metadata['general.architecture'] || '',
      chatTemplate: !!wllama.getChatTemplate(),
      cached,
    };
  } catch (err) {
    controller.abort();
    await wllama.exit().catch(() => {}); // ends the worker, and with it anything it was doing
    await settledWithin(work, 5000); // let the download's file close before removing it
    await wllama.exit().catch(() => {}); // in case the work had not reached the worker yet
    await sleep(100); // a policy violation is reported a moment after the fetch fails
    let why = explainLoad(err, { ...facts, lines: logSince(logStart) });
    if (why.kind === 'network' && url && !facts.blockedHost && await corsRefused(url)) {
      why = fail('blocked', `${new URL(url).host} does not allow this page to download the model (CORS): host it where it sends Access-Control-Allow-Origin.`, { host: new URL(url).host });
    }
    if (url) {
      // Nothing half-downloaded stays; a file that proved bad goes too.
      if (['not_gguf', 'truncated', 'unknown_arch'].includes(why.kind)) await deleteCached(url).catch(() => {});
      await dropPartial();
    }
    throw why;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    document.removeEventListener('securitypolicyviolation', onViolation);
    if (loadJob === job) loadJob = null;
    finished();
  }
}

/** Unloads the model (ending anything it was doing) and frees its memory. */
export async function unload() {
  loadSeq++;
  const loading = loadJob;
  if (loading) {
    loading.stop('aborted');
    await loading.finished; // its own clean-up included
  }
  const was = current;
  current = null;
  warmJob?.controller.abort();
  chatJob?.end();
  warmJob = null;
  chatJob = null;
  settling = Promise.resolve();
  if (was) await was.wllama.exit().catch(() => {});
}

// ---- chat and warm -----------------------------------------------------------------------

function cleanMessages(messages) {
  return (messages || []).map((m) => ({
    role: ['system', 'user', 'assistant'].includes(m.role) ? m.role : 'user',
    content: typeof m.content === 'string' ? m.content : String(m.content ?? ''),
  }));
}

// Waits until the worker has let go of the last aborted request. The worker only notices an
// abort between two batches; if it does not within MAX_CLEANUP_MS, it is stuck: unload.
async function quiet() {
  if (!(await settledWithin(settling, MAX_CLEANUP_MS))) {
    await unload();
    throw fail('timeout', 'The model stopped responding and was unloaded: load it again.');
  }
}

// Ends the background warm() (keeping what it has processed so far).
async function stopWarm() {
  const job = warmJob;
  if (!job) return;
  job.controller.abort();
  await settledWithin(job.done, MAX_CLEANUP_MS);
  if (warmJob === job) warmJob = null;
}

function explainChat(err) {
  if (err?.kind) return err;
  const msg = err?.message || String(err);
  const over = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/.exec(msg);
  if (over) {
    return fail('context_full', `The conversation needs ${over[1]} tokens but the model's context holds ${over[2]}: `
      + 'start a new chat, shorten it, or load the model with a larger context.', { promptTokens: Number(over[1]), nCtx: Number(over[2]) });
  }
  if (/context|kv cache/i.test(msg) && /full|exceed/i.test(msg)) {
    return fail('context_full', `The model's context is full (${current?.info.n_ctx ?? '?'} tokens): start a new chat or load the model with a larger context.`);
  }
  if (/was unloaded/.test(msg)) return fail('aborted', 'The model was unloaded during the reply.');
  if (err?.name === 'RuntimeError' || /crashed/.test(msg)) {
    const oom = /OOM|out of memory|allocat/i.test(msg);
    unload();
    return fail(oom ? 'out_of_memory' : 'other', oom
      ? 'The model ran out of memory while answering and was unloaded: load it with a smaller context size.'
      : `The model crashed (${msg}) and was unloaded: load it again.`);
  }
  return fail('other', `The model could not answer: ${msg}`);
}

/**
 * Processes `messages` (e.g. [{ role: 'system', content }]) into the model's cache in the
 * background, so that the next chat() starting with them skips that work. A chat() stops it
 * at once (between two batches), keeping what was done. Resolves to
 * { promptTokens, cachedTokens, promptMs } when done, or null when stopped or not loaded.
 */
export async function warm(messages, { timeoutMs = 120_000 } = {}) {
  if (!current || chatJob) return null;
  await stopWarm();
  if (!current || chatJob) return null;
  const { wllama } = current;
  const controller = new AbortController();
  let timings = null;
  let silence;
  const watch = () => {
    clearTimeout(silence);
    silence = setTimeout(() => controller.abort(), timeoutMs);
  };
  const work = (async () => {
    await quiet();
    if (controller.signal.aborted) return null;
    watch();
    await wllama.createChatCompletion({
      messages: cleanMessages(messages),
      max_tokens: 0, // the prompt only (llama.cpp still samples one token)
      temperature: 0,
      stream: true,
      cache_prompt: true,
      return_progress: true, // a chunk per batch, for the silence limit
      abortSignal: controller.signal,
      onData: (c) => {
        watch();
        if (c.timings) timings = c.timings;
      },
    });
    return timings && { promptTokens: timings.prompt_n + timings.cache_n, cachedTokens: timings.cache_n, promptMs: timings.prompt_ms };
  })().catch(() => null).finally(() => clearTimeout(silence));
  // Never wait on a worker that went silent: give up after the limit.
  const done = Promise.race([work, new Promise((r) => setTimeout(r, timeoutMs + MAX_CLEANUP_MS, null))]);
  const job = { controller, done };
  warmJob = job;
  settling = work;
  const result = await done;
  if (warmJob === job) warmJob = null;
  return result;
}

/**
 * Generates a reply, streamed through onText(delta), with the model's own chat template.
 * Options: maxTokens (512), temperature (0.7), stop ([strings]), jsonSchema (an object: the
 * reply is JSON matching it), signal, onText(delta), onPromptProgress({ processed, total,
 * cached }), timeoutMs (the longest silence while reading the prompt or writing, 120000).
 * Resolves to { text, finishReason: 'stop'|'length'|'aborted', promptTokens, completionTokens,
 * promptMs, genMs, cachedTokens }. An abort resolves at once with what was written so far;
 * a chat() started while another runs ends that one (it resolves as aborted).
 */
export async function chat(messages, { maxTokens = 512, temperature = 0.7, stop = [], jsonSchema, signal, onText,
  onPromptProgress, timeoutMs = 120_000 } = {}) {
  if (!current) throw fail('other', 'No model is loaded: load one first.');
  const result = { text: '', finishReason: 'aborted', promptTokens: 0, completionTokens: 0, promptMs: 0, genMs: 0, cachedTokens: 0 };
  if (signal?.aborted) return result;

  const controller = new AbortController();
  let closed = false; // once this call has answered, late chunks are dropped
  let resolveEarly;
  const early = new Promise((r) => { resolveEarly = r; });
  const end = (why = null) => { controller.abort(); resolveEarly(why); };
  chatJob?.end(); // one reply at a time
  const job = { end };
  chatJob = job;
  const onAbort = () => end(null);
  signal?.addEventListener('abort', onAbort);
  let silence;
  const watch = () => {
    clearTimeout(silence);
    silence = setTimeout(() => end(fail('timeout', `The model was silent for ${Math.round(timeoutMs / 1000)} s: `
      + 'try again, or with a shorter conversation.')), timeoutMs);
  };

  try {
    await stopWarm();
    // An abort or a newer chat while waiting for the worker answers at once.
    const ready = await Promise.race([quiet().then(() => true), early.then((why) => { if (why) throw why; return false; })]);
    if (!ready || !current || controller.signal.aborted) return result;
    const { wllama, info } = current;

    let finish = null;
    let timings = null;
    let cut = false;
    const request = {
      messages: cleanMessages(messages),
      max_tokens: Math.max(1, Math.floor(maxTokens)),
      temperature,
      stop: (stop || []).filter((x) => typeof x === 'string' && x.length).slice(0, 16),
      stream: true,
      cache_prompt: true,
      return_progress: true, // a chunk per prompt batch: progress, and proof of life
      abortSignal: controller.signal,
      onData: (chunk) => {
        if (closed) return;
        watch();
        const p = chunk.prompt_progress;
        if (p) try { onPromptProgress?.({ processed: p.processed, total: p.total, cached: p.cache }); } catch { /* ignore */ }
        const choice = chunk.choices?.[0];
        const delta = choice?.delta?.content;
        if (delta && !cut && !controller.signal.aborted) {
          const piece = delta.slice(0, MAX_REPLY_CHARS - result.text.length);
          result.text += piece;
          if (piece) try { onText?.(piece); } catch { /* the caller's problem */ }
          if (result.text.length >= MAX_REPLY_CHARS) { cut = true; controller.abort(); }
        }
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.timings) timings = chunk.timings;
      },
    };
    if (jsonSchema) request.response_format = { type: 'json_schema', json_schema: { name: 'reply', schema: jsonSchema } };

    watch();
    const done = wllama.createChatCompletion(request);
    settling = done.catch(() => {});
    const outcome = await Promise.race([done.then(() => 'done', (e) => e), early]);
    if (outcome?.kind === 'timeout') throw outcome;
    const t = timings || {};
    Object.assign(result, {
      promptTokens: (t.prompt_n || 0) + (t.cache_n || 0),
      completionTokens: t.predicted_n || 0,
      promptMs: t.prompt_ms || 0,
      genMs: t.predicted_ms || 0,
      cachedTokens: t.cache_n || 0,
    });
    if (cut) return { ...result, finishReason: 'length' };
    if (outcome === null || controller.signal.aborted) return { ...result, finishReason: 'aborted' };
    if (outcome instanceof Error) throw explainChat(outcome);
    // llama.cpp ends a reply that fills the context as if it had stopped by itself.
    const full = result.promptTokens + result.completionTokens >= info.n_ctx - 1;
    return { ...result, finishReason: finish === 'length' || full ? 'length' : 'stop' };
  } finally {
    closed = true;
    clearTimeout(silence);
    signal?.removeEventListener('abort', onAbort);
    if (chatJob === job) chatJob = null;
  }
}

/**
 * What this engine offers the agent: ReAct text and plans always; structured output through
 * JSON-schema grammars; no native tool calls (see the notes in the report on wllama's tools).
 */
export function supports() {
  return { react: true, structured: true, native_tools: false, plan: true };
}
