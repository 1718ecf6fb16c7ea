// Browser benchmark (prints figures, asserts nothing): how fast the release page becomes
// interactive on localhost, and how a 200-step trace renders (imported, then scrolled).
//   node scripts/bench-browser.mjs        (after scripts/test has built dist/)
import { startServer, launch, longRunExport } from '../tests/e2e/harness.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const STEPS = 200;
const LOADS = 20;

const server = await startServer();
const browser = await launch();
try {
  // Interactive: the composer is in the DOM and the task that put it there has ended, so a key
  // press would be handled (a message posted then runs as the next task). Noted by the page
  // itself: asking from here after Playwright's own wait adds its polling and a round trip.
  const noteComposer = () => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="composer"]')) {
        observer.disconnect();
        const channel = new MessageChannel();
        channel.port1.onmessage = () => { window.__composerAt = performance.now(); };
        channel.port2.postMessage(0);
      }
    }).observe(document, { childList: true, subtree: true });
  };
  const samples = [];
  const polled = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await browser.newPage();
    await page.addInitScript(noteComposer);
    await page.goto(`${server.origin}/thoughtline/`);
    await page.getByTestId('composer').waitFor();
    await page.waitForFunction(() => window.__composerAt !== undefined);
    const [at, now] = await page.evaluate(() => [window.__composerAt, performance.now()]);
    samples.push(at);
    polled.push(now);
    await page.close();
  }
  samples.sort((a, b) => a - b);
  polled.sort((a, b) => a - b);
  console.log(`page interactive (composer in the DOM, its task ended), ${LOADS} loads: median ${samples[LOADS / 2].toFixed(0)} ms, best ${samples[0].toFixed(0)} ms`
    + ` (as Playwright's wait sees it: median ${polled[LOADS / 2].toFixed(0)} ms)`);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.origin}/thoughtline/`);
  await page.getByTestId('composer').waitFor();
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
} finally {
  await browser.close();
  server.stop();
}
