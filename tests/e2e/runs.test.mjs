// End-to-end tests of a conversation as its runs: every question's steps are kept, shown on
// demand (live and after a reload), stored in IndexedDB, exported and imported whole, and a chat
// saved by the previous release opens with its last run's steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, openApp, script, ask, shot, loopbackSettings, traceTones, action, untilStored, exportMenu } from './harness.mjs';

const env = suite();

/** Every record of the `bodies` store, as `{ key: text }`. */
async function bodies(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('thoughtline');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const store = db.transaction('bodies').objectStore('bodies');
      const keys = store.getAllKeys();
      const values = store.getAll();
      values.onsuccess = () => {
        const out = {};
        keys.result.forEach((k, i) => { out[k] = values.result[i]; });
        db.close();
        resolve(out);
      };
    };
  }));
}

/** Two questions: the first uses the calculator, the second is answered directly. */
async function twoRuns() {
  const app = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, app.scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }, { text: 'Final Answer: Paris.' }]);
  await ask(app.page, 'What is six times seven?');
  await app.page.locator('.bubble.assistant .text', { hasText: '42' }).waitFor();
  await ask(app.page, 'And the capital of France?');
  await app.page.locator('.bubble.assistant .text', { hasText: 'Paris.' }).waitFor();
  return app;
}

/** Shows the steps of answer `n` (0-based) and waits until the pane says so. */
async function showSteps(page, n, question) {
  await page.getByTestId('show-steps').nth(n).click();
  await page.getByTestId('shown-question').filter({ hasText: question }).waitFor();
}

const FIRST_RUN = ['run_started:neutral', 'llm_request:pending', 'llm_response:success', 'parsed:success', 'tool_call:pending', 'tool_result:success',
  'llm_request:pending', 'llm_response:success', 'parsed:success', 'final_answer:success', 'run_stopped:success'];

test('an earlier run keeps its steps: shown on demand, after a reload, stored and exported whole', async () => {
  const { page, context } = await twoRuns();
  // The latest run is shown by default: no tool call in it.
  assert.ok(!(await traceTones(page)).some((t) => t.startsWith('tool_call')), 'the second run is shown');
  assert.equal(await page.getByTestId('show-steps').count(), 2, 'every answer offers its steps');
  await showSteps(page, 0, 'What is six times seven?');
  assert.deepEqual(await traceTones(page), FIRST_RUN);
  assert.match(await page.getByTestId('shown-question').textContent(), /Question 1 of 2/);
  await shot(page, 'runs-earlier-shown');
  await page.getByTestId('show-latest').click();
  await page.getByTestId('show-latest').waitFor({ state: 'detached' });
  assert.ok(!(await traceTones(page)).some((t) => t.startsWith('tool_call')), 'back to the latest run');

  // Both runs in IndexedDB: the head says two runs, each has its record and its events.
  await untilStored(page, ['Paris.', 'What is six times seven?']);
  const id = await page.evaluate(() => localStorage.getItem('thoughtline.current'));
  const stored = await bodies(page);
  assert.equal(JSON.parse(stored[id]).runs, 2);
  assert.equal(JSON.parse(stored[`${id}/0`]).question, 'What is six times seven?');
  assert.equal(JSON.parse(stored[`${id}/1`]).outcome.text, 'Paris.');
  assert.ok(Object.keys(stored).some((k) => k.startsWith(`${id}/0/`)), 'the first run\'s events are stored');

  // After a reload: the same.
  await page.reload();
  await page.locator('.bubble.assistant .text', { hasText: 'Paris.' }).waitFor();
  await showSteps(page, 0, 'What is six times seven?');
  assert.deepEqual(await traceTones(page), FIRST_RUN);

  // Export JSON holds the whole conversation.
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(file.version, 3);
  assert.match(file.app_version, /^\d+\.\d+\.\d+/);
  assert.deepEqual(file.runs.map((r) => r.question), ['What is six times seven?', 'And the capital of France?']);
  assert.ok(file.runs[0].trace.events.some((e) => e.kind.tool_call), 'the first run\'s tool call is exported');
  assert.ok(!JSON.stringify(file).includes('sk-test'), 'no key in the export');

  // Imported, it is a new chat whose runs all show their steps.
  await page.getByTestId('import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ ...file, title: 'Imported copy' })) });
  await page.locator('.chat-title', { hasText: 'Imported copy' }).waitFor();
  assert.equal(await page.getByTestId('chat-item').count(), 2);
  await page.locator('.bubble.assistant .text', { hasText: 'Paris.' }).waitFor();
  await showSteps(page, 0, 'What is six times seven?');
  assert.deepEqual(await traceTones(page), FIRST_RUN);
  await untilStored(page, 'Imported copy');
  await page.reload();
  await page.locator('.bubble.assistant .text', { hasText: 'Paris.' }).waitFor();
  assert.equal(await page.locator('.chat-title[aria-current="page"]').textContent(), 'Imported copy');
  await showSteps(page, 0, 'What is six times seven?');
  assert.deepEqual(await traceTones(page), FIRST_RUN);
  await context.close();
});

test('show-steps is disabled while a run is live, and the live run is what the pane shows', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: first' }, { hang: true }]);
  await ask(page, 'One?');
  await page.locator('.bubble.assistant').waitFor();
  await ask(page, 'Two?');
  await page.getByTestId('stop').waitFor();
  assert.ok(await page.getByTestId('show-steps').first().isDisabled());
  await page.getByTestId('shown-question').filter({ hasText: 'Two?' }).waitFor();
  await page.getByTestId('stop').click();
  await page.locator('.bubble.problem').waitFor();
  await showSteps(page, 0, 'One?');
  await context.close();
});

// Exactly as the previous release stored a chat in IndexedDB: one record with its messages and
// the trace of its last run only.
const previousRelease = {
  version: 2, id: 'prev1', title: 'Older chat', running: false,
  messages: [
    { who: 'user', text: 'First, long ago?' }, { who: 'assistant', text: 'Answered then.' },
    { who: 'user', text: 'Who is Ada?' }, { who: 'assistant', text: 'A mathematician.' },
  ],
  trace: [
    { index: 0, step: 0, started_ms: 0, ended_ms: 0, kind: { run_started: { question: 'Who is Ada?', tools: [], history_turns: 1, started_unix_ms: 1.7e12, strategy: 'react' } } },
    { index: 1, step: 1, started_ms: 0.1, ended_ms: 3, kind: { llm_response: { text: 'Final Answer: A mathematician.', latency_ms: 3 } } },
    { index: 2, step: 1, started_ms: 3, ended_ms: 3, kind: { final_answer: { answer: 'A mathematician.', source: 'model' } } },
    { index: 3, step: 1, started_ms: 3, ended_ms: 3, kind: { run_stopped: { reason: 'answered', message: 'done' } } },
  ],
};

test('a chat saved by the previous release opens with its last run\'s steps, and is rewritten only when it changes', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  // A first visit opens its database once the browser is idle: this waits until the app has
  // made it and its stores (a look before then closes at once, never holding the app up).
  await page.evaluate((chat) => new Promise((resolve, reject) => {
    const attempt = async () => {
      if (!(await indexedDB.databases()).some((d) => d.name === 'thoughtline')) return setTimeout(attempt, 50);
      const open = indexedDB.open('thoughtline');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        if (!open.result.objectStoreNames.contains('bodies')) {
          open.result.close();
          return setTimeout(attempt, 50);
        }
        const tx = open.result.transaction(['chats', 'bodies'], 'readwrite');
        tx.objectStore('chats').put(JSON.stringify({ version: 2, id: chat.id, title: chat.title, updated_unix_ms: 1.7e12 }), chat.id);
        tx.objectStore('bodies').put(JSON.stringify(chat), chat.id);
        tx.oncomplete = () => { open.result.close(); localStorage.setItem('thoughtline.current', chat.id); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
    };
    attempt();
  }), previousRelease);
  await page.reload();
  await page.locator('.bubble.assistant .text', { hasText: 'A mathematician.' }).waitFor();
  assert.deepEqual(await traceTones(page), ['run_started:neutral', 'llm_response:success', 'final_answer:success', 'run_stopped:success']);
  await page.getByTestId('show-steps').first().click();
  await page.getByTestId('steps-not-kept').waitFor();
  assert.equal(await page.getByTestId('event').count(), 0);
  // Opening it wrote nothing: the old record is as it was.
  assert.equal(JSON.parse((await bodies(page)).prev1).version, 2);

  // A new question: the chat is stored in this version's records, every run kept.
  await script(env.server.origin, scope, [{ text: 'Final Answer: Yes.' }]);
  await ask(page, 'Anything else?');
  await page.locator('.bubble.assistant .text', { hasText: 'Yes.' }).waitFor();
  await untilStored(page, 'Yes.');
  const stored = await bodies(page);
  assert.equal(JSON.parse(stored.prev1).version, 3);
  assert.equal(JSON.parse(stored.prev1).runs, 3);
  assert.equal(JSON.parse(stored['prev1/0']).steps_kept, false);
  await page.reload();
  await page.locator('.bubble.assistant .text', { hasText: 'Yes.' }).waitFor();
  await showSteps(page, 1, 'Who is Ada?');
  assert.deepEqual(await traceTones(page), ['run_started:neutral', 'llm_response:success', 'final_answer:success', 'run_stopped:success']);
  await context.close();
});

test('Settings shows the release, the same version exports carry', async () => {
  const cargo = fs.readFileSync(new URL('../../Cargo.toml', import.meta.url), 'utf8');
  const version = cargo.match(/^version = "([^"]+)"/m)[1];
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('app-version').textContent(), `Thoughtline ${version}`);
  await context.close();
});
