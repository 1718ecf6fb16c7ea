// End-to-end tests of showing a run to someone: a link that carries a two-run conversation,
// opened in a fresh browser profile as a read-only view (no request to the model, nothing
// stored), Keep a copy, Save as HTML read with scripts off, and links that are cut, altered,
// damaged or unpack to too much, each saying what is wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { suite, openApp, script, requests, ask, shot, loopbackSettings, action, untilStored, traceTones, exportMenu, moreMenu } from './harness.mjs';

const env = suite();

/** The record a link carries, unpacked as the page does. */
function record(link) {
  const [, version, bytes, packed] = link.match(/#share=(\d+)\.(\d+)\.([A-Za-z0-9_-]+)$/);
  assert.equal(version, '1');
  const gz = Buffer.from(packed, 'base64url');
  assert.equal(gz.length, Number(bytes));
  return JSON.parse(zlib.gunzipSync(gz).toString('utf8'));
}

/** A link for `text`, packed as the page packs it. */
function linkFor(origin, text) {
  const gz = zlib.gzipSync(Buffer.from(text, 'utf8'));
  return `${origin}/thoughtline/#share=1.${gz.length}.${gz.toString('base64url')}`;
}

/** What a fresh profile stored: localStorage keys and IndexedDB databases. */
async function storedNames(page) {
  return page.evaluate(async () => ({ local: Object.keys(localStorage), dbs: (await indexedDB.databases()).map((d) => d.name) }));
}

async function openLink(browser, link) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(link);
  await page.getByTestId('shared-view').waitFor();
  return { context, page, errors };
}

test('a two-run conversation shared by link opens read-only in a fresh profile; Keep a copy makes it a chat', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42, said with key sk-test in hand' }]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant .text', { hasText: '42' }).waitFor();
  await script(env.server.origin, scope, [action('calculator', '2+2'), { text: 'Final Answer: **4**' }]);
  await ask(page, 'And two plus two <b>now</b>?');
  await page.locator('.bubble.assistant .text', { hasText: '4' }).nth(1).waitFor();
  const tones = await traceTones(page);

  // The Share panel: this run first, then the whole conversation.
  await page.getByTestId('share').click();
  const panel = page.getByTestId('share-panel');
  const link = panel.getByTestId('share-link');
  await link.waitFor();
  const oneRun = await link.inputValue();
  assert.equal(record(oneRun).runs.length, 1, 'the run shown');
  await panel.getByTestId('share-scope-conversation').check();
  await page.waitForFunction((before) => document.querySelector('[data-testid="share-link"]')?.value !== before, oneRun);
  const shared = await link.inputValue();
  const file = record(shared);
  assert.equal(file.runs.length, 2);
  assert.deepEqual(file.settings, {}, 'a link carries no settings');
  assert.ok(!JSON.stringify(file).includes('sk-test'), 'the key is masked out of the link');
  assert.ok(shared.startsWith(`${env.server.origin}/thoughtline/#share=1.`), shared);
  const size = await panel.getByTestId('share-size').textContent();
  assert.match(size, new RegExp(`The link is ${shared.length.toLocaleString('en-US')} characters`), size);
  await shot(page, 'share-panel');
  // Cut observations: shorter, and the record says so.
  await panel.getByTestId('share-cut').check();
  await page.waitForFunction((before) => document.querySelector('[data-testid="share-link"]')?.value !== before, shared);
  const cut = await link.inputValue();
  assert.equal(record(cut).shared.observations_cut_at, 1000);
  assert.ok(cut.length < shared.length, `${cut.length} < ${shared.length}`);
  console.log(`# link of the run shown ${oneRun.length}, of both runs ${shared.length}, cut ${cut.length} characters; the record ${JSON.stringify(file).length} characters`);
  const asked = (await requests(env.server.origin, scope)).length;

  // A fresh profile: the read-only view, both runs, their steps, no model asked, nothing stored.
  const viewer = await openLink(env.browser, shared);
  const v = viewer.page;
  await v.locator('.bubble.assistant .text', { hasText: '4' }).nth(1).waitFor();
  const bubbles = await v.locator('.bubble').allTextContents();
  assert.equal(bubbles.length, 4);
  assert.match(bubbles[0], /What is six times seven\?/);
  assert.match(bubbles[2], /And two plus two <b>now<\/b>\?/, 'the question is text, not markup');
  assert.equal(await v.locator('.bubble.user b').count(), 0);
  assert.equal(await v.locator('.bubble.assistant strong', { hasText: '4' }).count(), 1, 'answers are sanitised Markdown');
  assert.deepEqual(await traceTones(v), tones, 'the latest run\'s steps, as they were');
  await v.locator('.bubble.assistant [data-testid="show-steps"]').first().click();
  await v.locator('[data-testid="event"][data-kind="tool_result"]', { hasText: '6*7 = 42' }).waitFor();
  assert.equal(await v.getByTestId('composer').count(), 0, 'nothing to ask here');
  assert.equal(await v.getByTestId('fork-step').count(), 0, 'nothing runs from here');
  await moreMenu(v);
  await v.getByTestId('view-timeline').click();
  await v.getByTestId('timeline-bar').first().waitFor();
  await exportMenu(v);
  const [otel] = await Promise.all([v.waitForEvent('download'), v.getByTestId('export-otel').click()]);
  const spans = JSON.parse(fs.readFileSync(await otel.path(), 'utf8')).resourceSpans[0].scopeSpans[0].spans;
  assert.ok(spans.some((s) => s.name.includes('calculator')), 'the OpenTelemetry file of the run shown');
  await shot(v, 'shared-view');
  await moreMenu(v);
  await v.getByTestId('compare-runs').click();
  const runA = v.getByTestId('runs-compare-a');
  await runA.waitFor();
  assert.equal(await runA.locator('option').count(), 2, 'both runs to compare');
  await v.locator('.shared-bar button', { hasText: 'The run' }).click();
  // Save as HTML, read with scripts off: every step of both runs.
  await exportMenu(v);
  const [saved] = await Promise.all([v.waitForEvent('download'), v.getByTestId('save-html').click()]);
  assert.equal(saved.suggestedFilename(), 'thoughtline-chat.html');
  // Opened as a file of its own, as a person would open it from their downloads.
  const htmlPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'thoughtline-share-')), 'thoughtline-chat.html');
  await saved.saveAs(htmlPath);
  const html = fs.readFileSync(htmlPath, 'utf8');
  assert.doesNotMatch(html, /<script/i);
  const events = file.runs.reduce((n, r) => n + r.trace.events.length, 0);
  const plain = await env.browser.newContext({ javaScriptEnabled: false });
  const reader = await plain.newPage();
  await reader.goto(`file://${htmlPath}`);
  assert.equal(await reader.locator('li.step').count(), events, 'every step');
  assert.match(await reader.locator('h2').nth(1).textContent(), /And two plus two <b>now<\/b>\?/);
  await shot(reader, 'shared-html');
  await plain.close();
  assert.equal((await requests(env.server.origin, scope)).length, asked, 'no model was asked');
  assert.deepEqual(await storedNames(v), { local: [], dbs: [] }, 'nothing stored, no settings written');
  assert.deepEqual(viewer.errors, []);

  // Keep a copy: a chat of this profile, stored, and the link gone from the address.
  await v.getByTestId('keep-copy').click();
  await v.getByTestId('composer').waitFor();
  await v.locator('.bubble.assistant .text', { hasText: '4' }).nth(1).waitFor();
  assert.doesNotMatch(v.url(), /#share=/);
  await untilStored(v, ['What is six times seven?', 'And two plus two']);
  await v.reload();
  await v.locator('.bubble.assistant .text', { hasText: '42' }).waitFor();
  assert.equal(await v.getByTestId('chat-item').count(), 1);
  await viewer.context.close();
  await context.close();
});

test('a cut, altered, damaged or oversized link says what is wrong; a pasted link opens the view', async () => {
  const origin = env.server.origin;
  const chat = JSON.stringify({
    format: 'thoughtline.run', version: 3, exported_unix_ms: 1, title: 'Shared <img src=x onerror=alert(1)>', settings: {},
    runs: [{ question: 'Is <script>alert(1)</script> text?', clarified: [], steps_kept: true, outcome: { kind: 'answer', text: 'Yes' }, trace: { events: [] } }],
  });
  const good = linkFor(origin, chat);
  const { page, context, errors } = await openLink(env.browser, good);
  await page.locator('.bubble.user', { hasText: 'Is <script>alert(1)</script> text?' }).waitFor();
  assert.equal(await page.locator('.bubble script, img[src="x"]').count(), 0);
  assert.deepEqual(errors, []);

  const says = async (link, pattern) => {
    await page.goto('about:blank');
    await page.goto(link);
    const error = page.getByTestId('shared-error');
    await error.waitFor();
    assert.match(await error.textContent(), pattern, link.slice(0, 80));
  };
  await says(good.slice(0, -20), /This link is cut off: it holds [\d,]+ of its [\d,]+ characters/);
  const at = good.indexOf('#') + 30;
  const altered = good.slice(0, at) + (good[at] === 'A' ? 'B' : 'A') + good.slice(at + 1);
  await says(altered, /changed after it was made/);
  await says(`${good}Zz`, /changed after it was made/);
  await says(`${origin}/thoughtline/#share=1.zz`, /damaged/);
  await says(`${origin}/thoughtline/#share=7.1.AA`, /newer Thoughtline/);
  await says(linkFor(origin, ' '.repeat(20 * 1024 * 1024)), /unpacks to more than 8 MB/);
  await says(linkFor(origin, '{"format":"something else"}'), /cannot be read/);
  assert.deepEqual(await storedNames(page), { local: [], dbs: [] }, 'a bad link stores nothing either');

  // A link pasted into the address bar of an open page changes only its fragment.
  await page.goto(`${origin}/thoughtline/`);
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  await page.evaluate((hash) => { location.hash = hash; }, good.slice(good.indexOf('#')));
  await page.getByTestId('shared-view').waitFor();
  await page.locator('.bubble.assistant', { hasText: 'Yes' }).waitFor();
  await context.close();
});
