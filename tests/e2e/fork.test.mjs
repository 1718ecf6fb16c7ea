// End-to-end tests of changing a step and running on from there: a branch made at an
// observation and at a model's reply (its thought), "ask again", the branch switcher, and the
// branches kept after a reload, in an export and an import, in Compare runs and in the
// OpenTelemetry file, against the loopback server, which records every request it gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, openApp, script, requests, ask, shot, loopbackSettings, traceTones, action, untilStored, exportMenu, moreMenu } from './harness.mjs';

const env = suite();

/** The text the model received last: the last user message of the last request. */
async function lastPrompt(scope) {
  const sent = await requests(env.server.origin, scope);
  const messages = sent.at(-1).body.messages;
  return { count: sent.length, text: messages.at(-1).content, messages };
}

/** Opens the editor on the `n`th row of `kind`, puts `text` in place of the step's, runs it. */
async function change(page, kind, n, text) {
  const row = page.locator(`[data-testid="event"][data-kind="${kind}"]`).nth(n);
  await row.getByTestId('fork-step').click();
  const editor = row.getByTestId('fork-editor');
  await editor.getByTestId('fork-text').fill(text);
  await editor.getByTestId('fork-run').click();
}

async function branchLabel(page) {
  return (await page.getByTestId('branch-switcher').getByTestId('branch-label').textContent()).trim();
}

const THOUGHT = 'Thought: I will compute six times eight instead.\nAction:\n```json\n{"action": "calculator", "action_input": "6*8"}\n```';

test('a branch from an observation and from a thought, ask again, switching, reload, export, import, compare', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant .text', { hasText: '42' }).waitFor();
  const original = await traceTones(page);

  // 1. The observation changed: the next request holds the person's text, not the tool's.
  await script(env.server.origin, scope, [{ text: 'Thought: the tool said 54.\nFinal Answer: 54' }]);
  const row = page.locator('[data-testid="event"][data-kind="tool_result"]').first();
  await row.getByTestId('fork-step').click();
  assert.equal(await row.getByTestId('fork-text').inputValue(), '6*7 = 42', 'the editor starts from the step\'s own text');
  await row.getByTestId('fork-text').fill('54');
  await shot(page, 'fork-editor');
  await row.getByTestId('fork-run').click();
  await page.locator('.bubble.assistant .text', { hasText: '54' }).waitFor();
  let prompt = await lastPrompt(scope);
  assert.equal(prompt.count, 3);
  assert.match(prompt.text, /Observation: 54\nThought:/);
  assert.doesNotMatch(prompt.text, /Observation: 6\*7 = 42/);
  assert.match(prompt.text, /I should use calculator/, 'the model\'s own reply before the fork is as it was');
  assert.equal(await branchLabel(page), 'branch 2 of 2');
  assert.equal(await page.locator('.bubble.assistant [data-testid="message-branch"]').textContent(), 'branch 2 of 2', 'the chat says which branch its answer is');
  const forked = page.locator('[data-testid="event"][data-kind="forked"]');
  assert.match(await forked.textContent(), /Edited by you/);
  assert.match(await forked.textContent(), /You changed what calculator answered/);
  assert.match(await forked.textContent(), /the run's own settings/);

  // 2. A thought changed (the model's reply of step 1): the agent acts on the person's reply.
  await script(env.server.origin, scope, [{ text: 'Final Answer: 48' }]);
  await change(page, 'llm_response', 0, THOUGHT);
  await page.locator('.bubble.assistant .text', { hasText: '48' }).waitFor();
  prompt = await lastPrompt(scope);
  assert.equal(prompt.count, 4, 'the changed reply is not sent to the model: it is read as its own');
  assert.match(prompt.text, /I will compute six times eight instead/);
  assert.match(prompt.text, /Observation: 6\*8 = 48/, 'the calculator ran with the input the person wrote');
  assert.equal(await branchLabel(page), 'branch 3 of 3');

  // 3. Ask the last step again: the same request, a new reply, a branch of its own.
  await script(env.server.origin, scope, [{ text: 'Final Answer: forty-eight' }]);
  const replies = page.locator('[data-testid="event"][data-kind="llm_response"]');
  await replies.last().getByTestId('ask-again').click();
  await page.locator('.bubble.assistant .text', { hasText: 'forty-eight' }).waitFor();
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 5);
  assert.deepEqual(sent[4].body.messages, sent[3].body.messages, 'the same request went again');
  assert.equal(await branchLabel(page), 'branch 4 of 4');
  assert.match(await page.locator('[data-testid="event"][data-kind="forked"]').last().textContent(), /Asked again/);
  await shot(page, 'fork-branches');

  // 4. Switching: the run as first asked is there, untouched, and the chat shows its answer.
  for (let i = 0; i < 3; i++) await page.getByTestId('branch-prev').click();
  assert.equal(await branchLabel(page), 'branch 1 of 4');
  assert.deepEqual(await traceTones(page), original);
  await page.locator('.bubble.assistant .text', { hasText: /^42$/ }).waitFor();
  await page.getByTestId('branch-next').click();
  assert.equal(await branchLabel(page), 'branch 2 of 4');
  await page.locator('.bubble.assistant .text', { hasText: /^54$/ }).waitFor();

  // 5. A later question remembers the branch shown.
  await script(env.server.origin, scope, [{ text: 'Final Answer: yes' }]);
  await ask(page, 'Are you sure?');
  await page.locator('.bubble.assistant .text', { hasText: 'yes' }).waitFor();
  const memory = (await lastPrompt(scope)).messages;
  assert.ok(memory.some((m) => m.role === 'assistant' && m.content === '54'), 'the shown branch is remembered');
  assert.ok(!memory.some((m) => m.role === 'assistant' && m.content === '42'));

  // 6. After a reload every branch is there, the one shown as it was.
  await untilStored(page, ['forty-eight', 'Are you sure?']);
  await page.reload();
  await page.locator('.bubble.assistant .text', { hasText: 'yes' }).waitFor();
  await page.getByTestId('show-steps').first().click();
  await page.getByTestId('shown-question').filter({ hasText: 'What is six times seven?' }).waitFor();
  assert.equal(await branchLabel(page), 'branch 2 of 4');
  await page.getByTestId('branch-next').click();
  await page.getByTestId('branch-next').click();
  assert.equal(await branchLabel(page), 'branch 4 of 4');
  assert.match(await page.locator('[data-testid="event"][data-kind="forked"]').last().textContent(), /Asked again/);

  // 7. The OpenTelemetry file of a branch: its own trace, linked to the step it came from.
  await exportMenu(page);
  const [otel] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-otel').click()]);
  const spans = JSON.parse(fs.readFileSync(await otel.path(), 'utf8')).resourceSpans[0].scopeSpans[0].spans;
  const root = spans.find((s) => !s.parentSpanId);
  assert.equal(root.links.length, 1, 'the branch links to the step it was made from');
  assert.ok(root.events.some((e) => e.name === 'thoughtline.forked'));

  // 8. Export and import carry every branch.
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(file.version, 4);
  assert.equal(file.runs[0].branches.length, 3);
  assert.equal(file.runs[0].branches[0].trace.events[0].kind.forked.change.observation.text, '54');
  assert.ok(!JSON.stringify(file).includes('sk-test'));
  await page.getByTestId('import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ ...file, title: 'Branched copy' })) });
  await page.locator('.chat-title', { hasText: 'Branched copy' }).waitFor();
  await page.getByTestId('show-steps').first().click();
  await page.getByTestId('shown-question').filter({ hasText: 'What is six times seven?' }).waitFor();
  assert.equal(await branchLabel(page), 'branch 4 of 4');
  for (let i = 0; i < 3; i++) await page.getByTestId('branch-next').click();
  assert.equal(await branchLabel(page), 'branch 3 of 4');
  await page.locator('.bubble.assistant .text', { hasText: /^48$/ }).waitFor();

  // 9. Compare runs pairs the branch shown with the line it came from, from the fork on.
  await moreMenu(page);
  await page.getByTestId('compare-runs').click();
  const compare = page.getByTestId('runs-compare');
  await compare.waitFor();
  assert.match(await compare.getByTestId("runs-compare-a").locator("option:checked").textContent(), /branch 2/);
  assert.match(await compare.getByTestId('runs-compare-b').locator('option:checked').textContent(), /branch 3/);
  assert.match(await compare.getByTestId('runs-compare-verdict').textContent(), /They differ in step 1/);
  await context.close();
});

test('no change while a run goes on, and a change that cannot run says why', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), { hang: true }]);
  await ask(page, 'What is six times seven?');
  await page.locator('[data-testid="event"][data-kind="tool_result"]').waitFor();
  assert.equal(await page.getByTestId('fork-step').count(), 0, 'nothing to change while the run goes on');
  await page.getByTestId('stop').click();
  await page.locator('.bubble.problem').waitFor();
  // The key is gone from Settings: the branch is refused, saying what to set, and nothing runs.
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('api-key').fill('');
  await page.getByTestId('api-key').press('Tab');
  await page.getByTestId('settings-close').click();
  const row = page.locator('[data-testid="event"][data-kind="tool_result"]').first();
  await row.getByTestId('fork-step').click();
  await row.getByTestId('fork-settings-now').check();
  await row.getByTestId('fork-text').fill('41');
  await row.getByTestId('fork-run').click();
  assert.match(await row.getByTestId('fork-error').textContent(), /API key/);
  assert.equal(await page.locator('[data-testid="event"][data-kind="forked"]').count(), 0);
  assert.equal(await page.getByTestId('branch-switcher').count(), 0);

  // With the key back, the branch runs, and Stop ends it: the branch says so, the run as it
  // was keeps its own end.
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('api-key').fill('sk-test');
  await page.getByTestId('api-key').press('Tab');
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [{ hang: true }]);
  await row.getByTestId('fork-run').click();
  await page.getByTestId('stop').click();
  await page.getByTestId('stop').waitFor({ state: 'detached' });
  const ended = page.locator('.bubble.problem').last();
  assert.match(await ended.textContent(), /Stopped by you/);
  assert.equal(await ended.getByTestId('message-branch').textContent(), 'branch 2 of 2');
  assert.equal(await branchLabel(page), 'branch 2 of 2');
  assert.equal((await requests(env.server.origin, scope)).length, 3, 'the branch asked the model once');
  await page.getByTestId('branch-prev').click();
  assert.equal(await branchLabel(page), 'branch 1 of 2');
  assert.equal(await page.locator('[data-testid="event"][data-kind="forked"]').count(), 0);
  await context.close();
});
