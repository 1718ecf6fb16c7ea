// Views of tools' results (MCP Apps), with two official example servers of
// @modelcontextprotocol/ext-apps on loopback. With server-basic-vanillajs (its tool get-time and
// its view): the view is shown under the answer in the sandbox proxy's frame and gets the
// call's result; its button calls the server's tool through the page, asking first; its
// message goes to the composer and its link opens only when the person agrees; the frame
// reaches neither the page's storage nor any origin its policy does not allow; Close tells it
// and takes it away. With server-budget-allocator: a form of sliders and a Chart.js chart, drawn
// from the call's structured result, that answer the person's moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAppServer } from './mcp-server.mjs';
import { connect } from './mcp-settings.mjs';
import { suite, openApp, script, requests, ask, loopbackSettings, action, takeCspViolations } from './harness.mjs';

const env = suite();
const finalAnswer = (text) => ({ text: `Thought: I can answer now.\nFinal Answer: ${text}` });

/** The view's own frame: the one inside the sandbox proxy's. */
async function viewFrame(page) {
  for (let i = 0; i < 150; i++) {
    const proxy = page.frames().find((f) => f.url().endsWith('/sandbox.html'));
    const inner = proxy?.childFrames()[0];
    if (inner) return { proxy, inner };
    await page.waitForTimeout(100);
  }
  throw new Error(`no view's frame among ${page.frames().map((f) => f.url()).join(', ')}`);
}

test('an MCP App: shown with its result, its tool called through the page with approval, its message and link with the person, sandboxed', async () => {
  const server = await startAppServer('server-basic-vanillajs');
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  assert.ok((await connect(page, server.url, { ask: true })).ok);
  assert.equal(await page.getByTestId('mcp-approval-0-get-time').inputValue(), 'ask');
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [action('get-time', {}), finalAnswer('The server told the time.')]);
  await ask(page, 'What time is it on the server?');
  await page.getByTestId('approval').waitFor();
  await page.getByTestId('approval-once').click();
  await page.locator('.bubble.assistant').waitFor();
  // The model got the text result, as from any tool.
  const sent = await requests(env.server.origin, scope);
  const observed = sent[1].body.messages.at(-1).content.match(/Observation: (\S+)/)[1];
  assert.match(observed, /^\d{4}-\d\d-\d\dT/);

  // The view, under the answer, shows the call's result.
  await page.getByTestId('mcp-app').waitFor();
  assert.equal(await page.getByTestId('mcp-app').getAttribute('sandbox'), 'allow-scripts');
  const { proxy, inner } = await viewFrame(page);
  // The call's step in the trace says it has a view, and brings it into sight.
  const link = page.locator('[data-testid="event"][data-kind="tool_result"] [data-testid="row-view"]');
  await link.waitFor();
  await link.click();
  await inner.waitForFunction((time) => document.getElementById('server-time')?.textContent.includes(time), observed, { timeout: 15_000 });

  // Its button calls get-time through the page; the tool asks first, so the person is asked.
  await inner.click('#get-time-btn');
  await page.getByTestId('mcp-app-ask').waitFor();
  assert.match(await page.getByTestId('mcp-app-ask').textContent(), /asks to call get-time/);
  await page.getByTestId('mcp-app-allow').click();
  await inner.waitForFunction((time) => !document.getElementById('server-time').textContent.includes(time) && /\d{4}-/.test(document.getElementById('server-time').textContent), observed);
  const second = await inner.textContent('#server-time');
  // Denied: the view hears the refusal, and nothing is called.
  await inner.click('#get-time-btn');
  await page.getByTestId('mcp-app-deny').click();
  await inner.waitForFunction(() => document.getElementById('server-time').textContent === '[ERROR]');
  assert.ok(second.length > 0);

  // Its message waits in the composer; its link opens only after the person agrees.
  await inner.fill('#message-text', 'What time is it in Tokyo?');
  await inner.click('#send-message-btn');
  await page.waitForFunction(() => document.querySelector('[data-testid="composer"]').value === 'What time is it in Tokyo?');
  const target = `${env.server.origin}/favicon.ico`;
  await inner.fill('#link-url', target);
  await inner.click('#open-link-btn');
  await page.getByTestId('mcp-app-ask').waitFor();
  assert.match(await page.getByTestId('mcp-app-ask').textContent(), /asks to open/);
  const [opened] = await Promise.all([context.waitForEvent('page'), page.getByTestId('mcp-app-allow').click()]);
  await opened.waitForLoadState();
  assert.equal(opened.url(), target);
  assert.equal(await opened.evaluate(() => window.opener), null);
  await opened.close();

  // The sandbox: no storage, no way up to the page, no origin its policy does not allow.
  await page.evaluate(() => localStorage.setItem('thoughtline.canary', 'secret-canary'));
  for (const frame of [proxy, inner]) {
    assert.equal(await frame.evaluate(() => { try { return localStorage.getItem('thoughtline.canary'); } catch (e) { return e.name; } }), 'SecurityError');
    assert.equal(await frame.evaluate(() => { try { return indexedDB.open('thoughtline') && 'opened'; } catch (e) { return e.name; } }), 'SecurityError');
    assert.equal(await frame.evaluate(() => { try { return window.top.document.title; } catch (e) { return e.name; } }), 'SecurityError');
  }
  assert.equal(await inner.evaluate(() => origin), 'null', 'an opaque origin');
  const reached = await inner.evaluate(async (url) => { try { await fetch(url); return 'reached'; } catch { return 'blocked'; } }, `${env.server.origin}/`);
  assert.equal(reached, 'blocked', 'the view declared no origins: its policy allows none');
  // The refusal was the view's policy at work (and is no violation of the page's own).
  const refused = [];
  for (let i = 0; i < 40 && !refused.some((v) => v.startsWith('CSP violation: connect-src')); i++) {
    await page.waitForTimeout(50);
    refused.push(...takeCspViolations());
  }
  assert.ok(refused.length > 0 && refused.every((v) => /connect-src|Refused to connect/.test(v)), refused.join('\n'));
  const policy = await inner.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content);
  assert.match(policy, /connect-src 'none'/);

  // Close: the view is told (it says so on its console), then taken away.
  const tornDown = page.waitForEvent('console', { predicate: (m) => m.text().includes('App is being torn down'), timeout: 10_000 });
  await page.getByTestId('mcp-app-close').click();
  await tornDown;
  await page.getByTestId('mcp-app-view').waitFor({ state: 'detached' });
  // The view's own code logs what it meets (the refused call, its reads of storage failing in
  // the sandbox): the page's own errors are none.
  // The test's own fetch from the view, refused by its policy, is said too.
  const own = (e) => e.endsWith('[about:srcdoc]') || /sandboxed and lacks the 'allow-same-origin' flag/.test(e) || /connect-src/.test(e) || /Refused to connect/.test(e);
  assert.deepEqual(errors.filter((e) => !own(e)), []);
  await context.close();
  await server.stop();
});

test('an MCP App with a chart and a form: drawn from the call\'s structured result, and it answers the person', async () => {
  const server = await startAppServer('server-budget-allocator');
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  assert.ok((await connect(page, server.url)).ok);
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [action('get-budget-data', {}), finalAnswer('Here is the budget.')]);
  await ask(page, 'Show me the budget');
  await page.locator('.bubble.assistant').waitFor();
  // The model got the tool's text, which names the categories the view draws.
  const sent = await requests(env.server.origin, scope);
  const observed = sent[1].body.messages.at(-1).content;
  assert.match(observed, /Marketing/);

  await page.getByTestId('mcp-app').waitFor();
  const { inner } = await viewFrame(page);
  // One slider per category of the result, the chart drawn, the budget balanced at first.
  await inner.waitForFunction(() => document.querySelectorAll('.slider-row').length === 5, null, { timeout: 15_000 });
  const names = await inner.$$eval('.slider-row .label-text', (all) => all.map((e) => e.textContent));
  assert.deepEqual(names, ['Marketing', 'Engineering', 'Operations', 'Sales', 'R&D']);
  for (const name of names) assert.ok(observed.includes(name), `${name} in the tool's text`);
  assert.ok(await inner.evaluate(() => document.getElementById('budget-chart').width > 0), 'the chart is drawn');
  assert.match(await inner.textContent('#status-bar'), /Allocated: \$100,000 \/ \$100,000/);
  // A slider moved: the row, the total and the state follow.
  await inner.$eval('.slider-row .slider', (slider) => {
    slider.value = '60';
    slider.dispatchEvent(new Event('input'));
  });
  await inner.waitForFunction(() => /Over/.test(document.getElementById('status-bar').textContent));
  assert.equal(await inner.textContent('.slider-row .percent'), '60.0%');
  // A preset budget from the result's own list.
  const presets = await inner.$$eval('#budget-selector option', (all) => all.map((o) => o.value));
  assert.deepEqual(presets, ['50000', '100000', '250000', '500000']);
  await inner.selectOption('#budget-selector', '250000');
  await inner.waitForFunction(() => /\/ \$250,000/.test(document.getElementById('status-bar').textContent));

  const own = (e) => e.endsWith('[about:srcdoc]') || /sandboxed and lacks the 'allow-same-origin' flag/.test(e);
  assert.deepEqual(errors.filter((e) => !own(e)), []);
  await context.close();
  await server.stop();
});
