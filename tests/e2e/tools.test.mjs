// End-to-end runs that use the tools: the model is scripted, the services are the loopback
// server replaying recorded responses, and everything else is the real page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, openApp, script, requests, toolRequests, ask, shot, readmeShot, loopbackSettings, traceTones, action, showAll } from './harness.mjs';

const env = suite();

const finalAnswer = (text) => ({ text: `Thought: I can answer now.\nFinal Answer: ${text}` });

test('a Wikipedia question runs blue then green and ends with the answer', async () => {
  const { page, context, errors, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('wikipedia', 'Python programming'), finalAnswer('Python is a programming language created by Guido van Rossum.')]);
  await ask(page, 'Who created Python?');
  await page.locator('.bubble.assistant').waitFor();
  const tones = await traceTones(page);
  const call = tones.indexOf('tool_call:pending');
  assert.ok(call > 0, tones.join(' '));
  assert.equal(tones[call + 1], 'tool_result:success');
  assert.equal(tones.at(-1), 'run_stopped:success');
  const finished = await page.locator('[data-tone="pending"]').evaluateAll((els) => els.every((e) => e.classList.contains('done')));
  assert.ok(finished, 'once answered, no step is drawn as still in progress');
  // The README's screenshot: a finished run with a tool call and its answer, before any step
  // is opened (THOUGHTLINE_SCREENSHOT=1 writes docs/screenshot.png; see readmeShot).
  assert.ok(fs.statSync(await readmeShot(page)).size > 0);
  const observation = page.locator('[data-kind="tool_result"]');
  assert.match(await observation.textContent(), /wikipedia/);
  await showAll(observation);
  assert.match(await observation.locator('pre').textContent(), /Page: Python \(programming language\)/);
  // The second model call saw the observation in its scratchpad.
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 2);
  assert.match(sent[1].body.messages.at(-1).content, /Observation: Page: Python \(programming language\)/);
  assert.match(sent[0].body.messages[0].content, /- wikipedia: /);
  // The trace records the second request as what it added to the first; opened, the row
  // rebuilds exactly the messages the server received.
  const second = page.locator('[data-kind="llm_request"]').nth(1);
  await second.locator('summary').click();
  // Filled when the details' toggle event arrives, a moment after the click.
  await second.locator('pre', { hasText: '[System]' }).waitFor();
  const role = (r) => r[0].toUpperCase() + r.slice(1);
  assert.equal(await second.locator('pre').textContent(), sent[1].body.messages.map((m) => `[${role(m.role)}]\n${m.content}`).join('\n\n'));
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'Python is a programming language created by Guido van Rossum.');
  await shot(page, 'wikipedia-run');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the calculator answers 25% of 300', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '25% of 300'), finalAnswer('25% of 300 is 75.')]);
  await ask(page, 'What is 25% of 300?');
  await page.locator('.bubble.assistant').waitFor();
  await showAll(page.locator('[data-kind="tool_result"]'));
  assert.equal(await page.locator('[data-kind="tool_result"] pre').textContent(), '25% of 300 = 75');
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '25% of 300 is 75.');
  await shot(page, 'calculator-run');
  await context.close();
});

test('arXiv without a proxy falls back to OpenAlex and says so', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('arxiv', 'machine learning public health'), finalAnswer('Found some papers.')]);
  await ask(page, 'Papers on machine learning in public health?');
  await page.locator('.bubble.assistant').waitFor();
  await showAll(page.locator('[data-kind="tool_result"]'));
  assert.match(await page.locator('[data-kind="tool_result"] pre').textContent(), /^Source: OpenAlex \(arXiv-hosted works\)/);
  const asked = await toolRequests(env.server.origin, scope);
  assert.ok(asked.some((u) => u.startsWith('/openalex/works?') && u.includes('S4306400194')), asked.join('\n'));
  await context.close();
});

test('arXiv goes through the CORS proxy when one is set', async () => {
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), tools: { ...loopbackSettings(scopeUrl, base).tools, cors_proxy: `${scopeUrl}/proxy?url={url}` } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [action('arxiv', 'testing'), finalAnswer('Done.')]);
  await ask(page, 'Papers about testing?');
  await page.locator('.bubble.assistant').waitFor();
  await showAll(page.locator('[data-kind="tool_result"]'));
  assert.match(await page.locator('[data-kind="tool_result"] pre').textContent(), /Published: \d{4}-\d\d-\d\d\nTitle: /);
  const asked = await toolRequests(env.server.origin, scope);
  assert.ok(asked.some((u) => u.startsWith('/proxy -> https://export.arxiv.org/api/query?')), asked.join('\n'));
  await context.close();
});

test('a disabled tool is not offered to the model, and a tool error is red and fed back', async () => {
  const seed = (scopeUrl, base) => loopbackSettings(scopeUrl, base, { wikipedia: { common: { enabled: false } }, web_search: { ddg_url: '' } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [action('web_search', 'rust'), finalAnswer('I could not search.')]);
  await ask(page, 'What is Rust?');
  await page.locator('.bubble.assistant').waitFor();
  const sent = await requests(env.server.origin, scope);
  assert.doesNotMatch(sent[0].body.messages[0].content, /- wikipedia:/);
  const failed = page.locator('[data-kind="tool_failed"]');
  assert.equal(await failed.getAttribute('data-tone'), 'error');
  assert.match(await failed.textContent(), /set a CORS proxy in Settings/);
  assert.match(sent[1].body.messages.at(-1).content, /Observation: The tool "web_search" failed: DuckDuckGo blocks browser requests/);
  await shot(page, 'tool-error');
  await context.close();
});

test('tool settings are in the Settings panel and persist', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin);
  await page.getByTestId('settings-toggle').click();
  await page.getByText('arXiv', { exact: true }).click();
  await page.getByTestId('tool-arxiv-enabled').uncheck();
  await page.getByTestId('cors-proxy').fill('https://proxy.example/?url={url}');
  await page.getByTestId('cors-proxy').press('Tab');
  await page.reload();
  await page.getByTestId('settings-toggle').click();
  await page.getByText('arXiv', { exact: true }).click();
  assert.equal(await page.getByTestId('tool-arxiv-enabled').isChecked(), false);
  assert.equal(await page.getByTestId('tool-wikipedia-enabled').isChecked(), true);
  assert.equal(await page.getByTestId('cors-proxy').inputValue(), 'https://proxy.example/?url={url}');
  await context.close();
});
