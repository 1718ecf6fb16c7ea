// End-to-end tests of where secrets go and of the limits on what comes back: a key stays with
// the provider it was entered for, a server echoing the key leaves it nowhere, redirects are
// refused, stalled and endless replies end, oversized imports are refused, and the page runs
// under its Content-Security-Policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suite, launch, openApp, script, requests, seen, configure, ask, shot, loopbackSettings, storedText, takeCspViolations, untilStored, exportMenu } from './harness.mjs';

const env = suite();

/** The origin of the loopback server under another name: another origin, the same server. */
const asLocalhost = (origin) => origin.replace('127.0.0.1', 'localhost');

async function openSettings(page) {
  if (!(await page.getByTestId('settings').count())) await page.getByTestId('settings-toggle').click();
}

async function setField(page, testid, value) {
  await page.getByTestId(testid).fill(value);
  await page.getByTestId(testid).press('Tab');
}

test('a key entered for one provider is never sent to another', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin);
  const here = `${env.server.origin}/s/${scope}/v1`;
  const elsewhere = `${asLocalhost(env.server.origin)}/s/${scope}/v1`;
  await configure(page, { base: here, key: 'tl-key-of-provider-a-1234' });
  await openSettings(page);
  // Another preset shows its own key: none.
  await page.getByTestId('preset').selectOption('openai');
  assert.equal(await page.getByTestId('api-key').inputValue(), '');
  // A local server preset, pointed at another origin: still none, and none is sent.
  await page.getByTestId('preset').selectOption('llamacpp');
  await setField(page, 'base-url', elsewhere);
  await setField(page, 'model', 'test-model');
  assert.equal(await page.getByTestId('api-key').inputValue(), '');
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [{ text: 'Final Answer: hello from B' }]);
  await ask(page, 'Who are you?');
  await page.locator('.bubble.assistant').waitFor();
  const sent = await requests(env.server.origin, scope);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers.authorization, undefined, 'provider B received no key');
  assert.ok(!JSON.stringify(sent).includes('tl-key-of-provider-a'), 'the key of A went nowhere near B');
  // Back to provider A: its key is there again.
  await openSettings(page);
  await page.getByTestId('preset').selectOption('custom');
  await setField(page, 'base-url', here);
  assert.equal(await page.getByTestId('api-key').inputValue(), 'tl-key-of-provider-a-1234');
  await context.close();
});

test('a key is not sent over plain http to another machine until the person agrees', async () => {
  // provider.test resolves to the loopback server, but by name it is another machine.
  const browser = await launch(['--host-resolver-rules=MAP provider.test 127.0.0.1']);
  try {
    const { page, context, scope } = await openApp(browser, env.server.origin);
    const port = new URL(env.server.origin).port;
    await configure(page, { base: `http://provider.test:${port}/s/${scope}/v1`, key: 'tl-plain-http-key-5678' });
    await openSettings(page);
    await page.getByTestId('plain-http-warning').waitFor();
    assert.match(await page.getByTestId('plain-http-warning').textContent(), /plain http:\/\/ to provider\.test/);
    await shot(page, 'plain-http-warning');
    await page.getByTestId('settings-close').click();
    await ask(page, 'Anyone there?');
    await page.locator('.bubble.problem').waitFor();
    assert.match(await page.locator('.bubble.problem').textContent(), /unencrypted/);
    assert.equal((await requests(env.server.origin, scope)).length, 0, 'nothing was sent');
    await openSettings(page);
    await page.getByTestId('plain-http-ok').check();
    await page.getByTestId('settings-close').click();
    await script(env.server.origin, scope, [{ text: 'Final Answer: heard you' }]);
    await ask(page, 'Now?');
    await page.locator('.bubble.assistant').waitFor();
    const sent = await requests(env.server.origin, scope);
    assert.equal(sent[0].headers.authorization, 'Bearer tl-plain-http-key-5678');
    await context.close();
  } finally {
    await browser.close();
  }
});

/** Runs one question whose reply echoes the key, then looks for the key everywhere it could land. */
async function echoCase(name, { preset = 'custom', stream = true, reply, key }) {
  const { page, context, scope } = await openApp(env.browser, env.server.origin);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.origin });
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('preset').selectOption(preset);
  await setField(page, 'base-url', preset === 'anthropic' ? `${env.server.origin}/s/${scope}` : `${env.server.origin}/s/${scope}/v1`);
  await setField(page, 'model', 'test-model');
  await setField(page, 'api-key', key);
  if (!stream) await page.getByTestId('stream').uncheck();
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [reply]);
  await ask(page, 'Hello?');
  await page.locator('.bubble.problem').waitFor();
  const sent = await requests(env.server.origin, scope);
  assert.ok(JSON.stringify(sent[0].headers).includes(key), `${name}: the key was sent to its provider`);

  const where = [];
  const html = await page.evaluate(() => document.documentElement.outerHTML);
  if (html.includes(key)) where.push('DOM');
  await untilStored(page, ['Hello?', 'run_stopped']);
  if ((await storedText(page)).includes(key)) where.push('storage');
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  if (fs.readFileSync(await download.path(), 'utf8').includes(key)) where.push('export');
  await exportMenu(page);
  await page.getByTestId('copy-markdown').click();
  await page.getByText('Copied as Markdown.').waitFor();
  if ((await page.evaluate(() => navigator.clipboard.readText())).includes(key)) where.push('Markdown copy');
  assert.deepEqual(where, [], `${name}: the echoed key leaked`);
  // The message still says what happened.
  assert.match(await page.locator('.bubble.problem').textContent(), /key/i);
  await shot(page, `echo-${name}`);
  return { page, context, scope };
}

test('a 401 that echoes the key (whole reply, in a stream, Anthropic) leaves it nowhere', async () => {
  const whole = await echoCase('whole', { stream: false, reply: { status: 401, echo_key: true }, key: 'tl-echoed-whole-abc123' });
  // Test connection shows the provider's message too, masked the same way.
  await script(env.server.origin, whole.scope, [{ status: 401, echo_key: true }]);
  await openSettings(whole.page);
  await whole.page.getByTestId('test-connection').click();
  await whole.page.getByText(/✗ The provider refused the API key/).waitFor();
  assert.ok(!(await whole.page.getByTestId('connection-status').textContent()).includes('tl-echoed-whole-abc123'));
  await whole.context.close();
  const streamed = await echoCase('stream', { reply: { stream_error_echo: true }, key: 'tl-echoed-stream-def456' });
  await streamed.context.close();
  const anthropic = await echoCase('anthropic', { preset: 'anthropic', reply: { status: 401, echo_key: true }, key: 'tl-echoed-claude-ghi789' });
  await anthropic.context.close();
});

test('a redirect is refused, naming its target, and the key does not follow it', async () => {
  const { page, context, scope, base } = await openApp(env.browser, env.server.origin);
  const target = `${env.server.origin}/s/${scope}/elsewhere/v1/chat/completions`;
  await configure(page, { base, key: 'tl-redirect-key-424242' });
  await openSettings(page);
  await page.getByTestId('extra-headers').fill('X-Proxy-Token: tl-proxy-token-777777');
  await page.getByTestId('extra-headers').press('Tab');
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [{ redirect: 307, location: target }, { text: 'Final Answer: should never be asked' }]);
  await ask(page, 'Where are you?');
  await page.locator('.bubble.problem').waitFor();
  const problem = await page.locator('.bubble.problem').textContent();
  assert.ok(problem.includes(`redirect to ${target}`), problem);
  const atTarget = (await seen(env.server.origin, scope)).filter((r) => r.path.includes('/elsewhere/'));
  assert.ok(atTarget.every((r) => r.method === 'GET'), 'no request was re-sent to the target');
  const leaked = JSON.stringify(atTarget);
  assert.ok(!leaked.includes('tl-redirect-key') && !leaked.includes('tl-proxy-token'), leaked);
  await context.close();
});

test('an error status whose body stalls ends at the timeout', async () => {
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), connection: { timeout_s: 2 } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [{ status: 401, stall_body: true }]);
  const started = Date.now();
  await ask(page, 'Hello?');
  await page.locator('.bubble.problem').waitFor({ timeout: 20000 });
  assert.ok(Date.now() - started < 15000, 'ended near the 2 s silence limit');
  assert.match(await page.locator('.bubble.problem').textContent(), /refused the API key \(HTTP 401\)/);
  await context.close();
});

test('silence after part of a streamed reply ends at the timeout, and the part is not an answer', async () => {
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), connection: { timeout_s: 2 } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [{ text: 'Final Answer: this answer stops halfway through', stall_after: 3 }]);
  await ask(page, 'Tell me');
  await page.locator('.bubble.problem').waitFor({ timeout: 20000 });
  assert.match(await page.locator('.bubble.problem').textContent(), /stopped sending for 2 s in the middle of its reply/);
  assert.equal(await page.locator('.bubble.assistant').count(), 0, 'a cut reply is not shown as the answer');
  await context.close();
});

test('an endless stream is cut at the size limit', async () => {
  const seed = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), connection: { max_reply_kb: 64 } });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
  await script(env.server.origin, scope, [{ endless: true }]);
  await ask(page, 'Talk forever');
  await page.locator('.bubble.problem').waitFor({ timeout: 20000 });
  assert.match(await page.locator('.bubble.problem').textContent(), /passed 64 KB, the limit set in Settings/);
  let sent = await requests(env.server.origin, scope);
  for (let i = 0; i < 20 && !sent[0].aborted; i++) {
    await page.waitForTimeout(100);
    sent = await requests(env.server.origin, scope);
  }
  assert.equal(sent[0].aborted, true, 'the endless request was aborted');
  await context.close();
});

test('429 and 503 show retry rows in the trace, then the answer', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [
    { status: 429, fixture: 'openai/error_429_rate_limit_exceeded_RECONSTRUCTED.json', retry_after: 1 },
    { status: 503, body: '{"error": {"message": "overloaded"}}' },
    { text: 'Final Answer: third time lucky' },
  ]);
  await ask(page, 'Busy?');
  await page.locator('.bubble.assistant').waitFor({ timeout: 20000 });
  const retries = page.locator('[data-kind="llm_retry"]');
  assert.equal(await retries.count(), 2);
  assert.match(await retries.nth(0).textContent(), /Attempt 1 failed \(HTTP 429\); trying again in 1\.0 s/);
  assert.match(await retries.nth(1).textContent(), /Attempt 2 failed \(HTTP 503\)/);
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'third time lucky');
  await context.close();
});

test('an oversized import is refused with a message', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin);
  // A well-formed export whose question alone is 21 MB.
  const run = { format: 'thoughtline.run', version: 1, exported_unix_ms: 0, question: 'q'.repeat(21 * 1024 * 1024), answer: 'a', settings: {}, trace: { events: [] } };
  await page.getByTestId('import').setInputFiles({ name: 'huge.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(run)) });
  await page.getByText(/opens exported runs of up to 20 MB, so it was not read/).waitFor();
  assert.equal(await page.getByTestId('message').count(), 0);
  await context.close();
});

test('the live reply is appended to, not rewritten per token', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: `Thought: ${'streaming along nicely '.repeat(6)}\nFinal Answer: streamed`, chunk_delay_ms: 25 }]);
  await page.evaluate(() => {
    window.__rewrites = 0;
    window.__appends = 0;
    new MutationObserver((records) => {
      for (const r of records) {
        const inStream = (n) => n && (n.nodeType === 1 ? n : n.parentElement)?.closest?.('pre.stream');
        if (r.type === 'characterData' && inStream(r.target)) window.__rewrites++;
        if (r.type === 'childList' && r.target.matches?.('pre.stream') && r.addedNodes.length) window.__appends++;
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await ask(page, 'Stream please');
  await page.locator('.bubble.assistant').waitFor();
  const { rewrites, appends } = await page.evaluate(() => ({ rewrites: window.__rewrites, appends: window.__appends }));
  assert.equal(rewrites, 0, 'no text node was rewritten');
  assert.ok(appends >= 3, `the text grew by appends (${appends})`);
  await context.close();
});

test('the release page runs under its Content-Security-Policy', async () => {
  const html = fs.readFileSync(new URL('../../dist/index.html', import.meta.url), 'utf8');
  // Trunk minifies the release page, which may reorder attributes and drop quotes.
  const meta = html.match(/<meta\b[^>]*http-equiv="?Content-Security-Policy"?[^>]*>/)?.[0] ?? '';
  const csp = meta.match(/content="([^"]+)"/)?.[1] ?? '';
  for (const rule of ["script-src 'self' 'wasm-unsafe-eval'", "object-src 'none'", "base-uri 'none'"]) {
    assert.ok(csp.includes(rule), `CSP has ${rule}: ${csp}`);
  }
  assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<script'), 'the policy comes before any script');
  assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(html), 'no inline script in the built page');
  const { page, context } = await openApp(env.browser, env.server.origin);
  // The app started (openApp waited for it) and an injected inline script is refused.
  const ran = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true';
    document.body.append(s);
    return window.__injected === true;
  });
  assert.equal(ran, false, 'inline scripts are blocked');
  await page.waitForTimeout(200);
  const violations = takeCspViolations();
  assert.ok(violations.some((v) => /script-src/.test(v)), violations.join('\n'));
  await context.close();
});
