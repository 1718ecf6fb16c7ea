// The end-to-end suite's core, in every engine (tests/engines/driver.mjs): Chromium, Firefox
// and WebKit, each driven through its own WebDriver server against the release page served by
// the loopback server under a sub-path. What runs here and what runs in Chromium alone is
// written down in docs/testing.md.
import { describe, test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, script, requests, loopbackSettings, action } from '../e2e/harness.mjs';
import { startMcp, startMcpOAuth, startAppServer } from '../e2e/mcp-server.mjs';
import { llamaModel } from '../e2e/llama.mjs';
import { pdf } from '../e2e/pdf.mjs';
import { chosenEngines, startDriver, session, Key } from './driver.mjs';

const server = {};
before(async () => Object.assign(server, await startServer()));
after(() => server.stop?.());

let scopes = 0;
/** Opens the app in `b`; with `seed`, stored settings are written first (as if saved earlier). */
async function openApp(b, { seed } = {}) {
  const scope = `w${process.pid}-${++scopes}`;
  const base = `${server.origin}/s/${scope}/v1`;
  if (seed) {
    await b.open(`${server.origin}/blank`);
    await b.run((value) => localStorage.setItem('thoughtline.settings', value), JSON.stringify(seed(`${server.origin}/s/${scope}`, base)));
  }
  await b.open(`${server.origin}/thoughtline/`);
  await b.find('html[data-ready]');
  return { scope, base };
}

async function ask(b, question) {
  await b.type('composer', question);
  await b.type('composer', Key.ENTER);
}

/** Waits for the `n`th answer and returns its text. */
async function answer(b, n = 1) {
  return b.until((i) => document.querySelectorAll('.bubble.assistant .text')[i - 1]?.textContent, [n], { what: `answer ${n}` });
}

/** The trace as "kind:tone" strings, once every row is drawn. */
async function traceTones(b) {
  await b.until(() => {
    const list = document.querySelector('[data-testid="trace"]');
    return list && list.querySelectorAll('[data-testid="event"]').length === Number(list.dataset.events);
  }, [], { what: 'every trace row is drawn' });
  return b.run(() => [...document.querySelectorAll('[data-testid="event"]')].map((e) => `${e.dataset.kind}:${e.dataset.tone}`));
}

/** Everything the page stored (localStorage and every IndexedDB store), as text. */
function storedText(b) {
  return b.run(async () => {
    const request = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const parts = [JSON.stringify({ ...localStorage })];
    const names = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : ['thoughtline'];
    for (const name of names) {
      const db = await request(indexedDB.open(name));
      for (const store of db.objectStoreNames) parts.push(JSON.stringify(await request(db.transaction(store).objectStore(store).getAll())));
      db.close();
    }
    return parts.join('\n');
  });
}

async function untilStored(b, text) {
  const end = Date.now() + 20_000;
  while (!(await storedText(b)).includes(text)) {
    if (Date.now() > end) throw new Error(`${b.name}: "${text}" was not stored within 20 s`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Adds the MCP server at `url` in Settings (opening them) and connects it. */
async function connectServer(b, url) {
  await b.click('settings-toggle');
  await b.click('[data-testid="mcp-servers"] summary');
  await b.click('mcp-add');
  await b.fill('mcp-url-0', url);
  await b.click('mcp-connect-0');
  const status = await b.until(() => {
    const el = document.querySelector('[data-testid="mcp-status-0"]');
    return el && el.textContent && !el.textContent.includes('Connecting') ? `${el.className}|${el.textContent}` : null;
  }, [], { what: 'Connect ends' });
  assert.match(status, /^ok\|/, status);
}

/** Chooses an option of a <select>, as a person would (by clicking it). */
async function choose(b, target, value) {
  await (await b.find(`${target.startsWith('[') ? target : `[data-testid="${target}"]`} option[value="${value}"]`)).click();
}

for (const engine of chosenEngines) {
  describe(engine, () => {
    let driver;
    let b;
    let mcp;
    before(async () => { driver = await startDriver(engine); });
    after(async () => { await mcp?.stop(); driver?.stop(); });
    beforeEach(async () => {
      try {
        b = await session(engine, driver.url);
      } catch (e) {
        // Once more, with a new WebDriver server: the old one may be stuck on the failed start.
        console.log(`# ${e.message}; starting ${engine}'s WebDriver server again`);
        driver.stop();
        driver = await startDriver(engine);
        b = await session(engine, driver.url);
      }
    });
    afterEach(async () => {
      // Whatever the test did, the page never stopped on an internal error.
      const fatal = await b.run(() => document.querySelector('[data-testid="fatal-banner"]')?.textContent ?? null).catch(() => null);
      await b.quit();
      assert.equal(fatal, null, `${engine}: the page stopped: ${fatal}`);
    });

    test('first look: the page starts, offers a model in the page, and Settings opens', async () => {
      await openApp(b);
      assert.match(await b.waitText('in-page-offer', /about \d+ MB/), /about \d+ MB/);
      await b.click('settings-toggle');
      await b.find('preset');
      await b.click('settings-close');
      await b.until(() => !document.querySelector('[data-testid="preset"]'), [], { what: 'Settings closed' });
    });

    test('text typed on the first screen, before the app is up, is kept with its caret', async () => {
      const post = (what) => fetch(`${server.origin}/__${what}-wasm`, { method: 'POST' });
      await post('hold');
      try {
        // Not `open`: WebDriver's navigation would wait for the held WebAssembly.
        await b.open(`${server.origin}/blank`);
        await b.run((url) => { location.href = url; }, `${server.origin}/thoughtline/`);
        await b.type('#shell textarea', 'typed before the app');
        await b.type('#shell textarea', Key.ARROW_LEFT + Key.ARROW_LEFT);
        assert.equal(await b.count('html[data-ready]'), 0, 'the app is not up yet');
      } finally {
        await post('release');
      }
      await b.find('html[data-ready]');
      assert.deepEqual(await b.run(() => {
        const box = document.querySelector('[data-testid="composer"]');
        return [box.value, box.selectionStart, document.activeElement === box, !!document.querySelector('#shell')];
      }), ['typed before the app', 18, true, false]);
      await b.type('composer', 'X');
      assert.equal(await b.run(() => document.querySelector('[data-testid="composer"]').value), 'typed before the aXpp');
    });

    test('python: the agent runs code in the page, and a second call reads what the first defined', async () => {
      const seed = (scopeUrl, base) => loopbackSettings(scopeUrl, base, { python: { common: { enabled: true, timeout_s: 20 } } });
      const { scope } = await openApp(b, { seed });
      await script(server.origin, scope, [
        action('python', { code: 'numbers = list(range(101))\nprint(sum(range(101)))' }),
        action('python', { code: 'print(len(numbers), sum(numbers) * 2)' }),
        { text: 'Final Answer: 5050' },
      ]);
      await ask(b, 'What do 0 to 100 add up to?');
      // The runtime's first start fetches and compiles 13 MB: slow in WebKit.
      assert.equal(await b.until(() => document.querySelectorAll('.bubble.assistant .text')[0]?.textContent, [], { what: 'the answer', timeout: 180_000 }), '5050');
      const outputs = await b.until(() => {
        const found = [...document.querySelectorAll('[data-testid="code-output"]')].map((e) => e.textContent);
        return found.length === 2 ? found : null;
      }, [], { what: 'both outputs' });
      assert.deepEqual(outputs, ['5050', '101 10100']);
      const sent = await requests(server.origin, scope);
      assert.match(sent[1].body.messages.at(-1).content, /Observation: 5050/);
    });

    test('documents: a Markdown file and a PDF are added, and the agent finds a passage with its page', async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thoughtline-engine-'));
      const notes = path.join(dir, 'walk.md');
      fs.writeFileSync(notes, '# Walk\n\n## Parking\n\nThe car park by the boathouse closes at dusk.\n');
      const guide = path.join(dir, 'birds.pdf');
      fs.writeFileSync(guide, pdf([['Birds'], ['Herons', 'The grey heron nests in tall reeds.'], ['Coots']]));
      await b.click('documents');
      await (await b.find('documents-add')).sendKeys(notes);
      await b.until(() => document.querySelector('[data-testid="document"]')?.dataset.state === 'ready', [], { what: 'the Markdown file is ready' });
      await (await b.find('documents-add')).sendKeys(guide);
      await b.until(() => [...document.querySelectorAll('[data-testid="document"]')].map((r) => r.dataset.state).join() === 'ready,ready', [], { what: 'the PDF is ready', timeout: 30_000 });
      assert.match(await b.run(() => document.querySelectorAll('[data-testid="document"]')[1].textContent), /birds\.pdf.*3 pages.*Ready/s);
      await b.click('documents-close');
      await script(server.origin, scope, [action('documents', 'heron nests'), { text: 'Final Answer: In tall reeds [1].' }]);
      await ask(b, 'Where do herons nest?');
      assert.equal(await answer(b), 'In tall reeds [1].');
      assert.match(await b.run(() => document.querySelector('[data-kind="tool_result"] [data-testid="passage"]')?.textContent ?? ''), /\[1\] birds\.pdf · page 2.*grey heron nests/s);
    });

    test('a run with a tool answers, its trace is green, and a reload keeps it', async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      await script(server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
      await ask(b, 'What is six times seven?');
      assert.equal(await answer(b), '42');
      const tones = await traceTones(b);
      assert.ok(tones.includes('tool_result:success'), tones.join(' '));
      assert.ok(!tones.some((t) => t.endsWith(':error')), tones.join(' '));
      const sent = await requests(server.origin, scope);
      assert.match(sent[1].body.messages.at(-1).content, /Observation: 6\*7 = 42/);
      await untilStored(b, 'Final Answer: 42');
      // By now the service worker has taken the page; the reload is served by it, isolated.
      await b.until(() => !!navigator.serviceWorker?.controller, [], { what: 'the service worker controls the page' });
      await b.open(`${server.origin}/thoughtline/`);
      assert.equal(await answer(b), '42');
      assert.equal(await b.run(() => crossOriginIsolated), true, 'the page isolated itself');
      assert.equal(await b.text('.bubble.user .text'), 'What is six times seven?');
      assert.deepEqual(await traceTones(b), tones);
    });

    test("the trace's search counts matches and moves between them", async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      await script(server.origin, scope, [action('wikipedia', 'Python programming'), action('calculator', '6*7'), { text: 'Final Answer: done' }]);
      await ask(b, 'Python, then 6*7');
      await answer(b);
      await traceTones(b);
      await b.type('trace-search', 'calculator');
      const first = await b.waitText('trace-search-count', /^1 of \d+$/);
      const total = Number(first.split(' of ')[1]);
      assert.ok(total >= 3, first);
      await b.click('search-next');
      await b.waitText('trace-search-count', new RegExp(`^2 of ${total}$`));
      assert.equal(await b.count('[data-testid="event"].hit'), total);
      // Where the engine has the CSS Custom Highlight API, the words themselves are marked.
      const marked = await b.until(() => (globalThis.CSS && CSS.highlights ? CSS.highlights.get('trace-match')?.size : 'no API'), [], { what: 'the matching words are marked' });
      assert.ok(marked > 0 || marked === 'no API', `highlight: ${marked}`);
      await b.type('trace-search', Key.ESCAPE);
      await b.waitText('trace-search-count', /^$/);
    });

    test('export and import carry the run, and the export holds no key', async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      await script(server.origin, scope, [action('calculator', '2+2'), { text: 'Final Answer: four' }]);
      await ask(b, 'Two and two?');
      await answer(b);
      const tones = await traceTones(b);
      // The file the page hands to the browser's download, read where it is made. The download
      // itself is not started: WebKitGTK's MiniBrowser can stall its WebDriver session on one.
      await b.run(() => {
        const make = URL.createObjectURL;
        URL.createObjectURL = (blob) => { blob.text().then((t) => { window.__exported = t; }); return make(blob); };
        const click = HTMLAnchorElement.prototype.click;
        HTMLAnchorElement.prototype.click = function () {
          if (!this.hasAttribute('download')) click.call(this);
        };
      });
      await b.exportMenu();
      await b.click('export');
      const text = await b.until(() => window.__exported, [], { what: 'the export was made' });
      assert.ok(!text.includes('sk-test'), 'no key in the export');
      const exported = JSON.parse(text);
      assert.equal(exported.format, 'thoughtline.run');
      assert.deepEqual(exported.runs.map((r) => r.outcome), [{ kind: 'answer', text: 'four' }]);

      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'thoughtline-engine-')), 'run.json');
      fs.writeFileSync(file, text);
      await b.click('new-chat');
      await b.until(() => document.querySelectorAll('.bubble').length === 0, [], { what: 'a new, empty chat' });
      await (await b.find('import')).sendKeys(file);
      assert.equal(await answer(b), 'four');
      assert.deepEqual(await traceTones(b), tones);
      await b.until(() => document.querySelectorAll('[data-testid="chat-item"]').length === 2, [], { what: 'two chats listed' });
    });

    test('a run shared by link opens read-only, and Keep a copy makes it a chat', async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      await script(server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
      await ask(b, 'What is six times seven?');
      assert.equal(await answer(b), '42');
      const tones = await traceTones(b);
      await b.toolbarSettled();
      await b.click('share');
      // Packed by this engine's CompressionStream.
      const link = await b.until(() => document.querySelector('[data-testid="share-link"]')?.value, [], { what: 'the link is made' });
      assert.match(link, /#share=1\.\d+\.[A-Za-z0-9_-]+$/);
      const asked = (await requests(server.origin, scope)).length;
      await b.open(`${server.origin}/blank`);
      await b.open(link);
      await b.find('shared-view');
      // Unpacked by its DecompressionStream.
      assert.equal(await answer(b), '42');
      assert.deepEqual(await traceTones(b), tones);
      assert.equal(await b.count('[data-testid="composer"]'), 0, 'nothing to ask in a shared run');
      assert.equal((await requests(server.origin, scope)).length, asked, 'no model was asked');
      await b.click('keep-copy');
      await b.find('composer');
      assert.equal(await answer(b), '42');
      await b.until(() => document.querySelectorAll('[data-testid="chat-item"]').length === 2, [], { what: 'the copy is listed beside the first chat' });
      assert.ok(!(await b.run(() => location.hash)).includes('share='), 'the link left the address');
    });

    test('an evaluation runs a set, says its pass rate, and keeps it listed after a reload', async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      await script(server.origin, scope, [{ text: 'Final Answer: Paris' }, { text: 'Final Answer: Lyon' }]);
      await b.click('evaluate');
      // Pasted, as a person would: WebKit's driver types no line break into a text area.
      await b.find('eval-set-text');
      await b.run((text) => {
        const box = document.querySelector('[data-testid="eval-set-text"]');
        box.value = text;
        box.dispatchEvent(new Event('input', { bubbles: true }));
        box.dispatchEvent(new Event('change', { bubbles: true }));
      }, '{"question": "Capital of France?", "expected": "Paris"}\n{"question": "Largest city of Italy?", "expected": "Rome"}');
      await b.waitText('eval-set-status', /2 cases read/);
      await b.click('eval-run');
      await b.waitText('eval-progress', /^2 of 2 done/);
      assert.equal(await b.text('eval-pass-rate'), '1/2 passed');
      assert.equal(await b.count('eval-case'), 2);
      await b.open(`${server.origin}/thoughtline/`);
      await b.click('evaluate');
      await b.waitText('eval-listed', /2 cases × 1 configuration/);
    });

    test("two tabs: a chat asked in one is listed in the other", async () => {
      const { scope } = await openApp(b, { seed: loopbackSettings });
      const first = await b.driver.getWindowHandle();
      await b.driver.switchTo().newWindow('tab');
      await b.open(`${server.origin}/thoughtline/`);
      await b.find('html[data-ready]');
      const second = await b.driver.getWindowHandle();
      await b.driver.switchTo().window(first);
      await script(server.origin, scope, [{ text: 'Final Answer: from the first tab' }]);
      await ask(b, 'Asked in the first tab');
      await answer(b);
      await b.driver.switchTo().window(second);
      await b.until(() => [...document.querySelectorAll('.chat-title')].some((t) => t.textContent === 'Asked in the first tab'), [], { what: 'the other tab lists the chat' });
    });

    test('a key is kept only with Remember, goes only to its provider, and is stored nowhere else', async () => {
      const { scope, base } = await openApp(b);
      await b.click('settings-toggle');
      await choose(b, 'preset', 'custom');
      await b.fill('base-url', base);
      await b.fill('model', 'test-model');
      await b.fill('api-key', 'sk-engine-secret');
      await b.click('settings-close');
      await script(server.origin, scope, [{ text: 'Final Answer: keyed' }, { text: 'Final Answer: again' }]);
      await ask(b, 'With a key');
      await answer(b);
      assert.equal((await requests(server.origin, scope))[0].headers.authorization, 'Bearer sk-engine-secret');
      await untilStored(b, 'keyed');
      assert.ok(!(await storedText(b)).includes('sk-engine-secret'), 'not stored without Remember');
      assert.ok(!(await b.run(() => document.body.textContent)).includes('sk-engine-secret'), 'not shown in the page');

      await b.open(`${server.origin}/thoughtline/`);
      await b.click('settings-toggle');
      assert.equal(await (await b.find('api-key')).getAttribute('value'), '', 'forgotten on reload');
      await b.fill('api-key', 'sk-engine-secret');
      await b.click('remember-key');
      await b.until(() => localStorage.getItem('thoughtline.settings')?.includes('sk-engine-secret') ?? false, [], { what: 'the key is remembered' });
      await b.open(`${server.origin}/thoughtline/`);
      await b.click('settings-toggle');
      assert.equal(await (await b.find('api-key')).getAttribute('value'), 'sk-engine-secret');
    });

    test("an MCP server's tool is listed on Connect and called in a run", async () => {
      mcp ??= await startMcp();
      const { scope } = await openApp(b, { seed: loopbackSettings });
      await b.click('settings-toggle');
      await b.click('[data-testid="mcp-servers"] summary');
      await b.click('mcp-add');
      await b.fill('mcp-url-0', mcp.url);
      await b.click('mcp-connect-0');
      const status = await b.until(() => {
        const el = document.querySelector('[data-testid="mcp-status-0"]');
        return el && el.textContent && !el.textContent.includes('Connecting') ? `${el.className}|${el.textContent}` : null;
      }, [], { what: 'Connect ends' });
      assert.match(status, /^ok\|/, status);
      await choose(b, 'mcp-approval-0-get-sum', 'allow');
      await b.click('settings-close');
      await script(server.origin, scope, [action('get-sum', { a: 2, b: 3 }), { text: 'Final Answer: 2 + 3 is 5.' }]);
      await ask(b, 'What is 2 + 3?');
      assert.equal(await answer(b), '2 + 3 is 5.');
      const sent = await requests(server.origin, scope);
      assert.match(sent[1].body.messages.at(-1).content, /Observation: The sum of 2 and 3 is 5\./);
    });

    test("an MCP App's view shows its call's result, in the sandbox proxy's frame", async () => {
      const app = await startAppServer('server-basic-vanillajs');
      try {
        const { scope } = await openApp(b, { seed: loopbackSettings });
        await connectServer(b, app.url);
        await choose(b, 'mcp-approval-0-get-time', 'allow');
        await b.click('settings-close');
        await script(server.origin, scope, [action('get-time', {}), { text: 'Final Answer: The server told the time.' }]);
        await ask(b, 'What time is it on the server?');
        assert.equal(await answer(b), 'The server told the time.');
        const sent = await requests(server.origin, scope);
        const time = sent[1].body.messages.at(-1).content.match(/Observation: (\S+)/)[1];
        const frame = await b.find('mcp-app');
        assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
        // Into the proxy's frame, then the view's own.
        await b.driver.switchTo().frame(frame);
        try {
          await b.until(() => document.querySelector('iframe') !== null, [], { what: "the view's frame" });
          await b.driver.switchTo().frame(await b.driver.findElement({ css: 'iframe' }));
          const shown = await b.until((t) => {
            const text = document.getElementById('server-time')?.textContent ?? '';
            return text.includes(t) ? text : null;
          }, [time], { what: "the call's result in the view" });
          assert.ok(shown.includes(time));
          assert.equal(await b.run(() => { try { return localStorage.length; } catch (e) { return e.name; } }), 'SecurityError');
        } finally {
          await b.driver.switchTo().defaultContent();
        }
      } finally {
        await app.stop();
      }
    });

    test("an MCP server's question: its form starts at the server's defaults and is sent on Accept", async () => {
      const asking = await startMcp('--asks');
      try {
        const { scope } = await openApp(b, { seed: loopbackSettings });
        await connectServer(b, asking.url);
        await choose(b, 'mcp-approval-0-book-table', 'allow');
        await b.click('settings-close');
        await script(server.origin, scope, [action('book-table', {}), { text: 'Final Answer: Booked.' }]);
        await ask(b, 'Book a table');
        await b.find('elicitation');
        assert.equal(await b.run(() => document.querySelector('[data-field="guests"]').value), '2');
        assert.equal(await b.run(() => document.querySelector('[data-field="seating"]').value), 'out');
        await b.click('elicitation-accept');
        assert.equal(await answer(b), 'Booked.');
        assert.deepEqual((await asking.state()).asks, [{ action: 'accept', content: { guests: 2, name: 'Ada', seating: 'out', newsletter: false } }]);
      } finally {
        await asking.stop();
      }
    });

    test('an MCP server that needs a sign-in: signed in through its window, its tool runs with the token', async () => {
      const oauth = await startMcpOAuth();
      try {
        const { scope } = await openApp(b, { seed: loopbackSettings });
        await b.click('settings-toggle');
        await b.click('[data-testid="mcp-servers"] summary');
        await b.click('mcp-add');
        await b.fill('mcp-url-0', oauth.url);
        await b.click('mcp-connect-0');
        await b.until(() => /^Needs sign-in/.test(document.querySelector('[data-testid="mcp-auth-state"]')?.textContent ?? ''), [], { what: 'the server needs a sign-in' });
        // The window opens, goes to the authorization server and back to signed-in.html, tells
        // the page on a BroadcastChannel and closes.
        await b.click('mcp-sign-in');
        await b.until(() => /^Signed in/.test(document.querySelector('[data-testid="mcp-auth-state"]')?.textContent ?? ''), [], { what: 'signed in' });
        await b.until(() => /Connected to thoughtline-oauth-mcp/.test(document.querySelector('[data-testid="mcp-status-0"]')?.textContent ?? ''), [], { what: 'connected once signed in' });
        await choose(b, 'mcp-approval-0-whoami', 'allow');
        await b.click('settings-close');
        await script(server.origin, scope, [action('whoami', {}), { text: 'Final Answer: You are demo_user.' }]);
        await ask(b, 'Who am I there?');
        assert.equal(await answer(b), 'You are demo_user.');
        const state = await oauth.state();
        const token = state.mcpTokens.filter((t) => t.startsWith('Bearer ')).at(-1).slice('Bearer '.length);
        assert.ok(!JSON.stringify(await requests(server.origin, scope)).includes(token), 'the token never went to the model');
        assert.ok(!(await storedText(b)).includes(token), 'not stored without Remember');
        assert.equal(state.authSawBearer, false);
      } finally {
        await oauth.stop();
      }
    });

    const inPage = fs.existsSync(llamaModel) ? false : `${llamaModel} is missing: run scripts/setup.sh`;
    test('the model in the page answers, or the page says plainly what this browser lacks', { skip: inPage }, async () => {
      const name = `engine-${engine}-${process.pid}.gguf`;
      await openApp(b, {
        seed: (scopeUrl) => ({
          preset: 'in-page', model: `${new URL(scopeUrl).origin}/models/${name}`, connection: { context_tokens: 2048 },
          agent: { max_iterations: 1, temperature: 0 },
        }),
      });
      await ask(b, 'Say hello.');
      await b.until(() => document.querySelector('[data-kind="run_stopped"]'), [], { timeout: 300_000, what: 'the run ends' });
      const kinds = await b.run(() => [...document.querySelectorAll('[data-testid="event"]')].map((e) => e.dataset.kind));
      const problem = await b.run(() => document.querySelector('.bubble.problem')?.textContent ?? '');
      assert.ok(kinds.includes('llm_response'), `${engine}: ${kinds.join(' ')} ${problem}`);
      // What was used, in words: Settings' status line and its note on this browser.
      await b.click('settings-toggle');
      const status = await b.waitText('in-page-status', /^Ready: /);
      const note = await b.waitText('in-page-environment', /\S/);
      if (engine === 'webkit') {
        // No Memory64 (nor JSPI): the compatibility build. No OPFS: downloaded into memory. One
        // thread, isolated or not: WebKitGTK has no SharedArrayBuffer.
        assert.match(status, /· CPU, compatibility build, 1 thread$/, status);
        assert.match(note, /^CPU, compatibility build, 1 thread: (this host does not allow threads|this browser does not offer threads \(no SharedArrayBuffer\)) · this browser cannot keep models, so a model is downloaded again on each visit$/, note);
        assert.equal(await b.count('[data-testid="in-page-cached-model"]'), 0, 'nothing listed as kept');
      } else {
        assert.doesNotMatch(`${status} ${note}`, /compatibility|cannot keep/, `${status} | ${note}`);
        await b.find('[data-testid="in-page-cached-model"]'); // kept in this browser's storage
      }
    });
  });
}
