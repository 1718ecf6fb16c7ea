#!/usr/bin/env node
// The model in the page on a host that sends no headers (as GitHub Pages), under a sub-path:
// the threads it gets and how fast it writes, with the page isolating itself (its service
// worker adds COOP + COEP), without it, and on a host that sends the headers itself.
// The release site in dist/ is served by tests/server/loopback.mjs; the model is the test
// GGUF (scripts/setup.sh). Prints a table; asserts nothing.
//   node scripts/bench-isolation.mjs [--runs N]   (best of N, default 2)
import os from 'node:os';
import { launch, startServer } from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 2;

const setups = [
  { name: 'host sends COOP + COEP', server: ['--isolate'], serviceWorkers: 'block', visits: 1 },
  { name: 'no headers, the page isolates itself (service worker)', server: [], serviceWorkers: 'allow', visits: 2 },
  { name: 'no headers, no service worker', server: [], serviceWorkers: 'block', visits: 1 },
];

const PROMPT = [
  { role: 'system', content: 'You are a helpful assistant. Answer in full sentences.' },
  { role: 'user', content: 'Describe how a river shapes the land around it, from its source to the sea.' },
];

async function measure(page, origin) {
  return page.evaluate(async ({ url, prompt, runs }) => {
    const E = await import(new URL('in-page/engine.js', document.baseURI).href);
    const env = await E.environment();
    const info = await E.load({ url }, { nCtx: 2048 });
    let best = { gen: 0, prompt: 0 };
    for (let i = 0; i < runs; i++) {
      const r = await E.chat(prompt, { maxTokens: 96, temperature: 0 });
      const gen = r.genMs > 0 ? (r.completionTokens - 1) / (r.genMs / 1000) : 0;
      const read = r.promptMs > 0 ? (r.promptTokens - r.cachedTokens) / (r.promptMs / 1000) : 0;
      best = { gen: Math.max(best.gen, gen), prompt: Math.max(best.prompt, read) };
    }
    await E.unload();
    return { isolated: crossOriginIsolated, threads: info.threads, note: env.note, ...best };
  }, { url: `${origin}/models/bench-isolation-${Date.now()}.gguf`, prompt: PROMPT, runs });
}

const browser = await launch();
const rows = [];
for (const setup of setups) {
  const server = await startServer(setup.server);
  const context = await browser.newContext({ serviceWorkers: setup.serviceWorkers });
  const page = await context.newPage();
  for (let v = 0; v < setup.visits; v++) {
    await page.goto(`${server.origin}/thoughtline/`);
    await page.locator('html[data-ready]').waitFor({ state: 'attached' });
    if (setup.serviceWorkers === 'allow') await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
  }
  rows.push({ setup: setup.name, ...(await measure(page, server.origin)) });
  await context.close();
  server.stop();
}
await browser.close();
console.log(`The model in the page, SmolLM2-135M Q4_1, ${os.cpus().length} cores, best of ${runs}; load average ${os.loadavg()[0].toFixed(2)}`);
console.log('| setup | isolated | threads | prompt tok/s | gen tok/s |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.setup} | ${r.isolated ? 'yes' : 'no'} | ${r.threads} | ${r.prompt.toFixed(1)} | ${r.gen.toFixed(1)} |`);
