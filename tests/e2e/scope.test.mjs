// End-to-end tests of the scope gate (Settings → Agent → "What this agent is for"): an off-topic
// question is declined after one short model call, before any tool; an on-topic one goes on
// with the gate's step green; a verdict that cannot be read lets the question through, saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, requests, ask, shot, loopbackSettings, traceTones, action } from './harness.mjs';

const env = suite();

const scoped = (scopeUrl, base) => ({
  ...loopbackSettings(scopeUrl, base),
  agent: { scope: 'Arithmetic homework: sums, products, percentages.', decline_message: 'I only help with arithmetic homework.' },
});

test('an off-topic question is declined with one model call and no tool', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: scoped });
  await script(env.server.origin, scope, [{ text: 'OUT: a question about European history' }, action('wikipedia', 'Napoleon')]);
  await ask(page, 'Who was Napoleon?');
  const bubble = page.locator('.bubble.assistant .text');
  await bubble.waitFor();
  assert.match(await bubble.textContent(), /I only help with arithmetic homework\.[\s\S]*Why: a question about European history/);
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 1, 'one model call: the gate');
  assert.match(sent[0].body.messages[0].content, /Arithmetic homework: sums, products, percentages\./);
  const tones = await traceTones(page);
  assert.deepEqual(tones, ['run_started:neutral', 'llm_request:pending', 'llm_response:success', 'scope_checked:neutral', 'final_answer:success', 'run_stopped:success']);
  assert.equal(await page.locator('[data-kind="final_answer"] .label').textContent(), 'Declined');
  await shot(page, 'scope-declined');
  await context.close();
});

test('an on-topic question passes the gate (green) and is answered with its tools', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: scoped });
  await script(env.server.origin, scope, [{ text: 'IN: a product of two numbers' }, action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant .text', { hasText: '42' }).waitFor();
  const tones = await traceTones(page);
  assert.equal(tones[3], 'scope_checked:success');
  assert.ok(tones.includes('tool_result:success'), tones.join(' '));
  assert.match(await page.locator('[data-kind="scope_checked"]').textContent(), /Passed/);
  // The gate is not part of the step's prompt.
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 3);
  assert.ok(!sent[1].body.messages.some((m) => m.content.includes('IN: a product')));
  await context.close();
});

test('a garbled verdict lets the question through, and the trace says so', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: scoped });
  await script(env.server.origin, scope, [{ text: 'banana banana' }, { text: 'Final Answer: 25% of 300 is 75.' }]);
  await ask(page, 'What is 25% of 300?');
  await page.locator('.bubble.assistant .text', { hasText: '75' }).waitFor();
  const row = page.locator('[data-kind="scope_checked"]');
  assert.equal(await row.getAttribute('data-tone'), 'error');
  assert.match(await row.textContent(), /No readable verdict/);
  await context.close();
});
