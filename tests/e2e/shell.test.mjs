// End-to-end tests of the page shell and one full run, against the release dist/ served under
// /thoughtline/ by the loopback server, in Debian's Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, requests, configure, ask, shot, loopbackSettings } from './harness.mjs';

const env = suite();

test('the shell renders under a sub-path with chat, trace and settings', async () => {
  const { page, errors, context } = await openApp(env.browser, env.server.origin);
  assert.equal(await page.locator('h1').textContent(), 'Thoughtline');
  assert.equal(await page.getByRole('region', { name: 'Chat' }).count(), 1);
  assert.equal(await page.getByRole('region', { name: 'Agent trace' }).count(), 1);
  assert.equal(await page.getByTestId('example').count(), 3);
  // An example fills the box; it is not sent until the person decides.
  await page.getByTestId('example').nth(1).click();
  assert.equal(await page.getByTestId('composer').inputValue(), 'What is 25% of 300?');
  assert.equal(await page.getByTestId('message').count(), 0);
  await shot(page, 'shell');
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('api-key').getAttribute('type'), 'password');
  assert.equal(await page.getByTestId('remember-key').isChecked(), false);
  await shot(page, 'settings');
  assert.deepEqual(errors, []);
  await context.close();
});

test('settings persist across a reload, and the key only when remembered', async () => {
  const { page, context, base } = await openApp(env.browser, env.server.origin);
  await configure(page, { base, model: 'my-model', key: 'sk-forget-me' });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('temperature').fill('0.7');
  await page.reload();
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('base-url').inputValue(), base);
  assert.equal(await page.getByTestId('model').inputValue(), 'my-model');
  assert.equal(await page.getByTestId('temperature').inputValue(), '0.7');
  assert.equal(await page.getByTestId('api-key').inputValue(), '', 'the key is not remembered by default');
  const stored = await page.evaluate(() => JSON.stringify(localStorage));
  assert.ok(!stored.includes('sk-forget-me'), 'the key never reached localStorage');

  await page.getByTestId('api-key').fill('sk-keep-me');
  await page.getByTestId('api-key').press('Tab');
  await page.getByTestId('remember-key').check();
  await page.reload();
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('api-key').inputValue(), 'sk-keep-me');
  await context.close();
});

test('Enter sends, Shift+Enter adds a line, and a run shows a green trace and the answer', async () => {
  const { page, context, errors, base, scope } = await openApp(env.browser, env.server.origin);
  await configure(page, { base, key: 'sk-test-secret' });
  await script(env.server.origin, scope, [{ text: 'Thought: I know this one.\nFinal Answer: Paris is the capital of France.' }]);
  const box = page.getByTestId('composer');
  await box.fill('What is the capital');
  await box.press('Shift+Enter');
  await box.pressSequentially('of France?');
  assert.equal(await box.inputValue(), 'What is the capital\nof France?');
  assert.equal(await page.getByTestId('message').count(), 0, 'Shift+Enter did not send');
  await box.press('Enter');
  await page.locator('.bubble.assistant').waitFor();
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'Paris is the capital of France.');
  assert.equal(await page.locator('.bubble.user .text').textContent(), 'What is the capital\nof France?');
  const tones = await page.getByTestId('event').evaluateAll((els) => els.map((e) => `${e.dataset.kind}:${e.dataset.tone}`));
  assert.deepEqual(tones, ['run_started:neutral', 'llm_request:pending', 'llm_response:success', 'parsed:success', 'final_answer:success', 'run_stopped:success']);
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers.authorization, 'Bearer sk-test-secret');
  assert.deepEqual(sent[0].body.stop, ['Observation:']);
  assert.equal(sent[0].body.model, 'test-model');
  assert.ok(!(await page.locator('body').textContent()).includes('sk-test-secret'), 'the key is nowhere on the page');
  await shot(page, 'answered');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a rejected key is shown in red with what to do', async () => {
  const { page, context, base, scope } = await openApp(env.browser, env.server.origin);
  await configure(page, { base, key: 'sk-wrong' });
  await script(env.server.origin, scope, [{ status: 401, fixture: 'openai/error_401_invalid_api_key.json' }]);
  await ask(page, 'Hello?');
  const problem = page.locator('.bubble.problem');
  await problem.waitFor();
  assert.match(await problem.textContent(), /refused the API key \(HTTP 401\)\. Check the key in Settings/);
  const failed = page.locator('[data-kind="llm_failed"]');
  assert.equal(await failed.getAttribute('data-tone'), 'error');
  await shot(page, 'error-401');
  await context.close();
});

test('a missing key is reported before any request is made', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin);
  await ask(page, 'Anyone there?');
  await page.locator('.bubble.problem').waitFor();
  assert.match(await page.locator('.bubble.problem').textContent(), /Add your API key in Settings/);
  assert.equal((await requests(env.server.origin, scope)).length, 0);
  await context.close();
});

test('Stop ends a slow run at once', async () => {
  const { page, context, base, scope } = await openApp(env.browser, env.server.origin);
  await configure(page, { base, key: 'k' });
  await script(env.server.origin, scope, [{ text: 'Final Answer: too late', delay_ms: 20000 }]);
  await ask(page, 'Take your time');
  await page.getByTestId('stop').waitFor();
  assert.equal(await page.getByTestId('send').count(), 0, 'Send is replaced by Stop while running');
  const inFlight = page.locator('[data-kind="llm_request"]');
  await inFlight.waitFor();
  assert.equal(await inFlight.evaluate((el) => el.classList.contains('done')), false, 'the call in flight is drawn in progress (blue)');
  const started = Date.now();
  await page.getByTestId('stop').click();
  await page.locator('[data-kind="run_stopped"]').waitFor();
  assert.ok(Date.now() - started < 5000, 'stopped without waiting for the model');
  assert.match(await page.locator('.bubble.problem').textContent(), /Stopped by you/);
  await page.getByTestId('send').waitFor();
  // The server notices the closed connection a moment after the page moved on.
  let sent = await requests(env.server.origin, scope);
  for (let i = 0; i < 20 && !sent[0].aborted; i++) {
    await page.waitForTimeout(100);
    sent = await requests(env.server.origin, scope);
  }
  assert.equal(sent[0].aborted, true, 'the in-flight request was aborted, not left running');
  await context.close();
});

test('keyboard only: reach the box, ask, open and close Settings', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: typed without a mouse' }]);
  // Tab from the top of the page until the question box has focus.
  for (let i = 0; i < 30 && !(await page.evaluate(() => document.activeElement?.id === 'question')); i++) {
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'question');
  await page.keyboard.type('Hello by keyboard');
  await page.keyboard.press('Enter');
  await page.locator('.bubble.assistant').waitFor();
  // The settings toggle is reachable and operable with the keyboard; focus is visible.
  await page.getByTestId('settings-toggle').focus();
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'focus is visible');
  await page.keyboard.press('Enter');
  await page.getByTestId('settings').waitFor();
  await page.getByTestId('settings-close').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('settings').waitFor({ state: 'detached' });
  await context.close();
});

test('on a phone-sized screen the trace sits below the chat', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, viewport: { width: 390, height: 844 } });
  await script(env.server.origin, scope, [{ text: 'Final Answer: small screen' }]);
  await ask(page, 'Does it fit?');
  await page.locator('.bubble.assistant').waitFor();
  const chat = await page.getByRole('region', { name: 'Chat' }).boundingBox();
  const trace = await page.getByRole('region', { name: 'Agent trace' }).boundingBox();
  assert.ok(trace.y >= chat.y + chat.height - 1, 'trace below chat');
  assert.ok(chat.width <= 390 && trace.width <= 390, 'nothing wider than the screen');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(overflow, false, 'no horizontal scrolling');
  await shot(page, 'phone');
  await context.close();
});

// The release build traps on a panic (docs/performance.md, "Bundle size"), so www/boot.js shows the banner.
// A trap reaches the page as a WebAssembly.RuntimeError thrown from a listener or timer, or
// rejected from a promise; both are raised here as the engine raises them.
test('a trap in the app shows the fatal banner as text; other script errors do not', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin);
  await page.evaluate(() => setTimeout(() => { throw new Error('an extension failed'); }));
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
  assert.equal(await page.getByTestId('fatal-banner').count(), 0, 'an ordinary error is not the app stopping');

  await page.evaluate(() => setTimeout(() => { throw new WebAssembly.RuntimeError('unreachable <img src=x>'); }));
  const banner = page.getByTestId('fatal-banner');
  await banner.waitFor();
  assert.match(await banner.textContent(), /internal error and stopped\. Reload the page.*RuntimeError: unreachable <img src=x>/);
  assert.equal(await banner.getAttribute('role'), 'alert');
  assert.equal(await banner.locator('img').count(), 0, 'the detail is text');
  await shot(page, 'fatal-banner');
  await context.close();

  const second = await openApp(env.browser, env.server.origin);
  await second.page.evaluate(() => { Promise.reject(new WebAssembly.RuntimeError('unreachable')); });
  await second.page.getByTestId('fatal-banner').waitFor();
  await second.page.evaluate(() => { Promise.reject(new WebAssembly.RuntimeError('again')); });
  await second.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
  assert.equal(await second.page.getByTestId('fatal-banner').count(), 1, 'one banner, however many traps');
  await second.context.close();
});

test('a page whose WebAssembly cannot load says so instead of staying blank', async () => {
  const context = await env.browser.newContext();
  await context.route(/\.wasm$/, (route) => route.fulfill({ status: 404, body: 'gone' }));
  const page = await context.newPage();
  await page.goto(`${env.server.origin}/thoughtline/`);
  const banner = page.getByTestId('fatal-banner');
  await banner.waitFor();
  assert.match(await banner.textContent(), /could not start\. Reload the page/);
  await context.close();
});
