// End-to-end tests of reading a trace: rows that show the thinking, finding your way in a long
// trace (search, filters, keys), and comparing two runs that already happened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { suite, openApp, script, ask, shot, loopbackSettings, action, showAll, longRunExport, exportMenu, moreMenu } from './harness.mjs';

const env = suite();
const require = createRequire(import.meta.url);

async function finished(page, answers = 1) {
  await page.locator('.bubble.assistant').nth(answers - 1).waitFor();
  await page.getByTestId('trace-search').waitFor();
}

test('a run\'s rows show its thought, action, observation and answer without opening anything', async () => {
  const { page, context, errors, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Thought: I know it now.\nFinal Answer: Six times seven is **42**.' }]);
  await ask(page, 'What is six times seven?');
  await finished(page);
  const decision = page.locator('[data-kind="parsed"]').first();
  assert.equal(await decision.getByTestId('thought').textContent(), 'Thought I should use calculator.');
  assert.equal(await decision.getByTestId('action').textContent(), 'Action calculator ← 6*7');
  const observation = page.locator('[data-kind="tool_result"]');
  assert.equal(await observation.getByTestId('part-text').textContent(), '6*7 = 42');
  assert.equal(await observation.getByTestId('event-counts').textContent(), 'calculator · 8 characters');
  // The answer is Markdown, drawn as elements (never as HTML text).
  assert.equal(await page.locator('[data-kind="final_answer"] [data-testid="row-answer"] strong').textContent(), '42');
  // The reply as the model wrote it, with its size and tokens as secondary text.
  const reply = page.locator('[data-kind="llm_response"]').first();
  assert.match(await reply.getByTestId('part-text').textContent(), /^Thought: I should use calculator\.\nAction:/);
  assert.match(await reply.getByTestId('event-counts').textContent(), /^\d+ characters/);
  // Only a request's messages wait behind a click.
  const closed = await page.locator('[data-testid="trace"] details').evaluateAll((els) => els.map((e) => e.closest('[data-kind]').dataset.kind));
  assert.ok(closed.every((k) => k === 'llm_request'), closed.join(' '));
  await shot(page, 'trace-rows');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('[data-kind="tool_result"]').scrollIntoViewIfNeeded();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `nothing wider than a 390 px screen (${overflow} px over)`);
  await shot(page, 'trace-rows-390');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a long observation shows its first lines and opens whole; Expand all and Collapse all', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('wikipedia', 'Python programming'), { text: 'Final Answer: A language.' }]);
  await ask(page, 'What is Python?');
  await finished(page);
  const observation = page.locator('[data-kind="tool_result"]');
  const text = observation.getByTestId('part-text');
  const preview = await text.textContent();
  assert.ok(preview.endsWith(' …') && preview.split('\n').length <= 4, preview);
  await observation.getByTestId('show-all').click();
  const whole = await text.textContent();
  assert.ok(whole.length > preview.length && whole.startsWith(preview.slice(0, -2)), 'Show all opens the whole text');
  assert.equal(await observation.getByTestId('show-all').textContent(), 'Show less');
  await moreMenu(page);
  await page.getByTestId('collapse-all').click();
  assert.equal(await text.textContent(), preview);
  await moreMenu(page);
  await page.getByTestId('expand-all').click();
  assert.equal(await text.textContent(), whole);
  await context.close();
});

test('search finds a word in an observation and moves between matches', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('wikipedia', 'Python programming'), action('calculator', '6*7'), { text: 'Final Answer: done' }]);
  await ask(page, 'Python, then 6*7');
  await finished(page);
  // A word from the end of the observation, past its preview.
  const observation = page.locator('[data-kind="tool_result"]').first();
  await showAll(observation);
  const words = (await observation.getByTestId('part-text').textContent()).match(/[A-Za-z]{7,}/g);
  const word = words.at(-1);
  await moreMenu(page);
  await page.getByTestId('collapse-all').click();
  await page.getByTestId('trace-search').fill(word.toLowerCase());
  await page.getByTestId('trace-search-count').filter({ hasText: /of/ }).waitFor();
  const hits = await page.locator('[data-testid="event"].hit').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.ok(hits.includes('tool_result'), `${word}: ${hits}`);
  // The current match is shown whole, so the word is on screen.
  const current = page.locator('[data-testid="event"].current-hit');
  assert.ok((await current.textContent()).includes(word), `the current match shows ${word}`);

  await page.getByTestId('trace-search').fill('calculator');
  const count = page.getByTestId('trace-search-count');
  await count.filter({ hasText: /^1 of \d+$/ }).waitFor();
  const total = Number((await count.textContent()).split(' of ')[1]);
  assert.ok(total >= 3, await count.textContent());
  await page.getByTestId('search-next').click();
  assert.equal(await count.textContent(), `2 of ${total}`);
  await page.getByTestId('trace-search').press('Enter');
  assert.equal(await count.textContent(), `3 of ${total}`);
  await page.getByTestId('trace-search').press('Shift+Enter');
  assert.equal(await count.textContent(), `2 of ${total}`);
  assert.equal(await page.locator('[data-testid="event"].current-hit').count(), 1);
  assert.equal(await page.locator('[data-testid="event"].hit').count(), total);
  await shot(page, 'trace-search');
  await page.getByTestId('trace-search').press('Escape');
  assert.equal(await count.textContent(), '');
  assert.equal(await page.locator('[data-testid="event"].hit').count(), 0);
  await context.close();
});

test('the errors filter shows only red rows, and keys move between steps and errors', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('google', 'x'), action('calculator', '1+1'), { text: 'Final Answer: 2' }]);
  await ask(page, 'One plus one');
  await finished(page);
  // Keys typed into the composer stay there.
  await page.getByTestId('composer').fill('');
  await page.getByTestId('composer').type('jke/');
  assert.equal(await page.getByTestId('composer').inputValue(), 'jke/');
  await page.getByTestId('composer').fill('');

  await page.getByTestId('trace').focus();
  await page.keyboard.press('j');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.kind), 'run_started');
  await page.keyboard.press('j');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '1');
  await page.keyboard.press('e');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.tone), 'error');
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.kind), 'run_stopped');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'trace-search');

  await moreMenu(page);
  await page.getByTestId('trace-filter').selectOption('errors');
  const shown = await page.locator('[data-testid="event"]:visible').evaluateAll((els) => els.map((e) => e.dataset.tone));
  assert.ok(shown.length >= 1 && shown.every((t) => t === 'error'), shown.join(' '));
  await moreMenu(page);
  await page.getByTestId('trace-filter').selectOption('tools');
  const tools = await page.locator('[data-testid="event"]:visible').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.deepEqual([...new Set(tools)].sort(), ['tool_call', 'tool_result', 'unknown_tool'], tools.join(' '));
  await moreMenu(page);
  await page.getByTestId('trace-filter').selectOption('all');
  await moreMenu(page);
  await page.getByTestId('next-error').click();
  assert.equal(await page.evaluate(() => document.activeElement.dataset.tone), 'error');
  await context.close();
});

test('two runs compared side by side mark the tool input that differs', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }, action('calculator', '6*8'), { text: 'Final Answer: 48' }]);
  await ask(page, 'What is six times seven?');
  await finished(page, 1);
  await ask(page, 'And six times eight?');
  await finished(page, 2);
  await moreMenu(page);
  await page.getByTestId('compare-runs').click();
  const section = page.getByTestId('runs-compare');
  await section.waitFor();
  const step = section.locator('[data-testid="aligned-step"][data-step="1"]');
  assert.ok(await step.evaluate((e) => e.classList.contains('differs')));
  assert.equal(await step.locator('[data-field="input"][data-differs="true"]').count(), 2);
  assert.equal(await step.locator('[data-field="tool"][data-differs="false"]').count(), 2);
  assert.deepEqual(await step.locator('[data-field="input"] dd').allTextContents(), ['6*7', '6*8']);
  assert.match(await section.getByTestId('runs-compare-verdict').textContent(), /step 1 \(input, observation/);
  const answers = section.locator('[data-testid="aligned-step"][data-step="2"] [data-field="answer"]');
  assert.deepEqual(await answers.evaluateAll((els) => els.map((e) => e.dataset.differs)), ['true', 'true']);
  await shot(page, 'runs-compared');

  // A run from an exported file can be picked too.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-toggle').click().then(() => exportMenu(page)).then(() => page.getByTestId('export').click())]);
  await page.getByTestId('compare-toggle').click();
  await section.getByTestId('runs-compare-file').setInputFiles(await download.path());
  await section.getByTestId('runs-compare-status').filter({ hasText: 'Added 2 runs' }).waitFor();
  assert.equal(await section.getByTestId('runs-compare-a').locator('option').count(), 4);
  await section.getByTestId('runs-compare-b').selectOption({ index: 2 });
  // Question 1 against the file's copy of question 1: the same steps.
  await section.getByTestId('runs-compare-a').selectOption({ index: 0 });
  assert.equal(await section.locator('[data-field="input"][data-differs="true"]').count(), 0);
  await context.close();
});

test('a 3,000-event imported trace answers every keystroke in the search box', async (t) => {
  const { page, context } = await openApp(env.browser, env.server.origin);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-trace-')), 'long.json');
  fs.writeFileSync(file, JSON.stringify(longRunExport(600, 'filler text '.repeat(40))));
  await page.getByTestId('import').setInputFiles(file);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="event"]').length === 3000, null, { timeout: 60_000 });
  await page.getByTestId('trace-search').waitFor();
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: 'longtask' });
  });
  const count = page.getByTestId('trace-search-count');
  const typed = [];
  for (const key of '= 512') {
    await page.getByTestId('trace-search').press(key === ' ' ? 'Space' : key);
    await page.waitForFunction(() => /of|No match/.test(document.querySelector('[data-testid="trace-search-count"]').textContent));
    typed.push(await count.textContent());
  }
  // "=" is in every observation (600 rows, the first 3 events cut), "= 512" in one.
  assert.equal(typed[0], '1 of 600');
  assert.equal(typed.at(-1), '1 of 1');
  assert.match(await page.locator('[data-testid="event"].current-hit').textContent(), /511\+1 = 512/);
  const long = await page.evaluate(() => window.__long);
  // Printed, not asserted (tests never time): docs/performance.md records the figure.
  t.diagnostic(`search keystrokes on 3,000 rows: ${long.length} tasks over 50 ms${long.length ? `, longest ${Math.max(...long).toFixed(0)} ms` : ''}`);
  await context.close();
});

test('the trace with its find bar and a comparison passes axe in both themes', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('google', 'x'), action('calculator', '6*7'), { text: 'Final Answer: **42**' }, { text: 'Final Answer: 42 again' }]);
  await ask(page, 'Six times seven');
  await finished(page, 1);
  await ask(page, 'Again');
  await finished(page, 2);
  await page.getByTestId('trace-search').fill('calculator');
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const check = async (where) => {
    const result = await page.evaluate(async (selector) => window.axe.run(document.querySelector(selector), { runOnly: ['wcag2a', 'wcag2aa'] }), where);
    return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  };
  for (const theme of ['light', 'dark']) {
    await page.evaluate((th) => { document.documentElement.dataset.theme = th; }, theme);
    assert.deepEqual(await check('section.trace'), [], `trace, ${theme}`);
  }
  await moreMenu(page);
  await page.getByTestId('compare-runs').click();
  await page.getByTestId('runs-compare-table').waitFor();
  for (const theme of ['light', 'dark']) {
    await page.evaluate((th) => { document.documentElement.dataset.theme = th; }, theme);
    assert.deepEqual(await check('[data-testid="runs-compare"]'), [], `comparison, ${theme}`);
  }
  await context.close();
});
