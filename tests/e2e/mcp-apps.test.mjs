// Views of tools' results (MCP Apps), with the official example server of
// @modelcontextprotocol/ext-apps (server-basic-vanillajs, its tool get-time and its view) on
// loopback: the view is shown under the answer in the sandbox proxy's frame and gets the
// call's result; its button calls the server's tool through the page, asking first; its
// message goes to the composer and its link opens only when the person agrees; the frame
// reaches neither the page's storage nor any origin its policy does not allow; Close tells it
// and takes it away.
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
