// The in-page model engine (www/in-page/engine.js) on its own, in Debian's headless Chromium:
// a real GGUF (SmolLM2-135M, the one scripts/setup.sh installs; LLAMA_MODEL overrides it) served
// from a loopback server with the headers and failures of real hosting.
//   node --test tests/in-page/engine.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer, defaultModel } from './server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const haveModel = fs.existsSync(defaultModel);
const skip = haveModel ? false : `no model at ${defaultModel}: run scripts/setup.sh (setup_llm_server) or set LLAMA_MODEL`;
if (skip) console.log(`# in-page engine tests skipped: ${skip}`);

let server;
let browser;
let dist;
const modelBytes = haveModel ? fs.statSync(defaultModel).size : 0;
const modelUrl = () => `${server.origin}/models/smol.gguf`;

before(async () => {
  if (skip) return;
  // The files as the build places them: scripts/copy-in-page.sh into a dist folder.
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'in-page-'));
  execFileSync('bash', [path.join(root, 'scripts', 'copy-in-page.sh'), dist], { stdio: 'ignore' });
  server = await startServer({ dist, cutAfter: 20 * 1024 * 1024, slowBytesPerSecond: 4 * 1024 * 1024 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dist) fs.rmSync(dist, { recursive: true, force: true });
});

/** A fresh browser context (its own storage) on the test page, with the engine imported as E. */
async function openPage(query) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/page.html?${query}`);
  await page.evaluate(async () => {
    window.E = await import('/in-page/engine.js');
    // Runs an engine call; a failure comes back as { kind, message } (Errors don't cross).
    window.attempt = async (f) => {
      try {
        return { value: await f() };
      } catch (e) {
        return { kind: e.kind, message: e.message, extra: { ...e } };
      }
    };
    // The files in the engine's download cache (OPFS "cache" folder).
    window.cacheFiles = async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('cache', { create: true });
      const names = [];
      for await (const [name] of dir.entries()) names.push(name);
      return names;
    };
  });
  return { context, page, errors };
}

const hits = (key) => server.hits[key] || 0;

// A tiny ReAct exchange the 135M model continues in the same format (it writes an Observation).
const SYSTEM = 'You are an agent. Answer with this format:\nThought: what to do\nAction: search\n'
  + 'Action Input: the query\nObservation: the result\nFinal Answer: the answer';
const REACT = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: 'Question: What is the capital of France?' },
  { role: 'assistant', content: 'Thought: I should search.\nAction: search\nAction Input: capital of France\n'
    + 'Observation: Paris is the capital of France.\nThought: I know the answer.\nFinal Answer: Paris' },
  { role: 'user', content: 'Question: What is the capital of Spain?' },
];

test('in-page engine: isolated page under the strict CSP', { skip }, async (t) => {
  const { context, page, errors } = await openPage('coi=1&csp=strict');
  const url = modelUrl();

  await t.test('environment() and modelSize()', async () => {
    const env = await page.evaluate(() => E.environment());
    assert.equal(env.isolated, true);
    assert.equal(env.threads, env.cores);
    assert.equal(env.supported, true);
    assert.match(env.note, /^CPU, \d+ threads?$/);
    const sizes = await page.evaluate(async (u) => [await E.modelSize(u), await E.modelSize('/models/none.gguf')], url);
    assert.deepEqual(sizes, [modelBytes, null]);
    assert.deepEqual(await page.evaluate(() => E.supports()), { react: true, structured: true, native_tools: false, plan: true });
  });

  await t.test('load() downloads with progress events', async () => {
    const before = hits('GET /models/smol.gguf');
    const r = await page.evaluate(async (u) => {
      const progress = [];
      const info = await E.load({ url: u }, { nCtx: 1024, onProgress: (p) => progress.push(p) });
      return { info, progress, cores: navigator.hardwareConcurrency };
    }, url);
    assert.deepEqual(r.info, { name: 'smol.gguf', sizeBytes: modelBytes, nCtx: 1024, threads: r.cores,
      backend: 'cpu', arch: 'llama', chatTemplate: true, cached: false });
    assert.ok(r.progress.length >= 2, `progress events: ${r.progress.length}`);
    const last = r.progress.at(-1);
    assert.equal(last.loaded, modelBytes);
    assert.equal(last.total, modelBytes);
    assert.ok(r.progress.every((p) => typeof p.bytesPerSecond === 'number' && p.loaded <= p.total));
    assert.equal(hits('GET /models/smol.gguf') - before, 1);
  });

  await t.test('chat() streams and ends at a stop sequence', async () => {
    const r = await page.evaluate(async (messages) => {
      const deltas = [];
      const reply = await E.chat(messages, { maxTokens: 60, temperature: 0, stop: ['Observation:'], onText: (d) => deltas.push(d) });
      return { reply, deltas };
    }, REACT);
    assert.equal(r.reply.finishReason, 'stop');
    assert.ok(r.deltas.length > 3, 'several deltas');
    assert.equal(r.deltas.join(''), r.reply.text);
    assert.match(r.reply.text, /Action Input:/);
    assert.doesNotMatch(r.reply.text, /Observation/);
    assert.ok(r.reply.promptTokens > 50 && r.reply.completionTokens > 5);
    assert.ok(r.reply.promptMs > 0 && r.reply.genMs > 0);
  });

  await t.test('chat() with a JSON schema gives JSON that parses', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'] };
    const reply = await page.evaluate((s) => E.chat([{ role: 'user', content: 'Name a big city and its country, as JSON.' }],
      { maxTokens: 60, temperature: 0, jsonSchema: s }), schema);
    const value = JSON.parse(reply.text);
    assert.equal(typeof value.city, 'string');
    assert.equal(typeof value.country, 'string');
  });

  await t.test('an abort mid-reply answers at once, and the next chat works', async () => {
    const r = await page.evaluate(async () => {
      const stop = new AbortController();
      let n = 0;
      let abortedAt = 0;
      const reply = await E.chat([{ role: 'user', content: 'Tell me a long story about a dragon.' }], {
        maxTokens: 200, temperature: 0, signal: stop.signal,
        onText: () => { if (++n === 3) { abortedAt = performance.now(); stop.abort(); } },
      });
      const waited = performance.now() - abortedAt;
      // a chat started while another writes ends that one
      const first = E.chat([{ role: 'user', content: 'Count from one to fifty.' }], { maxTokens: 100, temperature: 0 });
      await new Promise((r) => setTimeout(r, 300));
      const next = await E.chat([{ role: 'user', content: 'Say hello.' }], { maxTokens: 8, temperature: 0 });
      return { reply, waited, n, next, first: await first };
    });
    assert.equal(r.first.finishReason, 'aborted');
    assert.equal(r.reply.finishReason, 'aborted');
    assert.ok(r.waited < 300, `abort answered after ${r.waited} ms`);
    assert.ok(r.next.text.length > 0);
    assert.ok(['stop', 'length'].includes(r.next.finishReason));
  });

  await t.test('warm() fills the cache for the next chat; a chat supersedes a warm', async () => {
    const r = await page.evaluate(async () => {
      const system = { role: 'system', content: 'You are a careful assistant. Tools: search(query), calculator(expression). '
        + 'Think step by step and answer briefly.' };
      const warmed = await E.warm([system]);
      const reply = await E.chat([system, { role: 'user', content: 'What is 2 + 2?' }], { maxTokens: 8, temperature: 0 });
      // a warm that a chat overtakes: the chat must not wait for it, nor break
      const other = { role: 'system', content: `Another long prompt. ${'Some text to read. '.repeat(60)}` };
      const pending = E.warm([other]);
      const t0 = performance.now();
      const second = await E.chat([{ role: 'user', content: 'Say yes.' }], { maxTokens: 4, temperature: 0 });
      return { warmed, reply, second, secondMs: performance.now() - t0, superseded: await pending };
    });
    assert.ok(r.warmed && r.warmed.promptTokens > 20, JSON.stringify(r.warmed));
    assert.ok(r.reply.cachedTokens >= r.warmed.promptTokens - 5, `cached ${r.reply.cachedTokens} of ${r.warmed.promptTokens}`);
    assert.ok(r.second.text.length > 0);
    assert.equal(r.superseded, null);
  });

  await t.test('a prompt longer than the context is context_full, with both numbers', async () => {
    const r = await page.evaluate(() => attempt(() => E.chat([{ role: 'user', content: 'word '.repeat(1500) }], { maxTokens: 4 })));
    assert.equal(r.kind, 'context_full', JSON.stringify(r));
    assert.equal(r.extra.nCtx, 1024);
    assert.ok(r.extra.promptTokens > 1024);
    assert.match(r.message, /\d+ tokens.*1024/);
  });

  await t.test('too large a context is out_of_memory, naming model and context sizes', async () => {
    const r = await page.evaluate((u) => attempt(() => E.load({ url: u }, { nCtx: 262144 })), url);
    assert.equal(r.kind, 'out_of_memory', JSON.stringify(r));
    assert.match(r.message, /98 MB/);
    assert.match(r.message, /262144 tokens/);
  });

  await t.test('the second load of a URL comes from the cache, without any request', async () => {
    const before = { get: hits('GET /models/smol.gguf'), head: hits('HEAD /models/smol.gguf') };
    const info = await page.evaluate((u) => E.load({ url: u }, { nCtx: 512 }), url);
    assert.equal(info.cached, true);
    assert.equal(info.nCtx, 512);
    assert.deepEqual({ get: hits('GET /models/smol.gguf'), head: hits('HEAD /models/smol.gguf') }, before);
    const listed = await page.evaluate(() => E.cachedModels());
    assert.deepEqual(listed, [{ url, name: 'smol.gguf', sizeBytes: modelBytes }]);
  });

  await t.test('deleteCached() removes the model', async () => {
    const r = await page.evaluate(async (u) => {
      await E.unload();
      return { deleted: await E.deleteCached(u), listed: await E.cachedModels(), files: await cacheFiles() };
    }, url);
    assert.deepEqual(r, { deleted: true, listed: [], files: [] });
  });

  await t.test('bad files fail with their kind and leave nothing cached', async () => {
    const r = await page.evaluate(async () => ({
      junk: await attempt(() => E.load({ url: '/models/junk.gguf' })),
      blob: await attempt(() => E.load({ files: [new File(['hello, not a model'], 'notes.gguf')] })),
      short: await attempt(() => E.load({ url: '/models/short.gguf' })),
      cut: await attempt(() => E.load({ url: '/models/cut.gguf' })),
      files: await cacheFiles(),
    }));
    assert.equal(r.junk.kind, 'not_gguf', JSON.stringify(r.junk));
    assert.equal(r.blob.kind, 'not_gguf');
    assert.match(r.blob.message, /notes\.gguf/);
    assert.equal(r.short.kind, 'truncated', JSON.stringify(r.short));
    assert.ok(['network', 'truncated'].includes(r.cut.kind), JSON.stringify(r.cut));
    assert.deepEqual(r.files, []);
  });

  await t.test('an unknown architecture is unknown_arch', async () => {
    const r = await page.evaluate(() => attempt(() => E.load({ url: '/models/alien.gguf' }, { nCtx: 512 })));
    assert.equal(r.kind, 'unknown_arch', JSON.stringify(r));
    assert.match(r.message, /alien/);
    assert.deepEqual(await page.evaluate(() => cacheFiles()), []);
  });

  await t.test('a cancelled download is aborted and leaves nothing cached', async () => {
    const r = await page.evaluate(async () => {
      const stop = new AbortController();
      const res = await attempt(() => E.load({ url: '/models/slow.gguf' }, {
        signal: stop.signal, onProgress: (p) => { if (p.loaded > 4e6) stop.abort(); },
      }));
      return { res, files: await cacheFiles(), listed: await E.cachedModels() };
    });
    assert.equal(r.res.kind, 'aborted', JSON.stringify(r.res));
    assert.deepEqual(r.files, []);
    assert.deepEqual(r.listed, []);
  });

  assert.deepEqual(errors, []);
  await context.close();
});

test('in-page engine: a page without isolation loads local files on one thread', { skip }, async () => {
  const { context, page } = await openPage('');
  const r = await page.evaluate(async () => {
    const env = await E.environment();
    const blob = await (await fetch('/models/smol.gguf')).blob();
    const info = await E.load({ files: [new File([blob], 'SmolLM2.gguf')] }, { nCtx: 512 });
    const reply = await E.chat([{ role: 'user', content: 'Say hi.' }], { maxTokens: 4, temperature: 0 });
    await E.unload();
    return { env, info, reply, files: await cacheFiles() };
  });
  assert.equal(r.env.isolated, false);
  assert.equal(r.env.threads, 1);
  assert.equal(r.env.note, 'CPU, 1 thread: this host does not allow threads');
  assert.equal(r.info.threads, 1);
  assert.equal(r.info.name, 'SmolLM2.gguf');
  assert.equal(r.info.cached, false);
  assert.ok(r.reply.completionTokens > 0);
  assert.deepEqual(r.files, [], 'local files are not copied into the cache');
  await context.close();
});

test('in-page engine: what a Content-Security-Policy refuses is kind blocked', { skip }, async () => {
  // without 'wasm-unsafe-eval' wllama's load would hang: the engine must answer within its limit
  const noWasm = await openPage('coi=1&csp=nowasm');
  const t0 = Date.now();
  const r1 = await noWasm.page.evaluate((u) => attempt(() => E.load({ url: u }, { timeoutMs: 15000 })), modelUrl());
  assert.ok(['blocked', 'timeout'].includes(r1.kind), JSON.stringify(r1));
  assert.match(r1.message, /wasm-unsafe-eval/);
  assert.ok(Date.now() - t0 < 15000);
  assert.equal((await noWasm.page.evaluate(() => E.environment())).supported, false);
  await noWasm.context.close();

  const noBlob = await openPage('coi=1&csp=noblob');
  const r2 = await noBlob.page.evaluate((u) => attempt(() => E.load({ url: u })), modelUrl());
  assert.equal(r2.kind, 'blocked', JSON.stringify(r2));
  assert.match(r2.message, /worker-src needs blob:/);
  await noBlob.context.close();

  // a model on a host the policy does not list: the message names the host
  const other = await openPage('coi=1&csp=noconnect');
  const url = `${server.otherOrigin}/models/smol.gguf`;
  const r3 = await other.page.evaluate((u) => attempt(() => E.load({ url: u }, { timeoutMs: 15000 })), url);
  assert.equal(r3.kind, 'blocked', JSON.stringify(r3));
  assert.ok(r3.message.includes(new URL(url).host), r3.message);
  assert.deepEqual(await other.page.evaluate(() => cacheFiles()), []);
  await other.context.close();
});

test('in-page engine: without Memory64 and without storage, the compatibility build loads a model held in memory', { skip }, async () => {
  // What WebKit lacks (tests/engines runs WebKit itself): Memory64 hidden from the page, no OPFS.
  const context = await browser.newContext();
  await context.addInitScript(() => {
    const Memory = WebAssembly.Memory;
    const NoMemory64 = function (d) {
      if (d?.address === 'i64') throw new TypeError('no Memory64 in this test');
      return new Memory(d);
    };
    NoMemory64.prototype = Memory.prototype;
    WebAssembly.Memory = NoMemory64;
    delete StorageManager.prototype.getDirectory;
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${server.origin}/page.html?csp=strict`);
  const url = modelUrl();
  const gets = () => hits('GET /models/smol.gguf');
  const before = gets();
  const compatBefore = hits('GET /in-page/wllama-compat.wasm');
  const r = await page.evaluate(async (u) => {
    const E = await import('/in-page/engine.js');
    const attempt = async (f) => {
      try {
        return { value: await f() };
      } catch (e) {
        return { kind: e.kind, message: e.message };
      }
    };
    const env = await E.environment();
    const progress = [];
    const info = await E.load({ url: u }, { nCtx: 512, onProgress: (p) => progress.push(p) });
    const reply = await E.chat([{ role: 'user', content: 'Say hi.' }], { maxTokens: 4, temperature: 0 });
    const again = await E.load({ url: u }, { nCtx: 512 });
    await E.unload();
    const stop = new AbortController();
    const aborted = await attempt(() => E.load({ url: '/models/slow.gguf' }, {
      signal: stop.signal, onProgress: (p) => { if (p.loaded > 4e6) stop.abort(); },
    }));
    const cut = await attempt(() => E.load({ url: '/models/cut.gguf' }));
    const missing = await attempt(() => E.load({ url: '/models/none.gguf' }));
    return { env, info, progress, reply, again, aborted, cut, missing, listed: await E.cachedModels(), deleted: await E.deleteCached(u) };
  }, url);
  assert.equal(r.env.supported, true);
  assert.equal(r.env.compat, true);
  assert.equal(r.env.storage, false);
  assert.equal(r.env.note, 'CPU, compatibility build, 1 thread: this host does not allow threads'
    + ' · this browser cannot keep models, so a model is downloaded again on each visit');
  assert.deepEqual(r.info, { name: 'smol.gguf', sizeBytes: modelBytes, nCtx: 512, threads: 1,
    backend: 'CPU, compatibility build', arch: 'llama', chatTemplate: true, cached: false });
  assert.ok(r.progress.length >= 2, `progress events: ${r.progress.length}`);
  assert.deepEqual([r.progress.at(-1).loaded, r.progress.at(-1).total], [modelBytes, modelBytes]);
  assert.ok(r.reply.completionTokens > 0);
  assert.equal(r.again.cached, false, 'nothing was kept: downloaded again');
  assert.ok(hits('GET /in-page/wllama-compat.wasm') > compatBefore, 'the compatibility build came from this site');
  assert.equal(gets() - before, 2);
  assert.equal(r.aborted.kind, 'aborted', JSON.stringify(r.aborted));
  assert.equal(r.cut.kind, 'network', JSON.stringify(r.cut));
  assert.equal(r.missing.kind, 'network', JSON.stringify(r.missing));
  assert.match(r.missing.message, /HTTP 404/);
  assert.deepEqual(r.listed, []);
  assert.equal(r.deleted, false);
  assert.deepEqual(errors, []);
  await context.close();
});
