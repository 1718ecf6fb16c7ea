// End-to-end tests of the journal: a question survives the page going away right after Send,
// on a first visit over a slow connection, when the page's saving code is still on its way.
// The question is written synchronously as it is sent; the next load turns it back into the
// chat, its run marked interrupted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, ask, action, loopbackSettings, traceTones, untilStored, storedText } from './harness.mjs';

const env = suite();

/** A first visit whose every request waits `latency` ms (Chromium's network emulation). */
async function slowFirstVisit(latency = 400) {
  return openApp(env.browser, env.server.origin, {
    seed: loopbackSettings,
    beforeLoad: async (context, page) => {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: -1, uploadThroughput: -1 });
    },
  });
}

/** The question is back in the chat (and the list), its run marked interrupted in the trace. */
async function questionIsBack(page, question) {
  await page.locator('.bubble.problem').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('.bubble.user .text').textContent(), question);
  assert.match(await page.locator('.bubble.problem').textContent(), /interrupted/);
  // The rows' part comes as some 170 files; over the loopback server's HTTP/1.1 (six at a time),
  // each waiting 400 ms, that alone is about 12 s (docs/performance.md, "Parts on a slow link").
  assert.equal((await traceTones(page, { timeout: 45_000 })).at(-1), 'run_stopped:error');
  await page.locator('.chat-title', { hasText: question }).waitFor();
  assert.equal(await page.getByTestId('chat-item').count(), 1);
  // Stored, and the journal's record gone once it was.
  await untilStored(page, question);
  await page.waitForFunction(() => Object.keys(localStorage).every((k) => !k.startsWith('thoughtline.journal.')), null, { timeout: 10_000 });
}

for (const delay of [0, 50, 100]) {
  test(`a question sent and reloaded ${delay} ms later, on a slow first visit, is there after`, async () => {
    const { page, context, scope } = await slowFirstVisit();
    await script(env.server.origin, scope, [{ hang: true }]);
    const question = `Asked ${delay} ms before a reload`;
    await ask(page, question);
    if (delay) await page.waitForTimeout(delay);
    await page.reload();
    await questionIsBack(page, question);
    // Asked again, it runs as any question does.
    await context.close();
  });
}

test('a question sent and the tab closed at once is there in the next tab', async () => {
  const { page, context, scope } = await slowFirstVisit();
  await script(env.server.origin, scope, [{ hang: true }]);
  const question = 'Asked right before closing the tab';
  await ask(page, question);
  await page.close();
  const next = await context.newPage();
  await next.goto(`${env.server.origin}/thoughtline/`);
  await next.locator('html[data-ready]').waitFor({ state: 'attached' });
  await questionIsBack(next, question);
  await context.close();
});

test('a reply to the agent\'s question survives a reload right after it is sent', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [
    { text: 'Thought: I need to know more.\nAction:\n```json\n{"action": "ask_person", "action_input": "Which city?"}\n```' },
    { hang: true },
  ]);
  await ask(page, 'What is the weather like?');
  await page.locator('.bubble.asked-person').waitFor();
  await untilStored(page, 'Which city?');
  // The reload comes before the reply's save can have committed.
  await ask(page, 'Lisbon');
  await page.reload();
  await page.locator('.bubble.problem').waitFor({ timeout: 30_000 });
  assert.deepEqual(await page.locator('.bubble.user .text').allTextContents(), ['What is the weather like?', 'Lisbon']);
  assert.match(await page.locator('.bubble.problem').textContent(), /interrupted/);
  await context.close();
});

test('steps recorded but not stored yet when the page is reloaded are back in the trace, after the stored ones', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6 * 7'), { hang: true }]);
  // The page's timers stand still: the save its steps ask for a moment later never comes, as
  // for a page reloaded within that moment. (Once the chat database is open: its opening is
  // not held up.)
  await page.waitForFunction(async () => (await indexedDB.databases()).length > 0);
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
  await ask(page, 'What is six times seven?');
  await page.locator('[data-kind="tool_result"]').waitFor();
  await untilStored(page, 'What is six times seven?');
  assert.ok(!(await storedText(page)).includes('6 * 7'), 'the steps are not stored before the reload');
  await page.reload();
  await page.clock.resume();
  await page.locator('.bubble.problem').waitFor({ timeout: 30_000 });
  const tones = await traceTones(page);
  assert.ok(tones.includes('tool_result:success'), tones.join(' '));
  assert.ok(tones.indexOf('run_started:neutral') < tones.indexOf('tool_result:success'), tones.join(' '));
  assert.equal(tones.at(-1), 'run_stopped:error', 'then marked interrupted');
  assert.equal(tones.filter((t) => t.startsWith('run_started')).length, 1, 'each step once');
  await untilStored(page, '6 * 7');
  await page.waitForFunction(() => Object.keys(localStorage).every((k) => !k.startsWith('thoughtline.journal.')), null, { timeout: 10_000 });
  await context.close();
});
