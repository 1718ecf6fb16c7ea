// End-to-end runs of each agent strategy in the real page, against the loopback server speaking
// the providers' wire formats (native tool calls streamed as argument fragments, as OpenAI and
// Anthropic do), plus clarifying questions, direct answers and Compare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, requests, ask, shot, loopbackSettings, traceTones, action } from './harness.mjs';

const env = suite();
const finalAnswer = (text) => ({ text: `Thought: I can answer now.\nFinal Answer: ${text}` });
const withAgent = (agent, extra = {}) => (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), ...extra, agent });

test('native tool calling: two streamed calls in one turn run in order and are answered by id', async () => {
  const { page, context, errors, scope } = await openApp(env.browser, env.server.origin, { seed: withAgent({ strategy: 'tool_calling' }) });
  await script(env.server.origin, scope, [
    { text: 'Checking both.', chunk_delay_ms: 40, tool_calls: [{ name: 'wikipedia', arguments: { input: 'Python programming' } }, { name: 'calculator', arguments: { input: '6*7' } }] },
    { text: 'Python is a programming language; 6*7 is 42.' },
  ]);
  await ask(page, 'What is Python, and what is 6*7?');
  // The calls stream into the live box as they are written: name first, then the arguments.
  await page.waitForFunction(() => /→ wikipedia \{"input":"Py/.test(document.querySelector('[data-testid="streaming"] pre')?.textContent ?? ''), null, { timeout: 10_000 });
  await page.locator('.bubble.assistant').waitFor();
  const tones = await traceTones(page);
  assert.equal(tones.filter((t) => t === 'tool_call:pending').length, 2, tones.join(' '));
  assert.equal(tones.filter((t) => t === 'tool_result:success').length, 2, tones.join(' '));
  const calls = await page.locator('[data-kind="tool_call"] [data-testid="action"]').allTextContents();
  assert.match(calls[0], /^Action wikipedia ← /);
  assert.match(calls[1], /^Action calculator ← /);
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0].body.tools.map((t) => t.function.name), ['wikipedia', 'arxiv', 'calculator', 'web_search', 'ask_person']);
  const tail = sent[1].body.messages.slice(-3);
  assert.equal(tail[0].role, 'assistant');
  assert.deepEqual(tail[0].tool_calls.map((c) => c.id), ['call_loop_0', 'call_loop_1']);
  assert.deepEqual(tail.slice(1).map((m) => [m.role, m.tool_call_id]), [['tool', 'call_loop_0'], ['tool', 'call_loop_1']]);
  assert.match(tail[2].content, /6\*7 = 42/);
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'Python is a programming language; 6*7 is 42.');
  await shot(page, 'strategy-native');
  assert.deepEqual(errors, []);
  await context.close();
});

test('native tool calling with Anthropic: tool_use streamed as input_json_delta, answered with tool_result', async () => {
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), preset: 'anthropic', base_url: scopeUrl, model: 'claude-test', agent: { strategy: 'tool_calling' } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [
    { text: 'Let me compute.', tool_calls: [{ id: 'toolu_01', name: 'calculator', arguments: { input: '2+2' } }] },
    { text: '2+2 is 4.' },
  ]);
  await ask(page, 'What is 2+2?');
  await page.locator('.bubble.assistant').waitFor();
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent[0].path, '/v1/messages');
  assert.ok(sent[0].body.tools.some((t) => t.name === 'calculator' && t.input_schema.type === 'object'));
  const [assistant, user] = sent[1].body.messages.slice(-2);
  assert.deepEqual(assistant.content.map((b) => b.type), ['text', 'tool_use']);
  assert.deepEqual(assistant.content[1].input, { input: '2+2' });
  assert.equal(user.content[0].type, 'tool_result');
  assert.equal(user.content[0].tool_use_id, 'toolu_01');
  assert.match(user.content[0].content, /2\+2 = 4/);
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '2+2 is 4.');
  await context.close();
});

test('a model without tool support falls back to ReAct and says so in red', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withAgent({ strategy: 'tool_calling' }) });
  await script(env.server.origin, scope, [
    { status: 400, body: '{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error","param":null,"code":null}}' },
    action('calculator', '2+2'),
    finalAnswer('4'),
  ]);
  await ask(page, 'What is 2+2?');
  await page.locator('.bubble.assistant').waitFor();
  const tones = await traceTones(page);
  assert.ok(tones.includes('strategy_fallback:error'), tones.join(' '));
  const fallback = page.locator('[data-kind="strategy_fallback"]');
  assert.match(await fallback.textContent(), /Native tool calling → ReAct/);
  assert.match(await fallback.locator('pre').textContent(), /does not support native tool calling/);
  const sent = await requests(env.server.origin, scope);
  assert.ok(sent[0].body.tools && !sent[1].body.tools, 'the retry is plain ReAct');
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), '4');
  await context.close();
});

test('Plan-ReAct: the plan is a checklist, a failed step brings a revised plan, items tick as steps succeed', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withAgent({ strategy: 'plan_react' }) });
  await script(env.server.origin, scope, [
    { text: '/*PLANNING*/\n1. Look up Python on Wikipedia.\n2. Compute the age.\n3. Answer.\n/*REASONING*/\nStart with the lookup.\n/*ACTION*/\n```json\n{"action": "wikipedia", "action_input": "Python programming"}\n```' },
    // Markdown-header tags, no closing tags; the calculator fails on this input.
    { text: '## REASONING\nNow the age.\n## ACTION\n{"action": "calculator", "action_input": "2024 -"}' },
    { text: '<REPLANNING>\n1. Answer from the article.\n<REASONING>The calculator failed; the article is enough.\n<FINAL_ANSWER>\nPython appeared in 1991.' },
  ]);
  await ask(page, 'How old is Python?');
  await page.locator('.bubble.assistant').waitFor();
  const plans = page.getByTestId('plan');
  assert.equal(await plans.count(), 2);
  assert.deepEqual(await plans.nth(0).getByTestId('plan-item').evaluateAll((els) => els.map((e) => e.dataset.done)), ['true', 'false', 'false']);
  assert.deepEqual(await plans.nth(1).getByTestId('plan-item').evaluateAll((els) => els.map((e) => e.dataset.done)), ['true']);
  assert.deepEqual(await page.locator('[data-kind="plan"] .label').allTextContents(), ['Plan', 'Revised plan']);
  assert.equal(await page.getByTestId('plan-replaced').textContent(), 'Replaced by version 2.');
  const tones = await traceTones(page);
  assert.ok(tones.includes('tool_failed:error'), tones.join(' '));
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'Python appeared in 1991.');
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[0].body.messages[0].content, /\/\*PLANNING\*\//);
  await shot(page, 'strategy-plan-react');
  await context.close();
});

test('a question to the person is its own bubble, and the answer continues the same run', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('ask_person', 'Do you mean Python the language or the snake?')]);
  await ask(page, 'Tell me about Python');
  await page.locator('.bubble.asked-person').waitFor();
  assert.equal(await page.locator('.bubble.asked-person .text').textContent(), 'Do you mean Python the language or the snake?');
  let tones = await traceTones(page);
  assert.deepEqual(tones.slice(-2), ['clarify:neutral', 'run_stopped:neutral']);
  assert.match(await page.getByTestId('composer').getAttribute('placeholder'), /Answer the agent's question/);
  await script(env.server.origin, scope, [action('wikipedia', 'Python programming'), finalAnswer('Python is a programming language.')]);
  await ask(page, 'the language');
  await page.locator('.bubble.assistant').waitFor();
  tones = await traceTones(page);
  // One story: the first part stays, the reply and the rest follow.
  assert.ok(tones.indexOf('clarify:neutral') < tones.indexOf('person_replied:neutral'), tones.join(' '));
  assert.equal(tones.at(-1), 'run_stopped:success');
  // One count of steps across both parts: step 1 asked, steps 2 and 3 answered.
  assert.match(await page.getByTestId('trace-totals').textContent(), /^3 steps · 3 model calls · 1 tool call/);
  const sent = await requests(env.server.origin, scope);
  const prompt = sent[1].body.messages.at(-1).content;
  assert.match(prompt, /^Tell me about Python/, 'the original question is kept');
  assert.match(prompt, /ask_person/);
  assert.match(prompt, /Observation: The person answered your question: the language/);
  assert.deepEqual(await page.locator('.bubble .who').allTextContents(), ['You', '? Thoughtline asks', 'You', 'Thoughtline']);
  await shot(page, 'strategy-clarify');
  await context.close();
});

test('a question the agent asked survives a reload, and the reply still continues the run', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('ask_person', 'Which year?')]);
  await ask(page, 'Who won the World Cup?');
  await page.locator('.bubble.asked-person').waitFor();
  await page.reload();
  await page.locator('.bubble.asked-person').waitFor();
  await script(env.server.origin, scope, [finalAnswer('Argentina won in 2022.')]);
  await ask(page, '2022');
  await page.locator('.bubble.assistant').waitFor();
  const tones = await traceTones(page);
  assert.ok(tones.includes('person_replied:neutral'), tones.join(' '));
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[1].body.messages.at(-1).content, /^Who won the World Cup\?[\s\S]*The person answered your question: 2022/);
  await context.close();
});

test('the strategy and agent options are chosen in Settings, used by the next run, and kept', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('strategy').selectOption('plan_react');
  await page.getByTestId('ask-person').uncheck();
  await page.getByTestId('direct-answers').uncheck();
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [{ text: '/*FINAL_ANSWER*/ My tools cannot answer that.' }]);
  await ask(page, 'What is your favourite colour?');
  await page.locator('.bubble.assistant').waitFor();
  const system = (await requests(env.server.origin, scope))[0].body.messages[0].content;
  assert.match(system, /\/\*PLANNING\*\//);
  assert.doesNotMatch(system, /ask_person/);
  assert.match(system, /do not answer from memory/);
  await page.reload();
  await page.getByTestId('settings-toggle').click();
  assert.equal(await page.getByTestId('strategy').inputValue(), 'plan_react');
  assert.equal(await page.getByTestId('ask-person').isChecked(), false);
  assert.equal(await page.getByTestId('direct-answers').isChecked(), false);
  await context.close();
});

test('an answer without tools is shown as a direct answer', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [finalAnswer('Hello! How can I help?')]);
  await ask(page, 'Hi there');
  await page.locator('.bubble.assistant').waitFor();
  assert.equal(await page.locator('[data-kind="final_answer"] .label').textContent(), 'Direct answer');
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[0].body.messages[0].content, /If no tool fits the question, answer it directly/);
  await context.close();
});

test('Compare runs one question two ways side by side with a summary', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), finalAnswer('42 (ReAct)')], 'model-a');
  await script(env.server.origin, scope, [{ tool_calls: [{ name: 'calculator', arguments: { input: '6*7' } }] }, { text: '42 (native)' }], 'model-b');
  await page.getByTestId('compare-toggle').click();
  // Compare is a part fetched on use (src/ui/services/parts.rs): it appears once it has arrived.
  await page.getByTestId('compare').waitFor();
  assert.ok(await page.getByTestId('compare').isVisible());
  assert.ok(!(await page.getByTestId('composer').isVisible()), 'the chat is hidden while comparing');
  await page.getByTestId('compare-question').fill('What is 6*7?');
  await page.getByTestId('compare-strategy-a').selectOption('react');
  await page.getByTestId('compare-structured-a').check();
  await page.getByTestId('compare-model-a').fill('model-a');
  await page.getByTestId('compare-model-a').press('Tab');
  await page.getByTestId('compare-strategy-b').selectOption('tool_calling');
  await page.getByTestId('compare-model-b').fill('model-b');
  await page.getByTestId('compare-model-b').press('Tab');
  await page.getByTestId('compare-run').click();
  await page.getByTestId('compare-run').waitFor({ timeout: 20_000 });
  const rows = page.getByTestId('compare-row');
  assert.equal(await rows.count(), 2);
  assert.deepEqual(await page.getByTestId('compare-answer').allTextContents(), ['42 (ReAct)', '42 (native)']);
  assert.deepEqual(await page.getByTestId('compare-steps').allTextContents(), ['2', '2']);
  assert.deepEqual(await page.getByTestId('compare-llm-calls').allTextContents(), ['2', '2']);
  for (const t of await page.getByTestId('compare-tokens').allTextContents()) assert.ok(Number(t) > 0, t);
  for (const side of ['a', 'b']) {
    const tones = await page.getByTestId(`compare-trace-${side}`).getByTestId('event').evaluateAll((els) => els.map((e) => `${e.dataset.kind}:${e.dataset.tone}`));
    assert.ok(tones.includes('tool_result:success') && tones.at(-1) === 'run_stopped:success', `${side}: ${tones.join(' ')}`);
  }
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 4);
  assert.ok(sent.filter((r) => r.body.model === 'model-b').every((r) => r.body.tools), 'side B used native tools');
  assert.ok(sent.filter((r) => r.body.model === 'model-a').every((r) => !r.body.tools), 'side A used ReAct text');
  assert.ok(sent.filter((r) => r.body.model === 'model-a').every((r) => r.body.response_format?.type === 'json_schema'), 'side A asked for structured output');
  assert.ok(sent.filter((r) => r.body.model === 'model-b').every((r) => !r.body.response_format), 'side B did not');
  assert.match(await rows.nth(0).textContent(), /ReAct \(text \+ JSON action\) \+ structured output/);
  await shot(page, 'compare');
  await page.getByTestId('compare-toggle').click();
  assert.ok(await page.getByTestId('composer').isVisible());
  await context.close();
});
