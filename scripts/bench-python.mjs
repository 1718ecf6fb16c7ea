// Python in the page, measured in Chromium on the release build (run `scripts/build` first):
// the runtime's first start from the network (a new browser context, empty cache) and from the
// service worker's cache (the page's worker controlling it, the files kept by an earlier
// start), the overhead of a warm call (`print(1)`, from the page posting it to the answer),
// and the memory of a started interpreter. Prints figures; asserts nothing (tests never time).
//   node scripts/bench-python.mjs [--runs N]   (default 5 starts, 20 warm calls each)
import { startServer, launch } from '../tests/e2e/harness.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const runs = arg('--runs', 5);
const calls = 20;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** In the page: starts the worker as the app does, then `calls` warm calls; answers figures. */
function inPage(calls) {
  return (async () => {
    const worker = new Worker(new URL('python/worker.js', document.baseURI), { type: 'module' });
    const channel = new MessageChannel();
    const heard = [];
    let wake = () => {};
    channel.port1.onmessage = (e) => { heard.push(e.data); wake(); };
    const next = async (type) => {
      for (;;) {
        const at = heard.findIndex((m) => m.type === type || m.type === 'failed');
        if (at >= 0) {
          const m = heard.splice(at, 1)[0];
          if (m.type === 'failed') throw new Error(m.message);
          return m;
        }
        await new Promise((r) => { wake = r; });
      }
    };
    const began = performance.now();
    worker.postMessage({ type: 'start', port: channel.port2, interrupt: null, outputLimit: 65536 }, [channel.port2]);
    const ready = await next('ready');
    const start = performance.now() - began;
    const roundTrips = [];
    for (let id = 1; id <= calls; id += 1) {
      const t = performance.now();
      channel.port1.postMessage({ type: 'run', id, code: 'print(1)' });
      await next('done');
      roundTrips.push(performance.now() - t);
    }
    worker.terminate();
    return { start, memory: ready.memory, roundTrips };
  })();
}

const server = await startServer();
const browser = await launch();
const rows = { network: [], cache: [] };
try {
  for (let i = 0; i < runs; i += 1) {
    // From the network: a new context has an empty cache and no service worker yet.
    const context = await browser.newContext({ serviceWorkers: 'allow' });
    const page = await context.newPage();
    await page.goto(`${server.origin}/thoughtline/`);
    await page.locator('html[data-ready]').waitFor({ state: 'attached' });
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
    rows.network.push(await page.evaluate(inPage, calls));
    // From the service worker's cache: the first start kept the files (python/ is kept on use).
    await page.reload();
    await page.locator('html[data-ready]').waitFor({ state: 'attached' });
    rows.cache.push(await page.evaluate(inPage, calls));
    await context.close();
  }
} finally {
  await browser.close();
  server.stop();
}

const ms = (x) => `${Math.round(x)} ms`;
console.log(`Python in the page (Pyodide 314.0.7), Chromium, loopback, ${runs} starts each, median / best:`);
for (const [name, list] of Object.entries(rows)) {
  const starts = list.map((r) => r.start);
  const warm = list.flatMap((r) => r.roundTrips.slice(1));
  console.log(`  first start from ${name === 'network' ? 'the network' : "the service worker's cache"}: ${ms(median(starts))} / ${ms(Math.min(...starts))}`);
  console.log(`    warm call print(1), page to answer: median ${median(warm).toFixed(2)} ms, worst ${Math.max(...warm).toFixed(2)} ms (target 20 ms)`);
}
const memory = rows.network.map((r) => r.memory);
console.log(`  memory after start: ${(median(memory) / 1e6).toFixed(1)} MB of WebAssembly memory`);
