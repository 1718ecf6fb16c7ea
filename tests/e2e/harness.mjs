// Shared set-up for the end-to-end tests: the loopback server, Debian's Chromium driven by
// playwright-core (never a downloaded browser), and helpers that act like a person.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const screenshotDir = path.join(here, 'screenshots');

/** Starts tests/server/loopback.mjs (`args`: more of its flags, e.g. `['--dist', dir]`). */
export async function startServer(args = []) {
  const child = spawn(process.execPath, [path.join(here, '..', 'server', 'loopback.mjs'), '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`loopback server exited with ${code}`)));
  });
  return { origin, stop: () => child.kill('SIGTERM') };
}

/**
 * Debian's Chromium. Its contexts block the page's service worker unless a test asks for it
 * (`newContext({ serviceWorkers: 'allow' })`): a worker that serves the page's files would
 * hide them from the routes tests set up to slow or fail them (tests/e2e/offline.test.mjs
 * tests the worker itself).
 */
export async function launch(extraArgs = []) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extraArgs],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options = {}) => {
    const context = await newContext({ serviceWorkers: 'block', ...options });
    context.on('page', untilTheAppIsUp);
    return context;
  };
  return browser;
}

/**
 * Makes `page.goto` and `page.reload` of the app's page end once the app is up (`data-ready` on
 * <html>, or the banner of a page that could not start), not at the first screen, which may
 * show the chat of last time before the app has it. A navigation asked to wait for less
 * (`waitUntil: 'commit'`, as with the WebAssembly held back) ends as asked.
 */
function untilTheAppIsUp(page) {
  for (const name of ['goto', 'reload']) {
    const navigate = page[name].bind(page);
    page[name] = async (...args) => {
      const options = (name === 'goto' ? args[1] : args[0]) ?? {};
      const response = await navigate(...args);
      if ((options.waitUntil ?? 'load') === 'load' && /\/thoughtline\/([?#].*)?$/.test(page.url())) {
        await page.locator('html[data-ready], [data-testid="fatal-banner"]').first().waitFor({ state: 'attached' });
      }
      return response;
    };
  }
}

/**
 * Starts the loopback server and a browser for the test file that calls it, and stops both
 * when the file's tests are done. Returns `{ server, browser }`, filled in before any test runs.
 */
export function suite() {
  const env = {};
  before(async () => {
    env.server = await startServer();
    env.browser = await launch();
  });
  // Every test runs under the page's Content-Security-Policy: any violation fails it.
  afterEach(() => {
    const seen = takeCspViolations();
    assert.deepEqual(seen, [], `Content-Security-Policy violations:\n${seen.join('\n')}`);
  });
  after(async () => {
    await env.browser?.close();
    env.server?.stop();
  });
  return env;
}

const cspViolations = [];
/** The CSP violations seen since the last call (the harness checks after each test). */
export function takeCspViolations() {
  return cspViolations.splice(0);
}

let scopes = 0;
/**
 * A fresh page on the app, with its own server scope and a record of console errors.
 * `seed(scope, base)` may return stored settings to start with (as if saved earlier);
 * `beforeLoad(context, page)` runs before the page is opened (to set up routes, or to slow the
 * network with a CDP session on `page`).
 */
export async function openApp(browser, origin, { viewport = { width: 1280, height: 800 }, seed, beforeLoad, serviceWorkers = 'block', path = '/thoughtline/', ready = true } = {}) {
  const context = await browser.newContext({ viewport, serviceWorkers });
  const scope = `t${process.pid}-${++scopes}`;
  const base = `${origin}/s/${scope}/v1`;
  if (seed) {
    await context.addInitScript(([key, value]) => {
      if (!localStorage.getItem(key)) localStorage.setItem(key, value);
    }, ['thoughtline.settings', JSON.stringify(seed(`${origin}/s/${scope}`, base))]);
  }
  // The page reports each violation as an event; Chromium also logs one to the console.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => {
    if (/CSP violation|Content.Security.Policy/i.test(msg.text())) cspViolations.push(msg.text());
    // A failed load names what failed: the browser's line alone does not say which request it was.
    if (msg.type() === 'error') errors.push(msg.location()?.url ? `${msg.text()} [${msg.location().url}]` : msg.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  if (beforeLoad) await beforeLoad(context, page);
  // The app is up (`data-ready`, www/boot.js), not merely the first screen's composer; without
  // `ready`, only until the navigation is under way (the WebAssembly may be held back).
  await page.goto(`${origin}${path}`, { waitUntil: ready ? 'load' : 'commit' });
  return { page, context, errors, scope, base };
}

export async function script(origin, scope, replies, model) {
  const r = await fetch(`${origin}/s/${scope}/__script`, { method: 'POST', body: JSON.stringify({ replies, model }) });
  if (!r.ok) throw new Error(`script failed: ${r.status}`);
}

export async function requests(origin, scope) {
  return (await fetch(`${origin}/s/${scope}/__requests`)).json();
}

/** Points the app at the loopback server through the Settings panel, as a person would. */
export async function configure(page, { base, model = 'test-model', key = '', remember = false }) {
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('preset').selectOption('custom');
  await page.getByTestId('base-url').fill(base);
  await page.getByTestId('base-url').press('Tab');
  await page.getByTestId('model').fill(model);
  await page.getByTestId('model').press('Tab');
  if (key) {
    await page.getByTestId('api-key').fill(key);
    await page.getByTestId('api-key').press('Tab');
  }
  if (remember) await page.getByTestId('remember-key').check();
  await page.getByTestId('settings-close').click();
}

export async function ask(page, question) {
  await page.getByTestId('composer').fill(question);
  await page.getByTestId('composer').press('Enter');
}

export async function shot(page, name) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

/**
 * The README's picture of a finished run (the visible window, as a person sees it). Written to
 * docs/screenshot.png only when THOUGHTLINE_SCREENSHOT=1; otherwise to the system's temporary
 * folder, so an ordinary test run leaves the work tree as it was. Returns the file written.
 */
export async function readmeShot(page) {
  const dir = process.env.THOUGHTLINE_SCREENSHOT === '1'
    ? path.join(here, '..', '..', 'docs')
    : path.join(os.tmpdir(), 'thoughtline-e2e');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'screenshot.png');
  await page.screenshot({ path: file });
  return file;
}

export async function toolRequests(origin, scope) {
  return (await fetch(`${origin}/s/${scope}/__tool_requests`)).json();
}

/** Stored settings pointing the model and every tool at the loopback server. */
export function loopbackSettings(scopeUrl, base, tools = {}) {
  return {
    preset: 'custom', base_url: base, model: 'test-model', remember_key: true, api_key: 'sk-test',
    tools: {
      wikipedia: { base_url: `${scopeUrl}/wikipedia` },
      arxiv: { openalex_url: `${scopeUrl}/openalex` },
      web_search: { ddg_url: `${scopeUrl}/ddg` },
      ...tools,
    },
  };
}

/**
 * Opens the page in a new context whose site storage holds at most `quotaSize` bytes (Chromium's
 * override, set before the page starts: it applies from a database's first write on), with the
 * loopback settings stored. Returns the context, the page, its CDP session (to lift the quota
 * again) and its scope.
 */
export async function openWithQuota(browser, origin, scope, quotaSize) {
  const context = await browser.newContext();
  const scopeUrl = `${origin}/s/${scope}`;
  await context.addInitScript(([key, value]) => {
    if (!localStorage.getItem(key)) localStorage.setItem(key, value);
  }, ['thoughtline.settings', JSON.stringify(loopbackSettings(scopeUrl, `${scopeUrl}/v1`))]);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize });
  await page.goto(`${origin}/thoughtline/`);
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  return { context, page, cdp, scope };
}

/** The trace as "kind:tone" strings, in order. */
export async function traceTones(page, { timeout = 15_000 } = {}) {
  // Rows arrive after the answer's bubble: their code is a part fetched on use, and a trace
  // read from the database is drawn a screenful per frame. Read them once all are there.
  await page.waitForFunction(() => {
    const list = document.querySelector('[data-testid="trace"]');
    return list && list.querySelectorAll('[data-testid="event"]').length === Number(list.dataset.events);
  }, null, { timeout });
  return page.getByTestId('event').evaluateAll((els) => els.map((e) => `${e.dataset.kind}:${e.dataset.tone}`));
}

/** A model reply asking for one tool call, in the canonical format. */
export function action(tool, input) {
  return { text: `Thought: I should use ${tool}.\nAction:\n\`\`\`json\n${JSON.stringify({ action: tool, action_input: input })}\n\`\`\`` };
}

/** Everything the page stored: localStorage and every IndexedDB object store, as text. */
export async function storedText(page) {
  return page.evaluate(async () => {
    const request = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const parts = [JSON.stringify({ ...localStorage })];
    for (const { name } of await indexedDB.databases()) {
      const db = await request(indexedDB.open(name));
      for (const store of db.objectStoreNames) {
        parts.push(JSON.stringify(await request(db.transaction(store).objectStore(store).getAll())));
      }
      db.close();
    }
    return parts.join('\n');
  });
}

/**
 * Waits until everything the page stored holds each of `texts`: a save is written a moment
 * after a change (and its part may still be on its way), so a test that reloads or reads the
 * database waits for what it needs, however slow the machine.
 */
export async function untilStored(page, texts, ms = 20_000) {
  const wanted = [].concat(texts);
  const end = Date.now() + ms;
  for (;;) {
    const stored = await storedText(page);
    const missing = wanted.filter((t) => !stored.includes(t));
    if (missing.length === 0) return;
    if (Date.now() > end) throw new Error(`not stored within ${ms} ms: ${missing.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function seen(origin, scope) {
  return (await fetch(`${origin}/s/${scope}/__seen`)).json();
}

/** Opens a trace row's long texts whole ("Show all"), if they were cut to their first lines. */
export async function showAll(row) {
  const button = row.getByTestId('show-all');
  if ((await button.count()) && (await button.first().getAttribute('aria-expanded')) === 'false') await button.first().click();
}

/**
 * Opens the trace toolbar's Export menu (`exports`: Save as HTML, Export JSON, OpenTelemetry,
 * Copy as Markdown) unless it is open already: its buttons are hidden while it is closed.
 * Waits for the menu to be there (it is drawn with the trace's part, once a chat has runs).
 */
export async function exportMenu(page) {
  const menu = page.getByTestId('exports');
  if (!(await menu.evaluate((details) => details.open))) await menu.locator(':scope > summary').click();
}

/** Opens the trace toolbar's "⋯" menu (Compare runs, Import, Timeline, the filter, Next error, Expand and Collapse all) unless it is open already. */
export async function moreMenu(page) {
  const menu = page.getByTestId('trace-more');
  if (!(await menu.evaluate((details) => details.open))) await menu.locator(':scope > summary').click();
}

/**
 * An exported run of `steps` calculator steps, as the export of version 1 wrote it: each step a
 * request, a streamed ReAct reply, its reading, the call and an observation `${s}+1 = ${s + 1}`
 * followed by `padding`; then the answer. For long-trace tests and benchmarks.
 */
export function longRunExport(steps, padding = '') {
  const events = [];
  let t = 0;
  const push = (step, kind) => events.push({ index: events.length, step, started_ms: t, ended_ms: (t += 3), kind });
  push(0, { run_started: { question: 'A long run', tools: ['calculator'], history_turns: 0, started_unix_ms: 0 } });
  for (let s = 1; s <= steps; s++) {
    const text = `Thought: step ${s}.\nAction:\n\`\`\`json\n{"action": "calculator", "action_input": "${s}+1"}\n\`\`\``;
    push(s, { llm_request: { purpose: 'step', request: { messages: [{ role: 'user', content: `question and ${s} steps` }], stop: ['Observation:'], temperature: 0 } } });
    push(s, { llm_response: { text, usage: { prompt_tokens: 100 * s, completion_tokens: 20 }, latency_ms: 3, incomplete: false } });
    push(s, { parsed: { thought: `step ${s}.`, decision: { action: { tool: 'calculator', input: `${s}+1` } } } });
    push(s, { tool_call: { tool: 'calculator', input: `${s}+1` } });
    push(s, { tool_result: { tool: 'calculator', observation: `${s}+1 = ${s + 1}\n${padding}` } });
  }
  push(steps, { final_answer: { answer: 'done', source: 'model' } });
  push(steps, { run_stopped: { reason: 'answered', message: 'Finished with an answer.' } });
  return { format: 'thoughtline.run', version: 1, exported_unix_ms: 0, question: 'A long run', answer: 'done', settings: {}, trace: { events } };
}
