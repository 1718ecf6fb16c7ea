// Browser benchmark (prints figures, asserts nothing).
//
// Loading, in Chromium: how soon the release page paints, takes typing, and has the app running,
// under four conditions, {cold cache, service-worker cache} x {loopback, throttled network:
// 1.5 Mbps down / 750 kbps up, 150 ms round trips}, plus a returning person (storage kept, no
// service worker). The page takes its own figures: an init script, run before any of the page's
// scripts, observes layout shifts and long tasks; the paint entry and the page's two marks
// ('tl-typing': the first screen's composer takes typing; 'tl-ready': the app has taken over and
// Send works) are read from its performance timeline. Each row: median / best over the loads.
// With --firefox, the same loads in Firefox ESR through geckodriver (paint entry and marks only:
// Firefox has neither layout-shift nor longtask entries).
// Each load opens a new tab and lets it finish starting before the address is entered, as a
// person does (--settle MS, 1000 by default): a new tab of Chromium starts work of its own (the
// browser's pages for the tab's address bar, in their own renderer) that otherwise runs on the
// same two cores during the first ~600 ms of the load. The first row is the floor: a page of
// one paragraph, loaded the same way, so the figures can be read against what this machine
// can do at all.
// Then, unless --no-trace: how a 200-step trace renders (imported, then scrolled).
//
//   node scripts/bench-browser.mjs [--loads N] [--quick] [--firefox] [--no-trace] [--dist DIR] [--settle MS]
// after scripts/build; --loads defaults to 20, --quick means 5; --dist serves another built dist/.
import { startServer, launch, longRunExport } from '../tests/e2e/harness.mjs';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const LOADS = Number(option('--loads') ?? (argv.includes('--quick') ? 5 : 20));
if (!Number.isInteger(LOADS) || LOADS < 1) throw new Error('--loads wants a whole number of at least 1');
const STEPS = 200;
const VIEWPORT = { width: 1280, height: 800 };
const AFTER_READY_MS = 500; // shifts and long tasks are counted up to this long after 'tl-ready'
const READY_WAIT_MS = 30_000;
const NEW_TAB_WAIT_MS = Number(option('--settle') ?? 1000);
if (!(NEW_TAB_WAIT_MS >= 0)) throw new Error('--settle wants a number of milliseconds');
const UNMARKED_SETTLE_MS = 1000;
const SLOW = { offline: false, latency: 150, downloadThroughput: 1.5e6 / 8, uploadThroughput: 0.75e6 / 8 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** In the page, before its own scripts: keeps every layout shift (not caused by input) and long task. */
function observeLoad() {
  const seen = { shifts: [], tasks: [] };
  window.__tlLoad = seen;
  const watch = (type, keep) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(keep)).observe({ type, buffered: true });
    } catch { /* an engine without this entry type */ }
  };
  watch('layout-shift', (e) => { if (!e.hadRecentInput) seen.shifts.push([e.startTime, e.value]); });
  watch('longtask', (e) => seen.tasks.push([e.startTime, e.duration]));
}

/** In the page, once the load is over: its figures, in ms from the start of the navigation. */
function readFigures(afterReady) {
  const at = (name, type) => performance.getEntriesByName(name, type)[0]?.startTime ?? null;
  const ready = at('tl-ready', 'mark');
  const end = ready === null ? Infinity : ready + afterReady;
  const inWindow = (list) => list.filter(([start]) => start <= end);
  const seen = window.__tlLoad; // absent where no init script ran (Firefox)
  const nav = performance.getEntriesByType('navigation')[0];
  const requests = [nav, ...performance.getEntriesByType('resource')].filter(Boolean);
  return {
    fcp: at('first-contentful-paint', 'paint'),
    typing: at('tl-typing', 'mark'),
    ready,
    cls: seen ? inWindow(seen.shifts).reduce((sum, [, value]) => sum + value, 0) : null,
    longest: seen ? Math.max(0, ...inWindow(seen.tasks).map(([, duration]) => duration)) : null,
    document: nav ? nav.responseEnd : null, // the page's HTML fully received
    viaWorker: requests.filter((e) => e.workerStart > 0).length,
    requests: requests.length,
  };
}

// Whether this build marks 'tl-ready', learnt on the first load: a build without the mark would
// otherwise cost every load the whole wait.
let readyMarked;

/**
 * Waits for the end of a load: AFTER_READY_MS after 'tl-ready'; for a build without the mark,
 * UNMARKED_SETTLE_MS after the composer is there. `until(fn, ms)` polls `fn` in the page and
 * resolves to whether it came true in time.
 */
async function endOfLoad(until) {
  if (readyMarked !== false) {
    const marked = await until(() => performance.getEntriesByName('tl-ready', 'mark').length > 0, READY_WAIT_MS);
    if (marked) {
      readyMarked = true;
      return sleep(AFTER_READY_MS);
    }
    if (readyMarked) return undefined; // a build that marks it, missing on this load: "not marked"
    readyMarked = false;
    console.log(`(no 'tl-ready' mark within ${READY_WAIT_MS / 1000} s on the first load: this build does not mark it;`
      + ` each load ends ${UNMARKED_SETTLE_MS} ms after the composer is there, and "ready" reads "not marked")`);
  }
  await until(() => !!document.querySelector('[data-testid="composer"]'), READY_WAIT_MS);
  return sleep(UNMARKED_SETTLE_MS);
}

/** One load in Chromium: `go(page)` navigates; the network is slowed first when `throttled`. */
async function measure(page, throttled, go) {
  if (throttled) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW);
  }
  await go(page);
  await endOfLoad((fn, timeout) => page.waitForFunction(fn, null, { timeout }).then(() => true, () => false));
  return page.evaluate(readFigures, AFTER_READY_MS);
}

/** A new tab, given time to finish starting before anything is loaded in it. */
async function newTab(context) {
  const page = await context.newPage();
  await sleep(NEW_TAB_WAIT_MS);
  return page;
}

/** Cold cache: each load in a new context (its own empty cache and storage, workers blocked). */
async function coldLoads(browser, url, throttled) {
  const loads = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.addInitScript(observeLoad);
    loads.push(await measure(await newTab(context), throttled, (p) => p.goto(url)));
    await context.close();
  }
  return loads;
}

/**
 * The floor: a page of one paragraph and nothing else, from a server of its own on loopback,
 * loaded as the cold rows load the app. Only its paint is read.
 */
async function floorLoads(browser) {
  const page = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Floor</title></head>'
    + '<body><p>A page of one paragraph: what this machine and browser need to paint anything.</p></body></html>';
  const server = http.createServer((_, res) => res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' }).end(page));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${server.address().port}/`;
  const loads = [];
  try {
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext({ viewport: VIEWPORT });
      const tab = await newTab(context);
      await tab.goto(address);
      await tab.waitForFunction(() => performance.getEntriesByName('first-contentful-paint', 'paint').length > 0);
      loads.push(await tab.evaluate(readFigures, AFTER_READY_MS));
      await context.close();
    }
  } finally {
    server.close();
  }
  return loads;
}

/**
 * Service-worker cache: one context that allows workers; a first load installs the worker
 * (offline.js registers sw.js once the app has started; the worker claims the page when it
 * activates, after its install has stored the files), then each load is a new page in it.
 */
async function workerLoads(browser, url, throttled) {
  const context = await browser.newContext({ viewport: VIEWPORT, serviceWorkers: 'allow' });
  await context.addInitScript(observeLoad);
  const first = await context.newPage();
  await first.goto(url);
  const controlled = () => first.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 })
    .then(() => true, () => false);
  if (!(await controlled()) && !(await first.reload().then(controlled))) {
    throw new Error('the service worker did not take control of the page (30 s, then a reload and 30 s more)');
  }
  await first.close();
  const loads = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await newTab(context);
    loads.push(await measure(page, throttled, (p) => p.goto(url)));
    await page.close();
  }
  await context.close();
  return loads;
}

/**
 * A returning person: one context (workers blocked) loads the page once, then reloads it; what
 * the page stored is kept (the loopback server sends no-store, so the HTTP cache keeps nothing).
 */
async function returningLoads(browser, url) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(observeLoad);
  const page = await context.newPage();
  await measure(page, false, (p) => p.goto(url));
  const loads = [];
  for (let i = 0; i < LOADS; i++) loads.push(await measure(page, false, (p) => p.reload()));
  await context.close();
  return loads;
}

/** Firefox ESR: each load a new WebDriver session, so a new, empty profile (a cold cache). */
async function firefoxLoads(url) {
  const { engines, startDriver, session } = await import('../tests/engines/driver.mjs');
  const driverBin = engines.firefox.driver[0];
  const firefoxBin = engines.firefox.capabilities()['moz:firefoxOptions'].binary;
  const absent = [driverBin, firefoxBin].filter((f) => !fs.existsSync(f));
  if (absent.length) {
    console.log(`Firefox: skipped, not installed: ${absent.join(', ')} (scripts/setup.sh's setup_engines installs them)`);
    return null;
  }
  const driver = await startDriver('firefox');
  const loads = [];
  try {
    for (let i = 0; i < LOADS; i++) {
      const s = await session('firefox', driver.url);
      try {
        await sleep(NEW_TAB_WAIT_MS); // a new browser: let it finish starting, as in Chromium's rows
        await s.open(url);
        await endOfLoad((fn, timeout) => s.until(fn, [], { timeout }).then(() => true, () => false));
        loads.push(await s.run(readFigures, AFTER_READY_MS));
      } finally {
        await s.quit();
      }
    }
  } finally {
    driver.stop();
  }
  return loads;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** "median / best" of one figure over the loads, saying how many loads had it when not all. */
function cell(values, missing, show = (v) => v.toFixed(0)) {
  const got = values.filter((v) => v !== null && v !== undefined);
  if (got.length === 0) return missing;
  const text = `${show(median(got))} / ${show(Math.min(...got))}`;
  return got.length < values.length ? `${text} (${got.length} of ${values.length})` : text;
}

/** The longest task's cell, and in how many loads there was a task over 50 ms at all. */
function longTasks(values) {
  const text = cell(values, 'n/a', (v) => (v === 0 ? '<50' : v.toFixed(0)));
  const over = values.filter((v) => v > 0).length;
  return over ? `${text} (${over} of ${values.length} loads)` : text;
}

function printTable(rows) {
  const head = ['', 'FCP ms', 'typing ms', 'ready ms', 'CLS', 'longest task ms', 'document ms', 'via SW'];
  const lines = rows.map(([label, loads]) => {
    const of = (key) => loads.map((l) => l[key]);
    // A person can only type into what they see: a composer that takes keys before the first
    // contentful paint is still invisible, so "typing" is the later of 'tl-typing' and FCP.
    const typing = loads.map((l) => (l.typing === null ? null : Math.max(l.typing, l.fcp ?? l.typing)));
    return [label, cell(of('fcp'), 'none'), cell(typing, 'not marked'), cell(of('ready'), 'not marked'),
      cell(of('cls'), 'n/a', (v) => v.toFixed(3)), longTasks(of('longest')),
      cell(of('document'), 'none'), `${median(of('viaWorker'))} of ${median(of('requests'))}`];
  });
  const widths = head.map((_, i) => Math.max(...[head, ...lines].map((line) => line[i].length)));
  for (const line of [head, ...lines]) console.log(line.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
}

const server = await startServer(option('--dist') ? ['--dist', option('--dist')] : []);
const url = `${server.origin}/thoughtline/`;
const browser = await launch();
try {
  console.log(`Loading, Chromium, ${LOADS} loads each (cells: median / best; ms from the start of the navigation;`
    + ` longest task and CLS up to ${AFTER_READY_MS} ms after ready; "document": the HTML fully received;`
    + ` "via SW": requests the service worker answered, of all made by the end; each load in a new tab`
    + ` that had ${NEW_TAB_WAIT_MS} ms to finish starting)`);
  // scripts/service-worker.mjs writes sw.js last: a dist/ without it (a build under way) has no worker.
  const hasWorker = (await fetch(`${url}sw.js`)).ok;
  if (!hasWorker) console.log('(no sw.js in the served dist/: the service-worker rows are left out)');
  const rows = [['floor: one paragraph, cold, loopback', await floorLoads(browser)]];
  for (const [name, throttled] of [['loopback', false], ['throttled', true]]) {
    rows.push([`cold cache, ${name}`, await coldLoads(browser, url, throttled)]);
    if (hasWorker) rows.push([`service-worker cache, ${name}`, await workerLoads(browser, url, throttled)]);
  }
  rows.push(['returning (storage kept, no SW)', await returningLoads(browser, url)]);
  printTable(rows);
  if (hasWorker) {
    // The throttling is set on the page's own network; a service worker answering from its
    // cache never reaches it. When the HTML was fully received shows whether it applied
    // (Chromium adds the emulated latency to the body, not to the first byte).
    const documentAt = (label) => median(rows.find(([l]) => l === label)[1].map((l) => l.document));
    const [coldSlow, workerSlow] = [documentAt('cold cache, throttled'), documentAt('service-worker cache, throttled')];
    console.log(`Throttling and the service worker: the document was received ${coldSlow.toFixed(0)} ms in (median) cold`
      + ` and throttled, ${workerSlow.toFixed(0)} ms with the worker and throttled: ${workerSlow < SLOW.latency
        ? 'the throttling does not apply to what the worker serves (so the throttled worker rows are not slowed)'
        : 'the throttling did apply to the worker-served load'}.`);
  }

  if (argv.includes('--firefox')) {
    const loads = await firefoxLoads(url);
    if (loads) {
      console.log(`Loading, Firefox ESR, ${LOADS} loads (a new WebDriver session, so an empty profile, each; no layout-shift or longtask entries there)`);
      printTable([['cold cache, loopback', loads]]);
    }
  }

  if (!argv.includes('--no-trace')) {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(url);
    // The app must have taken over: the first screen's composer is there before it has.
    if (readyMarked) await page.waitForFunction(() => document.documentElement.hasAttribute('data-ready'));
    else await page.getByTestId('composer').waitFor();
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: 'longtask', buffered: true });
    });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bench-')), 'run.json');
    fs.writeFileSync(file, JSON.stringify(longRunExport(STEPS, 'x'.repeat(1000))));
    const t0 = Date.now();
    await page.getByTestId('import').setInputFiles(file);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="event"]').length === n, 2 + STEPS * 5 + 1);
    const renderMs = Date.now() - t0;
    // Scroll through the whole trace and count frames that took long.
    const frames = await page.evaluate(async () => {
      const pane = document.querySelector('section.trace');
      const times = [];
      let last = performance.now();
      for (let y = 0; y < pane.scrollHeight; y += 400) {
        pane.scrollTop = y;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      return times;
    });
    const longTasks = await page.evaluate(() => window.__long);
    frames.sort((a, b) => a - b);
    const p = (q) => frames[Math.min(frames.length - 1, Math.floor(q * frames.length))].toFixed(1);
    console.log(`${STEPS}-step trace (${2 + STEPS * 5 + 1} events): rendered in ${renderMs} ms after import`);
    console.log(`  long tasks (>50 ms) during import: ${longTasks.length}${longTasks.length ? ` (longest ${Math.max(...longTasks).toFixed(0)} ms)` : ''}`);
    console.log(`  scrolling: ${frames.length} frames, median ${p(0.5)} ms, p95 ${p(0.95)} ms, worst ${frames.at(-1).toFixed(1)} ms`);
  }
} finally {
  await browser.close();
  server.stop();
}
