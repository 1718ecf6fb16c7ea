// End-to-end tests of the parts of the page fetched on use (src/ui/services/parts.rs;
// docs/performance.md, "Bundle size"): what the first screen loads, and what a person sees when
// a part cannot be fetched.
// They need the split release build (scripts/test builds it); an unsplit page fails the first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, requests, ask, loopbackSettings, shot } from './harness.mjs';

const env = suite();

/** The part a request fetches (`split_settings`, `chunk_3`, …), or null for any other file. */
const partOf = (url) => url.match(/\/((?:split|chunk)_[a-z0-9_]+)-[0-9a-f]{10}\.wasm$/)?.[1] ?? null;
const unavailable = (route) => route.fulfill({ status: 503, body: 'unavailable' });

async function until(condition, what, ms = 10_000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the first screen loads without its parts; the agent follows, Settings and Compare when opened', async () => {
  const fetched = [];
  const { page, context, errors } = await openApp(env.browser, env.server.origin, {
    beforeLoad: (c) => c.on('request', (r) => partOf(r.url()) && fetched.push(partOf(r.url()))),
  });
  // The agent's part is fetched once the first screen is up, so a question need not wait.
  await until(() => fetched.includes('split_run'), 'the agent part');
  // So is the trace's find bar.
  await until(() => fetched.includes('split_find_bar'), 'the find bar part');
  await page.waitForTimeout(300);
  // What applies now: an empty trace has nothing to search, time or export, only Import.
  assert.equal(await page.getByTestId('trace-search').count(), 0);
  assert.equal(await page.getByTestId('view-timeline').count(), 0);
  assert.equal(await page.getByTestId('export').count(), 0);
  await page.getByTestId('import').waitFor({ state: 'attached' });
  assert.ok(!fetched.includes('split_settings'), `Settings not fetched before use: ${fetched}`);
  assert.ok(!fetched.includes('split_compare'), `Compare not fetched before use: ${fetched}`);
  // The pointer on a top-bar button fetches what it opens, before the click; so does the focus.
  assert.ok(!fetched.includes('split_documents') && !fetched.includes('split_evaluations'), `${fetched}`);
  await page.getByTestId('documents').hover();
  await until(() => fetched.includes('split_documents'), 'Documents, fetched as the pointer reaches its button');
  await page.getByTestId('evaluate').focus();
  await until(() => fetched.includes('split_evaluations'), 'Evaluations, fetched as its button takes the focus');
  assert.equal(await page.getByTestId('documents-panel').count(), 0);

  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('settings').waitFor();
  assert.ok(fetched.includes('split_settings'));
  await page.getByTestId('settings-close').click();
  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('compare-question').waitFor();
  assert.ok(fetched.includes('split_compare'));
  // Each part is fetched once, however often it is opened.
  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('settings').waitFor();
  for (const part of new Set(fetched)) {
    assert.equal(fetched.filter((p) => p === part).length, 1, `${part} fetched once: ${fetched}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('Settings that cannot be fetched say so without stopping the page, and open on the next try', async () => {
  const settingsPart = /\/split_settings-[0-9a-f]{10}\.wasm$/;
  const { page, context } = await openApp(env.browser, env.server.origin, {
    beforeLoad: (c) => c.route(settingsPart, unavailable),
  });
  await page.getByTestId('settings-toggle').click();
  const notice = page.getByTestId('part-missing');
  await notice.waitFor();
  assert.match(await notice.textContent(), /^Settings could not be loaded: .*Check the connection and try again/);
  await shot(page, 'part-missing');
  assert.equal(await page.getByTestId('fatal-banner').count(), 0, 'no fatal banner');
  assert.equal(await page.getByTestId('settings').count(), 0);
  // The chat still works around it.
  await page.getByTestId('composer').fill('still here');
  assert.equal(await page.getByTestId('composer').inputValue(), 'still here');

  await context.unroute(settingsPart);
  await page.getByTestId('part-retry').click();
  await page.getByTestId('settings').waitFor();
  assert.equal(await page.getByTestId('part-missing').count(), 0);
  assert.equal(await page.getByTestId('api-key').getAttribute('type'), 'password');
  await context.close();
});

test('a question whose agent part cannot be fetched ends saying so; the next question runs', async () => {
  const runPart = /\/split_run-[0-9a-f]{10}\.wasm$/;
  const { page, context, scope } = await openApp(env.browser, env.server.origin, {
    seed: loopbackSettings,
    beforeLoad: (c) => c.route(runPart, unavailable),
  });
  await script(env.server.origin, scope, [{ text: 'Thought: I know it.\nFinal Answer: 42' }]);
  await ask(page, 'What is six times seven?');
  const problem = page.locator('.bubble.problem');
  await problem.waitFor();
  assert.match(await problem.textContent(), /The agent could not be loaded: .*reload it/);
  assert.equal(await page.getByTestId('fatal-banner').count(), 0, 'no fatal banner');
  assert.equal((await requests(env.server.origin, scope)).length, 0, 'nothing was sent to the model');
  // The composer is free again.
  assert.equal(await page.getByTestId('composer').isEnabled(), true);

  await context.unroute(runPart);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant').waitFor();
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '42');
  await context.close();
});

test('Stop works while the agent part is still on its way', async () => {
  const runPart = /\/split_run-[0-9a-f]{10}\.wasm$/;
  const held = [];
  const { page, context, scope } = await openApp(env.browser, env.server.origin, {
    seed: loopbackSettings,
    // The part's request is held unanswered: a network that never delivers it.
    beforeLoad: (c) => c.route(runPart, (route) => held.push(route)),
  });
  await ask(page, 'What is six times seven?');
  // Stop is pressed once the page has asked for the part (its request held: still on its way).
  // When that request is made, and when it reaches the route, depends on the machine's load:
  // wait for it, a bounded time, rather than read the list at a moment that depends on timing.
  await until(() => held.length > 0, 'the agent part to be requested', 20_000);
  await page.getByTestId('stop').click();
  const problem = page.locator('.bubble.problem');
  await problem.waitFor();
  assert.equal(await problem.locator('.text').textContent(), 'Stopped by you.');
  assert.equal((await requests(env.server.origin, scope)).length, 0, 'nothing was sent to the model');
  assert.ok(held.length > 0, 'the part was requested');
  await context.close();
});

test('a part whose bytes are not the ones built is refused, not run', async () => {
  const settingsPart = /\/split_settings-[0-9a-f]{10}\.wasm$/;
  // A valid, empty WebAssembly module: without the integrity check it would load, and the
  // first call into it would trap.
  const empty = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  const { page, context } = await openApp(env.browser, env.server.origin, {
    beforeLoad: (c) => c.route(settingsPart, (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: empty })),
  });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('part-missing').waitFor();
  assert.equal(await page.getByTestId('fatal-banner').count(), 0, 'no fatal banner');
  assert.equal(await page.getByTestId('settings').count(), 0);
  await context.close();
});

test('a part on a slow connection says it is loading, then opens', async () => {
  const slowParts = /\/split_(settings|compare)-[0-9a-f]{10}\.wasm$/;
  const held = [];
  let released = false;
  const { page, context, errors } = await openApp(env.browser, env.server.origin, {
    // Held until released; a request that reaches the route after that goes on at once.
    beforeLoad: (c) => c.route(slowParts, (route) => (released ? route.continue() : held.push(route))),
  });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('part-loading').waitFor();
  assert.equal(await page.getByTestId('part-loading').textContent(), 'Loading Settings…');
  // Closed while on its way: the note goes with it.
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('part-loading').waitFor({ state: 'detached' });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('part-loading').waitFor();
  // Two on their way at once are both named.
  await page.getByTestId('compare-toggle').click();
  await page.getByText('Loading Settings and Compare…').waitFor();
  released = true;
  for (const route of held.splice(0)) await route.continue();
  await page.getByTestId('settings').waitFor();
  await page.getByTestId('compare').waitFor();
  assert.equal(await page.getByTestId('part-loading').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a first visit fetches no code for reading stored chats; a person coming back gets it at once', async () => {
  const fetched = [];
  const { page, context, scope } = await openApp(env.browser, env.server.origin, {
    seed: loopbackSettings,
    beforeLoad: (c) => c.on('request', (r) => partOf(r.url()) && fetched.push(partOf(r.url()))),
  });
  await until(() => fetched.includes('split_run'), 'the agent part');
  await page.waitForTimeout(300);
  assert.ok(!fetched.includes('split_read_chat'), `no chat to read, nothing fetched to read one: ${fetched}`);
  assert.ok(!fetched.includes('split_move_legacy'), `nothing of an earlier version to move: ${fetched}`);

  await script(env.server.origin, scope, [{ text: 'Thought: I know it.\nFinal Answer: 42' }]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant').waitFor();
  await until(() => fetched.includes('split_save_chat'), 'the saving part');
  await page.getByTestId('chat-item').waitFor();
  fetched.length = 0;
  await page.reload();
  // The chat of last time is read and its answer and steps drawn, with their parts fetched
  // while the database is read: the first screen stays until they are here.
  await page.locator('.bubble.assistant .text .markdown').waitFor();
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '42');
  await page.locator('[data-testid="event"][data-kind="final_answer"]').waitFor();
  assert.ok(fetched.includes('split_read_chat') && fetched.includes('split_trace_rows'), `${fetched}`);
  await context.close();
});

test('a save whose part cannot be fetched is shown, the chat stays, and the next change saves it all', async () => {
  const savePart = /\/split_save_chat-[0-9a-f]{10}\.wasm$/;
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, {
    seed: loopbackSettings,
    beforeLoad: (c) => c.route(savePart, unavailable),
  });
  await script(env.server.origin, scope, [
    { text: 'Thought: I know it.\nFinal Answer: 42' },
    { text: 'Thought: Also known.\nFinal Answer: 12' },
  ]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant').waitFor();
  const problem = page.getByTestId('storage-problem');
  await problem.waitFor();
  assert.match(await problem.textContent(), /is not saved: Saving could not be loaded: .*It stays on this page/);
  assert.equal(await page.getByTestId('fatal-banner').count(), 0, 'no fatal banner');
  assert.equal(await page.getByTestId('chat-item').count(), 0, 'nothing was stored');

  await context.unroute(savePart);
  await ask(page, 'What is three times four?');
  await page.locator('.bubble.assistant').nth(1).waitFor();
  await problem.waitFor({ state: 'detached' });
  await page.reload();
  // Answers are drawn by a part (the Markdown reader), which may arrive after the chat.
  await page.locator('.bubble.assistant .text', { hasText: '12' }).waitFor();
  assert.deepEqual(await page.locator('.bubble.assistant .text').allTextContents(), ['42', '12']);
  // The browser's own reports of the refused part are the only errors.
  assert.deepEqual(errors.filter((e) => !/Failed to (load resource|fetch)|split_save_chat/.test(e)), []);
  await context.close();
});

test('a chat whose reading part cannot be fetched says so and opens once it arrives', async () => {
  const readPart = /\/split_read_chat-[0-9a-f]{10}\.wasm$/;
  const rowsPart = /\/split_trace_rows-[0-9a-f]{10}\.wasm$/;
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Thought: I know it.\nFinal Answer: 42' }]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant').waitFor();
  await page.getByTestId('chat-item').waitFor();

  // A fresh page (nothing cached) on a connection that delivers neither part.
  const other = await context.newPage();
  await context.route(readPart, unavailable);
  await context.route(rowsPart, unavailable);
  await other.goto(page.url());
  const problem = other.getByTestId('storage-problem');
  await problem.waitFor();
  assert.match(await problem.textContent(), /The chat could not be read: Reading chats could not be loaded: .*Check the connection/);
  assert.equal(await other.getByTestId('fatal-banner').count(), 0, 'no fatal banner');
  // Still listed; opened once the part arrives.
  await context.unroute(readPart);
  await other.getByTestId('chat-item').locator('.chat-title').click();
  await other.locator('.bubble.assistant').waitFor();
  // The steps' part still missing: the trace pane says so where its steps would be, and tries again.
  // (The run's controls in the toolbar, drawn by the same part, say so too, on their own.)
  const missing = other.locator('section.trace > [data-testid="part-missing"]');
  await missing.waitFor();
  assert.match(await missing.textContent(), /^The trace's steps could not be loaded/);
  await context.unroute(rowsPart);
  await missing.getByTestId('part-retry').click();
  await other.locator('[data-testid="event"][data-kind="final_answer"]').waitFor();
  await context.close();
});
