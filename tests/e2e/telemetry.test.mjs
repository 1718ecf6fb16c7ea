// End-to-end tests of where the time and tokens go: usage on every model row and summed, the
// run's timeline, the OpenTelemetry export read by OpenTelemetry's own protobuf definitions, and
// finished runs sent to a loopback OTLP receiver (and one that refuses them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { suite, openApp, script, ask, shot, loopbackSettings, action, longRunExport, exportMenu, moreMenu } from './harness.mjs';

const require = createRequire(import.meta.url);

const env = suite();
const here = path.dirname(new URL(import.meta.url).pathname);
const reader = path.join(here, '..', 'otlp', 'read.py');
const python = process.env.OTLP_PYTHON || path.join(process.env.THOUGHTLINE_TOOLS || path.join(os.homedir(), '.cache', 'thoughtline'), 'otlp-venv', 'bin', 'python');

/** Reads OTLP JSON text with the official protobuf definitions (tests/otlp/read.py). */
function readWithProtobuf(text) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otlp-')), 'run.otlp.json');
  fs.writeFileSync(file, text);
  return execFileSync(python, [reader, file], { encoding: 'utf8' });
}

function spansOf(text) {
  return JSON.parse(text).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

// A model call that waits on one retry, then a tool call, then the answer.
const RETRY_TOOL_ANSWER = [
  { status: 503, body: '{"error":{"message":"overloaded"}}', retry_after: 1 },
  action('calculator', '6*7'),
  { text: 'Thought: I know it now.\nFinal Answer: 42' },
];

/** The page's console errors, but for the browser's own line about the scripted 503. */
const unexpected = (errors) => errors.filter((e) => !/status of 503/.test(e));

async function finished(page, answers = 1) {
  await page.locator('.bubble.assistant').nth(answers - 1).waitFor();
  await page.getByTestId('trace-totals').waitFor();
}

test('usage on every model row and summed; the timeline draws each call and wait, and a bar opens its step', async () => {
  const { page, context, errors, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, RETRY_TOOL_ANSWER);
  await ask(page, 'What is six times seven?');
  await finished(page);
  // The loopback server reports 100 prompt tokens per call and one completion token per piece.
  const counts = await page.locator('[data-kind="llm_response"] [data-testid="event-counts"]').allTextContents();
  assert.equal(counts.length, 2);
  for (const c of counts) assert.match(c, /characters · 100 in · \d+ out tokens · first token \d+\.\d\d s$/, c);
  const out = counts.map((c) => Number(c.match(/(\d+) out/)[1])).reduce((a, b) => a + b, 0);
  assert.match(await page.getByTestId('trace-totals').textContent(), new RegExp(`200 in · ${out} out tokens`));

  await moreMenu(page);
  await page.getByTestId('view-timeline').click();
  const timeline = page.getByTestId('timeline');
  await timeline.waitFor();
  assert.equal(await page.getByTestId('view-timeline').getAttribute('aria-pressed'), 'true');
  const bars = timeline.getByTestId('timeline-bar');
  assert.deepEqual(await bars.evaluateAll((els) => els.map((e) => e.dataset.kind)), ['model', 'retry', 'tool', 'model']);
  // On one axis, in order: each bar starts where or after the one before.
  const lefts = await bars.evaluateAll((els) => els.map((e) => parseFloat(e.style.left)));
  assert.ok(lefts.every((l, i) => i === 0 || l >= lefts[i - 1]), lefts.join(' '));
  // The first call waited about a second on its retry: its bar is wide, the retry inside it.
  assert.ok(parseFloat(await bars.nth(1).evaluate((e) => e.style.width)) > 20, 'the retry wait is drawn to scale');
  // Focus shows a bar's figures; every bar has words for a screen reader.
  await bars.nth(0).focus();
  assert.match(await page.getByTestId('timeline-figures').textContent(), /^Model call, step 1, from \d+\.\d\d s: .* · first token \d+\.\d\d s · 100 in · \d+ out tokens$/);
  await page.keyboard.press('ArrowDown');
  // The next bar takes the focus at the next frame.
  await page.waitForFunction(() => document.activeElement?.dataset.bar === '1');
  assert.match(await page.getByTestId('timeline-figures').textContent(), /^Retry wait, step 1, .*attempt 1 failed \(HTTP 503\)/);
  for (const label of await bars.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))) assert.ok(label.length > 20, label);
  await shot(page, 'timeline');
  // Readable in both themes: axe's contrast and name checks on the timeline.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
    const result = await page.evaluate(async () => window.axe.run(document.querySelector('[data-testid="timeline"]'), { runOnly: ['wcag2a', 'wcag2aa'] }));
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`), [], theme);
  }
  await shot(page, 'timeline-dark');
  // A click opens that step in the list.
  const toolEvent = await bars.nth(2).getAttribute('data-event');
  await bars.nth(2).click();
  await page.waitForFunction(() => document.activeElement?.closest('li.event'));
  const focused = await page.evaluate(() => document.activeElement?.closest('li.event')?.dataset.index);
  assert.equal(focused, toolEvent);
  assert.equal(await page.locator(`li.event[data-index="${toolEvent}"]`).getAttribute('data-kind'), 'tool_call');
  // A step the list's filter hides is not opened, and the timeline says why.
  await moreMenu(page);
  await page.getByTestId('trace-filter').selectOption('model');
  await page.locator(`li.event[data-index="${toolEvent}"]`).waitFor({ state: 'hidden' });
  await bars.nth(2).click();
  assert.match(await page.getByTestId('timeline-figures').textContent(), /hidden by the list's filter; choose “All steps”/);
  await bars.nth(0).hover();
  assert.match(await page.getByTestId('timeline-figures').textContent(), /^Model call, step 1/, 'another bar shows its own figures again');
  await moreMenu(page);
  await page.getByTestId('trace-filter').selectOption('all');
  assert.deepEqual(unexpected(errors), []);
  await context.close();
});

test('the OpenTelemetry export of the run shown is read by the official protobuf definitions, with no secret in it', async () => {
  const { page, context, errors, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, RETRY_TOOL_ANSWER);
  await ask(page, 'What is six times seven?');
  await finished(page);
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-otel').click()]);
  assert.equal(download.suggestedFilename(), 'thoughtline-run.otlp.json');
  const text = fs.readFileSync(await download.path(), 'utf8');
  assert.match(readWithProtobuf(text), /^read /);
  assert.ok(!text.includes('sk-test'), 'the key is not in the file');
  const spans = spansOf(text);
  const names = spans.map((s) => s.name);
  assert.equal(names[0], 'invoke_agent Thoughtline');
  assert.deepEqual(names.filter((n) => n.startsWith('chat ')), ['chat test-model', 'chat test-model']);
  assert.deepEqual(names.filter((n) => n.startsWith('execute_tool')), ['execute_tool calculator']);
  const chat = spans.find((s) => s.name === 'chat test-model');
  const attr = (span, key) => span.attributes.find((a) => a.key === key)?.value;
  assert.deepEqual(attr(chat, 'gen_ai.usage.input_tokens'), { intValue: '100' });
  assert.equal(attr(chat, 'gen_ai.provider.name').stringValue, 'custom');
  assert.ok(chat.events.some((e) => e.name === 'thoughtline.retry'), 'the retry is an event of its call');
  assert.deepEqual(unexpected(errors), []);
  await context.close();
});

test('a finished run is sent once to the OTLP receiver with its header; a refusing receiver is shown on the run and the chat goes on', async () => {
  const header = 'Bearer otlp-header-secret-77';
  const seed = (refuse) => (scopeUrl, base) => ({
    ...loopbackSettings(scopeUrl, base),
    collector: { endpoint: `${scopeUrl}/${refuse ? 'otlp-refuse' : 'otlp'}/v1/traces`, header_name: 'Authorization', header_value: header },
  });
  {
    const { page, context, errors, scope } = await openApp(env.browser, env.server.origin, { seed: seed(false) });
    await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
    await ask(page, 'What is six times seven?');
    await finished(page);
    await page.getByTestId('collector-status').waitFor();
    assert.equal(await page.getByTestId('collector-status').textContent(), 'Sent to the OpenTelemetry collector.');
    const received = await (await fetch(`${env.server.origin}/s/${scope}/__otlp`)).json();
    assert.equal(received.length, 1, 'sent once');
    assert.equal(received[0].headers.authorization, header);
    assert.equal(received[0].headers['content-type'], 'application/json');
    assert.match(readWithProtobuf(received[0].body), /^read /);
    assert.ok(!received[0].body.includes('otlp-header-secret-77') && !received[0].body.includes('sk-test'));
    // The header is a secret: not in the export of the conversation.
    await exportMenu(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
    assert.ok(!fs.readFileSync(await download.path(), 'utf8').includes('otlp-header-secret-77'));
    assert.deepEqual(errors, []);
    await context.close();
  }
  {
    const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: seed(true) });
    await script(env.server.origin, scope, [{ text: 'Final Answer: 42' }, { text: 'Final Answer: 43' }]);
    await ask(page, 'What is six times seven?');
    await finished(page);
    const status = page.getByTestId('collector-status');
    await status.waitFor();
    const said = await status.textContent();
    assert.match(said, /^Not sent to the OpenTelemetry collector: .*HTTP 401\. Check the header in Settings\./);
    assert.ok(!said.includes('otlp-header-secret-77'));
    await shot(page, 'collector-refused');
    await ask(page, 'And plus one?');
    await finished(page, 2);
    assert.match(await page.locator('.bubble.assistant').nth(1).textContent(), /43/);
    await context.close();
  }
});

test('the timeline of an imported 600-step run draws only the rows in view and reaches the last one', async (t) => {
  const { page, context, errors } = await openApp(env.browser, env.server.origin);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-timeline-')), 'long.json');
  fs.writeFileSync(file, JSON.stringify(longRunExport(600)));
  await page.getByTestId('import').setInputFiles(file);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="event"]').length >= 3000, null, { timeout: 60_000 });
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: 'longtask' });
  });
  await moreMenu(page);
  await page.getByTestId('view-timeline').click();
  await page.getByTestId('timeline').waitFor();
  assert.match(await page.getByTestId('timeline-figures').textContent(), /^1200 bars over /);
  const drawn = await page.getByTestId('timeline-bar').count();
  assert.ok(drawn > 0 && drawn <= 60, `${drawn} bars drawn of 1,200`);
  await page.locator('.tl-rows').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await page.waitForFunction(() => document.querySelector('[data-bar="1199"]'));
  await page.locator('[data-bar="1199"]').focus();
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.activeElement?.dataset.bar === '0');
  const long = await page.evaluate(() => window.__long);
  // The first step's model call is older than the 3,000 rows the list keeps: said, not opened.
  const first = await page.locator('[data-bar="0"]').getAttribute('data-event');
  assert.equal(await page.locator(`li.event[data-index="${first}"]`).count(), 0);
  await page.keyboard.press('Enter');
  assert.match(await page.getByTestId('timeline-figures').textContent(), /not in the list below, which draws a run's last 3000 events/);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.bar), '0', 'the focus stays on the bar');
  // Printed, not asserted (tests never time): docs/performance.md records the figure.
  t.diagnostic(`timeline of 600 steps: ${long.length} tasks over 50 ms${long.length ? `, longest ${Math.max(...long).toFixed(0)} ms` : ''}`);
  assert.deepEqual(errors, []);
  await context.close();
});
