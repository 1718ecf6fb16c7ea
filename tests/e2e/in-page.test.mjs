// End-to-end tests of the model in the page (llama.cpp compiled to WebAssembly, through
// www/in-page/engine.js), in the release page, with the SmolLM2-135M GGUF the test set-up
// installs, served from the page's own origin. Its replies are real model output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, openApp, ask, shot, traceTones } from './harness.mjs';
import { llamaModel } from './llama.mjs';

const env = suite();
const ready = fs.existsSync(llamaModel);
const skip = ready ? false : `${llamaModel} is missing: run scripts/setup.sh (setup_llm_server)`;

/** How many times each model path was downloaded (GET) from the loopback server. */
const downloads = async () => (await fetch(`${env.server.origin}/models/__requests`)).json();

/** Stored settings choosing the model in the page, with the test GGUF at `name` of the page's origin. */
const inPage = (name, agent = {}) => (scopeUrl) => ({
  preset: 'in-page',
  model: `${new URL(scopeUrl).origin}/models/${name}`,
  connection: { context_tokens: 2048 },
  agent: { max_iterations: 2, temperature: 0, ...agent },
  tools: { wikipedia: { base_url: `${scopeUrl}/wikipedia` }, arxiv: { openalex_url: `${scopeUrl}/openalex` }, web_search: { ddg_url: `${scopeUrl}/ddg` } },
});

test('the first screen fetches none of the engine\'s files', async () => {
  const fetched = [];
  const { page, context } = await openApp(env.browser, env.server.origin, {
    beforeLoad: (c) => c.on('request', (r) => fetched.push(new URL(r.url()).pathname)),
  });
  // Settled once the parts every page fetches at idle have come (the find bar's is the last).
  for (const end = Date.now() + 30_000; !fetched.some((p) => /\/split_find_bar-/.test(p));) {
    assert.ok(Date.now() < end, `the idle parts were not fetched: ${fetched.join(' ')}`);
    await page.waitForTimeout(50);
  }
  await page.waitForTimeout(500);
  assert.deepEqual(fetched.filter((p) => p.includes('/in-page/') || p.endsWith('.gguf')), []);
  // A newcomer with no usable provider is offered the model in the page first.
  await page.getByTestId('in-page-offer').waitFor();
  assert.match(await page.getByTestId('in-page-offer').textContent(), /about \d+ MB/);
  await context.close();
});

test('the model in the page loads with visible progress, answers with its steps, and a reload asks no second download', { skip }, async () => {
  const name = `answers-${process.pid}.gguf`;
  const { page, context, errors } = await openApp(env.browser, env.server.origin, { seed: inPage(name) });
  await ask(page, 'What is the capital of France?');
  const status = page.getByTestId('in-page-status');
  await status.filter({ hasText: /MB of \d+ MB \(\d+ %\)/ }).first().waitFor({ timeout: 30_000 });
  await page.locator('[data-kind="run_stopped"]').waitFor({ timeout: 300_000 });
  const kinds = await page.getByTestId('event').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.ok(kinds.includes('llm_response'), kinds.join(' '));
  const reply = await page.locator('[data-kind="llm_response"] [data-testid="part-text"]').first().textContent();
  assert.ok(reply.trim().length > 0, 'the model wrote something');
  assert.match(await page.locator('[data-kind="llm_response"] [data-testid="event-counts"]').first().textContent(), /\d+ in · \d+ out tokens · first token \d+\.\d\d s/);
  await shot(page, 'in-page-answered');
  assert.equal((await downloads())[`/models/${name}`], 1);

  // A reload loads the model from this browser's storage: no request for the file.
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  // The reopened chat shows its first run's end already: wait for this run's own Stop to come and go.
  await ask(page, 'Say hello.');
  await page.getByTestId('stop').waitFor({ timeout: 30_000 });
  await page.getByTestId('stop').waitFor({ state: 'detached', timeout: 300_000 });
  assert.equal((await downloads())[`/models/${name}`], 1, 'no second download');
  assert.match(await page.getByTestId('in-page-status').textContent().catch(() => ''), /^$|from this browser's storage/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a file that is not a GGUF and a download cut midway each end with their message, and nothing half-cached', { skip }, async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: inPage('page.gguf?not-gguf=1') });
  await ask(page, 'Hello?');
  await page.locator('.bubble').nth(1).waitFor({ timeout: 60_000 });
  const said = await page.locator('.bubble').nth(1).textContent();
  assert.match(said, /page\.gguf is not a GGUF/i, 'named as it was given, not by its cache key: ' + said);
  assert.match(await page.getByTestId('in-page-status').textContent(), /not a GGUF/i);
  // The run that never reached the model shows its start and its failure in the trace, in red.
  assert.deepEqual(await traceTones(page), ['run_started:neutral', 'run_stopped:error']);

  // A download that stops after 5 MB of 98.
  await page.getByTestId('settings-toggle').click();
  const cut = `${env.server.origin}/models/cut-${process.pid}.gguf?cut=5000000`;
  await page.getByTestId('in-page-model').fill(cut);
  await page.getByTestId('in-page-model').press('Tab');
  await page.getByTestId('in-page-load').click();
  const status = page.getByTestId('in-page-status').first();
  // The status moves on from the last failure to this download's end.
  await page.waitForFunction(() => {
    const text = document.querySelector('[data-testid="in-page-status"]')?.textContent ?? '';
    return /cut-\d+/.test(text) && !/Loading|Asking/.test(text);
  }, null, { timeout: 60_000 });
  const why = await status.textContent();
  assert.match(why, /download|connection|truncated|cut|complete/i, why);
  assert.equal(await page.getByTestId('in-page-cached-model').filter({ hasText: 'cut-' }).count(), 0, 'nothing half-cached');
  await shot(page, 'in-page-cut');
  await context.close();
});

test('Settings lists the model kept in this browser with its size, and Delete removes it', { skip }, async () => {
  const name = `delete-${process.pid}.gguf`;
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: inPage(name) });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('in-page-load').click();
  await page.getByTestId('in-page-status').first().filter({ hasText: /^Ready/ }).waitFor({ timeout: 120_000 });
  const kept = page.getByTestId('in-page-cached-model').filter({ hasText: name });
  await kept.waitFor();
  assert.match(await kept.textContent(), /\d+ MB/);
  await shot(page, 'in-page-settings');
  await kept.getByTestId('in-page-delete').click();
  await kept.waitFor({ state: 'detached' });
  // Loading again downloads it again.
  await page.getByTestId('in-page-load').click();
  await page.getByTestId('in-page-status').first().filter({ hasText: /^Ready/ }).waitFor({ timeout: 120_000 });
  assert.equal((await downloads())[`/models/${name}`], 2);
  await context.close();
});

test('structured output reads the model\'s JSON step; Stop ends a reply at once and the next question works', { skip }, async () => {
  const name = `structured-${process.pid}.gguf`;
  const { page, context, errors } = await openApp(env.browser, env.server.origin, { seed: inPage(name, { structured_output: true, max_tokens: 96, max_iterations: 1 }) });
  await ask(page, 'What is 2 + 2?');
  await page.locator('[data-kind="run_stopped"]').waitFor({ timeout: 300_000 });
  const reply = await page.locator('[data-kind="llm_response"] [data-testid="part-text"]').first().textContent();
  assert.match(reply.trim(), /^\{/, `a JSON step: ${reply}`);
  assert.ok(await page.locator('[data-kind="parsed"], [data-kind="parse_failed"]').count() > 0);

  // Stop while the reply streams.
  await ask(page, 'Tell me a long story about a dragon.');
  await page.locator('[data-testid="stream-text"]:not(:empty)').waitFor({ timeout: 300_000 });
  await page.getByTestId('stop').click();
  // The pane shows the latest run: its own end, marked as stopped by the person.
  await page.locator('[data-kind="run_stopped"][data-tone="neutral"]').waitFor({ timeout: 5_000 });
  assert.equal(await page.getByTestId('stop').count(), 0);
  assert.equal(await page.locator('.bubble').count(), 4);

  await ask(page, 'What is 3 + 3?');
  await page.locator('.bubble').nth(5).waitFor({ timeout: 300_000 });
  await page.locator('[data-kind="run_stopped"]').waitFor();
  assert.ok((await page.locator('[data-kind="llm_response"]').count()) >= 1, 'the next question got a reply');
  assert.deepEqual(errors, []);
  await context.close();
});
