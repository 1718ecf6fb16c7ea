// End-to-end: an MCP server that needs a sign-in (tests/server/mcp-oauth.mjs: the official
// TypeScript SDK's authorization server helpers and bearer check on loopback, the authorization
// server on another port). The page finds where to sign in, registers itself, signs in through
// a window (or, when the browser blocks it, by going there itself), calls the server's tool with
// the token, renews it, and asks for a sign-in again when it is revoked. The token never
// reaches the trace, the export, the model's server or the authorization server's other routes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startMcpOAuth } from './mcp-server.mjs';
import { signInThroughWindow } from './mcp-settings.mjs';
import { suite, openApp, script, requests, ask, shot, loopbackSettings, action, exportMenu } from './harness.mjs';

const env = suite();
const finalAnswer = (text) => ({ text: `Thought: I can answer now.\nFinal Answer: ${text}` });
const KEPT = 'thoughtline.mcp.sign-ins';

async function openSettings(page) {
  if (!(await page.getByTestId('mcp-servers').count())) await page.getByTestId('settings-toggle').click();
  if (!(await page.getByTestId('mcp-servers').evaluate((e) => e.open))) await page.getByTestId('mcp-servers').locator('summary').click();
}

/** Adds the server in Settings and presses Connect: the row's status once it has answered. */
async function addServer(page, url) {
  await openSettings(page);
  if (!(await page.getByTestId('mcp-url-0').count())) await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-url-0').fill(url);
  await page.getByTestId('mcp-url-0').press('Tab');
  return connect(page);
}

async function connect(page) {
  await page.getByTestId('mcp-connect-0').click();
  return settled(page);
}

async function settled(page) {
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid="mcp-status-0"]');
    return el && el.textContent && !el.textContent.includes('Connecting');
  }, null, { timeout: 20_000 });
  return page.getByTestId('mcp-status-0').textContent();
}

const authState = (page) => page.getByTestId('mcp-auth-state').textContent();

/** Until the row's sign-in state matches `pattern`. */
async function untilState(page, pattern) {
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('[data-testid="mcp-auth-state"]')?.textContent ?? ''), pattern.source, { timeout: 20_000 });
}

async function allowTools(page) {
  for (const select of await page.locator('select[data-testid^="mcp-approval-0-"]:enabled').all()) await select.selectOption('allow');
}

test('a server that needs a sign-in: found, registered and signed in through a window; its tool runs with the token, which goes nowhere else and is kept only with Remember', async () => {
  const mcp = await startMcpOAuth();
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  const first = await addServer(page, mcp.url);
  assert.match(first, /needs you to sign in \(Missing Authorization header\)\. Press Sign in beside it/);
  assert.equal(await authState(page), 'Needs sign-in: Missing Authorization header');
  await shot(page, 'mcp-needs-sign-in');
  await signInThroughWindow(page, page.getByTestId('mcp-sign-in'));
  await untilState(page, /^Signed in, for 60 more minutes/);
  // Signed in: Connect runs again by itself.
  await page.waitForFunction(() => /Connected to thoughtline-oauth-mcp/.test(document.querySelector('[data-testid="mcp-status-0"]')?.textContent ?? ''), null, { timeout: 20_000 });
  assert.match(await page.getByTestId('mcp-status-0').textContent(), /1 tool/);
  await shot(page, 'mcp-signed-in');
  const state = await mcp.state();
  assert.equal(state.registered, 1, 'the page registered itself (dynamic client registration)');
  assert.equal(state.issued, 1);
  assert.equal(state.authSawBearer, false, 'no token went to the authorization server as a bearer');
  const token = state.mcpTokens.filter((t) => t.startsWith('Bearer ')).at(-1).slice('Bearer '.length);
  assert.ok(token.length > 20);

  await allowTools(page);
  await page.getByTestId('settings-close').click();
  await script(env.server.origin, scope, [action('whoami', {}), finalAnswer('You are demo_user.')]);
  await ask(page, 'Who am I there?');
  await page.locator('.bubble.assistant').waitFor();
  assert.equal(await page.locator('.bubble.assistant .text').textContent(), 'You are demo_user.');
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[1].body.messages.at(-1).content, /Observation: You are signed in as demo_user/);
  // The token is nowhere but in the requests to its own server.
  assert.ok(!JSON.stringify(sent).includes(token), 'not sent to the model');
  assert.ok(!(await page.evaluate(() => document.body.innerText)).includes(token), 'not on the page');
  await exportMenu(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
  assert.ok(!fs.readFileSync(await download.path(), 'utf8').includes(token), 'not in the export');
  const stored = () => page.evaluate((key) => JSON.stringify({ ...localStorage }) + (localStorage.getItem(key) ?? ''), KEPT);
  assert.ok(!(await stored()).includes(token), 'not on the device without Remember');

  // Remember: kept on the device, and signed in after a reload without signing in again.
  await openSettings(page);
  await page.getByTestId('mcp-remember-0').check();
  await page.getByTestId('mcp-connect-0').click();
  await settled(page);
  assert.ok((await page.evaluate((key) => localStorage.getItem(key), KEPT)).includes('"grants":[["'), 'kept once remembered');
  await page.reload();
  await openSettings(page);
  assert.match(await connect(page), /Connected to thoughtline-oauth-mcp/);
  await untilState(page, /^Signed in/);
  assert.equal((await mcp.state()).issued, 1, 'no new sign-in');
  // Sign out: forgotten here and revoked at the server.
  await page.getByTestId('mcp-sign-out').click();
  await untilState(page, /^Needs sign-in: signed out/);
  for (let i = 0; i < 50 && (await mcp.state()).revoked < 2; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal((await mcp.state()).revoked, 2, 'the refresh and the access token revoked');
  assert.ok(!(await page.evaluate((key) => localStorage.getItem(key), KEPT)).includes('"grants":[["'));
  await context.close();
});

test('tokens are renewed before they expire and once on a 401; a revoked sign-in makes the run wait with Sign in, and Stop works while it waits', async () => {
  // Tokens of 65 s: due for renewal 60 s ahead, so within 5 s.
  const mcp = await startMcpOAuth('--lifetime', '65');
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await addServer(page, mcp.url);
  await signInThroughWindow(page, page.getByTestId('mcp-sign-in'));
  await page.waitForFunction(() => /Connected to thoughtline-oauth-mcp/.test(document.querySelector('[data-testid="mcp-status-0"]')?.textContent ?? ''), null, { timeout: 20_000 });
  await allowTools(page);
  await page.getByTestId('settings-close').click();
  await new Promise((r) => setTimeout(r, 5_500));
  await script(env.server.origin, scope, [action('whoami', {}), finalAnswer('Renewed.')]);
  await ask(page, 'Who am I?');
  await page.locator('.bubble.assistant').waitFor();
  assert.ok((await mcp.state()).refreshed >= 1, 'renewed before it expired');

  // The access token is revoked at the server: one 401, a renewal, and the call goes through.
  await mcp.post('/__revoke_access');
  const before = (await mcp.state()).refreshed;
  await script(env.server.origin, scope, [action('whoami', {}), finalAnswer('Still you.')]);
  await ask(page, 'And now?');
  await page.locator('.bubble.assistant').nth(1).waitFor();
  assert.equal(await page.locator('.bubble.assistant .text').nth(1).textContent(), 'Still you.');
  assert.equal((await mcp.state()).refreshed, before + 1);

  // Everything revoked: the renewal is refused, the run waits for a sign-in and goes on after it.
  await mcp.post('/__revoke_all');
  await script(env.server.origin, scope, [action('whoami', {}), finalAnswer('Signed in again.')]);
  await ask(page, 'Once more?');
  await page.getByTestId('sign-in-wait').waitFor({ timeout: 20_000 });
  assert.match(await page.getByTestId('sign-in-wait').textContent(), /The agent waits for you to sign in to .*Needs sign-in: renewing the access failed: The authorization server refused the token request \(invalid_grant\): The refresh token is unknown or revoked\./);
  await page.waitForFunction(() => /whoami: Waiting for you to sign in to http/.test(document.querySelector('[data-testid="tool-progress"]')?.textContent ?? ''), null, { timeout: 10_000 });
  await shot(page, 'mcp-run-waits-for-sign-in');
  await signInThroughWindow(page, page.getByTestId('run-sign-in'));
  await page.locator('.bubble.assistant').nth(2).waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('.bubble.assistant .text').nth(2).textContent(), 'Signed in again.');
  await page.getByTestId('sign-in-wait').waitFor({ state: 'detached' });

  // Revoked again: Stop ends the waiting run.
  await mcp.post('/__revoke_all');
  await script(env.server.origin, scope, [action('whoami', {}), finalAnswer('never')]);
  await ask(page, 'Last one?');
  await page.getByTestId('sign-in-wait').waitFor({ timeout: 20_000 });
  await page.getByTestId('stop').click();
  await page.locator('.bubble.problem').waitFor();
  assert.equal(await page.locator('.bubble.problem .text').textContent(), 'Stopped by you.');
  await page.getByTestId('sign-in-wait').waitFor({ state: 'detached' });
  await context.close();
});

test('a blocked sign-in window: the page goes to the sign-in itself and comes back to the same chat, signed in', async () => {
  const mcp = await startMcpOAuth();
  const beforeLoad = (context) => context.addInitScript(() => { window.open = () => null; });
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, beforeLoad });
  await script(env.server.origin, scope, [finalAnswer('Noted: the meeting is at noon.')]);
  await ask(page, 'Remember that the meeting is at noon.');
  await page.locator('.bubble.assistant').waitFor();
  await addServer(page, mcp.url);
  await page.getByTestId('mcp-sign-in').click();
  // Away to the authorization server and back, through the callback, to the page under its sub-path.
  await page.waitForURL(/\/thoughtline\/(#signed-in)?$/, { timeout: 20_000 });
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  await untilState(page, /^Signed in/);
  await page.waitForFunction(() => /Connected to thoughtline-oauth-mcp/.test(document.querySelector('[data-testid="mcp-status-0"]')?.textContent ?? ''), null, { timeout: 20_000 });
  await page.getByTestId('settings-close').click();
  assert.equal(await page.locator('.bubble.user .text').first().textContent(), 'Remember that the meeting is at noon.');
  assert.equal(await page.locator('.bubble.assistant .text').first().textContent(), 'Noted: the meeting is at noon.');
  assert.ok(!page.url().includes('code='), 'the code left the address');
  const kept = await page.evaluate(() => JSON.stringify({ ...sessionStorage }));
  assert.ok(!kept.includes('verifier') && !kept.includes('sign-in'), 'nothing of the sign-in stays in the tab');
  await context.close();
});

test('a refused sign-in says the server\'s reason, and Sign in is offered again', async () => {
  const mcp = await startMcpOAuth();
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await addServer(page, mcp.url);
  await mcp.post('/__refuse');
  await signInThroughWindow(page, page.getByTestId('mcp-sign-in'));
  await untilState(page, /^Sign-in refused/);
  assert.equal(await authState(page), 'Sign-in refused: The sign-in was refused: The person said no.');
  await page.getByTestId('mcp-sign-in').waitFor();
  await context.close();
});

test('an authorization server that registers no clients: Sign in says to enter a client ID, and the one entered signs in', async () => {
  const mcp = await startMcpOAuth('--no-registration');
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await addServer(page, mcp.url);
  await page.getByTestId('mcp-sign-in').click();
  await untilState(page, /^Sign-in refused/);
  const redirect = `${env.server.origin}/thoughtline/signed-in.html`;
  assert.equal(await authState(page), `Sign-in refused: ${mcp.issuer} registers no clients itself: enter the client ID it issued for this page (redirect address ${redirect}) under the server in Settings → Tools → MCP servers.`);
  const { client_id: clientId } = await (await fetch(`${new URL(mcp.url).origin}/__client?redirect=${encodeURIComponent(redirect)}`, { method: 'POST' })).json();
  await page.getByTestId('mcp-client-id-0').fill(clientId);
  await page.getByTestId('mcp-client-id-0').press('Tab');
  await signInThroughWindow(page, page.getByTestId('mcp-sign-in'));
  await untilState(page, /^Signed in/);
  assert.equal((await mcp.state()).registered, 1, 'only the client made for the test: the page registered none');
  assert.ok((await page.evaluate(() => localStorage.getItem('thoughtline.settings'))).includes(clientId), 'the client ID is a setting, kept');
  await context.close();
});
