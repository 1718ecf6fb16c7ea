// End-to-end tests of where chats live and what happens at the edges of storage: chats of the
// localStorage release move into IndexedDB, a full storage shows a banner and loses nothing,
// unreadable settings and chats cost only themselves, an import opens as a new chat, two tabs
// follow each other, and deleting the open chat never leaves a reload on a blank page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, openApp, script, ask, shot, loopbackSettings, traceTones, untilStored, exportMenu, openWithQuota } from './harness.mjs';

const env = suite();

/** Plants values in localStorage once per tab (not again on reload), before the app starts. */
async function plantOnce(context, entries) {
  await context.addInitScript((pairs) => {
    if (sessionStorage.getItem('planted')) return;
    sessionStorage.setItem('planted', '1');
    for (const [k, v] of pairs) localStorage.setItem(k, v);
  }, entries);
}

/** What the app keeps in IndexedDB, as `{ id: { summary, body } }`. */
async function database(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('thoughtline');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['chats', 'bodies']);
      const out = {};
      const all = (store, field) => new Promise((res) => {
        const keys = tx.objectStore(store).getAllKeys();
        const values = tx.objectStore(store).getAll();
        values.onsuccess = () => {
          keys.result.forEach((k, i) => { (out[k] ??= {})[field] = values.result[i]; });
          res();
        };
      });
      Promise.all([all('chats', 'summary'), all('bodies', 'body')]).then(() => { db.close(); resolve(out); });
    };
  }));
}

async function chatTitles(page) {
  return page.locator('.chat-title').allTextContents();
}

// A chat exactly as the localStorage release saved it, with its full request in the trace.
const legacyChat = {
  version: 1, id: 'old1', title: 'Who is Ada?', running: false,
  messages: [{ who: 'user', text: 'Who is Ada?' }, { who: 'assistant', text: 'A mathematician.' }],
  trace: [
    { index: 0, step: 0, started_ms: 0, ended_ms: 0, kind: { run_started: { question: 'Who is Ada?', tools: [], history_turns: 0, started_unix_ms: 1.7e12, strategy: 'react' } } },
    { index: 1, step: 1, started_ms: 0.1, ended_ms: 0.1, kind: { llm_request: { purpose: 'step', request: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Who is Ada?' }], stop: ['Observation:'], temperature: 0 } } } },
    { index: 2, step: 1, started_ms: 0.1, ended_ms: 3, kind: { llm_response: { text: 'Final Answer: A mathematician.', usage: { prompt_tokens: 5, completion_tokens: 4 }, latency_ms: 3 } } },
    { index: 3, step: 1, started_ms: 3, ended_ms: 3, kind: { final_answer: { answer: 'A mathematician.', source: 'model' } } },
    { index: 4, step: 1, started_ms: 3, ended_ms: 3, kind: { run_stopped: { reason: 'answered', message: 'done' } } },
  ],
};

test('chats saved by the localStorage release move into IndexedDB, nothing lost', async () => {
  const context = await env.browser.newContext();
  const index = [{ id: 'old1', title: 'Who is Ada?', updated_unix_ms: 2e12 }]; // 'old2' is missing from it
  await plantOnce(context, [
    ['thoughtline.chats', JSON.stringify(index)],
    ['thoughtline.chat.old1', JSON.stringify(legacyChat)],
    ['thoughtline.chat.old2', JSON.stringify({ ...legacyChat, id: 'old2', title: 'Orphan', messages: [{ who: 'user', text: 'Orphan' }] })],
    ['thoughtline.current', 'old1'],
  ]);
  const page = await context.newPage();
  await page.goto(`${env.server.origin}/thoughtline/`);
  await page.locator('.bubble.assistant .text', { hasText: 'A mathematician.' }).waitFor();
  assert.deepEqual((await chatTitles(page)).sort(), ['Orphan', 'Who is Ada?']);
  const left = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('thoughtline.chat')));
  assert.deepEqual(left, [], 'the old keys are gone once the database has them');
  const db = await database(page);
  assert.deepEqual(Object.keys(db).sort(), ['old1', 'old2']);
  assert.equal(JSON.parse(db.old1.body).messages[1].text, 'A mathematician.');
  // The old trace still opens in the inspector with its full request.
  assert.deepEqual(await traceTones(page), ['run_started:neutral', 'llm_request:pending', 'llm_response:success', 'final_answer:success', 'run_stopped:success']);
  await page.reload();
  await page.locator('.bubble.assistant .text', { hasText: 'A mathematician.' }).waitFor();
  assert.equal((await chatTitles(page)).length, 2);
  await context.close();
});

test('a full storage shows a banner, keeps the chat in memory and loses no older chat', async () => {
  // Room for a small chat, not for a 1 MB one.
  const { context, page, cdp, scope } = await openWithQuota(env.browser, env.server.origin, `quota-${process.pid}`, 500000);
  await script(env.server.origin, scope, [{ text: 'Final Answer: first' }, { text: 'Final Answer: second' }]);
  await ask(page, 'Older question');
  await page.locator('.bubble.assistant').waitFor();
  await page.locator('.chat-title', { hasText: 'Older question' }).waitFor();

  await page.getByTestId('new-chat').click();
  await page.getByTestId('message').first().waitFor({ state: 'detached' });
  const big = `Question asked while storage is full ${'lorem ipsum '.repeat(90000)}`;
  await ask(page, big);
  await page.locator('.bubble.assistant .text', { hasText: 'second' }).waitFor();
  const banner = page.getByTestId('storage-problem');
  await banner.waitFor();
  const said = await banner.textContent();
  assert.match(said, /Question asked while storage is full/);
  assert.match(said, /not saved/);
  assert.match(said, /Export/);
  assert.match(said, /delete old chats/);
  await shot(page, 'storage-full');
  // The chat is still all there on the page, and switching away does not drop it.
  assert.equal((await page.locator('.bubble.user .text').textContent()).length, big.trim().length);
  await page.getByTestId('new-chat').click();
  await page.getByTestId('chat-note').getByText('not saved yet').waitFor();
  assert.equal((await page.locator('.bubble.user .text').textContent()).length, big.trim().length);
  await page.locator('.chat-title', { hasText: 'Older question' }).click();
  await page.getByTestId('chat-note').getByText('not saved yet').waitFor();
  assert.equal(await page.locator('.bubble.user').count(), 1);
  assert.equal((await page.locator('.bubble.user .text').textContent()).length, big.trim().length);

  // Space again: the next save writes it, and the banner goes.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.server.origin });
  await page.getByTestId('retry-save').click();
  await banner.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByTestId('chat-item').nth(1).waitFor();
  const titles = await chatTitles(page);
  assert.equal(titles.length, 2);
  assert.match(titles[0], /^Question asked while storage is full/);
  assert.equal(titles[1], 'Older question');
  await page.locator('.chat-title', { hasText: 'Older question' }).click();
  await page.locator('.bubble.assistant .text', { hasText: 'first' }).waitFor();
  await context.close();
});

test('an unreadable setting falls back alone, and the stored text is kept until a change', async () => {
  const context = await env.browser.newContext();
  const stored = JSON.stringify({ version: 1, preset: 'custom', base_url: 'http://127.0.0.1:9/v1', model: 'kept-model', agent: { max_iterations: 'seven', temperature: 0.5, strategy: 'tree_search' } });
  await plantOnce(context, [['thoughtline.settings', stored]]);
  const page = await context.newPage();
  await page.goto(`${env.server.origin}/thoughtline/`);
  const notice = page.getByTestId('settings-notice');
  await notice.waitFor();
  assert.match(await notice.textContent(), /agent\.max_iterations/);
  assert.match(await notice.textContent(), /agent\.strategy/);
  assert.equal(await page.evaluate(() => localStorage.getItem('thoughtline.settings')), stored, 'nothing written back on load');
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('model').inputValue(), 'kept-model');
  await page.getByTestId('model').fill('changed-model');
  await page.getByTestId('model').press('Tab');
  await page.waitForFunction(() => localStorage.getItem('thoughtline.settings').includes('changed-model'));
  const now = JSON.parse(await page.evaluate(() => localStorage.getItem('thoughtline.settings')));
  assert.equal(now.agent.temperature, 0.5);
  await context.close();
});

test('settings of a newer release are used and never overwritten', async () => {
  const context = await env.browser.newContext();
  const stored = JSON.stringify({ version: 7, preset: 'custom', base_url: 'http://127.0.0.1:9/v1', model: 'future-model', future_field: { x: 1 } });
  await plantOnce(context, [['thoughtline.settings', stored]]);
  const page = await context.newPage();
  await page.goto(`${env.server.origin}/thoughtline/`);
  await page.getByTestId('settings-notice').getByText('newer version').waitFor();
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('model').inputValue(), 'future-model');
  await page.getByTestId('model').fill('other');
  await page.getByTestId('model').press('Tab');
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => localStorage.getItem('thoughtline.settings')), stored);
  await context.close();
});

test('a chat that cannot be read stays listed, with its stored text to download', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: fine' }]);
  await ask(page, 'A good chat');
  await page.locator('.bubble.assistant').waitFor();
  await page.waitForFunction(async () => (await indexedDB.databases()).length > 0);
  await page.evaluate(() => new Promise((resolve) => {
    const open = indexedDB.open('thoughtline');
    open.onsuccess = () => {
      const tx = open.result.transaction(['chats', 'bodies'], 'readwrite');
      tx.objectStore('chats').put(JSON.stringify({ version: 2, id: 'bad', title: 'Damaged one', updated_unix_ms: 1 }), 'bad');
      tx.objectStore('bodies').put('{"version": 2, "messages": [tr', 'bad');
      tx.oncomplete = () => { open.result.close(); resolve(); };
    };
  }));
  await page.reload();
  await page.locator('.chat-title', { hasText: 'Damaged one' }).click();
  const item = page.getByTestId('chat-item').filter({ hasText: 'Damaged one' });
  await item.getByTestId('chat-unreadable').waitFor();
  assert.match(await page.getByTestId('chat-note').textContent(), /could not be opened/);
  const [download] = await Promise.all([page.waitForEvent('download'), item.getByTestId('download-raw').click()]);
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), '{"version": 2, "messages": [tr');
  // The good chat is untouched and still opens.
  await page.locator('.chat-title', { hasText: 'A good chat' }).click();
  await page.locator('.bubble.assistant .text', { hasText: 'fine' }).waitFor();
  await page.reload();
  await page.getByTestId('chat-item').nth(1).waitFor(); // the list arrives from the database
  assert.equal(await page.getByTestId('chat-item').count(), 2);
  await context.close();
});

test('an imported run opens as a new chat and never overwrites the open one', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: kept' }]);
  // The page's timers stand still until the import: the save the run's steps ask for a
  // moment later (for the open chat) is still waiting when the imported chat opens.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
  await ask(page, 'The open chat');
  await page.locator('.bubble.assistant').waitFor();
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  const [run] = file.runs;
  file.title = '';
  run.question = 'An imported question';
  run.trace.events[0].kind.run_started.question = 'An imported question';
  run.outcome = { kind: 'answer', text: 'imported answer' };
  await page.getByTestId('import').setInputFiles({ name: 'run.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
  await page.locator('.bubble.assistant .text', { hasText: 'imported answer' }).waitFor();
  await page.clock.runFor(2000);
  await page.clock.resume();
  await untilStored(page, 'imported answer');
  assert.deepEqual(await chatTitles(page), ['An imported question', 'The open chat']);
  await page.reload();
  await page.locator('.chat-title', { hasText: 'The open chat' }).click();
  await page.locator('.bubble.assistant .text', { hasText: 'kept' }).waitFor();
  assert.equal(await page.locator('.bubble.user .text').textContent(), 'The open chat');
  await context.close();
});

test('a browser that refuses the database (private mode, blocked site data): the banner says so and chats still run', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await context.addInitScript(() => {
    Object.defineProperty(window, 'indexedDB', {
      configurable: true,
      get() { throw new DOMException('The user denied permission to access the database.', 'SecurityError'); },
    });
  });
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  const banner = page.getByTestId('storage-problem');
  await banner.waitFor();
  assert.match(await banner.textContent(), /Chats are not saved in this browser: .*does not let the page store data.*Export/);
  assert.equal(await page.getByTestId('retry-save').count(), 0, 'no retry where no save can succeed');
  await script(env.server.origin, scope, [{ text: 'Final Answer: still answered' }, { text: 'Final Answer: second chat' }]);
  await ask(page, 'Does it still work?');
  await page.locator('.bubble.assistant .text', { hasText: 'still answered' }).waitFor();
  // Nothing can ever be saved here, so switching chats is not held up.
  await page.getByTestId('new-chat').click();
  await page.getByTestId('message').first().waitFor({ state: 'detached' });
  await ask(page, 'And again?');
  await page.locator('.bubble.assistant .text', { hasText: 'second chat' }).waitFor();
  assert.equal(await banner.isVisible(), true, 'the banner stays while nothing is saved');
  await context.close();
});

test('a browser that refuses all site data: the page says settings and chats are not kept, and never breaks', async () => {
  const { page, context, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await context.addInitScript(() => {
    for (const name of ['localStorage', 'indexedDB']) {
      Object.defineProperty(window, name, { configurable: true, get() { throw new DOMException('Access is denied for this document.', 'SecurityError'); } });
    }
  });
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  const notice = page.getByTestId('settings-notice');
  await notice.waitFor();
  assert.match(await notice.textContent(), /Settings cannot be read or kept in this browser, so the defaults are used/);
  await page.getByTestId('storage-problem').waitFor();
  await page.getByTestId('theme-toggle').click();
  await page.waitForFunction(() => /colour theme is not saved/.test(document.querySelector('[data-testid="settings-notice"]')?.textContent ?? ''));
  // Without a provider key the question is answered with what to set, not with a broken page.
  await ask(page, 'Anything?');
  await page.locator('.bubble.problem').waitFor();
  assert.equal(await page.getByTestId('fatal-banner').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

/** An exported run of `steps` calculator steps, as an older release wrote it (export version 1). */
function longRun(steps) {
  const events = [];
  let t = 0;
  const push = (step, kind) => events.push({ index: events.length, step, started_ms: t, ended_ms: (t += 3), kind });
  push(0, { run_started: { question: 'A long imported run', tools: ['calculator'], history_turns: 0, started_unix_ms: 0 } });
  for (let s = 1; s <= steps; s++) {
    push(s, { llm_request: { purpose: 'step', request: { messages: [{ role: 'user', content: `step ${s}` }], stop: ['Observation:'], temperature: 0 } } });
    push(s, { llm_response: { text: `Thought: step ${s}.`, usage: null, latency_ms: 3, incomplete: false } });
    push(s, { parsed: { thought: `step ${s}.`, decision: { action: { tool: 'calculator', input: `${s}+1` } } } });
    push(s, { tool_call: { tool: 'calculator', input: `${s}+1` } });
    push(s, { tool_result: { tool: 'calculator', observation: `${s}+1 = ${s + 1}` } });
  }
  push(steps, { final_answer: { answer: 'the long answer', source: 'model' } });
  push(steps, { run_stopped: { reason: 'answered', message: 'Finished with an answer.' } });
  return { format: 'thoughtline.run', version: 1, exported_unix_ms: 0, question: 'A long imported run', answer: 'the long answer', settings: {}, trace: { events } };
}

test('a long imported run is drawn in full (a screenful per frame) and saved', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  const run = longRun(150);
  const rows = page.getByTestId('event');
  await page.getByTestId('import').setInputFiles({ name: 'long.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(run)) });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="event"]').length === n, run.trace.events.length);
  assert.equal(await rows.last().getAttribute('data-kind'), 'run_stopped');
  assert.equal(await rows.nth(751).getAttribute('data-kind'), 'final_answer');
  // Saved: after a reload the chat opens with every row.
  await untilStored(page, 'A long imported run');
  await page.reload();
  await page.locator('.chat-title', { hasText: 'A long imported run' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="event"]').length === n, run.trace.events.length);
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'the long answer');
  await context.close();
});

test('a trace longer than the pane holds shows its last 3,000 events and says how many are left out', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  const run = longRun(700); // 3,503 events
  await page.getByTestId('import').setInputFiles({ name: 'longer.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(run)) });
  await page.getByTestId('trace-cut').waitFor();
  assert.match(await page.getByTestId('trace-cut').textContent(), /The first 503 events are not shown: this pane draws the last 3000\. Export → Export JSON has every event\./);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="event"]').length === 3000);
  assert.equal(await page.getByTestId('event').last().getAttribute('data-kind'), 'run_stopped');
  // Export still carries every event.
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  assert.equal(JSON.parse(fs.readFileSync(await download.path(), 'utf8')).runs[0].trace.events.length, run.trace.events.length);
  await context.close();
});

test('two tabs: each sees the other\'s new and deleted chats, and a live run is not marked interrupted', async () => {
  const { page: a, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  const b = await context.newPage();
  await b.goto(`${env.server.origin}/thoughtline/`);
  await b.locator('html[data-ready]').waitFor({ state: 'attached' });
  await script(env.server.origin, scope, [{ text: 'Final Answer: from A' }, { hang: true }]);
  await ask(a, 'Asked in tab A');
  await a.locator('.bubble.assistant').waitFor();
  await b.locator('.chat-title', { hasText: 'Asked in tab A' }).waitFor();

  // A run going on in A: B reloads and opens it, and it is not interrupted.
  await a.getByTestId('new-chat').click();
  await a.getByTestId('message').first().waitFor({ state: 'detached' });
  await ask(a, 'Long run in tab A');
  await a.getByTestId('stop').waitFor();
  await b.locator('.chat-title', { hasText: 'Long run in tab A' }).waitFor();
  await b.reload();
  await b.locator('.chat-title', { hasText: 'Long run in tab A' }).click();
  await b.locator('.bubble.user .text', { hasText: 'Long run in tab A' }).waitFor();
  await b.getByTestId('chat-note').getByText('another tab').waitFor();
  assert.equal(await b.locator('.bubble.problem').count(), 0, 'not marked interrupted');
  assert.ok(!(await database(b))[await a.evaluate(() => localStorage.getItem('thoughtline.current'))]?.body?.includes('interrupted'));
  await a.getByTestId('stop').click();
  await a.locator('.bubble.problem').waitFor();

  // B deletes the first chat; A's list follows without a reload.
  const item = b.getByTestId('chat-item').filter({ hasText: 'Asked in tab A' });
  await item.getByTestId('delete-chat').click();
  await a.locator('.chat-title', { hasText: 'Asked in tab A' }).waitFor({ state: 'detached' });
  assert.deepEqual(await chatTitles(a), ['Long run in tab A']);
  await context.close();
});

test('deleting the open chat opens another, and a reload never lands on a blank chat', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: one' }, { text: 'Final Answer: two' }]);
  await ask(page, 'First chat');
  await page.locator('.bubble.assistant').waitFor();
  await page.getByTestId('new-chat').click();
  await page.getByTestId('message').first().waitFor({ state: 'detached' });
  await ask(page, 'Second chat');
  await page.locator('.bubble.assistant').waitFor();
  await page.waitForTimeout(300);
  await page.getByTestId('chat-item').filter({ hasText: 'Second chat' }).getByTestId('delete-chat').click();
  await page.locator('.bubble.user .text', { hasText: 'First chat' }).waitFor();
  assert.deepEqual(await chatTitles(page), ['First chat']);
  await page.reload();
  await page.locator('.bubble.user .text', { hasText: 'First chat' }).waitFor();
  await context.close();
});
