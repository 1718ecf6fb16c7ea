// End to end against a real model server: llama-cpp-python with SmolLM2-135M, in the real page.
// A model this small rarely follows the ReAct format; the point is that whatever it writes, the
// run ends in a bounded number of steps with an answer (green) or a clear red message, streams
// its tokens into the trace, records token usage, and never hangs, panics or blanks the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, shot } from './harness.mjs';
import { startLlama, llamaSettings, askAndWait, exportedEvents } from './llama.mjs';

const env = suite();
let llama;
before(async () => { llama = await startLlama(); });
after(() => llama?.stop());

const MAX_STEPS = 4;
const QUESTION = 'Who was Albert Einstein?';

/** What every run against the real model must show, whatever the model wrote. */
async function assertBoundedRun(page, errors, outcome, { streamed }) {
  const { tones, last } = outcome;
  assert.equal(await page.locator('.fatal').count(), 0, 'no panic banner');
  assert.ok(await page.getByTestId('composer').isVisible(), 'the page is still there');
  const stopped = tones.filter((t) => t.startsWith('run_stopped:'));
  assert.equal(stopped.length, 1, tones.join(' '));
  const steps = tones.filter((t) => t === 'llm_request:pending').length;
  // A strategy fallback repeats the step it could not take.
  const allowed = MAX_STEPS + tones.filter((t) => t.startsWith('strategy_fallback')).length;
  assert.ok(steps >= 1 && steps <= allowed, `${steps} model calls: ${tones.join(' ')}`);
  if (stopped[0] === 'run_stopped:success') {
    assert.ok(tones.includes('final_answer:success'), tones.join(' '));
    assert.match(last.cls, /assistant/);
  } else {
    // The red ending says what happened and what to change.
    assert.match(last.cls, /problem/);
    assert.match(last.text, /Max iterations|format|Settings|model/i, last.text);
  }
  const events = await exportedEvents(page);
  const replies = events.filter((e) => e.kind.llm_response);
  assert.ok(replies.length >= 1);
  // Whole replies carry the server's counts; its streams carry none (checked by the caller).
  for (const r of replies.filter(() => !streamed)) {
    const usage = r.kind.llm_response.usage;
    assert.ok(usage && usage.prompt_tokens > 0 && usage.completion_tokens > 0, `token usage recorded: ${JSON.stringify(r.kind.llm_response)}`);
  }
  if (streamed) assert.ok(outcome.streamed > 0, 'tokens were streamed into the trace while the model wrote');
  // Parse errors, if any, were fed back to the model rather than ending the run.
  for (const e of events.filter((e) => e.kind.parse_failed)) assert.equal(e.kind.parse_failed.fed_back, true);
  assert.deepEqual(errors.filter((e) => !/favicon/.test(e)), []);
  return events;
}

test('a real llama.cpp server: streamed ReAct run ends bounded, green or with a clear red message', async () => {
  const { page, context, errors } = await openApp(env.browser, env.server.origin, {
    seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl, { stream: true, maxIterations: MAX_STEPS }),
  });
  const outcome = await askAndWait(page, QUESTION);
  await shot(page, 'llama-stream');
  const events = await assertBoundedRun(page, errors, outcome, { streamed: true });
  // llama-cpp-python reports no usage in streams (nor llama.cpp's timings): none is made up.
  assert.ok(events.filter((e) => e.kind.llm_response).every((e) => e.kind.llm_response.usage === undefined));
  assert.match(await page.getByTestId('trace-totals').textContent(), / · tokens — · /);
  await context.close();
});

test('a real llama.cpp server: the same with streaming off', async () => {
  const { page, context, errors } = await openApp(env.browser, env.server.origin, {
    seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl, { stream: false, maxIterations: MAX_STEPS }),
  });
  const outcome = await askAndWait(page, QUESTION);
  await shot(page, 'llama-no-stream');
  const events = await assertBoundedRun(page, errors, outcome, { streamed: false });
  // Whole replies carry the server's own counts.
  assert.ok(events.filter((e) => e.kind.llm_response).every((e) => !e.kind.llm_response.usage.estimated));
  await context.close();
});

test('a real llama.cpp server: Test connection says it answered', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, {
    seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl),
  });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('test-connection').click();
  const status = page.getByTestId('connection-status');
  await page.waitForFunction(() => !document.querySelector('[data-testid="test-connection"]').disabled, null, { timeout: 120_000 });
  assert.match(await status.textContent(), /^✓ Connected to smollm2-135m in \d+ ms/, await status.textContent());
  assert.equal(await status.getAttribute('class'), 'ok');
  await shot(page, 'llama-connection');
  await context.close();
});

test('a real llama.cpp server: structured output makes every step valid JSON', async () => {
  const { page, context, errors } = await openApp(env.browser, env.server.origin, {
    seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl, { stream: true, structured: true, maxIterations: MAX_STEPS }),
  });
  const outcome = await askAndWait(page, QUESTION);
  await shot(page, 'llama-structured');
  const events = await assertBoundedRun(page, errors, outcome, { streamed: true });
  // A request records what it adds to the one it builds on; `kept_tools` says its tools and
  // format are that request's, `base_back` events earlier.
  const formatAt = (i) => {
    const r = events[i].kind.llm_request.request;
    return r.kept_tools ? formatAt(i - r.base_back) : r.json_format;
  };
  const steps = events.flatMap((e, i) => (e.kind.llm_request?.purpose === 'step' ? [i] : []));
  assert.ok(steps.length > 0 && steps.every((i) => formatAt(i)?.schema?.properties?.action), 'every step asked for the JSON schema');
  // Each reply the server finished is one JSON object with the schema's keys: the action blob
  // can no longer be malformed. (A reply cut by max_tokens would be the one exception.)
  const replies = events.filter((e) => e.kind.llm_response).map((e) => e.kind.llm_response.text);
  const parsedOk = replies.filter((t) => { try { const v = JSON.parse(t); return typeof v.action === 'string'; } catch { return false; } });
  assert.ok(parsedOk.length >= 1, replies.join('\n---\n'));
  assert.ok(events.filter((e) => e.kind.parse_failed).length <= replies.length - parsedOk.length, 'only cut-off replies could fail to parse');
  await context.close();
});

for (const strategy of ['tool_calling', 'plan_react']) {
  test(`a real llama.cpp server: the ${strategy} strategy also ends bounded`, async () => {
    const { page, context, errors } = await openApp(env.browser, env.server.origin, {
      seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl, { stream: true, strategy, maxIterations: MAX_STEPS }),
    });
    const outcome = await askAndWait(page, QUESTION);
    await shot(page, `llama-${strategy}`);
    const events = await assertBoundedRun(page, errors, outcome, { streamed: true });
    const first = events.find((e) => e.kind.llm_request).kind.llm_request.request;
    if (strategy === 'tool_calling') assert.ok(first.tools.length > 0, 'the tools went out as functions');
    else assert.match(first.messages[0].content, /\/\*PLANNING\*\//);
    await context.close();
  });
}

test('a real llama.cpp server: an evaluation of five cases ends every case, each scored as its answer warrants', async () => {
  const { page, errors } = await openApp(env.browser, env.server.origin, {
    seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl, { stream: false, maxIterations: 2 }),
  });
  const set = [
    { question: 'What is 2 + 2?', expected: '4', scorer: 'contains' },
    { question: 'Name the capital of France.', expected: 'Paris', scorer: 'contains' },
    { question: 'What colour is the sky on a clear day?', expected: 'blue', scorer: 'contains' },
    { question: 'Say hello.', scorer: 'answered' },
    { question: 'Is water wet? Answer yes or no.', expected: '(?i)\\b(yes|no)\\b', scorer: 'regex' },
  ].map((c) => JSON.stringify(c)).join('\n');
  await page.getByTestId('evaluate').click();
  await page.getByTestId('eval-set-text').fill(set);
  await page.getByTestId('eval-set-text').press('Tab');
  await page.getByTestId('eval-name').fill('Five with a small model');
  await page.getByTestId('eval-run').click();
  await page.waitForFunction(() => /^5 of 5 done/.test(document.querySelector('[data-testid="eval-progress"]')?.textContent ?? ''), null, { timeout: 420_000 });
  await shot(page, 'llama-evaluation');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('eval-export').click()]);
  const lines = (await import('node:fs')).readFileSync(await download.path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 5, 'every case ended');
  // The verdicts are the ones the answers warrant, whatever the model wrote.
  const flat = (s) => s.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
  for (const l of lines) {
    const answered = l.outcome === 'answer';
    const warranted = {
      contains: () => answered && flat(l.answer).includes(flat(l.expected)),
      answered: () => answered,
      regex: () => answered && /\b(yes|no)\b/i.test(l.answer),
    }[l.scores[0].scorer]();
    assert.equal(l.pass, warranted, `${l.question} → ${l.outcome}: ${l.answer} (${l.scores[0].reason})`);
    assert.ok(l.scores[0].reason.length > 0);
  }
  const passed = lines.filter((l) => l.pass).length;
  assert.deepEqual(await page.getByTestId('eval-pass-rate').allTextContents(), [`${passed}/5 passed`]);
  assert.equal(await page.locator('.fatal').count(), 0, 'no panic banner');
  assert.deepEqual(errors.filter((e) => !/favicon/.test(e)), []);
});

test('a real llama.cpp server: a question only a dropped document answers ends with a documents call, bounded, found by words and by meaning', async () => {
  // A server of its own, with embeddings on: the provider in Settings gives meaning search too.
  const server = await startLlama({ embedding: true });
  try {
    const { page, context, errors } = await openApp(env.browser, env.server.origin, {
      seed: (scopeUrl) => {
        const settings = llamaSettings(server.base, scopeUrl, { stream: false, structured: true, maxIterations: MAX_STEPS });
        // The documents are the only tool, and structured output holds each step to a tool call
        // or an answer: SmolLM2-135M writes no ReAct step of its own that names the tool.
        settings.tools.wikipedia.common.enabled = false;
        settings.tools.calculator.enabled = false;
        return settings;
      },
    });
    await page.getByTestId('documents').click();
    await page.getByTestId('documents-meaning-model').fill('smollm2-135m');
    await page.getByTestId('documents-meaning').check();
    // Dropped, as a person drops a file from their desktop onto the drop area.
    const file = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['# House notes\n\n## The blue door\n\nThe code of the blue door is 4817. Change it every spring.\n\n## The garden tap\n\nThe tap is turned off at the stopcock under the sink from November.\n'], 'house-notes.md', { type: 'text/markdown' }));
      return data;
    });
    await page.getByTestId('documents-drop').dispatchEvent('drop', { dataTransfer: file });
    await page.locator('[data-testid="document"][data-state="ready"]').waitFor();
    await page.getByTestId('document-meaning').filter({ hasText: 'Searchable by meaning (smollm2-135m)' }).waitFor({ timeout: 120_000 });
    await page.getByTestId('documents-close').click();
    const outcome = await askAndWait(page, 'Use the documents tool: what is the code of the blue door?');
    const events = await assertBoundedRun(page, errors, outcome, { streamed: false });
    const calls = events.filter((e) => e.kind.tool_call).map((e) => e.kind.tool_call.tool);
    const found = events.filter((e) => e.kind.tool_result?.tool === 'documents').map((e) => e.kind.tool_result.observation);
    const ended = events.filter((e) => e.kind.run_stopped).map((e) => JSON.stringify(e.kind.run_stopped));
    console.log(`# documents with the real model: calls ${JSON.stringify(calls)}; ended ${ended}; answer: ${outcome.last.text}`);
    assert.ok(calls.includes('documents'), `the model searched the documents: ${outcome.tones.join(' ')}`);
    assert.ok(found.some((o) => /found by words and by meaning \(smollm2-135m\)/.test(o)), `meaning search was used: ${found[0]}`);
    assert.ok(found.some((o) => /\[1\] house-notes\.md[\s\S]*4817/.test(o)), 'the passage with the code was given to the model');
    await context.close();
  } finally {
    server.stop();
  }
});
