// End-to-end: the page as an installed app. Its service worker (www/sw.js) keeps the page's own
// files, makes the page cross-origin isolated on a host that sends no such headers (the
// loopback server sends none, and serves the page under a sub-path, as GitHub Pages does),
// opens the page offline, and offers a new build without forcing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite, openApp, startServer, script, ask, shot, loopbackSettings, action, untilStored } from './harness.mjs';
import { llamaModel } from './llama.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const env = suite();
const allow = { serviceWorkers: 'allow' };

/** Waits until the service worker controls the page and has kept the page's first files. */
async function controlled(page) {
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
}

/** Every response the worker keeps, as `{ url, text }` (text cut to what a key search needs). */
async function keptResponses(page) {
  return page.evaluate(async () => {
    const out = [];
    for (const name of await caches.keys()) {
      const store = await caches.open(name);
      for (const request of await store.keys()) {
        const response = await store.match(request);
        const type = response.headers.get('Content-Type') || '';
        out.push({ cache: name, url: request.url, text: /wasm|octet/.test(type) ? '' : await response.text() });
      }
    }
    return out;
  });
}

test('installable: a manifest with icons; the worker keeps only the page\'s own files, never a provider\'s reply', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, ...allow });
  const manifest = await page.evaluate(async () => {
    const link = document.querySelector('link[rel="manifest"]');
    const m = await (await fetch(link.href)).json();
    const icons = await Promise.all(m.icons.map(async (i) => (await fetch(new URL(i.src, link.href))).status));
    return { ...m, iconStatus: icons };
  });
  assert.equal(manifest.name, 'Thoughtline');
  assert.equal(manifest.start_url, './');
  assert.deepEqual(manifest.iconStatus, manifest.icons.map(() => 200));
  assert.ok(manifest.icons.some((i) => i.sizes === '512x512'));
  await controlled(page);
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42 with sk-test nowhere' }]);
  await ask(page, 'Six times seven?');
  await page.locator('.bubble.assistant').waitFor();
  const kept = await keptResponses(page);
  const files = kept.filter((k) => k.cache === 'thoughtline-files');
  assert.ok(files.length > 20, `the page's files are kept (${files.length})`);
  for (const k of kept) {
    assert.match(k.url, /^http:\/\/127\.0\.0\.1:\d+\/thoughtline\/__kept\/([0-9a-f]{64}|__builds)$|\/thoughtline\/__builds$/, k.url);
    assert.ok(!k.text.includes('sk-test'), `${k.url} holds no key`);
    assert.ok(!k.text.includes('Final Answer'), `${k.url} holds no model reply`);
  }
  await context.close();
});

test('a host with no isolation headers: the page isolates itself, providers still answer, and the model in the page gets every core', async () => {
  const index = await fetch(`${env.server.origin}/thoughtline/`);
  assert.equal(index.headers.get('cross-origin-opener-policy'), null, 'the host sends no COOP');
  assert.equal(index.headers.get('cross-origin-embedder-policy'), null, 'the host sends no COEP');
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, ...allow });
  assert.equal(await page.evaluate(() => crossOriginIsolated), false, 'the first visit is not isolated');
  await controlled(page);
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'isolated once the worker serves the page');
  // A provider (another origin's CORS replies) and a tool still work in the isolated page.
  await script(env.server.origin, scope, [action('calculator', '2+3'), { text: 'Final Answer: 5' }]);
  await ask(page, 'Two plus three?');
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '5');
  const engine = await page.evaluate(async () => (await import(new URL('in-page/engine.js', document.baseURI).href)).environment());
  assert.equal(engine.isolated, true);
  assert.ok(engine.threads > 1, `threads: ${engine.threads} (cores ${engine.cores})`);
  assert.match(engine.note, /CPU, \d+ threads|WebGPU/);
  await context.close();
});

/** A streamed OpenAI-style reply of `text`, as the page's provider client reads it. */
const sse = (text) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`
  + `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

test('offline, the page opens from its worker; web tools say they are offline and the calculator works', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, ...allow });
  await controlled(page);
  await context.setOffline(true);
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  assert.equal(await page.evaluate(() => navigator.onLine), false);
  // The model stands in for one that answers offline (as the one in the page does): its replies
  // are given by the test, while every real request fails as offline.
  const replies = [action('wikipedia', 'Ada Lovelace').text, action('calculator', '6*7').text, 'Thought: done.\nFinal Answer: 42'];
  await context.route('**/v1/chat/completions', (route) => route.fulfill({
    status: 200, headers: { 'Content-Type': 'text/event-stream', 'Access-Control-Allow-Origin': '*' }, body: sse(replies.shift() ?? 'Final Answer: no more'),
  }));
  await ask(page, 'Who was Ada Lovelace, and what is 6*7?');
  await page.locator('.bubble.assistant').waitFor();
  const failed = page.locator('[data-kind="tool_failed"]');
  await failed.waitFor();
  assert.match(await failed.textContent(), /Wikipedia needs the network, and this browser is offline/);
  assert.doesNotMatch(await failed.textContent(), /CORS/);
  assert.equal(await failed.getAttribute('data-tone'), 'error');
  assert.match(await page.locator('[data-kind="tool_result"]').textContent(), /6\*7 = 42/);
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '42');
  await shot(page, 'offline-tools');
  await context.close();
});

const inPageSkip = fs.existsSync(llamaModel) ? false : `${llamaModel} is missing: run scripts/setup.sh (setup_llm_server)`;
test('offline after a first visit: the page opens with its chats and the model in the page answers', { skip: inPageSkip }, async () => {
  const name = `offline-${process.pid}.gguf`;
  const seed = (scopeUrl) => ({
    preset: 'in-page', model: `${new URL(scopeUrl).origin}/models/${name}`, connection: { context_tokens: 2048 },
    agent: { max_iterations: 1, temperature: 0 },
  });
  const { page, context } = await openApp(env.browser, env.server.origin, { seed, ...allow });
  // Someone who chose the model in the page gets the isolated page at once: one reload, on its own.
  await page.waitForFunction(() => crossOriginIsolated, null, { timeout: 30_000 });
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  await ask(page, 'Say hello.');
  await page.locator('[data-kind="run_stopped"]').waitFor({ timeout: 300_000 });
  assert.ok(await page.locator('[data-kind="llm_response"]').count() > 0);
  await untilStored(page, 'Say hello.');

  await context.setOffline(true);
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  await page.locator('.chat-title', { hasText: 'Say hello.' }).waitFor();
  await page.locator('.bubble.user .text', { hasText: 'Say hello.' }).waitFor();
  await ask(page, 'Say goodbye.');
  // The trace shows the run just asked: its end, and the model's reply in it.
  await page.getByTestId('stop').waitFor({ timeout: 30_000 });
  await page.getByTestId('stop').waitFor({ state: 'detached', timeout: 300_000 });
  await page.locator('[data-kind="run_stopped"]').waitFor();
  const problem = await page.locator('.bubble.problem').allTextContents();
  assert.ok(await page.locator('[data-kind="llm_response"]').count() > 0, `the model answered offline: ${problem.join(' | ')}`);
  await shot(page, 'offline-in-page');
  await context.close();
});

test('a new build is offered, not forced, and nothing is lost on reload', async () => {
  // A copy of the site, served by a server of its own, to publish a "new build" into.
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'thoughtline-update-'));
  fs.cpSync(path.join(root, 'dist'), site, { recursive: true });
  const host = await startServer(['--dist', site]);
  try {
    const { page, context, scope } = await openApp(env.browser, host.origin, { seed: loopbackSettings, ...allow });
    await controlled(page);
    await script(host.origin, scope, [{ text: 'Final Answer: before the update' }, { text: 'Final Answer: while it waits' }]);
    await ask(page, 'Asked before the update');
    await page.locator('.bubble.assistant').waitFor();
    await page.evaluate(() => { window.sameDocument = true; });

    // A new build is published: a changed page, and so a new worker.
    const indexFile = path.join(site, 'index.html');
    fs.writeFileSync(indexFile, fs.readFileSync(indexFile, 'utf8').replace('<title>', '<meta name="thoughtline-build" content="next"><title>'));
    execFileSync(process.execPath, [path.join(root, 'scripts', 'service-worker.mjs'), site]);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await page.getByTestId('update-ready').waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId('update-ready').textContent(), /A new version of Thoughtline is ready/);
    await shot(page, 'update-ready');

    // Offered, not forced: the page goes on as it was.
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.sameDocument), true);
    await ask(page, 'Asked while the update waits');
    await page.locator('.bubble.assistant').nth(1).waitFor();
    await untilStored(page, 'while it waits');

    await Promise.all([page.waitForEvent('load'), page.getByTestId('update-reload').click()]);
    await page.locator('html[data-ready]').waitFor({ state: 'attached' });
    assert.equal(await page.evaluate(() => window.sameDocument), undefined, 'reloaded');
    assert.equal(await page.locator('meta[name="thoughtline-build"]').getAttribute('content'), 'next');
    await page.locator('.bubble.assistant', { hasText: 'while it waits' }).waitFor();
    assert.deepEqual(await page.locator('.bubble.user .text').allTextContents(), ['Asked before the update', 'Asked while the update waits']);
    assert.equal(await page.getByTestId('update-ready').count(), 0);
    await context.close();
  } finally {
    host.stop();
    fs.rmSync(site, { recursive: true, force: true });
  }
});
