// End-to-end tests of what a person does around a run: export and import it, copy it as
// Markdown, test the connection, change the agent's limits and prompt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, openApp, script, requests, ask, shot, loopbackSettings, traceTones, action, exportMenu } from './harness.mjs';

const env = suite();

test('export then import shows the same trace, without the key', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
  await ask(page, 'What is six times seven?');
  await page.locator('.bubble.assistant').waitFor();
  const before = await traceTones(page);
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  const file = await download.path();
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(!text.includes('sk-test'), 'the key is not in the export');
  const exported = JSON.parse(text);
  assert.equal(exported.format, 'thoughtline.run');
  assert.deepEqual(exported.runs.map((r) => r.outcome), [{ kind: 'answer', text: '42' }]);

  // A fresh page with no settings at all opens it.
  const fresh = await openApp(env.browser, env.server.origin);
  await fresh.page.getByTestId('import').setInputFiles(file);
  await fresh.page.locator('.bubble.assistant').waitFor();
  // The rows are a part of the page: a fresh page draws them once it has fetched it.
  await fresh.page.waitForFunction((n) => document.querySelectorAll('[data-testid="event"]').length === n, before.length);
  assert.deepEqual(await traceTones(fresh.page), before);
  assert.equal(await fresh.page.locator('.bubble.user .text').textContent(), 'What is six times seven?');
  assert.equal(await fresh.page.locator('.bubble.assistant .text').textContent(), '42');
  await shot(fresh.page, 'imported');
  await fresh.context.close();
  await context.close();
});

test('importing a file that is not a run says so', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin);
  await page.getByTestId('import').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
  await page.getByText('not a Thoughtline export').waitFor();
  await context.close();
});

test('the trace copies as Markdown', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.origin });
  await script(env.server.origin, scope, [{ text: 'Final Answer: copied' }]);
  await ask(page, 'Copy me');
  await page.locator('.bubble.assistant').waitFor();
  await exportMenu(page);
  await page.getByTestId('copy-markdown').click();
  await page.getByText('Copied as Markdown.').waitFor();
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  // No tool was used, so the answer is labelled a direct answer.
  assert.match(clip, /\*\*Question:\*\* Copy me/);
  assert.match(clip, /\*\*Direct answer:\*\*\n\ncopied\n\n_step 1/);
  await context.close();
});

test('Test connection reports success and the precise error', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'OK' }, { status: 401, fixture: 'openai/error_401_invalid_api_key.json' }]);
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('test-connection').click();
  await page.getByText(/✓ Connected to test-model in \d+ ms\. The model said: "OK"/).waitFor();
  await page.getByTestId('test-connection').click();
  await page.getByText(/✗ The provider refused the API key \(HTTP 401\)/).waitFor();
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent[0].body.max_tokens, 16);
  await shot(page, 'connection-test');
  await context.close();
});

test('the iteration limit stops a looping model with a red, actionable message', async () => {
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), agent: { max_iterations: 2 } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [action('calculator', '1+1'), action('calculator', '2+2'), { text: 'Final Answer: never asked' }]);
  await ask(page, 'Loop for me');
  await page.locator('.bubble.problem').waitFor();
  assert.match(await page.locator('.bubble.problem').textContent(), /Stopped after 2 steps without a final answer\. Raise "Max iterations" in Settings/);
  assert.equal((await traceTones(page)).at(-1), 'run_stopped:error');
  assert.equal((await requests(env.server.origin, scope)).length, 2);
  await context.close();
});

test('a parse error is red, fed back, and the model recovers (green)', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  // A Thought with no action or answer is a format error (plain prose would be read as a direct answer).
  await script(env.server.origin, scope, [{ text: 'Thought: I will just ramble, with no action.' }, { text: 'Thought: fixed.\nFinal Answer: recovered' }]);
  await ask(page, 'Test recovery');
  await page.locator('.bubble.assistant').waitFor();
  const tones = await traceTones(page);
  assert.ok(tones.includes('parse_failed:error'), tones.join(' '));
  assert.equal(tones.at(-1), 'run_stopped:success');
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[1].body.messages.at(-1).content, /Observation: .+/);
  await shot(page, 'parse-recovery');
  await context.close();
});

test('plain prose without the format is shown as a direct answer, labelled so', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Lima is the capital of Peru.' }]);
  await ask(page, 'What is the capital of Peru?');
  await page.locator('.bubble.assistant').waitFor();
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'Lima is the capital of Peru.');
  const tones = await traceTones(page);
  assert.ok(!tones.includes('parse_failed:error'), tones.join(' '));
  const label = await page.locator('[data-testid="event"][data-kind="final_answer"] .label').textContent();
  assert.equal(label, 'Direct answer');
  assert.equal((await requests(env.server.origin, scope)).length, 1);
  await context.close();
});

test('the system prompt can be edited and reset', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await page.getByTestId('settings-toggle').click();
  const editor = page.getByTestId('system-template');
  assert.match(await editor.inputValue(), /\{tools\}/);
  await editor.fill('Be brief. Tools: {tool_names}');
  await editor.press('Tab');
  assert.match(await page.getByTestId('template-problems').textContent(), /no \{tools\} placeholder/);
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [{ text: 'Final Answer: brief' }]);
  await ask(page, 'Hi');
  await page.locator('.bubble.assistant').waitFor();
  const sent = await requests(env.server.origin, scope);
  // The built-in ask_person tool is named too (clarifying questions are on by default).
  assert.equal(sent[0].body.messages[0].content, 'Be brief. Tools: wikipedia, arxiv, calculator, web_search, ask_person');
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('reset-template').click();
  assert.match(await page.getByTestId('system-template').inputValue(), /You are Thoughtline/);
  await context.close();
});

test('the answer can be copied, the trace shows totals, and the theme can be switched', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.origin });
  await script(env.server.origin, scope, [action('calculator', '2+2'), { text: 'Final Answer: four' }]);
  await ask(page, 'Two plus two?');
  await page.locator('.bubble.assistant').waitFor();
  await page.getByTestId('copy-answer').click();
  await page.getByText('Copied ✓').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'four');
  assert.match(await page.getByTestId('trace-totals').textContent(), /^2 steps · 2 model calls · 1 tool call · \d+ in · \d+ out tokens · \d+\.\d s$/);

  const theme = page.getByTestId('theme-toggle');
  assert.equal(await theme.textContent(), '◐ Auto');
  await theme.click();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  await theme.click();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(15, 18, 25)');
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  await shot(page, 'dark-theme');
  await context.close();
});

test('the trace follows a long run but stops following when scrolled up', async () => {
  const steps = 25;
  const replies = Array.from({ length: steps }, (_, i) => ({ ...action('calculator', `${i}+1`), chunk_delay_ms: 5 }));
  replies.push({ text: 'Final Answer: done', chunk_delay_ms: 5 });
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), agent: { max_iterations: 40, repeat_limit: 100 } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed, viewport: { width: 1280, height: 700 } });
  await script(env.server.origin, scope, replies);
  await ask(page, 'Count for me');
  const pane = page.getByRole('region', { name: 'Agent trace' });
  await page.waitForFunction(() => document.querySelectorAll('[data-kind="tool_result"]').length >= 5);
  // Following: the pane reaches the bottom as rows arrive (a frame or two after each).
  await pane.evaluate((el) => new Promise((resolve, reject) => {
    const end = Date.now() + 10_000;
    const check = () => {
      if (el.scrollTop + el.clientHeight >= el.scrollHeight - 60) resolve();
      else if (Date.now() > end) reject(new Error('following the run: the pane never reached the bottom'));
      else requestAnimationFrame(check);
    };
    check();
  }));
  await pane.evaluate((el) => el.scrollTo(0, 0));
  await page.waitForFunction(() => document.querySelectorAll('[data-kind="tool_result"]').length >= 12);
  assert.equal(await pane.evaluate((el) => el.scrollTop), 0, 'stays where the person scrolled');
  await page.locator('.bubble.assistant').waitFor();
  assert.equal(await page.locator('[data-kind="tool_result"]').count(), steps);
  await context.close();
});

test('trace colours and muted text meet WCAG AA contrast in light and dark themes', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  // An unknown tool gives a red event; the calculator a blue call and a green result.
  await script(env.server.origin, scope, [action('google', 'x'), action('calculator', '1+1'), { text: 'Final Answer: ok' }]);
  await ask(page, 'Contrast check');
  await page.locator('.bubble.assistant').waitFor();
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
    const ratios = await page.evaluate(() => {
      const rgb = (c) => c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
      const lum = (c) => {
        const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ratio = (fg, bg) => { const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x); return (a + 0.05) / (b + 0.05); };
      const pairs = {
        pending: ['.event.tone-pending .label', '.event.tone-pending'],
        success: ['.event.tone-success .label', '.event.tone-success'],
        error: ['.event.tone-error .event-summary', '.event.tone-error'],
        muted: ['.event .meta', '.event.tone-neutral'],
        body: ['.event.tone-neutral .event-summary', '.event.tone-neutral'],
      };
      const out = {};
      for (const [name, [fgSel, bgSel]] of Object.entries(pairs)) {
        const fg = document.querySelector(fgSel);
        const bg = document.querySelector(bgSel);
        out[name] = ratio(getComputedStyle(fg).color, getComputedStyle(bg).backgroundColor);
      }
      return out;
    });
    for (const [name, r] of Object.entries(ratios)) {
      assert.ok(r >= 4.5, `${theme} ${name}: contrast ${r.toFixed(2)} < 4.5`);
    }
  }
  await context.close();
});
