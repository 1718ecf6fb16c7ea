// End-to-end tests of evaluations: a set imported from a file, two configurations whose
// models the loopback server answers from scripts of their own, the pass rates those replies
// warrant, a reload in the middle that goes on without running a finished case again, a case's
// trace, Compare runs on two configurations' runs of a case, Stop, and the results as files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite, openApp, script, requests, shot, loopbackSettings, action } from './harness.mjs';

const env = suite();

const SET = [
  { question: 'What is 6*7?', expected: '42', scorer: 'number+tool:calculator', tags: ['math'] },
  { question: 'What is the capital of France?', expected: 'Paris', scorer: 'contains', tags: 'geo' },
  { question: 'Say hello', scorer: 'answered' },
].map((c) => JSON.stringify(c)).join('\n') + '\n{"expected": "an answer with no question"}\n';

function setFile(text, name = 'smoke.jsonl') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thoughtline-eval-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Imports `text` as the set and makes a second configuration running `model`. */
async function prepare(page, text, model) {
  await page.getByTestId('evaluate').click();
  await page.getByTestId('eval-import').setInputFiles(setFile(text));
  await page.getByTestId('eval-add-config').click();
  await page.getByTestId('eval-config-model').nth(1).fill(model);
  await page.getByTestId('eval-config-model').nth(1).press('Tab');
  await page.getByTestId('eval-concurrency').fill('1');
  await page.getByTestId('eval-concurrency').press('Tab');
}

const progressText = (page) => page.getByTestId('eval-progress').textContent();

async function untilProgress(page, pattern, ms = 20_000) {
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('[data-testid="eval-progress"]')?.textContent ?? ''), pattern.source, { timeout: ms });
}

/** The chat requests each model got, by the question they were for. */
async function asked(scope) {
  const sent = await requests(env.server.origin, scope);
  return sent.map((r) => ({ model: r.body.model, question: r.body.messages.find((m) => m.role === 'user')?.content ?? '' }));
}

test('a set under two configurations: pass rates, a reload that goes on, a trace, compare, export', async () => {
  const { page, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  // The settings' model answers everything right; the case run when the page reloads is
  // answered late (its request is then gone with the page) and asked again after the reload.
  await script(env.server.origin, scope, [
    action('calculator', '6*7'), { text: 'Final Answer: 42' },
    { text: 'Final Answer: Paris', delay_ms: 5000 }, { text: 'Final Answer: It is Paris.' },
    { text: 'Final Answer: Hello!' },
  ], 'test-model');
  // The second configuration's model: a wrong number without the tool, a right answer, and a
  // refusal from the provider (a failed case, with its reason).
  await script(env.server.origin, scope, [
    { text: 'Final Answer: 41' }, { text: 'Final Answer: Paris, of course' },
    { status: 400, body: '{"error":{"message":"this model cannot answer that"}}' },
  ], 'model-b');

  await prepare(page, SET, 'model-b');
  assert.match(await page.getByTestId('eval-set-status').textContent(), /3 cases read/);
  assert.match(await page.getByTestId('eval-set-problems').textContent(), /Line 4: .*question/, 'a bad row is named by its line, the rest kept');
  await page.getByTestId('eval-name').fill('Smoke set');
  await page.getByTestId('eval-run').click();

  // Two cells done, the third waiting for its late reply: the page goes away.
  await untilProgress(page, /^2 of 6 done/);
  await page.getByTestId('eval-running').waitFor();
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  await page.getByTestId('evaluate').click();
  await page.getByTestId('eval-note').waitFor();
  assert.match(await page.getByTestId('eval-note').textContent(), /goes on/);
  await untilProgress(page, /^6 of 6 done/, 30_000);
  assert.match(await progressText(page), /finished/);

  const rates = await page.getByTestId('eval-pass-rate').allTextContents();
  assert.deepEqual(rates, ['3/3 passed', '1/3 passed']);
  // The finished cases were not asked again: the settings' model got its first case's two
  // requests once, and the case cut by the reload twice.
  const sent = await asked(scope);
  const count = (model, q) => sent.filter((r) => r.model === model && r.question.includes(q)).length;
  assert.equal(count('test-model', '6*7'), 2);
  assert.equal(count('model-b', '6*7'), 1);
  assert.equal(count('test-model', 'capital of France'), 2, 'the case running at the reload runs again');
  assert.equal(sent.length, 8);

  const rows = page.getByTestId('eval-case');
  assert.equal(await rows.count(), 3);
  const first = rows.nth(0);
  assert.deepEqual(await first.getByTestId('eval-verdict').allTextContents(), ['✓ passed', '✗ failed']);
  assert.match(await first.getByTestId('eval-cell').nth(1).textContent(), /never called calculator/);
  assert.match(await rows.nth(2).getByTestId('eval-cell').nth(1).textContent(), /cannot answer that/, 'a failed run is a failed case with its reason');

  // Only failures: the two cases the second configuration failed.
  await page.getByTestId('eval-only-failures').check();
  assert.equal(await rows.count(), 2);
  await page.getByTestId('eval-only-failures').uncheck();
  await shot(page, 'evaluation');

  // A case's trace: the run as any chat's, with the calculator's step.
  await first.getByTestId('eval-trace').first().click();
  const trace = page.getByTestId('eval-case-trace');
  await trace.locator('[data-testid="event"][data-kind="tool_result"]').waitFor();
  assert.match(await trace.locator('[data-testid="event"][data-kind="tool_result"]').textContent(), /42/);
  // Compare runs on the two configurations' runs of it.
  await first.getByTestId('eval-compare').click();
  const compared = page.getByTestId('eval-case-compare');
  await compared.getByTestId('runs-compare-table').waitFor();
  assert.ok(await compared.getByTestId('aligned-step').count() > 0);

  // The results as JSON Lines: one line per case and configuration.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('eval-export').click()]);
  assert.equal(download.suggestedFilename(), 'Smoke-set.results.jsonl');
  const lines = fs.readFileSync(await download.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 6);
  assert.deepEqual(lines.map((l) => l.pass), [true, false, true, true, true, false]);
  assert.equal(lines[0].config, 'Settings');
  assert.deepEqual(lines[0].tags, ['math']);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('eval-export-csv').click()]);
  assert.match(fs.readFileSync(await csv.path(), 'utf8'), /^case,question,expected,config,outcome,answer,pass,/);

  // Every case's run as an OpenTelemetry trace, each score an evaluation result on the run's
  // root span (the operation it judges).
  const [otel] = await Promise.all([page.waitForEvent('download'), page.getByTestId('eval-export-otel').click()]);
  const otlp = JSON.parse(fs.readFileSync(await otel.path(), 'utf8'));
  const spans = otlp.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const results = spans.flatMap((span) => (span.events ?? []).filter((e) => e.name === 'gen_ai.evaluation.result').map((e) => ({ span, e })));
  assert.equal(results.length, 8, 'two scorers for the first case, one for each other, under two configurations');
  assert.ok(results.every(({ span }) => !span.parentSpanId && span.name.startsWith('invoke_agent')));
  const attrs = (e) => Object.fromEntries(e.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
  assert.deepEqual(results.map(({ e }) => attrs(e)['gen_ai.evaluation.score.label']), ['pass', 'pass', 'fail', 'fail', 'pass', 'pass', 'pass', 'fail']);
  assert.equal(attrs(results[2].e)['gen_ai.evaluation.name'], 'number');

  // Listed with the earlier evaluations, and nowhere in the chat list.
  assert.match(await page.getByTestId('eval-listed').first().textContent(), /Smoke set/);
  await page.getByTestId('evaluate').click();
  assert.equal(await page.locator('[data-testid="chat-item"]').count(), 0);
});

test('Stop halts an evaluation, Go on finishes it, and a second run of the set says what changed', async () => {
  const { page, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  const set = '{"question": "Capital of France?", "expected": "Paris"}\n{"question": "Capital of Italy?", "expected": "Rome"}\n';
  await script(env.server.origin, scope, [{ text: 'Final Answer: Paris' }, { text: 'Final Answer: Rome', delay_ms: 4000 }], 'test-model');
  await page.getByTestId('evaluate').click();
  await page.getByTestId('eval-import').setInputFiles(setFile(set, 'capitals.csv'));
  await page.getByTestId('eval-run').click();
  await untilProgress(page, /^1 of 2 done/);
  await page.getByTestId('eval-stop').click();
  await untilProgress(page, /stopped/);
  assert.equal(await page.getByTestId('eval-running').count(), 0);
  await script(env.server.origin, scope, [{ text: 'Final Answer: Rome' }], 'test-model');
  await page.getByTestId('eval-run').click();
  await untilProgress(page, /^2 of 2 done .*finished/);
  assert.deepEqual(await page.getByTestId('eval-pass-rate').allTextContents(), ['2/2 passed']);

  // The same set again, with a model that gets Rome wrong: one case worse.
  await script(env.server.origin, scope, [{ text: 'Final Answer: Paris' }, { text: 'Final Answer: Milan' }], 'test-model');
  await page.getByTestId('eval-again').click();
  assert.match(await page.getByTestId('eval-set-status').textContent(), /2 cases read/, 'the form starts from its set');
  const [saved] = await Promise.all([page.waitForEvent('download'), page.getByTestId('eval-set-export').click()]);
  const cases = fs.readFileSync(await saved.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(cases, [
    { question: 'Capital of France?', expected: 'Paris', scorer: 'contains' },
    { question: 'Capital of Italy?', expected: 'Rome', scorer: 'contains' },
  ]);
  await page.getByTestId('eval-run').click();
  await untilProgress(page, /^2 of 2 done .*finished/);
  await page.getByTestId('eval-compare-with').selectOption({ index: 1 });
  await page.getByTestId('eval-changes').waitFor();
  assert.match(await page.getByTestId('eval-changes').textContent(), /0 better, 1 worse, 1 the same/);
  assert.equal(await page.getByTestId('eval-worse').count(), 1);
  assert.equal(await page.getByTestId('eval-listed').count(), 2);
});
