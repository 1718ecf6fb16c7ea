// The python tool's worker: CPython in WebAssembly (the npm package pyodide, served beside this
// file as ./pyodide.mjs, ./pyodide.asm.mjs, ./pyodide.asm.wasm, ./python_stdlib.zip and
// ./pyodide-lock.json by scripts/copy-python.sh, with ./micropip-*.whl). The app starts it as a
// module worker (`new Worker(url, { type: 'module' })`) the first time the tool is used. Every
// file of the runtime comes from this site: nothing is fetched from a CDN. Packages are
// installed only when the page allows it (`install` below), and then only pure-Python ones,
// from the package index it names.
//
// Messages. The page's first message, on the worker itself, is
//   { type: 'start', port: MessagePort (transferred), interrupt: SharedArrayBuffer | null,
//     outputLimit: bytes kept per stream and call,
//     install: null | { indexUrls: [string], hosts: [string] } }
//        install null: no network at all (and no micropip). Otherwise the code may
//        `import micropip; await micropip.install("name")` from indexUrls (Simple API
//        indexes), and may fetch from those origins (hosts: 'https://pypi.org', …) and no other
// after which the worker listens and answers on that port only:
//   → { type: 'progress', loaded, total }      bytes of the runtime downloaded (total 0: unknown)
//   → { type: 'ready', ms, memory }            load time; bytes of the WebAssembly heap
//   → { type: 'failed', message }              a sentence a person can act on
//   ← { type: 'run', id, code }                one at a time
//   → { type: 'done', id, stdout, stderr, stdoutCut, stderrCut, value, error, ms, memory, network }
//        value: repr() of the last expression, or null (None, or no expression)
//        error: null, or { name, traceback } (the traceback starts at the person's own code)
//        network: the requests made since the previous answer (so, during this call), in the
//          order they were made, as 'GET https://pypi.org/simple/foo/ → 200' (or '→ refused:
//          why', '→ failed: why'); at most NETWORK_LOG_LIMIT, then '… and N more'. Always []
//          when install is null.
//   ← { type: 'documents', files: [{ name, bytes: Uint8Array }] }
//   → { type: 'documents', count }             the files now in /documents (read-only)
// The code of every run shares one globals dict (__main__'s), kept for the worker's life, as in
// a notebook; its file name in tracebacks is "<code>". To stop a call, the page writes 2 into
// byte 0 of `interrupt` (a SharedArrayBuffer exists only in a cross-origin isolated page): the
// call ends with a KeyboardInterrupt, also while it waits at an `await` or in time.sleep().
// Python may use at most MEMORY_LIMIT bytes; past that, MemoryError.
//
// The sandbox. The code is untrusted (a model writes it), and pyodide lets Python reach every
// JavaScript object of this worker (`import js`). So once pyodide has loaded, and before any of
// the page's code runs, the worker takes away what could reach past it:
// - the network: fetch, XMLHttpRequest, WebSocket, EventSource, WebTransport, importScripts,
//   FontFace (its url() sources are fetched), RTCPeerConnection;
// - storage: indexedDB, caches, cookieStore, navigator.storage (the origin's private file
//   system), navigator.locks;
// - other contexts: Worker, SharedWorker, BroadcastChannel, navigator.serviceWorker,
//   Notification, and this worker's own postMessage/onmessage (the private port is the only way
//   to the page, and Python cannot reach it) and close();
// - devices: navigator.usb, hid, serial, bluetooth.
// Each is deleted where it is defined: on the global object and on its prototypes (fetch is
// also reachable as WorkerGlobalScope.prototype.fetch), and on navigator's.
// - New code: a string turned into JavaScript could call import() and fetch a module. eval,
//   the Function constructor, and those of async, generator and async generator functions
//   (each reachable as `.constructor` of such a function) are replaced by stand-ins that throw;
//   setTimeout and setInterval refuse a string (they would compile it).
// - References kept elsewhere: pyodide holds some of these (its test hooks keep Function, and
//   Python modules such as pyodide.http import fetch when first loaded). Every JavaScript object
//   reachable from the global object and from pyodide is searched for the originals, and every
//   loaded Python module's globals too; each one found is replaced. A second search must find
//   none, or the worker refuses to run code at all.
// - Packages: pyodide.loadPackage (and micropip with it) would download wheels; it throws, and
//   a missing module's ImportError says that nothing can be installed.
// When the page allows installs, one door stays ajar, and only that one:
// - micropip is loaded from this site (its wheel, which pyodide-lock.json names) before the
//   sandbox closes, and imported, set to install from indexUrls only: never pyodide's own
//   packages (pyodide.loadPackage still throws: those wheels are not on this site).
// - fetch is not deleted but replaced, everywhere the search below finds it, by a guard that
//   sends GET requests to the allowed origins only: anything else is refused (a TypeError)
//   before it leaves the worker. It sends no credentials (cookies, HTTP auth) and no referrer,
//   always in CORS mode, and follows no redirect (a redirect is refused, wherever it points).
//   The guard uses only JavaScript taken before any Python ran (PRIMORDIALS), so that Python
//   changing a prototype (URL's, Object's, String's, …) cannot change its answer. Every
//   request it sees is reported with the call's answer (`network`). Everything else stays
//   closed. (Answers to the page go out the same way, through MessagePort's postMessage as it
//   was before Python ran.)
// What stays: Python itself and its standard library, the in-memory file system, timers with
// functions, MessageChannel (a channel to nowhere), WebAssembly, and the Request/Response
// classes (which cannot send anything without fetch). An error Python leaves uncaught in a
// callback stays in the worker too (it would reach the page's Worker object as an error event).
// The worker must be served without a Content-Security-Policy that forbids eval: pyodide
// compiles a few functions with it while it starts, before the sandbox closes.

const DEFAULT_OUTPUT_LIMIT = 65_536;
const PROGRESS_EVERY_MS = 100; // at most ten progress messages a second
const SILENCE_LIMIT_MS = 90_000; // a load that receives nothing for this long has failed
const STOP_POLL_MS = 100; // how often a run waiting at an `await` checks for the stop signal
const DOCUMENTS = '/documents';
const NETWORK_LOG_LIMIT = 50; // requests listed in one answer; past that, only counted
const NETWORK_URL_LIMIT = 300; // characters of an address kept in that list
// The most memory Python may take. WebAssembly memory never shrinks, and pyodide's may grow to
// 4 GB, enough for a runaway list to take the tab down with it: past this, an allocation fails
// and the code gets a MemoryError. (The page sees `memory` after every call, and can start a
// new worker to give memory back.)
const MEMORY_LIMIT = 1024 ** 3;

// Names taken away from the global object (and its prototypes), then from navigator.
const GLOBAL_DOORS = [
  // network
  'fetch', 'XMLHttpRequest', 'XMLHttpRequestUpload', 'XMLHttpRequestEventTarget', 'WebSocket',
  'WebSocketStream', 'WebSocketError', 'EventSource', 'WebTransport', 'WebTransportError',
  'importScripts', 'FontFace', 'FontFaceSet', 'fonts', 'RTCPeerConnection',
  'webkitRTCPeerConnection', 'RTCDataChannel',
  // storage
  'indexedDB', 'IDBFactory', 'caches', 'CacheStorage', 'Cache', 'cookieStore', 'CookieStore',
  'StorageManager', 'LockManager', 'requestFileSystem', 'webkitRequestFileSystem',
  'requestFileSystemSync', 'webkitRequestFileSystemSync', 'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL',
  // other contexts
  'Worker', 'SharedWorker', 'BroadcastChannel', 'ServiceWorker', 'ServiceWorkerContainer',
  'ServiceWorkerRegistration', 'Notification', 'postMessage', 'onmessage', 'onmessageerror',
  'close',
];
const NAVIGATOR_DOORS = ['storage', 'locks', 'serviceWorker', 'sendBeacon', 'usb', 'hid', 'serial', 'bluetooth'];

// JavaScript that the guarded fetch and the answers to the page rely on, taken as this file
// starts, before any Python runs. Python can change what a prototype holds (js.URL.prototype,
// js.Array.prototype, js.MessagePort.prototype, …) but not these.
const PRIMORDIALS = (() => {
  // An engine without one of these getters gets one that throws: the guard then refuses.
  const getter = (C, name) => Object.getOwnPropertyDescriptor(C.prototype, name)?.get
    || (() => { throw new TypeError(`${C.name}.prototype.${name} is missing`); });
  return Object.freeze({
    __proto__: null,
    apply: Reflect.apply,
    defineProperty: Reflect.defineProperty,
    String,
    toUpperCase: String.prototype.toUpperCase,
    URL,
    urlHref: getter(URL, 'href'),
    urlOrigin: getter(URL, 'origin'),
    Headers,
    requestUrl: getter(Request, 'url'),
    requestMethod: getter(Request, 'method'),
    requestHeaders: getter(Request, 'headers'),
    requestSignal: getter(Request, 'signal'),
    responseStatus: getter(Response, 'status'),
    responseType: getter(Response, 'type'),
    postMessage: MessagePort.prototype.postMessage,
  });
})();

// Appends `value` to `array` as its own element (a setter Python put on Array.prototype or
// Object.prototype is not called).
const append = (array, value) => PRIMORDIALS.defineProperty(array, array.length, {
  __proto__: null, value, writable: true, enumerable: true, configurable: true,
});

// Python run inside the worker, in a namespace of its own (never the person's globals): the
// call that runs a piece of code, the traceback trimmed to the person's code, and the search
// of loaded modules for JavaScript references the sandbox took away.
const HELPERS = String.raw`
import asyncio
import sys
import traceback
import types

from pyodide.code import eval_code_async
from pyodide.ffi import JsProxy

_CODE_FILE = "<code>"
# The person's globals, for every run: __main__'s, so that pickle, dataclasses and
# if __name__ == "__main__" behave as in a script.
_namespace = sys.modules["__main__"].__dict__
_namespace.pop("_pyodide_core", None)  # imported there by pyodide as it starts; not the person's
_current = {"task": None, "stopped": False}


def _trim(exc, seen):
    # Drops the frames before the first one of the person's code (pyodide's own machinery),
    # in this exception and in every one chained to it. With none of theirs (a SyntaxError),
    # no frame is left: only the exception itself is shown.
    if exc is None or id(exc) in seen:
        return
    seen.add(id(exc))
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != _CODE_FILE:
        tb = tb.tb_next
    exc.__traceback__ = tb
    _trim(exc.__cause__, seen)
    _trim(exc.__context__, seen)
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            _trim(inner, seen)


_NOT_HERE = "This Python has no network: no package can be installed, only the standard library pyodide ships is here."


def _describe(exc):
    name = type(exc).__name__
    try:
        if isinstance(exc, ModuleNotFoundError) and not any(
            _NOT_HERE in str(note) for note in getattr(exc, "__notes__", ())
        ):
            exc.add_note(_NOT_HERE)
        _trim(exc, set())
        return name, "".join(traceback.format_exception(exc))
    except BaseException as problem:
        return name, f"{name}: {exc!r} (its traceback could not be written: {type(problem).__name__})"


async def _thoughtline_run(code, limit):
    # Runs code in the person's globals; answers (repr of the last value or None, exception
    # name or None, traceback or None). Nothing escapes: KeyboardInterrupt and SystemExit are
    # answers too.
    _current["task"] = asyncio.current_task()
    _current["stopped"] = False
    try:
        value = await eval_code_async(code, _namespace, filename=_CODE_FILE)
        if value is None:
            return None, None, None
        text = repr(value)
        if len(text) > limit:
            text = text[:limit] + "…"
        return text, None, None
    except BaseException as exc:
        if isinstance(exc, asyncio.CancelledError) and _current["stopped"]:
            # Stopped while waiting at an await: say so as Python would for a busy loop.
            task = _current["task"]
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
            stop = KeyboardInterrupt()
            stop.__traceback__ = exc.__traceback__
            exc = stop
        return (None, *_describe(exc))
    finally:
        _current["task"] = None
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass


def _thoughtline_stop():
    # Called by the worker when the stop signal comes while this thread is free, that is while
    # the run waits: at an await (its task waits for a future: cancel the task), or inside a
    # blocking call that pyodide turned into a wait (time.sleep, run_sync: cancel what it
    # waits for, another task; tasks the code started in the background are stopped with it).
    # Answers whether it stopped anything; if not, Python sees the signal itself when it next
    # runs.
    task = _current["task"]
    if task is None or task.done():
        return False
    if getattr(task, "_fut_waiter", None) is not None:
        _current["stopped"] = True
        task.cancel()
        return True
    others = [t for t in asyncio.all_tasks() if t is not task and not t.done()]
    for other in others:
        other.cancel()
    if others:
        _current["stopped"] = True
    return bool(others)


class _Gone:
    # Stands in, in Python modules, for a JavaScript object the sandbox took away.
    __slots__ = ("_what",)

    def __init__(self, what):
        object.__setattr__(self, "_what", what)

    def _refuse(self, *args, **kwargs):
        raise PermissionError(
            f"{self._what} is not available here: this Python has no network, storage or other pages"
        )

    __call__ = _refuse

    def __getattr__(self, attr):
        self._refuse()

    def __repr__(self):
        return f"<{self._what}: not available>"


def _thoughtline_scrub(found):
    # found: JavaScript [original, replacement or undefined, name] triples. Replaces each
    # original held in a loaded module's globals, or in a class defined there; answers how many.
    pairs = [(entry[0], entry[1], entry[2]) for entry in found]
    replaced = 0

    def swap(items, put):
        nonlocal replaced
        for key, value in items:
            if not isinstance(value, JsProxy):
                continue
            for original, replacement, name in pairs:
                if value == original:
                    put(key, replacement if replacement is not None else _Gone(name))
                    replaced += 1
                    break

    for module in list(sys.modules.values()):
        space = getattr(module, "__dict__", None) if isinstance(module, types.ModuleType) else None
        if not isinstance(space, dict):
            continue
        swap(list(space.items()), space.__setitem__)
        for value in list(space.values()):
            if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
                try:
                    swap(list(vars(value).items()), lambda key, new, cls=value: setattr(cls, key, new))
                except (TypeError, AttributeError):
                    pass  # a built-in type: nothing of ours in it
    pairs.clear()
    return replaced


def _thoughtline_offline_imports(problem=None):
    # A module pyodide would install says that nothing can be installed here; problem: why
    # micropip is missing although the page allows installs (a sentence), or None.
    global _NOT_HERE
    import _pyodide._importhook as hook
    hook.YOU_CAN_INSTALL_IT_BY = "\nNo package can be installed here: this Python has no network."
    hook.SEE_PACKAGE_LOADING = ""
    if problem:
        _NOT_HERE = f"Packages may be installed here, but micropip could not be loaded ({problem}): only the standard library pyodide ships is here."
        hook.YOU_CAN_INSTALL_IT_BY = "\n" + _NOT_HERE.replace("{", "(").replace("}", ")")


def _thoughtline_installs(index_urls):
    # The page allows installs: micropip (already unpacked into site-packages) is imported now,
    # while the sandbox closes, so that the search finds what it holds. It installs from
    # index_urls only. It would take the packages pyodide-lock.json lists from there, with
    # pyodide.loadPackage, but those wheels are not on this site: it is shown an empty list,
    # and finds pure-Python packages on the index like any other.
    global _NOT_HERE
    import micropip
    from micropip._compat import compatibility_layer

    compatibility_layer.lockfile_packages = {}
    micropip.set_index_urls([str(url) for url in index_urls])
    import _pyodide._importhook as hook
    _NOT_HERE = 'Pure-Python packages can be installed from the package index: import micropip, then await micropip.install("name").'
    hook.YOU_CAN_INSTALL_IT_BY = "\n" + _NOT_HERE
    hook.SEE_PACKAGE_LOADING = ""
`;

// ---- start -------------------------------------------------------------------------------

// The page's first message. Any other first message is ignored; after it, the worker no longer
// listens on itself.
self.onmessage = (event) => {
  const message = event.data;
  if (!message || message.type !== 'start') return;
  self.onmessage = null;
  start(message).catch((e) => console.error('python worker:', e));
};

async function start({ port, interrupt, outputLimit, install }) {
  if (!(port instanceof MessagePort)) {
    // No way to answer as agreed: say so on the only channel there is, once.
    self.postMessage({ type: 'failed', message: 'The Python worker was started without its message port: reload the page.' });
    return;
  }
  const send = (message) => PRIMORDIALS.apply(PRIMORDIALS.postMessage, port, [message]);
  const limit = Number.isFinite(outputLimit) && outputLimit >= 0 ? Math.floor(outputLimit) : DEFAULT_OUTPUT_LIMIT;
  const stopFlag = typeof SharedArrayBuffer === 'function' && interrupt instanceof SharedArrayBuffer
    ? new Uint8Array(interrupt)
    : null;
  const installs = readInstall(install);

  // Requests are handled one after another: documents wait for a run, a run for the load.
  let queue = Promise.resolve();
  port.onmessage = (event) => {
    const message = event.data;
    queue = queue.then(() => handle(message)).catch((e) => console.error('python worker:', e));
  };
  // An error nobody caught (for example one Python raises inside a timer callback it made) would
  // reach the page's Worker object as an error event: keep it in here.
  self.addEventListener('error', (event) => event.preventDefault());

  const began = performance.now();
  let python = null; // what load() answers
  let broken = null; // why code cannot run (a sentence), once loading or Python has failed
  const loading = load(send, stopFlag, installs).then(
    (loaded) => {
      python = loaded;
      send({ type: 'ready', ms: Math.round(performance.now() - began), memory: heapBytes(loaded.py) });
    },
    (e) => {
      broken = e?.sentence || explainLoad(e);
      send({ type: 'failed', message: broken });
    },
  );

  async function handle(message) {
    if (!message || typeof message !== 'object') return;
    await loading;
    if (message.type === 'run') {
      const id = message.id;
      if (!python || broken || python.fatal) {
        send(doneWith(id, { name: 'WorkerError', traceback: broken || FATAL }));
        return;
      }
      python.running = true;
      send(await run(python, id, String(message.code ?? ''), limit, stopFlag));
      python.running = false;
      if (python.fatal) send({ type: 'failed', message: FATAL }); // after the call's answer
    } else if (message.type === 'documents') {
      let count = 0;
      if (!python || broken || python.fatal) {
        send({ type: 'documents', count });
        return;
      }
      try {
        count = putDocuments(python.py, Array.isArray(message.files) ? message.files : []);
      } catch (e) {
        console.error('python worker: documents', e);
      }
      send({ type: 'documents', count });
    }
  }
}

const FATAL = 'Python stopped after an internal error: reload the page to start it again.';

const doneWith = (id, error) => ({
  type: 'done', id, stdout: '', stderr: '', stdoutCut: 0, stderrCut: 0, value: null, error, ms: 0, memory: 0, network: [],
});

// The start message's `install`: null (no installs, no network), or { indexUrls, hosts } with
// hosts as origins ('https://pypi.org'; http and https only). Anything malformed counts as
// null, and so does a list of hosts with no usable origin in it.
function readInstall(install) {
  if (!install || typeof install !== 'object') return null;
  const hosts = [];
  for (const host of Array.isArray(install.hosts) ? install.hosts : []) {
    let url;
    try {
      url = new URL(String(host));
    } catch {
      continue;
    }
    if ((url.protocol === 'https:' || url.protocol === 'http:') && !hosts.includes(url.origin)) hosts.push(url.origin);
  }
  // micropip appends '/name/' to an index address (unless it holds '{package_name}'): a
  // trailing slash would make '//name/', which an index answers with a redirect, not followed.
  const indexUrls = (Array.isArray(install.indexUrls) ? install.indexUrls : [])
    .filter((u) => typeof u === 'string' && u)
    .map((u) => (u.includes('{') ? u : u.replace(/\/+$/, '')));
  if (!hosts.length || !indexUrls.length) return null;
  return { hosts, indexUrls };
}

// ---- load --------------------------------------------------------------------------------

// An Error whose `sentence` is what to tell the person.
const failure = (sentence) => Object.assign(new Error(sentence), { sentence });

// What went wrong while loading, as a sentence a person can act on.
function explainLoad(e) {
  const text = String(e?.message || e || '');
  if (/Content.Security.Policy|unsafe-eval|CSP/i.test(text)) {
    return "This site's Content-Security-Policy does not let the Python worker start (pyodide needs "
      + "'unsafe-eval' and 'wasm-unsafe-eval' in the worker's script-src): the site's headers must allow them.";
  }
  if (/out of memory|Array buffer allocation failed|Cannot allocate|WebAssembly.Memory/i.test(text)) {
    return 'There is not enough memory to start Python: close other tabs or programs and try again.';
  }
  if (/version does not match/i.test(text)) {
    return "The site's Python files come from different releases (an incomplete update): reload the page; if it stays, the site must be rebuilt.";
  }
  return `Python could not be started (${text || 'unknown error'}): reload the page to try again.`;
}

// Loads pyodide (and micropip, when `installs` is set), counting the downloads for `progress`
// messages, then closes the sandbox.
async function load(send, stopFlag, installs) {
  if (typeof WebAssembly !== 'object') {
    throw failure('This browser cannot run Python: its WebAssembly is missing or turned off (some strict security modes do that).');
  }
  const folder = new URL('./', import.meta.url).href;
  const downloads = countDownloads(folder, send);
  let py;
  let micropipProblem = null; // why micropip is missing although installs are allowed
  try {
    const { loadPyodide } = await import('./pyodide.mjs').catch(() => {
      throw failure("Python's loader (python/pyodide.mjs) could not be fetched from this site: check the connection and reload the page.");
    });
    py = await Promise.race([
      loadPyodide({
        indexURL: folder,
        // Start-up messages go to the console; code's output is captured per run below.
        stdout: (line) => console.log('python:', line),
        stderr: (line) => console.warn('python:', line),
        checkAPIVersion: true,
      }),
      downloads.failed,
    ]);
    if (installs) micropipProblem = await loadMicropip(py, downloads.failed);
  } finally {
    downloads.finish();
  }
  let helpers;
  try {
    helpers = py.toPy({});
    py.runPython(HELPERS, { globals: helpers });
    // Imported now, so that the JavaScript they keep is found and replaced by the sandbox.
    py.runPython('import pyodide.http, pyodide.ffi.wrappers', { globals: helpers });
  } catch (e) {
    throw failure(`Python started, but its helpers did not (${e?.message || e}): reload the page to try again.`);
  }
  const network = installs ? networkLog() : null;
  closeSandbox(py, helpers, installs && { ...installs, network, micropipProblem });
  limitMemory(py);
  if (stopFlag) py.setInterruptBuffer(stopFlag);
  py.setStdin({ stdin: () => null }); // input() finds no input: EOFError
  // After an internal error pyodide can no longer be used, and the call that caused it never
  // settles: `died` rejects instead (pyodide calls on_fatal). Outside a call, the page is told
  // at once; during one, after its answer.
  let die;
  const died = new Promise((_, reject) => { die = reject; });
  died.catch(() => {});
  const python = {
    py,
    run: helpers.get('_thoughtline_run'),
    stop: helpers.get('_thoughtline_stop'),
    out: capture(py, 'stdout'),
    err: capture(py, 'stderr'),
    died,
    fatal: false,
    running: false,
    network,
  };
  py._api.on_fatal = (e) => {
    if (python.fatal) return;
    python.fatal = true;
    die(e);
    if (!python.running) send({ type: 'failed', message: FATAL });
  };
  return python;
}

// Unpacks micropip's wheel into site-packages, with pyodide.loadPackage: pyodide-lock.json
// names the file (in this folder) and its sha256, which the browser checks as it downloads.
// Answers null, or why micropip could not be loaded (words to put in a sentence). It is
// imported as the sandbox closes.
async function loadMicropip(py, failed) {
  const file = `python/${py._api?.lockfile_packages?.micropip?.file_name || 'micropip'}`;
  const errors = [];
  try {
    await Promise.race([
      py.loadPackage('micropip', { messageCallback: () => {}, errorCallback: (m) => errors.push(String(m)) }),
      failed,
    ]);
  } catch (e) {
    // A failed download (countDownloads) or a wrong sha256 (the browser refuses the response).
    errors.push(e?.sentence ? 'it could not be downloaded, or is not the file pyodide-lock.json describes' : String(e?.message || e));
  }
  if (py.loadedPackages?.micropip) return null;
  return `${file}: ${errors.join(' ') || 'it did not load'}`;
}

// The requests of the guarded fetch (closeSandbox), for the next call's answer: add() records
// one as it is made (method and address) and answers an object whose `outcome` is set once it
// is known; take() answers the lines and starts a new list.
// Built with PRIMORDIALS only: the code whose requests it lists cannot rewrite it.
function networkLog() {
  let entries = [];
  let more = 0;
  return {
    add(method, href) {
      const entry = { __proto__: null, line: `${shorten(method, 20)} ${shorten(href, NETWORK_URL_LIMIT)}`, outcome: null };
      if (entries.length < NETWORK_LOG_LIMIT) append(entries, entry);
      else more += 1;
      return entry;
    },
    take() {
      const lines = [];
      for (let i = 0; i < entries.length; i += 1) {
        append(lines, `${entries[i].line} → ${entries[i].outcome ?? 'unfinished when the call ended'}`);
      }
      if (more) append(lines, `… and ${more} more`);
      entries = [];
      more = 0;
      return lines;
    },
  };
}

// Text cut to `limit` characters, with … where it was cut (the address of a request is what
// Python chose, of any length).
function shorten(text, limit) {
  if (text.length <= limit) return text;
  let cut = '';
  for (let i = 0; i < limit - 1; i += 1) cut += text[i];
  return `${cut}…`;
}

// Wraps fetch while pyodide loads: every response body is counted as it streams, and `progress`
// messages go out at most every PROGRESS_EVERY_MS. Only this folder's files may be fetched.
// `failed` rejects as soon as a download fails or nothing arrives for SILENCE_LIMIT_MS (pyodide
// itself would wait for ever after a failed WebAssembly download); `finish()` restores fetch.
function countDownloads(folder, send) {
  const realFetch = globalThis.fetch;
  const realWarn = console.warn;
  let loaded = 0;
  let total = 0;
  let unknown = false; // a response without a length (or compressed): the total cannot be known
  let sentAt = 0;
  let heardAt = performance.now();
  let reject;
  const failed = new Promise((_, r) => { reject = r; });
  const progress = () => {
    heardAt = performance.now();
    if (heardAt - sentAt < PROGRESS_EVERY_MS) return;
    sentAt = heardAt;
    send({ type: 'progress', loaded, total: unknown ? 0 : total });
  };
  const fileOf = (url) => `python/${url.pathname.split('/').pop()}`;

  globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (!url.href.startsWith(folder)) throw new TypeError(`the Python worker fetches only its own files, not ${url.href}`);
    heardAt = performance.now();
    let response;
    try {
      response = await realFetch(url, init);
    } catch (e) {
      reject(failure(`${fileOf(url)} could not be downloaded (${e?.message || e}): check the connection and reload the page.`));
      throw e;
    }
    if (!response.ok) {
      reject(failure(`This site answered HTTP ${response.status} for ${fileOf(url)}: the site is incomplete; reload the page, and if it stays, tell whoever runs it.`));
      return response;
    }
    const length = Number(response.headers.get('content-length')) || 0;
    const encoding = response.headers.get('content-encoding');
    if (length > 0 && (!encoding || encoding === 'identity')) total += length;
    else unknown = true;
    progress();
    if (!response.body) return response;
    // Counted on a copy (a tee of the body), so that pyodide gets the response itself: the
    // browser keeps the compiled WebAssembly of a response it can tie to its URL, which makes
    // later starts faster.
    const copy = response.clone();
    (async () => {
      const reader = copy.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        loaded += value.byteLength;
        progress();
      }
    })().catch(() => {}); // the response itself reports a broken download
    // WebAssembly.instantiateStreaming accepts application/wasm only: a host that sends the
    // .wasm as something else gets a new response around the same body.
    if (url.pathname.endsWith('.wasm') && !/^application\/wasm\b/.test(response.headers.get('content-type') || '')) {
      const headers = new Headers(response.headers);
      headers.set('content-type', 'application/wasm');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    }
    return response;
  };
  // pyodide reports a failed WebAssembly start only as two console warnings, then waits.
  let warned = false;
  console.warn = (...args) => {
    if (args[0] === 'wasm instantiation failed!') warned = true;
    else if (warned) reject(failure(explainLoad(args[0])));
    realWarn.apply(console, args);
  };
  const watch = setInterval(() => {
    if (performance.now() - heardAt > SILENCE_LIMIT_MS) {
      reject(failure("Python's files stopped arriving: check the connection and reload the page."));
    }
  }, 1000);
  return {
    failed,
    finish() {
      clearInterval(watch);
      globalThis.fetch = realFetch;
      console.warn = realWarn;
      failed.catch(() => {});
      reject(new Error('finished')); // a later failure no longer matters
      if (loaded) send({ type: 'progress', loaded, total: unknown ? 0 : total });
    },
  };
}

// Makes pyodide's memory refuse to grow past MEMORY_LIMIT. Emscripten grows it with
// WebAssembly.Memory's grow(); when that throws, malloc fails, and Python raises MemoryError.
function limitMemory(py) {
  const realGrow = WebAssembly.Memory.prototype.grow;
  const heap = () => py._module.HEAP8.buffer;
  WebAssembly.Memory.prototype.grow = named('grow', function (pages) {
    if (this.buffer === heap() && this.buffer.byteLength + pages * 65_536 > MEMORY_LIMIT) {
      throw new RangeError(`Python may use at most ${MEMORY_LIMIT / 1024 ** 2} MB here`);
    }
    return realGrow.call(this, pages);
  });
}

// A function with a given name (what error messages and `.name` show).
const named = (name, fn) => Object.defineProperty(fn, 'name', { value: name });

// The bytes of pyodide's WebAssembly memory (it only grows).
const heapBytes = (py) => py._module.HEAP8.buffer.byteLength;

// ---- sandbox -----------------------------------------------------------------------------

// Takes away, from this worker, everything that reaches the network, storage or other
// contexts, and every way to compile new JavaScript (see the top of this file). Throws when a
// door could not be closed: code then never runs. `installs`: null, or the page's leave to
// install packages, { indexUrls, hosts, network: networkLog(), micropipProblem }: fetch is
// then replaced by a guard instead of deleted, and micropip is imported.
function closeSandbox(py, helpers, installs) {
  const G = globalThis;
  const guarded = installs ? guardedFetch(G.fetch, installs.hosts, installs.network) : null;
  const chain = (object) => {
    const out = [];
    for (let o = object; o; o = Object.getPrototypeOf(o)) out.push(o);
    return out;
  };
  // original → its replacement (undefined: deleted)
  const replaced = new Map();
  const refuse = (what) => named(what, function () { throw new EvalError(`${what} is turned off in this Python worker`); });

  // Code evaluation: stand-ins keep the name and the prototype (instanceof Function still works).
  const AsyncFunction = (async () => {}).constructor;
  const GeneratorFunction = function* () {}.constructor;
  const AsyncGeneratorFunction = async function* () {}.constructor;
  const standIn = (original, name) => Object.defineProperty(refuse(name), 'prototype', { value: original.prototype });
  replaced.set(G.eval, refuse('eval'));
  for (const [original, name] of [[Function, 'Function'], [AsyncFunction, 'AsyncFunction'],
    [GeneratorFunction, 'GeneratorFunction'], [AsyncGeneratorFunction, 'AsyncGeneratorFunction']]) {
    replaced.set(original, standIn(original, name));
  }
  // Timers take functions only.
  for (const name of ['setTimeout', 'setInterval']) {
    const original = G[name];
    const guarded = { [name]: (handler, ...rest) => {
      if (typeof handler !== 'function') throw new TypeError(`${name} takes a function here, not code in a string`);
      return original.call(G, handler, ...rest);
    } }[name];
    replaced.set(original, guarded);
  }
  // The doors, as found (on the global object or a prototype, on navigator or its prototype).
  const doors = new Map(); // original → name
  for (const [object, names] of [[G, GLOBAL_DOORS], [G.navigator, NAVIGATOR_DOORS]]) {
    if (!object) continue;
    for (const o of chain(object)) {
      for (const name of names) {
        const d = Object.getOwnPropertyDescriptor(o, name);
        if (!d) continue;
        // The function or accessor itself, and the object a getter hands out (caches, fonts).
        let current;
        try { current = object[name]; } catch { /* a getter that refuses */ }
        for (const v of [d.value, d.get, d.set, current]) {
          if ((typeof v === 'function' || (v && typeof v === 'object')) && !replaced.has(v)) {
            replaced.set(v, guarded && name === 'fetch' && v !== guarded ? guarded : undefined);
            doors.set(v, name);
          }
        }
        if (!delete o[name]) throw failure(`The Python worker could not remove ${name}: this browser cannot run the python tool safely.`);
      }
    }
  }
  // With installs allowed, the guard takes fetch's place, on the global object only.
  if (guarded) Object.defineProperty(G, 'fetch', { value: guarded, writable: true, enumerable: true, configurable: true });
  // Package loading throws a clear error rather than fetching.
  const noPackages = installs
    ? async () => {
      throw new Error("pyodide's own packages cannot be loaded here: pure-Python packages can be installed with micropip, from the package index.");
    }
    : async () => {
      throw new Error('No package can be installed here: this Python has no network.');
    };
  for (const name of ['loadPackage', 'loadPackagesFromImports']) {
    Object.defineProperty(py, name, { value: noPackages, writable: true, configurable: true });
  }
  if (py._api?.packageManager) {
    for (const name of ['loadPackage', 'loadPackagesFromImports', 'install']) {
      if (typeof py._api.packageManager[name] === 'function') py._api.packageManager[name] = noPackages;
    }
  }

  // Every reachable reference to an original: replaced, or deleted. The prototypes of the
  // function kinds are searched even when no such function is reachable yet.
  const roots = [G, py, Function.prototype, AsyncFunction.prototype, GeneratorFunction.prototype, AsyncGeneratorFunction.prototype];
  const isPy = (v) => py.ffi.PyProxy && v instanceof py.ffi.PyProxy;
  searchAndReplace(roots, replaced, isPy, false);
  // In Python: the same, in loaded modules' globals.
  const found = py.toPy([...replaced].map(([original, replacement]) => [original, replacement, doors.get(original) || original.name || 'this']));
  try {
    // micropip first, so that the search of Python modules covers its own.
    let problem = installs ? installs.micropipProblem : null;
    if (installs && !problem) {
      try {
        helpers.get('_thoughtline_installs')(installs.indexUrls);
      } catch (e) {
        problem = `it did not start: ${String(e?.message || e).trim().split('\n').pop()}`;
        console.error('python worker: micropip', e);
      }
    }
    if (!installs || problem) helpers.get('_thoughtline_offline_imports')(problem);
    helpers.get('_thoughtline_scrub')(found);
  } finally {
    found.destroy();
  }
  // Checked again: nothing may be left (but the guard, on the global object only).
  const left = searchAndReplace(roots, replaced, isPy, true);
  const guardOnly = (n) => guarded && n === 'fetch' && Object.getOwnPropertyDescriptor(G, n)?.value === guarded
    && !(n in Object.getPrototypeOf(G));
  const open = [...GLOBAL_DOORS.filter((n) => n in G && !guardOnly(n)), ...NAVIGATOR_DOORS.filter((n) => G.navigator && n in G.navigator)];
  if (left.length || open.length) {
    throw failure(`The Python worker could not close ${[...open, ...left].join(', ')}: this browser cannot run the python tool safely.`);
  }
  let evalStill = true;
  try { G.eval('1'); } catch { evalStill = false; }
  if (evalStill) throw failure('The Python worker could not turn off eval: this browser cannot run the python tool safely.');
}

// The fetch Python gets when the page allows installs (see the top of this file): a GET to
// one of `hosts` (origins), without credentials, referrer or redirects; anything else is
// refused with a TypeError before it leaves the worker. Every request is added to `log`.
function guardedFetch(realFetch, hosts, log) {
  const P = PRIMORDIALS;
  const allowedList = hosts.join(', ');
  const base = P.apply(P.urlHref, new P.URL(location.href), []);
  const allowed = (origin) => {
    for (let i = 0; i < hosts.length; i += 1) if (hosts[i] === origin) return true;
    return false;
  };
  const reason = (e) => {
    try { return P.String(e?.message || e); } catch { return 'unknown error'; }
  };
  return named('fetch', async (input, init) => {
    // What is asked for, each part read once: from a Request, or the address as text; then
    // from init.
    let raw;
    let method = 'GET';
    let headers;
    let signal;
    try {
      raw = P.apply(P.requestUrl, input, []);
      method = P.apply(P.requestMethod, input, []);
      headers = P.apply(P.requestHeaders, input, []);
      signal = P.apply(P.requestSignal, input, []);
    } catch {
      raw = P.String(input);
    }
    if (init !== undefined && init !== null) {
      if (init.method !== undefined) method = P.String(init.method);
      if (init.headers !== undefined) headers = init.headers;
      if (init.signal !== undefined) signal = init.signal;
    }
    method = P.apply(P.toUpperCase, method, []);
    let href = raw;
    let origin = null;
    try {
      const url = new P.URL(raw, base);
      href = P.apply(P.urlHref, url, []);
      origin = P.apply(P.urlOrigin, url, []);
    } catch { /* not an address: refused below */ }
    const entry = log.add(method, href);
    if (method !== 'GET') {
      entry.outcome = 'refused: only GET requests are allowed';
      throw new TypeError(`${method} ${href} is not allowed: this Python may only GET from the package index (${allowedList})`);
    }
    if (origin === null || !allowed(origin)) {
      entry.outcome = 'refused: not an allowed address';
      throw new TypeError(`${href} is not an allowed address: this Python may fetch only from the package index (${allowedList})`);
    }
    let response;
    try {
      response = await realFetch(href, {
        __proto__: null, // no member comes from a prototype Python changed
        method: 'GET',
        headers: headers === undefined || headers === null ? undefined : new P.Headers(headers),
        signal: signal ?? undefined,
        mode: 'cors',
        credentials: 'omit',
        redirect: 'manual',
        referrerPolicy: 'no-referrer',
      });
    } catch (e) {
      entry.outcome = `failed: ${reason(e)}`;
      throw e;
    }
    if (P.apply(P.responseType, response, []) === 'opaqueredirect') {
      entry.outcome = 'refused: a redirect (redirects are not followed)';
      throw new TypeError(`${href} answered with a redirect, and redirects are not followed here`);
    }
    entry.outcome = P.String(P.apply(P.responseStatus, response, []));
    return response;
  });
}

// Walks every object reachable from `roots` (own data properties and prototypes; getters are
// never called, and Python objects, `isPython`, are not entered) and replaces each property whose
// value is a key of `replaced` (deleting it when the replacement is undefined). With
// `checkOnly`, changes nothing and answers what it found, as "object.property" paths.
function searchAndReplace(roots, replaced, isPython, checkOnly) {
  const seen = new WeakSet();
  const stack = roots.map((r, i) => [r, ['globalThis', 'pyodide'][i] || `root${i}`]);
  const found = [];
  const skip = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer
    || (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer) || isPython(v);
  while (stack.length) {
    const [object, path] = stack.pop();
    if (seen.has(object)) continue;
    seen.add(object);
    let keys;
    try {
      keys = Reflect.ownKeys(object);
    } catch {
      continue;
    }
    for (const key of keys) {
      let d;
      try {
        d = Object.getOwnPropertyDescriptor(object, key);
      } catch {
        continue;
      }
      if (!d || !('value' in d)) continue;
      const v = d.value;
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) continue;
      const where = `${path}.${String(key)}`;
      if (replaced.has(v)) {
        if (checkOnly) {
          found.push(where);
          continue;
        }
        const next = replaced.get(v);
        const ok = next === undefined ? Reflect.deleteProperty(object, key) : Reflect.set(object, key, next)
          || Reflect.defineProperty(object, key, { ...d, value: next });
        if (!ok) found.push(where);
        continue;
      }
      if (!skip(v) && !seen.has(v)) stack.push([v, where]);
    }
    let proto = null;
    try {
      proto = Object.getPrototypeOf(object);
    } catch { /* a revoked proxy */ }
    if (proto && !seen.has(proto)) stack.push([proto, `${path}.[[Prototype]]`]);
  }
  if (!checkOnly && found.length) throw failure(`The Python worker could not replace ${found.join(', ')}: this browser cannot run the python tool safely.`);
  return found;
}

// ---- output ------------------------------------------------------------------------------

// Keeps at most `limit` bytes of a stream per call (pyodide's raw write form: bytes as Python
// writes them) and counts the rest; take() decodes what was kept as UTF-8.
function capture(py, stream) {
  const state = { limit: 0, bytes: new Uint8Array(0), used: 0, cut: 0 };
  const writer = {
    isatty: false,
    write(buffer) {
      const room = state.limit - state.used;
      const take = Math.min(room, buffer.length);
      if (take > 0) {
        if (state.used + take > state.bytes.length) {
          const grown = new Uint8Array(Math.min(state.limit, Math.max(4096, 2 * (state.used + take))));
          grown.set(state.bytes.subarray(0, state.used));
          state.bytes = grown;
        }
        state.bytes.set(buffer.subarray(0, take), state.used);
        state.used += take;
      }
      state.cut += buffer.length - Math.max(take, 0);
      return buffer.length;
    },
  };
  if (stream === 'stdout') py.setStdout(writer);
  else py.setStderr(writer);
  return {
    reset(limit) {
      state.limit = limit;
      state.used = 0;
      state.cut = 0;
    },
    // { text, cut }: a character cut in two at the limit is dropped whole (and counted as cut).
    take() {
      let end = state.used;
      if (state.cut > 0) end = wholeCharacters(state.bytes, end);
      const text = new TextDecoder('utf-8').decode(state.bytes.subarray(0, end));
      return { text, cut: state.cut + (state.used - end) };
    },
  };
}

// Where the last complete UTF-8 character of bytes[0..end) ends.
function wholeCharacters(bytes, end) {
  let start = end;
  // Back over continuation bytes (10xxxxxx) to the last lead byte, at most 3.
  while (start > 0 && end - start < 4 && (bytes[start - 1] & 0xc0) === 0x80) start -= 1;
  if (start === 0) return end;
  const lead = bytes[start - 1];
  const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start - 1 + size > end ? start - 1 : end;
}

// ---- run ---------------------------------------------------------------------------------

async function run(python, id, code, limit, stopFlag) {
  const { py } = python;
  if (stopFlag) Atomics.store(stopFlag, 0, 0);
  python.out.reset(limit);
  python.err.reset(limit);
  // A run waiting at an `await` leaves this worker free: a stop signal that comes then is
  // turned into a cancellation (Python checks the flag itself only while it computes).
  const poll = stopFlag
    ? setInterval(() => {
      if (Atomics.load(stopFlag, 0) !== 2) return;
      // Cleared while the helper runs (Python would raise KeyboardInterrupt inside it), and put
      // back when nothing could be stopped: Python then sees it when it runs again.
      Atomics.store(stopFlag, 0, 0);
      let stopped = false;
      try { stopped = python.stop(); } catch (e) { console.error('python worker: stop', e); }
      if (!stopped) Atomics.store(stopFlag, 0, 2);
    }, STOP_POLL_MS)
    : null;
  const started = performance.now();
  let value = null;
  let error = null;
  try {
    const answer = await Promise.race([python.run(code, limit), python.died]);
    try {
      const [text, name, traceback] = answer.toJs();
      value = text ?? null;
      if (name) error = { name, traceback: traceback ?? '' };
    } finally {
      answer.destroy();
    }
  } catch (e) {
    // Not the person's exception (those are answers): pyodide itself failed, or a stop signal
    // came just as the helper was answering.
    const message = String(e?.message || e);
    if (e?.type === 'KeyboardInterrupt') error = { name: 'KeyboardInterrupt', traceback: 'KeyboardInterrupt\n' };
    else error = { name: 'WorkerError', traceback: python.fatal ? `${FATAL} (${message})` : message };
  } finally {
    if (poll) clearInterval(poll);
  }
  const ms = performance.now() - started;
  const out = python.out.take();
  const err = python.err.take();
  let memory = 0;
  try { memory = heapBytes(py); } catch { /* a dead runtime has no heap to measure */ }
  let network = [];
  try { network = python.network ? python.network.take() : []; } catch (e) { console.error('python worker: network log', e); }
  return {
    type: 'done', id, stdout: out.text, stderr: err.text, stdoutCut: out.cut, stderrCut: err.cut,
    value, error, ms, memory, network,
  };
}

// ---- documents ---------------------------------------------------------------------------

// Puts `files` ([{ name, bytes }]) into /documents, replacing what was there, read-only.
// A new in-memory file system is mounted there each time (unmounting the previous one drops
// the old files at once; Python cannot unmount). Files get mode 0444, the folder 0555, and
// their mode can no longer be changed. Answers how many files were written.
function putDocuments(py, files) {
  const FS = py.FS;
  const EPERM = py.ERRNO_CODES.EPERM;
  let node = null;
  try {
    node = FS.lookupPath(DOCUMENTS, { follow_mount: false }).node;
  } catch { /* not there yet */ }
  if (node && FS.isMountpoint(node)) {
    FS.unmount(DOCUMENTS);
  } else if (node && !FS.isDir(node.mode)) {
    FS.unlink(DOCUMENTS);
    node = null;
  }
  if (!node) FS.mkdir(DOCUMENTS, 0o555);
  FS.mount(FS.filesystems.MEMFS, {}, DOCUMENTS);
  const freeze = (path) => {
    const target = FS.lookupPath(path).node;
    const ops = target.node_ops;
    target.node_ops = {
      ...ops,
      setattr(n, attr) {
        if (attr.mode !== undefined || attr.size !== undefined) throw new FS.ErrnoError(EPERM);
        return ops.setattr(n, attr);
      },
    };
  };
  const written = new Set();
  for (const file of files) {
    const name = file?.name;
    if (typeof name !== 'string' || !name || name.includes('/') || name.includes('..') || name.includes('\0')) continue;
    let bytes = file.bytes;
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    else if (ArrayBuffer.isView(bytes) && !(bytes instanceof Uint8Array)) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (!(bytes instanceof Uint8Array)) continue;
    const path = `${DOCUMENTS}/${name}`;
    if (written.has(name)) FS.unlink(path); // the later one of two with a name wins
    FS.writeFile(path, bytes);
    written.add(name);
  }
  for (const name of written) {
    FS.chmod(`${DOCUMENTS}/${name}`, 0o444);
    freeze(`${DOCUMENTS}/${name}`);
  }
  FS.chmod(DOCUMENTS, 0o555);
  freeze(DOCUMENTS);
  return written.size;
}
