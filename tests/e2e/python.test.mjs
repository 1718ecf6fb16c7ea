// End-to-end: the `python` tool with a scripted model. The code runs in Pyodide in a worker of
// the page (www/python/worker.js, fetched from python/ on first use): the trace shows the code
// and what it printed, a run keeps its variables from call to call, a call past its time is
// stopped and the next one works, memory and output are bounded, nothing reaches the network
// from Python, and after one use the tool works offline from the service worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { suite, openApp, script, ask, shot, loopbackSettings, action, requests, seen, showAll, startServer } from './harness.mjs';

const env = suite();

/** The loopback settings with Python on (its wall time `seconds`). */
function withPython(seconds = 10, more = {}) {
  return (scopeUrl, base) => loopbackSettings(scopeUrl, base, { python: { common: { enabled: true, timeout_s: seconds }, ...more } });
}

/** Waits for the run's answer (the first start of Python fetches and compiles 13 MB). */
async function answered(page) {
  await page.locator('.bubble.assistant').waitFor({ timeout: 120_000 });
  await page.locator('[data-kind="final_answer"], [data-kind="run_stopped"]').first().waitFor({ timeout: 30_000 });
}

/** The text of each code block and each output block in the trace, in order. */
async function codeAndOutputs(page) {
  return {
    code: await page.getByTestId('code').allTextContents(),
    outputs: await page.getByTestId('code-output').allTextContents(),
  };
}

test('python: the agent runs code, the trace shows the code and 5050, the model reads it, and a second call uses what the first defined', async () => {
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, { seed: withPython() });
  await script(env.server.origin, scope, [
    action('python', { code: 'numbers = list(range(101))\nprint(sum(range(101)))' }),
    action('python', '```python\nprint(len(numbers), sum(numbers) * 2)\n```'),
    { text: 'Thought: I have both figures.\nFinal Answer: The numbers 0 to 100 add up to 5050.' },
  ]);
  await ask(page, 'What do the numbers from 0 to 100 add up to?');
  await answered(page);
  const { code, outputs } = await codeAndOutputs(page);
  assert.ok(code.some((c) => c.includes('print(sum(range(101)))')), `the code is shown: ${code.join(' | ')}`);
  assert.ok(code.some((c) => c === 'print(len(numbers), sum(numbers) * 2)'), `a fenced block is shown as its code: ${code.join(' | ')}`);
  assert.deepEqual(outputs, ['5050', '101 10100']);
  assert.equal(await page.locator('[data-kind="tool_result"]').first().getAttribute('data-tone'), 'success');
  // The model was given what the code printed.
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[1].body.messages.at(-1).content, /Observation: 5050/);
  assert.match(sent[2].body.messages.at(-1).content, /Observation: 101 10100/);
  assert.match(await page.locator('.bubble.assistant .text').textContent(), /5050/);
  // The tool is described to the model.
  assert.match(sent[0].body.messages[0].content, /python: Runs Python 3 code in a sandbox/);
  // Settings says the runtime is up.
  await page.getByTestId('settings-toggle').click();
  await page.getByTestId('tool-settings').locator('summary', { hasText: 'Python' }).click();
  await page.getByTestId('python-status').filter({ hasText: /Ready|Ready to start again/ }).waitFor({ timeout: 10_000 });
  await shot(page, 'python-trace');
  assert.deepEqual(errors.filter((e) => !/favicon/.test(e)), []);
  await context.close();
});

test('python limits: an endless loop is stopped and the next call works, 10 GB is a MemoryError, 50 MB of output is cut, an interpreter past 500 MB is ended, and the page lives on', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withPython(2) });
  await script(env.server.origin, scope, [
    action('python', { code: 'kept = 7\nwhile True: pass' }),
    action('python', { code: "print('after the loop', 'kept' in globals())" }),
    // 10 GB of list: more than WebAssembly's 4 GB (bytearray(10 GB) cannot even be asked for
    // in a 32-bit Python: OverflowError).
    action('python', { code: 'big = [0] * (10 * 1024**3 // 8)' }),
    action('python', { code: "print('x' * 50_000_000)" }),
    // 600 MB fits, but leaves the interpreter past its 500 MB bound: it is ended after the call.
    action('python', { code: 'grown = bytearray(600 * 1024**2)\nprint(len(grown))' }),
    action('python', { code: "print('grown' in globals())" }),
    { text: 'Final Answer: done' },
  ]);
  await ask(page, 'Try the limits.');
  await answered(page);
  const failed = page.locator('[data-kind="tool_failed"]');
  assert.equal(await failed.count(), 1);
  assert.match(await failed.textContent(), /time limit \(2 s\)/);
  assert.match(await failed.textContent(), /variables are gone; the next call starts clean/);
  assert.equal(await failed.getAttribute('data-tone'), 'error');
  const { outputs } = await codeAndOutputs(page);
  assert.equal(outputs[0], 'after the loop False', 'the next call ran, in a clean interpreter');
  assert.match(outputs[1], /MemoryError/);
  assert.match(outputs[2], /^x{200}/);
  await showAll(page.locator('[data-kind="tool_result"]').nth(2));
  assert.match((await codeAndOutputs(page)).outputs[2], /output cut: 50\.0 MB more left out/);
  await showAll(page.locator('[data-kind="tool_result"]').nth(3));
  assert.match((await codeAndOutputs(page)).outputs[3], /^629145600\n\(Python's memory grew to 6\d\d\.\d MB, past its bound of 500\.0 MB: its interpreter was ended/);
  assert.equal((await codeAndOutputs(page)).outputs[4], 'False');
  const sent = await requests(env.server.origin, scope);
  assert.ok(sent[4].body.messages.at(-1).content.length < 12_000, 'the model was given a bounded observation');
  assert.match(await page.locator('.bubble.assistant .text').textContent(), /done/);
  await context.close();
});

test('python on a cross-origin isolated page: a call past its time is interrupted, and the run keeps its variables', async () => {
  const isolated = await startServer(['--isolate']);
  try {
    const { page, context, scope } = await openApp(env.browser, isolated.origin, { seed: withPython(2) });
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    await script(isolated.origin, scope, [
      action('python', { code: 'kept = 5\nwhile True:\n    kept = 5' }),
      action('python', { code: 'print(kept * 2)' }),
      { text: 'Final Answer: 10' },
    ]);
    await ask(page, 'Loop, then go on.');
    await answered(page);
    const failed = page.locator('[data-kind="tool_failed"]');
    assert.match(await failed.textContent(), /stopped this code at its time limit \(2 s\); this run's variables are kept\. It was at: File "<code>", line 3/);
    assert.deepEqual((await codeAndOutputs(page)).outputs, ['10']);
    await context.close();
  } finally {
    isolated.stop();
  }
});

test('python sandbox: fetch, XMLHttpRequest, WebSocket, EventSource, urllib, indexedDB and caches fail from Python, and no request leaves the worker', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withPython() });
  const probe = `${env.server.origin}/s/${scope}/probe-`;
  const code = [
    'import js, urllib.request',
    `url = ${JSON.stringify(probe)}`,
    'lines = []',
    'def attempt(name, go):',
    '    try:',
    '        go()',
    '        lines.append(name + ": reached")',
    '    except BaseException as e:',
    '        lines.append(name + ": blocked")',
    'attempt("fetch", lambda: js.fetch(url + "fetch"))',
    'attempt("prototype fetch", lambda: js.WorkerGlobalScope.prototype.fetch.call(js, url + "prototype"))',
    'attempt("XMLHttpRequest", lambda: js.XMLHttpRequest.new().open("GET", url + "xhr"))',
    'attempt("WebSocket", lambda: js.WebSocket.new(url.replace("http", "ws") + "ws"))',
    'attempt("EventSource", lambda: js.EventSource.new(url + "sse"))',
    'attempt("urllib", lambda: urllib.request.urlopen(url + "urllib", timeout=2))',
    'attempt("indexedDB", lambda: js.indexedDB.open("thoughtline"))',
    'attempt("caches", lambda: js.caches.keys())',
    'attempt("importScripts", lambda: js.importScripts(url + "import.js"))',
    'attempt("import()", lambda: js.eval("import(\'" + url + "module.js\')"))',
    'attempt("a worker", lambda: js.Worker.new(url + "worker.js"))',
    'print("\\n".join(lines))',
  ].join('\n');
  await script(env.server.origin, scope, [action('python', { code }), { text: 'Final Answer: checked' }]);
  await ask(page, 'Can Python reach out?');
  await answered(page);
  await showAll(page.locator('[data-kind="tool_result"]').first());
  const [output] = (await codeAndOutputs(page)).outputs;
  const lines = output.split('\n');
  assert.equal(lines.length, 11, output);
  for (const line of lines) assert.match(line, /: blocked$/, output);
  // Anything sent would have arrived by now; the server saw none of it.
  await page.waitForTimeout(500);
  const probes = (await seen(env.server.origin, scope)).filter((r) => r.path.includes('probe-'));
  assert.deepEqual(probes, []);
  await context.close();
});

test('python offline: after one use, the runtime comes from the service worker and the tool runs with the network cut', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withPython(), serviceWorkers: 'allow' });
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
  await script(env.server.origin, scope, [action('python', { code: 'print(6 * 7)' }), { text: 'Final Answer: 42' }]);
  await ask(page, 'Six times seven, in Python?');
  await answered(page);
  assert.deepEqual((await codeAndOutputs(page)).outputs, ['42']);

  await context.setOffline(true);
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  const replies = [action('python', { code: "import statistics\nprint(statistics.mean([1, 2, 3, 4]))" }).text, 'Final Answer: 2.5'];
  await context.route('**/v1/chat/completions', (route) => route.fulfill({
    status: 200, headers: { 'Content-Type': 'text/event-stream', 'Access-Control-Allow-Origin': '*' }, body: sse(replies.shift() ?? 'Final Answer: no more'),
  }));
  await ask(page, 'The mean of 1 to 4, offline?');
  await page.locator('[data-testid="code-output"]', { hasText: '2.5' }).waitFor({ timeout: 120_000 });
  assert.equal(await page.locator('[data-kind="tool_failed"]').count(), 0);
  await context.close();
});

test('python behind approval: the call waits for the person, and a denied call never runs', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withPython(10, { approve: true }) });
  await script(env.server.origin, scope, [action('python', { code: "print('ran')" }), { text: 'Final Answer: not run' }]);
  await ask(page, 'Run something.');
  await page.getByTestId('approval-deny').click({ timeout: 30_000 });
  await answered(page);
  assert.deepEqual((await codeAndOutputs(page)).outputs, []);
  const sent = await requests(env.server.origin, scope);
  assert.match(sent[1].body.messages.at(-1).content, /did not allow/);
  await context.close();
});

test('python reads the person\'s documents under /documents/, and cannot change them', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: withPython() });
  await page.getByTestId('documents').click();
  await page.getByTestId('documents-panel').waitFor();
  await page.getByTestId('documents-add').setInputFiles([{ name: 'tides.csv', mimeType: 'text/csv', buffer: Buffer.from('day,high\nmon,2.1\ntue,2.4\nwed,1.9\n') }]);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="document"]')].some((r) => r.dataset.state === 'ready'), null, { timeout: 30_000 });
  const code = [
    'import csv, os',
    "print(os.listdir('/documents'))",
    "rows = list(csv.DictReader(open('/documents/tides.csv')))",
    "print(max(float(r['high']) for r in rows))",
    'try:',
    "    open('/documents/tides.csv', 'w').write('gone')",
    "    print('written')",
    'except OSError as e:',
    "    print('read-only:', type(e).__name__)",
  ].join('\n');
  await script(env.server.origin, scope, [action('python', { code }), { text: 'Final Answer: 2.4' }]);
  await ask(page, 'What is the highest tide in my file?');
  await answered(page);
  const [output] = (await codeAndOutputs(page)).outputs;
  assert.match(output, /^\['tides\.csv'\]\n2\.4\nread-only: PermissionError$/, output);
  await context.close();
});

/**
 * A package index on loopback, in the Simple API's JSON form, with one pure-Python wheel
 * (`tlhello` 1.0, built here with Python's zipfile), and every request it hears.
 */
async function startIndex() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thoughtline-index-'));
  const name = 'tlhello-1.0-py3-none-any.whl';
  const build = [
    'import base64, hashlib, sys, zipfile',
    'files = {',
    '    "tlhello/__init__.py": "def greet():\\n    return \'hello from the index\'\\n",',
    '    "tlhello-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: tlhello\\nVersion: 1.0\\n",',
    '    "tlhello-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: thoughtline-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",',
    '}',
    'digest = lambda b: "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()',
    'files["tlhello-1.0.dist-info/RECORD"] = "".join(f"{p},{digest(c.encode())},{len(c.encode())}\\n" for p, c in files.items()) + "tlhello-1.0.dist-info/RECORD,,\\n"',
    'with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:',
    '    for p, c in files.items():',
    '        z.writestr(zipfile.ZipInfo(p, (2020, 1, 1, 0, 0, 0)), c)',
  ].join('\n');
  execFileSync('python3', ['-c', build, path.join(dir, name)]);
  const wheel = fs.readFileSync(path.join(dir, name));
  const sha256 = crypto.createHash('sha256').update(wheel).digest('hex');
  const heard = [];
  const server = http.createServer((req, res) => {
    heard.push(req.url);
    const cors = { 'Access-Control-Allow-Origin': '*' };
    const origin = `http://127.0.0.1:${server.address().port}`;
    if (req.url === '/simple/tlhello/') {
      res.writeHead(200, { ...cors, 'Content-Type': 'application/vnd.pypi.simple.v1+json' });
      return res.end(JSON.stringify({ meta: { 'api-version': '1.1' }, name: 'tlhello', versions: ['1.0'], files: [{ filename: name, url: `${origin}/files/${name}`, hashes: { sha256 } }] }));
    }
    if (req.url === `/files/${name}`) {
      res.writeHead(200, { ...cors, 'Content-Type': 'application/octet-stream' });
      return res.end(wheel);
    }
    res.writeHead(404, cors);
    res.end('not here');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, heard, stop: () => { server.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

test('python installs a package from the index the person allowed, and only from there; each request is in the trace', async () => {
  const index = await startIndex();
  try {
    const seed = withPython(30, { install_packages: true, package_index: `${index.origin}/simple` });
    const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed });
    const elsewhere = `${env.server.origin}/s/${scope}/probe-elsewhere`;
    const code = [
      'import micropip, js',
      'await micropip.install("tlhello")',
      'import tlhello',
      'print(tlhello.greet())',
      'try:',
      `    await js.fetch(${JSON.stringify(elsewhere)})`,
      '    print("elsewhere: reached")',
      'except Exception:',
      '    print("elsewhere: refused")',
    ].join('\n');
    await script(env.server.origin, scope, [action('python', { code }), { text: 'Final Answer: installed' }]);
    await ask(page, 'Install tlhello and greet.');
    await answered(page);
    await showAll(page.locator('[data-kind="tool_result"]').first());
    const [output] = (await codeAndOutputs(page)).outputs;
    const lines = output.split('\n');
    assert.deepEqual(lines.slice(0, 3), ['hello from the index', 'elsewhere: refused', 'Network (installing packages is allowed in Settings):'], output);
    assert.deepEqual(lines.slice(3), [
      `  GET ${index.origin}/simple/tlhello/ → 200`,
      `  GET ${index.origin}/files/tlhello-1.0-py3-none-any.whl → 200`,
      `  GET ${elsewhere} → refused: not an allowed address`,
    ], output);
    assert.deepEqual(index.heard, ['/simple/tlhello/', '/files/tlhello-1.0-py3-none-any.whl']);
    await page.waitForTimeout(300);
    assert.deepEqual((await seen(env.server.origin, scope)).filter((r) => r.path.includes('probe-')), []);
    // The model was told the code could install, and from where it went.
    const sent = await requests(env.server.origin, scope);
    assert.match(sent[0].body.messages[0].content, /micropip\.install/);
    await context.close();
  } finally {
    index.stop();
  }
});

/** A streamed chat reply of `text` (OpenAI's server-sent events). */
const sse = (text) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`
  + `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
